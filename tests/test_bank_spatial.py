"""The spatial bank: every gold answer re-derived by a second route, on the full default size.

The independent solvers read the question *text* where the configuration is written out (walks,
cube nets, die moves, seating clues, transformations) and use other machinery than the generator:
complex numbers for walks, 3-D rotation matrices for nets and dice, voxel counting for solids,
scipy's ConvexHull and explicit coordinates for plane figures, brute force over every arrangement
with geometric left/right for seating, numpy's rot90/flip for grids.
"""

from __future__ import annotations

import cmath
import itertools
import math
import random
import re
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy.spatial import ConvexHull
from scipy.spatial.transform import Rotation

from mirror_hf.bank._core import generate_domain, normalise_text
from mirror_hf.bank.spatial import DOMAIN, distance_direction, spatial_transformation
from mirror_hf.records import DIFFICULTIES, canonical_json

SEEDS = (0, 1)
N = 625
SUBCATEGORIES = ("distance_direction", "2d_geometry", "3d_visualization", "relative_positioning", "spatial_transformation")


@pytest.fixture(scope="module")
def banks():
    return {seed: list(generate_domain(DOMAIN, seed, N)) for seed in SEEDS}


def _items(banks, sub):
    return [q for seed in SEEDS for q in banks[seed] if q.subcategory == sub]


def _num(text: str) -> Fraction:
    return Fraction(text)


# ------------------------------------------------------------------------------------------
# distance_direction: parse the walk from the text, walk it with complex numbers
# ------------------------------------------------------------------------------------------

_HEADING = {"north": 1j, "east": 1, "south": -1j, "west": -1}
_EIGHT = ["east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"]  # by angle
_UNIT = r"(?:nautical miles?|blocks?|kilometres?|miles?|metres?|tiles?|squares?)"


def _walk_from_text(text: str, relative: bool) -> tuple[complex, complex]:
    """End point and final facing (unit complex) of the walk described in the question."""
    if not relative:
        legs = re.findall(rf"(\d+) {_UNIT} (north|south|east|west)\b", text)
        z = sum(int(n) * _HEADING[d] for n, d in legs)
        return z, _HEADING[legs[-1][1]]
    facing = _HEADING[re.search(r"facing (north|south|east|west)", text, re.I).group(1).lower()]
    z = 0
    for turn, n in re.findall(rf"turns (left|right)|(\d+) {_UNIT}", text):
        if turn:
            facing *= 1j if turn == "left" else -1j
        else:
            z += int(n) * facing
    return z, facing


def _eight_point(z: complex) -> str:
    sector = round(math.degrees(cmath.phase(z)) / 45) % 8
    return _EIGHT[sector]


def test_distance_direction_answers(banks):
    for q in _items(banks, "distance_direction"):
        p = q.params
        z, facing = _walk_from_text(q.question, p["relative_turns"])
        legs_z = sum(n * _HEADING[d] for d, n in p["legs"])
        assert z == legs_z, q.id
        kind = p["kind"]
        if kind == "straight":
            gold = abs(z)
            if p["rounded"]:  # asked to the nearest whole number, never near a half
                assert "nearest whole number" in q.question and gold != int(gold), q.id
                assert abs(gold - round(gold)) <= 0.3, q.id
            else:
                assert gold == int(gold) and "nearest" not in q.question, q.id
            assert _num(q.answer) == round(gold), q.id
            assert all(_num(d) != round(gold) for d in q.choices if d != q.answer), q.id
        elif kind == "grid":
            gold = abs(z.real) + abs(z.imag)
            assert _num(q.answer) == gold, q.id
            assert all(_num(d) != gold for d in q.choices if d != q.answer), q.id
        elif kind == "facing":
            name = {v: k for k, v in _HEADING.items()}
            assert q.answer == name[facing], q.id
        else:
            angle = math.degrees(cmath.phase(z if kind == "direction" else -z))
            # unambiguous: the bearing is at least 4 degrees away from a sector boundary
            assert abs((angle % 45) - 22.5) > 4, q.id
            gold = _eight_point(z if kind == "direction" else -z)
            assert q.answer == gold, q.id
        assert len(set(q.choices)) == 4


