"""Spatial reasoning: walks and bearings, plane figures, solids, relative positions and
transformations on a grid (the paper's second domain).

Every generator draws a concrete configuration (a walk, a polygon, a cube net, a hidden seating
order, a marked cell) and computes the gold answer from it; `params` holds the configuration, so a
test can recompute the answer by another route (complex-number walks, coordinate geometry, 3-D
rotation matrices, brute force over arrangements, numpy grid rotations). Wrong answers come from
named errors: the reverse bearing, left/right confusion, Manhattan instead of straight-line
distance, the perimeter for the area, the forgotten overlap, the adjacent face for the opposite one.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

from mirror_hf.bank._core import Domain, Item
from mirror_hf.bank._fair import cheapest
from mirror_hf.bank._items import distinct_errors, normalise_text
from mirror_hf.bank._leaks import STRATEGIES, _similarity, _trigrams, credit
from mirror_hf.bank._wording import NAMES, decimal_places, fmt_num, numeric_distractors, pick_distractors, plural

DOMAIN = Domain(
    "spatial",
    "1.0.0",
    "Spatial reasoning: compass walks and bearings, plane geometry (areas, perimeters, angles, "
    "coordinates), 3-D visualisation (cube nets, rolling dice, volumes and surface areas), relative "
    "positions in rows, stacks and round tables, and rotations/reflections/translations on a grid. "
    "All answers are computed from generated configurations; no external data source is used.",
)


def _numeric(question: str, answer, wrong: list, params: dict, fallback_step=1, hi=None, lo=0) -> Item:
    """An exact_numeric Item whose three wrong values are a family of two named errors around the
    gold (`numeric_family`: random rank, no centre); values must be positive and at most `hi` (an
    angle of a triangle cannot be 303°). The item's own text seeds the draw."""
    answer = Fraction(answer)
    text = fmt_num(answer)
    named = [Fraction(w) for w in wrong if w is not None and Fraction(w) > 0 and (hi is None or Fraction(w) <= hi)]
    distractors = numeric_distractors(random.Random(question), answer, named, step=fallback_step, lo=lo, hi=hi,
                                      allow=lambda v: v > 0 and decimal_places(v) <= 2)
    return Item(question, text, "exact_numeric", distractors, params)


def _choice(question: str, answer: str, wrong: list[str], params: dict, answer_type="short_text",
            fallback: list[str] = (), aliases: tuple[str, ...] = ()) -> Item:
    return Item(question, answer, answer_type, pick_distractors(answer, wrong, fallback), params, aliases)


# ============================================================================================
# distance_direction
# ============================================================================================

CARDINALS = ("north", "east", "south", "west")  # clockwise; index = heading
COMPASS8 = ("north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")
_STEP = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}

# Pythagorean triples (legs a, b; hypotenuse c) for walks whose straight-line distance is whole.
TRIPLES = ((3, 4, 5), (6, 8, 10), (5, 12, 13), (9, 12, 15), (8, 15, 17), (12, 16, 20), (7, 24, 25),
           (15, 20, 25), (10, 24, 26), (20, 21, 29), (18, 24, 30), (16, 30, 34), (21, 28, 35), (12, 35, 37))

# (first mention, later mention, verb, unit, unit plural, moves on a street/cell grid?, starting points)
_WALKERS = (
    ("{name}", "{name}", "walks", "block", "blocks", True, ("the town hall", "the bus stop", "the library", "the corner café")),
    ("{name}", "{name}", "hikes", "kilometre", "kilometres", False, ("the trailhead", "the campsite", "the mountain hut")),
    ("{name}", "{name}", "jogs", "mile", "miles", False, ("the park gate", "the old mill", "the lakeside car park")),
    ("a delivery robot", "the robot", "rolls", "metre", "metres", True, ("its charging dock", "the warehouse door")),
    ("a toy robot on a tiled floor", "the robot", "moves", "tile", "tiles", True, ("the kitchen door", "its starting tile")),
    ("a survey drone", "the drone", "flies", "metre", "metres", False, ("its launch pad", "the survey marker")),
    ("{name}'s sailing boat", "the boat", "sails", "nautical mile", "nautical miles", False, ("the harbour", "the lighthouse")),
    ("{name}", "{name}", "cycles", "kilometre", "kilometres", False, ("the village green", "the school gate")),
    ("a game piece on a square grid", "the piece", "moves", "square", "squares", True, ("its starting square",)),
)


def _compass8(dx: int, dy: int) -> str:
    """Nearest of the eight compass points for a displacement (callers keep it unambiguous)."""
    idx = round(math.degrees(math.atan2(dx, dy)) / 45) % 8
    return COMPASS8[idx]


