"""Instance-level routing baselines (the paper's Appendix O): does routing single components on an
uncertainty signal beat routing whole weak domains, at the same escalation budget?

Frame (as the authors'): C1, P3 (no tools, so every component proceeds and is graded), API
successes, first record per (task, slot); an ungraded component counts as wrong. A strategy is a
set of components to escalate; escalated components are never failures, the rest fail when wrong.
- `domain_routing`: escalate every weak-domain component (Mirror's routing; its share of all
  components is the budget the instance baselines are matched to);
- `confidence_threshold`: uncertainty u = 0.5·hedges + 0.3·decomposition markers + 0.2·tokens
  (each min-max scaled over the model's components); escalate the budget's share with the highest u;
- `self_consistency`: the same with u = scaled decomposition markers alone (the authors' proxy:
  no resampling is done; labelled so in `labels`);
- `sampling_self_consistency` (given the model's Exp1 `consistency` channel): the same with
  u = 1 - the mean sample agreement (modal share of k samples) of the model's Exp1 items in the
  component's (domain, subcategory); components of a subcategory never sampled get the mean u;
- `platt`: u mapped through a logistic fit of correctness on logit(1 - u) (L2, C = 1, as
  liblinear's default), fitted on the calibration half (sha1 of task|slot, even), then the budget's
  share with the highest calibrated uncertainty;
- `conformal`: on the calibration half, on the raw u, the threshold t whose proceeding set (u <= t, at
  least 20 components) has error <= `target_error` (default 0.25); escalate u > t everywhere (its
  budget is its own, reported as escalation_rate); nothing feasible -> escalate everything.
Each strategy: `cfr` (weak components that proceed and are wrong / weak components), `autonomy`
(share not escalated) and `escalation_rate`. Ties in u are broken by (task, slot) order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import cast

import numpy as np
import polars as pl

from mirror_hf.scoring._bootstrap import CI, Cells, Statistic
from mirror_hf.scoring._estimate import NAN, Estimate
from mirror_hf.scoring._estimate_helpers import estimate
from mirror_hf.scoring._units import SampleAgreement

BASELINES: tuple[str, ...] = ("domain_routing", "confidence_threshold", "self_consistency", "platt", "conformal")
LABELS = {
    "self_consistency": "authors' proxy: decomposition markers of the one response (no resampling)",
    "sampling_self_consistency": "sampled: 1 - mean modal share of k samples (Exp1 consistency channel) "
                                 "of the component's subcategory",
}
UNCERTAINTY_WEIGHTS = {"hedge_count": 0.5, "decomp_count": 0.3, "token_count": 0.2}
CONFORMAL_MIN_PROCEED = 20


def _scaled(x: np.ndarray) -> np.ndarray:
    lo, hi = (x.min(), x.max()) if len(x) else (0.0, 0.0)
    return np.zeros_like(x) if hi - lo < 1e-12 else (x - lo) / (hi - lo)


def calibration_half(task_id: str, slot: str) -> bool:
    """The authors' split: sha1('task|slot'), first 8 hex digits, even -> calibration."""
    return int(hashlib.sha1(f"{task_id}|{slot}".encode()).hexdigest()[:8], 16) % 2 == 0


def top_share(u: np.ndarray, rate: float) -> np.ndarray:
    """Escalate round(rate·n) components with the highest u (stable: earlier rows win ties)."""
    n = len(u)
    k = int(np.clip(round(rate * n), 0, n))
    mask = np.zeros(n, dtype=bool)
    mask[np.argsort(-u, kind="stable")[:k]] = True
    return mask


def platt_fit(x: np.ndarray, y: np.ndarray, *, c: float = 1.0, iterations: int = 100) -> tuple[float, float]:
    """(slope, intercept) of an L2-penalised logistic regression (penalty 1/2·(a² + b²), loss
    weighted by c), by Newton's method."""
    theta = np.zeros(2)
    design = np.column_stack([x, np.ones_like(x)])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(design @ theta)))
        grad = theta + c * design.T @ (p - y)
        hess = np.eye(2) + c * (design.T * (p * (1 - p))) @ design
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return float(theta[0]), float(theta[1])


def _logit_confidence(u: np.ndarray) -> np.ndarray:
    c = np.clip(1.0 - u, 1e-6, 1.0 - 1e-6)
    return np.log(c / (1.0 - c))


