"""Parity with the paper: the authors' released files go through `mirror-hf import-upstream` and
`mirror-hf score --variant upstream`, and every published number in ../shared/upstream/README.md must
come back within its tolerance. The table of published vs computed values is printed either way.

Tolerance: 0.001 on point values and 0.003 on CI ends (README), widened to half a unit of the last
published digit where the paper prints fewer decimals (d_z to 2 dp, the reduction as a whole percent).
For d_z the released per-model CFRs are themselves rounded to 4 dp, so the tolerance also carries the
worst-case effect of that rounding (first-order bound, computed below): C3->C4 comes out 1.2047, and
1.2047 + 0.0004 reaches the 1.205 that prints as the paper's 1.21.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

# (label, path into the score JSON, published value, decimals printed in the paper, kind)
CCE = {
    "gemma-3-12b": 0.516,
    "gpt-oss-120b": 0.477,
    "llama-3.1-405b": 0.485,
    "llama-3.1-8b": 0.583,
    "llama-3.2-3b": 0.588,
    "llama-3.3-70b": 0.446,
    "mistral-large": 0.642,
    "qwen3-next-80b": 0.480,
}
CCE_N = {m: (61 if m == "gpt-oss-120b" else 112) for m in CCE}
CCE_CI = {"gemma-3-12b": (0.431, 0.596), "llama-3.1-8b": (0.512, 0.646), "mistral-large": (0.560, 0.714)}
ESCALATION = {"C1": (0.600, 0.176), "C2": (0.605, 0.181), "C3": (0.514, 0.215), "C4": (0.143, 0.239)}
D_Z = {"C1_C2": -0.04, "C2_C3": 0.84, "C3_C4": 1.21}


def run(*args: str) -> None:
    """The CLI in this process (what `mirror-hf ...` runs, without a second interpreter start-up)."""
    from mirror_hf.cli import app

    app(list(args), standalone_mode=False)


@pytest.fixture(scope="module")
def scores(upstream_dir, tmp_path_factory) -> dict:
    work = tmp_path_factory.mktemp("upstream_parity")
    folder = work / "mirror"
    results = upstream_dir / "results"
    files = [results / "exp1_gemini-2.5-pro_shard.jsonl", results / "exp3_v2_results.jsonl", results / "exp9_escalation_16models.json"]
    run("import-upstream", *map(str, files), "--out", str(folder), "--quiet")
    out = work / "scores.json"
    run("score", "--dataset", str(folder), "--variant", "upstream", "--json", str(out))
    return json.loads(out.read_text())


def input_rounding_bound(upstream_dir: Path, earlier: str, later: str) -> float:
    """How far d_z can move when each released per-model CFR (4 dp) moves by up to 0.00005."""
    per_model = json.loads((upstream_dir / "results" / "exp9_escalation_16models.json").read_text())["per_model"]
    models = sorted(per_model)
    x = np.array([per_model[m][earlier[1:]] for m in models])
    y = np.array([per_model[m][later[1:]] for m in models])

    def d_z(a, b):
        diff = a - b
        return diff.mean() / diff.std(ddof=1)

    base, step, bound = d_z(x, y), 1e-7, 0.0
    for i in range(len(models)):
        e = np.zeros(len(models))
        e[i] = step
        bound += (abs(d_z(x + e, y) - base) + abs(d_z(x, y + e) - base)) / step * 0.00005
    return bound


def targets(scores: dict, upstream_dir: Path) -> list[tuple[str, float, float, float]]:
    """(label, published, computed, tolerance) for every published number."""
    rows = []
    exp1 = scores["models"]["gemini-2.5-pro"]["exp1"]
    for label, key, published in (
        ("gemini-2.5-pro natural accuracy", "natural_accuracy", 0.513),
        ("gemini-2.5-pro wagering accuracy", "wagering_accuracy", 0.659),
        ("gemini-2.5-pro Mirror gap", "mirror_gap", 0.146),
    ):
        rows.append((label, published, exp1[key]["value"], 0.001))
    for model, published in CCE.items():
        cce = scores["models"][model]["exp3"]["cce"]
        rows.append((f"CCE {model} (n={cce['n']})", published, cce["value"], 0.001))
        rows.append((f"CCE {model} n", CCE_N[model], cce["n"], 0))
    for model, (lo, hi) in CCE_CI.items():
        ci = scores["models"][model]["exp3"]["cce"]["ci"]
        rows.append((f"CCE {model} CI low", lo, ci[0], 0.003))
        rows.append((f"CCE {model} CI high", hi, ci[1], 0.003))
    curve = scores["aggregate"]["escalation"]
    for condition, (mean, sd) in ESCALATION.items():
        rows.append((f"escalation {condition} mean", mean, curve[condition]["value"], 0.001))
        rows.append((f"escalation {condition} SD", sd, curve[condition]["sd"], 0.001))
    rows.append(("C1->C4 reduction (%)", 76, 100 * curve["reduction"]["value"], 0.5))
    rows.append(("C1->C4 reduction (pp)", 45.7, 100 * curve["reduction"]["difference"], 0.05))
    for pair, published in D_Z.items():
        earlier, later = pair.split("_")
        tolerance = 0.005 + input_rounding_bound(upstream_dir, earlier, later)
        rows.append((f"d_z {pair}", published, curve["d_z"][pair]["value"], tolerance))
    return rows


def test_every_published_number_is_reproduced(scores, upstream_dir, capsys):
    rows = targets(scores, upstream_dir)
    with capsys.disabled():
        print("\n{:<42} {:>10} {:>12} {:>8}  {}".format("published number", "published", "computed", "tol", "ok"))
        for label, published, computed, tol in rows:
            ok = abs(computed - published) <= tol + 1e-12
            print(f"{label:<42} {published:>10.4g} {computed:>12.5f} {tol:>8.4g}  {'yes' if ok else 'NO'}")
    failures = [(label, published, computed) for label, published, computed, tol in rows if abs(computed - published) > tol + 1e-12]
    assert not failures, failures


def test_upstream_ci_ends_come_from_seeded_bca(scores):
    # the escalation means carry BCa CIs and the paired comparisons their bootstrap p-values
    curve = scores["aggregate"]["escalation"]
    for condition in ESCALATION:
        lo, hi = curve[condition]["ci"]
        assert lo < curve[condition]["value"] < hi
    assert curve["d_z"]["C1_C2"]["p"] > 0.5  # the paper: C1->C2 p = 0.90
    assert curve["d_z"]["C3_C4"]["p"] < 0.001  # the paper: p < 0.0001
    assert scores["settings"]["variant"] == "upstream"


P_VALUES = {"C1_C2": 0.90, "C2_C3": 0.0004}  # the paper; C3->C4 is printed as p < 0.0001


def test_published_p_values_and_no_invented_frames(scores, capsys):
    """The paired-bootstrap p-values come back; the released file holds per-model CFR per condition
    only, so per-paradigm and fixed-only frames (which need trials) are not produced from it."""
    pairs = scores["aggregate"]["escalation"]["d_z"]
    with capsys.disabled():
        for pair, published in {**P_VALUES, "C3_C4": "<0.0001"}.items():
            print(f"p {pair}: published {published}, computed {pairs[pair]['p']:.5f}")
    assert abs(pairs["C1_C2"]["p"] - P_VALUES["C1_C2"]) <= 0.02
    assert pairs["C2_C3"]["p"] <= 0.001  # bootstrap resolution: 10,000 resamples
    assert pairs["C3_C4"]["p"] < 0.0001
    assert "escalation_by_paradigm" not in scores["aggregate"] and "escalation_fixed_p1p2" not in scores["aggregate"]
    assert all("cfr_by_paradigm" not in m.get("exp9", {}) for m in scores["models"].values())