def test_straight_line_distance_values_do_not_give_the_gold_away():
    """Across many walks, a distance value is the gold about a quarter of the times it is offered (four
    choices), whatever the value: a respondent who remembers which numbers were right elsewhere in the
    form gains nothing. Drawn from whole-number walks only, every gold was a hypotenuse (13 and 25 were
    right nearly whenever offered) while the leg sums beside them (7, 14, 21, 28) never were."""
    rng = random.Random(20260)
    items = []
    while len(items) < 2400:
        item = distance_direction(rng, rng.choice(DIFFICULTIES))
        if item.params["kind"] == "straight":
            items.append(item)
    gold = Counter(int(it.answer) for it in items)
    offered = Counter(int(c) for it in items for c in {it.answer, *it.distractors})
    rates = {v: gold[v] / n for v, n in offered.items() if n >= 60}
    assert len(rates) >= 25, sorted(offered.items())
    assert all(0.12 <= r <= 0.42 for r in rates.values()), sorted(rates.items())
    # no number is only ever wrong, and the answers spread over the whole range they are drawn from
    assert sum(n for v, n in offered.items() if not gold[v]) <= 0.01 * sum(offered.values()), sorted(offered.items())
    assert len(gold) >= 30 and max(gold.values()) <= 3 * len(items) / len(gold), sorted(gold.items())


def _top_share(scores: list, gold: int) -> float:
    """The gold's share of a pick of the top-scoring choices (1/k among k tied)."""
    top = [i for i, v in enumerate(scores) if v == max(scores)]
    return (gold in top) / len(top)


def test_direction_choices_do_not_echo_the_walk():
    """The question "which direction is the end point?" is not answered by the choice made of the
    compass words the walk names. When every such walk ended on the diagonal between its legs, "north-east" after "3 north,
    then 4 east" was the gold in 58% of these items (the other choices were the rest of the diagonals).
    Read here with this file's own word split: per difficulty (a respondent sees the number of legs)
    the pick of the choice sharing most of the walk's compass words lands on the gold about a quarter
    of the time. And a choice set mixing cardinal and diagonal points does not tell the gold's kind:
    among sets with c cardinal points, the gold is one of them c/4 of the time, as any choice is."""
    rng = random.Random(7301)
    echo: dict[str, list[float]] = {d: [] for d in DIFFICULTIES}
    cardinal = Counter()
    mixed = Counter()
    while sum(map(len, echo.values())) < 1500:
        difficulty = rng.choice(DIFFICULTIES)
        item = distance_direction(rng, difficulty)
        if item.params["kind"] != "direction":
            continue
        named = set(re.findall(r"north|south|east|west", item.question.lower()))
        choices = [item.answer, *item.distractors]
        echo[difficulty].append(_top_share([len(set(c.split("-")) & named) for c in choices], 0))
        n_card = sum("-" not in c for c in choices)
        if 0 < n_card < 4:
            mixed[n_card] += 1
            cardinal[n_card] += "-" not in item.answer
    for difficulty, shares in echo.items():
        assert sum(shares) / len(shares) <= 0.33, (difficulty, sum(shares) / len(shares), len(shares))
    pooled = [x for shares in echo.values() for x in shares]
    assert sum(pooled) / len(pooled) <= 0.29, sum(pooled) / len(pooled)
    for n_card, n in mixed.items():
        if n >= 100:
            assert abs(cardinal[n_card] / n - n_card / 4) <= 0.08, (n_card, cardinal[n_card], n)


def test_transformed_mark_moves_and_is_no_hub_of_the_choices():
    """A marked cell always moves (a flip of a cell on the mirror line, or a half turn and both flips,
    would leave the answer the cell the question names), and near misses do not make the gold the hub:
    every wrong coordinate or cell one off the answer keeps one of its numbers, which made "pick the
    choice sharing most numbers with the others" right in 36% of the point items. Per kind, that pick
    and the pick of the choice sharing most words with the question land on the gold about a quarter
    of the time (this file's own word split)."""
    rng = random.Random(7302)
    shares: dict[tuple[str, str], list[float]] = {}
    while sum(map(len, shares.values())) < 2000:
        item = spatial_transformation(rng, rng.choice(DIFFICULTIES))
        kind = item.params["kind"]
        if kind == "arrow":
            continue
        if kind == "grid":
            assert item.answer != "row {}, column {}".format(*item.params["cell"]), item.question
        choices = [item.answer, *item.distractors]
        words = [set(re.findall(r"[a-z0-9]+", c.lower())) for c in choices]
        asked = set(re.findall(r"[a-z0-9]+", item.question.lower()))
        hub = [sum(len(w & v) for j, v in enumerate(words) if j != i) for i, w in enumerate(words)]
        shares.setdefault((kind, "shared with the other choices"), []).append(_top_share(hub, 0))
        shares.setdefault((kind, "shared with the question"), []).append(_top_share([len(w & asked) for w in words], 0))
    for key, xs in shares.items():
        assert sum(xs) / len(xs) <= 0.30, (key, sum(xs) / len(xs), len(xs))


# ------------------------------------------------------------------------------------------
# 2d_geometry: explicit coordinates, ConvexHull areas, rasterised cells, measured angles
# ------------------------------------------------------------------------------------------

def _hull_area(points) -> float:
    return ConvexHull(np.array(points, dtype=float)).volume  # in 2-D, "volume" is the area


