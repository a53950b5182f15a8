"""Arithmetic bank: every gold answer re-derived from `params` by a route of its own.

The solvers here are written independently of `mirror_hf.bank.arithmetic`: expressions go through
Python's own parser, counts are brute-forced, conversions use a separately typed table of SI
factors, money is recomputed hour by hour or week by week. Run with `-s` to read sample items.
"""

from __future__ import annotations

import ast
import math
import re
import statistics
from decimal import ROUND_HALF_UP, Decimal, getcontext
from fractions import Fraction

import pytest

from mirror_hf.bank import arithmetic
from mirror_hf.bank._core import generate_domain, normalise_text
from mirror_hf.records import DIFFICULTIES, canonical_json

SEEDS = (0, 1)
SIZE = 625
WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}
CANONICAL_NUMBER = re.compile(r"^-?(0|[1-9]\d*)(\.\d*[1-9])?$")


@pytest.fixture(scope="module")
def banks() -> dict[int, list]:
    return {seed: list(generate_domain(arithmetic.DOMAIN, seed, SIZE)) for seed in SEEDS}


def by_sub(questions, sub):
    return [q for q in questions if q.subcategory == sub]


def num(text) -> Fraction:
    return Fraction(str(text))


def plain(text: str) -> str:
    """Question text with digit grouping and currency signs removed, for 'is this number stated' checks."""
    return text.replace(",", "").replace("$", "")


# --------------------------------------------------------------------------------------------
# independent solvers
# --------------------------------------------------------------------------------------------


def eval_expression(text: str) -> Fraction:
    """Exact value of an infix expression with × ÷ − (as printed) or * / - and sqrt(), via `ast`."""
    source = text.replace("×", "*").replace("÷", "/").replace("−", "-")
    tree = ast.parse(source, mode="eval")

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return Fraction(ast.get_source_segment(source, node))
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}.get(type(node.op)) if not isinstance(
                node.op, ast.Div) else a / b
        if isinstance(node, ast.Call) and node.func.id == "sqrt":
            getcontext().prec = 40
            return Fraction(Decimal(int(ev(node.args[0]))).sqrt())
        raise AssertionError(f"unexpected node {ast.dump(node)}")

    return ev(tree)


def round_2_sig(x: Fraction) -> Fraction:
    d = Decimal(x.numerator) / Decimal(x.denominator)
    exponent = d.adjusted()  # position of the leading digit
    quantum = Decimal(1).scaleb(exponent - 1)
    return Fraction(d.quantize(quantum, rounding=ROUND_HALF_UP))


def solve_word_problem(p: dict) -> Fraction:
    t = p["template"]
    if t == "change":
        return p["paid"] - p["count"] * num(p["price"])
    if t == "seats":
        return p["rows"] * p["seats"] - p["taken"]
    if t == "pages":
        return p["total"] - p["per_day"] * p["days"]
    if t == "boxes":
        return p["boxes"] * p["per_box"] - p["used"]
    if t == "minibuses":
        buses = 0
        while buses * p["seats"] < p["people"]:
            buses += 1
        return buses * p["cost"] + p["fee"]
    if t in ("overtime", "net_pay"):
        wage = num(p["wage"])
        gross = sum(wage if hour < p["base_hours"] else wage * num(p["multiplier"]) for hour in range(p["hours"]))
        return gross if t == "overtime" else gross * (1 - Fraction(p["tax_pct"], 100))
    if t == "savings":
        weeks = 0
        while p["saved"] + weeks * p["per_week"] < p["price"]:
            weeks += 1
        return Fraction(weeks)
    if t == "recipe":
        return Fraction(p["grams"], p["serves"]) * p["want"]
    if t == "shared_bill":
        total = sum(c * num(x) for c, x in zip(p["counts"], p["prices"]))
        return total * Fraction(100 - p["discount_pct"], 100) / p["people"]
    if t == "average_speed":
        distances = [num(d) for d in p["legs_km"]]
        hours = sum(d / v for d, v in zip(distances, p["speeds_kmh"]))
        return sum(distances) / hours
    if t == "fill_tank":
        a, b = p["fill_hours"]
        per_minute = (Fraction(1, a) + Fraction(1, b) - Fraction(1, p["drain_hours"])) / 60
        level, minutes = Fraction(0), 0
        while level < 1:
            level += per_minute
            minutes += 1
        assert level == 1, "the tank must be exactly full on a whole minute"
        return Fraction(minutes)
    raise AssertionError(f"unknown template {t}")