def conformal_mask(u: np.ndarray, correct: np.ndarray, calibration: np.ndarray, target_error: float) -> np.ndarray:
    if not calibration.any() or calibration.all():
        return u > np.sort(u)[len(u) // 2]  # degenerate split: the authors' median fallback
    best_t, best_cover = None, -1.0
    cal_u, cal_ok = u[calibration], correct[calibration]
    for t in np.unique(cal_u):
        proceed = cal_u <= t
        if proceed.sum() < CONFORMAL_MIN_PROCEED:
            continue
        error = 1.0 - cal_ok[proceed].mean()
        cover = proceed.mean()
        if error <= target_error and cover > best_cover:
            best_t, best_cover = t, cover
    if best_t is None:
        return np.ones(len(u), dtype=bool)
    return u > best_t


def _strategy(mask: np.ndarray, weak: np.ndarray, correct: np.ndarray, ci: CI) -> dict[str, Estimate]:
    fail = (~mask & ~correct)[weak].astype(np.float64)
    esc = mask.astype(np.float64)

    def share(cells: Cells) -> Statistic:
        def statistic(w: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return (w @ cells["x"]) / w.sum(axis=1)

        return statistic

    fail_cells, esc_cells = Cells.of(x=fail), Cells.of(x=esc)
    escalation = estimate(share(esc_cells), esc_cells, n=esc_cells.n, ci=ci)
    autonomy = Estimate(
        1.0 - escalation.value, escalation.n, None if escalation.ci is None else (1.0 - escalation.ci[1], 1.0 - escalation.ci[0])
    )
    return {"cfr": estimate(share(fail_cells), fail_cells, n=fail_cells.n, ci=ci), "autonomy": autonomy, "escalation_rate": escalation}


def sampling_uncertainty(domain: Sequence[str], subcategory: Sequence[str | None], agreement: SampleAgreement) -> np.ndarray:
    """1 - the model's mean sample agreement in each component's (domain, subcategory); the mean
    over the known ones where a subcategory was never sampled."""
    u = np.array([1.0 - agreement[(d, s)] if (d, s) in agreement else np.nan for d, s in zip(domain, subcategory)])
    known = ~np.isnan(u)
    return np.where(known, u, u[known].mean() if known.any() else 0.0)


def baselines(components: pl.DataFrame, *, target_error: float = 0.25, ci: CI = False,
              agreement: SampleAgreement | None = None) -> dict:
    """`{strategy: {"cfr", "autonomy", "escalation_rate"}, "budget": Estimate, "no_routing": ...}`
    for one model's component table (strength labels as given: the suite relabels them with the
    chosen weak-domain policy first). Empty (no C1/P3 components) -> every value NaN, n = 0."""
    keep = (
        (pl.col("condition") == "C1").fill_null(False)
        & (pl.col("paradigm") == "P3").fill_null(False)
        & pl.col("api_success").fill_null(True)
        & pl.col("domain").is_not_null()
    )
    if "is_false_score_control" in components.columns:
        keep = keep & ~pl.col("is_false_score_control").fill_null(False)
    rows = (
        components.lazy().filter(keep).unique(["task_id", "slot"], keep="first", maintain_order=True).sort(["task_id", "slot"])
        .select(
            "task_id", "slot", "domain", "subcategory",
            (pl.col("strength") == "weak").fill_null(False).alias("_weak"),
            pl.col("correct").fill_null(False).alias("_correct"),
            *(pl.col(name).cast(pl.Float64).fill_null(0.0).alias(f"_{name}") for name in UNCERTAINTY_WEIGHTS),
        )
        .collect()  # one query for the rows and every column read below
    )
    weak = rows["_weak"].to_numpy()
    correct = rows["_correct"].to_numpy().astype(bool)
    signal = {name: rows[f"_{name}"].to_numpy() for name in UNCERTAINTY_WEIGHTS}
    scaled = {name: _scaled(v) for name, v in signal.items()}
    # a sum of arrays is an array (the stubs add sum()'s start value 0 to its type)
    u = cast(np.ndarray, sum(weight * scaled[name] for name, weight in UNCERTAINTY_WEIGHTS.items())) if rows.height else np.zeros(0)
    calibration = np.array([calibration_half(t, s) for t, s in zip(rows["task_id"].to_list(), rows["slot"].to_list())], dtype=bool)
    budget = float(weak.mean()) if rows.height else NAN
    out: dict = {"budget": Estimate(budget, rows.height), "no_routing": _strategy(np.zeros(rows.height, dtype=bool), weak, correct, ci)}
    if rows.height == 0:
        out.update({name: _strategy(np.zeros(0, dtype=bool), weak, correct, ci) for name in BASELINES})
        return out
    platt_u, status = u, "fallback: raw uncertainty"
    cal, test = calibration.sum(), (~calibration).sum()
    if cal >= 20 and test >= 20 and len(np.unique(correct[calibration])) == 2:
        a, b = platt_fit(_logit_confidence(u[calibration]), correct[calibration].astype(np.float64))
        platt_u = 1.0 - 1.0 / (1.0 + np.exp(-(a * _logit_confidence(u) + b)))
        status = "fitted"
    masks = {
        "domain_routing": weak.copy(),
        "confidence_threshold": top_share(u, budget),
        "self_consistency": top_share(scaled["decomp_count"], budget),
        "platt": top_share(platt_u, budget),
        "conformal": conformal_mask(u, correct, calibration, target_error),
    }
    if agreement:
        u_sampled = sampling_uncertainty(rows["domain"].to_list(), rows["subcategory"].to_list(), agreement)
        masks["sampling_self_consistency"] = top_share(u_sampled, budget)
    out.update({name: _strategy(mask, weak, correct, ci) for name, mask in masks.items()})
    out["platt_status"] = status
    out["labels"] = {k: v for k, v in LABELS.items() if k in masks}
    return out


__all__ = ["BASELINES", "LABELS", "baselines", "sampling_uncertainty", "calibration_half", "platt_fit", "top_share"]
