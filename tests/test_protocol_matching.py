"""Answer matching: the strict typed matcher and the authors' lenient one, side by side."""

from __future__ import annotations

from decimal import Decimal

import pytest

from mirror_hf.protocol.matching import extract_final_answer, match, normalise_answer, read_number, upstream_extract


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


# ------------------------------------------------------------- regressions quoted in issue 10


@pytest.mark.parametrize(
    ("pred", "gold"),
    [
        ("(99, -7)", "(12, 4)"),  # a whole parenthesised answer is not an aside
        ("(4, 12)", "(12, 4)"),  # coordinates are ordered
        ("(13, 4)", "(12, 4)"),
        ("(18, 30)", "(-18, 30)"),  # the sign of a coordinate
        ("(12, 4, 0)", "(12, 4)"),
        ("(Q implies S) implies R", "Q implies (S implies R)"),  # grouping parentheses
        ("Loschmidt constant (273.15 K, 100 kPa)", "Loschmidt constant (273.15 K, 101.325 kPa)"),
        ("Molar volume of ideal gas (273.15 K, 100 kPa)", "Molar volume of ideal gas (273.15 K, 101.325 kPa)"),
        ("Loschmidt constant", "Loschmidt constant (273.15 K, 101.325 kPa)"),  # the gold's parenthetical is substance
    ],
)
def test_parentheses_that_carry_the_answer_are_compared(pred, gold):
    assert strict(pred, gold, "short_text") is False
    assert strict(gold, gold, "short_text") is True


def test_tuples_compare_by_their_numbers():
    assert strict("(12,4)", "(12, 4)", "short_text") is True
    assert strict("12, 4", "(12, 4)", "short_text") is True
    assert strict("(12.0, 4)", "(12, 4)", "short_text") is True
    assert strict("The answer is (12, 4).", "(12, 4)", "short_text") is True
    assert strict("(12, 12)", "12", "exact_numeric") is False  # a tuple is not one quantity
    assert strict("12", "(12, 12)", "short_text") is False
    assert strict("[8, 9, 14, 17, 25]", "[8, 9, 17, 14, 25]", "short_text") is False
    # Spatial-transformation choices as generated: only the gold's own letter or text is right.
    choices = ("(12, 4)", "(4, 12)", "(13, 4)", "(12, 5)")
    assert [strict(c, "(12, 4)", "short_text", choices=choices) for c in choices] == [True, False, False, False]
    assert [strict(letter, "(12, 4)", "short_text", choices=choices) for letter in "ABCD"] == [True, False, False, False]


def test_a_trailing_aside_is_dropped_only_when_the_gold_has_none():
    assert strict("first Apple computer (1976)", "first Apple computer", "short_text") is True
    assert strict("Paris (the capital)", "Paris", "short_text") is True
    assert strict("Paris (the capital)", "Paris (France)", "short_text") is False
    assert strict("(1976)", "1976", "short_text") is True  # by value, not by dropping it all


REGISTER_GOLD = (
    "Dear Professor Okafor, I would be most grateful for the opportunity to meet with you next week. I wish to "
    "discuss your feedback on my essay, if that would be convenient. I am available at your convenience. Yours "
    "sincerely, Victoria Marsh"
)
REGISTER_CHOICES = (
    "Dear Professor Okafor, Any chance we could meet up next week? I wanna go over your feedback on my essay. "
    "I'm free most afternoons. Cheers, Victoria",
    REGISTER_GOLD,
    "Hey Jo, Any chance we could meet up next week? I wanna go over your feedback on my essay. Cheers, Vic",
    "Dear Professor Okafor, I would be most grateful for the opportunity to meet with you next week. I wish to "
    "discuss your feedback on my essay. Cheers, Vic",
)


@pytest.mark.parametrize("choices", [REGISTER_CHOICES, ()], ids=["with choices", "open"])
def test_a_full_text_gold_is_compared_as_a_whole(choices):
    assert strict(REGISTER_GOLD, REGISTER_GOLD, "multiple_choice", choices=choices) is True
    assert strict(f"The answer is: {REGISTER_GOLD}", REGISTER_GOLD, "multiple_choice", choices=choices) is True
    assert strict(f"**{REGISTER_GOLD}**\n\nIt is the most formal.", REGISTER_GOLD, "multiple_choice", choices=choices) is True
    # Its first sentence alone is not the answer, nor is a distractor sharing that first sentence.
    first = REGISTER_GOLD.split(". ")[0]
    assert strict(first, REGISTER_GOLD, "multiple_choice", choices=choices) is False
    assert strict(REGISTER_CHOICES[3], REGISTER_GOLD, "multiple_choice", choices=choices) is False
    assert strict(f"The answer is {REGISTER_CHOICES[3]}", REGISTER_GOLD, "multiple_choice", choices=choices) is False


