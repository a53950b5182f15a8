"""Exp9 quantities beyond CFR per condition: each against a case worked out by hand (the expected
numbers are written as the fractions the docstring's definition gives, not taken from the code)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from mirror_hf.scoring._baselines import baselines, platt_fit
from mirror_hf.scoring._bootstrap import Bootstrap
from mirror_hf.scoring._exp9 import cfr, cfr_by_condition, components_frame, kdi
from mirror_hf.scoring._exp9_models import money_plot, temperature_reduction
from mirror_hf.scoring._exp9_report import label_components
from mirror_hf.scoring._exp9_tradeoff import (
    c4_tradeoff,
    cfr_by_paradigm,
    escalation_fixed_p1p2,
    false_score_control,
    false_score_verdict,
    ipw_cfr,
    mnar_bound,
    resolver_outcomes,
)

CI = Bootstrap(n_resamples=2000)  # enough to check an interval's placement, light on a shared machine


def comps(rows: list[dict]) -> pl.DataFrame:
    base = {"model": "m", "paradigm": "P1", "task_type": "fixed", "api_success": True, "externally_routed": False,
            "is_false_score_control": False, "slot": "b", "strength": "weak", "domain": "social"}
    rows = [{**base, **r} for r in rows]
    return components_frame(**{k: [r.get(k) for r in rows] for k in {k for r in rows for k in r}})


# five weak slot-b components under C1 and C4, one strong slot-a component
#   task  C1 (decision, correct)   C4
#   t1    proceed, wrong           routed (oracle: right)
#   t2    proceed, right           routed
#   t3    proceed, wrong           not routed: proceed, wrong
#   t4    defer (ungraded)         routed
#   t5    proceed, wrong           routed
TRADEOFF = comps([
    {"task_id": "t1", "condition": "C1", "decision": "proceed", "correct": False},
    {"task_id": "t2", "condition": "C1", "decision": "proceed", "correct": True},
    {"task_id": "t3", "condition": "C1", "decision": "proceed", "correct": False},
    {"task_id": "t4", "condition": "C1", "decision": "defer", "correct": None},
    {"task_id": "t5", "condition": "C1", "decision": "proceed", "correct": False},
    {"task_id": "t1", "condition": "C1", "slot": "a", "strength": "strong", "decision": "proceed", "correct": True},
    {"task_id": "t1", "condition": "C4", "decision": "use_tool", "correct": True, "externally_routed": True},
    {"task_id": "t2", "condition": "C4", "decision": "use_tool", "correct": True, "externally_routed": True},
    {"task_id": "t3", "condition": "C4", "decision": "proceed", "correct": False},
    {"task_id": "t4", "condition": "C4", "decision": "use_tool", "correct": True, "externally_routed": True},
    {"task_id": "t5", "condition": "C4", "decision": "use_tool", "correct": True, "externally_routed": True},
    {"task_id": "t1", "condition": "C4", "slot": "a", "strength": "strong", "decision": "proceed", "correct": True},
])


def test_c4_tradeoff_by_hand():
    t = c4_tradeoff(TRADEOFF, ci=CI)
    # escalated: t1, t2, t4, t5 of 5 weak C4 components
    assert (t["escalation_rate"].value, t["escalation_rate"].n) == (pytest.approx(4 / 5), 5)
    # matched (C1 graded): t1, t2, t3, t5; escalated and matched: t1, t2, t5; C1 wrong among them: t1, t5
    assert (t["correct_escalation_rate"].value, t["correct_escalation_rate"].n) == (pytest.approx(2 / 3), 3)
    assert t["false_escalation_rate"].value == pytest.approx(1 / 3)
    assert (t["failures_prevented_per_100"].value, t["failures_prevented_per_100"].n) == (pytest.approx(100 * 2 / 4), 4)
    assert t["successes_blocked_per_100"].value == pytest.approx(100 * 1 / 4)
    assert t["net_utility_per_100"].value == pytest.approx(100 * (2 - 1) / 4)
    for est in t.values():
        assert est.ci[0] <= est.value <= est.ci[1]


def test_c4_tradeoff_drops_api_failures_and_keeps_the_first_record():
    doubled = pl.concat([
        TRADEOFF,
        comps([{"task_id": "t2", "condition": "C1", "decision": "proceed", "correct": False}]),  # a later duplicate: ignored
        comps([{"task_id": "t6", "condition": "C4", "decision": None, "correct": None, "api_success": False}]),
    ])
    assert c4_tradeoff(doubled)["escalation_rate"].n == 5
    assert c4_tradeoff(doubled)["correct_escalation_rate"].value == pytest.approx(2 / 3)


def test_resolver_q1_reproduces_c4_and_lower_q_scales_the_routed_share():
    out = resolver_outcomes(TRADEOFF)
    # C4: 6 components, 4 routed, 1 autonomous and right (t1 slot a); t3 autonomous and wrong
    for q in (0.5, 0.7, 0.8, 1.0):
        r = out[f"{q:.1f}"]
        assert r["system_success"].value == pytest.approx((1 + q * 4) / 6) and r["system_success"].n == 6
        assert r["autonomy"].value == pytest.approx(2 / 6)
    c4 = TRADEOFF.filter(pl.col("condition") == "C4")
    assert out["1.0"]["system_success"].value == pytest.approx(c4["correct"].cast(pl.Float64).mean())  # today's C4, oracle resolver
    with pytest.raises(ValueError, match="resolver accuracy"):
        resolver_outcomes(TRADEOFF, accuracies=(1.5,))


def test_cfr_by_paradigm_and_a_paradigm_without_components():
    by = cfr_by_paradigm(TRADEOFF)
    # weak C1: t1, t3, t5 proceeded and were wrong; t4's deferral counts (never a failure)
    assert by["P1"]["C1"].value == pytest.approx(3 / 5) and by["P1"]["C1"].n == 5
    assert by["P1"]["C4"].value == pytest.approx(1 / 5) and by["P1"]["C4"].n == 5
    for paradigm in ("P2", "P3"):
        for condition in ("C1", "C4"):
            assert math.isnan(by[paradigm][condition].value) and by[paradigm][condition].n == 0


def test_per_paradigm_frames_pool_to_the_escalation_frame():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(120):
        for paradigm in ("P1", "P2", "P3"):
            for condition in ("C1", "C2"):
                decision = ["proceed", "use_tool", "defer"][rng.integers(0, 3)]
                rows.append({"task_id": f"t{i}", "paradigm": paradigm, "condition": condition, "decision": decision,
                             "correct": None if decision == "defer" else bool(rng.random() < 0.5),
                             "task_type": "fixed" if i % 3 else "tailored"})
    table = comps(rows)
    by = cfr_by_paradigm(table)
    pooled = cfr_by_condition(table, frame="escalation")
    fixed = escalation_fixed_p1p2(table)
    for condition in ("C1", "C2"):
        p1, p2 = by["P1"][condition], by["P2"][condition]
        assert pooled[condition].n == p1.n + p2.n
        assert pooled[condition].value == pytest.approx((p1.value * p1.n + p2.value * p2.n) / (p1.n + p2.n))
        only_fixed = table.filter((pl.col("task_type") == "fixed") & pl.col("paradigm").is_in(["P1", "P2"]))
        assert fixed[condition].value == pytest.approx(cfr(only_fixed, frame="all", condition=condition).value)
    # with fixed tasks only the two frames coincide
    all_fixed = table.filter(pl.col("task_type") == "fixed")
    assert {c: e.value for c, e in escalation_fixed_p1p2(all_fixed).items()} == {c: e.value for c, e in cfr_by_condition(all_fixed).items()}


def test_ipw_and_mnar_bound_by_hand():
    # stratum social: 4 weak, 2 observed (1 failure), 2 API-missing; stratum arithmetic: 2 observed, both failures
    table = comps([
        {"task_id": "s1", "condition": "C1", "decision": "proceed", "correct": False},
        {"task_id": "s2", "condition": "C1", "decision": "proceed", "correct": True},
        {"task_id": "s3", "condition": "C1", "decision": None, "correct": None, "api_success": False},
        {"task_id": "s4", "condition": "C1", "decision": None, "correct": None, "api_success": False},
        {"task_id": "a1", "condition": "C1", "domain": "arithmetic", "decision": "proceed", "correct": False},
        {"task_id": "a2", "condition": "C1", "domain": "arithmetic", "decision": "proceed", "correct": False},
    ])
    assert cfr(table).value == pytest.approx(3 / 4)  # complete case
    # pi(social) = 1/2: (1/(1/2) + 2/1) / (2/(1/2) + 2/1) = 4/6
    ipw = ipw_cfr(table, condition="C1", ci=CI)
    assert (ipw.value, ipw.n) == (pytest.approx(4 / 6), 6)
    bound = mnar_bound(table, condition="C1")
    assert bound["low"].value == pytest.approx(3 / 6) and bound["high"].value == pytest.approx(5 / 6)
    assert bound["high"].value == pytest.approx(cfr(table, missing="missing_incorrect").value)
    complete = table.filter(pl.col("api_success"))
    assert ipw_cfr(complete).value == pytest.approx(cfr(complete).value)  # nothing missing: IPW = complete case


def test_false_score_control_by_hand_and_the_verdict_bands():
    rows = []
    for control, escalated in ((False, 1), (True, 3)):
        for i in range(4):
            rows.append({"task_id": f"t{i}", "condition": "C2", "is_false_score_control": control,
                         "decision": "defer" if i < escalated else "proceed", "correct": None if i < escalated else False})
    rows.append({"task_id": "x", "condition": "C2", "slot": "a", "decision": "defer"})  # slot a: not in the control
    out = false_score_control(comps(rows), ci=CI)
    assert out["real"].value == pytest.approx(1 / 4) and out["false"].value == pytest.approx(3 / 4)
    assert out["difference"].value == pytest.approx(0.5) and out["verdict"] == "A"
    # the control never enters CFR: the 4 real slot-b components (3 proceeded, wrong) and the slot-a deferral
    real_cfr = cfr(comps(rows), frame="all", condition="C2")
    assert (real_cfr.value, real_cfr.n) == (pytest.approx(3 / 5), 5)
    assert [false_score_verdict(d) for d in (0.11, 0.10, 0.06, 0.05, 0.0, -0.05, -0.07, -0.10, -0.11)] == [
        "A", "D", "D", "B", "B", "B", "D", "D", "C"]
    assert false_score_verdict(float("nan")) is None


def test_a_model_with_no_weak_domains():
    trials = pl.DataFrame({
        "model": ["m"] * 2, "item_id": ["t1", "t2"], "condition": ["C4", "C1"], "paradigm": ["P1", "P1"], "task_type": ["fixed"] * 2,
        "api_success": [True, True], "domain_a": ["arithmetic"] * 2, "domain_b": ["social"] * 2,
        "strength_a": ["strong"] * 2, "strength_b": ["strong"] * 2, "exp1_accuracy_a": [0.9] * 2, "exp1_accuracy_b": [0.8] * 2,
        "component_a_decision": ["proceed"] * 2, "component_b_decision": ["proceed"] * 2,
        "component_a_correct": [True, False], "component_b_correct": [False, False],
    })
    components = label_components(trials, policy="threshold", profile={"arithmetic": 0.9, "social": 0.8})
    assert set(components["strength"]) == {"strong"}
    assert math.isnan(cfr(components, condition="C1").value) and cfr(components, condition="C1").n == 0
    tradeoff = c4_tradeoff(components)
    assert all(math.isnan(e.value) and e.n == 0 for e in tradeoff.values())
    assert math.isnan(ipw_cfr(components).value) and math.isnan(mnar_bound(components)["high"].value)
    assert temperature_reduction({"m": {"C1": float("nan"), "C4": float("nan")}})["mean"].n == 0
    # the --k of median_or_bottom_k reaches the labels: all equal -> bottom-k fallback
    flat = {d: 0.5 for d in ("arithmetic", "social", "spatial", "temporal")}
    assert (label_components(trials, policy="median_or_bottom_k", profile=flat, k=1)["strength"] == "weak").sum() == 2  # social only
    assert (label_components(trials, policy="median_or_bottom_k", profile=flat, k=3)["strength"] == "weak").sum() == 4


def test_temperature_reduction_is_the_mean_of_per_model_reductions():
    out = temperature_reduction(
        {"a": {"C1": 0.5, "C4": 0.1}, "b": {"C1": 0.4, "C4": 0.2}, "c": {"C1": 0.0, "C4": 0.0}, "d": {"C1": 0.3}}, ci=False
    )
    assert {m: e.value for m, e in out["per_model"].items()} == {"a": pytest.approx(0.8), "b": pytest.approx(0.5)}
    assert (out["mean"].value, out["mean"].n) == (pytest.approx(0.65), 2)  # not the ratio of means, (0.9 - 0.3) / 0.9


def _plot_components(cfr_values: list[float], n: int = 5, subcategory: str = "implicature", domain: str = "social") -> pl.DataFrame:
    rows = []
    for i, value in enumerate(cfr_values):
        fails = round(value * n)
        for j in range(n):
            rows.append({"model": f"m{i}", "task_id": f"t{j}", "condition": "C1", "subcategory": subcategory, "domain": domain,
                         "decision": "proceed", "correct": j >= fails})
    return comps(rows)


def test_money_plot_partial_r_and_the_null_rule():
    # z = accuracy, x = z + e, y = 0.2 + 0.5 z + e' with e, e' orthogonal to (1, z) and to each other
    z = [0.2, 0.2, 0.6, 0.6]
    e, e2 = [0.1, -0.1, 0.1, -0.1], [0.1, -0.1, -0.1, 0.1]
    x = [zi + ei for zi, ei in zip(z, e)]
    gaps = {f"m{i}": {"social": x[i]} for i in range(4)}
    acc = {f"m{i}": {"social": z[i]} for i in range(4)}
    independent = money_plot(_plot_components([0.2 + 0.5 * zi + ei for zi, ei in zip(z, e2)]), gap_by_model=gaps, accuracy_by_model=acc)
    assert [c["cfr"] for c in independent["cells"]] == pytest.approx([0.4, 0.2, 0.4, 0.6])
    assert abs(independent["partial_r"]["r"]) < 1e-9 and independent["partial_r"]["null"] is True and independent["partial_r"]["n"] == 4
    aligned = money_plot(_plot_components([0.2 + 0.5 * zi + ei for zi, ei in zip(z, e)]), gap_by_model=gaps, accuracy_by_model=acc)
    assert aligned["partial_r"]["r"] == pytest.approx(1.0) and aligned["partial_r"]["null"] is False
    # 4 models in the subcategory: fewer than 5 points -> p = 1, kept in the family
    assert aligned["subcategories"]["implicature"]["p"] == 1.0 and aligned["family_size"] == 1


def test_money_plot_subcategory_tests_and_bh_over_the_family():
    values = [0.0, 0.2, 0.4, 0.6, 0.8]
    table = _plot_components(values)  # 5 models, CFR rises with the gap exactly
    gaps = {f"m{i}": {"social": 0.1 * i} for i in range(5)}
    family = tuple(f"sub{i}" for i in range(39)) + ("implicature",)
    plot = money_plot(table, gap_by_model=gaps, subcategories=family, ci=CI)
    # every resample of an exact line has r = 1: no zero-width interval is reported (issue 29), a note says why
    assert plot["pearson_r"]["value"] == pytest.approx(1.0) and plot["pearson_r"].get("ci") is None and plot["pearson_r"]["ci_note"]
    test = plot["subcategories"]["implicature"]
    assert test["value"] == pytest.approx(1.0) and test["n"] == 5 and test["p"] < 1e-6
    assert plot["family_size"] == 40 and plot["subcategories"]["sub0"]["p"] == 1.0
    # BH with 40 tests, this one ranked first: q = min(1, p * 40 / 1)
    assert test["q"] == pytest.approx(min(1.0, test["p"] * 40)) and test["reject"] is True
    assert plot["subcategories"]["sub0"]["q"] == 1.0


def test_baselines_by_hand():
    # 8 C1/P3 components; the 2 weak ones are wrong with no hedges; the 2 most hedged are strong and wrong
    rows = []
    for i, (strength, hedges, correct) in enumerate([
        ("weak", 0, False), ("weak", 1, False), ("strong", 2, True), ("strong", 3, True),
        ("strong", 4, True), ("strong", 5, True), ("strong", 6, False), ("strong", 7, False),
    ]):
        rows.append({"task_id": f"t{i}", "condition": "C1", "paradigm": "P3", "strength": strength, "decision": "proceed",
                     "correct": correct, "hedge_count": hedges, "decomp_count": 2, "token_count": 50})
    out = baselines(comps(rows), ci=CI)
    assert out["budget"].value == pytest.approx(2 / 8)
    assert out["no_routing"]["cfr"].value == 1.0 and out["no_routing"]["autonomy"].value == 1.0
    assert out["domain_routing"]["cfr"].value == 0.0 and out["domain_routing"]["autonomy"].value == pytest.approx(6 / 8)
    # u = 0.5 * hedges / 7: escalates t6, t7 (strong): both weak components still fail
    assert out["confidence_threshold"]["cfr"].value == 1.0 and out["confidence_threshold"]["autonomy"].value == pytest.approx(6 / 8)
    # decomposition counts all equal: ties, broken by (task, slot) order -> t0, t1 escalated
    assert out["self_consistency"]["cfr"].value == 0.0
    # fewer than 20 per calibration half: no Platt fit, the raw uncertainty
    assert out["platt_status"].startswith("fallback") and out["platt"]["cfr"].value == 1.0
    # fewer than 20 proceeding calibration components: no feasible threshold, escalate everything
    assert out["conformal"]["autonomy"].value == 0.0 and out["conformal"]["cfr"].value == 0.0
    assert out["domain_routing"]["cfr"].n == 2 and out["confidence_threshold"]["autonomy"].n == 8


def test_platt_fit_minimises_the_penalised_logistic_loss():
    from scipy.optimize import minimize

    rng = np.random.default_rng(1)
    x = rng.normal(size=200)
    y = (rng.random(200) < 1 / (1 + np.exp(-(1.5 * x - 0.3)))).astype(float)

    def loss(theta):
        t = theta[0] * x + theta[1]
        return 0.5 * (theta @ theta) + np.sum(np.logaddexp(0, t) - y * t)

    reference = minimize(loss, np.zeros(2), method="BFGS").x
    assert platt_fit(x, y) == pytest.approx(tuple(reference), abs=1e-4)


def _trial(model, task, condition, temperature, fail_b, routed_b=False):
    return {"model": model, "item_id": task, "condition": condition, "paradigm": "P1", "task_type": "fixed", "api_success": True,
            "is_false_score_control": False, "temperature": temperature,
            "domain_a": "arithmetic", "domain_b": "social", "strength_a": "strong", "strength_b": "weak",
            "exp1_accuracy_a": 0.9, "exp1_accuracy_b": 0.2,
            "component_a_decision": "proceed", "component_a_correct": True, "component_a_externally_routed": False,
            "component_b_decision": "use_tool" if routed_b else "proceed", "component_b_correct": routed_b or not fail_b,
            "component_b_externally_routed": routed_b}


def test_suite_reports_the_temperature_reduction_per_temperature():
    from mirror_hf.experiments import units
    from mirror_hf.scoring import SuiteOptions, score_tables

    rows = []
    # m1: t=0 C1 CFR 4/4, C4 1/4 -> 0.75; t=0.7 C1 2/4, C4 0 -> 1.0.  m2: t=0 C1 2/4, C4 1/4 -> 0.5; t=0.7 C1 4/4, C4 2/4 -> 0.5
    plan = {("m1", 0.0): (4, 1), ("m1", 0.7): (2, 0), ("m2", 0.0): (2, 1), ("m2", 0.7): (4, 2)}
    for (model, t), (c1_fail, c4_fail) in plan.items():
        for i in range(4):
            rows.append(_trial(model, f"t{i}", "C1", t, fail_b=i < c1_fail))
            rows.append(_trial(model, f"t{i}", "C4", t, fail_b=i < c4_fail, routed_b=i >= c4_fail))
    out = score_tables(units=units(), tables={"exp9": pl.DataFrame(rows)}, options=SuiteOptions(variant="upstream", ci=False))
    reduction = out["aggregate"]["temperature_reduction"]
    assert set(reduction) == {"0", "0.7"}
    assert reduction["0"]["per_model"]["m1"]["value"] == pytest.approx(0.75) and reduction["0"]["mean"]["value"] == pytest.approx(0.625)
    assert reduction["0.7"]["mean"] == {"value": pytest.approx(0.75), "n": 2}
    # the per-model CFR pools both temperatures; C4 here routes 3+4 of 8 (m1) weak parts
    assert out["models"]["m1"]["exp9"]["cfr"]["C1"]["value"] == pytest.approx(6 / 8)


def test_a_fallible_resolver_run_matches_resolver_outcomes():
    from types import SimpleNamespace

    from mirror_hf.experiments.exp9 import Exp9Recipe
    from mirror_hf.protocol import exp9
    from mirror_hf.runner.plan import Job
    from mirror_hf.scoring import exp9_components

    profile = {"arithmetic": {"strength": "strong", "natural_accuracy": 0.9}, "social": {"strength": "weak", "natural_accuracy": 0.2}}
    recipe = Exp9Recipe("strict", exp9.RouteRule("weak_set"), resolver=0.7)
    rows = []
    for i in range(400):
        task = {"task_id": f"t{i}", "task_type": "fixed", "domain_a": "arithmetic", "domain_b": "social",
                "correct_answer_a": "1", "correct_answer_b": "2", "answer_type_a": "exact_numeric", "answer_type_b": "exact_numeric"}
        job = Job(task["task_id"], {"condition": "C4", "paradigm": "P1"}, [], (task, profile))
        reply = SimpleNamespace(text="PART 1: ANSWER: 1\n\nPART 2: ANSWER: 3", reasoning=None, finish_reason="stop")
        fields = recipe.parsed_fields(job, [(None, reply)])
        rows.append({"model": "m", "item_id": task["task_id"], "condition": "C4", "paradigm": "P1", "task_type": "fixed",
                     "strength_a": "strong", "strength_b": "weak", "domain_a": "arithmetic", "domain_b": "social", **fields})
    components = exp9_components(pl.DataFrame(rows))
    routed = components.filter(pl.col("externally_routed"))
    assert routed.height == 400 and set(routed["slot"]) == {"b"}
    # the recorded resolver is right at its accuracy (binomial: within 3 SD of 0.7 over 400 draws)
    q_hat = routed["correct"].cast(pl.Float64).mean()
    assert abs(q_hat - 0.7) <= 3 * (0.7 * 0.3 / 400) ** 0.5
    # system success from the recorded outcomes = the resolver formula at the observed accuracy
    recorded = components["correct"].cast(pl.Float64).mean()
    assert recorded == pytest.approx((400 + q_hat * 400) / 800)
    assert resolver_outcomes(components, accuracies=(0.7,))["0.7"]["system_success"].value == pytest.approx((400 + 0.7 * 400) / 800)
    assert cfr(components).value == 0.0  # a wrong resolver is not a confident failure


def test_money_plot_within_model_statistics():
    # two models, three cells each: inside each model CFR rises with the gap (slope 1), between them it falls
    rows, gaps = [], {}
    for model, base_gap, base_cfr in (("m0", 0.0, 0.6), ("m1", 0.5, 0.0)):
        gaps[model] = {}
        for k in range(3):
            domain = f"d{k}"
            gaps[model][domain] = base_gap + 0.1 * k
            fails = round((base_cfr + 0.1 * k) * 10)
            for j in range(10):
                rows.append({"model": model, "task_id": f"{domain}{j}", "condition": "C1", "domain": domain, "subcategory": f"{domain}_s",
                             "decision": "proceed", "correct": j >= fails})
    plot = money_plot(comps(rows), gap_by_model=gaps)
    assert plot["within_model"]["m0"]["value"] == pytest.approx(1.0) and plot["within_model"]["m1"]["n"] == 3
    assert plot["within_model_slope"] == {"value": pytest.approx(1.0), "n": 6}
    assert plot["pearson_r"]["value"] < 0  # pooled across models the sign flips


# ------------------------------------------------------------------------------------------------
# Survivors of the fresh 150-per-group mutation draw (seed 1), each against a hand-worked case
# ------------------------------------------------------------------------------------------------


def test_appropriate_action_rate_interval_is_one_minus_cfrs_and_inside_0_1():
    from mirror_hf.scoring._exp9 import appropriate_action_rate

    # C1 weak, table frame: t1, t3, t5 proceeded wrong, t2 right, t4 deferred: CFR 3/5, AAR 2/5
    rate = cfr(TRADEOFF, frame="table", condition="C1", ci=CI)
    aar = appropriate_action_rate(TRADEOFF, frame="table", condition="C1", ci=CI)
    assert aar.value == pytest.approx(2 / 5) and aar.n == 5
    assert aar.ci == pytest.approx((1.0 - rate.ci[1], 1.0 - rate.ci[0]))
    assert 0.0 <= aar.ci[0] <= aar.value <= aar.ci[1] <= 1.0


def test_udr_counts_strong_components_only():
    from mirror_hf.scoring._exp9 import udr

    table = comps([
        {"task_id": "s1", "condition": "C1", "strength": "strong", "decision": "use_tool", "correct": True},
        {"task_id": "s2", "condition": "C1", "strength": "strong", "decision": "proceed", "correct": True},
        {"task_id": "w1", "condition": "C1", "decision": "proceed", "correct": True},
        {"task_id": "w2", "condition": "C1", "decision": "proceed", "correct": False},
        {"task_id": "u1", "condition": "C1", "strength": None, "decision": "defer", "correct": True},
    ])
    # strong: s1 escalated and right, s2 proceeded: 1/2 (the weak and the unlabelled are not counted)
    e = udr(table, frame="table", condition="C1")
    assert e.value == pytest.approx(1 / 2) and e.n == 2


def test_kdi_upstream_with_a_single_weak_domain_is_that_domains_term():
    from mirror_hf.scoring._exp9 import kdi

    # weak social components in C1 / P1 / fixed: t1, t3, t5 proceeded wrong, t2 right (t4 deferred):
    # CFR_social = 3/5, so KDI = g - (1 - 3/5) with the one domain's gap 0.3
    e = kdi(TRADEOFF, variant="upstream", gap_by_domain={"social": 0.3})
    assert e.value == pytest.approx(0.3 - (1 - 3 / 5)) and e.n == 5


def test_kdi_without_recorded_gaps_is_nan_not_an_error():
    from mirror_hf.scoring._exp9 import domain_gaps_from_components, kdi

    table = TRADEOFF.drop("mirror_gap") if "mirror_gap" in TRADEOFF.columns else TRADEOFF
    assert domain_gaps_from_components(table) == {}
    for variant in ("paper", "upstream"):
        assert math.isnan(kdi(table, variant=variant).value)


def test_relabel_strength_of_no_component_is_the_same_empty_table():
    from mirror_hf.scoring._exp9 import relabel_strength

    empty = TRADEOFF.head(0)
    out = relabel_strength(empty, "median_or_bottom_k")
    assert out.height == 0 and out.schema == empty.schema


def test_exp9_metrics_of_no_component_are_nan():
    empty = TRADEOFF.head(0)
    for metric in (cfr, ipw_cfr):
        e = metric(empty)
        assert math.isnan(e.value) and e.n == 0


def test_kdi_upstream_skips_a_weak_domain_without_a_gap():
    from mirror_hf.scoring._exp9 import kdi

    # TRADEOFF's weak social components (CFR 3/5) plus one weak "legal" component with no gap given:
    # the mean runs over social alone
    table = pl.concat([TRADEOFF, comps([{"task_id": "t9", "condition": "C1", "domain": "legal", "decision": "proceed",
                                         "correct": False}])], how="vertical_relaxed")
    e = kdi(table, variant="upstream", gap_by_domain={"social": 0.3})
    assert e.value == pytest.approx(0.3 - (1 - 3 / 5)) and e.n == 6


def test_cfr_of_no_components_and_of_one_is_read_without_error():
    """An empty component table gives NaN with n 0 (not an error from untyped empty columns); a
    single weak proceed-and-wrong component gives CFR 1 over n 1."""
    one = comps([{"task_id": "t1", "condition": "C1", "decision": "proceed", "correct": False}])
    est = cfr(one, condition="C1")
    assert (est.value, est.n) == (1.0, 1)
    empty = cfr(one.head(0), condition="C1")
    assert math.isnan(empty.value) and empty.n == 0
    assert math.isnan(ipw_cfr(one.head(0), condition="C1").value)


def test_c4_tradeoff_and_kdi_repeat_to_the_last_bit():
    """The same components give the same numbers, CIs included: the tradeoff's C1 join keeps the
    components' order (the bootstrap resamples rows by position) and the recorded per-domain gaps are
    summed in a fixed order. Both once varied between identical calls."""
    rng = np.random.default_rng(3)
    rows = []
    for i in range(300):
        domain = ("social", "spatial", "temporal", "logical")[i % 4]
        for condition in ("C1", "C4"):
            rows.append({"task_id": f"t{i}", "condition": condition, "domain": domain, "mirror_gap": 0.1 * (i % 4) + 0.013,
                         "decision": ("proceed", "use_tool", "defer")[int(rng.integers(0, 3))], "correct": bool(rng.random() < 0.5),
                         "externally_routed": condition == "C4" and bool(rng.random() < 0.5)})
    frame = comps(rows)
    first = c4_tradeoff(frame, ci=Bootstrap(n_resamples=300))
    first_kdi = kdi(frame, variant="upstream")
    for _ in range(8):
        again = c4_tradeoff(frame.sample(fraction=1.0, seed=0, shuffle=False), ci=Bootstrap(n_resamples=300))
        assert {k: v.to_json() for k, v in again.items()} == {k: v.to_json() for k, v in first.items()}
        assert kdi(frame, variant="upstream").value == first_kdi.value
