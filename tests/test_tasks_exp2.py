"""`exp2_transfer` (issue 4): 25 tasks per hidden source domain, framed in another domain, with a
gold recomputed from the hidden step and the surface step."""

from __future__ import annotations

import collections
import json
import re

import pytest

from tasks_oracles import consumer_answer, producer_value

from mirror_hf.records import DIFFICULTIES, DOMAINS, EXP2_TASK_FEATURES
from mirror_hf.tasks.exp2 import transfer_tasks


@pytest.fixture(scope="module")
def tasks() -> list[dict]:
    return transfer_tasks(0, list(DOMAINS))


def test_200_tasks_25_per_source_domain_on_other_surfaces(tasks):
    assert len(tasks) == 200
    assert collections.Counter(t["source_domain"] for t in tasks) == {d: 25 for d in DOMAINS}
    assert all(t["surface_domain"] != t["source_domain"] for t in tasks)
    for source in DOMAINS:
        surfaces = collections.Counter(t["surface_domain"] for t in tasks if t["source_domain"] == source)
        assert len(surfaces) == 7 and max(surfaces.values()) - min(surfaces.values()) <= 1
        levels = collections.Counter(t["difficulty"] for t in tasks if t["source_domain"] == source)
        assert set(levels) == set(DIFFICULTIES) and max(levels.values()) - min(levels.values()) <= 1
    assert len({t["task_text"] for t in tasks}) == 200 and len({t["task_id"] for t in tasks}) == 200
    assert all(set(t) == set(EXP2_TASK_FEATURES) for t in tasks)


def test_gold_is_recomputed_from_the_hidden_step(tasks):
    for t in tasks:
        params = json.loads(t["params"])
        source, surface = params["source"], params["surface"]
        assert source["kind"].split(".")[0] == t["source_domain"] and surface["kind"].split(".")[0] == t["surface_domain"]
        hidden = producer_value(source, source["phrase"])
        assert surface["input"] == hidden
        assert source["phrase"] in t["task_text"]
        assert consumer_answer(surface, hidden, t["task_text"]) == t["answer"], t["task_id"]
        assert t["answer"] in t["choices"] and len(set(t["choices"])) == 4


def test_the_hidden_domain_is_not_named(tasks):
    for t in tasks:
        assert not re.search(rf"\b{t['source_domain']}\b", t["task_text"], re.IGNORECASE)
        assert t["hidden_dependency"] and t["hidden_dependency"] not in t["task_text"]


def test_deterministic_per_seed(tasks):
    assert transfer_tasks(0, list(DOMAINS)) == tasks
    assert transfer_tasks(3, list(DOMAINS)) != tasks