def _angle_at(p, a, b) -> float:
    """Angle at p between rays p->a and p->b, in degrees."""
    v, w = np.subtract(a, p), np.subtract(b, p)
    return math.degrees(math.acos(np.dot(v, w) / (np.linalg.norm(v) * np.linalg.norm(w))))


def _triangle_from_angles(A: float, B: float):
    """Vertices of a triangle with angles A at (0,0) and B at (1,0): intersect the two rays."""
    ta, tb = math.tan(math.radians(A)), math.tan(math.radians(B))
    x = tb / (ta + tb)
    return (0.0, 0.0), (1.0, 0.0), (x, x * ta)


def _cells_boundary(cells: set) -> int:
    return sum(1 for r, c in cells for q in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if q not in cells)


def _geometry_gold(p: dict) -> float:
    k = p["kind"]
    if k == "rect_area":
        return _hull_area([(0, 0), (p["w"], 0), (p["w"], p["h"]), (0, p["h"])])
    if k == "rect_perimeter":
        cells = {(r, c) for r in range(p["h"]) for c in range(p["w"])}
        return _cells_boundary(cells)
    if k == "square_area":
        s = p["perimeter_in_text"] / 4
        return _hull_area([(0, 0), (s, 0), (s, s), (0, s)])
    if k == "right_triangle_area":
        return _hull_area([(0, 0), (p["a"], 0), (0, p["b"])])
    if k == "triangle_angle":
        tri = _triangle_from_angles(*p["angles"])
        return _angle_at(tri[2], tri[0], tri[1])
    if k in ("l_area", "l_perimeter"):
        W, H, a, b = p["W"], p["H"], p["a"], p["b"]
        cut_cols = range(W - a, W) if "right" in p["corner"] else range(a)
        cut_rows = range(b) if "top" in p["corner"] else range(H - b, H)
        cells = {(r, c) for r in range(H) for c in range(W) if not (r in cut_rows and c in cut_cols)}
        return len(cells) if k == "l_area" else _cells_boundary(cells)
    if k == "trapezoid_area":
        a, b = p["parallel"]
        h = p["height"]
        return _hull_area([(0, 0), (a, 0), (1 + b, h), (1, h)])
    if k == "point_distance":
        return math.dist(p["p1"], p["p2"])
    if k == "interior_angle":
        n = p["n"]
        pts = [(math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)) for i in range(3)]
        return _angle_at(pts[1], pts[0], pts[2])
    if k == "isosceles_base":
        half = math.radians(p["apex"] / 2)
        apex, left, right = (0.0, math.cos(half)), (-math.sin(half), 0.0), (math.sin(half), 0.0)
        assert abs(_angle_at(apex, left, right) - p["apex"]) < 1e-9
        return _angle_at(left, apex, right)
    if k == "rect_from_perimeter":
        other = p["perimeter"] / 2 - p["side"]
        return _hull_area([(0, 0), (p["side"], 0), (p["side"], other), (0, other)])
    if k in ("triangle_coords_area", "polygon_coords_area"):
        return _hull_area(p["vertices"])
    if k == "sides_from_angle":
        return next(n for n in range(3, 400) if abs(180 * (n - 2) / n - p["interior"]) < 1e-9)
    if k == "path_area":
        L, W, w = p["L"], p["W"], p["width"]
        outer = {(r, c) for r in range(-w, W + w) for c in range(-w, L + w)}
        inner = {(r, c) for r in range(W) for c in range(L)}
        return len(outer - inner)
    if k == "clock_angle":
        h, m = p["time"]
        minute = (m / 60) * 2 * math.pi
        hour = ((h % 12) / 12 + m / 720) * 2 * math.pi
        u = (math.sin(hour), math.cos(hour))
        v = (math.sin(minute), math.cos(minute))
        return math.degrees(math.acos(max(-1.0, min(1.0, np.dot(u, v)))))
    raise AssertionError(f"no independent solver for {k}")


def test_2d_geometry_answers(banks):
    kinds = Counter()
    for q in _items(banks, "2d_geometry"):
        params = dict(q.params)
        if params["kind"] == "square_area":
            params["perimeter_in_text"] = int(re.search(r"perimeter of (\d+)", q.question).group(1))
        gold = _geometry_gold(params)
        kinds[q.params["kind"]] += 1
        assert abs(float(_num(q.answer)) - gold) < 1e-4, (q.id, q.answer, gold)
        for d in q.choices:
            if d != q.answer:
                assert abs(float(_num(d)) - gold) > 1e-4, (q.id, d)
        for key in ("w", "h", "W", "H", "a", "b", "n", "apex", "perimeter", "L", "width"):
            if key in q.params and q.params["kind"] not in ("interior_angle",):
                assert str(q.params[key]) in q.question, (q.id, key)
        for v in q.params.get("vertices", []):
            assert f"({v[0]}, {v[1]})" in q.question, q.id
    assert len(kinds) >= 15, kinds