def _split_signed(rng: random.Random, total: int, k: int, hi: int = 12, mixed: bool = False) -> list[int]:
    """`k` non-zero signed leg lengths on one axis that add up to `total` (with `mixed`, at least one of
    them against the others when k >= 2: the walk back-tracks on that axis)."""
    if k == 0:
        if total:
            raise ValueError("no legs for a non-zero displacement")
        return []
    if k == 1:
        if total == 0:
            raise ValueError("one leg cannot cancel out")
        return [total]
    hi = max(hi, abs(total) // k + 4)
    for _ in range(500):
        parts = [rng.choice((-1, 1)) * rng.randint(1, hi) for _ in range(k - 1)]
        last = total - sum(parts)
        if last != 0 and abs(last) <= hi + 6 and not (mixed and len({v > 0 for v in [*parts, last]}) == 1):
            parts.append(last)
            rng.shuffle(parts)
            return parts
    raise RuntimeError("could not split the displacement")  # pragma: no cover


def _walk_legs(rng: random.Random, dx: int, dy: int, n_legs: int, backtrack: bool = False) -> list[tuple[str, int]]:
    """Legs that alternate between the two axes (so every turn is a quarter turn) and end at (dx, dy);
    with `backtrack`, every axis walked more than once is walked both ways."""
    for _ in range(200):
        first_axis = rng.choice("xy")
        axes = [("x" if (i % 2 == 0) == (first_axis == "x") else "y") for i in range(n_legs)]
        kx, ky = axes.count("x"), axes.count("y")
        if (dx and kx == 0) or (dy and ky == 0) or (dx == 0 and kx == 1) or (dy == 0 and ky == 1):
            continue
        xs, ys = iter(_split_signed(rng, dx, kx, mixed=backtrack)), iter(_split_signed(rng, dy, ky, mixed=backtrack))
        legs = []
        for axis in axes:
            v = next(xs) if axis == "x" else next(ys)
            name = ("east" if v > 0 else "west") if axis == "x" else ("north" if v > 0 else "south")
            legs.append((name, abs(v)))
        return legs
    raise RuntimeError("no leg layout for this displacement")  # pragma: no cover


def _displacement(legs) -> tuple[int, int]:
    x = sum(_STEP[d][0] * n for d, n in legs)
    y = sum(_STEP[d][1] * n for d, n in legs)
    return x, y


# Straight-line distances are drawn first, evenly over 5-40, and then realised as a displacement: a
# Pythagorean pair when the distance has one (half the time), otherwise legs whose straight line rounds to
# it (never within 0.2 of a half, and never lopsided enough to read off the longer leg); the wrong values
# shown stay in the same range. With the displacements drawn first, every answer was a hypotenuse (5, 10,
# 13, 15, 17, 20, 25 ...) while slips such as the leg sum (7, 14, 21, 28 ...) never were, and a value past
# the range could only be wrong: the number alone told the gold.
DISTANCES = range(5, 41)
_EXACT = {v: [(a, b) for a in range(1, v) for b in range(1, v) if a * a + b * b == v * v] for v in DISTANCES}
_ROUNDED = {v: [(a, b) for a in range(2, v + 1) for b in range(2, v + 1)
                if max(a, b) <= 3 * min(a, b) and abs(math.hypot(a, b) - v) <= 0.3 and math.isqrt(a * a + b * b) ** 2 != a * a + b * b]
            for v in DISTANCES}


def _draw_distance(rng: random.Random) -> tuple[int, int, bool]:
    """A displacement whose straight-line length (exact, or rounded: the flag) is drawn from DISTANCES."""
    v = rng.choice(DISTANCES)
    exact = bool(_EXACT[v]) and (not _ROUNDED[v] or rng.random() < 0.5)
    a, b = rng.choice(_EXACT[v] if exact else _ROUNDED[v])
    return rng.choice((-1, 1)) * a, rng.choice((-1, 1)) * b, exact


def _direction_distractors(answer: str) -> list[str]:
    a = COMPASS8.index(answer)
    order = [(a + 4) % 8, (8 - a) % 8, (4 - a) % 8, (a + 2) % 8, (a - 2) % 8, (a + 1) % 8, (a - 1) % 8]
    return [COMPASS8[i] for i in order]


def _draw_target(rng: random.Random, n_legs: int) -> tuple[int, int]:
    # direction kinds: both axes clearly non-zero (ratio at most 2, so one compass point is nearest),
    # or one axis exactly zero when there are enough legs to cancel it
    if n_legs >= 3 and rng.random() < 0.3:
        v = rng.choice((-1, 1)) * rng.randint(2, 15)
        return (0, v) if rng.random() < 0.5 else (v, 0)
    while True:
        x, y = rng.randint(2, 14), rng.randint(2, 14)
        if max(x, y) <= 2 * min(x, y):
            return rng.choice((-1, 1)) * x, rng.choice((-1, 1)) * y


# Where the walk of a "direction" item ends, drawn as the answer's shape first. A walk names the
# directions it goes in, so when every walk ended on the diagonal between them (two balanced legs at
# right angles), "pick the option made of the walk's compass words" answered 58% of these items unread.
# Walks are also lopsided (one leg three or more times the other: the nearest of the eight points is
# the long leg's own direction, and the diagonal is the error the item tests) and, from four legs on,
# end exactly on an axis after back-tracking. Two balanced legs can end nowhere but on the diagonal of
# the two directions the question names, and no choice set hides that, so they are a quarter of the
# easy walks: the diagonal is then the gold about as often as any other choice.
_SHAPES = {"easy": (("balanced", 0.25), ("lopsided", 0.75)),
           "medium": (("axis", 0.25), ("balanced", 0.5), ("lopsided", 0.25)),
           "hard": (("axis", 0.25), ("balanced", 0.5), ("lopsided", 0.25))}


def _draw_shape(rng: random.Random, difficulty: str) -> str:
    r = rng.random()
    for shape, p in _SHAPES[difficulty]:
        if r < p:
            return shape
        r -= p
    return _SHAPES[difficulty][-1][0]


def _shape_target(rng: random.Random, shape: str) -> tuple[int, int]:
    """A displacement of the given shape: on one axis; balanced (legs within a factor 2, so the
    diagonal is nearest); lopsided (the short leg at most a third of the long one, so the long leg's
    direction is nearest). Both keep the bearing at least 4 degrees from a sector boundary."""
    if shape == "axis":
        v = rng.choice((-1, 1)) * rng.randint(2, 15)
        return (0, v) if rng.random() < 0.5 else (v, 0)
    if shape == "balanced":
        return _draw_target(rng, 2)
    big = rng.randint(6, 15)
    small = rng.randint(1, big // 3)
    x, y = (big, small) if rng.random() < 0.5 else (small, big)
    return rng.choice((-1, 1)) * x, rng.choice((-1, 1)) * y


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


def _direction_errors(legs, turns, relative: bool) -> list[str]:
    """Where a solver who slips once says the walk ends, most plausible first: both directions
    named without weighing the legs (the diagonal of a lopsided walk), only the long leg or only the
    short one, the reverse bearing, one axis mirrored, one leg left out or walked the wrong way, a
    turn taken the wrong way (or read as a compass direction), a neighbouring compass point."""
    dx, dy = _displacement(legs)
    vecs = [(_sign(dx), _sign(dy))]
    if dx and dy:
        vecs += [(_sign(dx), 0), (0, _sign(dy))] if abs(dx) >= abs(dy) else [(0, _sign(dy)), (_sign(dx), 0)]
    vecs += [(-dx, -dy), (-dx, dy), (dx, -dy)]
    for d, n in legs:
        sx, sy = _STEP[d]
        vecs += [(dx - n * sx, dy - n * sy), (dx - 2 * n * sx, dy - 2 * n * sy)]
    if relative:
        h0 = CARDINALS.index(legs[0][0])
        variants = [[t if k != j else ("left" if t == "right" else "right") for k, t in enumerate(turns)]
                    for j in range(len(turns))]
        variants.append(["left" if t == "right" else "right" for t in turns])
        for var in variants:
            h, walk = h0, [legs[0]]
            for t, (_, n) in zip(var, legs[1:]):
                h = (h + (1 if t == "right" else -1)) % 4
                walk.append((CARDINALS[h], n))
            vecs.append(_displacement(walk))
        # "turn right" taken as "go east", "turn left" as "go west"
        vecs.append(_displacement([legs[0]] + [("east" if t == "right" else "west", n) for t, (_, n) in zip(turns, legs[1:])]))
    out = [_compass8(x, y) for x, y in vecs if x or y]
    a = COMPASS8.index(_compass8(dx, dy))
    if dx and dy:
        out += [COMPASS8[(a + 1) % 8], COMPASS8[(a - 1) % 8]]
    out += [COMPASS8[(a + 2) % 8], COMPASS8[(a - 2) % 8]]
    return out


# How many of the four choices are cardinal points (the rest are diagonals), drawn by the gold's own
# kind. A choice set that mixes the two kinds must not tell which kind the gold is: among sets with c
# cardinals, the gold is a cardinal c/4 of the time (as any one choice is), so a lone diagonal among
# three cardinals is the gold a quarter of the time, not never. Easy walks end on a cardinal point
# three times in four (see _SHAPES), hence three cardinals and one diagonal; longer walks end on either
# kind equally often, and a quarter of their sets are the four points of the gold's kind.
_MIX = {"easy": {"card": {3: 1.0}, "diag": {3: 1.0}},
        "medium": {"card": {4: 0.25, 3: 0.375, 2: 0.25, 1: 0.125}, "diag": {0: 0.25, 1: 0.375, 2: 0.25, 3: 0.125}}}
_MIX["hard"] = _MIX["medium"]


def _bigram_likeness(a: str, b: str) -> float:
    x = {a.lower()[i:i + 2] for i in range(len(a) - 1)} or {a.lower()}
    y = {b.lower()[i:i + 2] for i in range(len(b) - 1)} or {b.lower()}
    return len(x & y) / len(x | y)


def _char_likeness(a: str, b: str) -> float:
    x, y = set(a.lower()), set(b.lower())
    return len(x & y) / len(x | y)


def _gold_rank(scores) -> float:
    """The gold's (choice 0's) rank among the scores, 0 = highest, ties counted half."""
    return sum(1.0 if v > scores[0] else 0.5 if v == scores[0] else 0.0 for v in scores[1:])


def _pick_three(rng: random.Random, answer: str, pool: list[str], question: str, *, accept=None,
                words_top: bool | None = None, limit: int | None = 9) -> tuple[str, str, str] | None:
    """Three of the plausible errors in `pool` such that no test-wise cue points at the gold: `fair_pick`'s
    rule (per item a fresh uniform draw of the gold's rank under each cue, and the set that comes nearest
    to it) with one cue more, the words a choice shares with the other choices. Near misses of the gold
    each keep one of its words (a coordinate, a row number, "north" of "north-east"), so without it the
    gold is the hub the other choices are built around. Likeness is read as the gate reads it (trigram
    overlap) and as a coarser reader would (character bigrams), with character sets to break ties.
    `accept(choices)` limits the sets considered; `words_top` fixes whether the gold may be the choice
    sharing most words with the question (None: drawn like the other cues). None when no set is
    acceptable."""
    texts = [answer, *distinct_errors(answer, pool)[:limit]]
    k = len(texts)
    triples = [t for t in itertools.combinations(range(1, k), 3) if accept is None or accept([texts[i] for i in (0, *t)])]
    if not triples:
        return None
    length = [float(len(t)) for t in texts]
    asked = STRATEGIES["shares_question_words"](question, texts)
    words = [set(normalise_text(t).split()) for t in texts]
    grams = [_trigrams(t) for t in texts]
    pair = lambda f: [[f(i, j) if i != j else 0.0 for j in range(k)] for i in range(k)]
    overlap = pair(lambda i, j: float(len(words[i] & words[j])))
    likeness = (pair(lambda i, j: _similarity(grams[i], grams[j])), pair(lambda i, j: _bigram_likeness(texts[i], texts[j])),
                pair(lambda i, j: _char_likeness(texts[i], texts[j])))
    length_rank, like_rank, words_rank, overlap_rank = (rng.randrange(4) for _ in range(4))
    wanted = {"longest": length_rank == 0, "shortest": length_rank == 3, "similar": like_rank == 0, "odd": like_rank == 3,
              "asked": words_rank == 0 if words_top is None else words_top, "shared": overlap_rank == 0}

    def cost_of(t: tuple[int, ...]) -> float:
        idx = (0, *t)
        lengths = [length[i] for i in idx]
        centres = [[sum(m[i][j] for j in idx) for i in idx] for m in likeness]
        share = {"longest": credit(lengths, 0), "shortest": credit([-x for x in lengths], 0),
                 "asked": credit([asked[i] for i in idx], 0),
                 "shared": credit([sum(overlap[i][j] for j in idx) for i in idx], 0),
                 "similar": (credit(centres[0], 0) + credit(centres[1], 0)) / 2,
                 "odd": (credit([-x for x in centres[0]], 0) + credit([-x for x in centres[1]], 0)) / 2}
        return sum(abs(share[c] - w) for c, w in wanted.items()) + 0.1 * sum(abs(_gold_rank(c) - like_rank) for c in centres)

    x, y, z = (texts[i] for i in cheapest(rng, triples, cost_of))
    return x, y, z


def _compass_options(rng: random.Random, answer: str, errors: list[str], question: str, n_card: int) -> tuple[str, str, str]:
    """Three compass points for a "direction" item: `n_card` cardinal points among the four choices,
    and among the sets of that make-up, one whose words shared with the walk leave the gold no better
    placed than any choice can be (a wrong point made of the walk's own directions is shown whenever
    there is one), the other cues balanced as in `_pick_three`. Named errors first; other points only
    when they cannot fill the make-up."""
    fallback = sorted(COMPASS8, key=lambda d: min((COMPASS8.index(d) - COMPASS8.index(answer)) % 8,
                                                   (COMPASS8.index(answer) - COMPASS8.index(d)) % 8))
    for pool in (errors, errors + fallback):
        options = _pick_three(rng, answer, pool, question, words_top=False, limit=None,
                              accept=lambda cs: sum(c in CARDINALS for c in cs) == n_card)
        if options:
            return options
    raise AssertionError(f"no choice set with {n_card} cardinal points for {answer!r}")  # pragma: no cover


@DOMAIN.subcategory(
    "distance_direction",
    difficulty={
        "easy": "2 legs with compass directions (perpendicular, or out and back on one line); asks the "
                "straight-line distance (5-40 units: a Pythagorean triple, or else rounded to the nearest whole "
                "number) or the compass direction from/to the start, to the nearest of the eight points (legs "
                "within a factor 2 of each other end on the diagonal, a leg three or more times the other "
                "ends on its own direction)",
        "medium": "3-4 legs with compass directions and back-tracking (the direction of the end point: 4 legs, "
                  "both axes walked both ways, sometimes cancelling exactly); adds the shortest grid (street) "
                  "distance back to the start",
        "hard": "4-6 legs given as left/right turns from an initial facing, so the walker's heading must be "
                "tracked; asks distance, compass direction of the end point, return bearing or final facing",
    },
)
def distance_direction(rng: random.Random, difficulty: str) -> Item:
    n_legs = {"easy": 2, "medium": rng.randint(3, 4), "hard": rng.randint(4, 6)}[difficulty]
    relative = difficulty == "hard"
    first_t, ref_t, verb, unit1, unitn, gridlike, starts = rng.choice(_WALKERS)
    name = rng.choice(NAMES)
    first, who = first_t.format(name=name), ref_t.format(name=name)
    First = _cap(first)
    kinds = ["straight", "direction", "back"]
    if difficulty == "medium" and gridlike:
        kinds.append("grid")
    if relative:
        kinds.append("facing")
    kind = rng.choice(kinds)
    shape = _draw_shape(rng, difficulty) if kind == "direction" else None
    if shape and difficulty == "medium":
        n_legs = 4  # back-tracking on both axes: the walk names all four directions

    if shape == "line" or (difficulty == "easy" and kind == "back" and rng.random() < 0.35):
        # out and back along one line: e.g. 9 north then 4 south
        d = rng.choice(CARDINALS)
        back = CARDINALS[(CARDINALS.index(d) + 2) % 4]
        a = rng.randint(5, 15)
        b = rng.randint(1, a - 1)
        legs = [(d, a), (back, b)]
    else:
        if kind == "straight":
            dx, dy, exact = _draw_distance(rng)
        elif shape:
            dx, dy = _shape_target(rng, shape)
        else:
            dx, dy = _draw_target(rng, n_legs)
        if kind == "grid" and (dx == 0 or dy == 0):
            dx = dx or rng.choice((-1, 1)) * rng.randint(2, 9)
            dy = dy or rng.choice((-1, 1)) * rng.randint(2, 9)
        legs = _walk_legs(rng, dx, dy, n_legs, backtrack=shape is not None and difficulty == "medium")
    dx, dy = _displacement(legs)
    final_turn = rng.choice(("left", "right")) if kind == "facing" and rng.random() < 0.5 else None

    def qty(n: int) -> str:
        return plural(n, unit1, unitn)

    start = rng.choice(starts)
    if not relative:
        parts = [f"{qty(n)} {d}" for d, n in legs]
        style = rng.randrange(3)
        if style == 0:
            middle = "".join(f", then {p}" for p in parts[1:-1])
            body = (f"{First} starts at {start} and {verb} {parts[0]}{middle}"
                    f"{', and finally ' if len(parts) > 2 else ', then '}{parts[-1]}.")
        elif style == 1:
            links = ("Next", "After that", "Finally")[-(len(parts) - 1):] if len(parts) > 2 else ("Then",)
            body = f"Starting from {start}, {first} {verb} {parts[0]}. " + " ".join(
                f"{w} {'it' if who.startswith('the ') else who} {verb} {p}." for w, p in zip(links, parts[1:]))
        else:
            body = f"From {start}, {first} {verb} " + ", ".join(parts[:-1]) + f" and then {parts[-1]}."
        turns: list[str] = []
    else:
        headings = [CARDINALS.index(d) for d, _ in legs]
        turns = ["right" if (h2 - h1) % 4 == 1 else "left" for h1, h2 in zip(headings, headings[1:])]
        parts = [f"{verb} {qty(legs[0][1])}"] + [f"turns {t} and {verb} {qty(n)}" for t, (_, n) in zip(turns, legs[1:])]
        opener = rng.choice((f"{First} sets off from {start} facing {legs[0][0]}",
                             f"{First} starts at {start}, facing {legs[0][0]}",
                             f"Facing {legs[0][0]} at {start}, {first} gets ready to move"))
        body = f"{opener}. Then {who} " + ", ".join(parts[:-1]) + f", and finally {parts[-1]}."
        if final_turn:
            body += f" At the end, {who} turns {final_turn} and stops."
    unit_p = unitn
    if kind == "straight":
        if exact:
            q = rng.choice((f"How far is {who} from the starting point in a straight line, in {unit_p}?",
                            f"What is the straight-line distance, in {unit_p}, between the start and the end of the route?",
                            f"As the crow flies, how many {unit_p} separate {who} from where the trip began?"))
        else:
            q = rng.choice((f"How far is {who} from the starting point in a straight line, in {unit_p}, to the nearest whole number?",
                            f"What is the straight-line distance, in {unit_p}, between the start and the end of the route? "
                            f"Round to the nearest whole number.",
                            f"As the crow flies, about how many {unit_p} separate {who} from where the trip began "
                            f"(to the nearest whole number)?"))
        line = math.hypot(dx, dy)
        answer = round(line)
        total = sum(n for _, n in legs)
        # ignoring back-tracking: every leg on an axis counted as if in the same direction
        ux = sum(n for d, n in legs if d in ("east", "west"))
        uy = sum(n for d, n in legs if d in ("north", "south"))
        unsigned = math.hypot(ux, uy)
        unsigned = round(unsigned) if not exact or unsigned == int(unsigned) else None
        # the leg sum (grid distance), every leg added up, back-tracking ignored, the longer leg, the
        # difference of the legs; a rounded distance also truncated
        wrong = [abs(dx) + abs(dy), total, unsigned, max(abs(dx), abs(dy)), abs(abs(dx) - abs(dy)),
                 None if exact else math.floor(line)]
        item_q = f"{body} {q}"
        params = _walk_params(kind, legs, relative, final_turn, unitn, n_legs, turns)
        params["rounded"] = not exact
        return _numeric(item_q, answer, wrong, params, lo=DISTANCES[0], hi=DISTANCES[-1])
    if kind == "grid":
        q = rng.choice((f"Moving only along the grid (north-south or east-west), what is the fewest number of {unit_p} "
                        f"needed to get back to {start}?",
                        f"If {who} may only travel north, south, east or west, how many {unit_p} is the shortest way back "
                        f"to {start}?"))
        answer = abs(dx) + abs(dy)
        total = sum(n for _, n in legs)
        hyp = math.hypot(dx, dy)
        wrong = [total, round(hyp) if round(hyp) != answer else None, max(abs(dx), abs(dy)),
                 abs(abs(dx) - abs(dy)), total - answer]
        params = _walk_params(kind, legs, relative, final_turn, unitn, n_legs, turns)
        return _numeric(f"{body} {q}", answer, wrong, params)
    if kind == "facing":
        h = CARDINALS.index(legs[-1][0])
        if final_turn:
            h = (h + (1 if final_turn == "right" else -1)) % 4
        answer = CARDINALS[h]
        q = rng.choice((f"Which compass direction is {who} facing at the end?",
                        f"In which direction is {who} facing now?",
                        f"At the finish, which way does {who} face: north, east, south or west?"))
        wrong = [CARDINALS[(h + 2) % 4], CARDINALS[(h + 1) % 4], CARDINALS[(h - 1) % 4]]
        params = _walk_params(kind, legs, relative, final_turn, unitn, n_legs, turns)
        return _choice(f"{body} {q}", answer, wrong, params)
    if dx == 0 and dy == 0:  # pragma: no cover - targets are non-zero by construction
        raise AssertionError("walk returned to the start")
    end_dir = _compass8(dx, dy)
    eight = " (to the nearest of the eight compass points)" if (dx and dy) or kind == "direction" else ""
    if kind == "direction":
        answer = end_dir
        q = rng.choice((f"In which direction is {who} now from the starting point{eight}?",
                        f"Relative to {start}, in which compass direction does the route end{eight}?",
                        f"Seen from {start}, which direction is the end point{eight}?"))
        params = _walk_params(kind, legs, relative, final_turn, unitn, n_legs, turns)
        params["shape"] = shape
        item_q = f"{body} {q}"
        if shape == "line":  # one line walked out and back: the four cardinal points
            n_card = 4
        else:
            mix = _MIX[difficulty]["card" if answer in CARDINALS else "diag"]
            n_card = rng.choices(list(mix), weights=list(mix.values()))[0]
        params["n_cardinal_choices"] = n_card
        options = _compass_options(rng, answer, _direction_errors(legs, turns, relative), item_q, n_card)
        return Item(item_q, answer, "short_text", options, params)
    answer = COMPASS8[(COMPASS8.index(end_dir) + 4) % 8]
    q = rng.choice((f"In which direction must {who} head to go straight back to {start}{eight}?",
                    f"Which compass direction points from the end of the route straight back to {start}{eight}?"))
    params = _walk_params(kind, legs, relative, final_turn, unitn, n_legs, turns)
    return _choice(f"{body} {q}", answer, _direction_distractors(answer), params)


def _walk_params(kind, legs, relative, final_turn, unit, n_legs, turns) -> dict:
    return {
        "kind": kind,
        "n_legs": n_legs,
        "relative_turns": relative,
        "legs": [[d, n] for d, n in legs],  # absolute directions (what the walker actually did)
        "start_facing": legs[0][0],
        "turns": turns,  # as told in the question when relative_turns
        "final_turn": final_turn,
        "unit": unit,
    }


# ============================================================================================
# 2d_geometry
# ============================================================================================

_FLAT_THINGS = (
    ("a rectangular garden", "m"), ("a rectangular classroom floor", "m"), ("a rectangular poster", "cm"),
    ("a rectangular rug", "ft"), ("a rectangular tabletop", "cm"), ("a rectangular car park", "m"),
    ("a rectangular photo", "in"), ("a rectangular field", "m"), ("a rectangular tile", "cm"),
)
_UNIT_WORDS = {"m": ("metres", "square metres"), "cm": ("centimetres", "square centimetres"),
               "ft": ("feet", "square feet"), "in": ("inches", "square inches")}
_POLY_NAMES = {5: "pentagon", 6: "hexagon", 8: "octagon", 9: "nonagon", 10: "decagon", 12: "dodecagon",
               15: "15-sided polygon", 18: "18-sided polygon", 20: "20-sided polygon", 24: "24-sided polygon",
               30: "30-sided polygon", 36: "36-sided polygon"}


def _pt(p) -> str:
    return f"({p[0]}, {p[1]})"


def _convex_lattice_polygon(rng: random.Random, n: int, span: int) -> list[tuple[int, int]]:
    """`n` lattice points in convex position, listed counter-clockwise (monotone-chain hull)."""
    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    while True:
        pts = sorted({(rng.randint(-span, span), rng.randint(-span, span)) for _ in range(n)})
        if len(pts) < n:
            continue
        lower: list = []
        for p in pts:
            while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
                lower.pop()
            lower.append(p)
        upper: list = []
        for p in reversed(pts):
            while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
                upper.pop()
            upper.append(p)
        hull = lower[:-1] + upper[:-1]
        if len(hull) == n:
            return hull


def _shoelace(poly) -> Fraction:
    s = sum(poly[i][0] * poly[(i + 1) % len(poly)][1] - poly[(i + 1) % len(poly)][0] * poly[i][1]
            for i in range(len(poly)))
    return Fraction(abs(s), 2)


def _geometry_easy(rng: random.Random) -> Item:
    kind = rng.choice(("rect_area", "rect_perimeter", "right_triangle_area", "triangle_angle", "square_area"))
    thing, u = rng.choice(_FLAT_THINGS)
    lin, sq = _UNIT_WORDS[u]
    if kind in ("rect_area", "rect_perimeter"):
        w, h = rng.sample(range(3, 30), 2)
        what = "area" if kind == "rect_area" else "perimeter"
        q = rng.choice((f"{thing[0].upper() + thing[1:]} measures {w} {u} by {h} {u}. What is its {what}, in {sq if what == 'area' else lin}?",
                        f"What is the {what} of {thing} that is {w} {lin} long and {h} {lin} wide (answer in {sq if what == 'area' else lin})?",
                        f"The sides of {thing} are {w} {u} and {h} {u}. Find its {what} in {sq if what == 'area' else lin}."))
        if kind == "rect_area":
            return _numeric(q, w * h, [2 * (w + h), w + h, w * h * 2, (w * h) // 2 if w * h % 2 == 0 else None],
                            {"kind": kind, "w": w, "h": h, "steps": 1})
        return _numeric(q, 2 * (w + h), [w * h, w + h, 2 * w + h, w + 2 * h], {"kind": kind, "w": w, "h": h, "steps": 1})
    if kind == "square_area":
        s = rng.randint(3, 25)
        q = rng.choice((f"A square courtyard has a perimeter of {4 * s} m. What is its area in square metres?",
                        f"A square tile has a perimeter of {4 * s} cm. What is the area of the tile, in square centimetres?"))
        return _numeric(q, s * s, [(2 * s) ** 2, 4 * s, (4 * s) ** 2, 2 * s * s], {"kind": kind, "side": s, "steps": 2})
    if kind == "right_triangle_area":
        while True:
            a, b = rng.randint(3, 24), rng.randint(3, 24)
            if (a * b) % 2 == 0 and a != b:
                break
        q = rng.choice((f"A right triangle has legs of {a} cm and {b} cm. What is its area in square centimetres?",
                        f"A triangular flower bed has a right angle between its two shorter sides, which are {a} m and {b} m long. "
                        f"What is its area in square metres?",
                        f"The two sides that meet at the right angle of a right-angled triangle are {a} in and {b} in. "
                        f"Find the area in square inches."))
        return _numeric(q, Fraction(a * b, 2), [a * b, a + b, 2 * (a + b)], {"kind": kind, "a": a, "b": b, "steps": 1})
    # triangle_angle
    while True:
        A, B = rng.randint(20, 110), rng.randint(20, 110)
        if A + B <= 160 and A != B:
            break
    q = rng.choice((f"Two angles of a triangle measure {A}° and {B}°. What is the third angle, in degrees?",
                    f"In triangle PQR, angle P is {A}° and angle Q is {B}°. How many degrees is angle R?",
                    f"A triangular sail has corner angles of {A}° and {B}° at two of its corners. What is the angle at the third corner, in degrees?"))
    return _numeric(q, 180 - A - B, [360 - A - B, A + B, abs(A - B), 90 - (A + B) // 2], {"kind": kind, "angles": [A, B], "steps": 1}, hi=179)


def _geometry_medium(rng: random.Random) -> Item:
    kind = rng.choice(("l_area", "l_perimeter", "trapezoid_area", "point_distance", "interior_angle",
                       "isosceles_base", "rect_from_perimeter", "triangle_coords_area"))
    if kind in ("l_area", "l_perimeter"):
        W, H = rng.randint(8, 20), rng.randint(6, 16)
        a, b = rng.randint(2, W - 3), rng.randint(2, H - 3)
        corner = rng.choice(("top-right", "top-left", "bottom-right", "bottom-left"))
        room = rng.choice(("An L-shaped room", "An L-shaped patio", "An L-shaped lawn", "An L-shaped office floor"))
        base = (f"{room} is what remains when a {a} m by {b} m rectangle is cut out of the {corner} corner of a "
                f"{W} m by {H} m rectangle (the {a} m side runs along the {W} m side).")
        params = {"kind": kind, "W": W, "H": H, "a": a, "b": b, "corner": corner, "steps": 2}
        if kind == "l_area":
            q = base + rng.choice((" What is its area in square metres?", " How many square metres of flooring does it need?"))
            return _numeric(q, W * H - a * b, [W * H, W * H + a * b, W * H - (a + b), 2 * (W + H)], params)
        q = base + rng.choice((" What is its perimeter in metres?", " How many metres of skirting run around its whole edge?"))
        per = 2 * (W + H)
        return _numeric(q, per, [per - a - b, per - 2 * (a + b), per + 2 * (a + b), W * H - a * b], params)
    if kind == "trapezoid_area":
        while True:
            p, r, h = rng.randint(4, 20), rng.randint(4, 20), rng.randint(3, 15)
            if p != r and ((p + r) * h) % 2 == 0:
                break
        q = rng.choice((f"A trapezium has parallel sides of {p} cm and {r} cm, and the distance between them is {h} cm. "
                        f"What is its area in square centimetres?",
                        f"A garden bed is shaped like a trapezoid whose parallel edges are {p} m and {r} m long and {h} m apart. "
                        f"What is its area in square metres?"))
        return _numeric(q, Fraction((p + r) * h, 2), [(p + r) * h, p * r * h // 2 if p * r * h % 2 == 0 else None,
                                                       max(p, r) * h, Fraction(p * r, 2)],
                        {"kind": kind, "parallel": [p, r], "height": h, "steps": 2})
    if kind == "point_distance":
        a, b, c = rng.choice(TRIPLES[:10])
        if rng.random() < 0.5:
            a, b = b, a
        x1, y1 = rng.randint(-10, 10), rng.randint(-10, 10)
        x2, y2 = x1 + rng.choice((-1, 1)) * a, y1 + rng.choice((-1, 1)) * b
        q = rng.choice((f"What is the distance between the points {_pt((x1, y1))} and {_pt((x2, y2))}?",
                        f"On a map grid measured in kilometres, a well is at {_pt((x1, y1))} and a farmhouse at {_pt((x2, y2))}. "
                        f"How many kilometres apart are they in a straight line?",
                        f"Find the length of the line segment joining {_pt((x1, y1))} to {_pt((x2, y2))}."))
        return _numeric(q, c, [a + b, abs(a - b) or None, max(a, b), c + 1], {"kind": kind, "p1": [x1, y1], "p2": [x2, y2], "steps": 2})
    if kind == "interior_angle":
        n = rng.choice([k for k in _POLY_NAMES if 360 % k == 0])
        name = _POLY_NAMES[n]
        q = rng.choice((f"What is the size of each interior angle of a regular {name}, in degrees?",
                        f"A tile is shaped like a regular {name}. How many degrees is each of its inside corner angles?"))
        ans = 180 * (n - 2) // n
        return _numeric(q, ans, [360 // n, 180 * (n - 2), 180 * n // (n + 2) if 180 * n % (n + 2) == 0 else None, 180 - 180 // n if 180 % n == 0 else None],
                        {"kind": kind, "n": n, "steps": 2}, fallback_step=5, hi=179)
    if kind == "isosceles_base":
        apex = rng.randrange(20, 160, 2)
        q = rng.choice((f"An isosceles triangle has an apex angle (between its two equal sides) of {apex}°. "
                        f"How many degrees is each base angle?",
                        f"The two equal sides of an isosceles triangle meet at an angle of {apex}°. What is each of the other two angles, in degrees?"))
        return _numeric(q, (180 - apex) // 2, [180 - apex, apex, (360 - apex) // 2, 60],
                        {"kind": kind, "apex": apex, "steps": 2}, hi=89)
    if kind == "rect_from_perimeter":
        w, h = rng.sample(range(3, 25), 2)
        P = 2 * (w + h)
        thing, u = rng.choice(_FLAT_THINGS)
        lin, sq = _UNIT_WORDS[u]
        q = (f"{thing[0].upper() + thing[1:]} has a perimeter of {P} {lin} and one side of {w} {lin}. "
             f"What is its area, in {sq}?")
        return _numeric(q, w * h, [w * (P - w), w * (P // 2), w * (P - 2 * w), P * w // 2],
                        {"kind": kind, "perimeter": P, "side": w, "steps": 3})
    # triangle_coords_area
    while True:
        pts = [(rng.randint(-8, 8), rng.randint(-8, 8)) for _ in range(3)]
        area = _shoelace(pts)
        if area >= 4 and pts[0][1] == pts[1][1]:  # one side horizontal: base × height works
            break
    q = rng.choice((f"A triangle has vertices at {_pt(pts[0])}, {_pt(pts[1])} and {_pt(pts[2])}. What is its area (in square units)?",
                    f"What is the area of the triangle with corners {_pt(pts[0])}, {_pt(pts[1])} and {_pt(pts[2])}?"))
    base = abs(pts[0][0] - pts[1][0])
    height = abs(pts[2][1] - pts[0][1])
    return _numeric(q, area, [base * height, base + height, Fraction(base * height, 2) + base],
                    {"kind": kind, "vertices": [list(p) for p in pts], "steps": 2})


def _geometry_hard(rng: random.Random) -> Item:
    kind = rng.choice(("polygon_coords_area", "sides_from_angle", "path_area", "clock_angle", "triangle_coords_area_general"))
    if kind == "polygon_coords_area":
        n = rng.choice((4, 5))
        poly = _convex_lattice_polygon(rng, n, 7)
        if rng.random() < 0.5:
            poly = poly[::-1]
        start = rng.randrange(n)
        poly = poly[start:] + poly[:start]
        listed = ", ".join(_pt(p) for p in poly)
        shape = "quadrilateral" if n == 4 else "pentagon"
        q = rng.choice((f"A {shape} has vertices {listed}, in that order. What is its area in square units?",
                        f"A plot of land on a grid (units in metres) has corners at {listed}, going round in order. "
                        f"What is its area in square metres?"))
        area = _shoelace(poly)
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        box = (max(xs) - min(xs)) * (max(ys) - min(ys))
        return _numeric(q, area, [box, 2 * area, box - area if box - area != area else None, area + n],
                        {"kind": kind, "vertices": [list(p) for p in poly], "steps": 3})
    if kind == "sides_from_angle":
        n = rng.choice([k for k in range(5, 37) if 360 % k == 0 and k != 7])
        interior = 180 - 360 // n
        q = rng.choice((f"Each interior angle of a regular polygon is {interior}°. How many sides does it have?",
                        f"A regular polygon has interior angles of {interior}° each. How many sides does the polygon have?"))
        wrong = [360 // interior if 360 % interior == 0 else None, 180 - interior, n + 2, n - 2, n * 2]
        return _numeric(q, n, wrong, {"kind": kind, "interior": interior, "steps": 3})
    if kind == "path_area":
        L, W, p = rng.randint(6, 30), rng.randint(4, 20), rng.randint(1, 3)
        q = rng.choice((f"A rectangular lawn {L} m by {W} m is surrounded by a path {p} m wide on every side. "
                        f"What is the area of the path alone, in square metres?",
                        f"A {L} cm by {W} cm picture has a mount of width {p} cm all the way round it. "
                        f"What is the area of the mount (not counting the picture), in square centimetres?"))
        ans = (L + 2 * p) * (W + 2 * p) - L * W
        return _numeric(q, ans, [2 * p * (L + W), (L + 2 * p) * (W + 2 * p), (L + p) * (W + p) - L * W, 4 * p * (L + W)],
                        {"kind": kind, "L": L, "W": W, "width": p, "steps": 3})
    if kind == "clock_angle":
        h, m = rng.randint(1, 12), rng.randrange(5, 60, 5)
        hour = Fraction(30 * (h % 12)) + Fraction(m, 2)
        d = abs(hour - 6 * m)
        ans = min(d, 360 - d)
        naive = abs(30 * (h % 12) - 6 * m)
        naive = min(naive, 360 - naive)
        q = rng.choice((f"What is the smaller angle, in degrees, between the hour hand and the minute hand of an analogue clock at {h}:{m:02d}?",
                        f"At {h}:{m:02d}, how many degrees lie between the two hands of a clock (take the smaller angle)?"))
        return _numeric(q, ans, [naive, 360 - ans, ans + 15, abs(ans - 15) or None], {"kind": kind, "time": [h, m], "steps": 3},
                        fallback_step=Fraction(5, 2), hi=180)
    # triangle_coords_area_general: no side is horizontal or vertical
    while True:
        pts = [(rng.randint(-9, 9), rng.randint(-9, 9)) for _ in range(3)]
        area = _shoelace(pts)
        if area >= 6 and all(pts[i][0] != pts[j][0] and pts[i][1] != pts[j][1] for i, j in ((0, 1), (0, 2), (1, 2))):
            break
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    box = (max(xs) - min(xs)) * (max(ys) - min(ys))
    q = rng.choice((f"Find the area of the triangle with vertices {_pt(pts[0])}, {_pt(pts[1])} and {_pt(pts[2])}, in square units.",
                    f"Three fence posts stand at {_pt(pts[0])}, {_pt(pts[1])} and {_pt(pts[2])} on a grid measured in metres. "
                    f"What area, in square metres, does the triangular enclosure between them cover?"))
    return _numeric(q, area, [box, Fraction(box, 2), 2 * area, box - area if box - area != area else None],
                    {"kind": "triangle_coords_area", "vertices": [list(p) for p in pts], "steps": 3})


@DOMAIN.subcategory(
    "2d_geometry",
    difficulty={
        "easy": "one formula on one shape: rectangle area/perimeter, right-triangle area, third angle of a "
                "triangle, square from its perimeter",
        "medium": "two steps or a composite: L-shape area/perimeter, trapezium, distance between points, regular "
                  "polygon interior angle, isosceles base angle, rectangle from perimeter, triangle from coordinates "
                  "with a horizontal base",
        "hard": "three-step or inverse problems: polygon area from 4-5 vertices, sides from an interior angle, "
                "border/path area, clock-hand angle, triangle from coordinates with no axis-parallel side",
    },
)
def two_d_geometry(rng: random.Random, difficulty: str) -> Item:
    return {"easy": _geometry_easy, "medium": _geometry_medium, "hard": _geometry_hard}[difficulty](rng)


# ============================================================================================
# 3d_visualization
# ============================================================================================

# Cube slots in a fixed body frame: 0 bottom, 1 top, 2 north, 3 south, 4 east, 5 west; opposite pairs.
_OPPOSITE_SLOT = {0: 1, 1: 0, 2: 3, 3: 2, 4: 5, 5: 4}
_NET_LABELS = ("PQRSTU", "KLMNPQ", "UVWXYZ", "EFGHJK", "RSTUVW", "123456", "MNPRST")


def _roll(state: dict, direction: str) -> dict:
    """The cube tipped over one bottom edge onto the neighbouring net square (paper-up = north)."""
    s = dict(state)
    b, t, n, so, e, w = (state[k] for k in ("bottom", "top", "north", "south", "east", "west"))
    if direction == "north":
        s.update(bottom=n, north=t, top=so, south=b)
    elif direction == "south":
        s.update(bottom=so, south=t, top=n, north=b)
    elif direction == "east":
        s.update(bottom=e, east=t, top=w, west=b)
    else:
        s.update(bottom=w, west=t, top=e, east=b)
    return s


def _fold(cells: frozenset) -> dict | None:
    """Which cube slot each net square becomes, by rolling the cube across the net; None if the
    shape does not fold into a cube (two squares on one face)."""
    root = min(cells)
    out = {root: 0}
    stack = [(root, {"bottom": 0, "top": 1, "north": 2, "south": 3, "east": 4, "west": 5})]
    moves = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}
    while stack:
        cell, state = stack.pop()
        for d, (dr, dc) in moves.items():
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt in cells and nxt not in out:
                st = _roll(state, d)
                out[nxt] = st["bottom"]
                stack.append((nxt, st))
    return out if sorted(out.values()) == list(range(6)) else None


def _normalise_cells(cells) -> frozenset:
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def _all_cube_nets() -> list[frozenset]:
    """Every fixed orientation of the eleven cube nets: hexominoes grown cell by cell, kept if they fold."""
    shapes = {frozenset({(0, 0)})}
    for _ in range(5):
        grown = set()
        for s in shapes:
            for r, c in s:
                for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    if (r + dr, c + dc) not in s:
                        grown.add(_normalise_cells(s | {(r + dr, c + dc)}))
        shapes = grown
    return sorted((s for s in shapes if _fold(s) is not None), key=lambda s: sorted(s))


CUBE_NETS: tuple[frozenset, ...] = tuple(_all_cube_nets())


def _is_141(cells: frozenset) -> bool:
    rows = {}
    for r, c in cells:
        rows.setdefault(r, []).append(c)
    return sorted(len(v) for v in rows.values()) == [1, 1, 4] and len(rows) == 3 and len(rows[1]) == 4


def _net_distance(cells: frozenset, a, b) -> int:
    seen, frontier, d = {a}, [a], 0
    while frontier:
        if b in frontier:
            return d
        nxt = []
        for r, c in frontier:
            for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if q in cells and q not in seen:
                    seen.add(q)
                    nxt.append(q)
        frontier, d = nxt, d + 1
    raise ValueError("cells not connected")  # pragma: no cover


def _render_net(cells: frozenset, label: dict) -> str:
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    return "\n".join(" ".join(label.get((r, c), ".") for c in range(cols)) for r in range(rows))


def _net_item(rng: random.Random, difficulty: str) -> Item:
    if difficulty == "easy":
        pool = [n for n in CUBE_NETS if _is_141(n)]
    elif difficulty == "medium":
        pool = list(CUBE_NETS)
    else:
        pool = [n for n in CUBE_NETS if not _is_141(n) and not _is_141(frozenset((c, r) for r, c in n))]
    cells = rng.choice(pool)
    slot = _fold(cells)
    letters = list(rng.choice(_NET_LABELS))
    rng.shuffle(letters)
    order = sorted(cells)
    label = {cell: letters[i] for i, cell in enumerate(order)}
    by_slot = {slot[c]: c for c in cells}
    pairs = [(c, by_slot[_OPPOSITE_SLOT[slot[c]]]) for c in order]
    dists = {p: _net_distance(cells, *p) for p in pairs}
    if difficulty == "easy":
        choices = [p for p in pairs if dists[p] == 2]
    elif difficulty == "medium":
        choices = pairs
    else:
        choices = [p for p in pairs if dists[p] >= 3] or pairs
    a, b = rng.choice(choices)
    grid = _render_net(cells, label)
    intro = rng.choice(("The net below folds up into a cube. Each letter marks one face; a dot is empty paper.",
                        "Here is a cube net (dots are blank space, each symbol is one face of the cube):",
                        "A cardboard box is cut out as this net, which folds into a cube (dots are gaps):"))
    adjacent = [label[c] for c in order if c not in (a, b)]
    rng.shuffle(adjacent)
    params = {"kind": "net", "cells": [list(c) for c in order], "labels": [label[c] for c in order],
              "net_distance": dists[(a, b)], "steps": dists[(a, b)]}
    if difficulty == "hard" and rng.random() < 0.5:
        # which pair are opposite? distractors: pairs of faces that share an edge
        adj_pairs = []
        for x, y in itertools.combinations(order, 2):
            if slot[y] != _OPPOSITE_SLOT[slot[x]] and {x, y} != {a, b}:
                adj_pairs.append(tuple(sorted((label[x], label[y]))))
        rng.shuffle(adj_pairs)
        # prefer adjacent pairs that look opposite on paper: same row or column
        adj_pairs.sort(key=lambda p: 0 if _same_line(p, label) else 1)
        ans = " and ".join(sorted((label[a], label[b])))
        params.update(question="opposite_pair", face=None)
        q = (f"{intro}\n\n{grid}\n\n" + rng.choice(("Which two faces end up opposite each other?",
                                                     "After folding, which pair of faces are on opposite sides of the cube?")))
        return _choice(q, ans, [" and ".join(p) for p in adj_pairs], params, answer_type="multiple_choice")
    params.update(question="opposite_of", face=label[a])
    q = f"{intro}\n\n{grid}\n\n" + rng.choice((f"When it is folded, which face is opposite {label[a]}?",
                                               f"Once the cube is made, which face lies directly opposite the face marked {label[a]}?",
                                               f"Which face ends up on the side of the cube facing away from {label[a]}?"))
    # adjacent faces in the same row or column as the asked face look "opposite" on paper: list them first
    adj_cells = [c for c in order if c not in (a, b)]
    adj_cells.sort(key=lambda c: (0 if (c[0] == a[0] or c[1] == a[1]) else 1, rng.random()))
    return _choice(q, label[b], [label[c] for c in adj_cells], params, answer_type="multiple_choice")


def _same_line(pair, label) -> bool:
    cell = {v: k for k, v in label.items()}
    x, y = cell[pair[0]], cell[pair[1]]
    return x[0] == y[0] or x[1] == y[1]


_DIE_MOVES = {
    "away": "tip it over forwards, away from you",
    "toward": "tip it over backwards, towards you",
    "right": "tip it over to the right",
    "left": "tip it over to the left",
    "cw": "spin it a quarter-turn clockwise (seen from above) without tipping it",
    "ccw": "spin it a quarter-turn anticlockwise (seen from above) without tipping it",
}
_DIE_MIRROR = {"away": "toward", "toward": "away", "right": "left", "left": "right", "cw": "ccw", "ccw": "cw"}


def _die_apply(state: dict, move: str) -> dict:
    """Faces after one move; positions top/bottom/front/back/left/right, 'front' faces the viewer."""
    t, b, f, k, l, r = (state[p] for p in ("top", "bottom", "front", "back", "left", "right"))
    s = dict(state)
    if move == "away":
        s.update(top=f, back=t, bottom=k, front=b)
    elif move == "toward":
        s.update(front=t, bottom=f, back=b, top=k)
    elif move == "right":
        s.update(right=t, bottom=r, left=b, top=l)
    elif move == "left":
        s.update(left=t, bottom=l, right=b, top=r)
    elif move == "cw":
        s.update(left=f, back=l, right=k, front=r)
    else:
        s.update(right=f, back=r, left=k, front=l)
    return s


def _die_item(rng: random.Random, difficulty: str) -> Item:
    n_moves = {"easy": 1, "medium": rng.randint(2, 3), "hard": rng.randint(4, 6)}[difficulty]
    allowed = ["away", "toward", "right", "left"] + (["cw", "ccw"] if difficulty != "easy" else [])
    top = rng.randint(1, 6)
    front = rng.choice([v for v in range(1, 7) if v not in (top, 7 - top)])
    right = rng.choice([v for v in range(1, 7) if v not in (top, 7 - top, front, 7 - front)])
    state = {"top": top, "bottom": 7 - top, "front": front, "back": 7 - front, "right": right, "left": 7 - right}
    moves = [rng.choice(allowed) for _ in range(n_moves)]
    ask = "top" if difficulty != "hard" else rng.choice(("top", "front", "right"))
    end = state
    for m in moves:
        end = _die_apply(end, m)
    mirrored = state
    for m in moves:
        mirrored = _die_apply(mirrored, _DIE_MIRROR[m])
    skipped = state
    for m in moves[:-1]:
        skipped = _die_apply(skipped, m)
    ans = end[ask]
    steps = ", then ".join(_DIE_MOVES[m] for m in moves)
    if rng.random() < 0.5:
        steps = steps.replace("tip it over", "roll it")
    setup = rng.choice((f"A standard die (opposite faces add up to 7) sits on the table in front of you with {top} on top, "
                        f"{front} facing you and {right} on your right.",
                        f"You place an ordinary six-sided die (opposite faces total 7) on a table so that {top} is on top, "
                        f"{front} is on the face towards you and {right} is on the right-hand face."))
    q = (f"{setup} You {steps}. "
         + {"top": "Which number is now on top?", "front": "Which number now faces you?",
            "right": "Which number is now on the right-hand face?"}[ask])
    params = {"kind": "die", "start": {"top": top, "front": front, "right": right}, "moves": moves, "ask": ask,
              "n_moves": n_moves, "steps": n_moves}
    wrong = [str(mirrored[ask]), str(7 - ans), str(skipped[ask]), str(state[ask])]
    return _choice(q, str(ans), wrong, params, answer_type="exact_numeric",
                   fallback=[str(v) for v in rng.sample(range(1, 7), 6)])


def _solid_item(rng: random.Random, difficulty: str) -> Item:
    kinds = {"easy": ("box_volume", "cube_count"),
             "medium": ("box_surface", "cubes_fit", "painted_corner_edge", "open_box"),
             "hard": ("composite_surface", "painted_face_inner", "tunnel_volume")}[difficulty]
    kind = rng.choice(kinds)
    if kind in ("box_volume", "cube_count"):
        l, w, h = (rng.randint(2, 12) for _ in range(3))
        if kind == "box_volume":
            q = rng.choice((f"A box measures {l} cm by {w} cm by {h} cm. What is its volume in cubic centimetres?",
                            f"What is the volume, in cubic metres, of a shipping container {l} m long, {w} m wide and {h} m high?",
                            f"A fish tank is {l} dm long, {w} dm wide and {h} dm deep. How many cubic decimetres of water fill it to the top?"))
        else:
            q = rng.choice((f"Unit cubes are stacked into a solid block {l} cubes long, {w} cubes wide and {h} cubes tall. How many unit cubes are used?",
                            f"A child builds a solid cuboid of toy blocks: {l} along the front, {w} deep and {h} layers high. How many blocks is that?"))
        return _numeric(q, l * w * h, [2 * (l * w + w * h + l * h), l * w + h, l + w + h, l * w * (h - 1)],
                        {"kind": kind, "dims": [l, w, h], "steps": 1})
    if kind == "box_surface":
        l, w, h = (rng.randint(2, 12) for _ in range(3))
        q = rng.choice((f"A closed box is {l} cm long, {w} cm wide and {h} cm tall. What is its total surface area in square centimetres?",
                        f"How many square metres of paint are needed to cover every face of a solid block {l} m by {w} m by {h} m?"))
        return _numeric(q, 2 * (l * w + w * h + l * h), [l * w + w * h + l * h, l * w * h, 2 * l * w + w * h + l * h, 6 * l * w],
                        {"kind": kind, "dims": [l, w, h], "steps": 2})
    if kind == "cubes_fit":
        s = rng.randint(2, 5)
        a, b, c = (s * rng.randint(2, 6) for _ in range(3))
        q = rng.choice((f"How many cubes of side {s} cm fit exactly inside a box whose inside measures {a} cm by {b} cm by {c} cm?",
                        f"A crate's inside is {a} in by {b} in by {c} in. How many {s}-inch cubes can be packed into it, filling it exactly?"))
        ans = (a // s) * (b // s) * (c // s)
        return _numeric(q, ans, [a * b * c // s, a * b * c // (s * s), a * b * c, ans * s],
                        {"kind": kind, "box": [a, b, c], "cube": s, "steps": 2})
    if kind == "painted_corner_edge" or kind == "painted_face_inner":
        n = rng.randint(3, 6) if kind == "painted_corner_edge" else rng.randint(3, 8)
        k = rng.choice((3, 2)) if kind == "painted_corner_edge" else rng.choice((1, 0))
        counts = {3: 8, 2: 12 * (n - 2), 1: 6 * (n - 2) ** 2, 0: (n - 2) ** 3}
        what = {3: "exactly three painted faces", 2: "exactly two painted faces", 1: "exactly one painted face",
                0: "no paint on any face"}[k]
        q = rng.choice((f"A solid wooden cube is painted red on all six faces and then cut into {n ** 3} equal small cubes "
                        f"({n} along each edge). How many small cubes have {what}?",
                        f"A {n}×{n}×{n} cube built from unit cubes is dipped in paint so that its whole outside is covered, then taken apart. "
                        f"How many unit cubes have {what}?"))
        wrong = [counts[j] for j in (3, 2, 1, 0) if j != k] + [6 * n * n, n ** 3 - (n - 2) ** 3]
        rng.shuffle(wrong)
        return _numeric(q, counts[k], wrong, {"kind": "painted_cube", "n": n, "painted_faces": k,
                                               "steps": {3: 1, 2: 2, 1: 3, 0: 3}[k]})
    if kind == "open_box":
        c = rng.randint(1, 4)
        L, W = rng.randint(2 * c + 2, 2 * c + 16), rng.randint(2 * c + 2, 2 * c + 12)
        q = (f"A {L} cm by {W} cm sheet of card has a {c} cm by {c} cm square cut from each corner, and the sides are folded up "
             f"to make an open-topped tray. What is the tray's volume in cubic centimetres?")
        ans = (L - 2 * c) * (W - 2 * c) * c
        return _numeric(q, ans, [(L - c) * (W - c) * c, L * W * c, (L - 2 * c) * (W - 2 * c), (L - 2 * c) * (W - 2 * c) * 2 * c],
                        {"kind": kind, "sheet": [L, W], "cut": c, "steps": 2})
    if kind == "composite_surface":
        L, W, H = rng.randint(4, 12), rng.randint(4, 12), rng.randint(2, 8)
        l, w, h = rng.randint(1, L - 1), rng.randint(1, W - 1), rng.randint(1, 8)
        q = rng.choice((f"A {l} cm × {w} cm × {h} cm block is glued on top of a {L} cm × {W} cm × {H} cm block, with its base fully "
                        f"on the larger block's top face (not overhanging). What is the total exposed surface area of the combined "
                        f"solid in square centimetres (the base it stands on counts)?",
                        f"A small box ({l} by {w} by {h} metres) sits entirely on the roof of a larger box ({L} by {W} by {H} metres). "
                        f"Counting the bottom of the larger box, what is the outside surface area of the combined shape, in square metres?"))
        big = 2 * (L * W + W * H + L * H)
        small = 2 * (l * w + w * h + l * h)
        ans = big + small - 2 * l * w
        return _numeric(q, ans, [big + small, big + small - l * w, big + small - 4 * l * w, big],
                        {"kind": kind, "big": [L, W, H], "small": [l, w, h], "steps": 3})
    # tunnel_volume: a square tunnel straight through the middle of a cube
    n = rng.randint(4, 12)
    t = rng.randint(1, n - 2)
    q = rng.choice((f"A solid cube of side {n} cm has a square hole of side {t} cm drilled straight through it from one face "
                    f"to the opposite face. What volume of material remains, in cubic centimetres?",
                    f"A {n} m concrete cube has a {t} m by {t} m square duct running right through it, face to opposite face. "
                    f"How many cubic metres of concrete are left?"))
    return _numeric(q, n ** 3 - t * t * n, [n ** 3 - t ** 3, n ** 3, n ** 3 - t * n, n ** 3 - 2 * t * t * n],
                    {"kind": "tunnel_volume", "n": n, "hole": t, "steps": 3})


@DOMAIN.subcategory(
    "3d_visualization",
    difficulty={
        "easy": "a 1-4-1 cube net (asked face two squares from its opposite), one tip of a die, volume of one box",
        "medium": "any of the eleven cube nets in any orientation, 2-3 die moves including spins, surface area, "
                  "packing cubes, painted-cube corners/edges, open tray volume",
        "hard": "nets that are not 1-4-1 with opposite faces 3+ squares apart (or 'which pair is opposite'), 4-6 die "
                "moves asking top, front or right, composite surface area, painted-cube faces/interior (n up to 8), "
                "cube with a tunnel",
    },
)
def three_d_visualization(rng: random.Random, difficulty: str) -> Item:
    maker = rng.choice((_net_item, _die_item, _solid_item))
    return maker(rng, difficulty)


# ============================================================================================
# relative_positioning
# ============================================================================================

_ROW_SCENES = (
    ("{N} friends sit in a row of cinema seats, numbered 1 to {k} from left to right.", "people"),
    ("{N} runners line up side by side at the start, in lanes numbered 1 to {k} from left to right.", "people"),
    ("{N} cousins stand in a row for a photo; positions 1 to {k} are counted from left to right as the photographer sees them.", "people"),
)
_SHELF_ITEMS = ("atlas", "cookbook", "diary", "novel", "dictionary", "poetry book", "comic", "notebook", "almanac",
                "biography", "sketchbook", "travel guide")
_STACK_ITEMS = ("red box", "blue box", "green box", "yellow box", "white box", "black box", "grey box", "orange box",
                "purple box")


def _rel_clues(kind: str, n: int, pos: dict[str, int], allowed: tuple[str, ...]) -> list[tuple]:
    """Every true clue of the allowed types about the hidden arrangement (positions 0..n-1;
    for a round table, seat k+1 is immediately to the left of the person in seat k)."""
    names = sorted(pos)
    out: list[tuple] = []
    for x in names:
        if "end" in allowed and kind != "circle" and pos[x] in (0, n - 1):
            out.append(("end", x, "low" if pos[x] == 0 else "high"))
        if "position" in allowed and kind != "circle" and 0 < pos[x] < n - 1:  # the ends have their own clue
            out.append(("position", x, pos[x]))
        if "not_end" in allowed and kind != "circle" and pos[x] not in (0, n - 1):
            out.append(("not_end", x))
    for x, y in itertools.permutations(names, 2):
        d = pos[y] - pos[x]
        if kind == "circle":
            d %= n
            if "next" in allowed and d == 1:
                out.append(("circle_left", x, y))  # x sits immediately to y's right, i.e. y immediately left of x
            if "second" in allowed and d == 2:
                out.append(("circle_second_left", x, y))
            if "opposite" in allowed and n % 2 == 0 and d == n // 2 and x < y:
                out.append(("opposite", x, y))
            if "not_adjacent" in allowed and d not in (1, n - 1) and x < y:
                out.append(("not_adjacent", x, y))
            continue
        if "next" in allowed and d == 1:
            out.append(("just_before", x, y))
        if "before" in allowed and d > 1:
            out.append(("before", x, y))
        if "gap" in allowed and d == 2:
            out.append(("gap_one", x, y))
        if "adjacent" in allowed and abs(d) == 1 and x < y:
            out.append(("adjacent", x, y))
        if "not_adjacent" in allowed and abs(d) > 1 and x < y:
            out.append(("not_adjacent", x, y))
    return out


def _clue_holds(clue: tuple, pos: dict, n: int, kind: str) -> bool:
    t = clue[0]
    if t == "end":
        return pos[clue[1]] == (0 if clue[2] == "low" else n - 1)
    if t == "position":
        return pos[clue[1]] == clue[2]
    if t == "not_end":
        return pos[clue[1]] not in (0, n - 1)
    x, y = clue[1], clue[2]
    d = pos[y] - pos[x]
    if t == "circle_left":
        return d % n == 1
    if t == "circle_second_left":
        return d % n == 2
    if t == "opposite":
        return d % n == n // 2
    if t == "not_adjacent":
        return (d % n not in (1, n - 1)) if kind == "circle" else abs(d) > 1
    if t == "just_before":
        return d == 1
    if t == "before":
        return d > 1
    if t == "gap_one":
        return d == 2
    if t == "adjacent":
        return abs(d) == 1
    raise ValueError(t)


def _clue_text(clue: tuple, kind: str, n: int, rng: random.Random) -> str:
    t = clue[0]
    lo, hi = {"row": ("left", "right"), "shelf": ("left", "right"), "stack": ("bottom", "top")}.get(kind, ("", ""))
    if t == "end":
        if kind == "stack":
            return f"The {clue[1]} is at the {'bottom' if clue[2] == 'low' else 'top'} of the pile."
        side = lo if clue[2] == "low" else hi
        x = f"the {clue[1]}" if kind == "shelf" else clue[1]
        return rng.choice((f"{_cap(x)} is at the far {side} end.", f"{_cap(x)} is on the extreme {side}."))
    if t == "position":
        if kind == "stack":
            return f"The {clue[1]} is {ordinal(clue[2] + 1)} from the bottom."
        if kind == "shelf":
            return f"The {clue[1]} is the {ordinal(clue[2] + 1)} book from the left."
        return f"{_cap(clue[1])} is in position {clue[2] + 1}."
    if t == "not_end":
        if kind == "stack":
            return f"The {clue[1]} is neither at the top nor at the bottom."
        return f"{_cap('the ' + clue[1] if kind == 'shelf' else clue[1])} is not at either end."
    x, y = clue[1], clue[2]
    if kind == "circle":
        if t == "circle_left":
            return rng.choice((f"{y} sits immediately to {x}'s left.", f"{x} sits immediately to {y}'s right."))
        if t == "circle_second_left":
            return f"{y} sits second to the left of {x}."
        if t == "opposite":
            return f"{x} sits directly opposite {y}."
        return f"{x} does not sit next to {y}."
    the = "the " if kind in ("stack", "shelf") else ""
    X, Y = f"{the}{x}", f"{the}{y}"
    if t == "just_before":
        if kind == "stack":
            return f"{_cap(Y)} is directly on top of {X}."
        return rng.choice((f"{_cap(X)} is immediately to the left of {Y}.", f"{_cap(Y)} is immediately to the right of {X}."))
    if t == "before":
        if kind == "stack":
            return f"{_cap(Y)} is somewhere above {X}, but not directly on it."
        return f"{_cap(X)} is somewhere to the left of {Y}, with at least one {'book' if kind == 'shelf' else 'person'} between them."
    if t == "gap_one":
        if kind == "stack":
            return f"There is exactly one box between {X} and {Y}, and {Y} is the higher of the two."
        return f"There is exactly one {'book' if kind == 'shelf' else 'person'} between {X} and {Y}, with {X} further left."
    if t == "adjacent":
        if kind == "stack":
            return f"{_cap(X)} and {Y} touch each other (one is directly on the other)."
        return f"{_cap(X)} and {Y} are next to each other."
    if kind == "stack":
        return f"{_cap(X)} and {Y} are not touching (neither is directly on the other)."
    return f"{_cap(X)} is not next to {Y}."


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")


def ordinal(n: int) -> str:
    return _ORDINALS[n - 1]


def _cap(s: str) -> str:
    return s[0].upper() + s[1:]


def _rel_question(kind: str, n: int, pos: dict, rng: random.Random) -> tuple[tuple, str]:
    """A question about the arrangement: (spec, text)."""
    names = sorted(pos)
    if kind == "circle":
        x = rng.choice(names)
        options = [("left_of", x), ("right_of", x), ("second_right_of", x)] + ([("opposite_of", x)] if n % 2 == 0 else [])
        spec = rng.choice(options)
        text = {"left_of": f"Who sits immediately to {x}'s left?", "right_of": f"Who sits immediately to {x}'s right?",
                "second_right_of": f"Who sits second to the right of {x}?",
                "opposite_of": f"Who sits directly opposite {x}?"}[spec[0]]
        return spec, text
    options = [("at", rng.randrange(n))]
    x = rng.choice(names)
    if n >= 5:  # neighbour questions need three wrong answers besides the entity asked about
        if pos[x] < n - 1:
            options.append(("after", x))
        if pos[x] > 0:
            options.append(("before_of", x))
    spec = rng.choice(options)
    if spec[0] == "at" and spec[1] in (0, n - 1):  # the ends have plain names
        end = {"stack": ("at the bottom of the pile", "at the top of the pile"),
               "shelf": ("at the far left end", "at the far right end")}.get(kind)
        if end:
            noun = "box" if kind == "stack" else "book"
            return spec, f"Which {noun} is {end[0] if spec[1] == 0 else end[1]}?"
    if kind == "stack":
        text = {"at": lambda: f"Which box is {ordinal(spec[1] + 1)} from the bottom?" if spec[1] < n // 2 + 1
                else f"Which box is {ordinal(n - spec[1])} from the top?",
                "after": lambda: f"Which box is directly on top of the {x}?",
                "before_of": lambda: f"Which box is directly underneath the {x}?"}[spec[0]]()
    elif kind == "shelf":
        text = {"at": lambda: f"Which book is {ordinal(spec[1] + 1)} from the left?" if spec[1] < n // 2 + 1
                else f"Which book is {ordinal(n - spec[1])} from the right?",
                "after": lambda: f"Which book is immediately to the right of the {x}?",
                "before_of": lambda: f"Which book is immediately to the left of the {x}?"}[spec[0]]()
    else:
        text = {"at": lambda: f"Who is in position {spec[1] + 1}?",
                "after": lambda: f"Who is immediately to the right of {x}?",
                "before_of": lambda: f"Who is immediately to the left of {x}?"}[spec[0]]()
    return spec, text


def _rel_answer(spec: tuple, pos: dict, n: int, kind: str) -> str:
    at = {p: x for x, p in pos.items()}
    t = spec[0]
    if t == "at":
        return at[spec[1]]
    p = pos[spec[1]]
    if kind == "circle":
        step = {"left_of": 1, "right_of": -1, "second_right_of": -2, "opposite_of": n // 2}[t]
        return at[(p + step) % n]
    return at.get(p + 1) if t == "after" else at.get(p - 1)  # None: nobody there in this arrangement


@DOMAIN.subcategory(
    "relative_positioning",
    difficulty={
        "easy": "4 people/books/boxes in a row or stack; clues fix ends, positions and immediate neighbours",
        "medium": "5 entities in a row or stack; adds 'somewhere left of', 'exactly one between', 'next to', "
                  "'not at an end'",
        "hard": "6 entities in a row, or 6-7 around a round table (left/right from the sitter's point of view, "
                "opposite, second to the left); negative clues; no position clues",
    },
)
def relative_positioning(rng: random.Random, difficulty: str) -> Item:
    if difficulty == "easy":
        n, kind = 4, rng.choice(("row", "shelf", "stack"))
        allowed = ("end", "position", "next")
    elif difficulty == "medium":
        n, kind = 5, rng.choice(("row", "shelf", "stack"))
        allowed = ("end", "next", "before", "gap", "adjacent", "not_end", "position")
    else:
        kind = rng.choice(("row", "circle", "circle"))
        n = 6 if kind == "row" else rng.choice((6, 7))
        allowed = ("end", "next", "before", "gap", "adjacent", "not_adjacent", "not_end") if kind == "row" else \
            ("next", "second", "opposite", "not_adjacent")

    if kind in ("row", "circle"):
        ents = rng.sample(NAMES, n)
    elif kind == "shelf":
        ents = rng.sample(_SHELF_ITEMS, n)
    else:
        ents = rng.sample(_STACK_ITEMS, n)
    order = ents[:]
    rng.shuffle(order)
    pos = {x: i for i, x in enumerate(order)}
    spec, qtext = _rel_question(kind, n, pos, rng)
    answer = _rel_answer(spec, pos, n, kind)

    # candidate arrangements (a round table is fixed up to rotation: ents[0] in seat 0)
    if kind == "circle":
        cands = [dict(zip([ents[0], *perm], range(n))) for perm in itertools.permutations(ents[1:])]
        shift = pos[ents[0]]
        pos = {x: (p - shift) % n for x, p in pos.items()}
    else:
        cands = [dict(zip(perm, range(n))) for perm in itertools.permutations(ents)]
    pool = _rel_clues(kind, n, pos, allowed)
    rng.shuffle(pool)
    if difficulty != "easy":  # indirect clues first: positions only if needed
        pool.sort(key=lambda c: c[0] in ("position", "end"))
    # candidate sets as bitmasks over `cands`: a clue set determines the answer when the candidates
    # it leaves all give the same answer
    by_answer: dict[str | None, int] = {}
    for i, c in enumerate(cands):
        a = _rel_answer(spec, c, n, kind)
        by_answer[a] = by_answer.get(a, 0) | (1 << i)

    def determined(mask: int) -> bool:
        return sum(1 for m in by_answer.values() if m & mask) == 1

    def mask_of(clue: tuple) -> int:
        return sum(1 << i for i, c in enumerate(cands) if _clue_holds(clue, c, n, kind))

    clues: list[tuple] = []
    masks: list[int] = []
    live = (1 << len(cands)) - 1
    for clue in pool:
        if determined(live):
            break
        m = mask_of(clue)
        if determined(m):
            continue  # a clue that settles the question on its own just restates the answer
        if live & m != live:
            clues.append(clue)
            masks.append(m)
            live &= m
    # drop clues that turned out redundant (keeps puzzles tight)
    k = 0
    while k < len(clues):
        rest = (1 << len(cands)) - 1
        for j, m in enumerate(masks):
            if j != k:
                rest &= m
        if determined(rest):
            del clues[k], masks[k]
        else:
            k += 1
    live = (1 << len(cands)) - 1
    for m in masks:
        live &= m
    assert determined(live) and by_answer[answer] & live

    rng.shuffle(clues)
    if kind == "circle":
        intro = rng.choice((f"{', '.join(ents[:-1])} and {ents[-1]} sit around a round table, evenly spaced and all facing the centre. "
                            "Left and right are from the point of view of the person sitting.",
                            f"At a round dinner table, {n} guests — {', '.join(ents[:-1])} and {ents[-1]} — sit in equally spaced "
                            "chairs facing the middle. 'Left' and 'right' mean the sitter's own left and right."))
    elif kind == "stack":
        intro = (f"{_cap(n_word(n))} boxes are piled one on top of another in a single stack, in an order given only by "
                 f"the clues below: the {', the '.join(ents[:-1])} and the {ents[-1]}.")
    elif kind == "shelf":
        intro = (f"{_cap(n_word(n))} books stand side by side on a shelf, in an order given only by the clues below: "
                 f"the {', the '.join(ents[:-1])} and the {ents[-1]}. Left and right are as you face the shelf.")
    else:
        scene = rng.choice(_ROW_SCENES)[0].format(N=_cap(n_word(n)), k=n)
        intro = f"{scene} They are {', '.join(ents[:-1])} and {ents[-1]}."
    body = " ".join(_clue_text(c, kind, n, rng) for c in clues)
    mirror = _mirror_answer(spec, pos, n, kind)
    others = [e for e in ents if e != answer and (spec[0] == "at" or e != spec[1])]
    rng.shuffle(others)
    near = sorted(others, key=lambda e: _ring_gap(pos[e], pos[answer], n, kind))
    wrong = ([mirror] if mirror else []) + near
    q = f"{intro} {body} {qtext}"
    params = {"kind": kind, "n_entities": n, "n_clues": len(clues), "entities": ents,
              "clues": [list(c) for c in clues], "question": list(spec), "arrangement": order}
    return _choice(q, answer, wrong, params)


def n_word(n: int) -> str:
    return {4: "four", 5: "five", 6: "six", 7: "seven"}[n]


def _ring_gap(a: int, b: int, n: int, kind: str) -> int:
    d = abs(a - b)
    return min(d, n - d) if kind == "circle" else d


def _mirror_answer(spec, pos, n, kind) -> str | None:
    """The answer a solver gets by mixing up left and right (or top and bottom)."""
    at = {p: x for x, p in pos.items()}
    t = spec[0]
    if t == "at":
        return at[n - 1 - spec[1]] if n - 1 - spec[1] != spec[1] else None
    p = pos[spec[1]]
    if kind == "circle":
        step = {"left_of": -1, "right_of": 1, "second_right_of": 2, "opposite_of": None}[t]
        return None if step is None else at[(p + step) % n]
    q = p - 1 if t == "after" else p + 1
    return at.get(q)


# ============================================================================================
# spatial_transformation
# ============================================================================================

def _point_apply(op: list, p: tuple[int, int]) -> tuple[int, int]:
    """One transformation of a grid point. op: ["refl_x=", k] | ["refl_y=", k] | ["refl_yx"] |
    ["rotate", degrees clockwise (90/180/270), cx, cy] | ["translate", dx, dy]."""
    x, y = p
    name = op[0]
    if name == "refl_x=":
        return 2 * op[1] - x, y
    if name == "refl_y=":
        return x, 2 * op[1] - y
    if name == "refl_yx":
        return y, x
    if name == "translate":
        return x + op[1], y + op[2]
    if name == "rotate":
        cx, cy = op[2], op[3]
        rx, ry = x - cx, y - cy
        for _ in range(op[1] // 90):  # one quarter-turn clockwise: (x, y) -> (y, -x)
            rx, ry = ry, -rx
        return rx + cx, ry + cy
    raise ValueError(name)


def _point_op_text(op: list) -> str:
    name = op[0]
    if name == "refl_x=":
        return f"reflected in the line x = {op[1]}"
    if name == "refl_y=":
        return f"reflected in the line y = {op[1]}"
    if name == "refl_yx":
        return "reflected in the line y = x"
    if name == "translate":
        a, b = op[1], op[2]
        horiz = f"{abs(a)} unit{'s' if abs(a) != 1 else ''} {'right' if a > 0 else 'left'}"
        vert = f"{abs(b)} unit{'s' if abs(b) != 1 else ''} {'up' if b > 0 else 'down'}"
        return f"translated {horiz} and {vert}"
    turn = {90: "rotated 90° clockwise", 270: "rotated 90° anticlockwise", 180: "rotated 180°"}[op[1]]
    return f"{turn} about the point {_pt((op[2], op[3]))}"


def _point_misread(op: list) -> list:
    """The operation a hurried solver performs instead: clockwise for anticlockwise, x = k for y = k."""
    if op[0] == "rotate" and op[1] != 180:
        return ["rotate", 360 - op[1], op[2], op[3]]
    if op[0] in ("refl_x=", "refl_y="):
        return ["refl_y=" if op[0] == "refl_x=" else "refl_x=", op[1]]
    if op[0] == "translate":
        return ["translate", op[2], op[1]]
    return op


def _draw_point_op(rng: random.Random, difficulty: str) -> list:
    centre = [rng.randint(2, 9), rng.randint(2, 9)]
    if difficulty == "easy":  # (y = x only in a chain: alone, the answer is the question's two numbers swapped)
        kind = rng.choice(("refl_x=", "refl_y=", "rot180"))
    elif difficulty == "medium":
        kind = rng.choice(("refl_x=", "refl_y=", "refl_yx", "rot180", "rot90", "translate"))
    else:
        kind = rng.choice(("refl_x=", "refl_y=", "rot90", "rot90", "translate", "rot180"))
    if kind in ("refl_x=", "refl_y="):
        return [kind, rng.randint(2, 9)]
    if kind == "refl_yx":
        return [kind]
    if kind == "translate":
        return ["translate", rng.choice((-1, 1)) * rng.randint(1, 5), rng.choice((-1, 1)) * rng.randint(1, 5)]
    return ["rotate", 180 if kind == "rot180" else rng.choice((90, 270)), *centre]


def _on_grid(p) -> bool:
    return 0 <= p[0] <= 14 and 0 <= p[1] <= 14


def _point_item(rng: random.Random, difficulty: str) -> Item:
    """Points stay on a grid with non-negative coordinates: the bank's duplicate check ignores minus
    signs, and on this grid the usual errors (wrong turn sense, wrong mirror line) stay distinct."""
    n_ops = {"easy": 1, "medium": 2, "hard": 3}[difficulty]
    while True:
        p = (rng.randint(0, 12), rng.randint(0, 12))
        ops = [_draw_point_op(rng, difficulty) for _ in range(n_ops)]
        if any(a[0] == b[0] and a[0] in ("translate", "refl_yx") for a, b in zip(ops, ops[1:])):
            continue
        trail = [p]
        for op in ops:
            trail.append(_point_apply(op, trail[-1]))
        if all(_on_grid(t) for t in trail) and trail[-1] != p and len(set(trail)) == len(trail):
            break
    end = trail[-1]
    misread = p
    for op in ops:
        misread = _point_apply(_point_misread(op), misread)
    reversed_order = p
    for op in reversed(ops):
        reversed_order = _point_apply(op, reversed_order)
    wrong_pts = [misread, reversed_order, trail[-2] if n_ops > 1 else None, (end[1], end[0]), p]
    label = rng.choice("PQRSTKMN")
    steps = "; then ".join(_point_op_text(op) for op in ops)
    grid = rng.choice(("On a coordinate grid", "On squared paper with axes marked", "On a map grid"))
    q = rng.choice((f"{grid}, the point {label}{_pt(p)} is {steps}. What are the coordinates of its image?",
                    f"{grid}, point {label} is at {_pt(p)}. It is {steps}. Where does {label} end up?",
                    f"Start with {label} = {_pt(p)}. Apply these in order: {steps}. What are the final coordinates of {label}?"))
    # a coordinate miscounted by one, on the answer and on the misread operation's point (two slips in
    # one working): near misses around the gold alone would make it the choice most like the others
    steps1 = ((1, 0), (0, 1), (-1, 0), (0, -1))
    near = [(end[0] + dx, end[1] + dy) for dx, dy in steps1]
    near2 = [(misread[0] + dx, misread[1] + dy) for dx, dy in steps1] if misread != end else []
    params = {"kind": "point", "start": list(p), "ops": ops, "n_transforms": n_ops}
    # one coordinate taken from the answer and the other from a slip (only one of the two worked out)
    mixed = [(a[0], b[1]) for a in (end, p, misread) for b in (end, p, misread)]
    pool = [_pt(w) for w in wrong_pts + mixed + [x for pair in zip(near, near2 or near) for x in pair] if w and min(w) >= 0]
    return Item(q, _pt(end), "short_text", _pick_three(rng, _pt(end), pool, q), params, (f"({end[0]},{end[1]})",))



_GRID_OPS = {
    "cw": "rotated 90° clockwise",
    "ccw": "rotated 90° anticlockwise",
    "half": "rotated 180°",
    "flip_lr": "flipped left-to-right (mirrored in a vertical line)",
    "flip_tb": "flipped top-to-bottom (mirrored in a horizontal line)",
}
_GRID_SWAP = {"cw": "ccw", "ccw": "cw", "flip_lr": "flip_tb", "flip_tb": "flip_lr", "half": "half"}


def _grid_apply(op: str, cell: tuple[int, int], shape: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Cell (row, col), 1-based from the top-left, and grid shape (rows, cols) after one operation."""
    r, c = cell
    R, C = shape
    if op == "cw":
        return (c, R - r + 1), (C, R)
    if op == "ccw":
        return (C - c + 1, r), (C, R)
    if op == "half":
        return (R - r + 1, C - c + 1), (R, C)
    if op == "flip_lr":
        return (r, C - c + 1), (R, C)
    return (R - r + 1, c), (R, C)


def _cell_text(cell) -> str:
    return f"row {cell[0]}, column {cell[1]}"


def _grid_run(ops, cell, shape):
    for op in ops:
        cell, shape = _grid_apply(op, cell, shape)
    return cell, shape


def _grid_item(rng: random.Random, difficulty: str) -> Item:
    n_ops = {"easy": 1, "medium": 2, "hard": 3}[difficulty]
    while True:
        if difficulty == "easy":
            R = C = rng.randint(3, 6)
            ops = [rng.choice(("cw", "ccw", "half", "flip_lr", "flip_tb"))]
        else:
            R, C = rng.randint(3, 6), rng.randint(3, 7)
            if difficulty == "hard" and R == C:
                C += 1
            ops = []
            while len(ops) < n_ops:
                op = rng.choice(("cw", "ccw", "half", "flip_lr", "flip_tb"))
                if ops and (op == ops[-1] in ("half", "flip_lr", "flip_tb") or {op, ops[-1]} == {"cw", "ccw"}):
                    continue  # an operation undone at once is a trick, not a transformation
                ops.append(op)
        # the mark moves: not on the mirror line of a flip, and not three steps that add up to nothing
        # (a half turn and both flips); the start cell is one of the errors, never the answer
        moved = [(r, c) for r in range(1, R + 1) for c in range(1, C + 1) if _grid_run(ops, (r, c), (R, C))[0] != (r, c)]
        if moved:
            cell = rng.choice(moved)
            break
    end, shape = _grid_run(ops, cell, (R, C))
    sw, sws = cell, (R, C)
    for op in ops:
        sw, sws = _grid_apply(_GRID_SWAP[op], sw, sws)
    part, ps = cell, (R, C)
    for op in ops[:-1]:
        part, ps = _grid_apply(op, part, ps)
    marker = rng.choice(("a star", "a black dot", "an X", "a red counter", "a smiley face", "a flag"))
    thing, noun = rng.choice((("A grid of squares", "grid"), ("A sheet of graph paper", "sheet"), ("A tiled board", "board"),
                              ("A chessboard-like grid", "grid")))
    steps = ", then ".join(_GRID_OPS[o] for o in ops)
    q = (f"{thing} has {R} rows and {C} columns; rows are counted from the top and columns from the left. "
         f"{_cap(marker)} is drawn in {_cell_text(cell)}. The {noun} is {steps}. "
         + rng.choice(("In which cell (row, column) is the mark now?", "Where is the mark now, counting rows from the top and columns from the left?")))
    slips = [sw, (end[1], end[0]), part if n_ops > 1 else None, cell, (shape[0] - end[0] + 1, end[1]),
             (end[0], shape[1] - end[1] + 1)]
    # the row of one cell with the column of another (one of the two counted right)
    slips += [(a[0], b[1]) for a in (end, cell, sw) for b in (end, cell, sw)]
    # and cells made of the numbers the question gives (the grid's size, the starting cell): the answer
    # often keeps one of them, or lands on an edge row or column whose number the size gives
    told = sorted({R, C, *cell})
    slips += [(x, y) for x in told for y in told if x != y]
    # only cells that exist on the final grid: "row 2, column 5" on a three-column board gives itself away
    wrong = [_cell_text(c) for c in slips if c is not None and 1 <= c[0] <= shape[0] and 1 <= c[1] <= shape[1]]
    params = {"kind": "grid", "shape": [R, C], "cell": list(cell), "ops": ops, "n_transforms": n_ops}
    # then the cells next to the answer (a miscount by one), then any cell of the final grid
    cells = sorted(((r, c) for r in range(1, shape[0] + 1) for c in range(1, shape[1] + 1)),
                   key=lambda rc: abs(rc[0] - end[0]) + abs(rc[1] - end[1]))
    pool = wrong + [_cell_text(rc) for rc in cells[1:]]
    return Item(q, _cell_text(end), "short_text", _pick_three(rng, _cell_text(end), pool, q), params)


_ARROW_OPS = {
    "cw90": "turned 90° clockwise", "ccw90": "turned 90° anticlockwise", "cw45": "turned 45° clockwise",
    "ccw45": "turned 45° anticlockwise", "r180": "turned half a turn (180°)", "cw135": "turned 135° clockwise", "ccw135": "turned 135° anticlockwise",
    "mirror_v": "reflected in a vertical mirror line", "mirror_h": "reflected in a horizontal mirror line",
}
_ARROW_SWAP = {"cw90": "ccw90", "ccw90": "cw90", "cw45": "ccw45", "ccw45": "cw45", "cw135": "ccw135", "ccw135": "cw135",
               "r180": "r180", "mirror_v": "mirror_h", "mirror_h": "mirror_v"}
_ARROW_INVERSE = {"cw90": "ccw90", "ccw90": "cw90", "cw45": "ccw45", "ccw45": "cw45", "cw135": "ccw135", "ccw135": "cw135"}
_ARROW_DIRS = ("up", "up and to the right", "right", "down and to the right", "down", "down and to the left",
               "left", "up and to the left")


def _arrow_apply(op: str, d: int) -> int:
    """Arrow direction as an index into _ARROW_DIRS (clockwise in 45° steps from 'up')."""
    turn = {"cw90": 2, "ccw90": -2, "cw45": 1, "ccw45": -1, "r180": 4, "cw135": 3, "ccw135": -3}
    if op in turn:
        return (d + turn[op]) % 8
    if op == "mirror_v":  # left-right swap
        return (-d) % 8
    return (4 - d) % 8


def _arrow_item(rng: random.Random, difficulty: str) -> Item:
    n_ops = {"easy": 1, "medium": 2, "hard": 3}[difficulty]
    pool = ["cw90", "ccw90", "r180", "mirror_v", "mirror_h"] + (["cw45", "ccw45", "cw135", "ccw135"] if difficulty == "hard" else [])
    start = rng.randrange(8) if difficulty == "hard" else rng.randrange(0, 8, 2)
    ops: list[str] = []
    while len(ops) < n_ops:
        op = rng.choice(pool)
        if ops and (op == _ARROW_INVERSE.get(ops[-1]) or op == ops[-1] in ("r180", "mirror_v", "mirror_h")):
            continue  # an operation undone at once is a trick, not a transformation
        ops.append(op)
    end = start
    for op in ops:
        end = _arrow_apply(op, end)
    sw = start
    for op in ops:
        sw = _arrow_apply(_ARROW_SWAP[op], sw)
    thing = rng.choice(("An arrow drawn on a card", "A weather-vane picture on a screen", "An arrow sticker on a window",
                        "A road-sign arrow in a drawing program"))
    steps = ", then ".join(_ARROW_OPS[o] for o in ops)
    q = (f"{thing} points {_ARROW_DIRS[start]}. It is {steps}. "
         + rng.choice(("Which way does it point now?", "In which direction does the arrow point at the end?")))
    wrong = [_ARROW_DIRS[sw], _ARROW_DIRS[(end + 4) % 8], _ARROW_DIRS[(-end) % 8], _ARROW_DIRS[(4 - end) % 8],
             _ARROW_DIRS[(end + 2) % 8], _ARROW_DIRS[(end - 2) % 8]]
    params = {"kind": "arrow", "start": _ARROW_DIRS[start], "ops": ops, "n_transforms": n_ops}
    return _choice(q, _ARROW_DIRS[end], wrong, params)


@DOMAIN.subcategory(
    "spatial_transformation",
    difficulty={
        "easy": "one transformation: a point reflected in a line x = k or y = k or turned 180° about a point, a "
                "marked cell of a square grid turned (90°/180°) or flipped, or an arrow turned or mirrored",
        "medium": "two transformations in sequence, including translations, reflections in y = x, quarter turns "
                  "about a point and rotations of non-square grids (rows and columns swap)",
        "hard": "three transformations, including rotations about a point other than the origin, reflections in "
                "x = k or y = k, 45°/135° turns of an arrow that starts on a diagonal",
    },
)
def spatial_transformation(rng: random.Random, difficulty: str) -> Item:
    return rng.choice((_point_item, _grid_item, _arrow_item))(rng, difficulty)
