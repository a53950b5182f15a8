"""One producer per domain: a step whose computed answer is a whole number in `VALUE_RANGE`.

Each draw returns the step as a stand-alone question, the same number as a noun phrase (for Exp2's
hidden dependencies) and three wrong values built from named errors. `params` holds what was drawn,
enough to recompute the value by another route.
"""

from __future__ import annotations

import random

from mirror_hf.bank._wording import NAMES
from mirror_hf.tasks import elements
from mirror_hf.tasks.chain import Produced, Producer, in_range, wrong_values

MINUS = "\u2212"
TIMES = "\u00d7"
DIVIDE = "\u00f7"


def _redraw(draw, rng: random.Random, difficulty: str) -> Produced:
    """Draw until the value is in range (a few rejected draws keep each generator simple)."""
    for _ in range(200):
        out = draw(rng, difficulty)
        if out is not None and in_range(out.value):
            return out
    raise RuntimeError(f"{draw.__name__}: no value in range after 200 draws")


# ---------------------------------------------------------------------------------------------
# arithmetic: evaluate an expression
# ---------------------------------------------------------------------------------------------


def _expression(rng: random.Random, difficulty: str) -> Produced | None:
    if difficulty == "easy":
        a, b = rng.randint(15, 59), rng.randint(12, 49)
        c = rng.randint(5, 40)
        value = a + b - c
        expr = f"{a} + {b} {MINUS} {c}"
        named = [a + b + c, value + 10, value - 10]
    elif difficulty == "medium":
        a, b, c = rng.randint(3, 9), rng.randint(6, 14), rng.randint(2, 20)
        value = a * b - c
        expr = f"{a} {TIMES} {b} {MINUS} {c}"
        named = [a * (b - c), a * b + c, value - a]
    else:
        value, d, a = rng.randint(8, 60), rng.randint(3, 9), rng.randint(3, 12)
        total = value * d
        if total <= a * 2:
            return None
        b = rng.randint(2, (total - 1) // a)
        c = total - a * b
        expr = f"({a} {TIMES} {b} + {c}) {DIVIDE} {d}"
        left_to_right_error = a * b + c // d if c % d == 0 else None  # a x b + (c / d): precedence slip
        named = [w for w in (left_to_right_error, value + 1, value - 1) if w is not None]
        return Produced(
            question=f"What is the value of {expr}?",
            phrase=f"the value of {expr}",
            value=value,
            wrong=wrong_values(value, named),
            params={"a": a, "b": b, "c": c, "d": d, "form": "(a*b+c)/d"},
        )
    form = {"easy": "a+b-c", "medium": "a*b-c"}[difficulty]
    return Produced(
        question=f"What is the value of {expr}?",
        phrase=f"the value of {expr}",
        value=value,
        wrong=wrong_values(value, named),
        params={"a": a, "b": b, "c": c, "form": form},
    )


ARITHMETIC = Producer(
    "arithmetic", "mental_calculation", "arithmetic.expression", "mental arithmetic with operator precedence",
    lambda rng, d: _redraw(_expression, rng, d),
)


# ---------------------------------------------------------------------------------------------
# spatial: shortest grid path
# ---------------------------------------------------------------------------------------------


def _grid_steps(rng: random.Random, difficulty: str) -> Produced | None:
    if difficulty == "hard":
        moves = [("north", rng.randint(3, 25)), ("east", rng.randint(3, 25)),
                 ("south", rng.randint(3, 25)), ("west", rng.randint(3, 25))]
        rng.shuffle(moves)
        x = sum(k if d == "east" else -k if d == "west" else 0 for d, k in moves)
        y = sum(k if d == "north" else -k if d == "south" else 0 for d, k in moves)
        value = abs(x) + abs(y)
        if x == 0 or y == 0:
            return None
        walk = ", ".join(f"{k} units {d}" for d, k in moves[:-1]) + f" and {moves[-1][1]} units {moves[-1][0]}"
        question = (f"A delivery robot starts at a charging point and moves {walk}, always along grid lines. "
                    "How many unit steps is the shortest grid route back to the charging point?")
        phrase = f"the number of unit steps on the shortest grid route back to the start after moving {walk}"
        named = [sum(k for _, k in moves), max(abs(x), abs(y)), abs(abs(x) - abs(y))]
        return Produced(question, phrase, value, wrong_values(value, named), {"moves": moves, "form": "return"})
    lo = 0 if difficulty == "easy" else -15
    hi = 20 if difficulty == "easy" else 15
    x1, y1, x2, y2 = (rng.randint(lo, hi) for _ in range(4))
    if x1 == x2 or y1 == y2:
        return None
    if difficulty == "medium" and min(x1, y1, x2, y2) >= 0:
        return None
    dx, dy = abs(x2 - x1), abs(y2 - y1)
    value = dx + dy
    question = (f"On a square grid, a courier walks from point ({x1}, {y1}) to point ({x2}, {y2}), moving only "
                "horizontally or vertically between grid points. What is the smallest number of unit steps the walk can take?")
    phrase = f"the smallest number of horizontal or vertical unit steps from ({x1}, {y1}) to ({x2}, {y2}) on a square grid"
    sign_slip = abs(abs(x2) - abs(x1)) + abs(abs(y2) - abs(y1))
    named = [sign_slip, max(dx, dy), round((dx * dx + dy * dy) ** 0.5)]
    return Produced(question, phrase, value, wrong_values(value, named),
                    {"start": [x1, y1], "end": [x2, y2], "form": "between"})


SPATIAL = Producer(
    "spatial", "distance_direction", "spatial.grid_steps", "shortest paths on a grid (Manhattan distance)",
    lambda rng, d: _redraw(_grid_steps, rng, d),
)


# ---------------------------------------------------------------------------------------------
# temporal: elapsed minutes
# ---------------------------------------------------------------------------------------------


def _hhmm(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _elapsed(rng: random.Random, difficulty: str) -> Produced | None:
    if difficulty == "easy":
        hour = rng.randint(7, 18)
        m1 = rng.randint(0, 40)
        value = rng.randint(5, 59 - m1)
        start, brk = hour * 60 + m1, 0
        named = [value + 1, 60 - value, value + 10]
    elif difficulty == "medium":
        start = rng.randint(7, 18) * 60 + rng.randint(30, 59)
        value = rng.randint(20, 99)
        brk = 0
        if start % 60 + value < 60:  # medium means the interval crosses the hour
            return None
        end = start + value
        decimal_slip = (end // 60 * 100 + end % 60) - (start // 60 * 100 + start % 60)  # clock read as decimals
        named = [decimal_slip, value - 60, value + 60]
    else:
        start = 23 * 60 + rng.randint(0, 55)
        brk = rng.choice((5, 10, 15, 20))
        value = rng.randint(30, 99)
        end = start + value + brk
        named = [value + brk, value - brk, value + 60]  # the break forgotten, counted twice; an hour slip
    end = start + value + brk
    if difficulty == "hard":
        if end < 24 * 60:
            return None
        question = (f"A night maintenance window opens at {_hhmm(start)} and closes at {_hhmm(end)} the next day "
                    f"(24-hour clock). The crew takes a {brk}-minute break inside the window. "
                    "How many minutes of the window are spent working?")
        phrase = (f"the number of working minutes in a maintenance window from {_hhmm(start)} to {_hhmm(end)} "
                  f"the next day, minus a {brk}-minute break")
    else:
        question = (f"A video call starts at {_hhmm(start)} and ends at {_hhmm(end)} the same day (24-hour clock). "
                    "How many minutes does it last?")
        phrase = f"the number of minutes from {_hhmm(start)} to {_hhmm(end)} on the same day"
    return Produced(question, phrase, value, wrong_values(value, named, step=5),
                    {"start": _hhmm(start), "end": _hhmm(end), "break": brk,
                     "overnight": difficulty == "hard"})


TEMPORAL = Producer(
    "temporal", "durations", "temporal.elapsed_minutes", "elapsed time between clock times",
    lambda rng, d: _redraw(_elapsed, rng, d),
)


# ---------------------------------------------------------------------------------------------
# linguistic: the length of an inflected form
# ---------------------------------------------------------------------------------------------

# Regular plurals whose spelling rule matters (-es after sibilants, consonant + y -> ies, -o -> oes).
REGULAR_PLURALS = {
    "box": "boxes", "church": "churches", "city": "cities", "dish": "dishes", "fox": "foxes",
    "lady": "ladies", "baby": "babies", "watch": "watches", "glass": "glasses", "berry": "berries",
    "wish": "wishes", "story": "stories", "party": "parties", "brush": "brushes", "match": "matches",
    "tax": "taxes", "quiz": "quizzes", "country": "countries", "family": "families", "key": "keys",
    "valley": "valleys", "monkey": "monkeys", "hero": "heroes", "potato": "potatoes", "tomato": "tomatoes",
    "library": "libraries", "address": "addresses", "journey": "journeys", "century": "centuries",
}
# Irregular plurals without an accepted regular variant.
IRREGULAR_PLURALS = {
    "child": "children", "mouse": "mice", "goose": "geese", "foot": "feet", "tooth": "teeth",
    "man": "men", "woman": "women", "person": "people", "ox": "oxen", "nucleus": "nuclei",
    "criterion": "criteria", "phenomenon": "phenomena", "analysis": "analyses", "crisis": "crises",
    "thesis": "theses", "knife": "knives", "leaf": "leaves", "wolf": "wolves", "half": "halves",
    "shelf": "shelves", "life": "lives", "loaf": "loaves", "thief": "thieves", "wife": "wives",
}
# Irregular past participles (base: (simple past, past participle)); verbs with accepted regular
# variants (prove, strive, mow, get) are left out.
IRREGULAR_PARTICIPLES = {
    "write": ("wrote", "written"), "choose": ("chose", "chosen"), "forget": ("forgot", "forgotten"),
    "begin": ("began", "begun"), "swim": ("swam", "swum"), "freeze": ("froze", "frozen"),
    "bite": ("bit", "bitten"), "ride": ("rode", "ridden"), "speak": ("spoke", "spoken"),
    "steal": ("stole", "stolen"), "tear": ("tore", "torn"), "seek": ("sought", "sought"),
    "fly": ("flew", "flown"), "draw": ("drew", "drawn"), "drink": ("drank", "drunk"),
    "sing": ("sang", "sung"), "eat": ("ate", "eaten"), "fall": ("fell", "fallen"), "give": ("gave", "given"),
    "hide": ("hid", "hidden"), "shake": ("shook", "shaken"), "take": ("took", "taken"),
    "throw": ("threw", "thrown"), "wear": ("wore", "worn"), "break": ("broke", "broken"),
    "drive": ("drove", "driven"), "grow": ("grew", "grown"), "know": ("knew", "known"),
    "ring": ("rang", "rung"), "forgive": ("forgave", "forgiven"), "mistake": ("mistook", "mistaken"),
    "undertake": ("undertook", "undertaken"), "withdraw": ("withdrew", "withdrawn"), "arise": ("arose", "arisen"),
    "forbid": ("forbade", "forbidden"), "overtake": ("overtook", "overtaken"),
}


def _naive_plural(word: str) -> str:
    return word + "s"


def _form_length(rng: random.Random, difficulty: str) -> Produced:
    if difficulty == "hard":
        word = rng.choice(sorted(IRREGULAR_PARTICIPLES))
        past, form = IRREGULAR_PARTICIPLES[word]
        question = (f"How many letters are in the past participle of the English verb '{word}' "
                    f"(the form used in 'they have ___')?")
        phrase = f"the number of letters in the past participle of the verb '{word}'"
        named = [len(past), len(word) + 2, len(word) + 1]  # simple past; regular "-ed"
        params = {"word": word, "form": "past_participle", "inflected": form}
    else:
        table = REGULAR_PLURALS if difficulty == "easy" else IRREGULAR_PLURALS
        word = rng.choice(sorted(table))
        form = table[word]
        question = f"How many letters are in the plural of the English noun '{word}'?"
        phrase = f"the number of letters in the plural of the noun '{word}'"
        named = [len(_naive_plural(word)), len(word), len(form) + 1]
        params = {"word": word, "form": "plural", "inflected": form}
    value = len(form)
    return Produced(question, phrase, value, wrong_values(value, named), params)


LINGUISTIC = Producer(
    "linguistic", "morphology", "linguistic.form_length", "spelling of irregular and rule-governed word forms",
    _form_length,
)


# ---------------------------------------------------------------------------------------------
# logical: counting with overlapping sets
# ---------------------------------------------------------------------------------------------

_SET_THEMES = (
    ("people in a project team", "speak French", "speak Spanish", "speak German", "speak none of the three languages",
     "speak neither language"),
    ("members of a book club", "read crime novels", "read poetry", "read biographies",
     "read none of the three genres", "read neither genre"),
    ("employees at a branch office", "cycle to work", "take the train", "car-pool",
     "do none of the three", "do neither"),
    ("students in a year group", "play in the orchestra", "sing in the choir", "act in the drama club",
     "take part in none of the three", "take part in neither"),
    ("customers surveyed", "own a tablet", "own a laptop", "own a smartwatch",
     "own none of the three devices", "own neither device"),
)


def _venn_count(rng: random.Random, difficulty: str) -> Produced | None:
    group, p, q, r, none3, none2 = rng.choice(_SET_THEMES)
    if difficulty in ("easy", "medium"):
        a_only, b_only, both = rng.randint(3, 30), rng.randint(3, 30), rng.randint(2, 15)
        neither = rng.randint(2, 30)
        total, a, b = a_only + b_only + both + neither, a_only + both, b_only + both
        facts = f"Of {total} {group}, {a} {p}, {b} {q} and {both} do both."
        if difficulty == "easy":
            value = neither
            question = f"{facts} How many {none2}?"
            phrase = f"the number of the {total} {group} who {none2}, given that {a} {p}, {b} {q} and {both} do both"
            named = [total - a - b, total - a - b + 2 * both, neither + both]
        else:
            value = a_only + b_only
            question = f"{facts} How many do exactly one of the two?"
            phrase = f"the number of the {total} {group} who do exactly one of the two, given that {a} {p}, {b} {q} and {both} do both"
            named = [a + b - both, a + b, total - both]
        params = {"total": total, "a": a, "b": b, "both": both, "asks": "neither" if difficulty == "easy" else "exactly_one"}
        return Produced(question, phrase, value, wrong_values(value, named), params)
    # hard: three sets, inclusion-exclusion with the triple overlap
    regions = {k: rng.randint(1, 9) for k in ("a", "b", "c", "ab", "ac", "bc")}
    abc, neither = rng.randint(1, 6), rng.randint(2, 25)
    a = regions["a"] + regions["ab"] + regions["ac"] + abc
    b = regions["b"] + regions["ab"] + regions["bc"] + abc
    c = regions["c"] + regions["ac"] + regions["bc"] + abc
    ab, ac, bc = regions["ab"] + abc, regions["ac"] + abc, regions["bc"] + abc
    total = sum(regions.values()) + abc + neither
    facts = (f"Of {total} {group}, {a} {p}, {b} {q} and {c} {r}. {ab} do the first two, {ac} the first and third, "
             f"{bc} the second and third, and {abc} do all three.")
    question = f"{facts} How many {none3}?"
    phrase = f"the number of {group} who {none3} (of {total}: {a} {p}, {b} {q}, {c} {r}; {ab}, {ac} and {bc} in the pairwise overlaps; {abc} all three)"
    value = neither
    named = [neither - abc, neither + abc, total - a - b - c + ab + ac + bc - 2 * abc]
    params = {"total": total, "a": a, "b": b, "c": c, "ab": ab, "ac": ac, "bc": bc, "abc": abc, "asks": "none_of_three"}
    return Produced(question, phrase, value, wrong_values(value, named), params)


LOGICAL = Producer(
    "logical", "set_relations", "logical.venn_count", "counting with overlapping sets (inclusion-exclusion)",
    lambda rng, d: _redraw(_venn_count, rng, d),
)


# ---------------------------------------------------------------------------------------------
# social: what someone believes about a count (theory of mind)
# ---------------------------------------------------------------------------------------------

BELIEF_SCENES = (
    ("biscuits", "tin", "kitchen"), ("chairs", "meeting room", "office"), ("folders", "tray", "office"),
    ("plant pots", "shelf", "greenhouse"), ("boxes", "storeroom", "warehouse"), ("pens", "drawer", "studio"),
    ("tickets", "envelope", "box office"), ("spare keys", "key cabinet", "front desk"),
)


_PREPOSITION = {"shelf": "on", "tray": "on", "front desk": "at", "box office": "at"}  # otherwise "in"


def _where(noun: str) -> str:
    """"in the drawer", "on the shelf", "at the front desk"."""
    return f"{_PREPOSITION.get(noun, 'in')} the {noun}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def belief_draw(rng: random.Random, difficulty: str) -> dict:
    """A false-belief scene about a count. Every change is an addition, so any starting count works;
    the believed count is `belief_value(params, start)`."""
    items, place, building = rng.choice(BELIEF_SCENES)
    actor, other = rng.sample(NAMES, 2)
    return {
        "items": items, "place": place, "building": building, "actor": actor, "other": other,
        "seen": rng.randint(2, 9) if difficulty == "medium" else 0,  # an addition the actor watched
        "unseen": rng.randint(2, 9),  # an addition the actor did not see (or, 2nd order, secretly saw)
        "order": 2 if difficulty == "hard" else 1,
    }


def belief_text(p: dict, start: str) -> str:
    """The story and its question; `start` is the starting count as a noun phrase ("12 chairs")."""
    a, b, items, place = p["actor"], p["other"], p["items"], p["place"]
    if p["order"] == 2:
        return (f"{_cap(_where(p['building']))}, {a} puts {start} {_where(place)} and leaves. {b} then adds {p['unseen']} more "
                f"{items}. {a} saw this through the window, but {b} does not know that {a} saw it. "
                f"How many {items} does {b} think {a} believes are {_where(place)}?")
    if p["seen"]:
        return (f"{_cap(_where(p['building']))}, {a} puts {start} {_where(place)}. Before leaving, {a} watches {b} add "
                f"{p['seen']} more {items}. After {a} has left, {b} adds another {p['unseen']} and tells no one. "
                f"When {a} returns, how many {items} does {a} believe are {_where(place)}?")
    return (f"{_cap(_where(p['building']))}, {a} puts {start} {_where(place)} and then goes out. While {a} is away, "
            f"{b} adds {p['unseen']} more {items} to the {place} and does not mention it to anyone. "
            f"When {a} comes back, how many {items} does {a} expect to find {_where(place)}?")


def belief_phrase(p: dict, n: int) -> str:
    """The believed count as a noun phrase (for hiding the story inside another domain's task)."""
    a, b, items, place = p["actor"], p["other"], p["items"], p["place"]
    if p["order"] == 2:
        return (f"the number of {items} that {b} thinks {a} believes are {_where(place)}, after {a} put {n} there and "
                f"left, {b} added {p['unseen']} more, and {a} saw this through the window without {b} knowing")
    if p["seen"]:
        return (f"the number of {items} that {a} believes are {_where(place)}, after {a} put {n} there, watched {b} "
                f"add {p['seen']} more and left, and {b} then secretly added another {p['unseen']}")
    return (f"the number of {items} that {a} expects to find {_where(place)}, after {a} put {n} there and, while "
            f"{a} was away, {b} added {p['unseen']} more without telling anyone")


def belief_value(p: dict, n: int) -> int:
    """The target's belief counts the changes they saw, never the ones they did not; in the
    second-order story the other person thinks the actor saw nothing."""
    return n + p["seen"]


def belief_mistakes(p: dict, n: int) -> list[int]:
    """Reality instead of belief first, then the change alone, then both changes counted twice."""
    actual = n + p["seen"] + p["unseen"]
    if p["order"] == 2:
        return [actual, p["unseen"], n + 2 * p["unseen"]]
    if p["seen"]:
        return [actual, n, n + p["unseen"]]
    return [actual, p["unseen"], n + 2 * p["unseen"]]


def _belief_count(rng: random.Random, difficulty: str) -> Produced:
    n = rng.randint(6, 80)
    p = belief_draw(rng, difficulty)
    value = belief_value(p, n)
    return Produced(belief_text(p, f"{n} {p['items']}"), belief_phrase(p, n), value,
                    wrong_values(value, belief_mistakes(p, n)), {**p, "start": n})


SOCIAL = Producer(
    "social", "theory_of_mind", "social.belief_count", "tracking what another person knows (false belief)",
    _belief_count,
)


# ---------------------------------------------------------------------------------------------
# factual: atomic numbers
# ---------------------------------------------------------------------------------------------


def _atomic_number(rng: random.Random, difficulty: str) -> Produced:
    z = rng.choice(elements.FAMILIAR[difficulty])
    element = elements.name(z)
    return Produced(
        question=f"What is the atomic number of {element}?",
        phrase=f"the atomic number of {element}",
        value=z,
        wrong=wrong_values(z, [z + 1, z - 1, z + 2]),
        params={"element": element},
    )


FACTUAL = Producer(
    "factual", "science", "factual.atomic_number", "atomic numbers of the chemical elements", _atomic_number,
)


# ---------------------------------------------------------------------------------------------
# procedural: tracing stack and queue operations
# ---------------------------------------------------------------------------------------------


def _trace(rng: random.Random, difficulty: str) -> Produced | None:
    structure = "queue" if difficulty == "medium" else "stack"
    n_push = {"easy": 4, "medium": 5, "hard": 6}[difficulty]  # at least three other pushed values to offer
    values = rng.sample(range(2, 100), n_push)
    ops: list[tuple[str, int | None]] = []
    held: list[int] = []
    removed: list[int] = []
    pushes = list(values)
    while pushes:
        ops.append(("push", pushes.pop(0)))
        held.append(ops[-1][1])
        if len(held) >= 2 and rng.random() < (0.3 if difficulty == "easy" else 0.5):
            removed.append(held.pop() if structure == "stack" else held.pop(0))
            ops.append(("pop", None))
    removed.append(held.pop() if structure == "stack" else held.pop(0))
    ops.append(("pop", None))
    if not held:
        return None
    value = held[-1] if structure == "stack" else held[0]
    other = _simulate(ops, "queue" if structure == "stack" else "stack")
    named = [w for w in (other, values[-1], removed[-1], held[0] if structure == "stack" else held[-1]) if w is not None]
    verb_in, verb_out = ("push", "pop") if structure == "stack" else ("enqueue", "dequeue")
    listing = ", ".join(f"{verb_in} {v}" if op == "push" else verb_out for op, v in ops)
    where = "on top of the stack" if structure == "stack" else "at the front of the queue"
    question = (f"Start with an empty {structure}. Carry out these operations in order: {listing}. "
                f"Which number is now {where}?")
    phrase = f"the number {where} after these operations on an empty {structure}: {listing}"
    # wrong values are only values that were pushed: a number never pushed gives itself away
    pushed = [v for op, v in ops if op == "push"]
    named = [w for w in named if w in pushed] + pushed
    return Produced(question, phrase, value, wrong_values(value, named), {"structure": structure, "ops": ops})


def _simulate(ops: list, structure: str) -> int | None:
    held: list[int] = []
    for op, v in ops:
        if op == "push":
            held.append(v)
        elif held:
            held.pop() if structure == "stack" else held.pop(0)
    if not held:
        return None
    return held[-1] if structure == "stack" else held[0]


PROCEDURAL = Producer(
    "procedural", "algorithm_execution", "procedural.stack_trace", "tracing stack and queue operations",
    lambda rng, d: _redraw(_trace, rng, d),
)

PRODUCERS: dict[str, Producer] = {
    p.domain: p for p in (ARITHMETIC, SPATIAL, TEMPORAL, LINGUISTIC, LOGICAL, SOCIAL, FACTUAL, PROCEDURAL)
}
