"""Wording helpers the domain generators share: people's names, the canonical number format, and
the last step of every generator (picking three distinct wrong answers).

The canonical numeric answer is the shortest exact decimal: no thousands separator, no trailing
zeros, a plain ASCII minus ("1250", "3.75", "0.5", "-12"). Question text may group digits
("12,500") because people write them that way; the grouped spelling becomes an alias.
"""

from __future__ import annotations

import random
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Iterable

import lemminflect

from mirror_hf.bank._items import distinct_errors
from mirror_hf.bank._leaks import _similarity, _trigrams

# Given names from many languages; short, unambiguous and mostly gender-neutral in use here.
NAMES: tuple[str, ...] = (
    "Aisha", "Ana", "Arjun", "Ben", "Bilal", "Carmen", "Chen", "Chloe", "Dario", "Dev",
    "Elena", "Emeka", "Farah", "Felix", "Grace", "Hana", "Hugo", "Ines", "Ivan", "Jonas",
    "Kai", "Kemal", "Lars", "Leila", "Lucia", "Maya", "Mateo", "Mei", "Nadia", "Nikhil",
    "Noor", "Olga", "Omar", "Priya", "Rafael", "Rosa", "Sami", "Sara", "Soren", "Tariq",
    "Tomas", "Uma", "Victor", "Wei", "Yara", "Yusuf", "Zara", "Zoe", "Kofi", "Lina",
    "Marek", "Nia", "Pablo", "Quinn", "Rhea", "Sven", "Talia", "Hiro", "Amara", "Diego",
)

Number = int | Fraction | Decimal


def _as_fraction(value: Number) -> Fraction:
    if isinstance(value, float):
        raise TypeError("pass an int, Fraction or Decimal, not a float: floats are not exact")
    return Fraction(value)


def fmt_num(value: Number) -> str:
    """Canonical answer string of an exact number ("1250", "3.75", "-0.5").

    Raises ValueError for a value with no finite decimal expansion (e.g. 1/3): a generator must
    draw parameters that give an exact answer rather than round silently."""
    x = _as_fraction(value)
    den = x.denominator
    places = 0
    while den % 10 == 0 or den % 2 == 0 or den % 5 == 0:
        if den % 10 == 0:
            den //= 10
        elif den % 2 == 0:
            den //= 2
        else:
            den //= 5
        places += 1
    if den != 1:
        raise ValueError(f"{x} has no finite decimal expansion")
    scaled = x * 10**places
    assert scaled.denominator == 1
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    whole, frac = (digits[:-places], digits[-places:]) if places else (digits, "")
    frac = frac.rstrip("0")
    text = f"{whole}.{frac}" if frac else whole
    return "0" if text == "0" else sign + text


def decimal_places(value: Number) -> int:
    """How many digits `fmt_num` writes after the decimal point; sys.maxsize when there is no finite
    decimal expansion, so `decimal_places(x) <= k` reads as "x is exact to k places"."""
    try:
        text = fmt_num(value)
    except ValueError:
        return sys.maxsize
    return len(text.split(".")[1]) if "." in text else 0


def grouped(value: Number) -> str:
    """The number as people write it in prose: thousands grouped with commas ("12,500", "1,234.5")."""
    text = fmt_num(value)
    sign = "-" if text.startswith("-") else ""
    whole, _, frac = text.lstrip("-").partition(".")
    whole = f"{int(whole):,}"
    return sign + whole + (f".{frac}" if frac else "")


def money(value: Number, symbol: str = "$") -> str:
    """A price as written in prose: "$12", "$3.50", "$1,250.75"."""
    x = _as_fraction(value)
    if x.denominator == 1:
        return f"{symbol}{grouped(x)}"
    cents = x * 100
    if cents.denominator != 1:
        raise ValueError(f"{x} is not a whole number of cents")
    return f"{symbol}{int(cents) // 100:,}.{int(cents) % 100:02d}"


