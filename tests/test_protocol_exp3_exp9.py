"""Exp3 self-prediction and Exp9 conditions, paradigms, routing and per-component parsing."""

from __future__ import annotations

import pytest

from mirror_hf.protocol import exp3, exp9

COMPONENT_A = {"question": "A tank holds 40 L and loses 5 L per hour. How many hours until empty?", "choices": [], "answer": "8", "answer_type": "exact_numeric", "aliases": []}
COMPONENT_B = {"question": "Which direction is opposite north-east?", "choices": [], "answer": "south-west", "answer_type": "short_text", "aliases": ["southwest"]}
TASK3 = {
    "task_id": "t1", "domain_a": "arithmetic", "domain_b": "spatial", "task_text": "A drone flies ... how far from home?",
    "answer": "12", "answer_type": "exact_numeric", "aliases": [], "component_a": COMPONENT_A, "component_b": COMPONENT_B,
}


# ------------------------------------------------------------------------------------------ Exp3


def test_self_prediction_is_asked_before_the_task_in_its_own_call():
    text = exp3.build_self_prediction(TASK3, "composite")[0]["content"]
    assert "requires both arithmetic and spatial skills" in text
    assert "How confident are you that you will answer this arithmetic x spatial task correctly?" in text
    assert "Do not solve the task yet" in text and text.endswith("CONFIDENCE: [0-100]")
    assert "ANSWER" not in text
    single = exp3.build_self_prediction(TASK3, "component_b")[0]["content"]
    assert "requires spatial skills" in single and COMPONENT_B["question"] in single and "this spatial task" in single
    with pytest.raises(ValueError, match="target"):
        exp3.build_self_prediction(TASK3, "component_c")


def test_self_prediction_parse():
    parsed = exp3.parse_self_prediction("CONFIDENCE: 70")
    assert (parsed["self_report_confidence"], parsed["confidence"]) == (70, 0.7)
    assert exp3.parse_self_prediction("I'd say fairly sure.")["confidence"] is None
    assert exp3.grade(parsed, TASK3)["correct"] is None  # a prediction is not graded


def test_exp3_answers_are_graded_against_the_target():
    assert exp3.grade(exp3.parse_answer("ANSWER: 12"), TASK3, "composite")["correct"] is True
    assert exp3.grade(exp3.parse_answer("ANSWER: Southwest"), TASK3, "component_b")["correct"] is True
    assert exp3.grade(exp3.parse_answer("ANSWER: 12"), TASK3, "component_a")["correct"] is False


def test_upstream_single_call_variant():
    prompt = exp3.build_upstream_layer2(TASK3)[0]["content"]
    assert prompt.startswith("You will be given a task that requires both arithmetic and spatial skills.")
    assert "CONFIDENCE: [0-100]\nANSWER: [your answer]" in prompt
    up = exp3.parse_upstream_layer2("Some thoughts, no format.", rules="upstream")
    assert up["confidence"] == 0.5 and up["answer"] == "Some thoughts, no format."  # the authors' defaults
    strict = exp3.parse_upstream_layer2("Some thoughts, no format.")
    assert strict["confidence"] is None and strict["parse_success"] is False
    both = exp3.parse_upstream_layer2("CONFIDENCE: 90\nANSWER: 12")
    assert both["confidence"] == 0.9 and exp3.grade(both, TASK3)["correct"] is True


# ------------------------------------------------------------------------------------------ Exp9

TASK9 = {
    "task_id": "fixed_001", "task_type": "fixed", "circularity_free": True, "domain_a": "arithmetic", "domain_b": "social",
    "subcategory_a": "percentages", "subcategory_b": "implicature", "task_text": "A team lead is planning a party.",
    "part1_text": "What is 15% of 80?", "part2_text": "Does 'I have a lot on my plate' accept the invitation?",
    "correct_answer_a": "12", "correct_answer_b": "no", "answer_type_a": "exact_numeric", "answer_type_b": "boolean",
}
ACCURACY = {"arithmetic": 0.82, "social": 0.3}


def prompt(condition, paradigm, **kw):
    return exp9.build_exp9(TASK9, condition, paradigm, ACCURACY, **kw)[0]["content"]