def test_full_text_gold_by_letter():
    assert strict(f"B) {REGISTER_GOLD}", REGISTER_GOLD, "multiple_choice", choices=REGISTER_CHOICES) is True
    assert strict(f"D) {REGISTER_GOLD}", REGISTER_GOLD, "multiple_choice", choices=REGISTER_CHOICES) is False
    exclaiming = "Hiya Nicky! I'm going for a new job. Any chance you'd be my reference? No worries if not! Cheers!! Hal"
    choices = ("Dear Mr Brennan, I am applying for a post.", exclaiming, "Hi Nicky. Reference? Hal", "Hello. Hal")
    assert strict(f"B) {exclaiming}", exclaiming, "multiple_choice", choices=choices) is True
    assert strict(exclaiming, exclaiming, "multiple_choice", choices=choices) is True


@pytest.mark.parametrize("name", ["St. Martin", "U.S. Virgin Islands", "St. Barthélemy", "Washington, D.C.", "Mt. Kilimanjaro"])
def test_abbreviations_with_periods(name):
    assert strict(name, name, "short_text") is True
    assert strict(f"The answer is {name}.", name, "short_text") is True
    assert strict(f"I am fairly sure it is this one.\n\nThe answer is {name}. It is well known.", name, "short_text") is True
    # Found without knowing the gold, from the sentence alone:
    found = extract_final_answer(f"Looking at the map.\nThe answer is {name}. It is well known.")
    assert normalise_answer(found) == normalise_answer(name)
    assert strict("St. Lucia", "St. Martin", "short_text") is False


def test_a_letter_answer_still_ends_its_sentence():
    choices = ("Rome", "Paris", "Madrid", "Berlin")
    assert strict("The answer is B. Paris is the capital.", "Paris", "multiple_choice", choices=choices) is True
    assert strict("No. The premise fails.", "no", "boolean") is True


# --------------------------------------------------------------------------- the sign of numbers


@pytest.mark.parametrize("negative", ["-5", "\u22125"])
@pytest.mark.parametrize("answer_type", ["exact_numeric", "short_text", None])
def test_the_sign_of_a_number_matters(negative, answer_type):
    assert strict(negative, "5", answer_type) is False
    assert strict("5", negative, answer_type) is False
    assert strict(negative, "-5", answer_type) is True
    assert strict(negative, "\u22125", answer_type) is True
    assert strict(f"The answer is {negative}.", "5", answer_type) is False
    assert strict(negative, "5", answer_type, choices=("5", "-5", "4", "6")) is False
    assert strict(negative, "5", answer_type, aliases=("five",)) is False


def test_signs_inside_answers():
    assert strict("UTC-5", "UTC+5", "short_text") is False
    assert strict("UTC\u22125", "UTC-5", "short_text") is True
    assert strict("-5 degrees", "5 degrees", "short_text") is False
    assert strict("x = -7", "7", "exact_numeric") is False
    assert strict("2-3", "2 3", "short_text") is True  # a hyphen between digits is no sign
    assert strict("north-west", "north west", "short_text") is True


# ------------------------------------------------------------------- boundaries (mutation testing)


def test_upstream_numeric_tolerance_is_one_for_integer_golds_from_1000_and_a_hundredth_below():
    """mirror-protocol §3 (the authors' rule): an integer gold with |gold| >= 1000 takes |d| <= 1,
    every other gold |d| <= 0.01 absolute. Offsets in whole units, and in thousandths short of
    and past a hundredth (0.009, 0.011: the hundredth itself is a float comparison)."""
    for gold in (1000, 1234, -5000, 253440, 999999):
        for k in range(-3, 4):
            assert upstream(str(gold + k), str(gold), "exact_numeric") is (abs(k) <= 1), (gold, k)
    for gold in ("999", "42", "-7", "3.14", "1000.5"):
        for k in (-30, -11, -9, 0, 9, 11, 30):  # thousandths
            pred = f"{Decimal(gold) + Decimal(k) / 1000:f}"
            assert upstream(pred, gold, "exact_numeric") is (abs(k) < 10), (pred, gold)