# ------------------------------------------------------------------------------------------
# 3d_visualization: nets and dice by rotation matrices read from the text; solids by voxels
# ------------------------------------------------------------------------------------------

# paper in the plane z = 0 with columns along +x and rows along -y; folding the neighbour up about the
# shared edge turns its outward normal from -z to point away from the root square
_GRID_STEP = {(-1, 0): ("x", 90), (1, 0): ("x", -90), (0, 1): ("y", -90), (0, -1): ("y", 90)}


def _parse_net(text: str) -> dict:
    block = [ln for ln in text.split("\n\n")[1].splitlines()]
    return {(r, c): tok for r, ln in enumerate(block) for c, tok in enumerate(ln.split()) if tok != "."}


def _fold_normals(net: dict) -> dict:
    """Outward normal of each labelled face: the root square is the floor (normal -z); crossing an
    edge of the net rotates the rest of the paper up by 90 degrees about that edge."""
    root = min(net)
    rot = {root: Rotation.identity()}
    queue = [root]
    while queue:
        cell = queue.pop(0)
        for (dr, dc), (axis, deg) in _GRID_STEP.items():
            nxt = (cell[0] + dr, cell[1] + dc)
            if nxt in net and nxt not in rot:
                rot[nxt] = rot[cell] * Rotation.from_euler(axis, deg, degrees=True)
                queue.append(nxt)
    normals = {net[c]: tuple(np.round(r.apply([0, 0, -1])).astype(int)) for c, r in rot.items()}
    assert len(set(normals.values())) == 6, "net does not fold into a cube"
    return normals


_DIE_TEXT = [
    (r"(?:tip|roll) it (?:over )?forwards, away from you", ("x", -90)),  # top -> back
    (r"(?:tip|roll) it (?:over )?backwards, towards you", ("x", 90)),  # top -> front
    (r"(?:tip|roll) it (?:over )?to the right", ("y", 90)),  # top -> right
    (r"(?:tip|roll) it (?:over )?to the left", ("y", -90)),  # top -> left
    (r"spin it a quarter-turn clockwise \(seen from above\)", ("z", -90)),
    (r"spin it a quarter-turn anticlockwise \(seen from above\)", ("z", 90)),
]
_DIRS = {"top": (0, 0, 1), "front": (0, -1, 0), "right": (1, 0, 0), "back": (0, 1, 0), "left": (-1, 0, 0), "bottom": (0, 0, -1)}


def _die_answer(text: str) -> int:
    m = re.search(r"with (\d) on top, (\d) facing you and (\d) on your right", text) or \
        re.search(r"so that (\d) is on top, (\d) is on the face towards you and (\d) is on the right-hand face", text)
    top, front, right = map(int, m.groups())
    faces = {_DIRS["top"]: top, _DIRS["bottom"]: 7 - top, _DIRS["front"]: front, _DIRS["back"]: 7 - front,
             _DIRS["right"]: right, _DIRS["left"]: 7 - right}
    moves = sorted((mm.start(), rot) for pat, rot in _DIE_TEXT for mm in re.finditer(pat, text))
    assert moves, text
    total = Rotation.identity()
    for _, (axis, deg) in moves:
        total = Rotation.from_euler(axis, deg, degrees=True) * total
    moved = {tuple(np.round(total.apply(v)).astype(int)): n for v, n in faces.items()}
    # sanity of the move conventions: one forward tip carries the top face to the back
    assert tuple(np.round(Rotation.from_euler("x", -90, degrees=True).apply(_DIRS["top"])).astype(int)) == _DIRS["back"]
    ask = "top" if text.endswith("on top?") else "front" if text.endswith("faces you?") else "right"
    return moved[_DIRS[ask]]


def _exposed_faces(vox: np.ndarray) -> int:
    padded = np.pad(vox, 1)
    return int(sum(np.count_nonzero(np.diff(padded.astype(np.int8), axis=a)) for a in range(3)))


