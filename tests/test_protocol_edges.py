"""Edge cases of the grader and the parsers that mutation testing (benchmarks/mutation.py) showed
no other test pinned down. Expected values are worked out by hand."""

from __future__ import annotations

import itertools

import pytest

from mirror_hf.protocol import exp1, exp3
from mirror_hf.protocol.matching import MATCHERS, check_matcher, match_upstream

COMPOSITE_WITH_ALIAS = {
    "task_id": "t2", "domain_a": "spatial", "domain_b": "linguistic", "task_text": "Which way is the wind blowing from?",
    "answer": "north-east", "answer_type": "short_text", "aliases": ["northeast", "NE"],
    "component_a": {"question": "Q?", "choices": [], "answer": "north", "answer_type": "short_text", "aliases": ["N"]},
    "component_b": {"question": "Q?", "choices": [], "answer": "east", "answer_type": "short_text", "aliases": []},
}


def test_check_matcher_returns_its_argument():
    assert [check_matcher(m) for m in MATCHERS] == ["strict", "upstream"]
    with pytest.raises(ValueError, match="matcher must be one of"):
        check_matcher("lenient")


@pytest.mark.parametrize(("answer", "target", "correct"), [
    ("NE", "composite", True),  # an alias of the composite's gold
    ("northeast", "composite", True),
    ("north-west", "composite", False),
    ("N", "component_a", True),  # an alias of a component's gold
    ("S", "component_a", False),
])
def test_exp3_grades_aliases_of_the_target(answer, target, correct):
    graded = exp3.grade(exp3.parse_answer(f"ANSWER: {answer}"), COMPOSITE_WITH_ALIAS, target)
    assert graded["correct"] is correct


@pytest.mark.parametrize(("text", "skipped", "answer"), [
    ("ANSWER: 12", False, "12"),
    ("Don't skip.\nANSWER: 12", False, "12"),
    ("SKIP", True, None),
    ("I'd rather SKIP this question.", True, None),
])
def test_upstream_opt_out(text, skipped, answer):
    from mirror_hf.protocol.exp1 import parse_opt_out

    parsed = parse_opt_out(text, rules="upstream")
    assert parsed["skipped"] is skipped and parsed["answer"] == answer and parsed["parse_success"] is True


@pytest.mark.parametrize(("text", "value"), [("CONFIDENCE: 70", 70.0), ("Confidence: 150", 100.0), ("no number", None)])
def test_upstream_self_prediction(text, value):
    parsed = exp3.parse_self_prediction(text, rules="upstream")
    assert parsed["self_report_confidence"] == value
    assert parsed["confidence"] == (None if value is None else value / 100)


def test_strict_opt_out_prose_answer_is_an_answer():
    from mirror_hf.protocol.exp1 import parse_opt_out

    parsed = parse_opt_out("The capital of France is Paris.")
    assert parsed["skipped"] is False and parsed["answer"] == "The capital of France is Paris." and parsed["confidence"] == 1.0


def test_strict_self_prediction_refusal():
    parsed = exp3.parse_self_prediction("I'm sorry, but I can't assist with that request.")
    assert parsed["refused"] is True and parsed["confidence"] is None and parsed["parse_success"] is False


def test_upstream_extract_reads_skip_only_on_the_opt_out_channel():
    from mirror_hf.protocol.matching import upstream_extract

    text = "This one is beyond me, I will SKIP it"
    assert upstream_extract(text, channel="opt_out") == "SKIP" and upstream_extract(text, channel=2) == "SKIP"
    assert upstream_extract(text, channel="wagering") == text and upstream_extract(text) == text


def test_exp3_component_with_choices_is_graded_by_letter():
    task = dict(COMPOSITE_WITH_ALIAS)
    task["component_b"] = {"question": "Which?", "choices": ["west", "east", "up", "down"], "answer": "east",
                           "answer_type": "multiple_choice", "aliases": []}
    assert exp3.grade(exp3.parse_answer("ANSWER: B"), task, "component_b")["correct"] is True
    assert exp3.grade(exp3.parse_answer("ANSWER: A"), task, "component_b")["correct"] is False


