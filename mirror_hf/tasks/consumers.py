"""One consumer per domain: a step that takes a whole number in `VALUE_RANGE` as its input.

`draw` fixes everything except the input; `text(params, ref)` renders the step with the input shown
as a literal, as the composite task's variable X, or as a noun phrase; `solve(params, n)` computes
the gold answer and `mistakes(params, n)` the wrong answers people produce.
"""

from __future__ import annotations

import random

from mirror_hf.bank._wording import NAMES
from mirror_hf.tasks import elements, numwords
from mirror_hf.tasks.chain import Consumer, Ref
from mirror_hf.tasks.producers import belief_draw, belief_mistakes, belief_text, belief_value

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


# ---------------------------------------------------------------------------------------------
# arithmetic: a word problem on the input
# ---------------------------------------------------------------------------------------------

_ITEMS = (("pencils", "box", "boxes"), ("bolts", "bag", "bags"), ("cups", "crate", "crates"),
          ("labels", "sheet", "sheets"), ("samples", "rack", "racks"))


def _order_draw(rng: random.Random, difficulty: str) -> dict:
    items, unit, units = rng.choice(_ITEMS)
    if difficulty == "easy":
        return {"form": "units", "items": items, "unit": unit, "units": units, "k": rng.randint(3, 12)}
    if difficulty == "medium":
        k = rng.randint(4, 15)
        return {"form": "coupon", "k": k, "coupon": rng.randint(2, 2 * k - 1), "name": rng.choice(NAMES)}
    return {"form": "spares", "items": items, "teams": rng.choice((20, 40, 60)), "pct": 15}


def _order_text(p: dict, ref: Ref) -> str:
    if p["form"] == "units":
        return f"Each {p['unit']} holds {ref.count(p['items'])}. How many {p['items']} are there in {p['k']} full {p['units']}?"
    if p["form"] == "coupon":
        return (f"A ticket costs {ref.count('dollars')}. {p['name']} buys {p['k']} tickets and uses a coupon worth "
                f"{p['coupon']} dollars off the total. How many dollars does {p['name']} pay?")
    return (f"A workshop needs {ref.count(p['items'])} per team, and {p['teams']} teams take part. The organiser "
            f"orders {p['pct']}% extra on top of the total as spares, rounding up to a whole number. "
            f"How many {p['items']} are ordered in all?")


