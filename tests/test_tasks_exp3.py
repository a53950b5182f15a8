"""`exp3_composite` (issue 4): 28 pairs x 4 chained tasks whose composite gold is recomputed from the
two components' computed answers, and whose components are valid Questions of their domains."""

from __future__ import annotations

import collections
import json
import re

import pytest

from tasks_oracles import assert_valid_question, consumer_answer, producer_value

from mirror_hf.records import DIFFICULTIES, DOMAINS, EXP3_TASK_FEATURES
from mirror_hf.tasks.exp3 import composite_tasks


@pytest.fixture(scope="module")
def tasks() -> list[dict]:
    return composite_tasks(0, list(DOMAINS))


def test_112_tasks_4_per_unordered_pair_both_directions(tasks):
    assert len(tasks) == 112
    per_pair = collections.Counter(frozenset((t["domain_a"], t["domain_b"])) for t in tasks)
    assert len(per_pair) == 28 and set(per_pair.values()) == {4}
    directions = collections.Counter((t["domain_a"], t["domain_b"]) for t in tasks)
    assert all(directions[(a, b)] == 2 for a in DOMAINS for b in DOMAINS if a != b)
    assert len({t["task_id"] for t in tasks}) == 112
    assert len({t["task_text"] for t in tasks}) == 112
    assert all(set(t) == set(EXP3_TASK_FEATURES) for t in tasks)


def test_strata_are_balanced_within_each_pair_and_overall(tasks):
    by_pair = collections.defaultdict(list)
    for t in tasks:
        by_pair[frozenset((t["domain_a"], t["domain_b"]))].append(t["stratum"])
    for strata in by_pair.values():
        assert {"easy+easy", "medium+medium", "hard+hard"} <= set(strata)
        mixed = [s for s in strata if len(set(s.split("+"))) == 2]
        assert len(mixed) == 1
    levels = collections.Counter(d for t in tasks for d in t["stratum"].split("+"))
    assert set(levels) == set(DIFFICULTIES)
    assert max(levels.values()) - min(levels.values()) <= 8, levels
    for t in tasks:
        assert t["stratum"] == f"{t['component_a']['difficulty']}+{t['component_b']['difficulty']}"


def test_components_are_valid_questions_with_recomputed_gold(tasks):
    for t in tasks:
        a = assert_valid_question(t["component_a"], t["domain_a"])
        b = assert_valid_question(t["component_b"], t["domain_b"])
        assert producer_value(a.params, a.question) == int(a.answer), a.id
        assert b.params["input"] == int(a.answer), "component B is stated with A's true answer"
        assert consumer_answer(b.params, b.params["input"], b.question) == b.answer, b.id
        assert str(b.params["input"]) in b.question


def test_composite_gold_is_recomputed_from_the_components_answers(tasks):
    for t in tasks:
        a, b = t["component_a"], t["component_b"]
        link = json.loads(t["params"])["chain"]
        assert (link["from"], link["to"]) == ("component_a.answer", "component_b.params.input")
        params_b = json.loads(b["params"])
        # the chaining: B's rule applied to A's computed answer, read from the composite's own text
        composite_b_text = t["task_text"].split("Step 2: Let X be the answer to step 1. ", 1)[1]
        recomputed = consumer_answer(params_b, int(a["answer"]), composite_b_text)
        assert t["answer"] == recomputed == b["answer"], t["task_id"]
        assert a["question"] in t["task_text"] and re.search(r"\bX\b", composite_b_text)
        assert t["answer"] in t["choices"] and len(set(t["choices"])) == 4
        assert t["answer_type"] == b["answer_type"]


def test_a_wrong_first_step_leads_to_a_listed_wrong_composite(tasks):
    """The composite's distractors come first from errors propagated out of step 1."""
    propagated = 0
    for t in tasks:
        params_b = json.loads(t["component_b"]["params"])
        composite_b_text = t["task_text"].split("Step 2: Let X be the answer to step 1. ", 1)[1]
        wrong_a = [int(c) for c in t["component_a"]["choices"] if c != t["component_a"]["answer"]]
        outcomes = {consumer_answer(params_b, w, composite_b_text) for w in wrong_a} - {t["answer"]}
        propagated += bool(outcomes & set(t["choices"]))
    assert propagated >= 0.9 * len(tasks)


def test_deterministic_per_seed(tasks):
    assert composite_tasks(0, list(DOMAINS)) == tasks
    other = composite_tasks(1, list(DOMAINS))
    assert sum(o["task_text"] == t["task_text"] for o, t in zip(other, tasks)) <= 3


def test_answer_positions_are_balanced(tasks):
    letters = collections.Counter(t["choices"].index(t["answer"]) for t in tasks)
    assert set(letters) == {0, 1, 2, 3} and max(letters.values()) - min(letters.values()) <= 6


def test_stack_and_queue_components_offer_only_pushed_values(tasks):
    seen = 0
    for t in tasks:
        for part in ("component_a", "component_b"):
            params = json.loads(t[part]["params"])
            if params.get("kind") == "procedural.stack_trace":
                pushed = {str(v) for op, v in params["ops"] if op == "push"}
                assert set(t[part]["choices"]) <= pushed, (t["task_id"], t[part]["choices"], pushed)
                seen += 1
    assert seen >= 5
