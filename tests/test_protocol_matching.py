"""Answer matching: the strict typed matcher and the authors' lenient one, side by side."""

from __future__ import annotations

import pytest

from mirror_hf.protocol.matching import extract_final_answer, match, read_number, upstream_extract


def strict(pred, gold, answer_type, aliases=(), choices=()):
    return match(pred, gold, answer_type, aliases, choices, matcher="strict")


def upstream(pred, gold, answer_type, aliases=()):
    return match(pred, gold, answer_type, aliases, matcher="upstream")


# ------------------------------------------------------------------------------- strict numbers


@pytest.mark.parametrize(
    ("pred", "gold", "expected"),
    [
        ("138", "138", True),
        ("138 pencils", "138", True),
        ("$1,234.50", "1234.5", True),
        ("approximately 42", "42", True),
        ("x = 7", "7", True),
        ("3/4", "0.75", True),
        ("1/3", "0.33", True),  # the exact value rounds to the gold's two decimals
        ("3.14", "3.14159", True),  # the model rounded to two decimals
        ("3.1", "3.14159", False),  # one decimal is too coarse
        ("3.14159", "3.14", True),  # the gold is the rounded one
        ("42", "42.4", False),
        ("137", "138", False),  # a count must be exact (upstream: +-0.01 -> also False)
        ("253441", "253440", False),  # upstream allows +-1 for golds >= 1000
        ("2.14", "2.1", True),  # rounds to the gold's one decimal, within 5%
        ("0.14", "0.1", False),  # rounds to 0.1 but 40% off
        ("between 5 and 7", "6", False),  # two numbers: ambiguous
        ("3 × 4", "12", False),  # an expression is not a value
        ("", "5", None),
    ],
)
def test_strict_numbers(pred, gold, expected):
    assert strict(pred, gold, "exact_numeric") is expected


def test_unreadable_numeric_gold_is_ungraded():
    assert strict("5", "five or six", "exact_numeric") is None
    assert strict("5", "5", "exact_numeric") is True


def test_read_number():
    assert read_number("1,234") == (1234.0, 0)
    assert read_number("-2.50") == (-2.5, 2)
    assert read_number("25%") == (25.0, 0)
    assert read_number("2 hours 30 minutes") is None
    assert read_number("no number") is None


# ---------------------------------------------------------------------- strict choices and text


def test_choice_letter_or_value():
    choices = ("Rome", "Paris", "Madrid", "Berlin")
    assert strict("B", "Paris", "multiple_choice", choices=choices) is True
    assert strict("(B)", "Paris", "multiple_choice", choices=choices) is True
    assert strict("B) Paris", "Paris", "multiple_choice", choices=choices) is True
    assert strict("Option B", "Paris", "multiple_choice", choices=choices) is True
    assert strict("paris", "Paris", "multiple_choice", choices=choices) is True
    assert strict("A", "Paris", "multiple_choice", choices=choices) is False
    assert strict("B) Rome", "Paris", "multiple_choice", choices=choices) is False  # letter and text disagree
    # Choices on a numeric item: the letter stands for the value.
    assert strict("C", "12", "exact_numeric", choices=("10", "11", "12", "13")) is True
    # Upstream-style items: options inline, the gold is a letter.
    assert strict("The answer is (c)", "C", "multiple_choice") is True
    assert strict("C", "C", "multiple_choice") is True
    assert strict("A cat", "C", "multiple_choice") is False


def test_booleans_by_leading_word():
    assert strict("Yes", "yes", "boolean") is True
    assert strict("No, because the premise fails.", "no", "boolean") is True
    assert strict("True", "yes", "boolean") is True
    assert strict("It is not", "no", "boolean") is False  # no leading truth word
    assert strict("No", "Yes", "short_text") is False  # a bare yes/no gold is a truth value
    assert strict("Yes, this is a clear violation of a social norm in most settings.", "Yes", "short_text") is True


