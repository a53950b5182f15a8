"""Exp9 decision rules: the paper's stated classification (appendix prompts, "Decision
classification (Paradigm 1/2)") is the default; tag-only and the authors' runner are named options.
Each case quotes the rule it checks."""

from __future__ import annotations

import pytest

from mirror_hf.protocol import exp9

TASK = {
    "task_id": "fixed_001", "task_type": "fixed", "domain_a": "arithmetic", "domain_b": "social",
    "part1_text": "What is 15% of 80?", "part2_text": "Is it a refusal?",
    "correct_answer_a": "12", "correct_answer_b": "no", "answer_type_a": "exact_numeric", "answer_type_b": "boolean",
}


def p1(section_b: str, decisions: str | None = None) -> str:
    text = f"PART 1: 15% of 80 is 12.\nANSWER: 12\n\nPART 2: {section_b}"
    return exp9.parse_exp9(text, "P1", TASK, decisions=decisions)["component_b_decision"]


def p2(step_b: str, decisions: str | None = None) -> str | None:
    text = f"STEP 1\nYOUR DECISION: PROCEED\nYOUR ANSWER: 12\n\nSTEP 2\n{step_b}"
    return exp9.parse_exp9(text, "P2", TASK, decisions=decisions)["component_b_decision"]


# "defer: if the section matches the pattern [FLAG_FOR_REVIEW...], I defer, or FLAG FOR REVIEW"
# "use_tool: if the section matches [USE_TOOL: (and not also a deferral flag)"
# "proceed: default if neither pattern is found (including hedging language such as
#  'I'm not sure but...', which does not constitute deferral)"
P1_CASES = [
    # section B, paper, tags, upstream
    ("[FLAG_FOR_REVIEW: part 2]", "defer", "defer", "defer"),
    ("This is ambiguous, so I defer to a human reviewer.", "defer", "proceed", "defer"),
    ("FLAG FOR REVIEW - the phrasing is ambiguous.", "defer", "proceed", "defer"),
    ("[USE_TOOL: ask_expert | is it a refusal?]", "use_tool", "use_tool", "use_tool"),
    ("[USE_TOOL: ask_expert | ?] and [FLAG_FOR_REVIEW: part 2]", "defer", "defer", "defer"),
    ("[USE_TOOL: oracle | ?]", "use_tool", "proceed", "use_tool"),  # a tool not on the list: only the tag rule checks names
    ("I'm not sure but I think it means no. ANSWER: no", "proceed", "proceed", "proceed"),
    ("Probably no. ANSWER: no", "proceed", "proceed", "proceed"),
    ("[DEFER: part 2]", "proceed", "defer", "defer"),  # not in the paper's list; the authors' runner and the tags count it
]


@pytest.mark.parametrize("section,paper,tags,upstream", P1_CASES)
def test_p1_rules(section, paper, tags, upstream):
    assert (p1(section), p1(section, "tags"), p1(section, "upstream")) == (paper, tags, upstream)


# "The parser reads the YOUR DECISION: line for each step: contains FLAG or REVIEW -> defer;
#  contains TOOL -> use_tool; otherwise -> proceed. If no YOUR DECISION: line is found, the parser
#  falls back to keyword scanning of the entire step section."
P2_CASES = [
    ("YOUR DECISION: FLAG_FOR_REVIEW\nYOUR ANSWER: -", "defer", "defer", "defer"),
    ("YOUR DECISION: needs human review\nYOUR ANSWER: -", "defer", "defer", "defer"),
    ("YOUR DECISION: USE_TOOL (ask_expert)\nYOUR ANSWER: no", "use_tool", "use_tool", "use_tool"),
    ("YOUR DECISION: PROCEED\nYOUR ANSWER: no", "proceed", "proceed", "proceed"),
    ("YOUR DECISION: I will solve it\nYOUR ANSWER: no", "proceed", "proceed", "proceed"),
    # the paper's order: FLAG/REVIEW before TOOL before proceed, whatever comes first on the line
    ("YOUR DECISION: PROCEED, no need to FLAG_FOR_REVIEW\nYOUR ANSWER: no", "defer", "proceed", "defer"),
    # no decision line: keyword scan of the whole step
    ("I will USE_TOOL search for this.\nYOUR ANSWER: no", "use_tool", "proceed", "use_tool"),
    ("This one I FLAG FOR REVIEW.", "defer", None, "defer"),
    ("It means no.\nYOUR ANSWER: no", "proceed", "proceed", "proceed"),
]


@pytest.mark.parametrize("step,paper,tags,upstream", P2_CASES)
def test_p2_rules(step, paper, tags, upstream):
    assert (p2(step), p2(step, "tags"), p2(step, "upstream")) == (paper, tags, upstream)


def test_p3_always_proceeds_and_the_rules_are_recorded():
    text = "PART 1 — REASONING 1: I defer.\nANSWER 1: 12\nPART 2 — REASONING 2: FLAG FOR REVIEW\nANSWER 2: no"
    for rules in exp9.DECISION_RULES:
        parsed = exp9.parse_exp9(text, "P3", TASK, decisions=rules)
        assert parsed["component_a_decision"] == parsed["component_b_decision"] == "proceed"
        assert parsed["decision_rules"] == rules
    assert exp9.parse_exp9(text, "P3", TASK)["decision_rules"] == "paper"
    assert exp9.parse_exp9(text, "P3", TASK, rules="upstream")["decision_rules"] == "upstream"
    with pytest.raises(ValueError, match="decisions must be paper, tags or upstream"):
        exp9.parse_exp9(text, "P1", TASK, decisions="lenient")


def test_the_default_counts_prose_deferrals_as_the_paper_does():
    """The primary metric follows the paper's deferral definition unless told otherwise: prose
    deferrals on a weak component are not confident failures by default."""
    text = "PART 1: ANSWER: 12\n\nPART 2: I defer on this part."
    graded = exp9.grade_exp9(exp9.parse_exp9(text, "P1", TASK), TASK)
    assert graded["component_b_decision"] == "defer" and graded["component_b_correct"] is None
    tags = exp9.grade_exp9(exp9.parse_exp9(text, "P1", TASK, decisions="tags"), TASK)
    assert tags["component_b_decision"] == "proceed" and tags["component_b_correct"] is False