def test_upstream_extract_conclusion_words():
    from mirror_hf.protocol.matching import upstream_extract

    assert upstream_extract("I added the two crates together.\nThus, the total is 42 apples") == "42 apples"
    assert upstream_extract("Counting again carefully, so 17 remain") == "17 remain"


def test_upstream_extract_value_after_the_last_equals_sign():
    from mirror_hf.protocol.matching import upstream_extract

    assert upstream_extract("Working it out step by step\n6 * 7 = 42") == "42"


def test_upstream_extract_units_and_approximations():
    from mirror_hf.protocol.matching import upstream_extract

    assert upstream_extract("After measuring twice, the plank measures 12 feet") == "12"
    assert upstream_extract("The crowd was approximately 250 people in all") == "250"


def test_route_rule_accuracy_below_is_strict():
    from mirror_hf.protocol.exp9 import RouteRule

    rule = RouteRule("accuracy_below", 0.5)
    assert rule.routes(None, 0.49) is True and rule.routes(None, 0.5) is False and rule.routes("weak", None) is False
    assert RouteRule().routes("weak", 0.9) is True and RouteRule().routes("strong", 0.1) is False


# ---------------------------------------------------------------- mutation run 3 (seed 0, 50 per group)


def test_tool_followup_without_an_answer_line_takes_the_last_non_empty_line():
    first = exp1.parse_tool_delegation("[USE_TOOL: calculator | 3 * 4]")
    results = exp1.run_tools(first)
    pool = ("The product is", "12", "  3 x 4 = 12  ", "so 12.")
    for k in range(1, 5):
        for lines in itertools.product(pool, repeat=k):
            text = "\n\n".join(lines) + "\n"
            assert exp1.parse_tool_followup(text, first, results)["answer"] == lines[-1].strip(), lines


def test_upstream_layer2_clips_every_stated_confidence_into_0_100():
    for n in range(1000):
        parsed = exp1.parse_layer2(f"CONFIDENCE: {n}\nANSWER: Paris", rules="upstream")
        assert parsed["self_report_confidence"] == float(min(n, 100)), n


# The boolean words of the authors' match_answer_robust (true-words are checked first), written out by hand.
UPSTREAM_TRUE = ("true", "yes", "correct", "t", "y", "1", "right")
UPSTREAM_FALSE = ("false", "no", "incorrect", "f", "n", "0", "wrong")


@pytest.mark.parametrize("gold", ["true", "false", "True.", "No"])
def test_upstream_boolean_grading_compares_the_truth_values(gold):
    gold_value = gold.lower().strip(".") in ("true", "yes")
    for words, value in ((UPSTREAM_TRUE, True), (UPSTREAM_FALSE, False)):
        for word in words:
            for pred in (word, word.upper(), f"{word}.", f"I say {word}"):
                assert match_upstream(pred, gold, "boolean") is (value == gold_value), (pred, gold)
    assert match_upstream("maybe", gold, "boolean") is False


def test_every_bet_from_0_to_20_is_kept_exactly_when_it_is_1_to_10_under_either_rules():
    for rules in ("strict", "upstream"):
        for n in range(21):
            parsed = exp1.parse_wagering(f"ANSWER: Paris\nBET: {n}", rules=rules)
            assert parsed["bet"] == (n if 1 <= n <= 10 else None), (rules, n)


@pytest.mark.parametrize("finish_reason", ["length", "stop", None, "content_filter"])
@pytest.mark.parametrize("rules", ["strict", "upstream"])
def test_exp9_marks_a_response_truncated_exactly_when_the_endpoint_stopped_at_the_length_limit(finish_reason, rules):
    from mirror_hf.protocol import exp9

    parsed = exp9.parse_exp9("PROCEED\nANSWER: 12", "P1", None, finish_reason=finish_reason, rules=rules)
    assert parsed["truncated"] is (finish_reason == "length")