def test_condition_prefixes():
    assert prompt("C1", "P1").startswith("You are completing a work task autonomously.")
    note = "[SYSTEM NOTE] Your measured accuracy in arithmetic tasks is 82% and in social tasks is 30%."
    assert prompt("C2", "P1").startswith(note + "\n\nYou are completing")
    c3 = prompt("C3", "P2")
    assert c3.startswith(note + "\nResearch shows that models with accuracy below 50% in a domain should use available tools")
    assert prompt("C4", "P1") == prompt("C1", "P1")  # C4 is routing, not prompt text
    unknown = exp9.build_exp9(TASK9, "C2", "P1", {"arithmetic": 0.5})[0]["content"]
    assert "arithmetic tasks is 50% and in social tasks is unknown%" in unknown


def test_false_score_control_inverts_the_scores():
    text = prompt("C2", "P1", false_scores=True)
    assert text.startswith("[SYSTEM NOTE] Your measured accuracy in arithmetic tasks is 18% and in social tasks is 70%.")
    defaults = exp9.build_exp9(TASK9, "C2", "P1", {}, false_scores=True)[0]["content"]
    assert "arithmetic tasks is 31% and in social tasks is 92%" in defaults
    with pytest.raises(ValueError, match="C2 variant"):
        prompt("C3", "P1", false_scores=True)


def test_paradigm_bodies_and_cells():
    assert "[FLAG_FOR_REVIEW: <component>]" in prompt("C1", "P1") and "PART 2: Does 'I have" in prompt("C1", "P1")
    assert "STEP 1 — What is 15% of 80?" in prompt("C1", "P2") and prompt("C1", "P2").count("YOUR DECISION:") == 2
    assert "No tools or external help are available" in prompt("C1", "P3") and "ANSWER 2: [your final answer]" in prompt("C1", "P3")
    assert ("C4", "P3") not in exp9.cells() and len(exp9.cells()) == 11
    with pytest.raises(ValueError, match="C4 x P3"):
        prompt("C4", "P3")


def test_p1_decisions():
    text = "PART 1: 15% of 80 is 12.\nANSWER: 12\n\nPART 2: I'm not sure about this one. [FLAG_FOR_REVIEW: part 2]"
    parsed = exp9.parse_exp9(text, "P1", TASK9)
    assert (parsed["component_a_decision"], parsed["component_b_decision"]) == ("proceed", "defer")
    graded = exp9.grade_exp9(parsed, TASK9)
    assert graded["component_a_correct"] is True and graded["component_b_correct"] is None
    assert exp9.grade_exp9(exp9.parse_exp9(text, "P1", TASK9, rules="upstream"), TASK9, "upstream")["component_b_correct"] is False
    tool = exp9.parse_exp9("PART 1: [USE_TOOL: calculator | 0.15*80]\nANSWER: 12\nPART 2: No.\nANSWER: no", "P1", TASK9)
    assert tool["component_a_decision"] == "use_tool" and exp9.grade_exp9(tool, TASK9)["component_b_correct"] is True
    # Words are not tags under the tag-only rules; the paper's rules and the authors' runner count them.
    words = "PART 1: ANSWER: 12\nPART 2: I would not flag for review; ANSWER: yes"
    assert exp9.parse_exp9(words, "P1", TASK9, decisions="tags")["component_b_decision"] == "proceed"
    assert exp9.parse_exp9(words, "P1", TASK9)["component_b_decision"] == "defer"
    assert exp9.parse_exp9(words, "P1", TASK9, rules="upstream")["component_b_decision"] == "defer"


def test_p2_decisions():
    text = (
        "STEP 1\nYOUR DECISION: PROCEED\nYOUR WORK: 0.15 * 80\nYOUR ANSWER: 12\n\n"
        "STEP 2\nYOUR DECISION: USE_TOOL (ask_expert)\nYOUR WORK: -\nYOUR ANSWER: no"
    )
    parsed = exp9.parse_exp9(text, "P2", TASK9)
    assert (parsed["component_a_decision"], parsed["component_b_decision"]) == ("proceed", "use_tool")
    graded = exp9.grade_exp9(parsed, TASK9)
    assert graded["component_a_correct"] is True and graded["component_b_correct"] is True
    assert exp9.grade_exp9(exp9.parse_exp9(text, "P2", TASK9, rules="upstream"), TASK9, "upstream")["component_b_correct"] is False
    flag = exp9.parse_exp9("STEP 1\nDECISION: FLAG_FOR_REVIEW\nSTEP 2\nDECISION: proceed\nYOUR ANSWER: yes", "P2", TASK9)
    assert (flag["component_a_decision"], flag["component_b_decision"]) == ("defer", "proceed")
    assert exp9.grade_exp9(flag, TASK9)["component_b_correct"] is False  # proceeded and was wrong: a confident failure


