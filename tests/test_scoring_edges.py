"""Edge cases of the scoring modules that mutation testing (benchmarks/mutation.py) showed no other
test pinned down. Expected values are worked out by hand or drawn here with the same seed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mirror_hf import scoring as S
from mirror_hf.scoring._escalation import escalation_curve
from mirror_hf.scoring._stats import PairedDifference, paired_difference


def test_paired_difference_to_json_keeps_finite_values_and_nulls_the_rest():
    diff = PairedDifference(n=4, mean_diff=0.25, sd_diff=0.5, d_z=0.5, ci=(0.1, 0.4), d_z_ci=(0.2, 0.9), p=0.03)
    assert diff.to_json() == {"value": 0.5, "n": 4, "ci": [0.2, 0.9], "mean_diff": 0.25, "mean_diff_ci": [0.1, 0.4],
                              "sd_diff": 0.5, "p": 0.03}
    empty = PairedDifference(0, math.nan, math.inf, math.nan, None, None, math.nan)
    assert empty.to_json() == {"value": None, "n": 0, "ci": None, "mean_diff": None, "mean_diff_ci": None,
                               "sd_diff": None, "p": None}


def test_escalation_curve_uses_the_seed_it_is_given():
    rng = np.random.default_rng(4)
    per_model = {f"m{i}": {"C1": float(a), "C2": float(b), "C3": 0.2, "C4": 0.1}
                 for i, (a, b) in enumerate(zip(rng.uniform(0.3, 0.7, 12), rng.uniform(0.2, 0.6, 12)))}
    options = S.Bootstrap(n_resamples=800, seed=9)
    curve = escalation_curve(per_model, ci=options)
    models = sorted(per_model)
    c1 = np.array([per_model[m]["C1"] for m in models])
    c2 = np.array([per_model[m]["C2"] for m in models])
    expected = paired_difference(c1, c2, n_resamples=800, seed=9)
    assert curve["d_z"]["C1_C2"].p == expected.p and curve["d_z"]["C1_C2"].ci == expected.ci
    # the seed matters here: the default seed gives another interval
    assert paired_difference(c1, c2, n_resamples=800).ci != expected.ci
    assert curve["C1"].ci == S.bca_mean(c1, n_resamples=800, seed=9)


def test_routed_component_without_a_decision_is_counted_but_not_escalated():
    # a C4 component routed by the harness counts even without a recorded decision (its outcome does
    # not depend on the response), but it did not itself use a tool or defer
    c = S.components_frame(
        model=["m"] * 3, task_id=list("abc"), condition=["C4"] * 3, paradigm=["P1"] * 3, task_type=["fixed"] * 3,
        strength=["weak"] * 3, decision=[None, "use_tool", "proceed"], correct=[True, True, False],
        externally_routed=[True, False, False], api_success=[True] * 3,
    )
    rate = S.escalation_rate_weak(c, condition="C4")
    assert (rate.value, rate.n) == (pytest.approx(1 / 3), 3)


def test_in_frame_keeps_only_the_asked_condition_and_frame():
    c = S.components_frame(
        model=["m"] * 5, task_id=list("abcde"), condition=["C1", "C2", "C1", "C1", None],
        paradigm=["P1", "P1", "P3", "P2", "P1"], task_type=["fixed"] * 5,
    )
    assert S.in_frame(c, "escalation", "C1")["task_id"].to_list() == ["a", "d"]  # P3 is not in the escalation frame
    assert S.in_frame(c, "all", "C1")["task_id"].to_list() == ["a", "c", "d"]
    assert S.in_frame(c, "all", "C2")["task_id"].to_list() == ["b"]
    assert S.in_frame(c, "escalation")["task_id"].to_list() == ["a", "b", "d", "e"]
    with pytest.raises(ValueError, match="frame must be one of"):
        S.in_frame(c, "nope")


def test_level_codes_by_hand():
    from mirror_hf.scoring._rank import level_codes

    codes, levels = level_codes(np.array([3.0, np.nan, 1.0, 3.0, 2.5]))
    assert codes.tolist() == [2, -1, 0, 2, 1] and levels == 3
    codes, levels = level_codes(np.array([np.nan, np.nan]))
    assert codes.tolist() == [-1, -1] and levels == 0
    codes, levels = level_codes(np.array([]))
    assert codes.tolist() == [] and levels == 0


def test_tii_is_defined_from_three_tasks():
    from scipy import stats

    signal, acc = [0.2, 0.5, 0.9], [0.1, 0.4, 0.3]
    # ranks (1, 2, 3) and (1, 3, 2): rho = 1 - 6 * 2 / (3 * 8) = 0.5
    assert stats.spearmanr(signal, acc).statistic == pytest.approx(0.5)
    est = S.tii(["t1", "t2", "t3"], ["wagering"] * 3, signal, acc)
    assert est.value == pytest.approx(0.5) and est.n == 3
    assert math.isnan(S.tii(["t1", "t2"], ["wagering"] * 2, signal[:2], acc[:2]).value)  # two tasks: undefined


def test_wager_confidence_accepts_exactly_the_bets_1_to_10():
    from mirror_hf.scoring._calibration import wager_confidence

    assert wager_confidence([1, 10, None, 5]).tolist()[:2] == [0.1, 1.0]
    for bad, row in (([1, 11], 1), ([0, 3], 0), ([2, 7.5], 1), ([-1], 0)):
        with pytest.raises(S.ScoringInputError, match=f"bet: row {row} is"):
            wager_confidence(bad)


def test_channel_signal_by_hand():
    channels = ["wagering", "opt_out", "opt_out", "difficulty_selection", "difficulty_selection", "tool_delegation",
                "natural", "layer2", "difficulty_selection"]
    signal = S.channel_signal(
        channels,
        bet=[7, None, None, None, None, None, None, None, None],
        skipped=[None, True, False, None, None, None, None, None, None],
        choice=[None, None, None, "A", " b ", None, None, None, "C"],
        n_tools=[None, None, None, None, None, 3, None, None, None],
        hedging_count=[None, None, None, None, None, None, 1, None, None],
        confidence=[None, None, None, None, None, None, None, 0.35, None],
    )
    # bet 7 -> 7/10 (the Channel spec signal in [0, 1]); harder task A = 1, B = 0, other letters NaN
    expected = [0.7, 0.0, 1.0, 1.0, 0.0, 0.25, 0.5, 0.35, math.nan]
    assert np.allclose(signal, expected, equal_nan=True), signal


def test_cells_of_an_empty_sample():
    from mirror_hf.scoring._bootstrap import Cells

    empty = Cells.of(x=np.array([]), y=np.array([]))
    assert empty.n == 0 and empty.k == 0 and empty.counts.tolist() == [] and empty["x"].tolist() == []
    cells = Cells.of(x=np.array([1.0, 2.0, 1.0, np.nan, np.nan]))
    assert cells.n == 5 and cells.k == 3 and sorted(cells.counts.tolist()) == [1, 2, 2]


def test_tii_of_one_and_of_no_task():
    one = S.tii(["t1"], ["wagering"], [0.5], [0.3])
    assert math.isnan(one.value) and one.n == 1 and one.extra["channels"] == {"wagering": None}
    none = S.tii([], [], [], [])
    assert math.isnan(none.value) and none.n == 0 and none.extra["channels"] == {}


def test_escalation_curve_sd_is_the_sample_sd():
    import statistics

    per_model = {"m1": {"C1": 0.2}, "m2": {"C1": 0.5}, "m3": {"C1": 0.6}, "m4": {"C1": None}}
    curve = escalation_curve(per_model, conditions=("C1",), ci=False)
    assert curve["C1"].value == pytest.approx(1.3 / 3) and curve["C1"].n == 3
    assert curve["C1"].ci is None  # ci=False: point estimates only
    assert curve["C1"].extra["sd"] == pytest.approx(statistics.stdev([0.2, 0.5, 0.6]))
    two = escalation_curve({"m1": {"C1": 0.2}, "m2": {"C1": 0.5}}, conditions=("C1",), ci=False)
    assert two["C1"].extra["sd"] == pytest.approx(statistics.stdev([0.2, 0.5]))  # two models have an SD
    one = escalation_curve({"m1": {"C1": 0.2}}, conditions=("C1",), ci=False)
    assert math.isnan(one["C1"].extra["sd"])


def test_channel_signal_with_only_the_columns_a_channel_needs():
    signal = S.channel_signal(["natural", "natural"], hedging_count=[1, 3])
    assert signal.dtype == np.float64 and signal.tolist() == [0.5, 0.25]


def test_components_frame_without_columns_is_empty():
    frame = S.components_frame()
    assert frame.height == 0 and "condition" in frame.columns
    assert S.components_frame(condition=["C1", "C2"]).height == 2


def test_confidence_outside_0_1_is_refused():
    assert S.brier([1.0, 0.0], [True, False]).value == 0.0
    for bad in ([1.5, 0.2], [0.2, -0.1], [1.0000001, 0.5]):
        with pytest.raises(S.ScoringInputError, match="confidence: row"):
            S.brier(bad, [True, False])


def test_cells_weighted_drops_only_empty_cells():
    from mirror_hf.scoring._bootstrap import Cells

    cells = Cells.weighted(np.array([2, 1, 0, 5]), x=np.array([1.0, 2.0, 3.0, 4.0]))
    assert cells.counts.tolist() == [2, 1, 5] and cells["x"].tolist() == [1.0, 2.0, 4.0] and cells.n == 8


# ---------------------------------------------------------------- mutation run 3 (seed 0, 50 per group)


@pytest.mark.parametrize("n", [10, 1_000, 1_000_000])
def test_spearman_of_a_large_sample_with_one_odd_item_is_scipys(n):
    """A side with a single differing item has a tiny but real rank variance (n(n-1)/4, against n³
    for a spread-out side): it must not be mistaken for a constant side, however many items (a
    million here: a tolerance growing like n⁴ would call it constant from about 500,000)."""
    from scipy.stats import spearmanr

    from mirror_hf.scoring._rank import spearman_from_table

    odd = np.zeros(n, dtype=int)
    odd[0] = 1
    spread = (np.arange(n) % 3 == 0).astype(int)
    for x, y in ((odd, spread), (spread, odd)):  # the odd item on either side
        table = np.zeros((1, 2, 2))
        np.add.at(table[0], (x, y), 1.0)
        expected = spearmanr(x, y).statistic
        got = spearman_from_table(table)[0]
        print(f"n={n}: scipy {expected:.6f}, ours {got:.6f}")
        assert got == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_partial_correlation_is_undefined_when_a_side_is_a_linear_function_of_the_covariate(seed):
    """x = a z + b leaves residuals that are zero up to rounding (~1e-16): their correlation with
    anything is noise, so r and p are NaN, whichever side it is."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=40)
    free = rng.normal(size=40)
    tied = rng.uniform(-3, 3) * z + rng.uniform(-5, 5)
    for x, y in ((tied, free), (free, tied)):
        out = S.partial_correlation(x, y, z)
        assert math.isnan(out.r) and math.isnan(out.p) and out.n == 40


