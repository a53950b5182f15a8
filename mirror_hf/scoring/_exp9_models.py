"""Exp9 statistics across models (spec §5.6, §4.17): the money plot and its tests, and the
temperature replication's per-model reductions.

Money plot: one point per (model, domain, subcategory) cell with weak components in C1, P1, fixed
tasks (complete case); x = the model's Mirror gap g(m,d), y = the cell's CFR, z = its Exp1 natural
accuracy in the domain (missing -> 0.5, as upstream). Reported: Pearson r of (x, y); the partial r
of x and y controlling for z, with the paper's null rule (|partial r| < 0.10 -> `null` true:
"the gap does not predict CFR beyond accuracy"); per subcategory, Pearson r across models (fewer
than 5 points, or a constant side -> p = 1, kept in the family) and Benjamini-Hochberg q-values
over the whole family of subcategories (the 40 of the task bank when all are present).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NotRequired, TypedDict, cast

import numpy as np
import polars as pl
from scipy import stats

from mirror_hf.scoring._bootstrap import CI, Cells, bca_mean, resolve_ci
from mirror_hf.scoring._estimate import NAN, Estimate
from mirror_hf.scoring._estimate_helpers import estimate
from mirror_hf.scoring._exp9 import component_view, in_frame
from mirror_hf.scoring._stats import bh_fdr, partial_correlation

NULL_PARTIAL_R = 0.10  # |partial r| below this reads as "no association beyond accuracy"
MIN_SUBCATEGORY_POINTS = 5
MISSING_ACCURACY = 0.5


class SubcategoryTest(TypedDict):
    """One subcategory's Pearson r across models in the money plot; q and reject once BH has run."""

    value: float
    n: int
    p: float
    q: NotRequired[float]
    reject: NotRequired[bool]


class TemperatureReduction(TypedDict):
    """What `temperature_reduction` returns: each model's reduction and their mean."""

    per_model: dict[str, Estimate]
    mean: Estimate


def money_plot_cells(
    components: pl.DataFrame,
    *,
    gap_by_model: Mapping[str, Mapping[str, float]] | None = None,
    accuracy_by_model: Mapping[str, Mapping[str, float]] | None = None,
) -> pl.DataFrame:
    """Columns model, domain, subcategory, n_weak, cfr, gap, accuracy (one row per cell). Gaps and
    accuracies come from the tables given, for the models they hold, else from what the runner
    recorded on the components."""
    rows = in_frame(components, "kdi", "C1")
    view = component_view(rows, "complete_case")
    rows = rows.with_columns(
        pl.Series("_fail", view.fail, dtype=pl.Boolean),
        pl.Series("_keep", view.counted & view.weak, dtype=pl.Boolean),
    ).filter(pl.col("_keep") & pl.col("domain").is_not_null())
    cells = (
        rows.group_by("model", "domain", "subcategory", maintain_order=True)
        .agg(
            pl.len().alias("n_weak"),
            pl.col("_fail").cast(pl.Float64).mean().alias("cfr"),
            pl.col("mirror_gap").drop_nans().first().alias("_gap"),
            pl.col("exp1_accuracy").drop_nans().first().alias("_acc"),
        )
        .sort("model", "domain", "subcategory")
    )

    def lookup(table: Mapping[str, Mapping[str, float]] | None, column: str) -> pl.Series:
        if table is None:
            return cells[column]
        recorded = cells[column].to_list()
        values = [
            table[m].get(d) if m in table else r
            for m, d, r in zip(cells["model"].to_list(), cells["domain"].to_list(), recorded)
        ]
        return pl.Series(column, values, dtype=pl.Float64)

    gap = lookup(gap_by_model, "_gap")
    acc = lookup(accuracy_by_model, "_acc").fill_null(MISSING_ACCURACY).fill_nan(MISSING_ACCURACY)
    return cells.drop("_gap", "_acc").with_columns(gap.alias("gap"), acc.alias("accuracy"))