def _order_value(p: dict, n: int) -> int:
    if p["form"] == "units":
        return p["k"] * n
    if p["form"] == "coupon":
        return p["k"] * n - p["coupon"]
    total = p["teams"] * n
    return -(-total * (100 + p["pct"]) // 100)  # ceiling without floats


def _order_mistakes(p: dict, n: int) -> list[str]:
    if p["form"] == "units":
        wrong = [p["k"] + n, (p["k"] - 1) * n, p["k"] * (n + 1)]
    elif p["form"] == "coupon":
        wrong = [p["k"] * (n - p["coupon"]), p["k"] * n + p["coupon"], p["k"] * n]
    else:
        total = p["teams"] * n
        wrong = [total, total + p["pct"], total * (100 + p["pct"]) // 100 - 1, -(-n * (100 + p["pct"]) // 100) * p["teams"]]
    return [str(w) for w in wrong if w > 0]


ARITHMETIC = Consumer(
    "arithmetic", "word_problems", "arithmetic.order_total", "exact_numeric",
    _order_draw, _order_text, lambda p, n: str(_order_value(p, n)), _order_mistakes,
)


# ---------------------------------------------------------------------------------------------
# spatial: where a robot ends up
# ---------------------------------------------------------------------------------------------

_HEADINGS = ("north", "east", "south", "west")
_STEP = {"north": (0, 1), "east": (1, 0), "south": (0, -1), "west": (-1, 0)}


def _walk_draw(rng: random.Random, difficulty: str) -> dict:
    if difficulty == "easy":
        return {"face": "north", "turns": [], "legs": [rng.randint(2, 30)], "first_turn": rng.choice(("right", "left"))}
    n_turns = 2 if difficulty == "medium" else 3
    return {
        "face": rng.choice(_HEADINGS),
        "turns": [rng.choice(("left", "right")) for _ in range(n_turns)],
        "legs": [rng.randint(2, 30) for _ in range(n_turns)],
    }


def _walk(p: dict, n: int, *, flip: bool = False) -> tuple[int, int]:
    """Final (x, y); `flip` swaps left and right (the classic slip)."""
    heading = _HEADINGS.index(p["face"])
    x, y = _move(0, 0, _HEADINGS[heading], n)
    turns = p["turns"] or [p["first_turn"]]
    for turn, leg in zip(turns, p["legs"]):
        right = (turn == "right") != flip
        heading = (heading + (1 if right else -1)) % 4
        x, y = _move(x, y, _HEADINGS[heading], leg)
    return x, y


def _move(x: int, y: int, heading: str, k: int) -> tuple[int, int]:
    dx, dy = _STEP[heading]
    return x + dx * k, y + dy * k


def _point(xy: tuple[int, int]) -> str:
    return f"({xy[0]}, {xy[1]})"


def _walk_text(p: dict, ref: Ref) -> str:
    turns = p["turns"] or [p["first_turn"]]
    steps = [f"drives forward {ref.count('metres')}"]
    steps += [f"turns {t} (90 degrees) and drives {leg} metres" for t, leg in zip(turns, p["legs"])]
    return (f"A survey robot starts at (0, 0) on a site plan where east is +x and north is +y, facing {p['face']}. "
            f"It {', then '.join(steps)}. What are its final coordinates (x, y)?")


def _walk_mistakes(p: dict, n: int) -> list[str]:
    x, y = _walk(p, n)
    return [_point(_walk(p, n, flip=True)), _point((y, x)), _point((-x, y)), _point((x, -y))]


def _walk_aliases(p: dict, n: int) -> tuple[str, ...]:
    x, y = _walk(p, n)
    return (f"{x}, {y}", f"({x},{y})", f"x = {x}, y = {y}")


SPATIAL = Consumer(
    "spatial", "distance_direction", "spatial.robot_walk", "short_text",
    _walk_draw, _walk_text, lambda p, n: _point(_walk(p, n)), _walk_mistakes, _walk_aliases,
)


# ---------------------------------------------------------------------------------------------
# temporal: when something finishes
# ---------------------------------------------------------------------------------------------


def _clock(minutes: int) -> str:
    minutes %= 24 * 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _finish_draw(rng: random.Random, difficulty: str) -> dict:
    if difficulty == "easy":
        return {"form": "meeting", "start": rng.randrange(7 * 60, 17 * 60, 5)}
    if difficulty == "medium":
        return {"form": "batches", "start": rng.randrange(6 * 60, 14 * 60, 5), "batches": 3, "changeover": 5}
    return {"form": "transit", "day": rng.randrange(7), "start": rng.randrange(6 * 60, 22 * 60, 30)}


def _finish_text(p: dict, ref: Ref) -> str:
    if p["form"] == "meeting":
        return (f"A planning meeting starts at {_clock(p['start'])} and lasts {ref.count('minutes')}. "
                "At what time does it end (24-hour clock, HH:MM)?")
    if p["form"] == "batches":
        return (f"A kiln fires one batch in {ref.count('minutes')}. {p['batches']} batches run back to back, with a "
                f"{p['changeover']}-minute changeover between consecutive batches, and the first batch starts at "
                f"{_clock(p['start'])}. At what time does the last batch finish (24-hour clock, HH:MM)?")
    return (f"A freight shipment leaves on {DAYS[p['day']]} at {_clock(p['start'])} and is in transit for "
            f"{ref.count('hours')}, with no time-zone change. On what day and at what time does it arrive "
            "(for example 'Monday 14:00')?")


def _finish_minutes(p: dict, n: int, *, slip: str = "") -> int:
    if p["form"] == "meeting":
        return p["start"] + n
    if p["form"] == "batches":
        gaps = p["batches"] - 1 if slip != "gaps" else p["batches"]
        gaps = 0 if slip == "no_gaps" else gaps
        return p["start"] + p["batches"] * n + gaps * p["changeover"]
    return p["day"] * 1440 + p["start"] + n * 60


def _finish_format(p: dict, total: int) -> str:
    if p["form"] == "transit":
        return f"{DAYS[(total // 1440) % 7]} {_clock(total)}"
    return _clock(total)


def _finish_solve(p: dict, n: int) -> str:
    return _finish_format(p, _finish_minutes(p, n))


def _finish_mistakes(p: dict, n: int) -> list[str]:
    t = _finish_minutes(p, n)
    if p["form"] == "meeting":
        wrong = [t + 60, t - 60, t + 10]
    elif p["form"] == "batches":
        wrong = [_finish_minutes(p, n, slip="no_gaps"), _finish_minutes(p, n, slip="gaps"), t - n]
    else:
        wrong = [t + 1440, t - 1440, t + 12 * 60, t - 12 * 60]  # a day off; a.m./p.m. confusion
    return [_finish_format(p, w) for w in wrong]


def _finish_aliases(p: dict, n: int) -> tuple[str, ...]:
    if p["form"] != "transit":
        return ()
    day, time = _finish_solve(p, n).split(" ")
    return (f"{day} at {time}", f"{day}, {time}", f"{time} on {day}")


TEMPORAL = Consumer(
    "temporal", "durations", "temporal.finish_time", "short_text",
    _finish_draw, _finish_text, _finish_solve, _finish_mistakes, _finish_aliases,
)


# ---------------------------------------------------------------------------------------------
# linguistic: the number in words
# ---------------------------------------------------------------------------------------------

_MISSPELL = (("forty", "fourty"), ("ninety", "ninty"), ("eighth", "eigth"), ("ninth", "nineth"),
             ("twelfth", "twelveth"), ("fifth", "fiveth"))


def _misspelt(words: str) -> str:
    for right, wrong in _MISSPELL:
        if right in words:
            return words.replace(right, wrong)
    return ""


def _swap_digits(n: int) -> int | None:
    swapped = int(str(n)[::-1]) if n >= 10 else None
    return swapped if swapped and swapped != n and swapped % 10 else None


def _words_draw(rng: random.Random, difficulty: str) -> dict:
    return {"form": {"easy": "cardinal", "medium": "ordinal", "hard": "letters"}[difficulty],
            "context": rng.choice(("a cheque", "a legal contract", "a formal invitation", "a printed certificate"))}


def _words_text(p: dict, ref: Ref) -> str:
    if p["form"] == "cardinal":
        return (f"On {p['context']}, numbers are also written out in words. How is {ref.number()} written "
                "in English words?")
    if p["form"] == "ordinal":
        return (f"On {p['context']}, ordinals are written out in words (as in 'the twenty-first of May'). "
                f"Write the ordinal of {ref.number()} in English words.")
    return (f"Write {ref.number()} out in English words, as on {p['context']}. How many letters does the "
            "written form contain (hyphens and spaces are not letters)?")


def _words_solve(p: dict, n: int) -> str:
    if p["form"] == "cardinal":
        return numwords.cardinal(n)
    if p["form"] == "ordinal":
        return numwords.ordinal(n)
    return str(numwords.letter_count(numwords.cardinal(n)))


def _words_mistakes(p: dict, n: int) -> list[str]:
    swapped = _swap_digits(n)
    if p["form"] == "letters":
        words = numwords.cardinal(n)
        wrong = [len(words), numwords.letter_count(_misspelt(words)) if _misspelt(words) else None,
                 numwords.letter_count(numwords.cardinal(swapped)) if swapped else None,
                 numwords.letter_count(words) + 1, numwords.letter_count(words) - 1]
        return [str(w) for w in wrong if w]
    spell = numwords.cardinal if p["form"] == "cardinal" else numwords.ordinal
    right = spell(n)
    wrong = [_misspelt(right), numwords.naive_ordinal(n) if p["form"] == "ordinal" else "",
             spell(swapped) if swapped else "", spell(n + 10) if n + 10 < 1000 else "",
             spell(n + 1), spell(n - 1)]
    return [w for w in wrong if w]


def _words_aliases(p: dict, n: int) -> tuple[str, ...]:
    if p["form"] == "letters":
        return ()
    right = _words_solve(p, n)
    return (numwords.spaced(right),) if "-" in right else ()


LINGUISTIC = Consumer(
    "linguistic", "morphology", "linguistic.number_words", "short_text",
    _words_draw, _words_text, _words_solve, _words_mistakes, _words_aliases,
)


# ---------------------------------------------------------------------------------------------
# logical: the first rule that applies
# ---------------------------------------------------------------------------------------------

_LABEL_SETS = (
    ("red", "blue", "green", "yellow"),
    ("gold", "silver", "bronze", "plain"),
    ("Lane 1", "Lane 2", "Lane 3", "Lane 4"),
    ("urgent", "high", "normal", "low"),
    ("Bin A", "Bin B", "Bin C", "Bin D"),
)


def _rules_draw(rng: random.Random, difficulty: str) -> dict:
    labels = list(rng.choice(_LABEL_SETS))
    rng.shuffle(labels)
    if difficulty == "easy":
        t1 = rng.randint(8, 40)
        rules = [["below", t1], ["even"], ["below", rng.randint(t1 + 10, 90)]]
    elif difficulty == "medium":
        t = rng.randint(20, 70)
        rules = [["odd_above", t], ["even_above", t], ["multiple", rng.choice((3, 4, 5))]]
    else:
        d1 = rng.choice((3, 5, 7))  # odd, so "divisible by d1 but not by 2" can happen
        d2 = rng.choice([d for d in (3, 4, 5, 7) if d != d1])
        rules = [["div_not", d1, 2], ["not_div_above", d1, rng.randint(20, 70)], ["div_either", 2 * d1, d2]]
    return {"labels": labels, "rules": rules}


def _holds(rule: list, n: int) -> bool:
    kind = rule[0]
    if kind == "below":
        return n < rule[1]
    if kind == "even":
        return n % 2 == 0
    if kind == "odd_above":
        return n % 2 == 1 and n > rule[1]
    if kind == "even_above":
        return n % 2 == 0 and n > rule[1]
    if kind == "multiple":
        return n % rule[1] == 0
    if kind == "div_not":
        return n % rule[1] == 0 and n % rule[2] != 0
    if kind == "not_div_above":
        return n % rule[1] != 0 and n > rule[2]
    if kind == "div_either":
        return n % rule[1] == 0 or n % rule[2] == 0
    raise ValueError(f"unknown rule {rule!r}")


def _describe(rule: list) -> str:
    kind = rule[0]
    return {
        "below": lambda: f"the number is less than {rule[1]}",
        "even": lambda: "the number is even",
        "odd_above": lambda: f"the number is odd and greater than {rule[1]}",
        "even_above": lambda: f"the number is even and greater than {rule[1]}",
        "multiple": lambda: f"the number is a multiple of {rule[1]}",
        "div_not": lambda: f"the number is divisible by {rule[1]} but not by {rule[2]}",
        "not_div_above": lambda: f"the number is not divisible by {rule[1]} and is greater than {rule[2]}",
        "div_either": lambda: f"the number is divisible by {rule[1]} or by {rule[2]}",
    }[kind]()


def _rules_text(p: dict, ref: Ref) -> str:
    lines = [f"{i}) If {_describe(rule)}, the label is {label}." for i, (rule, label) in enumerate(zip(p["rules"], p["labels"]), 1)]
    lines.append(f"{len(lines) + 1}) Otherwise, the label is {p['labels'][3]}.")
    return ("A sorting system checks these rules from top to bottom and applies the first one that fits:\n"
            + "\n".join(lines) + f"\nWhich label does the system give to {ref.number()}?")


def _first_rule(p: dict, n: int, order: list[int] | None = None) -> str:
    for i in order or range(3):
        if _holds(p["rules"][i], n):
            return p["labels"][i]
    return p["labels"][3]


def _rules_mistakes(p: dict, n: int) -> list[str]:
    last_match = _first_rule(p, n, [2, 1, 0])  # reading the rules bottom-up
    return [last_match, *[label for label in p["labels"] if label != _first_rule(p, n)]]


LOGICAL = Consumer(
    "logical", "conditional_reasoning", "logical.first_rule", "short_text",
    _rules_draw, _rules_text, _first_rule, _rules_mistakes,
)


# ---------------------------------------------------------------------------------------------
# social: what someone believes, starting from the input count
# ---------------------------------------------------------------------------------------------

SOCIAL = Consumer(
    "social", "theory_of_mind", "social.belief_from_count", "exact_numeric",
    belief_draw,
    lambda p, ref: belief_text(p, ref.count(p["items"])),
    lambda p, n: str(belief_value(p, n)),
    lambda p, n: [str(w) for w in belief_mistakes(p, n) if w > 0],
)


# ---------------------------------------------------------------------------------------------
# factual: the element with a given atomic number
# ---------------------------------------------------------------------------------------------


def _element_draw(rng: random.Random, difficulty: str) -> dict:
    return {"asks": {"easy": "name", "medium": "symbol", "hard": "period"}[difficulty]}


def _element_text(p: dict, ref: Ref) -> str:
    which = f"the chemical element whose atomic number is {ref.number()}"
    if p["asks"] == "name":
        return f"What is the name of {which}?"
    if p["asks"] == "symbol":
        return f"What is the chemical symbol of {which}?"
    return f"In which period (row) of the periodic table is {which}?"


def _element_solve(p: dict, n: int) -> str:
    return {"name": elements.name, "symbol": elements.symbol, "period": lambda z: str(elements.period(z))}[p["asks"]](n)


def _element_mistakes(p: dict, n: int) -> list[str]:
    if p["asks"] == "period":
        right = elements.period(n)
        return [str(w) for w in (right + 1, right - 1, right + 2, right - 2, right + 3, right - 3) if 1 <= w <= 7]
    neighbours = [z for z in (n + 1, n - 1, n + 2, n - 2) if 1 <= z <= elements.MAX_Z]
    if p["asks"] == "symbol":
        first_letters = elements.name(n)[:2].title()  # "Ir" for iron, "So" for sodium
        return [first_letters, *(elements.symbol(z) for z in neighbours)]
    return [elements.name(z) for z in neighbours]


def _element_aliases(p: dict, n: int) -> tuple[str, ...]:
    return elements.name_aliases(n) if p["asks"] == "name" else ()


FACTUAL = Consumer(
    "factual", "science", "factual.element_of", "short_text",
    _element_draw, _element_text, _element_solve, _element_mistakes, _element_aliases,
)


# ---------------------------------------------------------------------------------------------
# procedural: run a short procedure on the input
# ---------------------------------------------------------------------------------------------


def _steps_draw(rng: random.Random, difficulty: str) -> dict:
    if difficulty == "easy":
        return {"form": "three_steps", "add": rng.randint(2, 9), "limit": rng.randint(25, 60), "minus": rng.randint(5, 20)}
    return {"form": "rounds", "rounds": 3 if difficulty == "medium" else 6, "times": 3, "plus": rng.choice((1, 3, 5))}


def _steps_text(p: dict, ref: Ref) -> str:
    if p["form"] == "three_steps":
        return (f"Start with {ref.number()} and follow these steps in order.\n"
                "Step 1: if the number is even, halve it; otherwise add 1.\n"
                f"Step 2: add {p['add']}.\n"
                f"Step 3: if the result is greater than {p['limit']}, subtract {p['minus']}; otherwise double it.\n"
                "What number do you end with?")
    return (f"Start with {ref.number()}. Do {p['rounds']} rounds of this rule, each round applied to the result "
            f"of the previous one: if the number is even, halve it; otherwise multiply it by {p['times']} and add "
            f"{p['plus']}. What number do you have after the last round?")


def _round(p: dict, x: int, *, flip: bool = False) -> int:
    even = (x % 2 == 0) != flip
    return x // 2 if even else p["times"] * x + p["plus"]


def _three_steps(p: dict, n: int, *, flip_first: bool = False, flip_last: bool = False, skip_add: bool = False) -> int:
    x = n // 2 if (n % 2 == 0) != flip_first else n + 1
    y = x if skip_add else x + p["add"]
    return y - p["minus"] if (y > p["limit"]) != flip_last else 2 * y


def _rounds(p: dict, n: int, count: int, *, flip_first: bool = False) -> int:
    x = n
    for k in range(count):
        x = _round(p, x, flip=flip_first and k == 0)
    return x


def _steps_solve(p: dict, n: int) -> str:
    if p["form"] == "three_steps":
        return str(_three_steps(p, n))
    return str(_rounds(p, n, p["rounds"]))


def _steps_mistakes(p: dict, n: int) -> list[str]:
    """A branch taken the wrong way, a step skipped, a round too few or too many."""
    if p["form"] == "three_steps":
        wrong = [_three_steps(p, n, flip_first=True), _three_steps(p, n, flip_last=True), _three_steps(p, n, skip_add=True)]
    else:
        r = p["rounds"]
        wrong = [_rounds(p, n, r, flip_first=True), _rounds(p, n, r - 1), _rounds(p, n, r + 1)]
    return [str(w) for w in wrong if w >= 0]


PROCEDURAL = Consumer(
    "procedural", "algorithm_execution", "procedural.run_steps", "exact_numeric",
    _steps_draw, _steps_text, _steps_solve, _steps_mistakes,
)

CONSUMERS: dict[str, Consumer] = {
    c.domain: c for c in (ARITHMETIC, SPATIAL, TEMPORAL, LINGUISTIC, LOGICAL, SOCIAL, FACTUAL, PROCEDURAL)
}