def test_upstream_short_text_takes_an_alias_that_is_no_substring_of_the_gold():
    """§3: equal, or equal to an alias, or a substring either way. "NYC" shares no substring with
    "New York City", so only the alias rule makes it right."""
    assert upstream("NYC", "New York City", "short_text", aliases=("NYC",)) is True
    assert upstream("nyc ", "New York City", "short_text", aliases=("NYC",)) is True  # lower + strip
    assert upstream("NYC", "New York City", "short_text") is False
    assert upstream("LA", "New York City", "short_text", aliases=("NYC",)) is False


def test_upstream_extracts_only_from_a_prediction_longer_than_30_characters():
    """§3 step 2: the extractor runs when len(pred) > 30. Here it finds "7" after "the answer is";
    without it the numeric rule reads the first number, 3. Padding spaces inside the text move its
    length from 21 to 40 characters."""
    for pad in range(1, 21):
        text = "3," + " " * pad + "9: the answer is 7"
        assert upstream(text, "7", "exact_numeric") is (len(text) > 30), len(text)
        assert upstream(text, "3", "exact_numeric") is (len(text) <= 30), len(text)


def test_upstream_keeps_the_whole_prediction_when_the_extraction_is_empty():
    """§3 step 2: the prediction is replaced only by a non-empty, shorter extraction. In this
    35-character answer "the answer is" is followed by nothing but a full stop, so the extraction
    is empty and the whole text (which holds the gold) is compared, by substring."""
    text = "Paris is my guess; the answer is  ."
    assert len(text) == 35 and upstream_extract(text, "short_text") == ""
    assert upstream(text, "Paris", "short_text") is True


def test_the_longest_known_answer_text_at_a_sentence_end_is_the_stated_answer():
    """Two options where one is the other's first sentence: a response opening with the longer one
    states the longer one (its text ends at the third full stop, not the first)."""
    choices = ("Stop.", "Stop. Look. Listen.", "Run.", "Wait.")
    response = "Stop. Look. Listen. That is the safe order of the steps at a crossing."
    assert extract_final_answer(response, "multiple_choice", choices) == "Stop. Look. Listen."
    assert strict(response, "Stop. Look. Listen.", "multiple_choice", choices=choices) is True
    assert strict(response, "Stop.", "multiple_choice", choices=choices) is False


def test_a_first_sentence_is_the_answer_up_to_six_words():
    """extract_final_answer's last rule: a first sentence of at most six words ("Sarcastic. The
    statement ...") is the answer; a longer one is not guessed at."""
    words = "alpha beta gamma delta epsilon zeta eta theta iota".split()
    for k in range(1, len(words) + 1):
        lead = " ".join(words[:k])
        response = f"{lead}. After that the response explains itself at some length here."
        assert extract_final_answer(response, "short_text") == (lead if k <= 6 else None), k


@pytest.mark.parametrize("gold", ["D-Day", "C. elegans", "A-levels", "B-52"])
def test_a_bare_letter_is_not_a_text_gold_that_starts_with_that_letter(gold):
    """Without options a letter names no choice: "D" does not answer "D-Day" (a text gold read as a
    letter and its rest would make it right); the gold's own text does."""
    letter = gold[0]
    for answer_type in ("short_text", None):
        assert strict(letter, gold, answer_type) is False, answer_type
        assert strict(f"({letter})", gold, answer_type) is False, answer_type
        assert strict(gold, gold, answer_type) is True, answer_type


def test_free_text_is_reduced_to_its_answer_line():
    """extract_final_answer's first rule, the ANSWER: line: the reasoning around it holds other
    numbers (3, 4), so only the line names the answer."""
    response = "I add 3 and 4.\nANSWER: 7\nCONFIDENCE: 8"
    assert extract_final_answer(response, "exact_numeric") == "7"
    assert strict(response, "7", "exact_numeric") is True
    assert strict(response, "4", "exact_numeric") is False


def test_over_twelve_words_on_one_line_is_free_text_reduced_to_its_answer_line():
    """_is_long: over 12 words is free text, which is reduced to its ANSWER: field; read whole,
    "ANSWER: yes ..." leads with the word "answer" and states no truth value."""
    reason = "because every premise holds and the conclusion follows from them all without exception".split()
    for n in range(13, 16):
        response = " ".join(["ANSWER:", "yes", *reason[: n - 2]])
        assert len(response.split()) == n
        assert strict(response, "Yes", "boolean") is True, n
        assert strict(response, "No", "boolean") is False, n