def _solid_gold(p: dict) -> int:
    k = p["kind"]
    if k in ("box_volume", "cube_count", "box_surface"):
        vox = np.ones(p["dims"], dtype=bool)
        return int(vox.sum()) if k != "box_surface" else _exposed_faces(vox)
    if k == "cubes_fit":
        a, b, c = p["box"]
        s = p["cube"]
        return sum(1 for x in range(0, a - s + 1, s) for y in range(0, b - s + 1, s) for z in range(0, c - s + 1, s))
    if k == "open_box":
        L, W = p["sheet"]
        c = p["cut"]
        sheet = np.ones((L, W), dtype=bool)
        sheet[:c, :c] = sheet[:c, -c:] = sheet[-c:, :c] = sheet[-c:, -c:] = False
        base = sheet[c:-c, c:-c]
        return int(base.sum()) * c
    if k == "painted_cube":
        n = p["n"]
        count = 0
        for x, y, z in itertools.product(range(n), repeat=3):
            painted = sum((v == 0) + (v == n - 1) for v in (x, y, z))
            count += painted == p["painted_faces"]
        return count
    if k == "composite_surface":
        (L, W, H), (l, w, h) = p["big"], p["small"]
        vox = np.zeros((L, W, H + h), dtype=bool)
        vox[:, :, :H] = True
        assert l <= L and w <= W
        vox[L - l:, W - w:, H:H + h] = True  # anywhere on the top face gives the same area
        return _exposed_faces(vox)
    if k == "tunnel_volume":
        n, t = p["n"], p["hole"]
        vox = np.ones((n, n, n), dtype=bool)
        lo = (n - t) // 2
        vox[lo:lo + t, lo:lo + t, :] = False
        return int(vox.sum())
    raise AssertionError(k)


def test_3d_visualization_answers(banks):
    seen = Counter()
    for q in _items(banks, "3d_visualization"):
        k = q.params["kind"]
        seen[k] += 1
        if k == "net":
            net = _parse_net(q.question)
            assert sorted(net.values()) == sorted(q.params["labels"]), q.id
            normals = _fold_normals(net)
            opposite = {a: b for a in normals for b in normals if np.dot(normals[a], normals[b]) == -1}
            if q.params["question"] == "opposite_of":
                face = re.findall(r"\b(\w)\?$", q.question)[0]
                assert q.answer == opposite[face], q.id
                assert all(opposite[face] != d for d in q.choices if d != q.answer), q.id
            else:
                for c in q.choices:
                    a, b = c.split(" and ")
                    assert (opposite[a] == b) == (c == q.answer), (q.id, c)
        elif k == "die":
            gold = _die_answer(q.question)
            assert int(q.answer) == gold, q.id
            assert all(int(d) != gold for d in q.choices if d != q.answer)
        else:
            gold = _solid_gold(q.params)
            assert int(q.answer) == gold, (q.id, q.answer, gold)
            assert all(_num(d) != gold for d in q.choices if d != q.answer), q.id
    assert set(seen) >= {"net", "die", "painted_cube", "composite_surface", "box_volume"}, seen


def test_cube_nets_are_the_eleven():
    from mirror_hf.bank.spatial import CUBE_NETS

    def canon(cells):
        forms = []
        for flip in (False, True):
            pts = [(r, -c) if flip else (r, c) for r, c in cells]
            for _ in range(4):
                pts = [(c, -r) for r, c in pts]
                r0, c0 = min(r for r, _ in pts), min(c for _, c in pts)
                forms.append(tuple(sorted((r - r0, c - c0) for r, c in pts)))
        return min(forms)

    assert len({canon(n) for n in CUBE_NETS}) == 11
    for n in CUBE_NETS:  # every fixed form folds under the independent folder
        _fold_normals({cell: str(i) for i, cell in enumerate(sorted(n))})


# ------------------------------------------------------------------------------------------
# relative_positioning: parse every clue sentence, brute-force every arrangement
# ------------------------------------------------------------------------------------------

def _seat_geometry(n: int) -> list[int]:
    """Seat k at angle -2*pi*k/n (clockwise from above); entry k is the seat on sitter k's left hand."""
    pos = [np.array([math.cos(-2 * math.pi * k / n), math.sin(-2 * math.pi * k / n)]) for k in range(n)]

    def left_neighbour(k: int) -> int:
        facing = -pos[k]
        left_hand = np.array([-facing[1], facing[0]])  # facing turned 90 degrees anticlockwise (z up)
        others = [j for j in range(n) if j != k]
        nearest = sorted(others, key=lambda j: np.linalg.norm(pos[j] - pos[k]))[:2]
        return max(nearest, key=lambda j: np.dot(pos[j] - pos[k], left_hand))

    return [left_neighbour(k) for k in range(n)]


_E = r"(?:the )?([A-Z]?[a-z]+(?: [a-z]+)?(?: box| book)?)"


