"""CCE, Compositional Calibration Error of Exp3 (spec §4.8). One row per (model, composite task).

- `variant="paper"` (default): the equation as printed, mean over tasks of
  |p_composite - correct_composite| - |p_component - correct_component|, the second term from the same
  task's primary component (domain a) asked alone; > 0 = worse calibrated on composites; [-1, 1].
  Computable on our `exp3_composite` (components are also asked alone), not on the authors' v2 data.
- `variant="upstream"`: what every released number is (Exp3 v2 table): mean over tasks of
  |confidence - correct| on the composite item; a missing confidence counts as 0.5, as upstream's
  parser did; [0, 1].
- `variant="balanced"`: the upstream per-task error on a difficulty-balanced design, in expectation:
  tasks are put in strata weak_weak / strong_weak / strong_strong by whether domain_a / domain_b are in
  the model's weak set (`weak_domains`, normally median_or_bottom_k), and CCE = mean over strata of the
  mean over domain pairs of the pair's mean error. This is the expected value of upstream's random
  subsampling (every pair cut to the smallest pair, every stratum to the smallest stratum), without
  its sampling noise.
Tasks missing what their variant needs are dropped; n = tasks used. The bootstrap resamples tasks.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

import numpy as np
import polars as pl

from mirror_hf.scoring._bootstrap import CI, Cells, Statistic, group_sums
from mirror_hf.scoring._columns import (
    ArrayLike,
    as_float,
    as_outcome,
    as_text,
    codes,
    same_length,
)
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._estimate_helpers import estimate

CceVariant = Literal["paper", "upstream", "balanced"]
CCE_VARIANTS: tuple[str, ...] = ("paper", "upstream", "balanced")
UPSTREAM_MISSING_CONFIDENCE = 0.5
STRATA: tuple[str, ...] = ("weak_weak", "strong_weak", "strong_strong")


def _mean_statistic(values: np.ndarray) -> Statistic:
    def statistic(w: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return (w @ values) / w.sum(axis=1)

    return statistic


def _check_unit(p: np.ndarray, name: str) -> None:
    bad = ~np.isnan(p) & ((p < 0) | (p > 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}: row {i} is {float(p[i])!r}; expected a probability in [0, 1] (divide 0-100 self-reports by 100)")


def cce(
    confidence: ArrayLike,
    correct: ArrayLike,
    *,
    component_confidence: ArrayLike | None = None,
    component_correct: ArrayLike | None = None,
    domain_a: ArrayLike | None = None,
    domain_b: ArrayLike | None = None,
    weak_domains: Collection[str] | None = None,
    variant: CceVariant = "paper",
    ci: CI = False,
) -> Estimate:
    if variant not in CCE_VARIANTS:
        raise ValueError(f"cce: variant must be one of {CCE_VARIANTS}, got {variant!r}")
    p = as_float(confidence, "confidence")
    y = as_outcome(correct, "correct")
    same_length(confidence=p, correct=y)
    _check_unit(p, "confidence")

    if variant == "paper":
        if component_confidence is None or component_correct is None:
            raise ValueError("cce(variant='paper') needs component_confidence and component_correct (the primary component asked alone)")
        pa = as_float(component_confidence, "component_confidence")
        ya = as_outcome(component_correct, "component_correct")
        same_length(confidence=p, component_confidence=pa, component_correct=ya)
        _check_unit(pa, "component_confidence")
        diff = np.abs(p - y) - np.abs(pa - ya)
        diff = diff[~np.isnan(diff)]
        cells = Cells.of(d=diff)
        return estimate(_mean_statistic(cells["d"]), cells, n=cells.n, ci=ci)

    p = np.where(np.isnan(p), UPSTREAM_MISSING_CONFIDENCE, p)
    error = np.abs(p - y)  # NaN where ungraded
    if variant == "upstream":
        error = error[~np.isnan(error)]
        cells = Cells.of(e=error)
        return estimate(_mean_statistic(cells["e"]), cells, n=cells.n, ci=ci)

    if domain_a is None or domain_b is None or weak_domains is None:
        raise ValueError("cce(variant='balanced') needs domain_a, domain_b and weak_domains")
    da = as_text(domain_a, "domain_a")
    db = as_text(domain_b, "domain_b")
    same_length(confidence=p, domain_a=da, domain_b=db)
    weak = sorted(set(weak_domains))
    keep = ~np.isnan(error) & da.is_not_null().to_numpy() & db.is_not_null().to_numpy()
    n_weak = da.is_in(weak).cast(pl.Int64).to_numpy() + db.is_in(weak).cast(pl.Int64).to_numpy()
    stratum = 2 - n_weak  # 0 weak_weak, 1 strong_weak, 2 strong_strong
    pair = pl.select(pl.concat_str(pl.min_horizontal(da, db), pl.lit("|"), pl.max_horizontal(da, db))).to_series()
    pair_code, pair_levels = codes(pair.filter(pl.Series(keep)))
    cells = Cells.of(stratum=stratum[keep], pair=pair_code, e=error[keep])
    n_pairs = len(pair_levels)
    pair_stratum = np.full(max(n_pairs, 1), -1)
    pair_stratum[cells["pair"]] = cells["stratum"]

    def statistic(w: np.ndarray) -> np.ndarray:
        size = group_sums(w, cells["pair"], n_pairs)
        total = group_sums(w, cells["pair"], n_pairs, cells["e"])
        with np.errstate(invalid="ignore", divide="ignore"):
            pair_mean = np.where(size > 0, total / size, np.nan)
        per_stratum = []
        for s in range(len(STRATA)):
            cols = pair_mean[:, pair_stratum[:n_pairs] == s]
            ok = ~np.isnan(cols)
            count = ok.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                per_stratum.append(np.where(count > 0, np.where(ok, cols, 0.0).sum(axis=1) / count, np.nan))
        strata = np.stack(per_stratum, axis=1)
        ok = ~np.isnan(strata)
        count = ok.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, np.where(ok, strata, 0.0).sum(axis=1) / count, np.nan)

    return estimate(statistic, cells, n=cells.n, ci=ci)