def test_a_boolean_answer_on_the_line_after_a_lead_in():
    """A yes/no leading the first or the second non-empty line is the answer ("Based on the
    rules:\\n\\nNo, ..."); the lead-in itself states none."""
    for word, truth in (("Yes", True), ("No", False)):
        response = f"Based on the rules above:\n\n{word}, it {'follows' if truth else 'does not follow'} from them."
        assert extract_final_answer(response, "boolean") == word.lower()
        assert strict(response, "Yes", "boolean") is truth
        assert strict(response, "No", "boolean") is (not truth)


def test_a_bold_boolean_is_the_answer_not_an_earlier_bold_phrase():
    """For a boolean item only bold spans that read as yes/no are answers; a bold heading ending in
    ":" is never one, for any type."""
    response = "Consider the **key rule** here.\nSo: **No**, it does not follow."
    assert extract_final_answer(response, "boolean") == "No"
    assert strict(response, "No", "boolean") is True
    assert extract_final_answer("**Reasoning:** the capital is the seat of government.\n\n**Paris**", "short_text") == "Paris"


def test_the_number_on_the_last_line_with_digits_is_the_answer():
    """For a numeric item without a label or bold: the single number of the last line that has
    digits (the earlier lines hold 3, 4, 7 and 5)."""
    response = "First I add 3 and 4 to get 7.\nThen I add 5 to that.\nThe total is 12"
    assert extract_final_answer(response, "exact_numeric") == "The total is 12"
    assert strict(response, "12", "exact_numeric") is True
    assert strict(response, "7", "exact_numeric") is False


def test_a_lower_case_letter_names_its_choice():
    choices = ("Rome", "Paris", "Oslo", "Bern")
    assert strict("b", "Paris", "multiple_choice", choices=choices) is True
    assert strict("c", "Paris", "multiple_choice", choices=choices) is False


def test_a_response_that_is_an_option_text_is_graded_as_that_option():
    """match_strict: a response that is, as a whole, one of the item's texts is compared as that
    text. "1 500" is option "1,500" up to punctuation and spacing (read alone it is two numbers)."""
    choices = ("1,500", "2,500", "3,500", "4,500")
    assert read_number("1 500") is None
    assert strict("1 500", "1,500", "exact_numeric", choices=choices) is True
    assert strict("2 500", "1,500", "exact_numeric", choices=choices) is False


def test_a_letter_past_the_last_option_is_wrong_whatever_follows_it():
    """With two options there is no C: "C) 15" names a choice that does not exist, so it is wrong
    even though the text after the letter is the gold (resolve_choice's "" verdict)."""
    choices = ("12", "15")
    assert strict("C) 15", "15", "exact_numeric", choices=choices) is False
    assert strict("B) 15", "15", "exact_numeric", choices=choices) is True


def test_an_answer_that_normalises_to_nothing_is_wrong_not_ungraded():
    """None means no answer or no usable gold (match's contract); "?" is an answer, and wrong."""
    for pred in ("?", "!!", "..."):
        assert strict(pred, "Paris", "short_text") is False, pred


def test_upstream_extractor_takes_the_first_standalone_letter_for_a_choice_item():
    """§3 extractor rule 5 (multiple_choice only): the first standalone A-D."""
    text = "I pick option B because it fits best"
    assert upstream_extract(text, "multiple_choice") == "B"
    assert upstream_extract(text, "short_text") == text  # rule 7: the text itself
    assert upstream(text, "B", "multiple_choice") is True


def test_upstream_unknown_type_chain():
    """§3, unknown type: numeric (+-0.01), then the letter rule only for a single-letter gold."""
    assert upstream("41.995", "42", None) is True  # |d| = 0.005
    assert upstream("41.98", "42", None) is False  # |d| = 0.02
    assert upstream("B", "B", None) is True
    assert upstream("C", "B", None) is False
    assert upstream("I would say (B)", "B", None) is True


def test_upstream_hundredth_tolerance_includes_the_hundredth():
    """§3: |d| <= 0.01 (inclusive) for a gold that is not an integer from 1000 on, for the numeric
    type and the unknown-type chain alike. 0.01 - 0 is exactly the float 0.01; 0.015 is past it."""
    for answer_type in ("exact_numeric", None):
        assert upstream("0.01", "0", answer_type) is True, answer_type
        assert upstream("-0.01", "0", answer_type) is True, answer_type
        assert upstream("41.985", "42", answer_type) is False, answer_type


def test_upstream_extractor_falls_back_to_the_first_200_characters():
    """§3 extractor rule 7: no rule fired, so the first 200 characters of the text."""
    text = " ".join(["lorem ipsum dolor amet"] * 15)  # 344 characters, no digits, labels or conclusion words
    assert len(text) == 344
    assert upstream_extract(text, "short_text") == text[:200]
    assert len(upstream_extract(text, "short_text")) == 200


