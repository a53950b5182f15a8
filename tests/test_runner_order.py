"""A run with one request in flight (the embedded model's) sends its jobs in shared-prefix order,
so that a server reusing the previous prompt's state evaluates less; its records keep plan order."""

from __future__ import annotations

import json
import os

import pytest
from fakes.servers import openai_server, server_stats
from runner_fixtures import add_task_banks, cli, messages_digest, read_split

from mirror_hf.experiments import get
from mirror_hf.runner.engine import shared_prefix_order
from mirror_hf.runner.plan import PlanOptions, build_plan


def _text(job) -> str:
    return json.dumps(job.messages)


def _runs(values: list[str]) -> dict[str, list[int]]:
    """Each value's runs of consecutive positions (one run per value when equal values are adjacent)."""
    runs: dict[str, list[int]] = {}
    for k, v in enumerate(values):
        if k == 0 or values[k - 1] != v:
            runs.setdefault(v, []).append(k)
    return runs


def _shared(texts: list[str]) -> int:
    return sum(len(os.path.commonprefix([a, b])) for a, b in zip(texts, texts[1:]))


@pytest.mark.parametrize("experiment, options", [("exp1", {}), ("exp3", {}), ("exp9", {"conditions": ("C1",)})])
def test_the_order_is_a_permutation_with_equal_prompts_together_that_shares_at_least_as_much(dataset, experiment, options):
    add_task_banks(dataset)
    plan = build_plan(dataset, PlanOptions(split="m", **options), get(experiment))
    order = shared_prefix_order(plan)
    assert sorted(order) == list(range(len(plan.jobs)))
    # jobs sending the same prompt are neighbours (Exp9 C1 and C4: the second is a full cache hit) ...
    firsts = [_text(plan.jobs[i]) for i in order]
    assert all(len(list(group)) == 1 for group in _runs(firsts).values())
    # ... and the order never shares less with the previous request than plan order does
    assert _shared([_text(plan.jobs[i]) for i in order]) >= _shared([_text(j) for j in plan.jobs])


def test_one_request_in_flight_is_sent_in_shared_prefix_order_and_recorded_in_plan_order(dataset):
    limit = 8
    with openai_server() as url:
        cli("run", "--dataset", str(dataset), "--model", "m", "--base-url", url, "--limit", str(limit),
            "--channels", "natural,wagering", "--concurrency", "1", "--no-progress")
        seen = list(server_stats(url, detail=True)["seen"])  # digests in the order the server first saw them
    trials = read_split(dataset, "trials_exp1", "m")
    plan = build_plan(dataset, PlanOptions(split="m", limit=limit, channels=("natural", "wagering")), get("exp1"))
    recorded = [messages_digest(p) for p in trials["prompt"].to_list()]
    planned = [messages_digest(json.dumps(j.messages)) for j in plan.jobs]
    assert recorded == planned  # records in plan order
    by_prompt = [planned[i] for i in shared_prefix_order(plan)]
    assert seen == list(dict.fromkeys(by_prompt)) and seen != list(dict.fromkeys(planned))