def numeric_aliases(value: Number, *, currency: str | None = None) -> tuple[str, ...]:
    """Other spellings of a canonical number: digit grouping and, for money, "$3.50" and "3.50"."""
    canonical = fmt_num(value)
    out: list[str] = []
    if grouped(value) != canonical:
        out.append(grouped(value))
    if currency is not None:
        out.append(money(value, currency))
        x = _as_fraction(value)
        if x.denominator != 1:
            two_places = money(value, "").replace(",", "")
            if two_places != canonical:
                out.append(two_places)
    return tuple(dict.fromkeys(out))


def plural_noun(noun: str) -> str:
    """The plural of a (possibly multi-word) noun from lemminflect's tables: only the last word
    inflects ("parking spaces", "knives", "children")."""
    head, _, last = noun.rpartition(" ")
    forms = lemminflect.getInflection(last, "NNS")
    if not forms:
        raise KeyError(f"lemminflect has no plural of {last!r}")
    return (head + " " if head else "") + forms[0]


def plural(count: Number, singular: str, plural_form: str | None = None) -> str:
    """"1 hour", "3 hours", "2.5 hours" (the count grouped as in prose, the plural from lemminflect)."""
    word = singular if _as_fraction(count) == 1 else (plural_form or plural_noun(singular))
    return f"{grouped(count)} {word}"


_SMALL = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def count_word(n: int) -> str:
    """"two", "eleven", "13": small counts are spelled out in prose."""
    return _SMALL[n] if 0 <= n < len(_SMALL) else str(n)


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def pick_names(rng: random.Random, k: int) -> list[str]:
    return rng.sample(NAMES, k)


def pick_distractors(answer: str, *candidate_groups: Iterable[str]) -> tuple[str, str, str]:
    """The first three candidates (in order, across groups) that differ from the answer and from
    each other after the bank's text normalisation.

    Generators list the errors people make first and a generic fallback last, so the plausible
    distractors win whenever they are distinct."""
    out = distinct_errors(answer, *candidate_groups)
    if len(out) >= 3:
        return (out[0], out[1], out[2])
    raise ValueError(f"fewer than three distinct distractors for answer {answer!r}: {out}")


def _rank_of_first(values: list[float]) -> float:
    """Rank of values[0] among all of them (0 = smallest); a tie counts half a place."""
    first = values[0]
    return sum(v < first for v in values[1:]) + sum(v == first for v in values[1:]) / 2


def answer_ranks(choices: list[str]) -> tuple[float, float]:
    """Rank of choices[0] (the answer) among all of them by length and by closeness to the others
    (0 = shortest / least central), two of the cues `bank._fair.fair_pick` draws at random."""
    grams = [_trigrams(t) for t in choices]
    centre = [sum(_similarity(g, h) for j, h in enumerate(grams) if j != i) for i, g in enumerate(grams)]
    return _rank_of_first([float(len(c)) for c in choices]), _rank_of_first(centre)


def spread_around(rng: random.Random, answer, *candidate_groups: Iterable) -> list:
    """Three wrong numbers placed so that the answer's rank among the four choices is drawn at random.

    Named errors tend to fall on one side of the answer (a dropped carry is always smaller), which
    would let "never pick the smallest" beat chance. Candidates keep their priority order within
    each side; the answer's rank is drawn from the ranks the candidates can fill."""
    below: list = []
    above: list = []
    for group in candidate_groups:
        for value in group:
            if value is None or value == answer or value in below or value in above:
                continue
            (below if value < answer else above).append(value)
    ranks = [r for r in range(4) if len(below) >= r and len(above) >= 3 - r]
    if not ranks:
        raise ValueError(f"fewer than three distinct wrong values around {answer}: {below + above}")
    r = rng.choice(ranks)
    return below[:r] + above[: 3 - r]



