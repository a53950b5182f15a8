"""Arithmetic: exact and approximate calculation (the paper's first domain).

Every generator computes its gold value with exact rational arithmetic (`fractions.Fraction`) and
builds its wrong answers from named errors (a dropped carry, left-to-right evaluation, a forgotten
step, a place-value slip, the wrong conversion factor). `params["steps"]` counts the operations a
solver has to carry out; it grows with the difficulty level.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

from mirror_hf.bank._core import Domain, Item
from mirror_hf.bank._fair import fair_pick
from mirror_hf.bank._wording import (
    count_word,
    decimal_places,
    fmt_num,
    grouped,
    money,
    numeric_aliases,
    numeric_family,
    pick_distractors,
    pick_names,
    plural,
)

DOMAIN = Domain(
    "arithmetic",
    "1.0.0",
    "Exact and approximate calculation: mental arithmetic, estimation, multi-step word problems, "
    "unit conversion and number patterns.",
)


def _numeric_item(rng: random.Random, question: str, answer, wrong: list, params: dict, *,
                  currency: str | None = None, fallback: list | None = None, allow_zero: bool = False,
                  spread: bool = True, scale: str = "add", hi=None) -> Item:
    """An exact_numeric Item from exact values. Named wrong values come first; `fallback` supplies
    more when they coincide or all sit on one side of the answer (see `spread_around`).
    `spread=False` keeps the caller's own choice of three (estimation places them itself)."""
    answer = Fraction(answer)
    answer_text = fmt_num(answer)
    usable = [Fraction(w) for w in wrong if _presentable(w, allow_zero)]
    extra = [Fraction(w) for w in (fallback or []) if _presentable(w, allow_zero)]
    if spread:
        step = Fraction(1, 10 ** decimal_places(answer)) if answer.denominator != 1 else 1
        chosen = numeric_family(rng, answer, usable + extra, step=step, scale=scale, hi=hi,
                                allow=lambda v: _presentable(v, allow_zero))
    else:
        chosen = usable + extra
    return Item(
        question=question,
        answer=answer_text,
        answer_type="exact_numeric",
        distractors=pick_distractors(answer_text, [fmt_num(w) for w in chosen]),
        params=params,
        aliases=numeric_aliases(answer, currency=currency),
    )


def _presentable(value, allow_zero: bool = False) -> bool:
    """A wrong value worth showing: positive, with a short exact decimal form (1/3 is not)."""
    if value is None or value < 0 or (value == 0 and not allow_zero):
        return False
    return decimal_places(value) <= 6


def _digit_slips(answer) -> list:
    """Generic fallback wrong values that look like one wrong digit: 2125 -> 2135, 2115, 2225, 2025."""
    digits = len(str(int(abs(answer))))
    steps = [Fraction(10) ** max(digits - 3, 0), Fraction(10) ** max(digits - 2, 0)]
    if answer.denominator != 1:
        steps = [Fraction(1, 2), Fraction(1)] + steps
    out = []
    for step in dict.fromkeys(steps):
        out += [answer + step, answer - step]
    return out + _near(answer, steps[-1], 4)[4:]


def _near(answer, step, count: int = 6) -> list:
    """Generic fallback wrong values: answer ± step, ± 2 step, ..."""
    out = []
    for k in range(1, count + 1):
        out += [answer + k * step, answer - k * step]
    return out


# ============================================================================================
# mental_calculation
# ============================================================================================

_PREC = {"+": 1, "−": 1, "×": 2, "÷": 2}


def _apply(op: str, a: Fraction, b: Fraction) -> Fraction:
    if op == "+":
        return a + b
    if op == "−":
        return a - b
    if op == "×":
        return a * b
    return a / b


def _value(node) -> Fraction:
    """Exact value of an expression tree: an int, or (op, left, right)."""
    if isinstance(node, int):
        return Fraction(node)
    op, left, right = node
    return _apply(op, _value(left), _value(right))


def _render(node, parent: str | None = None, is_right: bool = False) -> str:
    """Infix text with only the brackets the expression needs."""
    if isinstance(node, int):
        return str(node)
    op, left, right = node
    text = f"{_render(left, op)} {op} {_render(right, op, True)}"
    if parent is not None:
        p, q = _PREC[op], _PREC[parent]
        if p < q or (is_right and p == q and parent in "−÷"):
            text = f"({text})"
    return text


def _flat_tokens(node) -> list:
    """Numbers and operators in reading order, brackets dropped."""
    if isinstance(node, int):
        return [Fraction(node)]
    op, left, right = node
    return _flat_tokens(left) + [op] + _flat_tokens(right)


def _eval_flat(tokens: list, *, precedence: bool) -> Fraction | None:
    """Evaluate a bracket-free token list, with the usual precedence or strictly left to right.
    These are the two classic order-of-operations mistakes when brackets are present or not."""
    if not precedence:
        acc = tokens[0]
        for k in range(1, len(tokens), 2):
            if tokens[k] == "÷" and tokens[k + 1] == 0:
                return None
            acc = _apply(tokens[k], acc, tokens[k + 1])
        return acc
    terms = [tokens[0]]
    ops: list[str] = []
    for k in range(1, len(tokens), 2):
        op, num = tokens[k], tokens[k + 1]
        if op in "×÷":
            if op == "÷" and num == 0:
                return None
            terms[-1] = _apply(op, terms[-1], num)
        else:
            ops.append(op)
            terms.append(num)
    acc = terms[0]
    for op, num in zip(ops, terms[1:]):
        acc = _apply(op, acc, num)
    return acc


