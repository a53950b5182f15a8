"""Statistics beyond one metric's CI (spec §7): paired differences between conditions, Benjamini-
Hochberg FDR and partial correlation by residualisation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from mirror_hf.scoring._bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Cells,
    Statistic,
    _jackknife_acceleration,
    bca_from_replicates,
    bca_interval,
    point,
    replicates,
)
from mirror_hf.scoring._columns import ArrayLike, as_float, same_length
from mirror_hf.scoring._estimate import Estimate


@dataclass(frozen=True)
class PairedDifference:
    """Δ = earlier - later over paired units (models). d_z = mean(Δ)/SD(Δ, ddof=1); `p` is the
    two-sided paired-bootstrap p-value 2·min(P*(mean Δ* <= 0), P*(mean Δ* >= 0)) (capped at 1);
    `ci` the BCa CI of mean Δ and `d_z_ci` that of d_z, all from the same seeded resamples.

    Over fewer than two units there is no test: `p`, `ci`, `d_z_ci` are None (null in JSON), never a
    p of 0 from a bootstrap that can only redraw the one difference. The same holds for `p` when the
    differences have no spread (every resample is the same mean)."""

    n: int
    mean_diff: float
    sd_diff: float
    d_z: float
    ci: tuple[float, float] | None
    d_z_ci: tuple[float, float] | None
    p: float | None

    def to_json(self) -> dict:
        def f(x: float | None) -> float | None:
            return None if x is None or not np.isfinite(x) else float(x)

        # never of zero width (issue 29): None, as an Estimate reports it
        def interval(ci: tuple[float, float] | None, value: float) -> list[float | None] | None:
            return None if ci is None or Estimate(value, self.n, ci).ci is None else [f(ci[0]), f(ci[1])]

        return {
            "value": f(self.d_z),
            "n": self.n,
            "ci": interval(self.d_z_ci, self.d_z),
            "mean_diff": f(self.mean_diff),
            "mean_diff_ci": interval(self.ci, self.mean_diff),
            "sd_diff": f(self.sd_diff),
            "p": f(self.p),
        }


def _mean(values: np.ndarray) -> Statistic:
    def statistic(w: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (w @ values) / w.sum(axis=1)

    return statistic


def _standardised_mean(values: np.ndarray) -> Statistic:
    def statistic(w: np.ndarray) -> np.ndarray:
        n = w.sum(axis=1)
        s1 = w @ values
        s2 = w @ (values**2)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s1 / n
            var = np.maximum(s2 - s1 * mean, 0.0) / (n - 1.0)
            # a resample of identical differences has no SD (float noise is not spread)
            spread = var > 1e-10 * np.maximum(s2 / n, 1e-300)
            return np.where(spread, mean / np.sqrt(var), np.nan)

    return statistic


MIN_PAIRED_UNITS = 2  # a test or an interval needs at least two paired units


def paired_difference(
    earlier: ArrayLike,
    later: ArrayLike,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence_level: float = 0.95,
) -> PairedDifference:
    """Paired comparison of two conditions measured on the same units; pairs with a missing side
    are dropped. `n_resamples=0`: the point figures only (no CI, no bootstrap p), without resampling."""
    a = as_float(earlier, "earlier")
    b = as_float(later, "later")
    same_length(earlier=a, later=b)
    diff = a - b
    diff = diff[~np.isnan(diff)]
    n = len(diff)
    if n < MIN_PAIRED_UNITS:
        mean = float(diff.mean()) if n else float("nan")
        return PairedDifference(n, mean, float("nan"), float("nan"), None, None, None)
    mean = float(diff.mean())
    sd = float(diff.std(ddof=1))
    d_z = mean / sd if sd > 0 else float("nan")
    if n_resamples <= 0:
        return PairedDifference(n, mean, sd, d_z, None, None, None)
    cells = Cells.of(d=diff)
    statistic = _mean(cells["d"])
    rng = np.random.default_rng(seed)
    theta_b = replicates(statistic, cells, n_resamples=n_resamples, rng=rng)
    ci = bca_from_replicates(point(statistic, cells), theta_b, _jackknife_acceleration(statistic, (cells,)), confidence_level=confidence_level)
    spread = np.ptp(diff) > 1e-12 * max(1.0, float(np.abs(diff).max()))
    p = float(min(1.0, 2.0 * min(float(np.mean(theta_b <= 0.0)), float(np.mean(theta_b >= 0.0))))) if spread else None
    d_z_ci = None
    if n >= 5 and np.isfinite(d_z):  # fewer units: too many resamples without spread
        d_z_ci = bca_interval(_standardised_mean(cells["d"]), cells, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level)
    return PairedDifference(n, mean, sd, d_z, ci, d_z_ci, p)


def bh_fdr(p_values: ArrayLike, *, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Benjamini-Hochberg q-values (monotone step-up, capped at 1; scipy's `false_discovery_control`)
    and the rejections q < alpha (upstream's Exp9 rule). NaN p-values stay NaN and are not counted in
    the family."""
    p = as_float(p_values, "p_values")
    q = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    if ((p[ok] < 0) | (p[ok] > 1)).any():
        raise ValueError("p_values must lie in [0, 1]")
    if ok.any():
        q[ok] = stats.false_discovery_control(p[ok], method="bh")
    return q, np.where(ok, q < alpha, False)


@dataclass(frozen=True)
class PartialCorrelation:
    r: float
    p: float
    n: int


def partial_correlation(x: ArrayLike, y: ArrayLike, z: ArrayLike | np.ndarray) -> PartialCorrelation:
    """Pearson r of the residuals of x and y after an OLS fit (with intercept) on z (one column or a
    2-d array of covariates); p from the Pearson test on the residuals (df = n - 2, as upstream).
    Rows with any NaN are dropped."""
    xv = as_float(x, "x")
    yv = as_float(y, "y")
    zv = np.asarray(z, dtype=np.float64)
    zv = zv[:, None] if zv.ndim == 1 else zv
    same_length(x=xv, y=yv, z=zv[:, 0] if zv.size else np.zeros(len(xv)))
    ok = ~np.isnan(xv) & ~np.isnan(yv) & ~np.isnan(zv).any(axis=1)
    xv, yv, zv = xv[ok], yv[ok], zv[ok]
    n = len(xv)
    if n < 3:
        return PartialCorrelation(float("nan"), float("nan"), n)
    design = np.column_stack([np.ones(n), zv])
    rx = xv - design @ np.linalg.lstsq(design, xv, rcond=None)[0]
    ry = yv - design @ np.linalg.lstsq(design, yv, rcond=None)[0]
    if np.allclose(rx, 0) or np.allclose(ry, 0):
        return PartialCorrelation(float("nan"), float("nan"), n)
    result = stats.pearsonr(rx, ry)
    return PartialCorrelation(float(result.statistic), float(result.pvalue), n)
