"""The strict grader agrees with every item's own key, on every bank, on two seeds (issue 10).

For each item: the gold, each alias, the gold's letter and "<letter>) <gold>" grade correct and every
distractor and its letter grade wrong through `match`; "ANSWER: <gold>" in each channel's format and
the gold stated in prose grade correct through that channel's parser and grader (`matcher_sweep`).
The full sweep (every item of the default-size forms, ~6,700 per seed) is slow; the default run
checks a stratified sample of smaller forms that covers every (bank, subcategory, answer type).

Two answers in one response (issue 29): a distractor d and the gold g written as `A) d\nB) g`,
`g\nd`, `d\ng`, `d or g`, `g or d` or "Either g or d." grade wrong through `match` and every
channel's parser and grader; the gold twice, or the gold and an alias, grade right. Before the fix
7,925 of the 33,650 two-answer responses of seed 0 (every item with choices, through `match`)
graded correct; now none does.
"""

from __future__ import annotations

import pytest
from matcher_sweep import (
    SEEDS,
    TWO_ANSWER_FORMS,
    Gradable,
    _exp1_channels,
    bank_items,
    stratified_sample,
    two_answer_verdicts,
    two_answer_violations,
    upstream_distractor_acceptance,
    violations,
)

from mirror_hf.records import Question

SAMPLE_PER_DOMAIN = 45  # 3 items per (subcategory, difficulty) cell of each domain
SAMPLE_PER_CELL = 3


def _report(items: list[Gradable]) -> dict[str, list[str]]:
    found = {}
    for item in items:
        problems = violations(item)
        if problems:
            found[f"{item.bank} {item.id} (gold {item.answer!r})"] = problems
    return found


def _print_upstream(items: list[Gradable], label: str) -> None:
    accepted, total, per_bank = upstream_distractor_acceptance(items)
    print(f"\nmatcher='upstream' accepts {accepted} of {total} distractors ({accepted / total:.1%}) [{label}]")
    for bank, n in sorted(per_bank.items()):
        print(f"  {bank}: {n}")


@pytest.mark.parametrize("seed", SEEDS)
def test_strict_grader_agrees_with_the_key_on_a_stratified_sample(seed):
    items = bank_items(seed, SAMPLE_PER_DOMAIN)
    sample = stratified_sample(items, SAMPLE_PER_CELL, seed)
    cells = {(it.bank, it.subcategory, it.answer_type) for it in items}
    assert {(it.bank, it.subcategory, it.answer_type) for it in sample} == cells  # every cell is checked
    assert {it.bank.split(".")[0] for it in sample} == {
        "questions", "exp2_transfer", "exp3_composite", "exp3_component_a", "exp3_component_b", "exp9_fixed", "exp9_tailored",
    }
    found = _report(sample)
    print(f"\nseed {seed}: {len(sample)} items in {len(cells)} cells checked, {len(found)} with a disagreement")
    assert not found, "\n".join(f"{k}: {v}" for k, v in list(found.items())[:20])
    _print_upstream(sample, f"sample, seed {seed}")


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_strict_grader_agrees_with_the_key_on_every_item(seed):
    items = bank_items(seed)
    found = _report(items)
    print(f"\nseed {seed}: {len(items)} items checked, {len(found)} with a disagreement")
    assert not found, "\n".join(f"{k}: {v}" for k, v in list(found.items())[:20])
    _print_upstream(items, f"every item, seed {seed}")


def test_the_sweep_catches_a_broken_key():
    """The invariant can fail: an item whose key contradicts itself is reported."""
    q = Question(
        id="planted", domain="factual", subcategory="geography", difficulty="easy",
        question="What is the capital of France?", choices=("Rome", "Paris", "Paris, France", "Berlin"),
        answer="Paris", answer_type="short_text", aliases=("Rome",), generator="test", seed=0,
    )
    item = Gradable("questions", q.id, q.subcategory, q.answer, q.answer_type, q.aliases, q.choices, _exp1_channels, q)
    problems = violations(item)
    assert problems == ["match accepts the distractor 'Rome'", "match accepts the distractor letter A"]
    coordinates = Question(
        id="planted2", domain="spatial", subcategory="spatial_transformation", difficulty="easy",
        question="Where does the point (4, 12) go when reflected in y = x?", choices=("(12, 4)", "(4, 12)", "(13, 4)", "(12, 5)"),
        answer="(12, 4)", answer_type="short_text", aliases=("(12,4)", "(4, 12)"), generator="test", seed=0,
    )
    item = Gradable("questions", "planted2", "spatial_transformation", "(12, 4)", "short_text", coordinates.aliases,
                    coordinates.choices, _exp1_channels, coordinates)
    assert "match accepts the distractor '(4, 12)'" in violations(item)


def _two_answer_report(items: list[Gradable]) -> tuple[dict[str, list[str]], int, int]:
    found, graded, correct = {}, 0, 0
    for item in items:
        for _, where, verdict in two_answer_verdicts(item):
            graded += where == "match"
            correct += where == "match" and verdict is True
        problems = two_answer_violations(item)
        if problems:
            found[f"{item.bank} {item.id} (gold {item.answer!r})"] = problems
    return found, graded, correct


@pytest.mark.parametrize("seed", SEEDS)
def test_two_answers_are_correct_only_when_both_are_on_a_stratified_sample(seed):
    items = bank_items(seed, SAMPLE_PER_DOMAIN)
    sample = stratified_sample(items, SAMPLE_PER_CELL, seed)
    found, graded, correct = _two_answer_report(sample)
    print(f"\nseed {seed}: {graded} two-answer responses over {len(sample)} items, {correct} graded correct")
    assert graded >= len(TWO_ANSWER_FORMS) * 0.9 * len(sample)  # nearly every item has choices to draw d from
    assert not found, "\n".join(f"{k}: {v}" for k, v in list(found.items())[:20])


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_two_answers_are_correct_only_when_both_are_on_every_item(seed):
    items = bank_items(seed)
    found, graded, correct = _two_answer_report(items)
    print(f"\nseed {seed}: {graded} two-answer responses over {len(items)} items, {correct} graded correct")
    assert not found, "\n".join(f"{k}: {v}" for k, v in list(found.items())[:20])


def test_the_two_answer_sweep_catches_a_grader_that_takes_one_line(monkeypatch):
    """The check can fail: with the list reading switched off (the grader before issue 29: the first
    line, the last number, or the leading option wins), the sweep reports the item."""
    from mirror_hf.protocol import exp9, matching

    q = Question(
        id="planted3", domain="factual", subcategory="geography", difficulty="easy",
        question="What is the capital of France?", choices=("Paris", "Rome", "Berlin", "Madrid"),
        answer="Paris", answer_type="short_text", aliases=(), generator="test", seed=0,
    )
    item = Gradable("questions", q.id, q.subcategory, q.answer, q.answer_type, q.aliases, q.choices, _exp1_channels, q)
    assert two_answer_violations(item) == []
    monkeypatch.setattr(matching, "listed_answers", lambda *a, **k: None)
    monkeypatch.setattr(exp9, "listed_answers", lambda *a, **k: None)
    problems = two_answer_violations(item)
    assert r"match grades 'g\\nd' True" in problems and r"natural grades 'g\\nd' True" in problems
