"""Hand-computed small cases for every Mirror metric and variant (expected values are worked out in
the comments, not taken from the code), plus the edge cases: empty input, one class only, constant
channels, a model with no weak domains, missing components."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

from mirror_hf import scoring as S
from mirror_hf.scoring import ScoringInputError

T, F, N = True, False, None


def approx(x, rel=1e-12, abs=1e-12):
    return pytest.approx(x, rel=rel, abs=abs)


# ------------------------------------------------------------------------------------------------
# Accuracy and the Mirror gap
# ------------------------------------------------------------------------------------------------


def test_pooled_and_macro_accuracy():
    correct = [T, F, T, N, T, F]
    domain = ["a", "a", "a", "a", "b", "b"]
    # graded: T F T T F -> 3/5; domain a: 2/3, domain b: 1/2 -> macro (2/3 + 1/2) / 2 = 7/12
    assert S.accuracy(correct).value == approx(0.6)
    assert S.accuracy(correct).n == 5
    macro = S.natural_accuracy(correct, domain)
    assert macro.value == approx(7 / 12)
    assert macro.n == 5
    assert S.wagering_accuracy(correct, domain).value == approx(7 / 12)
    per = S.domain_accuracy(correct, domain)
    assert per["a"].value == approx(2 / 3) and per["a"].n == 3
    assert per["b"].value == approx(0.5) and per["b"].n == 2


def test_accuracy_empty_and_ungraded_only_are_nan():
    for correct in ([], [N, N]):
        e = S.accuracy(correct)
        assert math.isnan(e.value) and e.n == 0
        m = S.natural_accuracy(correct, ["a"] * len(correct))
        assert math.isnan(m.value) and m.n == 0


def test_accuracy_all_one_class_has_no_zero_width_ci():
    """Issue 29: a zero-width interval is never reported; on trials all alike it says why."""
    e = S.accuracy([T] * 20, ci=True)
    assert e.value == 1.0 and e.ci is None and "every trial alike" in e.to_json()["ci_note"]


def test_mirror_gap_hand_computed():
    # q1 a nat T wag T; q2 a nat F wag T; q3 b T F; q4 b - T; q5 c T - ; q6 b F F
    domain = ["a", "a", "b", "b", "c", "b"]
    nat = [T, F, T, N, T, F]
    wag = [T, T, F, T, N, F]
    # a: nat 1/2, wag 2/2 -> 0.5;  b: nat 1/2 (q3 T, q6 F), wag 1/3 (q3 F, q4 T, q6 F) -> 1/6
    # c: no wagering grade -> skipped.  Gap = (0.5 + 1/6) / 2 = 1/3
    gap = S.mirror_gap(domain, nat, wag)
    assert gap.value == approx(1 / 3)
    assert gap.n == 6
    by = S.mirror_gap_by_domain(domain, nat, wag)
    assert set(by) == {"a", "b"}
    assert by["a"].value == approx(0.5) and by["b"].value == approx(1 / 6)


def test_mirror_gap_empty():
    assert math.isnan(S.mirror_gap([], [], []).value)


def test_bad_outcome_column_names_row_and_field():
    with pytest.raises(ScoringInputError, match=r"correct: row 1 is 'yes'"):
        S.accuracy([True, "yes"])
    with pytest.raises(ScoringInputError, match="correct: row 2 is 0.5"):
        S.accuracy([1, 0, 0.5])
    with pytest.raises(ScoringInputError, match="differ in length"):
        S.natural_accuracy([T, F], ["a"])


# ------------------------------------------------------------------------------------------------
# Calibration
# ------------------------------------------------------------------------------------------------

CONF = [0.1, 0.15, 0.9, 1.0, 0.55]
CORR = [F, T, T, T, F]


def test_ece_hand_computed():
    # bins: 0.1 and 0.15 -> bin 1 (acc 1/2, conf 0.125, |.| = 0.375);
    #       0.9 and 1.0 -> bin 9, the last one closed (acc 1, conf 0.95, 0.05);
    #       0.55 -> bin 5 (acc 0, conf 0.55, 0.55)
    # ECE = 2/5*0.375 + 2/5*0.05 + 1/5*0.55 = 0.15 + 0.02 + 0.11 = 0.28
    assert S.ece(CONF, CORR).value == approx(0.28)
    assert S.ece(CONF, CORR).n == 5


def test_brier_log_auroc_hand_computed():
    # Brier: (0.01 + 0.7225 + 0.01 + 0 + 0.3025) / 5 = 0.209
    assert S.brier(CONF, CORR).value == approx(0.209)
    expected_log = (-math.log(0.9) - math.log(0.15) - math.log(0.9) - math.log(1 - 1e-6) - math.log(0.45)) / 5
    assert S.log_score(CONF, CORR).value == approx(expected_log)
    # correct {0.15, 0.9, 1.0} vs wrong {0.1, 0.55}: 0.15 beats 0.1 only; 0.9 and 1.0 beat both -> 5/6
    assert S.auroc(CONF, CORR).value == approx(5 / 6)
    assert S.auroc([0.5, 0.5], [T, F]).value == approx(0.5)  # a tie counts half


def test_calibration_drops_incomplete_records_and_shares_resamples():
    conf = CONF + [None, 0.3]
    corr = CORR + [T, None]
    joint = S._calibration.calibration(conf, corr, ci=S.Bootstrap(n_resamples=500))
    assert joint["ece"].value == approx(0.28) and joint["ece"].n == 5
    alone = S.ece(conf, corr, ci=S.Bootstrap(n_resamples=500))
    assert joint["ece"].ci == alone.ci  # one shared draw = each statistic's own draw


def test_calibration_one_class_and_empty():
    assert math.isnan(S.auroc([0.2, 0.9], [T, T]).value)
    assert S.ece([0.2, 0.9], [T, T]).value == approx((0.8 + 0.1) / 2)
    for metric in (S.ece, S.brier, S.log_score, S.auroc):
        e = metric([], [])
        assert math.isnan(e.value) and e.n == 0


def test_wager_confidence_and_range_errors():
    out = S.wager_confidence([10, 1, None])
    assert out[0] == 1.0 and out[1] == 0.1 and math.isnan(out[2])
    with pytest.raises(ScoringInputError, match="bet: row 0"):
        S.wager_confidence([0])
    with pytest.raises(ScoringInputError, match=r"confidence: row 1 is 7.0"):
        S.ece([0.5, 7], [T, F])


# ------------------------------------------------------------------------------------------------
# MCI and TII
# ------------------------------------------------------------------------------------------------


def test_mci_hand_computed_with_a_constant_channel_dropped():
    items = ["q1", "q2", "q3", "q4"]
    rows = {
        "wagering": [2, 4, 6, 8],
        "natural": [0.1, 0.3, 0.2, 0.9],  # ranks 1 3 2 4 vs 1 2 3 4: sum d^2 = 2 -> rho = 1 - 12/60 = 0.8
        "opt_out": [1, 1, 1, 1],  # constant: its two pairs are dropped, not NaN
    }
    item_id = [q for _ in rows for q in items]
    channel = [c for c in rows for _ in items]
    signal = [v for c in rows for v in rows[c]]
    e = S.mci(item_id, channel, signal)
    assert e.value == approx(0.8)
    assert e.n == 4
    assert e.extra["pairs"]["natural~wagering"] == approx(0.8)
    assert e.extra["pairs"]["natural~opt_out"] is None


def test_mci_pairs_over_shared_questions_with_ties():
    # tool_delegation on q1..q3 only: (1, 0.5, 0.5) -> ranks (3, 1.5, 1.5)
    # vs wagering ranks (1, 2, 3): dx (1, -.5, -.5), dy (-1, 0, 1): r = -1.5 / sqrt(1.5 * 2) = -sqrt(3)/2
    # vs natural on q1..q3 (0.1, 0.3, 0.2) ranks (1, 3, 2): dy (-1, 1, 0): r = -1.5/sqrt(3) as well
    item_id = ["q1", "q2", "q3", "q4"] * 2 + ["q1", "q2", "q3"]
    channel = ["wagering"] * 4 + ["natural"] * 4 + ["tool_delegation"] * 3
    signal = [2, 4, 6, 8, 0.1, 0.3, 0.2, 0.9, 1, 0.5, 0.5]
    expected = (0.8 - 2 * math.sqrt(3) / 2) / 3
    assert S.mci(item_id, channel, signal).value == approx(expected)


def test_mci_agrees_with_scipy_spearman_on_random_signals():
    rng = np.random.default_rng(3)
    n = 60
    a, b = rng.integers(1, 11, n), rng.integers(0, 4, n)
    e = S.mci([f"q{i}" for i in range(n)] * 2, ["wagering"] * n + ["natural"] * n, np.concatenate([a, b]))
    assert e.value == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)


def test_mci_edge_cases():
    assert math.isnan(S.mci([], [], []).value)
    one = S.mci(["q1", "q2"], ["wagering", "wagering"], [1, 2])
    assert math.isnan(one.value) and one.n == 2
    # two questions shared is enough for a pair; one is not
    assert S.mci(["q1", "q2", "q1", "q2"], ["wagering"] * 2 + ["natural"] * 2, [1, 2, 0.1, 0.5]).value == approx(1.0)
    assert math.isnan(S.mci(["q1", "q2", "q1"], ["wagering"] * 2 + ["natural"], [1, 2, 0.1]).value)


def test_channel_signal_rules():
    out = S.channel_signal(
        ["wagering", "opt_out", "difficulty_selection", "tool_delegation", "natural", "layer2"],
        bet=[7, None, None, None, None, None],
        skipped=[None, True, None, None, None, None],
        choice=[None, None, "A", None, None, None],
        n_tools=[None, None, None, 3, None, None],
        hedging_count=[None, None, None, None, 1, None],
        confidence=[None, None, None, None, None, 0.42],
    )
    assert out.tolist() == [0.7, 0.0, 1.0, 0.25, 0.5, 0.42]  # each channel's Signal in [0, 1] (bet / 10)


def test_tii_paper_absolute_upstream_signed():
    items = ["t1", "t2", "t3", "t4"]
    acc = [0.2, 0.4, 0.6, 0.8]
    item_id = items * 2 + ["t1", "t2"]
    channel = ["wagering"] * 4 + ["natural"] * 4 + ["opt_out"] * 2
    signal = [1, 2, 3, 4] + [4, 3, 2, 1] + [1, 0]  # rho +1, rho -1, opt_out has < 3 tasks -> dropped
    source = acc * 2 + acc[:2]
    paper = S.tii(item_id, channel, signal, source)
    assert paper.value == approx(1.0)  # mean |rho| = (1 + 1) / 2
    assert paper.n == 4
    assert paper.extra["channels"]["opt_out"] is None
    assert S.tii(item_id, channel, signal, source, variant="upstream").value == approx(0.0)  # (1 - 1) / 2
    with pytest.raises(ValueError, match="variant"):
        S.tii(item_id, channel, signal, source, variant="signed")


# ------------------------------------------------------------------------------------------------
# CCE
# ------------------------------------------------------------------------------------------------


def test_cce_upstream_imputes_missing_confidence():
    # |0.9 - 1| + |0.2 - 0| + |0.5 - 1| (missing confidence -> 0.5) = 0.8, over 3 tasks
    e = S.cce([0.9, 0.2, None], [T, F, T], variant="upstream")
    assert e.value == approx(0.8 / 3) and e.n == 3


def test_cce_paper_subtracts_the_component_error():
    # task 1: |0.9 - 1| - |0.6 - 1| = 0.1 - 0.4 = -0.3; task 2: |0.2 - 0| - |0.5 - 1| = -0.3
    # task 3 lacks its component grade -> dropped
    e = S.cce(
        [0.9, 0.2, 0.7],
        [T, F, T],
        component_confidence=[0.6, 0.5, 0.5],
        component_correct=[T, T, None],
        variant="paper",
    )
    assert e.value == approx(-0.3) and e.n == 2
    with pytest.raises(ValueError, match="component_confidence"):
        S.cce([0.5], [T], variant="paper")


def test_cce_balanced_equal_weights_strata_and_pairs():
    # weak = {a}. errors e = confidence (correct is False):
    # weak_weak: a|a 0.2 -> 0.2;  strong_weak: a|b (0.4, 0.6) -> 0.5;  strong_strong: b|c 0.1, b|b (0.3, 0.5) -> 0.25
    # CCE = (0.2 + 0.5 + 0.25) / 3
    e = S.cce(
        [0.2, 0.4, 0.6, 0.1, 0.3, 0.5],
        [F] * 6,
        domain_a=["a", "a", "b", "b", "b", "b"],
        domain_b=["a", "b", "a", "c", "b", "b"],
        weak_domains={"a"},
        variant="balanced",
    )
    assert e.value == approx(0.95 / 3) and e.n == 6


def test_cce_edge_cases():
    assert math.isnan(S.cce([], [], variant="upstream").value)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        S.cce([85.0], [T], variant="upstream")
    with pytest.raises(ValueError, match="variant"):
        S.cce([0.5], [T], variant="v2")


# ------------------------------------------------------------------------------------------------
# Weak-domain policies
# ------------------------------------------------------------------------------------------------


def test_weak_policies():
    acc = {"a": 0.1, "b": 0.5, "c": 0.5, "d": 0.9, "e": None}
    # median of (0.1, 0.5, 0.5, 0.9) = 0.5; weak = strictly below -> {a}; e has no data
    assert S.classify_domains(acc) == {"a": "weak", "b": "strong", "c": "strong", "d": "strong", "e": "unknown"}
    # all equal: nothing below the median -> bottom-2 by (accuracy, name)
    assert S.weak_domains({"c": 0.5, "a": 0.5, "b": 0.5}) == {"a", "b"}
    assert S.classify_domains({"x": 0.40, "y": 0.41, "z": 0.60}, policy="threshold") == {"x": "weak", "y": "medium", "z": "strong"}
    assert S.classify_domains(acc, policy="bottom_k", k=1) == {"a": "weak", "b": "medium", "c": "medium", "d": "strong", "e": "unknown"}
    assert S.weak_domains(acc, policy="absolute", tau=0.5) == {"a"}
    assert S.weak_domains({}) == frozenset()
    with pytest.raises(ValueError, match="weak_policy"):
        S.classify_domains(acc, policy="median")


# ------------------------------------------------------------------------------------------------
# Exp9: CFR, frames, missing data, UDR, appropriate action, KDI
# ------------------------------------------------------------------------------------------------


def components(rows: list[dict]) -> pl.DataFrame:
    base = {"condition": "C1", "paradigm": "P1", "task_type": "fixed", "api_success": True, "is_false_score_control": False, "externally_routed": False}
    cols = {k: [] for k in ("strength", "decision", "correct", *base, "domain", "mirror_gap")}
    for row in rows:
        full = {**base, "domain": None, "mirror_gap": None, **row}
        for k in cols:
            cols[k].append(full[k])
    return S.components_frame(**cols)


MISSING_CASE = [
    {"strength": "weak", "decision": "proceed", "correct": F},  # 1 failure
    {"strength": "weak", "decision": "proceed", "correct": T},  # 2
    {"strength": "weak", "decision": "defer", "correct": N},  # 3 deferral: graded or not, never a failure
    {"strength": "weak", "decision": "use_tool", "correct": F},  # 4 a tool is never a failure
    {"strength": "weak", "decision": "proceed", "correct": N},  # 5 missing: proceeded without a grade
    {"strength": "weak", "decision": N, "correct": N, "api_success": F},  # 6 missing: the request failed
    {"strength": "strong", "decision": "proceed", "correct": F},  # 7 not weak
    {"strength": "medium", "decision": "proceed", "correct": F},  # 8 not weak
]


def test_cfr_complete_case_and_missing_incorrect():
    c = components(MISSING_CASE)
    # complete case: weak components 1-4 count, one failure -> 1/4
    cc = S.cfr(c, frame="all")
    assert cc.value == approx(0.25) and cc.n == 4
    # missing = incorrect: 1-6 count, failures 1, 5, 6 -> 3/6
    mi = S.cfr(c, frame="all", missing="missing_incorrect")
    assert mi.value == approx(0.5) and mi.n == 6
    # an externally routed component never counts as missing (its outcome needs no response)
    routed = components(MISSING_CASE + [{"strength": "weak", "decision": "use_tool", "correct": T, "api_success": F, "externally_routed": T}])
    assert S.cfr(routed, frame="all").value == approx(1 / 5)
    with pytest.raises(ValueError, match="missing"):
        S.cfr(c, missing="drop")


def test_cfr_pooling_frames():
    c = components(
        [
            {"strength": "weak", "decision": "proceed", "correct": F, "paradigm": "P1"},  # r1
            {"strength": "weak", "decision": "proceed", "correct": T, "paradigm": "P2", "task_type": "tailored"},  # r2
            {"strength": "weak", "decision": "proceed", "correct": F, "paradigm": "P3"},  # r3
            {"strength": "weak", "decision": "proceed", "correct": T, "paradigm": "P1", "is_false_score_control": T},  # r4: never
            {"strength": "weak", "decision": "proceed", "correct": F, "paradigm": "P3", "task_type": "tailored"},  # r5
            {"strength": "weak", "decision": "proceed", "correct": F, "paradigm": "P1", "condition": "C2"},  # r6
        ]
    )
    assert S.cfr(c, frame="escalation", condition="C1").value == approx(1 / 2)  # r1, r2
    assert S.cfr(c, frame="table", condition="C1").value == approx(2 / 2)  # r1, r3
    assert S.cfr(c, frame="kdi", condition="C1").value == approx(1.0)  # r1
    assert S.cfr(c, frame="all", condition="C1").value == approx(3 / 4)  # r1, r2, r3, r5
    by = S.cfr_by_condition(c, frame="escalation")
    assert set(by) == {"C1", "C2"} and by["C2"].value == 1.0 and by["C2"].n == 1
    with pytest.raises(ValueError, match="frame"):
        S.cfr(c, frame="headline")


def test_cfr_model_with_no_weak_domains_is_nan():
    c = components([{"strength": "strong", "decision": "proceed", "correct": F}] * 3)
    e = S.cfr(c, frame="all", ci=True)
    assert math.isnan(e.value) and e.n == 0 and e.ci is None
    assert math.isnan(S.kdi(c, variant="paper", model_gap=0.2).value)
    assert math.isnan(S.kdi(c, variant="upstream", gap_by_domain={"a": 0.1}).value)
    assert S.cfr_by_condition(c)["C1"].n == 0


def test_cfr_rejects_unknown_decisions():
    with pytest.raises(ValueError, match=r"decision: row 0 is 'maybe'"):
        S.cfr(components([{"strength": "weak", "decision": "maybe", "correct": F}]))


def test_udr_appropriate_action_and_escalation_rate():
    c = components(
        [
            {"strength": "strong", "decision": "use_tool", "correct": T},  # escalated and right: counts
            {"strength": "strong", "decision": "defer", "correct": F},
            {"strength": "strong", "decision": "proceed", "correct": T},
            {"strength": "strong", "decision": "use_tool", "correct": N},
            {"strength": "weak", "decision": "proceed", "correct": F},
            {"strength": "weak", "decision": "defer", "correct": F},
            {"strength": "weak", "decision": "proceed", "correct": T},
            {"strength": "weak", "decision": "use_tool", "correct": T},
        ]
    )
    assert S.udr(c).value == approx(1 / 4)
    assert S.cfr(c, frame="table", condition="C1").value == approx(1 / 4)
    assert S.appropriate_action_rate(c).value == approx(3 / 4)
    assert S.escalation_rate_weak(c).value == approx(2 / 4)
    with_ci = S.appropriate_action_rate(c, ci=S.Bootstrap(n_resamples=200))
    cfr_ci = S.cfr(c, frame="table", condition="C1", ci=S.Bootstrap(n_resamples=200)).ci
    assert with_ci.ci == approx((1 - cfr_ci[1], 1 - cfr_ci[0]))


def test_kdi_paper_and_upstream():
    rows = [
        {"strength": "weak", "decision": "proceed", "correct": F, "domain": "x", "mirror_gap": 0.2},
        {"strength": "weak", "decision": "proceed", "correct": T, "domain": "x", "mirror_gap": 0.2},
        {"strength": "weak", "decision": "proceed", "correct": F, "domain": "y", "mirror_gap": 0.1},
        {"strength": "weak", "decision": "defer", "correct": F, "domain": "y", "mirror_gap": 0.1, "paradigm": "P2"},
        {"strength": "strong", "decision": "proceed", "correct": T, "domain": "z", "mirror_gap": 0.4},
    ]
    c = components(rows)
    # paper: CFR(table frame, C1) over the 4 weak components = 2/4; KDI = 0.3 - (1 - 0.5) = -0.2
    assert S.kdi(c, variant="paper", model_gap=0.3).value == approx(-0.2)
    # default model gap = mean of the recorded per-domain gaps present: (0.2 + 0.1 + 0.4) / 3
    assert S.kdi(c, variant="paper").value == approx(0.7 / 3 - 0.5)
    # upstream (C1, P1, fixed): x: CFR 1/2 -> 0.2 - 0.5 = -0.3; y: CFR 1/1 (the P2 deferral is out) -> 0.1 - 0 = 0.1
    # z has no weak component. KDI = (-0.3 + 0.1) / 2 = -0.1
    assert S.kdi(c, variant="upstream").value == approx(-0.1)
    assert S.kdi(c, variant="upstream", gap_by_domain={"x": 0.5, "y": 0.5}).value == approx(((0.5 - 0.5) + (0.5 - 0.0)) / 2)
    with pytest.raises(ValueError, match="variant"):
        S.kdi(c, variant="table")


def test_exp9_components_unpivots_slots():
    trial = {
        "model": "m", "item_id": "t1", "condition": "C2", "paradigm": "P1", "task_type": "fixed",
        "is_false_score_control": False, "api_success": True,
        "domain_a": "arithmetic", "strength_a": "weak", "component_a_decision": "proceed", "component_a_correct": False,
        "domain_b": "social", "strength_b": "strong", "component_b_decision": "defer", "component_b_correct": None,
    }
    c = S.exp9_components(pl.DataFrame([trial]))
    assert c.height == 2
    assert c["slot"].to_list() == ["a", "b"]
    assert c["domain"].to_list() == ["arithmetic", "social"]
    assert c["decision"].to_list() == ["proceed", "defer"]
    assert c["condition"].to_list() == ["C2", "C2"]
    assert c["mirror_gap"].null_count() == 2  # absent columns come out null
    assert S.cfr(c, condition="C2").value == 1.0


def test_relabel_strength_keeps_tailored_labels():
    c = pl.DataFrame(
        {
            "model": ["m"] * 4,
            "domain": ["a", "b", "a", "b"],
            "exp1_accuracy": [0.2, 0.8, 0.2, 0.8],
            "strength": ["medium", "medium", "strong", "weak"],
            "task_type": ["fixed", "fixed", "tailored", "tailored"],
        }
    )
    out = S.relabel_strength(c, "median_or_bottom_k")
    # median of (0.2, 0.8) = 0.5: a weak, b strong; tailored rows keep their recorded labels
    assert out["strength"].to_list() == ["weak", "strong", "strong", "weak"]
    out = S.relabel_strength(c, "threshold", accuracy_by_model={"m": {"a": 0.5, "b": 0.65}})
    assert out["strength"].to_list()[:2] == ["medium", "strong"]