@given(st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=1, max_size=9), st.integers(1, 3))
def test_median_or_bottom_k_weak_set_is_below_numpys_median_else_the_bottom_k(values, k):
    accuracy = {f"d{i}": v for i, v in enumerate(values)}
    median = float(np.median(values))
    weak = {d for d, a in accuracy.items() if a < median}
    if not weak:  # no domain below the median (all tied): the k lowest, ties by name
        weak = set(sorted(accuracy, key=lambda d: (accuracy[d], d))[:k])
    out = S.classify_domains(accuracy, policy="median_or_bottom_k", k=k)
    assert {d for d, c in out.items() if c == "weak"} == weak
    # strong: the rest, unless below chance (1 in 4) or tied with a weak domain (issue 29)
    top_weak = max(accuracy[d] for d in weak)
    strong = {d for d in set(accuracy) - weak if accuracy[d] >= 0.25 and accuracy[d] > top_weak}
    assert {d for d, c in out.items() if c == "strong"} == strong


@given(st.dictionaries(st.sampled_from("abcdefgh"), st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 1.0]), min_size=2),
       st.sampled_from(S.WEAK_POLICIES), st.integers(1, 3))
def test_no_domain_is_both_and_no_strong_domain_is_below_chance_or_tied_with_a_weak_one(accuracy, policy, k):
    out = S.classify_domains(accuracy, policy=policy, k=k)
    weak = [accuracy[d] for d, c in out.items() if c == "weak"]
    for d, c in out.items():
        if c == "strong":
            assert accuracy[d] >= 0.25 and all(accuracy[d] > w for w in weak), (accuracy, out)