def _row_constraints(sentence: str, kind: str, n: int):
    s = sentence.rstrip(".")
    ent = r"(?:[Tt]he )?(.+?)"
    lo_end = {"left": 0, "bottom": 0}
    pats = [
        (rf"^{ent} is (?:at the far|on the extreme) (left|right)(?: end)?$", lambda x, side: lambda P: P[x] == (0 if side == "left" else n - 1)),
        (rf"^{ent} is at the (top|bottom) of the pile$", lambda x, side: lambda P: P[x] == (0 if side == "bottom" else n - 1)),
        (rf"^{ent} is (\w+) from the bottom$", lambda x, o: lambda P: P[x] == _ORD.index(o)),
        (rf"^{ent} is the (\w+) book from the left$", lambda x, o: lambda P: P[x] == _ORD.index(o)),
        (rf"^{ent} is in position (\d)$", lambda x, k: lambda P: P[x] == int(k) - 1),
        (rf"^{ent} is not at either end$", lambda x: lambda P: 0 < P[x] < n - 1),
        (rf"^{ent} is neither at the top nor at the bottom$", lambda x: lambda P: 0 < P[x] < n - 1),
        (rf"^{ent} is immediately to the left of {ent}$", lambda x, y: lambda P: P[y] - P[x] == 1),
        (rf"^{ent} is immediately to the right of {ent}$", lambda x, y: lambda P: P[x] - P[y] == 1),
        (rf"^{ent} is directly on top of {ent}$", lambda x, y: lambda P: P[x] - P[y] == 1),
        (rf"^{ent} is somewhere to the left of {ent}, with at least one (?:person|book) between them$",
         lambda x, y: lambda P: P[y] - P[x] >= 2),
        (rf"^{ent} is somewhere above {ent}, but not directly on it$", lambda x, y: lambda P: P[x] - P[y] >= 2),
        (rf"^There is exactly one (?:person|book) between {ent} and {ent}, with (?:the )?(.+?) further left$",
         lambda x, y, z: lambda P: abs(P[x] - P[y]) == 2 and P[z] == min(P[x], P[y])),
        (rf"^There is exactly one box between {ent} and {ent}, and (?:the )?(.+?) is the higher of the two$",
         lambda x, y, z: lambda P: abs(P[x] - P[y]) == 2 and P[z] == max(P[x], P[y])),
        (rf"^{ent} and {ent} are next to each other$", lambda x, y: lambda P: abs(P[x] - P[y]) == 1),
        (rf"^{ent} and {ent} touch each other \(one is directly on the other\)$", lambda x, y: lambda P: abs(P[x] - P[y]) == 1),
        (rf"^{ent} is not next to {ent}$", lambda x, y: lambda P: abs(P[x] - P[y]) != 1),
        (rf"^{ent} and {ent} are not touching \(neither is directly on the other\)$", lambda x, y: lambda P: abs(P[x] - P[y]) != 1),
    ]
    del lo_end
    for pat, make in pats:
        m = re.match(pat, s)
        if m:
            return make(*[g.lower() if g and g[0].isupper() and kind != "row" else g for g in m.groups()])
    raise AssertionError(f"unparsed clue: {sentence!r}")


_ORD = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")


