"""`run --answer-format choices|open` (issue 10): open asks an item without its options unless it is
typed multiple_choice, grades the typed answer, records the format in every trial and the manifest,
and `score` keeps the two formats apart."""

from __future__ import annotations

import json

import polars as pl
import pytest
from fakes.servers import openai_server
from runner_fixtures import cli_inproc, read_split

from mirror_hf.experiments import get
from mirror_hf.folder import split_files
from mirror_hf.protocol import exp1
from mirror_hf.protocol.formats import exp3_task_as_asked, exp9_task_as_asked, question_as_asked, shows_choices
from mirror_hf.runner.plan import PlanError, PlanOptions, build_plan
from mirror_hf.runner.trials import read_manifest


def _has_options(text: str) -> bool:
    return "\nA) " in text and "\nD) " in text


def test_open_keeps_options_only_for_multiple_choice_items():
    from mirror_hf.bank import generate_bank

    bank = generate_bank(0, 15)
    kinds = {q.answer_type for q in bank}
    assert {"multiple_choice", "short_text", "exact_numeric"} <= kinds
    for q in bank:
        asked = question_as_asked(q, "open")
        shown = exp1.question_text(asked)
        if q.answer_type == "multiple_choice":
            assert asked.choices == q.choices and _has_options(shown)
        else:
            assert asked.choices == () and not _has_options(shown)
            # graded as typed: the gold is right, a bare letter means nothing without options
            assert exp1.grade(exp1.parse("natural", f"ANSWER: {q.answer}"), asked)["correct"] is True
            assert exp1.grade(exp1.parse("natural", "ANSWER: B"), asked)["correct"] is False
        assert question_as_asked(q, "choices") == q
    with pytest.raises(ValueError, match="answer format"):
        shows_choices("short_text", "none")


def test_open_task_rows():
    from mirror_hf.records import DOMAINS
    from mirror_hf.tasks.exp3 import composite_tasks
    from mirror_hf.tasks.exp9 import fixed_tasks

    for task in composite_tasks(0, list(DOMAINS)):
        asked = exp3_task_as_asked(task, "open")
        assert bool(asked["choices"]) == (task["answer_type"] == "multiple_choice")
        for target in ("component_a", "component_b"):
            assert bool(asked[target]["choices"]) == (task[target]["answer_type"] == "multiple_choice")
    for task in fixed_tasks(0, list(DOMAINS))[:60]:
        asked = exp9_task_as_asked(task, "open")
        for slot, part in (("a", "part1_text"), ("b", "part2_text")):
            mc = task[f"answer_type_{slot}"] == "multiple_choice"
            assert bool(asked[f"choices_{slot}"]) == mc and _has_options(asked[part]) == mc
            assert asked[part].startswith(task[part].split("\nA) ")[0])


def test_plan_records_the_format_and_refuses_unknown_ones(dataset):
    plan = build_plan(dataset, PlanOptions(limit=24, channels=("natural",), answer_format="open"), get("exp1"))
    assert {job.fields["answer_format"] for job in plan.jobs} == {"open"}
    for job in plan.jobs:
        question, _ = job.context
        assert _has_options(job.messages[0]["content"]) == (question.answer_type == "multiple_choice")
    with pytest.raises(PlanError, match="--answer-format"):
        build_plan(dataset, PlanOptions(answer_format="bare"), get("exp1"))


def test_run_open_and_choices_are_recorded_and_scored_apart(dataset, tmp_path):
    with openai_server() as url:
        for fmt in ("open", "choices"):
            cli_inproc("run", "--dataset", str(dataset), "--model", "acme/fake-1", "--base-url", url, "--no-progress",
                       "--limit", "24", "--channels", "wagering,natural", "--answer-format", fmt, "--split", f"fake_{fmt}")
    trials = {fmt: read_split(dataset, "trials_exp1", f"fake_{fmt}") for fmt in ("open", "choices")}
    files = {f.split: f.path for f in split_files(dataset)["trials_exp1"]}
    for fmt, table in trials.items():
        assert (table["answer_format"] == fmt).all()
        assert read_manifest(files[f"fake_{fmt}"])["settings"]["answer_format"] == fmt
    bank = {r["id"]: r for r in read_split(dataset, "questions", "test").iter_rows(named=True)}
    mc = pl.col("item_id").replace_strict({k: v["answer_type"] == "multiple_choice" for k, v in bank.items()}, default=None)
    # The fake model answers with a letter: open grades it wrong wherever no options were shown.
    open_typed = trials["open"].filter(~mc & pl.col("correct").is_not_null())
    assert open_typed.height > 0 and (~open_typed["correct"]).all()
    assert trials["choices"].filter(~mc)["correct"].any()
    out = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--json", str(out), "--resamples", "0")
    models = json.loads(out.read_text())["models"]
    assert {"acme/fake-1", "acme/fake-1 [open]"} <= set(models)
    n = {m: models[m]["exp1"]["accuracy_natural"]["n"] for m in ("acme/fake-1", "acme/fake-1 [open]")}
    assert n == {"acme/fake-1": 24, "acme/fake-1 [open]": 24}