def test_a_profile_at_zero_everywhere_names_no_strong_domain():
    accuracy = dict.fromkeys(("arithmetic", "spatial", "temporal", "linguistic", "logical", "social", "factual", "procedural"), 0.0)
    for policy in S.WEAK_POLICIES:
        labels = S.classify_domains(accuracy, policy=policy)
        assert "strong" not in labels.values(), (policy, labels)
        line = S.no_strong_domain(accuracy, labels, what="profile of m")
        assert line is not None and "\n" not in line and "--min-strong-accuracy" in line and "0.25" in line


def test_relabel_strength_treats_a_component_without_a_task_type_as_fixed():
    """Only a component recorded as tailored keeps its label; one with no task type is relabelled
    from the profile like a fixed one (median of 0.2 and 0.8 is 0.5: a weak, b strong)."""
    import polars as pl

    c = pl.DataFrame(
        {"model": ["m"] * 4, "domain": ["a", "b", "a", "b"], "exp1_accuracy": [0.2, 0.8, 0.2, 0.8],
         "strength": ["medium", "medium", "strong", "weak"], "task_type": [None, None, "tailored", "fixed"]},
        schema_overrides={"task_type": pl.String},
    )
    assert S.relabel_strength(c, "median_or_bottom_k")["strength"].to_list() == ["weak", "strong", "strong", "strong"]


