"""Recovery of Exp1's internal signals and of what the wager tracks: the reference respondent with a
planted sampling profile (an item's 5 samples agree m times, P(right | m) rising; the chosen option's
token probability rising with being right) answers the real prompts over HTTP (`n` honoured, token
log-probabilities returned), the real CLI runs and scores it, and each planted value
(tests/fakes/planted.py, derived from the profile) must lie in its interval: AUROC, AURC, risk at 80%
coverage and PRR of the consistency and logprob channels, and the wager's partial correlations. The
wager of this respondent is a function of its consistency alone, so the score must read it as
consistency-tracking, the accuracy partial correlation's interval covering 0. The coverage of those
intervals over 200 seeds is benchmarks/recovery.py --signals (docs/testing.md); here one seed, the
intervals widened for the family as tests/test_recovery.py does, and a reader broken on purpose
(confidence reversed) shows the check failing."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.runner_fixtures import cli
from tests.test_recovery import family_factor, misses, respondent

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "fakes"))
sys.path.insert(0, str(HERE.parent / "benchmarks"))

import planted as P  # noqa: E402
from respondent import Profile  # noqa: E402

SAMPLING = {"levels": [0.2] * 5, "accuracy": [0.2, 0.35, 0.5, 0.7, 0.9], "token": [0.45, 0.15]}
PROFILE = {
    "seed": 5,
    "natural": {"arithmetic": 0.8, "spatial": 0.6, "temporal": 0.7, "linguistic": 0.9,
                "logical": 0.4, "social": 0.7, "factual": 0.8, "procedural": 0.3},
    "sampling": {**SAMPLING, "bet": "consistency"},
    "messy": 0.3,
}


def planted(profile: Profile, domains: list[str]) -> dict[str, float]:
    out = {f"consistency_{k}": v for k, v in P.consistency_population(profile).items()}
    out.update({f"logprob_{k}": v for k, v in P.logprob_population(profile, domains).items()})
    out.update(P.tracking_population(profile))
    return out


def test_internal_signals_and_tracking_are_recovered(dataset, tmp_path):
    with respondent(dataset, PROFILE, tmp_path) as url:
        cli("run", "--experiment", "exp1", "--model", "planted", "--base-url", url, "--dataset", str(dataset),
            "--limit", "400", "--channels", "wagering,consistency,logprob", env={"OPENAI_API_KEY": "k"})
    out = tmp_path / "scores.json"
    cli("score", "--dataset", str(dataset), "--resamples", "2000", "--json", str(out))
    exp1 = json.loads(out.read_text())["models"]["planted"]["exp1"]
    got = {f"{channel}_{metric}": exp1["signals"][channel][metric]
           for channel in ("consistency", "logprob") for metric in ("auroc", "aurc", "risk_at_80", "prr")}
    wager = exp1["tracking"]["wagering"]
    got["tracking_accuracy"], got["tracking_consistency"] = wager["accuracy"], wager["consistency"]
    import polars as pl

    from tests.runner_fixtures import read_split

    trials = read_split(dataset, "trials_exp1", "planted")
    domains = trials.filter((pl.col("channel") == "logprob") & pl.col("correct").is_not_null())["domain"].to_list()
    assert misses(planted(Profile.from_json(PROFILE), domains), got) == []
    lo, hi = wager["accuracy"]["ci"]
    assert lo < 0 < hi and wager["consistency"]["ci"][0] > 0, wager
    assert wager["reading"] == "follows consistency, not accuracy", wager["line"]
    print(wager["line"])


def _in_process(monkeypatch=None, seeds=range(2)) -> list[str]:
    import recovery as R

    from mirror_hf.build import BuildRequest, build

    folder = Path(__import__("tempfile").mkdtemp()) / "mirror"
    build(BuildRequest(out=folder, seed=0, per_domain=25))
    bank, questions = R.sample_questions(folder, 25)
    bad = []
    for seed in seeds:
        row = R.signals_seed(bank, questions, R.SIGNAL_PROFILES["accuracy_tracking"], seed, 1000)
        factor = family_factor(len(row) * len(seeds))  # widened for the family, as `misses`
        for name, (want, value, lo, hi) in row.items():
            if not value - factor * (value - lo) - 1e-9 <= want <= value + factor * (hi - value) + 1e-9:
                bad.append(name)
    return bad


def test_a_reversed_consistency_reader_fails_the_recovery(monkeypatch):
    from mirror_hf.protocol import internal

    assert not [m for m in _in_process() if m.startswith("consistency")]
    original = internal.read_consistency

    def reversed_reader(*args, **kwargs):
        out = original(*args, **kwargs)
        if out["confidence"] is not None:
            out["confidence"] = 1.0 - out["confidence"]
        return out

    monkeypatch.setattr(internal, "read_consistency", reversed_reader)
    bad = _in_process(seeds=range(1))
    assert {"consistency_auroc", "consistency_prr"} <= set(bad), bad