def test_short_text_has_no_substring_matching():
    assert strict("Paris", "paris", "short_text") is True
    assert strict("The Pacific Ocean.", "Pacific Ocean", "short_text") is True
    assert strict("Mount Everest", "Everest", "short_text", aliases=("Mount Everest",)) is True
    assert strict("not", "no", "short_text") is False
    assert strict("I know", "no", "short_text") is False
    assert strict("Paris, France", "Paris", "short_text") is False
    # ...where the authors' matcher says yes to all three:
    assert upstream("not", "no", "short_text") is True
    assert upstream("I know", "no", "short_text") is True
    assert upstream("Paris, France", "Paris", "short_text") is True


def test_short_text_typed_readings():
    assert strict("96", "About 96 books", "short_text") is True  # one quantity
    assert strict("96 books", "About 96 books", "short_text") is True
    assert strict("96 pages", "About 96 books", "short_text") is False
    assert strict("100°C", "100", "short_text") is True
    assert strict("first Apple computer (1976)", "first Apple computer", "short_text") is True  # an aside
    assert strict("15 years old", "No, he would have been 15 years old when he got married.", "short_text") is False


def test_long_answers_are_reduced_to_their_final_answer():
    text = "Let me work it out.\n\n243 + 79 = 322\n\nThere are now **322** books on the shelf."
    assert extract_final_answer(text, "exact_numeric") == "322"
    assert strict(text, "322", "exact_numeric") is True
    assert strict("The deadline is on **Thursday**.\n\n* **1 day** from Monday is Tuesday.", "Thursday", "short_text") is True
    assert extract_final_answer("Sarcastic. The statement contradicts the evidence, which is classic irony.") == "Sarcastic"
    assert extract_final_answer("So the final answer is 17.\nDone.") == "17"
    # Nothing recognisable: wrong, not ungraded.
    assert strict("A long ramble\nwith no stated answer at all in it anywhere", "Paris", "short_text") is False


# ------------------------------------------------------------------------------------- upstream


def test_upstream_quirks():
    assert upstream("253441", "253440", "exact_numeric") is True  # +-1 at >= 1000
    assert upstream("42.01", "42", "exact_numeric") is True  # +-0.01 absolute
    assert upstream("3.16", "3.14159", "exact_numeric") is False
    assert upstream("I cannot be sure, it is 5", "5", "exact_numeric") is False  # a refusal phrase
    assert upstream("30 feet", "30", "exact_numeric") is True
    assert upstream("1,500 grams", "1500", "exact_numeric") is True
    assert upstream("B", "b", "multiple_choice") is True
    assert upstream("paris", "A", "multiple_choice") is False
    assert upstream("yes", "true", "boolean") is True
    assert upstream("maybe", "no", "boolean") is False


def test_upstream_extractor_rules():
    # Long predictions are reduced by the extractor (first rule that fires).
    assert upstream_extract("Work...\nANSWER: 12\nBET: 3") == "12"
    assert upstream_extract("We add them, so the total is 17 apples in all") == "17 apples in all"
    assert upstream_extract("Adding gives\n5 + 7 = 12") == "12"
    assert upstream_extract("It is roughly 20 to 30 and probably 25 in the end of the day", "exact_numeric") == "25"
    assert upstream_extract("   ") is None


def test_matcher_name_is_checked():
    with pytest.raises(ValueError, match="matcher"):
        match("a", "a", "short_text", matcher="lenient")


def test_upstream_matcher_reads_a_bare_letter_as_its_choice_on_our_bank():
    """Our items carry choices and a text gold; the authors' rules alone could never match "B"."""
    from mirror_hf.protocol.matching import match

    choices = ("Rome", "Paris", "Oslo", "Bern")
    assert match("B", "Paris", "short_text", (), choices, matcher="upstream") is True
    assert match("A", "Paris", "short_text", (), choices, matcher="upstream") is False
    assert match("B", "Paris", "short_text", (), (), matcher="upstream") is False