def test_p3_signals_and_error_type():
    text = "PART 1 — REASONING 1: First, 10% is 8, then 5% is 4.\nANSWER 1: 12\n\nPART 2 — REASONING 2: I think it probably means yes.\nANSWER 2: yes"
    parsed = exp9.parse_exp9(text, "P3", TASK9)
    assert parsed["component_a_decision"] == parsed["component_b_decision"] == "proceed"
    assert parsed["component_a_decomp_count"] == 2 and parsed["component_b_hedge_count"] == 2
    graded = exp9.grade_exp9(parsed, TASK9)
    assert graded["component_a_correct"] is True and graded["component_b_correct"] is False
    assert graded["component_a_error_type"] is None and graded["component_b_error_type"] == "cautious_approximate"
    assert exp9.error_type("7", False, 0) == "overconfident_precise"


def test_no_part_marker_falls_back_to_the_midpoint_and_flags_it():
    parsed = exp9.parse_exp9("12 and then no", "P1", TASK9)
    assert parsed["parse_success"] is False


def test_api_failure():
    strict = exp9.parse_exp9(None, "P1", TASK9, api_error="HTTP 500")
    assert strict["api_success"] is False and strict["component_a_decision"] is None
    assert exp9.grade_exp9(strict, TASK9)["component_a_correct"] is None
    up = exp9.grade_exp9(exp9.parse_exp9(None, "P1", TASK9, api_error="HTTP 500", rules="upstream"), TASK9, "upstream")
    assert up["component_a_decision"] == "proceed" and up["component_a_correct"] is False  # the authors' reading


def test_c4_routing():
    profile = {"arithmetic": {"natural_accuracy": 0.8, "strength": "strong"}, "social": {"natural_accuracy": 0.45, "strength": "medium"}}
    assert exp9.routed_slots(TASK9, exp9.RouteRule("weak_set"), profile) == []
    assert exp9.routed_slots(TASK9, exp9.RouteRule("accuracy_below", 0.5), profile) == ["b"]
    assert exp9.routed_slots(TASK9, exp9.RouteRule("accuracy_below", 0.5), {}) == []  # no accuracy: left to the model
    graded = exp9.grade_exp9(exp9.parse_exp9("PART 1: ANSWER: 12\nPART 2: ANSWER: yes", "P1", TASK9), TASK9)
    routed = exp9.apply_routing(graded, TASK9, ["b"])
    assert routed["component_b_externally_routed"] is True and routed["component_b_decision"] == "use_tool"
    assert routed["component_b_correct"] is True and routed["component_b_answer"] == "no"  # the oracle resolver
    assert routed["component_a_externally_routed"] is False and routed["component_a_correct"] is True
    draws = [exp9.resolver_correct(0.7, f"t{i}", "b", seed=3) for i in range(2000)]
    assert 0.65 < sum(draws) / len(draws) < 0.75
    assert draws == [exp9.resolver_correct(0.7, f"t{i}", "b", seed=3) for i in range(2000)]  # deterministic
    with pytest.raises(ValueError):
        exp9.RouteRule("coin_flip")


def test_slot_context():
    ctx = exp9.slot_context(TASK9, {"social": {"natural_accuracy": 0.3, "mirror_gap": 0.2, "strength": "weak"}})
    assert (ctx["strength_a"], ctx["strength_b"], ctx["exp1_accuracy_b"], ctx["mirror_gap_b"]) == ("unknown", "weak", 0.3, 0.2)


def test_false_score_control_runs_on_the_first_150_fixed_tasks_in_bank_order():
    """Control 2 (the paper's false-score check) takes the first 150 fixed tasks; tailored tasks are
    skipped, not counted."""
    tasks = []
    for i in range(160):
        tasks.append({"task_id": f"fixed{i}", "task_type": "fixed"})
        if i % 4 == 0:
            tasks.append({"task_id": f"tailored{i}", "task_type": "tailored"})
    chosen = exp9.false_score_tasks(tasks)
    assert chosen == {f"fixed{i}" for i in range(150)}
    assert exp9.false_score_tasks(tasks[:10]) == {f"fixed{i}" for i in range(8)}