def _circle_constraint(sentence: str, n: int, left_of):
    s = sentence.rstrip(".")
    pats = [
        (r"^(\w+) sits immediately to (\w+)'s left$", lambda x, y: lambda S: S[x] == left_of(S[y])),
        (r"^(\w+) sits immediately to (\w+)'s right$", lambda x, y: lambda S: S[y] == left_of(S[x])),
        (r"^(\w+) sits second to the left of (\w+)$", lambda x, y: lambda S: S[x] == left_of(left_of(S[y]))),
        (r"^(\w+) sits directly opposite (\w+)$", lambda x, y: lambda S: (S[x] - S[y]) % n == n // 2),
        (r"^(\w+) does not sit next to (\w+)$", lambda x, y: lambda S: S[x] != left_of(S[y]) and S[y] != left_of(S[x])),
    ]
    for pat, make in pats:
        m = re.match(pat, s)
        if m:
            return make(*m.groups())
    raise AssertionError(f"unparsed clue: {sentence!r}")


def _relative_solutions(q) -> set:
    p = q.params
    n, kind, ents = p["n_entities"], p["kind"], p["entities"]
    sentences = re.split(r"(?<=[.?])\s+", q.question)
    question = sentences[-1]
    clue_sents = [s for s in sentences[:-1] if not re.search(r"sit around|round dinner|Left and right|'Left'|"
                                                             r"stand side by side|piled one|sit in a row|line up|"
                                                             r"stand in a row|They are", s)]
    assert len(clue_sents) == p["n_clues"], (q.id, clue_sents)
    answers = set()
    if kind == "circle":
        left_of = _seat_geometry(n).__getitem__
        checks = [_circle_constraint(s, n, left_of) for s in clue_sents]
        m = re.match(r"Who sits (immediately to (\w+)'s (left|right)|second to the right of (\w+)|directly opposite (\w+))\?", question)
        for perm in itertools.permutations(ents):
            S = {x: k for k, x in enumerate(perm)}
            if not all(c(S) for c in checks):
                continue
            who = {k: x for x, k in S.items()}
            if m.group(2):
                k = S[m.group(2)]
                seat = left_of(k) if m.group(3) == "left" else next(j for j in range(n) if left_of(j) == k)
            elif m.group(4):
                k = S[m.group(4)]
                right = {left_of(j): j for j in range(n)}
                seat = right[right[k]]
            else:
                seat = (S[m.group(5)] + n // 2) % n
            answers.add(who[seat])
        return answers
    checks = [_row_constraints(s, kind, n) for s in clue_sents]
    for perm in itertools.permutations(ents):
        P = {x: k for k, x in enumerate(perm)}
        if not all(c(P) for c in checks):
            continue
        at = dict(enumerate(perm))
        if m := re.match(r"Which (?:box|book) is at the (?:far )?(bottom|top|left|right) (?:of the pile|end)\?", question):
            answers.add(at[0 if m.group(1) in ("bottom", "left") else n - 1])
        elif m := re.match(r"(?:Who is|Which (?:box|book) is) (?:in position (\d)|(\w+) from the (bottom|left|top|right))\?", question):
            if m.group(1):
                k = int(m.group(1)) - 1
            else:
                k = _ORD.index(m.group(2))
                k = k if m.group(3) in ("bottom", "left") else n - 1 - k
            answers.add(at[k])
        else:
            m = re.match(r"(?:Who|Which (?:box|book)) is (immediately to the right of|immediately to the left of|directly on top of|"
                         r"directly underneath) (?:the )?(.+)\?", question)
            step = 1 if m.group(1) in ("immediately to the right of", "directly on top of") else -1
            answers.add(at.get(P[m.group(2)] + step))
    return answers


def test_relative_positioning_answers(banks):
    for q in _items(banks, "relative_positioning"):
        answers = _relative_solutions(q)
        assert answers == {q.answer}, (q.id, answers, q.answer)
        assert not (set(q.choices) - {q.answer}) & answers


# ------------------------------------------------------------------------------------------
# spatial_transformation: affine matrices for points, numpy grids, angles for arrows
# ------------------------------------------------------------------------------------------

def _affine_from_text(step: str) -> np.ndarray:
    if m := re.fullmatch(r"reflected in the line x = (-?\d+)", step):
        k = int(m.group(1))
        return np.array([[-1, 0, 2 * k], [0, 1, 0], [0, 0, 1]])
    if m := re.fullmatch(r"reflected in the line y = (-?\d+)", step):
        k = int(m.group(1))
        return np.array([[1, 0, 0], [0, -1, 2 * k], [0, 0, 1]])
    if step == "reflected in the line y = x":
        return np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]])
    if m := re.fullmatch(r"translated (\d+) units? (left|right) and (\d+) units? (up|down)", step):
        dx = int(m.group(1)) * (1 if m.group(2) == "right" else -1)
        dy = int(m.group(3)) * (1 if m.group(4) == "up" else -1)
        return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]])
    m = re.fullmatch(r"rotated (90° clockwise|90° anticlockwise|180°) about the point \((-?\d+), (-?\d+)\)", step)
    theta = {"90° clockwise": -90, "90° anticlockwise": 90, "180°": 180}[m.group(1)]
    c, s = round(math.cos(math.radians(theta))), round(math.sin(math.radians(theta)))
    cx, cy = int(m.group(2)), int(m.group(3))
    to_origin = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]])
    back = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]])
    return back @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]) @ to_origin


def _point_gold(text: str) -> tuple[int, int]:
    m = re.search(r"(?:the point [A-Z]|point [A-Z] is at |[A-Z] = )\((\d+), (\d+)\)", text)
    v = np.array([int(m.group(1)), int(m.group(2)), 1])
    body = re.search(r"(?:\) is |It is |in order: )(.+?)(?:\. What|\. Where)", text).group(1)
    for step in body.split("; then "):
        v = _affine_from_text(step) @ v
    return int(v[0]), int(v[1])


_GRID_NP = {"rotated 90° clockwise": lambda a: np.rot90(a, -1), "rotated 90° anticlockwise": lambda a: np.rot90(a, 1),
            "rotated 180°": lambda a: np.rot90(a, 2), "flipped left-to-right (mirrored in a vertical line)": np.fliplr,
            "flipped top-to-bottom (mirrored in a horizontal line)": np.flipud}


def _grid_gold(text: str) -> tuple[int, int]:
    R, C = map(int, re.search(r"has (\d+) rows and (\d+) columns", text).groups())
    r, c = map(int, re.search(r"drawn in row (\d+), column (\d+)", text).groups())
    grid = np.zeros((R, C), dtype=int)
    grid[r - 1, c - 1] = 1
    body = re.search(r"The (?:grid|sheet|board) is (.+?)\. (?:In which|Where)", text).group(1)
    for step in body.split(", then "):
        grid = _GRID_NP[step](grid)
    rr, cc = np.argwhere(grid == 1)[0]
    return int(rr) + 1, int(cc) + 1