def test_cce_accepts_confidences_at_both_ends_of_0_1_and_refuses_anything_outside():
    """Paper CCE = mean(|p - y| - |pa - ya|), worked by hand at the ends: confidence 0 on a wrong
    answer and 1 on a right one are errorless (0), against components stated at 1 on a wrong and 0
    on a right answer (error 1 each): mean -1."""
    e = S.cce([0.0, 1.0], [False, True], component_confidence=[1.0, 0.0], component_correct=[False, True])
    assert e.value == -1.0
    for bad in (-0.01, 1.01, 70.0):
        with pytest.raises(ValueError, match="expected a probability in"):
            S.cce([bad], [True], component_confidence=[0.5], component_correct=[True])
        with pytest.raises(ValueError, match="expected a probability in"):
            S.cce([0.5], [True], component_confidence=[bad], component_correct=[True])


def test_mirror_gap_by_domain_counts_each_domains_own_graded_questions():
    # a: 2 questions, b: 3, c: 5 (one of c ungraded in both channels, so 4 count)
    domain = ["a"] * 2 + ["b"] * 3 + ["c"] * 5
    natural = [True, False, True, True, False, True, True, False, False, None]
    wagering = [True, True, False, False, False, True, False, True, False, None]
    out = S.mirror_gap_by_domain(domain, natural, wagering)
    assert {d: e.n for d, e in out.items()} == {"a": 2, "b": 3, "c": 4}
    # |natural acc - wagering acc|: a |1/2 - 2/2| = 1/2, b |2/3 - 0/3| = 2/3, c |2/4 - 2/4| = 0
    assert {d: e.value for d, e in out.items()} == pytest.approx({"a": 0.5, "b": 2 / 3, "c": 0.0})


def test_bca_from_replicates_with_no_usable_replicate_is_none_and_with_one_is_that_value():
    from mirror_hf.scoring._bootstrap import bca_from_replicates

    for empty in (np.array([]), np.array([np.nan, np.nan])):
        assert bca_from_replicates(0.5, empty, 0.0) is None
    assert bca_from_replicates(float("nan"), np.array([0.4, 0.6]), 0.0) is None
    for single in (np.array([0.3]), np.array([np.nan, 0.3])):  # one replicate: every quantile is it
        assert bca_from_replicates(0.5, single, 0.0) == (0.3, 0.3)


# ------------------------------------------------------------------------------------------------
# Boundaries the 50-per-group mutation draw (seed 0) found unpinned: the BCa tie tolerance and z0
# clip, Benjamini-Hochberg at p = 1 and at the threshold, the ECE's last bin, the reliability bins.
# ------------------------------------------------------------------------------------------------


def _bca_by_definition(theta_hat: float, theta_b: np.ndarray, acceleration: float) -> tuple[float, float]:
    """Efron's BCa interval with z0 from scipy's own percentile-of-score (exact comparison, ties
    half), clipped to [1e-6, 1 - 1e-6] as the metric cards document; linear-interpolation quantiles."""
    from scipy import stats
    from scipy.special import ndtr, ndtri

    share = min(max(stats.percentileofscore(theta_b, theta_hat, kind="mean") / 100.0, 1e-6), 1.0 - 1e-6)
    z0, z = ndtri(share), ndtri(0.025)
    levels = [ndtr(z0 + (z0 + zz) / (1.0 - acceleration * (z0 + zz))) for zz in (z, -z)]
    lo, hi = np.quantile(theta_b, levels)
    return float(lo), float(hi)