@pytest.mark.parametrize("answer", ["12", "Paris", "-3.5", "(1, 2)", "no"])
def test_strict_opt_out_with_an_answer_line_is_a_parsed_answer_not_a_skip(answer):
    from mirror_hf.protocol.exp1 import parse_opt_out

    for text in (f"ANSWER: {answer}", f"Let me think.\nANSWER: {answer}\n"):
        parsed = parse_opt_out(text)
        assert (parsed["skipped"], parsed["parse_success"], parsed["answer"]) == (False, True, answer), text


def test_exp9_error_type_of_a_wrong_unhedged_answer_is_precise_up_to_six_words_or_with_a_number():
    from mirror_hf.protocol.exp9 import error_type

    for n in range(1, 13):
        words = " ".join(["word"] * n)
        assert error_type(words, False, 0) == ("overconfident_precise" if n <= 6 else "cautious_approximate"), n
        assert error_type(words + " 42", False, 0) == "overconfident_precise"
        assert error_type(words, False, 1) == "cautious_approximate"
        assert error_type(words, True, 0) is None and error_type(words, None, 0) is None


@pytest.mark.parametrize("gold", ["No, the artist never painted it.", "Yes, three times a year."])
def test_a_yes_no_gold_matches_the_bare_word_only_not_any_sentence_leading_with_it(gold):
    """A gold that leads with yes/no is matched by the bare word; a sentence that leads with the same
    word but says something else is graded on its words (and here is wrong)."""
    from mirror_hf.protocol.matching import match_strict

    word = gold.split(",")[0]
    other = "Yes" if word == "No" else "No"
    for pred in (word, word.lower(), f"{word}."):
        assert match_strict(pred, gold, "short_text") is True, pred
    for pred in (other, f"{word}, it was a sculpture by someone else.", f"{word}, only once."):
        assert match_strict(pred, gold, "short_text") is False, pred


@pytest.mark.parametrize(("pred", "gold", "right"), [
    # the authors' unknown-type chain reads booleans by substring, true-words first: "no" and "false"
    # agree; "incorrect" contains "correct" (and "t"), so it reads as true (their quirk, kept)
    ("no", "false", True), ("false", "no", True), ("NO.", "FALSE", True), ("yes", "incorrect", True),
    ("no", "incorrect", False), ("yes", "true", True), ("no", "true", False), ("false", "correct", False),
    # a text with none of the words is no boolean at all: compared as text, so wrong
    ("pi", "no", False), ("abc", "false", False), ("pi", "yes", False),
])
def test_upstream_unknown_type_booleans_by_substring(pred, gold, right):
    assert match_upstream(pred, gold, None) is right


@pytest.mark.parametrize("gold", ["42", "3.5", "1,200", "-7"])
def test_upstream_numeric_with_an_unreadable_side_is_wrong_not_an_error(gold):
    for pred in ("no idea", "", "forty-two", "I cannot say."):
        assert match_upstream(pred, gold, "exact_numeric") is False, pred
        assert match_upstream(gold, pred or "none", "exact_numeric") is False, pred


@pytest.mark.parametrize(("pred", "gold", "right"), [
    # an integer gold written without decimals is a count: only the same number is right
    ("42.4", "42", False), ("42.49", "42", False), ("41.6", "42", False), ("1200.3", "1200", False), ("42.0", "42", True),
    # the same value written with one decimal is a measurement: a finer answer rounding to it is right
    ("42.04", "42.0", True), ("42.06", "42.0", False), ("-42.04", "-42.0", True),
])
def test_a_count_gold_is_exact_and_a_decimal_gold_takes_finer_answers_that_round_to_it(pred, gold, right):
    from mirror_hf.protocol.matching import match_strict

    assert match_strict(pred, gold, "exact_numeric") is right


def test_upstream_extractor_takes_a_therefore_phrase_of_at_most_60_characters():
    """The authors' rule: up to 80 characters after "therefore/so/thus/hence", kept only if at most
    60; a longer one falls through (here, for a short-text item, to the whole text)."""
    from mirror_hf.protocol.matching import upstream_extract

    for n in range(1, 81):
        phrase = "x" * n
        for lead in ("Therefore, ", "So ", "thus "):
            text = lead + phrase
            assert upstream_extract(text, "short_text") == (phrase if n <= 60 else text), (lead, n)


