"""Exp8: how a per-model metric changes with scale, within a model family and across generations.

Within each family, a metric is regressed on log10(parameters) over the family's models by ordinary
least squares: `slope` (change per tenfold increase in parameters), `intercept`, `r2`. At least
`MIN_MODELS` models with distinct sizes are needed, else the fit is undefined. The BCa interval of
the slope resamples the family's models (with four or five models it is wide, and it is undefined
when every resample holds a single size). Generation comparisons: per family, the mean metric of
each generation and the difference between the latest and the earliest generation, with a CI that
resamples models within each generation independently.

Pure functions over a model table (one row per model: family, parameters, generation) and the
metric's value per model; the table is read and checked by `mirror_hf.model_table`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from mirror_hf.headlines import Headline
from mirror_hf.scoring._bootstrap import CI, Cells, Statistic
from mirror_hf.scoring._estimate import NAN, Estimate
from mirror_hf.scoring._estimate_helpers import estimate, estimates
from mirror_hf.scoring._headline import headlines_of

MIN_MODELS = 3


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """One row of the model table: `model` as it appears in the trial splits, `family` (models
    compared along one scaling line), `parameters` (a count, e.g. 8e9), `generation` (optional, a
    label whose order is given by `generation_order` or, without it, first appearance)."""

    model: str
    family: str
    parameters: float
    generation: str | None = None


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[Statistic, Statistic, Statistic]:
    """Weighted OLS slope, intercept and R^2 of y on x as functions of a (B, K) weight matrix."""

    def moments(w: np.ndarray) -> tuple[np.ndarray, ...]:
        n = w.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mx, my = (w @ x) / n, (w @ y) / n
            sxx = (w @ (x * x)) / n - mx * mx
            syy = (w @ (y * y)) / n - my * my
            sxy = (w @ (x * y)) / n - mx * my
        return n, mx, my, sxx, syy, sxy

    def spread(sxx: np.ndarray, x_scale: float) -> np.ndarray:
        return sxx > 1e-12 * max(x_scale, 1.0)

    scale = float(np.max(x * x)) if len(x) else 1.0

    def slope(w: np.ndarray) -> np.ndarray:
        _, _, _, sxx, _, sxy = moments(w)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(spread(sxx, scale), sxy / sxx, np.nan)

    def intercept(w: np.ndarray) -> np.ndarray:
        _, mx, my, sxx, _, sxy = moments(w)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(spread(sxx, scale), my - (sxy / sxx) * mx, np.nan)

    def r2(w: np.ndarray) -> np.ndarray:
        _, _, _, sxx, syy, sxy = moments(w)
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(syy > 1e-15, (sxy * sxy) / (sxx * syy), np.nan)  # flat metric: R^2 undefined
            return np.where(spread(sxx, scale), value, np.nan)

    return slope, intercept, r2


def scaling_fit(parameters: Sequence[float], values: Sequence[float], *, ci: CI = False) -> dict[str, Estimate]:
    """OLS of `values` on log10(`parameters`) over one family's models (NaN values dropped):
    {"slope", "intercept", "r2"} as Estimates with n = models; undefined below MIN_MODELS models or
    with a single distinct size."""
    p = np.asarray(parameters, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    keep = ~np.isnan(y) & (p > 0)
    x, y = np.log10(p[keep]), y[keep]
    n = len(y)
    if n < MIN_MODELS or len(np.unique(x)) < 2:
        return {name: Estimate(NAN, n) for name in ("slope", "intercept", "r2")}
    cells = Cells.of(x=x, y=y)
    slope, intercept, r2 = _fit(cells["x"], cells["y"])
    out = estimates({"slope": slope, "intercept": intercept}, cells, n=n, ci=ci)
    out["r2"] = estimate(r2, cells, n=n, ci=False)
    return out


def generation_difference(
    earliest: Sequence[float], latest: Sequence[float], *, ci: CI = False
) -> Estimate:
    """Mean metric of the latest generation minus that of the earliest (models as units, two
    independent samples); undefined when either generation has no model with a value."""
    a = np.asarray(earliest, dtype=np.float64)
    b = np.asarray(latest, dtype=np.float64)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if len(a) == 0 or len(b) == 0:
        return Estimate(NAN, len(a) + len(b))
    first, last = Cells.of(y=a), Cells.of(y=b)

    def diff(w_first: np.ndarray, w_last: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (w_last @ last["y"]) / w_last.sum(axis=1) - (w_first @ first["y"]) / w_first.sum(axis=1)

    return estimate(diff, first, last, n=len(a) + len(b), ci=ci if min(len(a), len(b)) >= 2 else False)


def scaling(
    metric: Mapping[str, float],
    models: Sequence[ModelInfo],
    *,
    generation_order: Sequence[str] | None = None,
    ci: CI = False,
) -> dict[str, dict]:
    """Per family: the log-parameter fit of `metric` (value per model; models without a value or not
    in the table are left out) and the generation comparison. JSON-ready via `Estimate.to_json`."""
    out: dict[str, dict] = {}
    for family in sorted({m.family for m in models}):
        rows = [m for m in models if m.family == family and m.model in metric]
        values = [float(metric[m.model]) if metric[m.model] is not None else NAN for m in rows]
        fit = scaling_fit([m.parameters for m in rows], values, ci=ci)
        entry: dict = {name: est.to_json() for name, est in fit.items()}
        entry["models"] = [m.model for m in rows]
        generations = [m.generation for m in rows if m.generation is not None]
        order = [g for g in (generation_order or []) if g in generations] or list(dict.fromkeys(generations))
        if len(order) >= 2:
            by_gen = {g: [v for m, v in zip(rows, values) if m.generation == g] for g in order}
            entry["generations"] = {
                g: Estimate(float(np.nanmean(v)) if np.any(~np.isnan(v)) else NAN, int(np.sum(~np.isnan(v)))).to_json()
                for g, v in by_gen.items()
            }
            diff = generation_difference(by_gen[order[0]], by_gen[order[-1]], ci=ci)
            entry["generation_difference"] = {**diff.to_json(), "earliest": order[0], "latest": order[-1]}
        out[family] = entry
    return out


def scaling_report(result: Mapping, models: Sequence[ModelInfo], headlines: Sequence[Headline], *,
                   ci: CI = False) -> dict[str, dict]:
    """Exp8 over a `score_tables` result: for every headline number in `headlines`, its per-model
    values fitted within each family of `models` (names as the result reports them)."""
    per_model = headlines_of(result, headlines)
    metrics: dict[str, dict[str, float]] = {}
    for model, values in per_model.items():
        for v in values:
            if v.value is not None:
                metrics.setdefault(v.headline.key, {})[model] = float(v.value)
    return {key: scaling(values, models, ci=ci) for key, values in sorted(metrics.items())}
