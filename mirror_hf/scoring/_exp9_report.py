"""What `score` reports for Exp9 beyond CFR / UDR / KDI: the per-model trade-off, resolver,
frame, missing-data and baseline quantities, and the cross-model curves, money plot and
temperature replication. Composes the pure functions of `_exp9_tradeoff`, `_exp9_models` and
`_baselines`; the suite calls `label_components`, `model_extras` and `aggregate_extras`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, overload

import numpy as np
import polars as pl

from mirror_hf.scoring._baselines import baselines
from mirror_hf.scoring._bootstrap import CI
from mirror_hf.scoring._escalation import escalation_curve, escalation_to_json
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._exp9 import (
    CONDITIONS,
    PARADIGMS,
    ComponentView,
    Missing,
    cfr,
    component_view,
    exp9_components,
    relabel_strength,
)
from mirror_hf.scoring._exp9_models import (
    money_plot,
    pooled_wag_nat_gap,
    temperature_reduction,
)
from mirror_hf.scoring._exp9_tradeoff import (
    c4_tradeoff,
    cfr_by_paradigm,
    escalation_fixed_p1p2,
    false_score_control,
    ipw_cfr,
    mnar_bound,
    resolver_outcomes,
)
from mirror_hf.scoring._weak import WeakPolicy


def label_components(trials: pl.DataFrame, *, policy: WeakPolicy | None, profile: Mapping[str, float] | None, k: int = 2) -> pl.DataFrame:
    """One model's component table with strengths under `policy` (None: the recorded labels),
    from its Exp1 natural accuracy per domain (`profile`, else the recorded accuracies)."""
    components = exp9_components(trials)
    if policy is not None:
        by_model = {m: dict(profile) for m in components["model"].unique().to_list()} if profile else None
        components = relabel_strength(components, policy, accuracy_by_model=by_model, k=k)
    return components


def model_extras(components: pl.DataFrame, view: ComponentView, *, missing: Missing, ci: CI,
                 agreement: dict | None = None) -> dict:
    """The per-model Exp9 quantities besides CFR per condition (escalation frame)."""
    out: dict = {
        "cfr_by_paradigm": cfr_by_paradigm(view, missing=missing, ci=ci),
        "escalation_fixed_p1p2": escalation_fixed_p1p2(view, missing=missing, ci=ci),
    }
    conditions = set(np.unique(view.condition).tolist())
    if "C4" in conditions:
        out["c4_tradeoff"] = c4_tradeoff(components, ci=ci)
        out["resolver"] = resolver_outcomes(components, ci=ci)
    # IPW and the MNAR bound model the missing components themselves: they read the complete-case view
    observed = view if missing == "complete_case" else component_view(components, "complete_case")
    # per condition both resample the same weak components: side by side they share scipy's index draws
    both = {c: (ipw_cfr(observed, condition=c, ci=ci), mnar_bound(observed, condition=c, ci=ci)) for c in CONDITIONS if c in conditions}
    out["ipw_cfr"] = {c: pair[0] for c, pair in both.items()}
    out["mnar_bound"] = {c: pair[1] for c, pair in both.items()}
    if view.false_score_control.any():
        out["false_score_control"] = false_score_control(components, ci=ci)
    if ((view.condition == "C1") & (view.paradigm == "P3")).any():
        out["baselines"] = baselines(components, ci=ci, agreement=agreement)
    return out


def _values(entry: Mapping, *path: str) -> dict[str, float | None]:
    for key in path:
        entry = entry.get(key) or {}
    return {c: (v.get("value") if isinstance(v, Mapping) else None) for c, v in entry.items()}


def aggregate_extras(
    models: Mapping[str, Mapping[str, Any]],
    components_by_model: Mapping[str, pl.DataFrame],
    *,
    gap_by_model: Mapping[str, Mapping[str, float]],
    accuracy_by_model: Mapping[str, Mapping[str, float]],
    exp1: pl.DataFrame | None,
    missing: Missing,
    ci: CI,
    views_by_model: Mapping[str, ComponentView] | None = None,
) -> dict:
    """Across models: the escalation curve per paradigm and in the fixed-task P1+P2 frame (from
    the per-model values already scored, JSON), the money plot, and per generation temperature
    the mean of per-model C1->C4 reductions with the pooled Wag-Nat gap. `views_by_model`: a
    model's `component_view(components, missing)` where the caller already built it."""
    out: dict = {}
    scored = {m: e["exp9"] for m, e in models.items() if "exp9" in e and "cfr_by_paradigm" in e["exp9"]}
    if not scored:
        return out
    by_paradigm = {}
    for paradigm in PARADIGMS:
        per_model = {m: _values(e, "cfr_by_paradigm", paradigm) for m, e in scored.items()}
        conditions = tuple(c for c in CONDITIONS if any(v.get(c) is not None for v in per_model.values()))
        if len(conditions) >= 2:
            by_paradigm[paradigm] = escalation_to_json(escalation_curve(per_model, conditions=conditions, ci=ci))
    out["escalation_by_paradigm"] = by_paradigm
    per_model = {m: _values(e, "escalation_fixed_p1p2") for m, e in scored.items()}
    conditions = tuple(c for c in CONDITIONS if any(v.get(c) is not None for v in per_model.values()))
    if len(conditions) >= 2:
        out["escalation_fixed_p1p2"] = escalation_to_json(escalation_curve(per_model, conditions=conditions, ci=ci))
    everything = pl.concat(list(components_by_model.values()), how="diagonal_relaxed") if components_by_model else None
    if everything is not None and everything.height:
        plot = money_plot(everything, gap_by_model=gap_by_model or None, accuracy_by_model=accuracy_by_model or None, ci=ci)
        out["money_plot"] = plot
        out["temperature_reduction"] = _temperatures(components_by_model, exp1, missing=missing, ci=ci, views=views_by_model or {})
    return out


def _temperatures(components_by_model: Mapping[str, pl.DataFrame], exp1: pl.DataFrame | None, *, missing: Missing, ci: CI,
                  views: Mapping[str, ComponentView]) -> dict:
    per_temperature: dict[str, dict[str, dict[str, float | None]]] = {}
    for model, components in components_by_model.items():
        column = components["temperature"] if "temperature" in components.columns else pl.Series([None] * components.height)
        for t in sorted({v for v in column.to_list() if v is not None}) or [None]:
            part = components if t is None else components.filter(pl.col("temperature") == t)
            view = views[model] if t is None and model in views else component_view(part, missing)
            values: dict[str, float | None] = {c: cfr(view, frame="escalation", condition=c, missing=missing).value for c in ("C1", "C4")}
            per_temperature.setdefault("unknown" if t is None else f"{t:g}", {})[model] = values
    out = {}
    for t, per_model in sorted(per_temperature.items()):
        result = temperature_reduction(per_model, ci=ci)
        entry = {"per_model": {m: e.to_json() for m, e in result["per_model"].items()}, "mean": result["mean"].to_json()}
        if exp1 is not None and "temperature" in exp1.columns and t != "unknown":
            entry["wag_nat_gap"] = pooled_wag_nat_gap(exp1.filter(pl.col("temperature") == float(t))).to_json()
        out[t] = entry
    return out


@overload
def to_json(value: dict[str, Any]) -> dict[str, Any]: ...
@overload
def to_json(value: object) -> Any: ...
def to_json(value: object) -> Any:
    """`value` with every Estimate as its JSON and non-finite floats as None (JSON has no NaN)."""
    if isinstance(value, Estimate):
        return value.to_json()
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value
