"""Independent solvers for the task banks' chain links (tests only).

Each solver recomputes a gold answer by another route than the generator: arithmetic by evaluating
the expression printed in the text, grid paths and Venn counts from the numbers in the text, robot
walks with complex numbers, clock times with `datetime`, beliefs by simulating who saw what, number
words with a speller written here, elements from `periodictable`, word forms from `inflect` (plurals)
and `lemminflect` (past participles). Nothing is imported from `mirror_hf.tasks`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import deque
from fractions import Fraction

import inflect
import lemminflect
import periodictable

from mirror_hf.bank._core import Item, check_item
from mirror_hf.records import ANSWER_TYPES, DIFFICULTIES, DOMAINS, Question

# ------------------------------------------------------------------------------------------
# producers: the number a step yields (from the question or from the phrase that names it)
# ------------------------------------------------------------------------------------------


def producer_value(params: dict, text: str) -> int:
    kind = params["kind"]
    if kind == "arithmetic.expression":
        expr = re.search(r"value of ([\d\s×÷−+()]+?)\??$", text.strip()).group(1)
        python = expr.replace("×", "*").replace("÷", "/").replace("−", "-")
        assert re.fullmatch(r"[\d\s()+\-*/]+", python)
        value = eval(python)  # noqa: S307 - digits and operators only (checked above)
        assert float(value).is_integer(), f"{expr} = {value} is not a whole number"
        return int(value)
    if kind == "spatial.grid_steps":
        if params["form"] == "between":
            x1, y1, x2, y2 = map(int, re.search(r"\((-?\d+), (-?\d+)\) to (?:point )?\((-?\d+), (-?\d+)\)", text).groups())
            return abs(x2 - x1) + abs(y2 - y1)
        position = 0j
        unit = {"north": 1j, "south": -1j, "east": 1, "west": -1}
        for k, heading in re.findall(r"(\d+) units (north|east|south|west)", text):
            position += int(k) * unit[heading]
        return int(abs(position.real) + abs(position.imag))
    if kind == "temporal.elapsed_minutes":
        day = dt.date(2024, 3, 9)
        start = dt.datetime.combine(day, dt.time.fromisoformat(params["start"]))
        end = dt.datetime.combine(day + dt.timedelta(days=1 if params["overnight"] else 0), dt.time.fromisoformat(params["end"]))
        assert params["start"] in text and params["end"] in text
        return int((end - start).total_seconds() // 60) - params["break"]
    if kind == "linguistic.form_length":
        assert f"'{params['word']}'" in text
        if "past participle" in text:
            form = lemminflect.getInflection(params["word"], "VBN")[0]
        else:
            assert "plural" in text
            form = plural(params["word"])
        return sum(ch.isalpha() for ch in form)
    if kind == "logical.venn_count":
        return _venn(params, text)
    if kind == "social.belief_count":
        return belief(params, params["start"])
    if kind == "factual.atomic_number":
        named = re.search(r"atomic number of (\w+)", text).group(1)
        assert named == params["element"], (named, params)
        return element_by_name(named).number
    if kind == "procedural.stack_trace":
        held: deque = deque()
        for op, value in params["ops"]:
            if op == "push":
                held.append(value)
            else:
                held.pop() if params["structure"] == "stack" else held.popleft()
        verbs = ("push", "pop") if params["structure"] == "stack" else ("enqueue", "dequeue")
        listing = ", ".join(f"{verbs[0]} {v}" if op == "push" else verbs[1] for op, v in params["ops"])
        assert listing in text, (listing, text)
        return held[-1] if params["structure"] == "stack" else held[0]
    raise AssertionError(f"no oracle for producer kind {kind}")


# periodictable spells three names the American way; the task banks use IUPAC's spellings
_IUPAC = {"aluminum": "aluminium", "cesium": "caesium"}


def element_name(z: int) -> str:
    """IUPAC name of element z, from periodictable."""
    name = periodictable.elements[z].name
    return _IUPAC.get(name, name)


def element_by_name(name: str):
    reverse = {v: k for k, v in _IUPAC.items()}
    return getattr(periodictable, reverse.get(name, name))


_INFLECT = inflect.engine()
# where inflect's modern mode gives a form dictionaries do not (checked against Merriam-Webster)
_PLURAL_FIXES = {"thief": "thieves"}


def plural(noun: str) -> str:
    """The English plural of a noun, from inflect."""
    return _PLURAL_FIXES.get(noun) or _INFLECT.plural_noun(noun)


def _venn(params: dict, text: str) -> int:
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    if params["asks"] == "none_of_three":
        total, a, b, c, ab, ac, bc, abc = numbers[:8]
        counter = iter(range(10**6))
        take = lambda k: {next(counter) for _ in range(k)}  # noqa: E731
        all3 = take(abc)
        ab_only, ac_only, bc_only = take(ab - abc), take(ac - abc), take(bc - abc)
        a_set = all3 | ab_only | ac_only | take(a - (ab - abc) - (ac - abc) - abc)
        b_set = all3 | ab_only | bc_only | take(b - (ab - abc) - (bc - abc) - abc)
        c_set = all3 | ac_only | bc_only | take(c - (ac - abc) - (bc - abc) - abc)
        assert (len(a_set), len(b_set), len(c_set)) == (a, b, c)
        assert (len(a_set & b_set), len(a_set & c_set), len(b_set & c_set), len(a_set & b_set & c_set)) == (ab, ac, bc, abc)
        return total - len(a_set | b_set | c_set)
    total, a, b, both = numbers[:4]
    a_set = set(range(a))
    b_set = set(range(a - both, a - both + b))
    assert len(a_set & b_set) == both
    if params["asks"] == "neither":
        return total - len(a_set | b_set)
    return len(a_set ^ b_set)


def belief(params: dict, start: int) -> int:
    """Simulate the scene: each addition is recorded with whether the actor saw it, and whether the
    other person knows the actor saw it. The asked-for belief counts only what its holder thinks
    the actor witnessed."""
    events = []
    if params["seen"]:
        events.append({"k": params["seen"], "actor_saw": True, "other_knows_actor_saw": True})
    second_order = params["order"] == 2
    events.append({"k": params["unseen"], "actor_saw": second_order, "other_knows_actor_saw": False})
    key = "other_knows_actor_saw" if second_order else "actor_saw"
    return start + sum(e["k"] for e in events if e[key])


# ------------------------------------------------------------------------------------------
# consumers: the answer a step gives for input n
# ------------------------------------------------------------------------------------------

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}
_ORDINAL_WORD = {
    "one": "first", "two": "second", "three": "third", "four": "fourth", "five": "fifth", "six": "sixth",
    "seven": "seventh", "eight": "eighth", "nine": "ninth", "ten": "tenth", "eleven": "eleventh", "twelve": "twelfth",
    "thirteen": "thirteenth", "fourteen": "fourteenth", "fifteen": "fifteenth", "sixteen": "sixteenth",
    "seventeen": "seventeenth", "eighteen": "eighteenth", "nineteen": "nineteenth", "twenty": "twentieth",
    "thirty": "thirtieth", "forty": "fortieth", "fifty": "fiftieth", "sixty": "sixtieth", "seventy": "seventieth",
    "eighty": "eightieth", "ninety": "ninetieth",
}
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def spell(n: int) -> str:
    assert 0 <= n < 100
    if n < 20:
        return _ONES[n]
    tens, ones = divmod(n, 10)
    return _TENS[tens] if ones == 0 else f"{_TENS[tens]}-{_ONES[ones]}"


def spell_ordinal(n: int) -> str:
    words = spell(n).split("-")
    words[-1] = _ORDINAL_WORD[words[-1]]
    return "-".join(words)


def consumer_answer(params: dict, n: int, text: str | None = None) -> str:
    kind = params["kind"]
    if kind == "arithmetic.order_total":
        if params["form"] == "units":
            return str(params["k"] * n)
        if params["form"] == "coupon":
            return str(params["k"] * n - params["coupon"])
        return str(math.ceil(Fraction(params["teams"] * n) * (1 + Fraction(params["pct"], 100))))
    if kind == "spatial.robot_walk":
        heading = {"north": 1j, "east": 1, "south": -1j, "west": -1}[params["face"]]
        position = heading * n
        for turn, leg in zip(params["turns"] or [params["first_turn"]], params["legs"]):
            heading *= -1j if turn == "right" else 1j
            position += heading * leg
        return f"({int(position.real)}, {int(position.imag)})"
    if kind == "temporal.finish_time":
        monday = dt.datetime(2024, 1, 1)  # a Monday
        start = monday + dt.timedelta(days=params.get("day", 0), minutes=params["start"])
        if params["form"] == "meeting":
            return (start + dt.timedelta(minutes=n)).strftime("%H:%M")
        if params["form"] == "batches":
            run = params["batches"] * n + (params["batches"] - 1) * params["changeover"]
            return (start + dt.timedelta(minutes=run)).strftime("%H:%M")
        arrival = start + dt.timedelta(hours=n)
        assert _WEEKDAYS[arrival.weekday()] == arrival.strftime("%A")
        return arrival.strftime("%A %H:%M")
    if kind == "linguistic.number_words":
        if params["form"] == "cardinal":
            return spell(n)
        if params["form"] == "ordinal":
            return spell_ordinal(n)
        return str(len(spell(n).replace("-", "")))
    if kind == "logical.first_rule":
        return _first_rule_from_text(text, n)
    if kind == "social.belief_from_count":
        return str(belief(params, n))
    if kind == "factual.element_of":
        if params["asks"] == "name":
            return element_name(n)
        if params["asks"] == "symbol":
            return periodictable.elements[n].symbol
        return str(1 + sum(n > end for end in (2, 10, 18, 36, 54, 86)))
    if kind == "procedural.run_steps":
        if params["form"] == "three_steps":
            x = n + 1 if n % 2 else n // 2
            x = x + params["add"]
            return str(x - params["minus"] if x > params["limit"] else x * 2)
        x = n
        for _ in range(params["rounds"]):
            x = params["times"] * x + params["plus"] if x % 2 else x // 2
        return str(x)
    raise AssertionError(f"no oracle for consumer kind {kind}")


_RULE = re.compile(r"^\d\) If the number (?P<cond>.+), the label is (?P<label>.+)\.$")


def _first_rule_from_text(text: str, n: int) -> str:
    """Read the rule lines of the question and apply the first that holds."""
    assert text is not None, "the rule consumer is checked from its text"
    for line in text.splitlines():
        m = _RULE.match(line)
        if m and _condition(m["cond"], n):
            return m["label"]
        other = re.match(r"^\d\) Otherwise, the label is (.+)\.$", line)
        if other:
            return other.group(1)
    raise AssertionError(f"no rule applied in {text!r}")


def _condition(cond: str, n: int) -> bool:
    patterns = [
        (r"is less than (\d+)", lambda t: n < t),
        (r"is even", lambda: n % 2 == 0),
        (r"is odd and greater than (\d+)", lambda t: n % 2 == 1 and n > t),
        (r"is even and greater than (\d+)", lambda t: n % 2 == 0 and n > t),
        (r"is a multiple of (\d+)", lambda d: n % d == 0),
        (r"is divisible by (\d+) but not by (\d+)", lambda d, e: n % d == 0 and n % e != 0),
        (r"is not divisible by (\d+) and is greater than (\d+)", lambda d, t: n % d != 0 and n > t),
        (r"is divisible by (\d+) or by (\d+)", lambda d, e: n % d == 0 or n % e == 0),
    ]
    for pattern, test in patterns:
        m = re.fullmatch(pattern, cond)
        if m:
            return test(*map(int, m.groups()))
    raise AssertionError(f"unreadable rule condition {cond!r}")


# ------------------------------------------------------------------------------------------
# Questions
# ------------------------------------------------------------------------------------------


def assert_valid_question(row: dict, domain: str) -> Question:
    """A component is a Question of its domain: it round-trips, passes the bank's gates, has four
    distinct choices holding the answer, and (when the domain's module exists) a registered subcategory."""
    from mirror_hf.bank import available_domains, load_domain

    q = Question.from_row(row)
    assert q.domain == domain and q.domain in DOMAINS
    assert q.difficulty in DIFFICULTIES and q.answer_type in ANSWER_TYPES
    assert len(q.choices) == 4 and q.answer in q.choices
    distractors = tuple(c for c in q.choices if c != q.answer)
    check_item(Item(q.question, q.answer, q.answer_type, distractors, q.params, q.aliases), q.id)
    if domain in available_domains():
        assert q.subcategory in load_domain(domain).subcategories, f"{q.id}: {q.subcategory} is not a {domain} subcategory"
    assert Question.from_row(q.to_row()) == q
    return q
