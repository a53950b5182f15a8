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

from mirror_hf.bank._core import normalise_text, reads_as_letter

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


def plural(count: Number, singular: str, plural_form: str | None = None) -> str:
    """"1 hour", "3 hours", "2.5 hours" (the count grouped as in prose)."""
    word = singular if _as_fraction(count) == 1 else (plural_form or singular + "s")
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
    seen = {normalise_text(answer)}
    out: list[str] = []
    for group in candidate_groups:
        for candidate in group:
            key = normalise_text(candidate)
            if not key or key in seen or reads_as_letter(candidate):
                continue
            seen.add(key)
            out.append(candidate)
            if len(out) == 3:
                return (out[0], out[1], out[2])
    raise ValueError(f"fewer than three distinct distractors for answer {answer!r}: {out}")


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

