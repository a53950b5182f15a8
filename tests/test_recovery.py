"""Recovery: a reference respondent with a planted profile answers the real prompts over HTTP, the
real CLI runs, profiles and scores it, and every headline number's CI must contain the value the
profile plants (derived analytically in tests/fakes/planted.py). This is the check that found the
matcher accepting distractors and rejecting repeated full-text golds: a bug anywhere between the
prompt and the score moves a number away from its planted value.

The default run uses a reduced design (Exp1 on 30 items per domain, Exp9 on 40 tasks); `-m slow`
runs the full 50-per-domain folder and every Exp9 task. A second test breaks the matcher on
purpose (a patched copy that accepts any answer) and shows the same check failing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import polars as pl
import pytest

from tests.runner_fixtures import cli, read_split

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "fakes"))

from planted import cfr_values, exp1_values  # noqa: E402
from respondent import Profile  # noqa: E402

PROFILE = {
    "seed": int(os.environ.get("MIRROR_RECOVERY_SEED", "3")),
    "natural": {"arithmetic": 0.9, "spatial": 0.25, "temporal": 0.85, "linguistic": 0.9,
                "logical": 0.3, "social": 0.85, "factual": 0.9, "procedural": 0.2},
    "wagering": {"arithmetic": 0.95, "spatial": 0.45, "temporal": 0.9, "linguistic": 0.95,
                 "logical": 0.5, "social": 0.9, "factual": 0.95, "procedural": 0.4},
    "bet": {"policy": "overconfident", "shift": 0.3},
    "exp9": {"weak": {"C1": {"proceed": 0.9, "use_tool": 0.05, "defer": 0.05},
                      "C2": {"proceed": 0.8, "use_tool": 0.1, "defer": 0.1},
                      "C3": {"proceed": 0.4, "use_tool": 0.3, "defer": 0.3}}},
    "messy": 0.3,
    "malformed": 0.02,
}


@contextmanager
def respondent(folder: Path, profile: dict, tmp_path: Path, *, env: dict | None = None):
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(profile))
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "fakes" / "respondent.py"), "--dataset", str(folder), "--profile", str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
    )
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError(f"respondent did not start: {line!r} {proc.stderr.read()[-2000:]}")
    try:
        yield f"http://127.0.0.1:{int(line.split()[1])}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def run_pipeline(folder: Path, base_url: str, *, exp1_limit: int | None, exp9_limit: int | None) -> dict:
    env = {"OPENAI_API_KEY": "local-test-key"}
    limit1 = ["--limit", str(exp1_limit)] if exp1_limit else []
    limit9 = ["--limit", str(exp9_limit)] if exp9_limit else []
    common = ["--model", "planted", "--base-url", base_url, "--dataset", str(folder), "--concurrency", "16"]
    cli("run", "--experiment", "exp1", "--channels", "wagering,natural", *common, *limit1, env=env)
    cli("profile", "--dataset", str(folder), "--model", "planted", env=env)
    cli("run", "--experiment", "exp9", *common, *limit9, env=env)
    out = folder.parent / "score.json"
    cli("score", "--dataset", str(folder), "--json", str(out), env=env)
    return json.loads(out.read_text())


def planted_values(folder: Path, profile: Profile) -> dict[str, float]:
    exp1 = read_split(folder, "trials_exp1", "planted")
    natural = exp1.filter(pl.col("channel") == "natural")["domain"].to_list()
    wager = exp1.filter(pl.col("channel") == "wagering").select("item_id", "domain").rows()
    values = exp1_values(profile, natural, wager)
    exp9 = read_split(folder, "trials_exp9", "planted").filter(pl.col("paradigm").is_in(["P1", "P2"]))
    components = [
        {
            "condition": row["condition"],
            "paradigm": row["paradigm"],
            "domain": row[f"domain_{slot}"],
            "strength": row[f"strength_{slot}"],
            "routed": bool(row[f"component_{slot}_externally_routed"]),
        }
        for row in exp9.iter_rows(named=True)
        for slot in ("a", "b")
    ]
    values.update({f"cfr_{c}": v for c, v in cfr_values(profile, components).items()})
    return values


def measured(score: dict) -> dict[str, dict]:
    model = score["models"]["planted"]
    out = {name: model["exp1"][name] for name in ("natural_accuracy", "wagering_accuracy", "mirror_gap", "ece", "brier")}
    out.update({f"cfr_{c}": v for c, v in model["exp9"]["cfr"].items()})
    return out


def misses(folder: Path, score: dict) -> list[str]:
    """Metrics whose CI does not contain the planted value (printed side by side either way)."""
    planted = planted_values(folder, Profile.from_json(PROFILE))
    got = measured(score)
    bad = []
    print(f"\n{'metric':<20} {'planted':>8} {'measured':>9}   95% CI")
    for name, want in planted.items():
        est = got[name]
        lo, hi = est["ci"]
        inside = lo - 1e-9 <= want <= hi + 1e-9
        print(f"{name:<20} {want:8.4f} {est['value']:9.4f}   [{lo:.4f}, {hi:.4f}] {'ok' if inside else 'MISS'}")
        if not inside:
            bad.append(name)
    return bad


def test_planted_profile_is_recovered(dataset, tmp_path):
    with respondent(dataset, PROFILE, tmp_path) as url:
        score = run_pipeline(dataset, url, exp1_limit=240, exp9_limit=40)
    assert misses(dataset, score) == []


@pytest.mark.slow
def test_planted_profile_is_recovered_full(dataset, tmp_path):
    with respondent(dataset, PROFILE, tmp_path) as url:
        score = run_pipeline(dataset, url, exp1_limit=None, exp9_limit=None)
    assert misses(dataset, score) == []


def test_a_broken_matcher_fails_the_recovery(dataset, tmp_path):
    """The same check with a matcher patched to accept every answer (imported before the package by
    a sitecustomize on PYTHONPATH): wrong answers now grade right, accuracies drift above their
    planted values and the check reports it."""
    patch = tmp_path / "patch"
    patch.mkdir()
    (patch / "sitecustomize.py").write_text(
        "import mirror_hf.protocol.matching as m\n"
        "_orig = m.match\n"
        "def match(*args, **kwargs):\n"
        "    result = _orig(*args, **kwargs)\n"
        "    return True if result is False else result\n"
        "m.match = match\n"
        "import mirror_hf.protocol.exp1 as e1, mirror_hf.protocol.exp9 as e9\n"
        "e1.match = match\n"
        "e9.match = match\n"
    )
    env = {"PYTHONPATH": os.pathsep.join([str(patch), os.environ.get("PYTHONPATH", "")])}
    old = dict(os.environ)
    os.environ.update(env)
    try:
        with respondent(dataset, PROFILE, tmp_path) as url:
            score = run_pipeline(dataset, url, exp1_limit=240, exp9_limit=40)
    finally:
        os.environ.clear()
        os.environ.update(old)
    bad = misses(dataset, score)
    assert {"natural_accuracy", "wagering_accuracy"} <= set(bad)
