"""Selective prediction: how well a confidence signal ranks a model's right answers above its wrong
ones when the least confident answers are rejected first (docs/protocol.md, "Internal signals").

All take a confidence in [0, 1] and the grade, as `auroc` does, so behavioural and internal signals
(consistency, token probabilities) are compared on one scale:

- AURC, the area under the risk-coverage curve (Geifman & El-Yaniv): the records ordered by
  confidence, highest first; risk(i) = errors among the first i / i; AURC = (1/N) sum_i risk(i).
  Equal confidences are taken in every order equally often: the value is the mean over those
  orders, exact (risk(i)'s denominator is fixed, so the expected errors grow linearly inside a tie).
  Lower is better; a random signal's AURC is 1 - accuracy.
- risk at coverage c (default 80%): the error rate among the c*N most confident records (inside a
  tie the expected errors, interpolated).
- PRR, the prediction rejection ratio as LM-Polygraph defines it (`PredictionRejectionArea` with
  max_rejection = 1, normalised between the random and the oracle ordering): with 0/1 quality the
  prediction-rejection area is 1 - AURC, so PRR = (AURC_random - AURC) / (AURC_random - AURC_oracle),
  AURC_oracle the area when every right answer comes first. 1 = oracle, 0 = random, < 0 worse than
  random; NaN when every record is right or every one wrong. (LM-Polygraph breaks ties by argsort
  order; here ties are averaged, as above.)
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.special import digamma

from mirror_hf.scoring._bootstrap import CI, Cells, Statistic, group_sums
from mirror_hf.scoring._calibration import _auroc_statistic, _cells
from mirror_hf.scoring._columns import ArrayLike
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._estimate_helpers import estimates

COVERAGE = 0.8
_EULER = 0.5772156649015329


def _harmonic(x: np.ndarray) -> np.ndarray:
    """H(x) = sum_{i<=x} 1/i for the integer counts a resample holds (0 at 0)."""
    return digamma(np.asarray(x, dtype=np.float64) + 1.0) + _EULER


def _levels(cells: Cells) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Per resample, the records and errors of each confidence level, highest confidence first."""
    values, level = np.unique(cells["p"], return_inverse=True)
    level = (len(values) - 1 - level.reshape(-1)) if len(values) else level.reshape(-1)  # 0 = most confident
    n_levels = len(values)
    wrong = 1.0 - cells["y"]

    def sums(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return group_sums(w, level, n_levels), group_sums(w, level, n_levels, wrong)

    return sums


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den


def _aurc_parts(n: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(AURC, N, errors) per resample from per-level records n and errors e (B, L)."""
    c = np.cumsum(n, axis=1)
    c0 = c - n
    e0 = np.cumsum(e, axis=1) - e
    s = _ratio(e, n)
    s = np.where(n > 0, s, 0.0)
    segment = (e0 - s * c0) * (_harmonic(c) - _harmonic(c0)) + e
    total = c[:, -1] if c.shape[1] else np.zeros(len(c))
    return _ratio(segment.sum(axis=1), total), total, e.sum(axis=1)


def _aurc_statistic(cells: Cells) -> Statistic:
    sums = _levels(cells)

    def statistic(w: np.ndarray) -> np.ndarray:
        return _aurc_parts(*sums(w))[0]

    return statistic


def oracle_aurc(total: np.ndarray, errors: np.ndarray) -> np.ndarray:
    """AURC when every right answer is ranked above every wrong one: risk(i) = max(0, i - N_c) / i."""
    right = total - errors
    return _ratio(errors - right * (_harmonic(total) - _harmonic(right)), total)


def _prr_statistic(cells: Cells) -> Statistic:
    sums = _levels(cells)

    def statistic(w: np.ndarray) -> np.ndarray:
        aurc, total, errors = _aurc_parts(*sums(w))
        rnd = _ratio(errors, total)
        return _ratio(rnd - aurc, rnd - oracle_aurc(total, errors))

    return statistic


def _risk_statistic(cells: Cells, coverage: float) -> Statistic:
    if not 0 < coverage <= 1:
        raise ValueError(f"coverage must be in (0, 1], got {coverage}")
    sums = _levels(cells)

    def statistic(w: np.ndarray) -> np.ndarray:
        n, e = sums(w)
        c0 = np.cumsum(n, axis=1) - n
        target = coverage * n.sum(axis=1)
        taken = np.clip(target[:, None] - c0, 0.0, n)
        s = np.where(n > 0, _ratio(e, n), 0.0)
        return _ratio((taken * s).sum(axis=1), target)

    return statistic


def selective(
    confidence: ArrayLike, correct: ArrayLike, *, coverage: float = COVERAGE, ci: CI = False, domain: ArrayLike | None = None
) -> dict[str, Estimate]:
    """`{"auroc", "aurc", "risk_at_coverage", "prr"}` of the same records, CIs from shared resamples
    (within each domain when `domain` is given, as `calibration`)."""
    cells = _cells(confidence, correct, domain)
    statistics = {
        "auroc": _auroc_statistic(cells),
        "aurc": _aurc_statistic(cells),
        "risk_at_coverage": _risk_statistic(cells, coverage),
        "prr": _prr_statistic(cells),
    }
    return estimates(statistics, cells, n=cells.n, ci=ci)


def aurc(confidence: ArrayLike, correct: ArrayLike, *, ci: CI = False, domain: ArrayLike | None = None) -> Estimate:
    """Area under the risk-coverage curve (module docstring); [0, 1], lower is better."""
    cells = _cells(confidence, correct, domain)
    return estimates({"aurc": _aurc_statistic(cells)}, cells, n=cells.n, ci=ci)["aurc"]


def risk_at_coverage(
    confidence: ArrayLike, correct: ArrayLike, *, coverage: float = COVERAGE, ci: CI = False, domain: ArrayLike | None = None
) -> Estimate:
    """Error rate among the `coverage` share of most confident records; lower is better."""
    cells = _cells(confidence, correct, domain)
    return estimates({"risk": _risk_statistic(cells, coverage)}, cells, n=cells.n, ci=ci)["risk"]


def prr(confidence: ArrayLike, correct: ArrayLike, *, ci: CI = False, domain: ArrayLike | None = None) -> Estimate:
    """Prediction rejection ratio (LM-Polygraph); 1 oracle, 0 random; NaN with one class only."""
    cells = _cells(confidence, correct, domain)
    return estimates({"prr": _prr_statistic(cells)}, cells, n=cells.n, ci=ci)["prr"]
