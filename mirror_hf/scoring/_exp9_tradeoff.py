"""Exp9 beyond CFR per condition (spec §4.18, §5.2, and the paper's sensitivity appendix): what C4's
routing buys and costs, system success with a fallible resolver, CFR per paradigm and in the
fixed-task frame, the false-score control, and CFR under missing-not-at-random assumptions.

All take the component table of `exp9_components` (one row per slot of a trial) and return
`Estimate`s (`{"value", "n", "ci"}` in JSON); false-score-control trials never enter anything but
`false_score_control`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypedDict, get_args

import numpy as np
import polars as pl

from mirror_hf.scoring._bootstrap import CI, Cells, group_sums
from mirror_hf.scoring._estimate import NAN, Estimate
from mirror_hf.scoring._estimate_helpers import estimate, estimates
from mirror_hf.scoring._exp9 import (
    FRAMES,
    PARADIGMS,
    ComponentView,
    Frame,
    Missing,
    cfr_by_condition,
    component_view,
)

WeightedStatistic = Callable[[np.ndarray], np.ndarray]  # one (B, K) weight matrix -> (B,) values

RESOLVER_ACCURACIES: tuple[float, ...] = (0.5, 0.7, 0.8, 1.0)  # the paper's q values; 1.0 = the oracle
MATCH_KEY: tuple[str, ...] = ("model", "task_id", "paradigm", "slot")
# Control 2 verdicts on Δ = false-score deferral rate - real-score deferral rate (weak slot b, P1+P2)
FALSE_SCORE_VERDICTS = {  # the authors' labels (their analysis script), with its readings
    "A": "defers more when its weak domain is told strong (Δ > +0.10): acts on the stated number, not on self-knowledge",
    "B": "no change (|Δ| <= 0.05): ignores the metacognitive context",
    "C": "defers less when its weak domain is told strong (Δ < -0.10): false scores worsen behaviour",
    "D": "ambiguous (0.05 < |Δ| <= 0.10)",
}


def _bool(components: pl.DataFrame, name: str, default: bool) -> pl.Expr:
    return pl.col(name).fill_null(default) if name in components.columns else pl.lit(default)


def _in_frame(frame: Frame) -> pl.Expr:
    rule = FRAMES[frame]
    expr = pl.lit(True)
    if rule["paradigms"] is not None:
        expr = expr & pl.col("paradigm").is_in(rule["paradigms"]).fill_null(False)
    if rule["task_types"] is not None:
        expr = expr & pl.col("task_type").is_in(rule["task_types"]).fill_null(False)
    return expr


def _answered(components: pl.DataFrame, frame: Frame, condition: str) -> pl.LazyFrame:
    """Components of one condition in a frame, API failures dropped, false-score controls out,
    the first record per (model, task, paradigm, slot) kept (the authors' matching rule); lazy, so
    each caller runs its whole table as one query."""
    keep = (
        _in_frame(frame)
        & (pl.col("condition") == condition).fill_null(False)
        & ~_bool(components, "is_false_score_control", False)
        & _bool(components, "api_success", True)
    )
    return components.lazy().filter(keep).unique(list(MATCH_KEY), keep="first", maintain_order=True)


# ------------------------------------------------------------------------------------------------
# C4 trade-off
# ------------------------------------------------------------------------------------------------


def c4_tradeoff(components: pl.DataFrame, *, frame: Frame = "escalation", ci: CI = False) -> dict[str, Estimate]:
    """What C4's routing does to weak components, judged by the same component under C1.

    A weak C4 component is escalated when it was externally routed or its decision was not proceed.
    It is matched to the same (model, task, paradigm, slot) under C1: C1 wrong -> a correct
    escalation (a failure prevented), C1 right -> a false escalation (a success blocked). C1
    components without a grade (deferred, or ungraded) give no verdict and are unmatched.
    - escalation_rate: escalated / weak C4 components (n);
    - correct_escalation_rate, false_escalation_rate: shares of the matched escalated ones (n);
    - failures_prevented_per_100, successes_blocked_per_100: per 100 matched weak C4 components (n);
    - net_utility_per_100 = prevented - blocked.
    The CI resamples weak C4 components."""
    c4 = _answered(components, frame, "C4").filter((pl.col("strength") == "weak").fill_null(False))
    c1 = _answered(components, frame, "C1").select(*MATCH_KEY, pl.col("correct").alias("_c1_correct"))
    joined = c4.join(c1, on=list(MATCH_KEY), how="left", maintain_order="left")  # the CI resamples rows in order: keep it
    routed = _bool(components, "externally_routed", False)  # the join keeps the components' columns
    escalated = (routed | pl.col("decision").is_in(("use_tool", "defer")).fill_null(False)).cast(pl.Float64)
    matched = pl.col("_c1_correct").is_not_null().cast(pl.Float64)
    c1_wrong = (pl.col("_c1_correct") == False).fill_null(False).cast(pl.Float64)
    table = joined.select(escalated.alias("e"), matched.alias("m"), c1_wrong.alias("w")).collect()  # one query
    cells = Cells.of(e=table["e"].to_numpy(), m=table["m"].to_numpy(), w=table["w"].to_numpy())
    e, m, w = (cells[k] for k in ("e", "m", "w")) if cells.n else (np.zeros(0),) * 3

    def ratio(num: np.ndarray, den: np.ndarray, scale: float = 1.0) -> WeightedStatistic:
        def statistic(weights: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return scale * (weights @ num) / (weights @ den)

        return statistic

    prevented, blocked = e * m * w, e * m * (1 - w)

    def net(weights: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return 100.0 * (weights @ prevented - weights @ blocked) / (weights @ m)

    statistics = {
        "escalation_rate": ratio(e, np.ones_like(e)),
        "correct_escalation_rate": ratio(prevented, e * m),
        "false_escalation_rate": ratio(blocked, e * m),
        "failures_prevented_per_100": ratio(prevented, m, 100.0),
        "successes_blocked_per_100": ratio(blocked, m, 100.0),
        "net_utility_per_100": net,
    }
    out = estimates(statistics, cells, n=cells.n, ci=ci)
    n_matched = int(table["m"].sum()) if table.height else 0
    n_escalated_matched = int((table["e"] * table["m"]).sum()) if table.height else 0
    sizes = {"escalation_rate": cells.n, "correct_escalation_rate": n_escalated_matched, "false_escalation_rate": n_escalated_matched}
    result = {}
    for name, est in out.items():
        n = sizes.get(name, n_matched)
        result[name] = replace(est, n=n) if n else Estimate(NAN, 0, None)
    return result


# ------------------------------------------------------------------------------------------------
# Resolver accuracy: system success and autonomy
# ------------------------------------------------------------------------------------------------


def resolver_outcomes(
    components: pl.DataFrame,
    *,
    condition: str = "C4",
    frame: Frame = "escalation",
    accuracies: tuple[float, ...] = RESOLVER_ACCURACIES,
    ci: CI = False,
) -> dict[str, dict[str, Estimate]]:
    """`{q: {"system_success", "autonomy"}}` over every component of `condition` in the frame.

    autonomy = share not externally routed; system_success(q) = (#autonomous and correct +
    q * #routed) / n, q = the resolver's accuracy (1.0 = the oracle, which is what a C4 run records
    by default, so system_success at q = 1.0 equals the share of C4 components recorded correct).
    A component the model deferred itself is not a success (no one resolves it). API failures are
    dropped; n = components."""
    routed = _bool(components, "externally_routed", False)
    table = _answered(components, frame, condition).select(
        routed.cast(pl.Float64).alias("r"),
        (~routed & (pl.col("correct") == True).fill_null(False)).cast(pl.Float64).alias("a"),
    ).collect()
    cells = Cells.of(r=table["r"].to_numpy(), a=table["a"].to_numpy())
    out: dict[str, dict[str, Estimate]] = {}
    for q in accuracies:
        if not 0 <= q <= 1:
            raise ValueError(f"resolver accuracy must lie in [0, 1], got {q!r}")
        r, a = cells["r"], cells["a"]

        def success(w: np.ndarray, r: np.ndarray = r, a: np.ndarray = a, q: float = q) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return (w @ a + q * (w @ r)) / w.sum(axis=1)

        def autonomy(w: np.ndarray, r: np.ndarray = r) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return 1.0 - (w @ r) / w.sum(axis=1)

        out[f"{q:.1f}"] = estimates({"system_success": success, "autonomy": autonomy}, cells, n=cells.n, ci=ci)
    return out


# ------------------------------------------------------------------------------------------------
# Frames: per paradigm, fixed-only
# ------------------------------------------------------------------------------------------------


def cfr_by_paradigm(
    components: pl.DataFrame | ComponentView, *, missing: Missing = "complete_case", ci: CI = False
) -> dict[str, dict[str, Estimate]]:
    """`{"P1": {"C1": CFR, ...}, "P2": ..., "P3": ...}`: the escalation curve one paradigm at a time
    (fixed and tailored tasks). Every paradigm is listed; one without components has NaN, n = 0
    in each condition (P3 has no C4 trials at all)."""
    view = component_view(components, missing)
    return {p: cfr_by_condition(view, frame=_paradigm_frame(p), missing=missing, ci=ci) for p in PARADIGMS}


def _paradigm_frame(paradigm: str) -> Frame:
    """`paradigm_<P>` as the `Frame` it names, looked up among the frames rather than cast (a
    paradigm without a frame is an error, not a silently empty curve)."""
    name = f"paradigm_{paradigm}"
    for frame in get_args(Frame):
        if frame == name:
            return frame  # a member of get_args(Frame), so a Frame
    raise ValueError(f"no Exp9 frame for paradigm {paradigm!r}")


def escalation_fixed_p1p2(
    components: pl.DataFrame | ComponentView, *, missing: Missing = "complete_case", ci: CI = False
) -> dict[str, Estimate]:
    """CFR per condition over P1+P2 on fixed tasks only (identical for every model, no circularity
    through a tailored bank): the paper's co-primary frame."""
    return cfr_by_condition(components, frame="escalation_fixed", missing=missing, ci=ci)


# ------------------------------------------------------------------------------------------------
# Missing data: inverse-probability weighting and the MNAR bound
# ------------------------------------------------------------------------------------------------


def _weak_rows(view: ComponentView, frame: Frame, condition: str | None) -> np.ndarray:
    keep = view.weak & view.in_frame(frame)
    if condition is not None:
        keep &= view.condition == condition
    return keep


def ipw_cfr(
    components: pl.DataFrame | ComponentView, *, frame: Frame = "escalation", condition: str | None = None, ci: CI = False
) -> Estimate:
    """CFR with each observed weak component weighted by 1 / P(observed) in its stratum (paradigm x
    task type x domain x condition), P estimated as the stratum's observed share: missing
    components are assumed to fail like the observed ones of their stratum (missing at random
    given the stratum). A stratum with nothing observed drops out. n = weak components (observed
    or not); the CI resamples them."""
    view = component_view(components, "complete_case")
    rows = _weak_rows(view, frame, condition)
    # the view's stratum codes follow the sorted stratum names, so re-densifying the rows' codes
    # gives the codes (and cell order) of coding the rows' names alone
    every, _ = view.stratum
    present, stratum_codes = np.unique(every[rows], return_inverse=True)
    stratum_codes = stratum_codes.reshape(-1)
    cells = Cells.of(s=stratum_codes, o=view.counted[rows].astype(np.float64), f=(view.fail & view.counted)[rows].astype(np.float64))
    k = len(present)

    def statistic(w: np.ndarray) -> np.ndarray:
        total = group_sums(w, cells["s"], k)
        observed = group_sums(w, cells["s"], k, cells["o"])
        fails = group_sums(w, cells["s"], k, cells["f"])
        with np.errstate(invalid="ignore", divide="ignore"):
            # sum over observed of fail / pi, pi = observed / total: per stratum fails * total / observed
            weighted_fail = np.where(observed > 0, fails * total / observed, 0.0).sum(axis=1)
            weight = np.where(observed > 0, total, 0.0).sum(axis=1)
            return weighted_fail / weight

    return estimate(statistic, cells, n=cells.n, ci=ci)


def mnar_bound(
    components: pl.DataFrame | ComponentView, *, frame: Frame = "escalation", condition: str | None = None, ci: CI = False
) -> dict[str, Estimate]:
    """The CFR range whatever the missing weak components would have done: `low` = none of them is
    a confident failure, `high` = all are (= `missing="missing_incorrect"`). n = weak components."""
    view = component_view(components, "complete_case")
    rows = _weak_rows(view, frame, condition)
    observed_fail = (view.fail & view.counted)[rows].astype(np.float64)
    missing = (~view.counted)[rows].astype(np.float64)
    cells = Cells.of(f=observed_fail, m=missing)

    def low(w: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (w @ cells["f"]) / w.sum(axis=1)

    def high(w: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (w @ cells["f"] + w @ cells["m"]) / w.sum(axis=1)

    return estimates({"low": low, "high": high}, cells, n=cells.n, ci=ci)


# ------------------------------------------------------------------------------------------------
# Control 2: false scores
# ------------------------------------------------------------------------------------------------


def false_score_verdict(delta: float) -> str | None:
    """A / B / C / D for Δ = false-score minus real-score escalation rate (None when undefined)."""
    if np.isnan(delta):
        return None
    return "A" if delta > 0.10 else "C" if delta < -0.10 else "B" if abs(delta) <= 0.05 else "D"


class FalseScoreControl(TypedDict):
    """What `false_score_control` returns (Estimates of escalation rates; verdict None when undefined)."""

    real: Estimate
    false: Estimate
    difference: Estimate
    verdict: str | None
    reading: str | None


def false_score_control(components: pl.DataFrame, *, ci: CI = False) -> FalseScoreControl:
    """Does the model act on the scores it is told? Weak slot-b components in P1+P2 under C2: the
    escalation rate (use_tool or defer) with the real scores vs with inverted ones (Control 2).
    Δ = false - real; verdict A (Δ > 0.10), B (|Δ| <= 0.05), C (Δ < -0.10), else D
    (`FALSE_SCORE_VERDICTS`). API failures and components without a decision are dropped.
    `{"real", "false", "difference": Estimate, "verdict", "reading"}`; verdict None when either
    side is empty."""
    is_control = _bool(components, "is_false_score_control", False)
    keep = (
        (pl.col("condition") == "C2").fill_null(False)
        & pl.col("paradigm").is_in(("P1", "P2")).fill_null(False)
        & (pl.col("slot") == "b").fill_null(False)
        & (pl.col("strength") == "weak").fill_null(False)
        & _bool(components, "api_success", True)
        & pl.col("decision").is_not_null()
    )
    table = components.filter(keep).select(
        is_control.alias("control"), pl.col("decision").is_in(("use_tool", "defer")).cast(pl.Float64).alias("e")
    )
    control, escalated = table["control"].to_numpy(), table["e"].to_numpy()
    real, false = escalated[~control], escalated[control]
    real_cells, false_cells = Cells.of(e=real), Cells.of(e=false)

    def share(cells: Cells) -> WeightedStatistic:
        def statistic(w: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return (w @ cells["e"]) / w.sum(axis=1)

        return statistic

    real_rate = estimate(share(real_cells), real_cells, n=real_cells.n, ci=ci)
    false_rate = estimate(share(false_cells), false_cells, n=false_cells.n, ci=ci)

    def difference(w_real: np.ndarray, w_false: np.ndarray) -> np.ndarray:
        return share(false_cells)(w_false) - share(real_cells)(w_real)

    delta = estimate(difference, real_cells, false_cells, n=real_cells.n + false_cells.n, ci=ci)
    verdict = false_score_verdict(delta.value)
    reading = FALSE_SCORE_VERDICTS.get(verdict) if verdict else None
    return FalseScoreControl(real=real_rate, false=false_rate, difference=delta, verdict=verdict, reading=reading)


__all__ = [
    "FALSE_SCORE_VERDICTS",
    "RESOLVER_ACCURACIES",
    "FalseScoreControl",
    "c4_tradeoff",
    "cfr_by_paradigm",
    "escalation_fixed_p1p2",
    "false_score_control",
    "false_score_verdict",
    "ipw_cfr",
    "mnar_bound",
    "resolver_outcomes",
]