# SI factors typed here independently of the generator's table.
SI = {
    "mm": Fraction("0.001"), "cm": Fraction("0.01"), "m": Fraction(1), "km": Fraction(1000),
    "in": Fraction("0.0254"), "ft": Fraction("0.3048"), "yd": Fraction("0.9144"), "mi": Fraction("1609.344"),
    "mg": Fraction("0.000001"), "g": Fraction("0.001"), "kg": Fraction(1), "t": Fraction(1000),
    "oz": Fraction("0.028349523125"), "lb": Fraction("0.45359237"),
    "mL": Fraction("0.000001"), "L": Fraction("0.001"), "pt": Fraction("0.000473176473"),
    "qt": Fraction("0.000946352946"), "gal": Fraction("0.003785411784"),
    "s": Fraction(1), "min": Fraction(60), "h": Fraction(3600), "day": Fraction(86400), "week": Fraction(7 * 86400),
    "USD": Fraction(1),
}


def si_factor(unit: str) -> Fraction:
    """'km/h', 'USD/100 g', 'cm2', 'm3', 'L/day' -> factor to SI."""
    if "/" in unit:
        top, bottom = unit.split("/")
        count, _, name = bottom.strip().rpartition(" ")
        return si_factor(top) / (si_factor(name) * Fraction(count or 1))
    match = re.fullmatch(r"([a-zA-Z]+)([23]?)", unit)
    base, power = match.group(1), int(match.group(2) or 1)
    return SI[base] ** power


def solve_conversion(p: dict) -> Fraction:
    if p["kind"] == "mixed":
        (a, b), (big, small) = p["value"], p["from"]
        seconds = a * si_factor(big) + b * si_factor(small)
        return seconds / si_factor(p["to"])
    return num(p["value"]) * si_factor(p["from"]) / si_factor(p["to"])


def next_by_differences(terms: list[int]) -> int:
    """Extend a sequence through its difference table (polynomial of degree < len(terms) - 1)."""
    rows = [list(terms)]
    while any(rows[-1]) and len(rows[-1]) > 1:
        rows.append([b - a for a, b in zip(rows[-1], rows[-1][1:])])
    assert len(set(rows[-1])) == 1, f"{terms} has no constant difference row"
    return sum(row[-1] for row in rows)