def test_upstream_matcher_resolves_only_a_bare_letter_on_our_bank():
    """The authors' rules extended to a bank with options: a bare letter ("B", "(B)", "B.")
    stands for its option; anything longer is their text, and "Option B" shares no substring with
    "Paris" (§3 short_text)."""
    choices = ("Rome", "Paris", "Oslo", "Bern")
    for pred in ("B", "(B)", "B."):
        assert match(pred, "Paris", "short_text", (), choices, matcher="upstream") is True, pred
    assert match("Option B", "Paris", "short_text", (), choices, matcher="upstream") is False


def test_a_boolean_is_looked_for_on_the_first_two_lines_only():
    """extract_final_answer: "a yes/no leading one of the first two lines (booleans)"; a yes/no
    further down is not guessed at (the opening sentence is taken instead)."""
    lead_ins = ["Let me think about this.", "The rules say several things."]
    for k in range(3):
        response = "\n".join([*lead_ins[:k], "Yes, it follows.", "That is all."])
        assert extract_final_answer(response, "boolean") == ("yes" if k < 2 else "Let me think about this"), k


def test_upstream_matcher_counts_i_refuse_as_a_refusal():
    """§3 step 1: the matcher's refusal list is the parsers' list plus "i refuse"."""
    from mirror_hf.protocol.text import is_refusal_upstream

    assert is_refusal_upstream("I refuse. 5") is False  # the parsers' list alone
    assert upstream("I refuse. 5", "5", "exact_numeric") is False
    assert upstream("5", "5", "exact_numeric") is True


def test_upstream_unknown_type_boolean_rule_needs_both_sides_then_falls_to_text():
    """§3 unknown type: the boolean (substring) rule applies only when both sides read as one;
    "Paris" reads as none (no t, y, 1, f, n, 0 ...), so "Paris, France" goes on to the substring
    rule and is right."""
    assert upstream("Paris, France", "Paris", None) is True
    assert upstream("Rome, Italy", "Paris", None) is False


def test_a_fraction_with_denominator_one_is_its_numerator_and_zero_is_unreadable():
    """read_number: "a/b" is a fraction (10/1 is 10); a zero denominator reads as no number."""
    assert strict("10/1", "10", "exact_numeric") is True
    assert strict("10/1", "11", "exact_numeric") is False
    assert read_number("3/0") is None
    assert strict("3/0", "3", "exact_numeric") is False


def test_upstream_letter_falls_back_to_the_first_standalone_letter():
    """§3 multiple_choice: no leading-letter pattern fires, so the first standalone A-D token; the
    quirk the spec names: an article "a" before it, upper-cased, is picked instead."""
    assert upstream("I would pick B here", "B", "multiple_choice") is True
    assert upstream("I would pick C here", "B", "multiple_choice") is False
    assert upstream("I think a B is right", "B", "multiple_choice") is False  # "A" comes first
    assert upstream("I think a B is right", "A", "multiple_choice") is True


def test_upstream_number_reads_the_value_after_approximately():
    """§3 exact_numeric: "approximately N" is taken when present, else the first number (3 here)."""
    assert upstream("3 bags, approximately 40", "40", "exact_numeric") is True
    assert upstream("3 bags, approximately 40", "3", "exact_numeric") is False
    assert upstream("3 bags, about 40", "3", "exact_numeric") is True


def test_upstream_choice_without_a_letter_on_either_side_is_wrong():
    """§3 multiple_choice: both letters found -> equality; otherwise False, also when neither side
    has one ("paris" vs "Rome")."""
    assert upstream("paris", "Rome", "multiple_choice") is False
    assert upstream("paris", "A", "multiple_choice") is False


def test_a_value_after_the_last_equals_sign_and_a_number_on_its_own_last_line():
    """read_number: in "x = 3 + 4 = 7" the value after the last "=" counts; extract_final_answer:
    free text (several lines) is reduced to the single number of its last line with digits."""
    assert strict("x = 3 + 4 = 7", "7", "exact_numeric") is True
    assert strict("I add 3 and 4\n7", "7", "exact_numeric") is True
    assert strict("I add 3 and 4\n7", "4", "exact_numeric") is False


def test_upstream_unknown_type_with_one_numeric_side_goes_on_down_the_chain():
    """§3 unknown type: the numeric rule needs numbers on both sides; "42" against "Paris" is
    compared as text (and is wrong), not an error."""
    assert upstream("42", "Paris", None) is False
    assert upstream("Paris", "42", None) is False