def test_bca_ties_are_within_a_relative_1e_12_and_no_further():
    from mirror_hf.scoring._bootstrap import bca_from_replicates

    theta_hat = 0.5
    spread = np.concatenate([np.linspace(0.1, 0.45, 250), np.linspace(0.55, 0.9, 250)])
    # 500 replicates 1.5e-12 above the estimate: beyond the tolerance, so above it, as scipy's exact rule says
    above = np.concatenate([spread, np.full(500, theta_hat + 1.5e-12)])
    expected = _bca_by_definition(theta_hat, above, 0.0)
    assert bca_from_replicates(theta_hat, above, 0.0) == pytest.approx(expected, rel=1e-12)
    # the same 500 only 0.5e-12 above: summation rounding, counted as ties (half below each)
    near = np.concatenate([spread, np.full(500, theta_hat + 0.5e-12)])
    assert bca_from_replicates(theta_hat, near, 0.0) == pytest.approx(
        _bca_by_definition(theta_hat, np.concatenate([spread, np.full(500, theta_hat)]), 0.0), rel=1e-12)
    assert expected[0] < 0.11 and bca_from_replicates(theta_hat, near, 0.0)[0] > 0.13  # the two readings differ


@pytest.mark.parametrize("acceleration", [0.0, 5.0, 10.0])
def test_bca_of_an_estimate_below_every_replicate_clips_z0_at_1e_6(acceleration):
    from mirror_hf.scoring._bootstrap import bca_from_replicates

    theta_b = np.arange(1.0, 1002.0)  # every replicate above the estimate 0: share 0, clipped to 1e-6
    got = bca_from_replicates(0.0, theta_b, acceleration)
    assert got == pytest.approx(_bca_by_definition(0.0, theta_b, acceleration), rel=1e-12, abs=0.0)
    # and the mirror image: every replicate below, share 1 clipped to 1 - 1e-6
    lo, hi = bca_from_replicates(0.0, -theta_b[::-1], -acceleration)
    assert (lo, hi) == pytest.approx(tuple(-v for v in reversed(got)), rel=1e-9)