def numeric_family(rng: random.Random, answer, errors: Iterable, *, step=1, lo=0, hi=None,
                   allow=lambda v: True, scale: str = "add") -> list:
    """Three wrong numbers that, with the answer, form a 2 x 2 family of two errors.

    Errors a person makes are each one step from the gold (a dropped carry, an off-by-one), so with
    plain named errors the gold is the choice nearest to all the others and "pick the centre" or
    "pick the second-smallest" beats chance. Here two errors a and b span the four values
    {x, x+a, x+b, x+a+b}; the gold is drawn at a random corner, so every choice is one error away from
    two others and two errors from the third, and the gold's rank is uniform. The first two named
    errors whose family fits [lo, hi] (and `allow`) win; multiples of `step` fill in.
    `scale="mul"` is the same family for factor errors (a wrong conversion factor, a place-value
    slip): {x, x*a, x*b, x*a*b}, with factors 10, 100 and 1000 filling in."""
    answer = Fraction(answer)
    if scale == "mul":
        return _factor_family(rng, answer, errors, lo=lo, hi=hi, allow=allow)
    deltas: list[Fraction] = []
    for e in errors:
        if e is None:
            continue
        d = Fraction(e) - answer
        if d and d not in deltas:
            deltas.append(d)
    step = Fraction(step)
    for k in (1, 2, 3, 5, 10):
        for d in (k * step, -k * step):
            if d not in deltas:
                deltas.append(d)

    def fits(v: Fraction) -> bool:
        return (lo is None or v >= lo) and (hi is None or v <= hi) and allow(v)

    corners = [(0, 0), (1, 0), (0, 1), (1, 1)]
    best: list = []
    for i, a in enumerate(deltas):
        for b in deltas[i + 1:]:
            if a == b or a + b == 0:
                continue
            options = []
            for s1, s2 in corners:
                wrong = [answer + (t1 - s1) * a + (t2 - s2) * b for t1, t2 in corners if (t1, t2) != (s1, s2)]
                if all(fits(v) for v in wrong):
                    options.append(wrong)
            if len(options) > len(best):
                best = options
            if len(best) >= 3:  # the gold can sit at (nearly) any corner: take it
                return rng.choice(best)
    if best:  # otherwise the family that leaves the gold the most corners
        return rng.choice(best)
    raise ValueError(f"no family of three wrong values fits around {answer}")


def numeric_distractors(rng: random.Random, answer, errors: Iterable, **kw) -> tuple[str, str, str]:
    """`numeric_family` written in the canonical number format."""
    wrong = numeric_family(rng, answer, errors, **kw)
    return pick_distractors(fmt_num(Fraction(answer)), [fmt_num(w) for w in wrong])


def _factor_family(rng: random.Random, answer: Fraction, errors: Iterable, *, lo, hi, allow) -> list:
    ratios: list[Fraction] = []
    for e in errors:
        if e is None or Fraction(e) <= 0 or answer <= 0:
            continue
        r = Fraction(e) / answer
        if r != 1 and r not in ratios and 1 / r not in ratios:
            ratios.append(r)
    ratios += [r for r in (Fraction(10), Fraction(100), Fraction(1000)) if r not in ratios and 1 / r not in ratios]

    def fits(v: Fraction) -> bool:
        return (lo is None or v >= lo) and (hi is None or v <= hi) and allow(v)

    corners = [(0, 0), (1, 0), (0, 1), (1, 1)]
    best: list = []
    for i, a in enumerate(ratios):
        for b in ratios[i + 1:]:
            if a * b == 1:
                continue
            options = []
            for s1, s2 in corners:
                wrong = [answer * a ** (t1 - s1) * b ** (t2 - s2) for t1, t2 in corners if (t1, t2) != (s1, s2)]
                if all(fits(v) for v in wrong):
                    options.append(wrong)
            if len(options) > len(best):
                best = options
            if len(best) >= 3:
                return rng.choice(best)
    if best:
        return rng.choice(best)
    raise ValueError(f"no family of three wrong factors fits around {answer}")