_ARROW_ANGLE = {"up": 90, "up and to the right": 45, "right": 0, "down and to the right": -45, "down": -90,
                "down and to the left": -135, "left": 180, "up and to the left": 135}  # maths convention


def _arrow_gold(text: str) -> str:
    m = re.search(r"points (.+?)\. It is (.+?)\. (?:Which|In which)", text)
    v = cmath.rect(1, math.radians(_ARROW_ANGLE[m.group(1)]))
    for step in m.group(2).split(", then "):
        if step == "reflected in a vertical mirror line":
            v = -v.conjugate()
        elif step == "reflected in a horizontal mirror line":
            v = v.conjugate()
        elif step == "turned half a turn (180°)":
            v = -v
        else:
            mm = re.fullmatch(r"turned (\d+)° (clockwise|anticlockwise)", step)
            deg = int(mm.group(1)) * (-1 if mm.group(2) == "clockwise" else 1)
            v *= cmath.rect(1, math.radians(deg))
    angle = round(math.degrees(cmath.phase(v)))
    return next(name for name, a in _ARROW_ANGLE.items() if (a - angle) % 360 == 0)


def test_spatial_transformation_answers(banks):
    kinds = Counter()
    for q in _items(banks, "spatial_transformation"):
        k = q.params["kind"]
        kinds[k] += 1
        if k == "point":
            gold = f"({_point_gold(q.question)[0]}, {_point_gold(q.question)[1]})"
        elif k == "grid":
            gold = "row {}, column {}".format(*_grid_gold(q.question))
        else:
            gold = _arrow_gold(q.question)
        assert q.answer == gold, (q.id, q.answer, gold)
        assert gold not in set(q.choices) - {q.answer}
    assert set(kinds) == {"point", "grid", "arrow"}


# ------------------------------------------------------------------------------------------
# properties every subcategory shares
# ------------------------------------------------------------------------------------------

def test_shape_of_every_item(banks):
    for seed in SEEDS:
        qs = banks[seed]
        assert len(qs) == N
        assert {q.subcategory for q in qs} == set(SUBCATEGORIES)
        for sub in SUBCATEGORIES:
            counts = Counter(q.difficulty for q in qs if q.subcategory == sub)
            assert set(counts) == set(DIFFICULTIES) and min(counts.values()) >= 41, (sub, counts)
        for q in qs:
            assert q.answer in q.choices and len(q.choices) == 4
            assert len({normalise_text(c) for c in q.choices}) == 4
            assert q.answer_type in ("exact_numeric", "short_text", "multiple_choice")
            canonical_json(q.params)  # JSON-serialisable
        assert len({normalise_text(q.question) for q in qs}) == N


# a parameter that measures how hard each subcategory's items are
_MEASURE = {
    "distance_direction": lambda p: p["n_legs"] + 2 * p["relative_turns"],
    "2d_geometry": lambda p: p["steps"],
    "3d_visualization": lambda p: p["steps"],
    "relative_positioning": lambda p: p["n_entities"],
    "spatial_transformation": lambda p: p["n_transforms"],
}


def test_difficulty_raises_a_measured_parameter(banks):
    for sub, measure in _MEASURE.items():
        mean = {d: np.mean([measure(q.params) for q in _items(banks, sub) if q.difficulty == d]) for d in DIFFICULTIES}
        assert mean["easy"] < mean["medium"] < mean["hard"], (sub, mean)


def _skeleton(text: str) -> str:
    """The wording of a question with its particulars (numbers, names, labels) blanked out."""
    text = re.sub(r"\d+", "#", text)
    text = re.sub(r"\b[A-Z][a-z]*\b", "Name", text)
    return " ".join(text.split()[-6:])


def test_wording_varies(banks):
    for sub in SUBCATEGORIES:
        qs = _items(banks, sub)
        openings = Counter(" ".join(q.question.split()[:3]) for q in qs)
        endings = Counter(_skeleton(q.question) for q in qs)
        assert len(openings) >= 8 and len(endings) >= 8, (sub, len(openings), len(endings))
        assert openings.most_common(1)[0][1] < 0.35 * len(qs), (sub, openings.most_common(3))


def test_seeded_and_reproducible(banks):
    again = list(generate_domain(DOMAIN, 0, 60))
    assert [q.to_row() for q in again] == [q.to_row() for q in generate_domain(DOMAIN, 0, 60)]
    texts0 = {q.question for q in banks[0]}
    texts1 = {q.question for q in banks[1]}
    assert len(texts0 & texts1) < 0.05 * N