def _bh_by_definition(p: list[float]) -> list[float]:
    """q_(i) = min over j >= i of min(1, m p_(j) / j), p sorted ascending (Benjamini & Hochberg 1995)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, m * p[i] / rank)
        q[i] = min(1.0, running)
    return q


def test_bh_fdr_accepts_p_equal_to_1_and_matches_the_definition():
    rng = np.random.default_rng(11)
    families = [[0.01, 1.0, 0.02, 0.04], [1.0], [1.0, 1.0, 0.0], [0.0, 0.5, 0.5, 1.0, 0.25]]
    families += [list(np.round(rng.uniform(0, 1, size), 2)) + [1.0] for size in range(1, 30)]  # rounding: ties
    for p in families:
        q, reject = S.bh_fdr(p)
        assert q.tolist() == pytest.approx(_bh_by_definition(p), rel=1e-12), p
        assert reject.tolist() == [v < 0.05 for v in _bh_by_definition(p)]
    # q exactly at the threshold is not rejected (upstream's q < alpha): 0.025 * 2 / 1 = 0.05 * 2 / 2 = 0.05
    q, reject = S.bh_fdr([0.025, 0.05])
    assert q.tolist() == [0.05, 0.05] and reject.tolist() == [False, False]
    for bad in ([-0.01], [1.0 + 1e-9]):
        with pytest.raises(ValueError, match=r"\[0, 1\]"):
            S.bh_fdr(bad)


# bets 1..10 as confidences, one record each: bet b sits on bin b's lower edge, 9 and 10 share the last bin
_BET_CONF = [b / 10 for b in range(1, 11)]
_BET_RIGHT = [True, False, True, False, True, False, True, True, False, False]


def test_ece_puts_each_bet_on_its_own_bin_edge_and_bets_9_and_10_in_the_last():
    # bins 1..8: |y - b/10| = 0.9, 0.2, 0.7, 0.4, 0.5, 0.6, 0.3, 0.2; bin 9 {0.9, 1.0} both wrong: |0 - 1.9|
    # ECE = (0.9 + 0.2 + 0.7 + 0.4 + 0.5 + 0.6 + 0.3 + 0.2 + 1.9) / 10 = 0.57
    assert S.ece(_BET_CONF, _BET_RIGHT).value == pytest.approx(0.57, rel=1e-12)
    # 5 bins of width 0.2: {.1} {.2,.3} {.4,.5} {.6,.7} {.8,.9,1.0}: 0.9 + |1 - 0.5| + |1 - 0.9| + |1 - 1.3| + |1 - 2.7|
    assert S.ece(_BET_CONF, _BET_RIGHT, n_bins=5).value == pytest.approx((0.9 + 0.5 + 0.1 + 0.3 + 1.7) / 10, rel=1e-12)


def test_reliability_bins_by_hand():
    rows = S.reliability(_BET_CONF + [None, 0.35], _BET_RIGHT + [True, None])  # incomplete records dropped
    expected = [{"lo": b / 10, "hi": (b + 1) / 10, "n": 1, "confidence": b / 10, "accuracy": float(_BET_RIGHT[b - 1])}
                for b in range(1, 9)]  # bin 0 is empty, so not listed
    expected.append({"lo": 0.9, "hi": 1.0, "n": 2, "confidence": 0.95, "accuracy": 0.0})
    assert len(rows) == len(expected)
    for got, want in zip(rows, expected):
        assert got.keys() == want.keys() and got == pytest.approx(want, rel=1e-12)


def test_reliability_bins_holding_several_records_by_hand():
    # bins of 3 and 2 records: a bin's accuracy and confidence are its means, not sums
    rows = S.reliability([0.55, 0.55, 0.58, 0.2, 0.2], [True, False, True, True, True])
    assert rows == [
        {"lo": 0.2, "hi": 0.3, "n": 2, "confidence": pytest.approx(0.2, rel=1e-12), "accuracy": 1.0},
        {"lo": 0.5, "hi": 0.6, "n": 3, "confidence": pytest.approx((0.55 + 0.55 + 0.58) / 3, rel=1e-12),
         "accuracy": pytest.approx(2 / 3, rel=1e-12)},
    ]


# ------------------------------------------------------------------------------------------------
# Survivors of the fresh 150-per-group draw (seed 1)
# ------------------------------------------------------------------------------------------------


def test_channel_signal_of_a_record_without_a_channel_keeps_its_recorded_confidence():
    # a null channel follows no channel's rule (it must not be read as CHANNELS' second, opt_out)
    signal = S.channel_signal([None, "opt_out", None], skipped=[True, True, False], bet=[5, None, None],
                              confidence=[0.35, None, None])
    assert np.allclose(signal, [0.35, 0.0, math.nan], equal_nan=True), signal


def test_mci_of_no_usable_record_has_n_0():
    for item, channel, signal in (([], [], []), (["q1", "q2"], ["wagering", "opt_out"], [None, None])):
        e = S.mci(item, channel, signal)
        assert math.isnan(e.value) and e.n == 0 and e.extra == {"pairs": {}}
    one = S.mci(["q1", "q2", "q1"], ["wagering"] * 3, [0.2, 0.4, 0.9])  # one channel: no pair, two questions
    assert math.isnan(one.value) and one.n == 2


def test_escalation_curve_gives_two_models_an_interval_and_it_is_scipys():
    from scipy import stats

    values = np.array([0.25, 0.75])  # exact in binary: the resample means are exact, no tie rounding
    curve = escalation_curve({"m1": {"C1": 0.25}, "m2": {"C1": 0.75}}, conditions=("C1",), ci=S.Bootstrap(n_resamples=999, seed=3))
    with np.errstate(invalid="ignore", divide="ignore"):
        res = stats.bootstrap((values,), np.mean, method="BCa", n_resamples=999, rng=np.random.default_rng(3))
    assert curve["C1"].ci == pytest.approx((res.confidence_interval.low, res.confidence_interval.high), rel=1e-12)


def test_bca_mean_at_exactly_the_scipy_stream_limit_is_scipys_interval():
    # n x B = 200 x 10,000 = 2,000,000 draws: the documented limit, still on scipy's index stream
    from scipy import stats

    from mirror_hf.scoring._bootstrap import SCIPY_STREAM_LIMIT

    x = np.random.default_rng(8).normal(size=200)
    assert x.size * 10_000 == SCIPY_STREAM_LIMIT
    res = stats.bootstrap((x,), np.mean, method="BCa", n_resamples=10_000, rng=np.random.default_rng(5))
    got = S.bca_mean(x, n_resamples=10_000, seed=5)
    assert got == pytest.approx((res.confidence_interval.low, res.confidence_interval.high), rel=1e-9)


def test_a_constant_jackknife_gives_acceleration_0():
    from mirror_hf.scoring._bootstrap import Cells, _jackknife_acceleration

    cells = Cells.of(x=np.array([0.0, 1.0, 1.0]))  # cells 0 (once) and 1 (twice)
    top = lambda w: np.where(w[:, 1] > 0, 1.0, 0.0)  # noqa: E731  the sample's maximum
    # leaving out the 0 or either 1 keeps a 1 in the sample: every leave-one-out maximum is 1
    assert _jackknife_acceleration(top, (cells,)) == 0.0
    # the mean's jackknife, by hand: leave-one-out means 1, 1/2, 1/2; u = 2 (2/3 - theta_i) = -2/3, 1/3, 1/3
    # a = sum u^3 / (6 (sum u^2)^1.5) = (-8/27 + 2/27) / (6 (6/9)^1.5)
    mean = lambda w: (w @ cells["x"]) / w.sum(axis=1)  # noqa: E731
    assert _jackknife_acceleration(mean, (cells,)) == pytest.approx((-6 / 27) / (6 * (6 / 9) ** 1.5), rel=1e-12)


def test_cells_of_many_wide_columns_is_numpys_unique_rows():
    # 8 columns of 1000 distinct values each: the mixed-radix key would need 1000^8 > 2^63, so it is
    # re-densified on the way; the cells must still be numpy's unique rows, in lexicographic order
    from mirror_hf.scoring._bootstrap import Cells

    rng = np.random.default_rng(2)
    base = np.column_stack([rng.permutation(1000) * 7 + j for j in range(8)])
    data = np.concatenate([base, base[:300]])  # 300 rows twice
    cells = Cells.of(**{f"c{j}": data[:, j] for j in range(8)})
    rows, counts = np.unique(data, axis=0, return_counts=True)
    assert cells.k == 1000 and cells.counts.tolist() == counts.tolist()
    assert np.array_equal(np.column_stack([cells[f"c{j}"] for j in range(8)]), rows)


def test_paired_difference_without_resamples_gives_point_figures_only():
    import statistics

    a, b = [0.5, 0.25, 0.75, 1.0, 0.5], [0.25, 0.25, 0.5, 0.5, 0.0]
    d = [x - y for x, y in zip(a, b)]
    out = paired_difference(a, b, n_resamples=0)
    assert out.n == 5 and out.mean_diff == pytest.approx(statistics.mean(d)) and out.sd_diff == pytest.approx(statistics.stdev(d))
    assert out.d_z == pytest.approx(statistics.mean(d) / statistics.stdev(d))
    assert out.ci is None and out.d_z_ci is None and out.p is None


@pytest.mark.parametrize("theta_hat", [0.5, -0.25, 1000.0])
def test_bca_tie_tolerance_is_relative_to_the_estimate_above_1(theta_hat):
    # the tolerance is 1e-12 x max(1, |estimate|): at 1000, replicates 5e-10 away are still ties
    from mirror_hf.scoring._bootstrap import bca_from_replicates

    scale = max(1.0, abs(theta_hat))
    spread = theta_hat + scale * np.concatenate([np.linspace(-0.4, -0.05, 250), np.linspace(0.05, 0.4, 250)])
    tied = np.concatenate([spread, np.full(500, theta_hat)])
    near = np.concatenate([spread, np.full(500, theta_hat + 0.5e-12 * scale)])
    far = np.concatenate([spread, np.full(500, theta_hat + 1.5e-12 * scale)])
    assert bca_from_replicates(theta_hat, near, 0.0) == pytest.approx(_bca_by_definition(theta_hat, tied, 0.0), rel=1e-12)
    assert bca_from_replicates(theta_hat, far, 0.0) == pytest.approx(_bca_by_definition(theta_hat, far, 0.0), rel=1e-12)


def test_percentile_interval_of_one_replicate_is_that_replicate():
    from mirror_hf.scoring._bootstrap import percentile_from_replicates

    assert percentile_from_replicates(np.array([0.3])) == (0.3, 0.3)
    assert percentile_from_replicates(np.array([np.nan, 0.3])) == (0.3, 0.3)
    assert percentile_from_replicates(np.array([np.nan])) is None
    # 101 replicates 0..100: the 2.5% and 97.5% quantiles by linear interpolation are 2.5 and 97.5
    assert percentile_from_replicates(np.arange(101.0)) == pytest.approx((2.5, 97.5))


def test_cells_of_values_0_2_and_nan_keeps_three_cells():
    # only 0/1/NaN columns take the outcome shortcut; 2 must not be coded like NaN
    from mirror_hf.scoring._bootstrap import Cells

    cells = Cells.of(x=np.array([2.0, 0.0, np.nan, 2.0, np.nan, np.nan]))
    assert cells.k == 3 and cells.counts.tolist() == [1, 2, 3]
    assert cells["x"][:2].tolist() == [0.0, 2.0] and math.isnan(cells["x"][2])


def test_auto_stream_switches_to_multinomial_just_above_2_million_draws():
    # 3 items x 666,667 resamples = 2,000,001 draws: past the documented 2 million, `auto` is the
    # multinomial route; 3 x 666,666 = 1,999,998 is still scipy's index route
    from mirror_hf.scoring._bootstrap import Cells, replicates

    cells = Cells.of(x=np.array([0.0, 1.0, 3.0]))
    mean = lambda w: (w @ cells["x"]) / w.sum(axis=1)  # noqa: E731
    for size, route in ((666_667, "multinomial"), (666_666, "scipy")):
        auto = replicates(mean, cells, n_resamples=size, rng=np.random.default_rng(1))
        other = "scipy" if route == "multinomial" else "multinomial"
        assert np.array_equal(auto, replicates(mean, cells, n_resamples=size, rng=np.random.default_rng(1), stream=route))
        assert not np.array_equal(auto, replicates(mean, cells, n_resamples=size, rng=np.random.default_rng(1), stream=other))


def test_paired_difference_with_one_resample_has_that_resamples_interval():
    # one resample: scipy's index draw rng.integers(0, n, (1, n)); its mean is every quantile
    d = np.array([0.25, 0.0, 0.25, 0.5, 0.5])
    idx = np.random.default_rng(7).integers(0, 5, (1, 5))
    out = paired_difference(d, np.zeros(5), n_resamples=1, seed=7)
    assert out.ci == pytest.approx((d[idx].mean(),) * 2)
    assert out.to_json()["mean_diff_ci"] is None  # issue 29: a zero-width interval is not reported


def test_partial_correlation_of_three_rows_is_the_textbook_value():
    x, y, z = np.array([1.0, 2.0, 4.0]), np.array([2.0, 1.0, 5.0]), np.array([0.0, 1.0, 1.5])
    r = np.corrcoef([x, y, z])
    expected = (r[0, 1] - r[0, 2] * r[1, 2]) / math.sqrt((1 - r[0, 2] ** 2) * (1 - r[1, 2] ** 2))
    out = S.partial_correlation(x, y, z)
    assert out.n == 3 and out.r == pytest.approx(expected, rel=1e-9)


def test_macro_accuracy_counts_a_domain_with_a_single_graded_record():
    # a: one record, right (1); b: two records, both wrong (0): (1 + 0) / 2
    assert S.macro_accuracy([True, False, False], ["a", "b", "b"]).value == pytest.approx(0.5)


def test_mci_interval_is_scipys_paired_bca_of_spearman():
    from scipy import stats

    rng = np.random.default_rng(3)
    a, b = rng.normal(size=30), rng.normal(size=30)
    b = a + b  # correlated channels
    items = [f"q{i}" for i in range(30)]
    e = S.mci(items * 2, ["wagering"] * 30 + ["opt_out"] * 30, np.concatenate([a, b]), ci=S.Bootstrap(n_resamples=999, seed=4))
    res = stats.bootstrap((a, b), lambda u, v: stats.spearmanr(u, v).statistic, paired=True, vectorized=False,
                          method="BCa", n_resamples=999, rng=np.random.default_rng(4))
    assert e.value == pytest.approx(stats.spearmanr(a, b).statistic, rel=1e-9)
    assert e.ci == pytest.approx((res.confidence_interval.low, res.confidence_interval.high), rel=1e-9)


def test_pair_tables_after_an_empty_pair_are_the_brute_force_counts():
    # a pair with no levels on one side (an empty table) must not shift the pairs after it
    from mirror_hf.scoring._rank import PairTables

    x = np.array([0, 1, 1, 0, 1])
    y = np.array([1, 0, 1, 1, -1])  # -1: no value
    none = np.full(5, -1)
    w = np.array([[1.0, 2.0, 1.0, 3.0, 1.0], [0.0, 1.0, 2.0, 1.0, 4.0]])
    tables = PairTables([(none, 0, y, 2), (x, 2, y, 2), (y, 2, x, 2)]).tables(w)
    assert tables[0].shape == (2, 0, 0)
    for t, (a, b) in zip(tables[1:], ((x, y), (y, x))):
        expected = np.zeros((2, 2, 2))
        for r in range(2):
            for k in range(5):
                if a[k] >= 0 and b[k] >= 0:
                    expected[r, a[k], b[k]] += w[r, k]
        assert np.array_equal(t, expected)


def test_the_behavioural_channels_scored_include_the_papers_five():
    """MCI and TII correlate the paper's five behavioural channels (wagering, opting out, choosing
    easy or hard, delegating to tools, natural hedging), and any registered since."""
    from mirror_hf import scoring

    assert {"wagering", "opt_out", "difficulty_selection", "tool_delegation", "natural"} <= set(scoring.behavioural_channels())


def test_spearman_of_empty_tables_is_one_nan_per_replicate():
    from mirror_hf.scoring._rank import spearman_from_table

    out = spearman_from_table(np.zeros((3, 0, 0)))
    assert out.shape == (3,) and np.isnan(out).all()
