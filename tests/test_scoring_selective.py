"""AUROC, AURC, risk at coverage and PRR (scoring/_selective.py) against hand-worked values and
independent implementations (a brute-force mean over every order of tied records, LM-Polygraph's
PredictionRejectionArea written out as it is published, a pairwise count for AUROC, and
scikit-learn's roc_auc_score when installed); the partial correlations (scoring/_tracking.py)
against residuals of least-squares fits; the reading rule on planted respondents."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mirror_hf import scoring as S
from mirror_hf.scoring._tracking import reading


def brute_aurc(conf, correct, coverage=None):
    """Mean over every order of tied records of the discrete AURC (or of the risk at `coverage`,
    interpolated between the neighbouring ranks)."""
    conf, wrong = np.asarray(conf, float), 1 - np.asarray(correct, float)
    groups = [np.flatnonzero(conf == v) for v in sorted(set(conf), reverse=True)]
    values = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for g in orders for i in g]
        errs = np.cumsum(wrong[order])
        if coverage is None:
            values.append(np.mean(errs / np.arange(1, len(order) + 1)))
        else:
            t = coverage * len(order)
            lo = int(math.floor(t))
            e = (errs[lo - 1] if lo else 0.0) + (t - lo) * (wrong[order[lo]] if lo < len(order) else 0.0)
            values.append(e / t)
    return float(np.mean(values))


def polygraph_prr(conf, correct):
    """LM-Polygraph's normalised PredictionRejectionArea (max_rejection=1) as published: uncertainty =
    -confidence, argsort, cumulative quality / retained count, reversed, mean; random = the mean
    quality; oracle = the same with the quality itself as the signal (distinct confidences only)."""
    def pra(ue, target):
        order = np.argsort(ue, kind="stable")
        sorted_metrics = np.asarray(target, float)[order]
        n = len(ue)
        scores = (np.cumsum(sorted_metrics) / np.arange(1, n + 1))[::-1]
        return np.sum(scores) / n

    target = np.asarray(correct, float)
    value = pra(-np.asarray(conf, float), target)
    oracle = pra(-target + 1e-9 * np.arange(len(target)), target)
    random = target.mean()
    return (value - random) / (oracle - random)


def pairwise_auroc(conf, correct):
    pos = [c for c, y in zip(conf, correct) if y]
    neg = [c for c, y in zip(conf, correct) if not y]
    return sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg))


def test_hand_worked_values():
    conf, correct = [0.9, 0.8, 0.7, 0.6], [True, False, True, False]
    # risk(i) = 0, 1/2, 1/3, 2/4 -> AURC = (0 + 1/2 + 1/3 + 1/2) / 4 = 1/3
    assert S.aurc(conf, correct).value == pytest.approx(1 / 3)
    # oracle: 0, 0, 1/3, 2/4 -> 5/24; random 1/2; PRR = (1/2 - 1/3) / (1/2 - 5/24) = 4/7
    assert S.prr(conf, correct).value == pytest.approx(4 / 7)
    # 80% of 4 = 3.2 records: errors 1 + 0.2 x 1 (the 4th is wrong) -> 1.2 / 3.2
    assert S.risk_at_coverage(conf, correct, coverage=0.8).value == pytest.approx(0.375)
    assert S.auroc(conf, correct).value == pytest.approx(0.75)
    # one tie of all four: every order equally often -> AURC = 1 - accuracy, PRR = 0, AUROC = 1/2
    tied = S.selective([0.5] * 4, correct)
    assert tied["aurc"].value == pytest.approx(0.5) and tied["prr"].value == pytest.approx(0.0)
    assert tied["auroc"].value == pytest.approx(0.5) and tied["risk_at_coverage"].value == pytest.approx(0.5)
    # a tie of two at the top, one right one wrong: ranks 1-2 expected risk 1/2 and 1/2, then 1/3 -> AURC 4/9
    assert S.aurc([0.9, 0.9, 0.1], [True, False, True]).value == pytest.approx((0.5 + 0.5 + 1 / 3) / 3)
    assert math.isnan(S.prr([0.2, 0.9], [True, True]).value)


@pytest.mark.parametrize("seed", range(40))
def test_against_brute_force_over_tie_orders(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    conf = rng.choice([0.1, 0.4, 0.7, 1.0], n)
    correct = rng.random(n) < conf
    got = S.selective(conf, correct)
    assert got["aurc"].value == pytest.approx(brute_aurc(conf, correct), abs=1e-12)
    assert got["risk_at_coverage"].value == pytest.approx(brute_aurc(conf, correct, coverage=0.8), abs=1e-12)
    if 0 < correct.sum() < n:
        assert got["auroc"].value == pytest.approx(pairwise_auroc(conf, correct), abs=1e-12)


@pytest.mark.parametrize("seed", range(30))
def test_prr_is_lm_polygraphs_on_distinct_confidences(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    conf = rng.random(n)
    correct = rng.random(n) < conf
    if not 0 < correct.sum() < n:
        return
    assert S.prr(conf, correct).value == pytest.approx(polygraph_prr(conf, correct), abs=1e-9)
    got = S.auroc(conf, correct).value
    assert got == pytest.approx(pairwise_auroc(conf, correct), abs=1e-12)
    try:
        from sklearn.metrics import roc_auc_score
    except ImportError:
        return
    assert got == pytest.approx(roc_auc_score(correct, conf), abs=1e-12)


def test_cis_cover_the_point_and_the_module_functions_agree():
    rng = np.random.default_rng(3)
    conf = np.round(rng.random(300), 1)
    correct = rng.random(300) < conf
    got = S.selective(conf, correct, ci=S.Bootstrap(n_resamples=500, seed=1))
    for name, est in got.items():
        assert est.ci is not None and est.ci[0] <= est.value <= est.ci[1], name
    assert got["aurc"].value == S.aurc(conf, correct).value and got["prr"].value == S.prr(conf, correct).value


# --------------------------------------------------------------------------------------------
# What confidence tracks
# --------------------------------------------------------------------------------------------


def residual_partial(x, y, z):
    """Correlation of the residuals of x and y, each regressed on z by least squares."""
    design = np.column_stack([np.ones_like(z), z])
    rx = x - design @ np.linalg.lstsq(design, x, rcond=None)[0]
    ry = y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
    return float(np.corrcoef(rx, ry)[0, 1])


@pytest.mark.parametrize("seed", range(10))
def test_partial_correlations_equal_residual_correlations(seed):
    rng = np.random.default_rng(seed)
    n = 200
    z = rng.choice([0.2, 0.4, 0.6, 0.8, 1.0], n)
    y = (rng.random(n) < z).astype(float)
    x = np.clip(0.5 * z + 0.3 * y + rng.normal(0, 0.2, n), 0, 1)
    got = S.partial_correlations(x, y.astype(bool), z)
    assert got["accuracy"].value == pytest.approx(residual_partial(x, y, z), abs=1e-9)
    assert got["consistency"].value == pytest.approx(residual_partial(x, z, y), abs=1e-9)


def _planted(kind: str, seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    z = rng.choice([0.2, 0.4, 0.6, 0.8, 1.0], n)  # sample agreement
    y = rng.random(n) < z  # agreement predicts being right
    base = {"consistency": z, "accuracy": 0.2 + 0.6 * y}[kind]
    x = np.clip(base + rng.normal(0, 0.15, n), 0, 1)
    return x, y, z


def test_a_consistency_only_respondent_is_read_as_consistency_tracking():
    x, y, z = _planted("consistency", 0)
    got = S.tracking(x, y, z, ci=S.Bootstrap(n_resamples=2000, seed=0), channel="wagering")
    lo, hi = got["accuracy"].ci
    assert lo < 0 < hi, got["accuracy"]
    assert got["consistency"].ci[0] > 0
    assert got["reading"] == "follows consistency, not accuracy"
    assert got["line"].startswith("wagering follows consistency, not accuracy")
    x, y, z = _planted("accuracy", 0)
    assert S.tracking(x, y, z, ci=S.Bootstrap(n_resamples=2000, seed=0))["reading"] == "follows accuracy"
    assert reading(S.partial_correlations(x, y, z)) is None  # no intervals, no reading


# --------------------------------------------------------------------------------------------
# Exp9 App. O: the sampling self-consistency routing baseline beside the authors' proxy
# --------------------------------------------------------------------------------------------


def test_sampling_self_consistency_baseline_routes_the_least_consistent_subcategories():
    n = 40
    subcats = [f"s{i % 4}" for i in range(n)]
    frame = S.components_frame(
        task_id=[f"t{i}" for i in range(n)], slot=["a"] * n, condition=["C1"] * n, paradigm=["P3"] * n,
        api_success=[True] * n, domain=["arithmetic"] * n, subcategory=subcats,
        strength=["weak" if i % 4 == 0 else "strong" for i in range(n)],  # budget: a quarter
        correct=[s != "s2" for s in subcats], hedge_count=[0] * n, decomp_count=[i % 3 for i in range(n)], token_count=[5] * n,
    )
    agreement = {("arithmetic", "s0"): 0.9, ("arithmetic", "s1"): 0.8, ("arithmetic", "s2"): 0.2}  # s3 never sampled
    got = S.baselines(frame, agreement=agreement)
    # a quarter escalated, all of them s2 (the least consistent), whose answers are the wrong ones
    assert got["sampling_self_consistency"]["escalation_rate"].value == pytest.approx(0.25)
    assert got["sampling_self_consistency"]["cfr"].value == 0.0  # the weak (s0) components are right
    assert "authors' proxy" in got["labels"]["self_consistency"] and "sampled" in got["labels"]["sampling_self_consistency"]
    from mirror_hf.scoring._baselines import sampling_uncertainty

    u = sampling_uncertainty(["arithmetic"] * 4, ["s0", "s1", "s2", "s3"], agreement)
    assert u.tolist() == pytest.approx([0.1, 0.2, 0.8, (0.1 + 0.2 + 0.8) / 3])
    assert "sampling_self_consistency" not in S.baselines(frame)