def _no_carry_mul(a: int, b: int) -> int:
    """a (two digits) × b (one digit) with the units' carry forgotten: 47 × 6 -> 242."""
    return (a // 10) * b * 10 + (a % 10 * b) % 10


def _smaller_from_larger(a: int, b: int) -> int:
    """Column subtraction that takes the smaller digit from the larger instead of borrowing."""
    out, place = 0, 1
    while a or b:
        out += abs(a % 10 - b % 10) * place
        a, b, place = a // 10, b // 10, place * 10
    return out


def _mental_easy(rng: random.Random):
    kind = rng.choice(("add", "sub", "mul"))
    if kind == "add":
        while True:
            a, b = rng.randint(14, 389), rng.randint(13, 89)
            if a % 10 + b % 10 >= 10 and (a // 10 % 10 + b // 10 % 10) < 10:
                break
        tree = ("+", a, b) if rng.random() < 0.5 else ("+", b, a)
        ans = a + b
        wrong = [ans - 10, ans + 10, ans - 1]  # dropped carry, carried twice, miscount
    elif kind == "sub":
        while True:
            a, b = rng.randint(41, 498), rng.randint(12, 89)
            if a % 10 < b % 10 and a > b + 10:
                break
        tree = ("−", a, b)
        ans = a - b
        wrong = [_smaller_from_larger(a, b), ans + 10, ans - 10]  # no borrow, borrow not repaid
    else:
        while True:
            a, b = rng.randint(13, 98), rng.randint(3, 9)
            if a % 10 * b >= 10 and a % 10 not in (0, 1):
                break
        tree = ("×", a, b) if rng.random() < 0.6 else ("×", b, a)
        ans = a * b
        wrong = [_no_carry_mul(a, b), a * (b - 1), a * (b + 1)]  # dropped carry, one group off
    return tree, wrong


def _mental_medium(rng: random.Random):
    kind = rng.choice(("add_mul", "sub_mul", "add_div", "sub_div", "long_mul"))
    if kind == "long_mul":
        a, b = rng.randint(13, 98), rng.randint(12, 49)
        if b % 10 == 0:
            b += 1
        tree = ("×", a, b)
        ans = a * b
        # partial product not shifted a place, dropped carry, one group off
        wrong = [a * (b % 10) + a * (b // 10), ans - 10, ans - a, ans + 100]
        return tree, wrong
    while True:
        a = rng.randint(12, 98)
        c = rng.randint(3, 9)
        if kind.endswith("mul"):
            b = rng.randint(11, 49)
            right = ("×", b, c)
        else:
            q = rng.randint(4, 19)
            b = q * c
            right = ("÷", b, c)
        op = "+" if kind.startswith("add") else "−"
        if op == "−" and _value(right) >= a:
            a += int(_value(right)) + rng.randint(5, 60)
        tree = (op, a, right)
        if _eval_flat(_flat_tokens(tree), precedence=False) != _value(tree):
            break
    ans = _value(tree)
    ltr = _eval_flat(_flat_tokens(tree), precedence=False)
    sign = 1 if op == "+" else -1
    wrong = [ltr, ans + sign * b, ans - 10, ans + 10]  # left to right, forgot to multiply/divide
    return tree, wrong


def _mental_hard(rng: random.Random):
    while True:
        kind = rng.randrange(5)
        a, b = rng.randint(105, 899), rng.randint(12, 95)
        c, d = rng.randint(3, 12), rng.randint(14, 260)
        if kind == 0:  # (a − b) × c + d
            tree = ("+", ("×", ("−", a, b), c), d)
        elif kind == 1:  # a + b × (c − d) with c > d
            c2, d2 = rng.randint(14, 40), rng.randint(2, 12)
            tree = ("+", a, ("×", b % 20 + 3, ("−", c2, d2)))
        elif kind == 2:  # (a + b) ÷ c − d
            q = rng.randint(12, 95)
            total = q * c
            b = rng.randint(11, min(95, total - 11))
            tree = ("−", ("÷", ("+", total - b, b), c), rng.randint(3, q - 2))
        elif kind == 3:  # a × c − d ÷ e
            e = rng.randint(3, 9)
            tree = ("−", ("×", a // 10 + 10, c), ("÷", e * rng.randint(6, 40), e))
        else:  # (a + b) × (c − d)
            c2, d2 = rng.randint(11, 30), rng.randint(2, 9)
            tree = ("×", ("+", a // 4, b), ("−", c2, d2))
        ans = _value(tree)
        if ans <= 0 or ans.denominator != 1:
            continue
        flat = _flat_tokens(tree)
        no_brackets = _eval_flat(flat, precedence=True)
        ltr = _eval_flat(flat, precedence=False)
        if no_brackets != ans or ltr != ans:
            break
    wrong = [no_brackets, ltr, ans - 10, ans + 100, ans - 100]  # brackets ignored, left to right, carry slips
    return tree, wrong


_MENTAL_WORDING = (
    "What is the value of {e}?",
    "Calculate {e} without a calculator.",
    "Work out {e} in your head.",
    "Evaluate the expression {e}.",
    "What number does {e} equal?",
    "Compute the value of {e}.",
    "Do this one in your head: {e} = ?",
    "Without writing anything down, find {e}.",
    "{name} is checking a receipt by hand and needs the value of {e}. What is it?",
    "Solve this mentally: {e}",
)


@DOMAIN.subcategory(
    "mental_calculation",
    difficulty={
        "easy": "one operation: a 2-3-digit sum or difference with one carry/borrow, or a 2-digit x 1-digit product",
        "medium": "two operations where precedence matters (a + b x c, a - b / c), or a 2-digit x 2-digit product",
        "hard": "three operations with brackets or mixed precedence, operands up to three digits",
    },
)
def mental_calculation(rng: random.Random, difficulty: str) -> Item:
    tree, wrong = {"easy": _mental_easy, "medium": _mental_medium, "hard": _mental_hard}[difficulty](rng)
    expression = _render(tree)
    answer = _value(tree)
    text = rng.choice(_MENTAL_WORDING).format(e=expression, name=pick_names(rng, 1)[0])
    params = {"expression": expression, "steps": len(_flat_tokens(tree)) // 2}
    wrong = [w for w in wrong if w is not None and w.denominator == 1]  # a fraction would give itself away
    return _numeric_item(rng, text, answer, wrong, params, fallback=_near(answer, 10, 2) + _near(answer, 1))


# ============================================================================================
# estimation
# ============================================================================================


def _round_sig(x: Fraction, sig: int = 2) -> Fraction:
    """x (> 0) rounded half-up to `sig` significant figures."""
    exponent = len(str(int(x))) - 1 if x >= 1 else -len(str(int(1 / x)))
    scale = Fraction(10) ** (exponent - sig + 1)
    return Fraction(math.floor(x / scale + Fraction(1, 2))) * scale


_EST_ASK = (
    "Which of these is closest to {e}?",
    "Without calculating exactly, which value is nearest to {e}?",
    "Estimate {e}. Which option is closest?",
    "Roughly how much is {e}?",
    "{e} is approximately equal to which of these?",
)


def _est_problem(rng: random.Random, difficulty: str):
    """(question text, python expression for params, number of operands)."""
    name = pick_names(rng, 1)[0]
    if difficulty == "easy":
        kind = rng.randrange(4)
        if kind == 0:
            a, b = rng.randint(121, 989), rng.randint(12, 98)
            return rng.choice(_EST_ASK).format(e=f"{a} × {b}"), f"{a} * {b}", 2
        if kind == 1:
            a, b = rng.randint(1210, 9890), rng.randint(12, 48)
            return rng.choice(_EST_ASK).format(e=f"{grouped(a)} ÷ {b}"), f"{a} / {b}", 2
        if kind == 2:
            a, b = rng.randint(121, 989), rng.randint(12, 98)
            thing = rng.choice(("concert tickets", "school jumpers", "board games", "garden chairs", "phone cases"))
            return (f"{name}'s shop sold {a} {thing} at ${b} each. Roughly how much money did the shop take, "
                    "in dollars?"), f"{a} * {b}", 2
        a, b = rng.randint(1210, 9890), rng.randint(12, 48)
        return (f"A {rng.choice(('cyclist', 'delivery van', 'tour bus', 'ferry'))} covers {grouped(a)} km at an "
                f"average of {b} km per hour. About how many hours is that in total?"), f"{a} / {b}", 2
    if difficulty == "medium":
        kind = rng.randrange(4)
        if kind == 0:
            p, n = rng.choice((12, 15, 18, 22, 27, 35, 38, 45, 62, 73)), rng.randint(1210, 9890)
            return rng.choice((f"About how much is {p}% of {grouped(n)}?",
                               f"Which of these is closest to {p}% of {grouped(n)}?",
                               f"A {p}% service charge is added to a bill of ${grouped(n)}. Roughly how large "
                               "is the charge, in dollars?")), f"{p} * {n} / 100", 2
        if kind == 1:
            k = rng.randint(4, 5)
            values = [rng.randint(310, 1990) for _ in range(k)]
            days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")[:k]
            listing = ", ".join(f"{grouped(v)} on {d}" for v, d in zip(values, days[:-1]))
            listing += f" and {grouped(values[-1])} on {days[-1]}"
            place, unit = rng.choice((("A museum", "visitors"), ("A bakery", "loaves"), ("A depot", "parcels"),
                                      ("A website", "sign-ups"), ("A swimming pool", "swimmers")))
            return (f"{place} counted {unit} each weekday: {listing}. Roughly how many {unit} is that altogether?",
                    " + ".join(map(str, values)), k)
        if kind == 2:
            a, b = rng.randint(112, 989), rng.randint(112, 989)
            return rng.choice(_EST_ASK).format(e=f"{a} × {b}"), f"{a} * {b}", 2
        a, b, c = rng.randint(112, 989), rng.randint(12, 98), rng.randint(13, 97)
        return rng.choice(_EST_ASK).format(e=f"{a} × {b} ÷ {c}"), f"{a} * {b} / {c}", 3
    kind = rng.randrange(5)
    if kind == 0:
        a, b, c = rng.randint(12, 98), rng.randint(112, 989), rng.randint(3, 19)
        return rng.choice(_EST_ASK).format(e=f"{a} × {b} × {c}"), f"{a} * {b} * {c}", 3
    if kind == 1:
        x, n = Fraction(rng.randint(11, 99), 10), rng.randint(1120, 9890)
        y = Fraction(rng.randint(11, 89), 100)
        return (rng.choice(_EST_ASK).format(e=f"{fmt_num(x)} × {grouped(n)} × {fmt_num(y)}"),
                f"{fmt_num(x)} * {n} * {fmt_num(y)}", 3)
    if kind == 2:
        while True:
            n = rng.randint(230, 98000)
            if math.isqrt(n) ** 2 != n:
                break
        return rng.choice((f"Which of these is closest to the square root of {grouped(n)}?",
                           f"Estimate √{grouped(n)}. Which option is nearest?",
                           f"A square plot of land has an area of {grouped(n)} square meters. Roughly how long is "
                           "one side, in meters?")), f"sqrt({n})", 1
    if kind == 3:
        a, b, c = rng.randint(112, 989), rng.randint(112, 989), rng.randint(12, 98)
        return rng.choice(_EST_ASK).format(e=f"({a} × {b}) ÷ {c}"), f"{a} * {b} / {c}", 3
    people, fee, months = rng.randint(112, 980), rng.randint(12, 89), rng.choice((6, 9, 12, 18))
    return (f"A club has {people} members who each pay ${fee} a month. Roughly how much do they pay in total "
            f"over {months} months, in dollars?"), f"{people} * {fee} * {months}", 3


def _est_value(expression: str) -> Fraction:
    """Exact value of the generator's own restricted expressions (products, quotients, sums, sqrt)."""
    if expression.startswith("sqrt("):
        n = int(expression[5:-1])
        # sqrt is irrational here; 1e-9 precision is plenty to place it among 2-significant-figure choices
        return Fraction(math.isqrt(n * 10**18)) / 10**9
    total = Fraction(0)
    for term in expression.split(" + "):
        value = Fraction(1)
        op = "*"
        for token in term.split():
            if token in "*/":
                op = token
                continue
            value = value * Fraction(token) if op == "*" else value / Fraction(token)
        total += value
    return total


# Relative distance of the wrong choices from the answer, per difficulty, and the margin by which
# every wrong choice must be further from the exact value than the answer is (fraction of the value).
_EST_BANDS = {"easy": (None, 0.5), "medium": ((0.3, 0.6), 0.15), "hard": ((0.1, 0.25), 0.05)}


@DOMAIN.subcategory(
    "estimation",
    difficulty={
        "easy": "two operands; wrong choices are place-value errors (x10, /10, x100 of the answer)",
        "medium": "two to five operands (percentages, sums, 3-digit products); wrong choices are place-value "
                  "errors or 30-60% away",
        "hard": "three operands, decimals or a square root; every wrong choice only 10-25% away from the answer",
    },
)
def estimation(rng: random.Random, difficulty: str) -> Item:
    text, expression, operands = _est_problem(rng, difficulty)
    exact = _est_value(expression)
    gold = _round_sig(exact, 2)
    band, margin = _EST_BANDS[difficulty]
    place_value = [gold * 10, gold / 10, gold * 100, gold / 100]

    def defensible(d: Fraction) -> bool:
        return d > 0 and abs(d - exact) - abs(gold - exact) >= Fraction(margin).limit_denominator(100) * exact

    if band is None:  # place-value slips on either side, some with the leading digits misjudged too
        wrong = [gold / 10, gold * 10, gold / 100, gold * 100, gold / 1000, gold * 1000]
        rough = [_round_sig(gold * Fraction(k, 10), 2) for k in (5, 15, 20)]
        wrong += [w * f for w in rough for f in (10, Fraction(1, 10))]
        rng.shuffle(wrong)
    else:
        lo, hi = band
        near_above, near_below = [], []
        for k in range(int(lo * 100), int(hi * 100) + 1, 5):
            r = Fraction(k, 100)
            for side, d in ((near_above, _round_sig(gold * (1 + r), 2)), (near_below, _round_sig(gold * (1 - r), 2))):
                if lo <= abs(d - gold) / gold <= hi and defensible(d) and d not in side:
                    side.append(d)
        rng.shuffle(near_above)
        rng.shuffle(near_below)
        near = [d for pair in itertools.zip_longest(near_below, near_above) for d in pair if d is not None]
        # medium: place-value slips of the answer and of a near miss compete with the near misses
        slips = [w * f for w in (gold, *near[:2]) for f in (10, Fraction(1, 10))]
        wrong = (slips[:2] + near[:3] + slips[2:] + near[3:]) if difficulty == "medium" else near
    params = {"expression": expression, "exact": float(exact), "operands": operands,
              "rounding": "2 significant figures"}
    wrong = [d for d in wrong if defensible(d) and _presentable(d)] + [d for d in place_value if defensible(d)]
    # "which is closest?": the gold is a rounding, so the item only makes sense among its choices
    return Item(question=text, answer=fmt_num(gold), answer_type="multiple_choice",
                distractors=fair_pick(rng, fmt_num(gold), [fmt_num(d) for d in wrong], text),
                params=params, aliases=numeric_aliases(gold))


# ============================================================================================
# word_problems
# ============================================================================================

_ITEMS = (("notebook", "notebooks"), ("sandwich", "sandwiches"), ("bus ticket", "bus tickets"),
          ("coffee", "coffees"), ("pack of batteries", "packs of batteries"), ("paperback", "paperbacks"),
          ("plant pot", "plant pots"), ("box of pencils", "boxes of pencils"), ("smoothie", "smoothies"))


def _cents(rng: random.Random, lo: int, hi: int, step: int = 25) -> Fraction:
    return Fraction(rng.randrange(lo, hi + 1, step), 100)


def _wp_easy(rng: random.Random, name: str):
    kind = rng.randrange(4)
    if kind == 0:
        n = rng.randint(3, 9)
        price = _cents(rng, 125, 975)
        bill = next(b for b in (10, 20, 50, 100) if b > n * price + 1)
        one, many = rng.choice(_ITEMS)
        text = rng.choice((
            f"{name} buys {n} {many} at {money(price)} each and pays with a {money(bill)} note. How much change, "
            f"in dollars, should {name} get back?",
            f"{many.capitalize()} cost {money(price)} each. {name} buys {n} of them and hands over {money(bill)}. "
            "How many dollars of change are due?",
            f"With a {money(bill)} note, {name} pays for {n} {many} priced at {money(price)} apiece. What is the "
            "change in dollars?",
        ))
        answer = bill - n * price
        wrong = [n * price, bill - price, bill - (n - 1) * price, bill - (n + 1) * price]
        return text, answer, wrong, {"template": "change", "count": n, "price": fmt_num(price), "paid": bill}, "$"
    if kind == 1:
        rows, seats = rng.randint(8, 32), rng.randint(12, 28)
        taken = rng.randint(rows * seats // 4, rows * seats - 10)
        venue = rng.choice(("cinema", "lecture hall", "theatre", "concert hall"))
        text = rng.choice((
            f"A {venue} has {rows} rows of {seats} seats. {grouped(taken)} seats have been sold. How many seats "
            "are still free?",
            f"There are {rows} rows with {seats} seats in each row of a {venue}, and {grouped(taken)} people are "
            "already seated. How many empty seats are left?",
        ))
        answer = rows * seats - taken
        # forgot to subtract, a row or a seat per row miscounted
        wrong = [rows * seats, (rows - 1) * seats - taken, rows * (seats - 1) - taken, answer + 10]
        return text, answer, wrong, {"template": "seats", "rows": rows, "seats": seats, "taken": taken}, None
    if kind == 2:
        per_day, days = rng.randint(12, 45), rng.randint(4, 14)
        total = per_day * days + rng.randint(20, 240)
        text = rng.choice((
            f"{name}'s book has {total} pages. {name} reads {per_day} pages a day for {days} days. How many "
            "pages are left to read?",
            f"A {total}-page novel: {name} gets through {per_day} pages every day for {days} days. How many pages "
            "remain unread?",
        ))
        answer = total - per_day * days
        wrong = [per_day * days, total - per_day * (days - 1), total - per_day - days, answer - per_day]
        return text, answer, wrong, {"template": "pages", "total": total, "per_day": per_day, "days": days}, None
    boxes, per_box = rng.randint(3, 12), rng.choice((6, 10, 12, 15, 18, 24))
    used = rng.randint(per_box + 1, boxes * per_box - 1)
    thing = rng.choice((("eggs", "cartons"), ("muffins", "trays"), ("bottles of water", "crates"),
                        ("tennis balls", "tubs")))
    text = rng.choice((
        f"A café has {boxes} {thing[1]} of {thing[0]} with {per_box} in each, and uses {used} of them. How many "
        f"{thing[0]} are left?",
        f"{name} buys {boxes} {thing[1]}, each holding {per_box} {thing[0]}, then gives away {used}. How many "
        f"{thing[0]} does {name} still have?",
    ))
    answer = boxes * per_box - used
    # forgot to subtract, one box miscounted either way
    wrong = [boxes * per_box, (boxes - 1) * per_box - used, answer + per_box, answer - 1]
    return text, answer, wrong, {"template": "boxes", "boxes": boxes, "per_box": per_box, "used": used}, None


def _wp_medium(rng: random.Random, name: str):
    kind = rng.randrange(4)
    if kind == 0:
        while True:
            people, seats = rng.randint(23, 140), rng.choice((7, 8, 9, 12, 15))
            if people % seats:
                break
        cost, fee = rng.randint(45, 180), rng.choice((10, 15, 20, 25))
        vans = -(-people // seats)
        text = rng.choice((
            f"{people} people are going on a trip. Each minibus seats {seats} passengers and costs ${cost} to hire, "
            f"plus a ${fee} booking fee for the whole order. What is the total cost, in dollars, of hiring just "
            "enough minibuses?",
            f"A school must move {people} pupils in minibuses that hold {seats} each. Hiring costs ${cost} per "
            f"minibus and there is a one-off ${fee} fee. How many dollars does the cheapest booking cost?",
        ))
        answer = vans * cost + fee
        floor_vans = people // seats
        wrong = [floor_vans * cost + fee, vans * cost, (vans + 1) * cost + fee, Fraction(people * cost, seats) + fee]
        return text, answer, wrong, {"template": "minibuses", "people": people, "seats": seats, "cost": cost,
                                     "fee": fee}, "$"
    if kind == 1:
        wage = Fraction(rng.randrange(1600, 3400, 50), 100)
        hours = rng.randint(42, 55)
        base = rng.choice((35, 38, 40))
        text = rng.choice((
            f"{name} earns {money(wage)} an hour for the first {base} hours of a week and time-and-a-half "
            f"(1.5 times the rate) for every hour after that. Last week {name} worked {hours} hours. What was the "
            "pay for the week, in dollars?",
            f"A warehouse pays {money(wage)} per hour up to {base} hours a week, and 1.5 times that rate for "
            f"overtime. How much, in dollars, does someone who works {hours} hours earn that week?",
        ))
        over = hours - base
        answer = base * wage + over * wage * Fraction(3, 2)
        wrong = [hours * wage, hours * wage * Fraction(3, 2), base * wage + over * wage * Fraction(1, 2),
                 base * wage + over * wage * 2]
        return text, answer, wrong, {"template": "overtime", "wage": fmt_num(wage), "hours": hours,
                                     "base_hours": base, "multiplier": "1.5"}, "$"
    if kind == 2:
        while True:
            price, saved, per_week = rng.randint(180, 1200), rng.randint(20, 150), rng.randint(15, 60)
            if price > saved + 2 * per_week and (price - saved) % per_week:
                break
        thing = rng.choice(("bicycle", "laptop", "guitar", "camera", "tablet", "sofa"))
        text = rng.choice((
            f"{name} wants a {thing} that costs ${price}, already has ${saved}, and saves ${per_week} every week. "
            f"After how many whole weeks will {name} first have enough?",
            f"A {thing} costs ${price}. {name} has ${saved} saved and puts aside ${per_week} each week. What is "
            f"the smallest number of weeks before the {thing} is affordable?",
        ))
        need = price - saved
        answer = -(-need // per_week)
        wrong = [need // per_week, -(-price // per_week), answer + 1, price // per_week]
        return text, answer, wrong, {"template": "savings", "price": price, "saved": saved,
                                     "per_week": per_week}, None
    while True:
        serves, want = rng.choice((4, 6, 8, 10)), rng.randint(3, 22)
        grams = rng.randrange(150, 900, 25)
        if want != serves and (grams * want) % serves == 0:
            break
    food = rng.choice(("flour", "rice", "pasta", "lentils", "oats", "sugar"))
    text = rng.choice((
        f"A recipe that serves {serves} people needs {grams} g of {food}. How many grams of {food} are needed to "
        f"serve {want} people?",
        f"{name} is cooking for {want}. The recipe uses {grams} g of {food} for {serves} servings. Scaled "
        f"exactly, how many grams of {food} does {name} need?",
    ))
    answer = Fraction(grams * want, serves)
    wrong = [grams + (want - serves), Fraction(grams * serves, want), grams * want, answer + Fraction(grams, serves)]
    return text, answer, wrong, {"template": "recipe", "serves": serves, "want": want, "grams": grams}, None


def _wp_hard(rng: random.Random, name: str):
    kind = rng.randrange(4)
    if kind == 0:
        while True:
            goods = rng.sample(_ITEMS, 3)
            counts = [rng.randint(2, 4) for _ in goods]
            prices = [_cents(rng, 150, 1250, 50) for _ in goods]
            discount, friends = rng.choice((10, 15, 20, 25)), rng.randint(2, 5)
            total = sum(c * p for c, p in zip(counts, prices))
            answer = total * (100 - discount) / 100 / friends
            if (answer * 100).denominator == 1:
                break
        listing = ", ".join(f"{c} {g[1]} at {money(p)} each" for c, p, g in zip(counts[:-1], prices[:-1], goods[:-1]))
        listing += f" and {counts[-1]} {goods[-1][1]} at {money(prices[-1])} each"
        names = pick_names(rng, friends)
        text = rng.choice((
            f"{' and '.join([', '.join(names[:-1]), names[-1]])} buy {listing}. The shop takes {discount}% off the "
            "whole bill, and they split what is left equally. How many dollars does each person pay?",
            f"A group of {count_word(friends)} friends orders {listing}. With a {discount}% discount on the total, shared "
            "equally, what is each friend's share in dollars?",
        ))
        wrong = [total / friends, total * (100 - discount) / 100, (total - discount) / friends,
                 (total - prices[0] * counts[0] * discount / 100) / friends]
        params = {"template": "shared_bill", "counts": counts, "prices": [fmt_num(p) for p in prices],
                  "discount_pct": discount, "people": friends}
        return text, answer, wrong, params, "$"
    if kind == 1:
        while True:
            t1, t2 = Fraction(rng.randint(2, 8), 2), Fraction(rng.randint(2, 8), 2)
            v1, v2 = rng.randrange(40, 121, 5), rng.randrange(40, 121, 5)
            d1, d2 = v1 * t1, v2 * t2
            answer = (d1 + d2) / (t1 + t2)
            if v1 != v2 and d1.denominator == d2.denominator == 1 and (answer * 10).denominator == 1 \
                    and answer != Fraction(v1 + v2, 2):
                break
        vehicle = rng.choice(("A coach", "A lorry", "A motorbike", f"{name}'s car", "A delivery van"))
        text = rng.choice((
            f"{vehicle} travels {fmt_num(d1)} km at {v1} km/h and then another {fmt_num(d2)} km at {v2} km/h. "
            "What is its average speed for the whole journey, in km/h?",
            f"On a trip, {vehicle.lower() if vehicle.startswith('A ') else vehicle} covers the first {fmt_num(d1)} km "
            f"at a steady {v1} km/h and the next {fmt_num(d2)} km at {v2} km/h. Over the entire trip, what is the "
            "average speed in km/h?",
        ))
        # mean of the speeds, harmonic mean (assumes equal distances), distance-weighted mean of speeds
        wrong = [Fraction(v1 + v2, 2), Fraction(2 * v1 * v2, v1 + v2), (d1 * v1 + d2 * v2) / (d1 + d2)]
        params = {"template": "average_speed", "legs_km": [fmt_num(d1), fmt_num(d2)], "speeds_kmh": [v1, v2]}
        return text, answer, wrong, params, None
    if kind == 2:
        while True:
            a, b, c = rng.randint(2, 9), rng.randint(2, 12), rng.randint(4, 20)
            rate = Fraction(1, a) + Fraction(1, b) - Fraction(1, c)
            if len({a, b, c}) == 3 and rate > 0 and (60 / rate).denominator == 1:
                break
        answer = 60 / rate
        text = rng.choice((
            f"Tap A fills a tank in {plural(a, 'hour')} and tap B fills it in {plural(b, 'hour')}, while a leak "
            f"would empty a full tank in {plural(c, 'hour')}. Starting empty, with both taps open and the leak "
            "running, how many minutes does the tank take to fill?",
            f"A pond can be filled by one hose in {plural(a, 'hour')} or by a second hose in "
            f"{plural(b, 'hour')}; a pump drains it in {plural(c, 'hour')}. If both hoses and the pump all run "
            "together from empty, how many minutes until the pond is full?",
        ))
        # leak ignored, leak added instead of subtracted, average of the two fill times, left in hours
        wrong = [60 / (Fraction(1, a) + Fraction(1, b)), 60 / (Fraction(1, a) + Fraction(1, b) + Fraction(1, c)),
                 60 * Fraction(a + b, 2), answer / 60]
        params = {"template": "fill_tank", "fill_hours": [a, b], "drain_hours": c}
        return text, answer, wrong, params, None
    wage = Fraction(rng.randrange(1800, 3600, 100), 100)
    hours, base, tax = rng.randint(42, 52), 40, rng.choice((10, 15, 20, 25))
    over = hours - base
    gross = base * wage + over * wage * Fraction(3, 2)
    answer = gross * (100 - tax) / 100
    if (answer * 100).denominator != 1:
        wage = Fraction(int(wage) // 4 * 4)  # whole dollars divisible by 4 keep every share in cents
        gross = base * wage + over * wage * Fraction(3, 2)
        answer = gross * (100 - tax) / 100
    text = rng.choice((
        f"{name} is paid {money(wage)} an hour for the first {base} hours each week and 1.5 times that rate for "
        f"extra hours. This week {name} worked {hours} hours, and {tax}% of gross pay is withheld for tax. What is "
        f"{name}'s take-home pay in dollars?",
        f"A nurse earns {money(wage)} per hour up to {base} hours and time-and-a-half beyond that. After a "
        f"{hours}-hour week, {tax}% tax is deducted from the gross. How many dollars are paid out?",
    ))
    wrong = [hours * wage * (100 - tax) / 100, gross, gross - tax, (base * wage + over * wage / 2) * (100 - tax) / 100]
    params = {"template": "net_pay", "wage": fmt_num(wage), "hours": hours, "base_hours": base,
              "multiplier": "1.5", "tax_pct": tax}
    return text, answer, wrong, params, "$"


_WP_STEPS = {"change": 2, "seats": 2, "pages": 2, "boxes": 2, "minibuses": 3, "overtime": 4, "savings": 3,
             "recipe": 3, "shared_bill": 5, "average_speed": 5, "fill_tank": 5, "net_pay": 5}


@DOMAIN.subcategory(
    "word_problems",
    difficulty={
        "easy": "two steps (multiply then subtract), whole numbers or simple prices",
        "medium": "three to four steps with a trap: rounding up to whole vehicles/weeks, overtime rates, scaling "
                  "a recipe",
        "hard": "five steps: discounts then equal shares, harmonic average speed, combined work rates, net pay "
                "after overtime and tax",
    },
)
def word_problems(rng: random.Random, difficulty: str) -> Item:
    name = pick_names(rng, 1)[0]
    text, answer, wrong, params, currency = {"easy": _wp_easy, "medium": _wp_medium, "hard": _wp_hard}[difficulty](
        rng, name)
    params["steps"] = _WP_STEPS[params["template"]]
    fallback = _digit_slips(answer)
    wrong = [w for w in wrong if w is not None and (w * 100).denominator == 1]
    return _numeric_item(rng, text, answer, wrong, params, currency=currency, fallback=fallback)


# ============================================================================================
# unit_conversion
# ============================================================================================

# code -> (singular, plural, factor in the dimension's base unit)
_UNITS: dict[str, tuple[str, str, Fraction]] = {
    "mm": ("millimeter", "millimeters", Fraction(1, 1000)),
    "cm": ("centimeter", "centimeters", Fraction(1, 100)),
    "m": ("meter", "meters", Fraction(1)),
    "km": ("kilometer", "kilometers", Fraction(1000)),
    "in": ("inch", "inches", Fraction(254, 10000)),
    "ft": ("foot", "feet", Fraction(3048, 10000)),
    "yd": ("yard", "yards", Fraction(9144, 10000)),
    "mi": ("mile", "miles", Fraction(1609344, 1000)),
    "mg": ("milligram", "milligrams", Fraction(1, 1000)),
    "g": ("gram", "grams", Fraction(1)),
    "kg": ("kilogram", "kilograms", Fraction(1000)),
    "t": ("metric ton", "metric tons", Fraction(10**6)),
    "oz": ("ounce", "ounces", Fraction(28349523125, 10**9)),
    "lb": ("pound", "pounds", Fraction(45359237, 10**5)),
    "mL": ("milliliter", "milliliters", Fraction(1, 1000)),
    "L": ("liter", "liters", Fraction(1)),
    "pt": ("US pint", "US pints", Fraction(473176473, 10**9)),
    "qt": ("US quart", "US quarts", Fraction(946352946, 10**9)),
    "gal": ("US gallon", "US gallons", Fraction(3785411784, 10**9)),
    "s": ("second", "seconds", Fraction(1)),
    "min": ("minute", "minutes", Fraction(60)),
    "h": ("hour", "hours", Fraction(3600)),
    "day": ("day", "days", Fraction(86400)),
    "week": ("week", "weeks", Fraction(604800)),
}
_DIMENSION = {**dict.fromkeys(("mm", "cm", "m", "km", "in", "ft", "yd", "mi"), "length"),
              **dict.fromkeys(("mg", "g", "kg", "t", "oz", "lb"), "mass"),
              **dict.fromkeys(("mL", "L", "pt", "qt", "gal"), "volume"),
              **dict.fromkeys(("s", "min", "h", "day", "week"), "time")}

# (from, to) pairs one ladder step apart, and two steps apart.
_ONE_STEP = (("km", "m"), ("m", "cm"), ("cm", "mm"), ("kg", "g"), ("g", "mg"), ("t", "kg"), ("L", "mL"),
             ("h", "min"), ("min", "s"), ("day", "h"), ("week", "day"))
_TWO_STEP = (("km", "cm"), ("m", "mm"), ("t", "g"), ("kg", "mg"), ("h", "s"), ("day", "min"), ("week", "h"),
             ("ft", "in"), ("yd", "ft"), ("mi", "yd"), ("lb", "oz"), ("gal", "qt"), ("qt", "pt"), ("yd", "in"),
             ("gal", "pt"), ("mi", "ft"))
# The factor people wrongly use for each pair (big unit -> small unit): the neighbouring power of
# ten, 100 for 60, one ladder step forgotten, or a customary factor mixed up with another.
_WRONG_FACTORS: dict[tuple[str, str], tuple[int, ...]] = {
    ("km", "m"): (100,), ("m", "cm"): (1000, 10), ("cm", "mm"): (100,), ("kg", "g"): (100,),
    ("g", "mg"): (100,), ("t", "kg"): (100,), ("L", "mL"): (100,), ("h", "min"): (100,), ("min", "s"): (100,),
    ("day", "h"): (12,), ("week", "day"): (5,),
    ("km", "cm"): (1000, 10000), ("m", "mm"): (100,), ("t", "g"): (1000,), ("kg", "mg"): (1000,),
    ("h", "s"): (60, 6000), ("day", "min"): (60, 2400), ("week", "h"): (24, 84),
    ("ft", "in"): (10,), ("yd", "ft"): (12,), ("mi", "yd"): (1000, 5280), ("lb", "oz"): (12, 10),
    ("gal", "qt"): (8, 2), ("qt", "pt"): (4,), ("yd", "in"): (12, 3), ("gal", "pt"): (4, 2),
    ("mi", "ft"): (5000, 1760),
}

# Settings for a quantity, by dimension and by its size in base units (m, g, L, s), so that a
# ribbon is never 90 miles long: (upper bound, settings).
_CONTEXT: dict[str, tuple[tuple[int, tuple[str, ...]], ...]] = {
    "length": ((1, ("A ribbon is {v} long.", "A screw measures {v}.", "{name}'s phone is {v} tall.")),
               (1000, ("A garden hose is {v} long.", "The cable run measures {v}.", "A swimming pool is {v} long.")),
               (10**12, ("A hiking trail is {v} long.", "{name}'s bike ride was {v}.", "The pipeline runs {v}."))),
    "mass": ((1, ("A vitamin tablet contains {v} of zinc.", "A pinch of saffron weighs {v}.")),
             (30000, ("A bag of flour weighs {v}.", "{name}'s suitcase weighs {v}.", "A parcel has a mass of {v}.")),
             (10**15, ("The harvest came to {v} of apples.", "A truck delivers {v} of gravel.",
                       "The bridge section weighs {v}."))),
    "volume": ((1, ("A glass holds {v} of juice.", "The recipe calls for {v} of stock.", "A vial contains {v}.")),
               (1000, ("A water tank holds {v}.", "{name}'s aquarium contains {v} of water.",
                       "A rain barrel holds {v}.")),
               (10**12, ("A swimming pool holds {v} of water.", "The reservoir released {v}."))),
    "time": ((3600, ("The experiment ran for {v}.", "{name}'s commute takes {v}.", "A song lasts {v}.")),
             (3 * 86400, ("{name}'s flight took {v}.", "A battery lasts {v} on one charge.",
                          "The road trip took {v}.")),
             (10**12, ("The expedition took {v}.", "A sea voyage lasts {v}.", "{name}'s holiday lasted {v}."))),
}


def _context(rng: random.Random, dim: str, base_amount: Fraction) -> str:
    return rng.choice(next(settings for bound, settings in _CONTEXT[dim] if base_amount < bound))


_ASK = ("How many {to} is that?", "Express this in {to}.", "What is that in {to}?", "How much is that in {to}?")


def _quantity(value: Fraction, unit: str) -> str:
    singular, plural_form, _ = _UNITS[unit]
    return f"{grouped(value)} {singular if value == 1 else plural_form}"


def _conversion_value(rng: random.Random, factor: Fraction, difficulty: str, max_places: int = 3) -> Fraction:
    """A value to convert whose result is exact: a round-ish amount of the larger unit, and a whole
    number of the smaller unit when converting upwards (2,350 m -> km, not 2,347.3 m)."""
    for _ in range(500):
        if factor > 1:
            value = Fraction(rng.randint(2, 95)) if difficulty == "easy" or rng.random() < 0.6 \
                else Fraction(rng.randint(11, 399), rng.choice((10, 4, 2)))
            ok = value.denominator in (1, 2, 4, 10)
        else:
            if (1 / factor).denominator == 1:
                big = Fraction(rng.randint(2, 99)) if rng.random() < 0.5 else Fraction(rng.randint(11, 999),
                                                                                          rng.choice((10, 100)))
                value = big / factor
            else:  # a factor like 0.9144 m/yd: any whole number of yards gives an exact answer
                value = Fraction(rng.randint(2, 400))
            ok = value.denominator == 1 and value <= 10**7
        if ok and decimal_places(value * factor) <= max_places:
            return value
    raise RuntimeError(f"no exact value found for conversion factor {factor}")


def _simple_conversion(rng: random.Random, pairs, difficulty: str, name: str):
    src, dst = rng.choice(pairs)
    if rng.random() < 0.4:
        src, dst = dst, src
    factor = _UNITS[src][2] / _UNITS[dst][2]
    value = _conversion_value(rng, factor, difficulty)
    answer = value * factor
    dim = _DIMENSION[src]
    phrase = rng.randrange(3)
    if phrase == 0:
        setting = _context(rng, dim, value * _UNITS[src][2])
        text = f"{setting.format(v=_quantity(value, src), name=name)} " \
               f"{rng.choice(_ASK).format(to=_UNITS[dst][1])}"
    elif phrase == 1:
        text = f"Convert {_quantity(value, src)} to {_UNITS[dst][1]}."
    else:
        text = f"How many {_UNITS[dst][1]} are there in {_quantity(value, src)}?"
    misused = _WRONG_FACTORS.get((src, dst)) or _WRONG_FACTORS[(dst, src)]
    wrong = [value * f if factor > 1 else value / f for f in misused]
    wrong += [value / factor, answer * 10, answer / 10]  # multiplied instead of divided, place-value slips
    steps = 1 if (src, dst) in _ONE_STEP or (dst, src) in _ONE_STEP else 2
    return text, answer, wrong, {"value": fmt_num(value), "from": src, "to": dst, "kind": "simple", "steps": steps}


def _mixed_time(rng: random.Random, name: str):
    """'2 h 35 min' -> minutes, '3 days 7 hours' -> hours, 'X min Y s' -> seconds (two steps)."""
    big, small = rng.choice((("h", "min"), ("day", "h"), ("min", "s")))
    per = int(_UNITS[big][2] / _UNITS[small][2])
    a, b = rng.randint(2, 11), rng.randint(1, per - 1)
    answer = a * per + b
    what = rng.choice(("A training course", "The drive", f"{name}'s shift", "The recording", "A cooking class"))
    text = rng.choice((
        f"{what} lasts {_quantity(Fraction(a), big)} and {_quantity(Fraction(b), small)}. How long is that in "
        f"{_UNITS[small][1]}?",
        f"How many {_UNITS[small][1]} are there in {_quantity(Fraction(a), big)} {_quantity(Fraction(b), small)}?",
    ))
    slip = {"h": 100, "min": 100, "day": 12}[big]  # 100 minutes to the hour, a 12-hour day
    wrong = [a * slip + b, a * per, a * per - b, (a + 1) * per + b]
    return text, answer, wrong, {"value": [a, b], "from": [big, small], "to": small, "kind": "mixed", "steps": 2}


_SQUARE = {"m2": ("square meter", "square meters", "m", 2), "cm2": ("square centimeter", "square centimeters",
                                                                   "cm", 2),
           "km2": ("square kilometer", "square kilometers", "km", 2), "mm2": ("square millimeter",
                                                                            "square millimeters", "mm", 2),
           "m3": ("cubic meter", "cubic meters", "m", 3), "cm3": ("cubic centimeter", "cubic centimeters", "cm", 3),
           "ft2": ("square foot", "square feet", "ft", 2), "in2": ("square inch", "square inches", "in", 2),
           "yd2": ("square yard", "square yards", "yd", 2)}


# (who moves, slowest and fastest plausible speed in km/h)
_MOVERS = (("A cyclist", 18, 45), ("A high-speed train", 180, 324), ("A cheetah", 54, 108),
           ("A delivery drone", 18, 72), ("A speedboat", 36, 90), ("The wind", 9, 90), ("A car on the motorway", 90, 126),
           ("A sprinter", 18, 36))
# customary unit -> (largest sensible length, things that long)
_CUSTOMARY_THINGS = {"in": (48, ("picture frame", "laptop screen", "ruler", "shoe box")),
                     "ft": (16, ("shelf", "rug", "kayak", "desk", "sofa")),
                     "yd": (60, ("roll of fabric", "garden path", "hedge", "fence"))}


def _derived_conversion(rng: random.Random, name: str):
    kind = rng.randrange(5)
    if kind in (0, 1):  # area or volume: the linear factor raised to a power
        src, dst = rng.choice((("m2", "cm2"), ("km2", "m2"), ("cm2", "mm2"), ("m3", "cm3"), ("ft2", "in2"),
                               ("yd2", "ft2"), ("m2", "mm2")) if kind == 0 else (("m3", "L"), ("m3", "cm3"),
                                                                                ("L", "cm3")))
        if rng.random() < 0.4:
            src, dst = dst, src

        def factor_of(code):
            if code == "L":
                return Fraction(1, 1000), 3
            singular, _, base, power = _SQUARE[code]
            return _UNITS[base][2] ** power, power

        (fs, power_s), (fd, power_d) = factor_of(src), factor_of(dst)
        power = max(power_s, power_d)
        factor = fs / fd
        value = _conversion_value(rng, factor, "hard")
        answer = value * factor
        root = round(float(factor) ** (1 / power)) if factor > 1 else round(float(1 / factor) ** (1 / power))
        linear = Fraction(root) if factor > 1 else Fraction(1, max(root, 1))
        wrong = [value * linear, value / factor, value * linear ** 2 if power == 3 else value * linear ** 3,
                 answer * 10, answer / 10]
        names = {**{k: v[:2] for k, v in _SQUARE.items()}, "L": ("liter", "liters")}
        amount = f"{grouped(value)} {names[src][1] if value != 1 else names[src][0]}"
        holder = rng.choice(("A garden plot", "The classroom floor", f"{name}'s balcony", "A solar panel")) \
            if power == 2 else rng.choice(("A shipping crate", "The fish tank", f"{name}'s compost bin", "A skip"))
        text = rng.choice((
            f"How many {names[dst][1]} are there in {amount}?",
            f"Convert {amount} to {names[dst][1]}.",
            f"{holder} has {'an area' if power == 2 else 'a volume'} of {amount}. What is this in {names[dst][1]}?",
        ))
        return text, answer, wrong, {"value": fmt_num(value), "from": src, "to": dst, "kind": "derived",
                                     "steps": 1 + power}
    if kind == 2:  # speed km/h <-> m/s, in a range that suits the mover
        mover, lo, hi = rng.choice(_MOVERS)
        if rng.random() < 0.5:  # multiples of 9 km/h are whole or half metres per second
            value = Fraction(rng.randrange(-(-lo // 9) * 9, hi + 1, 9))
            src, dst, factor = "km/h", "m/s", Fraction(1000, 3600)
        else:
            value = Fraction(rng.randint(math.ceil(lo / Fraction(18, 10)), math.floor(hi / Fraction(18, 10))), 2)
            src, dst, factor = "m/s", "km/h", Fraction(3600, 1000)
        answer = value * factor
        words = {"km/h": "kilometers per hour", "m/s": "meters per second"}
        text = rng.choice((
            f"{mover} moves at {grouped(value)} {words[src]}. What is that speed in {words[dst]}?",
            f"Convert {grouped(value)} {src} into {dst}.",
            f"{mover} is clocked at {grouped(value)} {src}. How fast is that in {words[dst]}?",
        ))
        if src == "km/h":  # x3.6 instead of /3.6, per minute instead of per second, km not turned into m
            wrong = [value * Fraction(36, 10), value * 1000 / 60, value / 3600, answer * 10]
        else:  # /3.6 instead of x3.6, m not turned into km, per minute instead of per hour
            wrong = [value / Fraction(36, 10), value * 3600, value * 60 / 1000, answer * 10]
        return text, answer, wrong, {"value": fmt_num(value), "from": src, "to": dst, "kind": "speed", "steps": 3}
    if kind == 3:  # a flow or price rate with two units to convert
        options = (("mL/min", "L/h", Fraction(60, 1000)), ("mL/min", "L/day", Fraction(1440, 1000)),
                   ("L/h", "mL/min", Fraction(1000, 60)), ("USD/100 g", "USD/kg", Fraction(10)),
                   ("USD/kg", "USD/100 g", Fraction(1, 10)), ("g/min", "kg/h", Fraction(60, 1000)))
        src, dst, factor = rng.choice(options)
        for _ in range(200):
            if src.startswith("USD"):
                value = Fraction(rng.randint(45, 4800), 100)
            else:
                value = Fraction(rng.randint(2, 240) * rng.choice((1, 5, 10)))
            answer = value * factor
            if decimal_places(answer) <= (2 if src.startswith("USD") else 3):
                break
        if src == "USD/100 g":
            text = rng.choice((f"Cheese costs {money(value)} per 100 g. What is the price per kilogram, in dollars?",
                               f"Coffee beans are priced at {money(value)} for every 100 grams. How many dollars "
                               "would a full kilogram cost?"))
            wrong = [value * 100, value / 10, value * 1000]  # 100 g -> kg as x100, inverted, x1000
        elif src == "USD/kg":
            text = rng.choice((f"Salmon sells for {money(value)} per kilogram. How much do 100 grams cost, in dollars?",
                               f"At {money(value)} a kilo, what is the price of 100 g of olives, in dollars?"))
            wrong = [value / 100, value * 10, value / 1000]  # /100, inverted, /1000
        else:
            words = {"mL/min": "milliliters per minute", "L/h": "liters per hour", "L/day": "liters per day",
                     "g/min": "grams per minute", "kg/h": "kilograms per hour"}
            subject = rng.choice(("A machine packs", "A hopper releases", "A mill grinds")) if src.startswith("g") \
                else rng.choice(("A leaking tap loses", "A pump moves", "A drip line delivers", "A filter passes"))
            text = rng.choice((f"{subject} {grouped(value)} {words[src]}. How many {words[dst]} is that?",
                               f"Convert a rate of {grouped(value)} {src} into {words[dst]}."))
            if dst == "L/day":
                wrong = [value * 24 / 1000, value * 60 / 1000, value * 1440]
            elif dst == "mL/min":
                wrong = [value * 1000, value * 1000 / 3600, value * 60]
            else:
                wrong = [value * 60, value / 1000, value * 3600 / 1000]
        steps = 3 if dst == "L/day" else 2
        return text, answer, wrong, {"value": fmt_num(value), "from": src, "to": dst, "kind": "rate",
                                     "steps": steps + 1}
    # across systems with the exact definition stated: 1 inch = 2.54 cm
    src, dst = rng.choice((("ft", "cm"), ("yd", "cm"), ("in", "mm"), ("ft", "m"), ("yd", "m")))
    factor = _UNITS[src][2] / _UNITS[dst][2]
    longest, things = _CUSTOMARY_THINGS[src]
    value = Fraction(rng.randint(2, longest)) if rng.random() < 0.7 else Fraction(rng.randint(5, 2 * longest), 2)
    answer = value * factor
    per_inch = _UNITS[src][2] / _UNITS["in"][2]
    text = rng.choice((
        f"Using 1 inch = 2.54 cm exactly, how many {_UNITS[dst][1]} are in {_quantity(value, src)}?",
        f"One inch is exactly 2.54 centimeters. {name}'s {rng.choice(things)} is {_quantity(value, src)} long. "
        f"How long is it in {_UNITS[dst][1]}?",
        f"A {rng.choice(things)} measures {_quantity(value, src)}. Given that an inch is exactly 2.54 cm, what is "
        f"its length in {_UNITS[dst][1]}?",
    ))
    cm_factor = Fraction(254, 100) / (_UNITS[dst][2] / _UNITS["cm"][2])
    # the value read as inches, 2.54 rounded to 2.5, divided by 2.54 instead of multiplied, place slip
    wrong = [value * cm_factor, value * per_inch * Fraction(25, 10) / (_UNITS[dst][2] / _UNITS["cm"][2]),
             value * per_inch / cm_factor, answer * 10, answer / 10]
    steps = 2 + (per_inch != 1) + (dst != "cm")
    return text, answer, wrong, {"value": fmt_num(value), "from": src, "to": dst, "kind": "cross_system",
                                 "given": "1 in = 2.54 cm", "steps": max(steps, 3)}


@DOMAIN.subcategory(
    "unit_conversion",
    difficulty={
        "easy": "one step on the metric or clock ladder (factor 10, 100, 1000, 60, 24 or 7)",
        "medium": "two ladder steps, a non-decimal customary factor (12, 3, 16, 1760...), or a mixed quantity "
                  "like '2 h 35 min'",
        "hard": "three or more steps: squared/cubed units, speeds (km/h <-> m/s), flow and price rates, and "
                "customary-to-metric with the stated 1 in = 2.54 cm",
    },
)
def unit_conversion(rng: random.Random, difficulty: str) -> Item:
    name = pick_names(rng, 1)[0]
    if difficulty == "easy":
        text, answer, wrong, params = _simple_conversion(rng, _ONE_STEP, difficulty, name)
    elif difficulty == "medium":
        if rng.random() < 0.25:
            text, answer, wrong, params = _mixed_time(rng, name)
        else:
            text, answer, wrong, params = _simple_conversion(rng, _TWO_STEP, difficulty, name)
            params["steps"] = 2
    else:
        text, answer, wrong, params = _derived_conversion(rng, name)
    answer = Fraction(answer)
    # single errors only (a wrong factor, the inverse operation, a place-value slip, one wrong digit
    # in the multiplication), never two compounded: 81 min is not 17,496,000 s by any one mistake
    def plausible(w: Fraction) -> bool:
        return _presentable(w) and decimal_places(w) <= 4 and Fraction(1, 1000) <= w / answer <= 1000

    singles = [w for w in dict.fromkeys(Fraction(w) for w in (*wrong[:3], answer * 10, answer / 10,
                                                               *_digit_slips(answer)[:2])) if plausible(w)]
    # two of those mistakes in one working (the wrong factor applied to a mis-copied value), so that
    # the gold is not the one choice every other is a single slip away from
    pairs = [a * b / answer for i, a in enumerate(singles) for b in singles[i + 1:]]
    pool = singles + [w for w in pairs if plausible(w)]
    return Item(question=text, answer=fmt_num(answer), answer_type="exact_numeric",
                distractors=fair_pick(rng, fmt_num(answer), [fmt_num(w) for w in pool], text),
                params=params, aliases=numeric_aliases(answer))


# ============================================================================================
# numerical_reasoning
# ============================================================================================


def _terms_text(terms: list[int]) -> str:
    return ", ".join(grouped(t) for t in terms)


_SEQ_ASK = ("What number comes next in the sequence {s}, ...?", "Continue the pattern: {s}, ?",
            "Which number should follow {s}?", "Find the next term: {s}, __", "The sequence {s} continues. What "
            "is the next number?")


def _nr_easy(rng: random.Random, name: str):
    kind = rng.randrange(4)
    if kind == 0:
        a, d = rng.randint(2, 60), rng.choice((-1, 1)) * rng.randint(3, 19)
        if d < 0:
            a += 6 * -d
        terms = [a + k * d for k in range(5)]
        answer = a + 5 * d
        text = rng.choice(_SEQ_ASK).format(s=_terms_text(terms))
        wrong = [answer + 1, answer - 1, answer + d, terms[-1] - d]
        return text, answer, wrong, {"template": "arithmetic_sequence", "terms": terms, "steps": 2}
    if kind == 1:
        lo = rng.randint(12, 380)
        hi = lo + rng.randint(15, 160)
        text = rng.choice((
            f"{name} reads from page {lo} to page {hi} of a book, including both of those pages. How many pages is "
            "that?",
            f"How many whole numbers are there from {lo} to {hi}, counting both ends?",
            f"Raffle tickets numbered {lo} through {hi} (inclusive) were sold. How many tickets is that?",
        ))
        answer = hi - lo + 1
        return text, answer, [hi - lo, hi - lo + 2, hi - lo - 1], {"template": "inclusive_count", "low": lo,
                                                                    "high": hi, "steps": 2}
    if kind == 2:
        gap = rng.choice((2, 3, 4, 5, 6, 8, 10, 12, 15))
        length = gap * rng.randint(6, 40)
        text = rng.choice((
            f"A straight fence is {length} m long, with a post every {gap} m, including a post at each end. How "
            "many posts are there?",
            f"Trees are planted every {gap} metres along one side of a {length}-metre path, with a tree at both "
            "ends. How many trees are planted?",
        ))
        answer = length // gap + 1
        return text, answer, [length // gap, length // gap + 2, length // gap - 1], {
            "template": "fence_posts", "length": length, "gap": gap, "steps": 2}
    # the remainder is drawn evenly from 0 to b - 1 and the three wrong ones evenly from the others: a
    # wrong remainder is any other value the division can leave, and so every value is offered three
    # times as often as it is the gold (nudging a multiple up by one made 1 the gold in 60% of the
    # items that offered it)
    b = rng.randint(4, 9)
    answer = rng.randrange(b)
    a = b * rng.randint(-(-103 // b), (999 - answer) // b) + answer
    text = rng.choice((f"What is the remainder when {a} is divided by {b}?",
                       f"{a} sweets are shared equally among {b} children, with each child getting as many as "
                       "possible. How many sweets are left over?",
                       f"In modular arithmetic, what is {a} mod {b}?"))
    wrong = rng.sample([r for r in range(b) if r != answer], 3)
    return text, answer, wrong, {"template": "remainder", "dividend": a, "divisor": b, "steps": 2}


def _nr_medium(rng: random.Random, name: str):
    kind = rng.randrange(4)
    if kind == 0:
        a, r = rng.randint(2, 9), rng.choice((2, 3, 4, 5))
        terms = [a * r**k for k in range(4 + (r == 2))]
        answer = terms[-1] * r
        text = rng.choice(_SEQ_ASK).format(s=_terms_text(terms))
        # continued the last difference, multiplied one too many, added the last two terms
        wrong = [terms[-1] + (terms[-1] - terms[-2]), terms[-1] * (r + 1), terms[-1] + terms[-2], answer + r]
        return text, answer, wrong, {"template": "geometric_sequence", "terms": terms, "steps": 3}
    if kind == 1:
        a, d, e = rng.randint(1, 30), rng.randint(1, 9), rng.randint(2, 6)
        terms = [a]
        for k in range(4):
            terms.append(terms[-1] + d + k * e)
        answer = terms[-1] + d + 4 * e
        last_gap = terms[-1] - terms[-2]
        text = rng.choice(_SEQ_ASK).format(s=_terms_text(terms))
        wrong = [terms[-1] + last_gap, terms[-1] + last_gap + 2 * e, answer + 1, answer - 1]
        return text, answer, wrong, {"template": "second_difference", "terms": terms, "steps": 3}
    if kind == 2:
        k = rng.choice((6, 7, 8, 9, 11, 12, 13, 15, 17))
        lo = rng.randint(20, 400)
        hi = lo + rng.randint(60, 700)
        lo += lo % k == 0  # ends that are not multiples make "from"/"between" mean the same thing
        hi += hi % k == 0
        text = rng.choice((f"How many multiples of {k} are there from {lo} to {hi}?",
                           f"How many whole numbers between {lo} and {hi} are divisible by {k}?",
                           f"Counting the integers from {lo} up to {hi}, how many are multiples of {k}?"))
        answer = hi // k - (lo - 1) // k
        return text, answer, [(hi - lo) // k, (hi - lo) // k + 1, answer + 1, answer - 1], {
            "template": "multiples_in_range", "divisor": k, "low": lo, "high": hi, "steps": 3}
    while True:
        a, b = rng.choice((4, 6, 8, 9, 10, 12, 14, 15, 16, 18, 20)), rng.choice((6, 8, 9, 10, 12, 15, 18, 21, 24, 25, 30))
        g = math.gcd(a, b)
        if a != b and g > 1 and g not in (a, b):
            break
    lcm = a * b // g
    text = rng.choice((
        f"Two buses leave the depot together at 8:00. One route departs every {a} minutes and the other every "
        f"{b} minutes. After how many minutes do they next leave together?",
        f"{name} waters the ferns every {a} days and the cactus every {b} days, and did both today. In how many "
        "days will both be watered on the same day again?",
        f"What is the least common multiple of {a} and {b}?",
    ))
    return text, lcm, [a * b, g, lcm * 2, a + b], {"template": "lcm", "a": a, "b": b, "steps": 3}


def _nr_hard(rng: random.Random, name: str):
    kind = rng.randrange(5)
    if kind == 0:
        a, b = rng.sample((3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15), 2)
        n = rng.randint(150, 2000)
        text = rng.choice((f"How many integers from 1 to {grouped(n)} are divisible by {a} or by {b} (or both)?",
                           f"Lockers are numbered 1 to {grouped(n)}. How many locker numbers are multiples of {a}, "
                           f"of {b}, or of both?"))
        lcm = a * b // math.gcd(a, b)
        answer = n // a + n // b - n // lcm
        wrong = [n // a + n // b, n // a + n // b - n // (a * b), n // a + n // b - 2 * (n // lcm)]
        return text, answer, wrong, {"template": "inclusion_exclusion", "a": a, "b": b, "n": n, "steps": 5}
    if kind == 1:
        base, exp = rng.choice((2, 3, 7, 8, 12, 13, 17, 18, 22, 23, 27, 28)), rng.randint(21, 399)
        text = rng.choice((f"What is the last digit of {base}^{exp}?", f"What is the units digit of {base} raised "
                           f"to the power {exp}?", f"When {base}^{exp} is written out in full, what is its final "
                           "digit?"))
        answer = pow(base, exp, 10)
        cycle = [pow(base, k, 10) for k in range(1, 5)]  # last digits of base^1 .. base^4
        # remainder 0 read as exponent 0, one place off in the cycle, multiplied instead of raised, base's digit
        wrong = [pow(base, exp % 4, 10), cycle[exp % 4], base * exp % 10, base % 10, (answer + 5) % 10]
        wrong = [w for w in wrong if w != answer]
        fallback = [(answer + k) % 10 for k in (1, 2, 3, 4, 6)]
        return text, answer, wrong + fallback, {"template": "last_digit", "base": base, "exponent": exp, "steps": 4}
    if kind == 2:
        k, c, a = rng.choice((2, 3)), rng.choice((-2, -1, 1, 2, 3, 4, 5)), rng.randint(1, 9)
        if a * k + c <= a:
            a += 3
        terms = [a]
        for _ in range(4 if k == 2 else 3):
            terms.append(terms[-1] * k + c)
        answer = terms[-1] * k + c
        text = rng.choice(_SEQ_ASK).format(s=_terms_text(terms))
        diff = terms[-1] - terms[-2]
        wrong = [terms[-1] * k, terms[-1] + diff * k, terms[-1] + diff, answer + c]
        return text, answer, wrong, {"template": "linear_recurrence", "terms": terms, "steps": 4}
    if kind == 3:
        lo = rng.randint(3, 60)
        hi = lo + rng.randint(20, 140)
        odd_only = rng.random() < 0.35
        if odd_only:
            lo, hi = lo | 1, hi | 1
            text = rng.choice((f"What is the sum of all the odd numbers from {lo} to {hi} inclusive?",
                               f"Add up every odd number from {lo} to {hi}, including both ends. What is the total?"))
            count = (hi - lo) // 2 + 1
            answer = (lo + hi) * count // 2
            # one term short, every integer summed, an end left out or counted twice
            wrong = [Fraction((lo + hi) * (count - 1), 2), Fraction((lo + hi) * (hi - lo + 1), 2), answer - lo,
                     answer + hi]
        else:
            text = rng.choice((f"What is the sum of the whole numbers from {lo} to {hi} inclusive?",
                               f"{name} adds up every whole number from {lo} to {hi}, including both ends. What "
                               f"total does {name} get?"))
            count = hi - lo + 1
            answer = (lo + hi) * count // 2
            # one term short (fence-post), summed from 1, first term left out, one term too many
            wrong = [Fraction((lo + hi) * (hi - lo), 2), Fraction(hi * (hi + 1), 2), answer - lo, answer + hi + 1]
        return text, answer, wrong, {"template": "series_sum", "low": lo, "high": hi, "odd_only": odd_only,
                                     "steps": 4}
    pages = rng.randint(105, 999)
    text = rng.choice((f"A book's pages are numbered from 1 to {pages}. How many digits are printed in total?",
                       f"To number the pages of a {pages}-page report from 1 to {pages}, how many individual "
                       "digits does a printer have to print?"))
    answer = 9 + 180 + 3 * (pages - 99)
    # three digits for every page, fence-post on the 3-digit pages, 89 two-digit pages, 1-9 forgotten
    wrong = [3 * pages, 9 + 180 + 3 * (pages - 100), 9 + 2 * 89 + 3 * (pages - 99), 180 + 3 * (pages - 99)]
    return text, answer, wrong, {"template": "page_digits", "pages": pages, "steps": 5}


@DOMAIN.subcategory(
    "numerical_reasoning",
    difficulty={
        "easy": "two steps: arithmetic sequences, inclusive counts and fence posts (off-by-one traps), remainders",
        "medium": "three steps: geometric or second-difference sequences, multiples in a range, least common "
                  "multiples",
        "hard": "four to five steps: inclusion-exclusion counts, last digit of a power, linear recurrences, "
                "series sums, digits needed to number pages",
    },
)
def numerical_reasoning(rng: random.Random, difficulty: str) -> Item:
    name = pick_names(rng, 1)[0]
    text, answer, wrong, params = {"easy": _nr_easy, "medium": _nr_medium, "hard": _nr_hard}[difficulty](rng, name)
    fallback = _digit_slips(answer) + [answer + k for k in (2, -2, 3, -3)]
    wrong = [w for w in wrong if w >= 0]
    if params["template"] == "last_digit":
        return _numeric_item(rng, text, answer, wrong, params, allow_zero=True, hi=9)  # a digit is at most 9
    if params["template"] == "remainder":  # the three other remainders as drawn
        return _numeric_item(rng, text, answer, wrong, params, allow_zero=True, spread=False)
    return _numeric_item(rng, text, answer, wrong, params, fallback=fallback)