def _pearson_ci(x: np.ndarray, y: np.ndarray, ci: CI) -> Estimate | None:
    """BCa interval of Pearson r over the points (resamples with a constant side drop out), as the
    Estimate carries it (no interval of zero width: then a `ci_note` says why)."""
    ok = ~np.isnan(x) & ~np.isnan(y)
    if resolve_ci(ci) is None or ok.sum() < 3:
        return None
    cells = Cells.of(x=x[ok], y=y[ok])
    cx, cy = cells["x"], cells["y"]

    def statistic(w: np.ndarray) -> np.ndarray:
        n = w.sum(axis=1)
        mx, my = (w @ cx) / n, (w @ cy) / n
        sxy = w @ (cx * cy) / n - mx * my
        sxx = np.maximum(w @ (cx * cx) / n - mx * mx, 0.0)
        syy = np.maximum(w @ (cy * cy) / n - my * my, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where((sxx > 1e-15) & (syy > 1e-15), sxy / np.sqrt(sxx * syy), np.nan)

    return estimate(statistic, cells, n=cells.n, ci=ci)


def _pearson(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    ok = ~np.isnan(x) & ~np.isnan(y)
    x, y = x[ok], y[ok]
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return NAN, NAN
    result = stats.pearsonr(x, y)
    return float(result.statistic), float(result.pvalue)


def money_plot(
    components: pl.DataFrame,
    *,
    gap_by_model: Mapping[str, Mapping[str, float]] | None = None,
    accuracy_by_model: Mapping[str, Mapping[str, float]] | None = None,
    subcategories: tuple[str, ...] | None = None,
    alpha: float = 0.05,
    ci: CI = False,
) -> dict:
    """`{"cells": [...], "pearson_r": {...}, "partial_r": {"value", "r", "p", "n", "null"},
    "subcategories": {name: {"value": r, "n", "p", "q", "reject"}}, "family_size",
    "within_model": {model: {"value": r, "n", "p"}} (models with >= 3 cells), "within_model_slope"}`.
    `subcategories` fixes the BH family (default: every subcategory with a cell); `ci` adds the
    BCa interval of the Pearson r over cells."""
    cells = money_plot_cells(components, gap_by_model=gap_by_model, accuracy_by_model=accuracy_by_model)
    x = cells["gap"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    y = cells["cfr"].to_numpy()
    z = cells["accuracy"].to_numpy()
    r, p = _pearson(x, y)
    n = int((~np.isnan(x) & ~np.isnan(y)).sum())
    partial = partial_correlation(x, y, z)
    fitted = _pearson_ci(x, y, ci)  # its interval as the Estimate reports it (never of zero width)
    interval = {k: v for k, v in (fitted.to_json() if fitted else {}).items() if k in ("ci", "ci_note")}
    out: dict = {
        "cells": cells.to_dicts(),
        "pearson_r": {"value": r, "n": n, "p": p, **interval},
        "partial_r": {
            "value": partial.r, "r": partial.r, "p": partial.p, "n": partial.n,
            "null": None if np.isnan(partial.r) else bool(abs(partial.r) < NULL_PARTIAL_R),
        },
    }
    out["within_model"] = _within_model(cells)
    out["within_model_slope"] = _demeaned_slope(cells)
    family = (
        list(subcategories) if subcategories is not None else sorted(cells["subcategory"].drop_nulls().unique().to_list())
    )
    tests: dict[str, SubcategoryTest] = {}
    for name in family:
        part = cells.filter(pl.col("subcategory") == name)
        sx = part["gap"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        sy = part["cfr"].to_numpy()
        points = int((~np.isnan(sx) & ~np.isnan(sy)).sum())
        sr, sp = _pearson(sx, sy)
        if points < MIN_SUBCATEGORY_POINTS or np.isnan(sp):
            sp = 1.0
        tests[name] = {"value": sr, "n": points, "p": sp}
    q: np.ndarray | list[float] = []
    reject: np.ndarray | list[bool] = []
    if tests:
        q, reject = bh_fdr([t["p"] for t in tests.values()], alpha=alpha)
    for test, qi, ri in zip(tests.values(), q, reject):
        test["q"], test["reject"] = float(qi), bool(ri)
    out["subcategories"] = tests
    out["family_size"] = len(tests)
    return out


def _within_model(cells: pl.DataFrame) -> dict[str, dict]:
    """Pearson r of gap and CFR inside each model with at least 3 cells."""
    out = {}
    for model in sorted(cells["model"].unique().to_list()):
        part = cells.filter(pl.col("model") == model)
        x = part["gap"].cast(pl.Float64).fill_null(np.nan).to_numpy()
        y = part["cfr"].to_numpy()
        n = int((~np.isnan(x) & ~np.isnan(y)).sum())
        if n >= 3:
            r, p = _pearson(x, y)
            out[model] = {"value": r, "n": n, "p": p}
    return out


def _demeaned_slope(cells: pl.DataFrame) -> dict:
    """OLS slope of CFR on gap after removing each model's mean from both (the within-model
    estimator upstream falls back to when its mixed model does not fit)."""
    ok = cells.filter(pl.col("gap").is_not_null() & pl.col("gap").is_not_nan())
    if ok.height < 3:
        return {"value": NAN, "n": ok.height}
    centred = ok.with_columns(
        (pl.col("gap") - pl.col("gap").mean().over("model")).alias("_x"),
        (pl.col("cfr") - pl.col("cfr").mean().over("model")).alias("_y"),
    )
    x, y = centred["_x"].to_numpy(), centred["_y"].to_numpy()
    sxx = float(x @ x)
    return {"value": float(x @ y) / sxx if sxx > 1e-15 else NAN, "n": ok.height}


def temperature_reduction(
    per_model: Mapping[str, Mapping[str, float | None]], *, first: str = "C1", last: str = "C4", ci: CI = True
) -> TemperatureReduction:
    """The temperature replication's statistic: per model (CFR_first - CFR_last) / CFR_first, and
    the mean of those per-model reductions (not the ratio of means the headline 76% is) with a
    BCa CI over models. Models without both values, or with CFR_first = 0, are left out."""
    values: dict[str, Estimate] = {}
    for model in sorted(per_model):
        a, b = per_model[model].get(first), per_model[model].get(last)
        if a is None or b is None or np.isnan(a) or np.isnan(b) or a == 0:
            continue
        values[model] = Estimate((a - b) / a, 1)
    x = np.array([e.value for e in values.values()], dtype=np.float64)
    options = resolve_ci(ci)
    interval = None
    if options is not None and len(x) > 1:
        interval = bca_mean(
            x, n_resamples=options.n_resamples, seed=options.seed, confidence_level=options.confidence_level
        )
    mean = Estimate(float(x.mean()) if len(x) else NAN, len(x), interval)
    return TemperatureReduction(per_model=values, mean=mean)


def pooled_wag_nat_gap(exp1: pl.DataFrame | None) -> Estimate:
    """Wagering minus natural accuracy over every graded Exp1 record of the models pooled (the
    temperature replication's Wag-Nat gap). n = graded records."""
    if exp1 is None or exp1.height == 0 or "channel" not in exp1.columns:
        return Estimate(NAN, 0)
    graded = exp1.filter(pl.col("correct").is_not_null())
    nat = graded.filter(pl.col("channel") == "natural")["correct"].cast(pl.Float64)
    wag = graded.filter(pl.col("channel") == "wagering")["correct"].cast(pl.Float64)
    if nat.len() == 0 or wag.len() == 0:
        return Estimate(NAN, nat.len() + wag.len())
    # polars types Series.mean() as any Python literal or None; on a non-empty Float64 series it is a float
    wag_mean, nat_mean = cast(float, wag.mean()), cast(float, nat.mean())
    return Estimate(float(wag_mean - nat_mean), nat.len() + wag.len())


__all__ = [
    "NULL_PARTIAL_R",
    "SubcategoryTest",
    "TemperatureReduction",
    "money_plot",
    "money_plot_cells",
    "pooled_wag_nat_gap",
    "temperature_reduction",
]
