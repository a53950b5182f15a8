"""The number readings every parser shares (`read_int`, `read_percent`, `agreed`), swept over every
value they can meet rather than a few examples: the expected value is the number written into the
text, the accepted range is the one the function is asked for (found by mutation testing: nothing
pinned the ends of the ranges)."""

from __future__ import annotations

import itertools

from mirror_hf.protocol.parsing import agreed, read_int, read_percent

PERCENT_FORMS = ("{}", "{}%", "{} %", "{}/100", "{} / 100", "{} percent", "{}.", "{}%!")
INT_FORMS = ("{}", "{}/10", "{} / 10", "{} points", "{} pts", "{}.")


def test_read_percent_reads_every_integer_and_the_range_is_0_to_100_inclusive():
    for n in range(1000):
        for form in PERCENT_FORMS:
            text = form.format(n)
            assert read_percent(text) == (float(n) if n <= 100 else None), text


def test_read_percent_reads_decimals_at_both_ends():
    for text, value in (("0.0", 0.0), ("0.5%", 0.5), ("99.9", 99.9), ("100.0", 100.0), ("100.01", None), ("-1", None), ("-0.5", None)):
        assert read_percent(text) == value, text


def test_read_int_reads_every_integer_in_its_range_and_nothing_outside():
    for low, high in ((0, 10), (1, 10), (0, 100), (3, 3)):
        for n in range(1000):
            for form in INT_FORMS:
                text = form.format(n)
                assert read_int(text, low, high) == (n if low <= n <= high else None), (text, low, high)


def test_read_int_refuses_decimals_and_ranges():
    for text in ("7.5", "7-8", "7 to 8", "seven", "", "1234"):
        assert read_int(text, 0, 10_000) is None, text


def test_agreed_is_the_common_value_of_readings_that_all_agree():
    for k in range(6):
        for values in itertools.product((None, 0, 1, 2), repeat=k):
            expected = values[0] if values and None not in values and len(set(values)) == 1 else None
            assert agreed(list(values)) == expected, values