def solve_numerical(p: dict) -> Fraction:
    t = p["template"]
    if t in ("arithmetic_sequence", "second_difference"):
        return Fraction(next_by_differences(p["terms"]))
    if t == "geometric_sequence":
        terms = p["terms"]
        ratios = {Fraction(b, a) for a, b in zip(terms, terms[1:])}
        assert len(ratios) == 1
        return terms[-1] * ratios.pop()
    if t == "linear_recurrence":
        x = p["terms"]
        k = Fraction(x[2] - x[1], x[1] - x[0])
        c = x[1] - k * x[0]
        assert all(b == k * a + c for a, b in zip(x, x[1:]))
        return k * x[-1] + c
    if t == "inclusive_count":
        return Fraction(len(range(p["low"], p["high"] + 1)))
    if t == "fence_posts":
        return Fraction(len(range(0, p["length"] + 1, p["gap"])))
    if t == "remainder":
        return Fraction(p["dividend"] - p["divisor"] * (p["dividend"] // p["divisor"]))
    if t == "multiples_in_range":
        return Fraction(sum(1 for x in range(p["low"], p["high"] + 1) if x % p["divisor"] == 0))
    if t == "lcm":
        m = max(p["a"], p["b"])
        while m % p["a"] or m % p["b"]:
            m += 1
        return Fraction(m)
    if t == "inclusion_exclusion":
        return Fraction(sum(1 for x in range(1, p["n"] + 1) if x % p["a"] == 0 or x % p["b"] == 0))
    if t == "last_digit":
        return Fraction(int(str(p["base"] ** p["exponent"])[-1]))
    if t == "series_sum":
        return Fraction(sum(range(p["low"], p["high"] + 1, 2 if p["odd_only"] else 1)))
    if t == "page_digits":
        return Fraction(sum(len(str(page)) for page in range(1, p["pages"] + 1)))
    raise AssertionError(f"unknown template {t}")


# --------------------------------------------------------------------------------------------
# gold answers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_mental_calculation_gold(banks, seed):
    for q in by_sub(banks[seed], "mental_calculation"):
        expression = q.params["expression"]
        assert expression in q.question, q.id
        assert num(q.answer) == eval_expression(expression), q.id


@pytest.mark.parametrize("seed", SEEDS)
def test_estimation_gold_is_the_only_closest_choice(banks, seed):
    for q in by_sub(banks[seed], "estimation"):
        exact = eval_expression(q.params["expression"])
        assert num(q.answer) == round_2_sig(exact), q.id
        for n in re.findall(r"\d+(?:\.\d+)?", q.params["expression"]):
            assert n in plain(q.question) or (n == "100" and "%" in q.question), (q.id, n)
        gold_error = abs(num(q.answer) - exact)
        for c in q.choices:
            if c != q.answer:
                # strictly further away, by at least 5% of the value: one defensible "closest"
                assert abs(num(c) - exact) - gold_error >= exact / 20, (q.id, c)


@pytest.mark.parametrize("seed", SEEDS)
def test_word_problems_gold(banks, seed):
    for q in by_sub(banks[seed], "word_problems"):
        assert num(q.answer) == solve_word_problem(q.params), q.id
        for key, value in q.params.items():
            if key in ("steps", "template", "multiplier"):
                continue
            if key == "people" and " buy " in q.question:  # "Ana, Ben and Kai buy ..."
                assert len(re.findall(r"[A-Z][a-z]+", q.question.split(" buy ")[0])) == value, q.id
                continue
            for v in value if isinstance(value, list) else [value]:
                stated = str(v).rstrip("0").rstrip(".") if "." in str(v) else str(v)
                assert stated in plain(q.question) or f" {WORDS.get(v)} " in q.question, (q.id, key, v)


@pytest.mark.parametrize("seed", SEEDS)
def test_unit_conversion_gold(banks, seed):
    for q in by_sub(banks[seed], "unit_conversion"):
        assert num(q.answer) == solve_conversion(q.params), q.id
        values = q.params["value"] if isinstance(q.params["value"], list) else [q.params["value"]]
        for v in values:
            assert str(v) in plain(q.question), (q.id, v)


@pytest.mark.parametrize("seed", SEEDS)
def test_numerical_reasoning_gold(banks, seed):
    for q in by_sub(banks[seed], "numerical_reasoning"):
        assert num(q.answer) == solve_numerical(q.params), q.id
        for t in q.params.get("terms", []):
            assert f"{t:,}" in q.question, (q.id, t)


# --------------------------------------------------------------------------------------------
# shape, difficulty, wording, determinism
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_items_are_well_formed(banks, seed):
    questions = banks[seed]
    assert len(questions) == SIZE
    for q in questions:
        assert q.answer in q.choices and len(q.choices) == 4, q.id
        assert len({normalise_text(c) for c in q.choices}) == 4, q.id
        # an estimate is a rounding, only right among its choices: always shown, even asked open
        assert q.answer_type == ("multiple_choice" if q.subcategory == "estimation" else "exact_numeric"), q.id
        assert all(CANONICAL_NUMBER.match(c) for c in q.choices), (q.id, q.choices)
        assert all(num(a) == num(q.answer) for a in (x.replace(",", "").replace("$", "") for x in q.aliases)), q.id
        assert isinstance(canonical_json(q.params), str)
        assert q.generator == f"arithmetic.{q.subcategory}@1.0.0"
    for sub in arithmetic.DOMAIN.subcategories:
        assert {q.difficulty for q in by_sub(questions, sub)} == set(DIFFICULTIES), sub


def mean_by_difficulty(questions, measure) -> list[float]:
    return [statistics.mean(measure(q) for q in questions if q.difficulty == d) for d in DIFFICULTIES]


def strictly_increasing(values) -> bool:
    return all(a < b for a, b in zip(values, values[1:]))


def test_difficulty_grows(banks):
    qs = banks[0]
    operators = mean_by_difficulty(by_sub(qs, "mental_calculation"),
                                   lambda q: len(re.findall(r" [+−×÷] ", q.params["expression"])))
    assert strictly_increasing(operators), operators
    # estimation: how close the nearest wrong choice sits to the answer (relative); it shrinks
    gap = mean_by_difficulty(by_sub(qs, "estimation"), lambda q: min(
        abs(num(c) - num(q.answer)) / num(q.answer) for c in q.choices if c != q.answer))
    assert strictly_increasing([-g for g in gap]), gap
    for sub in ("word_problems", "unit_conversion", "numerical_reasoning"):
        steps = mean_by_difficulty(by_sub(qs, sub), lambda q: q.params["steps"])
        assert strictly_increasing(steps), (sub, steps)
    quantities = mean_by_difficulty(by_sub(qs, "word_problems"),
                                    lambda q: len(re.findall(r"\d+(?:\.\d+)?", plain(q.question))))
    assert strictly_increasing(quantities), quantities


def test_answer_rank_among_sorted_choices_is_not_a_shortcut(banks):
    """Named errors cluster on one side (a dropped carry is smaller), which would make "never pick
    the smallest" beat chance; every rank of the answer among the sorted choices must be common."""
    for sub in arithmetic.DOMAIN.subcategories:
        block = by_sub(banks[0] + banks[1], sub)
        ranks = [sorted(num(c) for c in q.choices).index(num(q.answer)) for q in block]
        shares = [ranks.count(r) / len(ranks) for r in range(4)]
        assert min(shares) >= 0.12, (sub, shares)


def opening(question: str) -> str:
    """First four words, with numbers and capitalised words (names, places) masked."""
    words = re.sub(r"\d[\d,.]*", "#", question).split()[:4]
    return " ".join("@" if i and w[:1].isupper() else w.lower() for i, w in enumerate(words))


def test_wording_varies(banks):
    for sub in arithmetic.DOMAIN.subcategories:
        for d in DIFFICULTIES:
            block = [q for q in by_sub(banks[0], sub) if q.difficulty == d]
            openings = {opening(q.question) for q in block}
            assert len(openings) >= 5, (sub, d, sorted(openings))


def test_same_seed_same_items_other_seed_other_items(banks):
    again = list(generate_domain(arithmetic.DOMAIN, 0, SIZE))
    assert [q.to_row() for q in again] == [q.to_row() for q in banks[0]]
    shared = {q.question for q in banks[0]} & {q.question for q in banks[1]}
    assert len(shared) < SIZE // 50, len(shared)




def test_canonical_number_helpers():
    from mirror_hf.bank._wording import fmt_num, grouped, money

    assert fmt_num(Fraction(15, 4)) == "3.75" and fmt_num(1250) == "1250" and fmt_num(Fraction(-1, 2)) == "-0.5"
    assert grouped(Fraction(123456789, 10)) == "12,345,678.9" and money(Fraction(7, 2)) == "$3.50"
    with pytest.raises(ValueError, match="no finite decimal"):
        fmt_num(Fraction(1, 3))
    assert math.isclose(float(round_2_sig(Fraction(10499))), 10000)
