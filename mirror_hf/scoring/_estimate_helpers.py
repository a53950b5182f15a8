"""Turning cell statistics into `Estimate`s, with or without their BCa intervals."""

from __future__ import annotations

from mirror_hf.scoring._bootstrap import (
    CI,
    Cells,
    Statistic,
    bca_intervals,
    point,
    resolve_ci,
)
from mirror_hf.scoring._estimate import NAN, Estimate


def estimates(
    statistics: dict[str, Statistic], *samples: Cells, n: int, ci: CI = False, interval: str = "BCa"
) -> dict[str, Estimate]:
    """Point values of several statistics of the same sample(s) (NaN if a sample is empty) and,
    when `ci` asks for it, their BCa (or `interval`) intervals from one shared set of resamples."""
    if not samples or any(s.n == 0 for s in samples):
        return {name: Estimate(NAN, n, None) for name in statistics}
    options = resolve_ci(ci)
    values = {name: point(st, *samples) for name, st in statistics.items()}
    intervals = {name: None for name in statistics}
    if options is not None:
        intervals = bca_intervals(
            statistics,
            *samples,
            n_resamples=options.n_resamples,
            seed=options.seed,
            confidence_level=options.confidence_level,
            stream=options.stream,
            interval=interval,
            theta_hat=values,
        )
    return {name: Estimate(values[name], n, intervals[name]) for name in statistics}


def estimate(statistic: Statistic, *samples: Cells, n: int, ci: CI = False, interval: str = "BCa") -> Estimate:
    """Point value of `statistic` on the samples (NaN if any sample is empty) and, when `ci` asks
    for it, its BCa (or `interval`) interval from the same statistic."""
    return estimates({"_": statistic}, *samples, n=n, ci=ci, interval=interval)["_"]
