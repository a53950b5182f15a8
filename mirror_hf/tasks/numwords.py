"""English number words for 0-999 (cardinal and ordinal), for the linguistic components of chained
tasks. Hyphenated compounds ("forty-seven") are the canonical spelling; the spaced form is an alias.
"""

from __future__ import annotations

_UNITS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_IRREGULAR_ORDINALS = {
    "one": "first", "two": "second", "three": "third", "five": "fifth",
    "eight": "eighth", "nine": "ninth", "twelve": "twelfth",
}


def cardinal(n: int) -> str:
    """47 -> "forty-seven", 105 -> "one hundred five" (no "and": it is an accepted alias)."""
    if not 0 <= n <= 999:
        raise ValueError(f"{n} outside 0-999")
    if n < 20:
        return _UNITS[n]
    if n < 100:
        tens, units = divmod(n, 10)
        return _TENS[tens] + (f"-{_UNITS[units]}" if units else "")
    hundreds, rest = divmod(n, 100)
    return f"{_UNITS[hundreds]} hundred" + (f" {cardinal(rest)}" if rest else "")


def ordinal(n: int) -> str:
    """47 -> "forty-seventh", 12 -> "twelfth", 40 -> "fortieth"."""
    words = cardinal(n)
    head, sep, last = _split_last(words)
    if last in _IRREGULAR_ORDINALS:
        last = _IRREGULAR_ORDINALS[last]
    elif last.endswith("y"):
        last = last[:-1] + "ieth"
    else:
        last = last + "th"
    return head + sep + last


def naive_ordinal(n: int) -> str:
    """The error of adding "th" to every cardinal ("fiveth", "twentyth"): a wrong answer people give."""
    return cardinal(n) + "th"


def letter_count(words: str) -> int:
    """Letters only: hyphens and spaces are not letters."""
    return sum(ch.isalpha() for ch in words)


def spaced(words: str) -> str:
    return words.replace("-", " ")


def _split_last(words: str) -> tuple[str, str, str]:
    for sep in ("-", " "):
        if sep in words:
            head, _, last = words.rpartition(sep)
            return head, sep, last
    return "", "", words
