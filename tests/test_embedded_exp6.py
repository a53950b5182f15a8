"""Exp6a, Exp6b (our bank) and Exp6c on the embedded local model (SmolLM2-135M) through the real
runner path, then `score`: plumbing only (the model is tiny). The default run's variants are the
smallest that exercise every turn; the fuller ones are marked slow."""

from __future__ import annotations

import json

import pytest
from runner_fixtures import cli_inproc, read_split
from test_runner_embedded import _require_embedded

pytestmark = pytest.mark.embedded


def _score(dataset, tmp_path) -> dict:
    path = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(path))
    return json.loads(path.read_text())["models"]["smollm2"]


@pytest.mark.parametrize("limit", [1, pytest.param(8, marks=pytest.mark.slow)])
def test_embedded_exp6a(dataset, tmp_path, limit):
    """One task: one answer and its four ratings (5 calls); slow: 8 tasks."""
    _require_embedded()
    cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp6a", "--limit", str(limit),
               "--max-tokens", "24", "--no-progress")
    trials = read_split(dataset, "trials_exp6a", "smollm2")
    assert trials.height == 4 * limit and trials["api_error"].is_null().all()
    assert trials["task_output"].n_unique() == limit  # each task answered once, rated four times
    ssr = _score(dataset, tmp_path)["exp6a"]["ssr"]
    print(f"embedded exp6a: SSR {ssr['value']} over {ssr['n']} tasks; {trials['self_score'].is_not_null().sum()} scores read")
    assert ssr["n"] <= limit and (ssr["value"] is None or ssr["value"] >= 0)


@pytest.mark.slow  # the default run has Exp6a embedded and Exp6b/6c against the scripted server (test_exp6*)
@pytest.mark.parametrize("limit", [2, 12])
def test_embedded_exp6b_our_bank(dataset, tmp_path, limit):
    _require_embedded()
    cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp6b", "--limit", str(limit), "--max-tokens", "16",
               "--no-progress")
    trials = read_split(dataset, "trials_exp6b", "smollm2")
    assert trials.height == limit and trials["is_flawed"].sum() == limit // 2
    fdr = _score(dataset, tmp_path)["exp6b"]["fdr"]
    print(f"embedded exp6b (exp6b_flawed): FDR {fdr['value']} (n {fdr['n']}), FPR {fdr['false_positive_rate']}")
    assert fdr["n"] == limit // 2 and fdr["controls"] == limit // 2


@pytest.mark.slow  # as above
@pytest.mark.parametrize("limit", [1, 8])
def test_embedded_exp6c(dataset, tmp_path, limit):
    _require_embedded()
    cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp6c", "--limit", str(limit), "--max-tokens", "24",
               "--no-progress")
    trials = read_split(dataset, "trials_exp6c", "smollm2")
    assert trials.height == 2 * limit and trials["api_error"].is_null().all()
    vrs = _score(dataset, tmp_path)["exp6c"]["vrs"]
    print(f"embedded exp6c: VRS {vrs['value']} (n {vrs['n']}), capability robustness {vrs['capability_robustness']}")
    assert vrs["n"] == limit and 0 <= vrs["value"] <= 1