@pytest.mark.parametrize(("text", "api_error"), [(None, "HTTP 500"), ("PROCEED\nANSWER: 12", "timeout"), (None, None)])
def test_strict_exp9_failed_call_is_not_parsed(text, api_error):
    from mirror_hf.protocol import exp9

    parsed = exp9.parse_exp9(text, "P1", None, api_error=api_error)
    assert parsed["api_success"] is False and parsed["parse_success"] is False
    assert all(parsed[f"component_{s}_decision"] is None for s in ("a", "b"))


def test_exp9_reasoning_is_split_by_the_rules_asked_for():
    """Strict keeps the server's reasoning_content and treats an unclosed <think> as reasoning;
    the authors' split keeps only closed blocks (the unclosed one stays in the text)."""
    from mirror_hf.protocol import exp9

    cut = "<think>the first part is easy, the second"
    strict = exp9.parse_exp9(cut, "P1", None, reasoning_content="server-side thoughts")
    upstream = exp9.parse_exp9(cut, "P1", None, reasoning_content="server-side thoughts", rules="upstream")
    assert strict["reasoning"] == "server-side thoughts\n\nthe first part is easy, the second"
    assert upstream["reasoning"] is None


def test_a_short_text_quantity_gold_of_up_to_four_words_beside_its_number_takes_the_bare_number():
    """"About 96 books" is one quantity, so "96" and "96 books" answer it; with five or more words
    beside the number the gold is a sentence that happens to hold a number, and only its text counts."""
    from mirror_hf.protocol.matching import match_strict

    extra = ["red", "old", "thick", "heavy", "dusty", "paper"]
    for k in range(1, 7):
        gold = " ".join(["96", *extra[: k - 1], "books"])
        assert match_strict("96", gold, "short_text") is (k <= 4), gold
        assert match_strict("96 books", gold, "short_text") is (k <= 4), gold
        assert match_strict("97", gold, "short_text") is False, gold
        assert match_strict(gold, gold, "short_text") is True, gold


REFUSAL = "I'm sorry, but I can't help with that."


def test_a_refusal_is_flagged_and_unparsed_in_the_layer2_opt_out_and_tool_follow_up_turns():
    for rules in ("strict", "upstream"):
        parsed = exp1.parse_layer2(REFUSAL, rules=rules)
        assert parsed["refused"] is True and parsed["parse_success"] is False and parsed["self_report_confidence"] is None
        parsed = exp1.parse_opt_out(REFUSAL, rules=rules)
        assert parsed["refused"] is True and parsed["parse_success"] is False and parsed["answer"] is None
    first = exp1.parse_tool_delegation("[USE_TOOL: calculator | 3 * 4]")
    final = exp1.parse_tool_followup(REFUSAL, first, exp1.run_tools(first))
    assert (final["refused"], final["parse_success"], final["answer"]) == (True, False, None)


@pytest.mark.parametrize(("pred", "gold", "right"), [
    # an answer rounded to two decimals must be the gold rounded to two decimals (half a unit of its
    # last place): 3.14 answers 3.14159, 3.15 and 3.13 do not
    ("3.14", "3.14159", True), ("3.15", "3.14159", False), ("3.13", "3.14159", False),
    ("2.72", "2.71828", True), ("2.73", "2.71828", False), ("-3.14", "-3.14159", True), ("-3.15", "-3.14159", False),
])
def test_a_rounded_answer_must_be_the_gold_rounded_to_its_decimals(pred, gold, right):
    from mirror_hf.protocol.matching import match_strict

    assert match_strict(pred, gold, "exact_numeric") is right


@pytest.mark.parametrize(("pred", "gold", "right"), [
    ("3/4", "0.75", True), ("1/4", "0.25", True), ("6/3", "2", True), ("3/4", "1", False), ("2/8", "0.75", False), ("1/0", "1", False),
])
def test_upstream_numeric_reads_a_fraction_as_its_quotient(pred, gold, right):
    assert match_upstream(pred, gold, "exact_numeric") is right
