"""Exp5 and Exp6b on the embedded local model (SmolLM2-135M) through the real runner path, then
`score`: plumbing only (the model is tiny), kept small for the default run."""

from __future__ import annotations

import json

import polars as pl
import pytest
from runner_fixtures import cli_inproc, read_split
from test_exp5 import _plant_profile
from test_runner_embedded import _require_embedded

pytestmark = pytest.mark.embedded


def _score(dataset, tmp_path) -> dict:
    path = tmp_path / "scores.json"
    cli_inproc("score", "--dataset", str(dataset), "--resamples", "0", "--json", str(path))
    return json.loads(path.read_text())["models"]["smollm2"]


@pytest.mark.parametrize("channels", [
    "natural",  # the default run's reduced variant: 8 calls
    pytest.param("wagering,opt_out,tool_delegation,natural", marks=pytest.mark.slow),
])
def test_embedded_exp5_small(dataset, tmp_path, channels):
    _require_embedded()
    _plant_profile(dataset, split="smollm2")
    cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp5", "--limit", "2", "--channels", channels,
               "--max-tokens", "12", "--no-progress")
    trials = read_split(dataset, "trials_exp5", "smollm2")
    n_channels = len(channels.split(","))
    assert trials.height == (1 * 5 + 1 * 3) * n_channels and trials["api_error"].is_null().all()
    ars = _score(dataset, tmp_path)["exp5"]["ars"]
    print(f"embedded exp5: ARS {ars['value']} over {ars['n']} attacked trials")
    attacked = trials.filter(pl.col("attack").is_not_null())
    assert ars["n"] == attacked["signal"].is_not_null().sum()  # a reply without a bet has no wagering signal
    assert ars["value"] is None or 0.0 <= ars["value"] <= 1.0


@pytest.mark.slow  # Exp6b's protocol runs against the scripted server in the default run (test_exp6b.py)
def test_embedded_exp6b_small(dataset, tmp_path, upstream_dir):
    _require_embedded()
    files = [upstream_dir / "data" / "exp6" / n for n in ("6b_flawed_new.json", "6b_controls_new.json")]
    cli_inproc("import-upstream", *map(str, files), "--out", str(dataset), "--quiet")
    cli_inproc("run", "--dataset", str(dataset), "--experiment", "exp6b", "--bank", "upstream_exp6b", "--limit", "4",
               "--max-tokens", "16", "--no-progress")
    trials = read_split(dataset, "trials_exp6b", "smollm2")
    assert trials.height == 4 and trials["is_flawed"].sum() == 2 and trials["response_type"].is_not_null().all()
    fdr = _score(dataset, tmp_path)["exp6b"]["fdr"]
    print(f"embedded exp6b: FDR {fdr['value']} (n {fdr['n']}), FPR {fdr['false_positive_rate']}")
    assert fdr["n"] == 2 and fdr["controls"] == 2
