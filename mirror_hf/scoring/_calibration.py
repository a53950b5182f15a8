"""Calibration of the wager (spec §4.4-4.5): ECE, Brier, log score, AUROC.

All four take a confidence in [0, 1] and the grade. For the wagering channel the confidence is
bet/10 (`wager_confidence`), the paper's and `compute_ece_brier.py`'s signal; upstream's library
default (Layer-2 self-report) is only a different input column, not a different formula. Records
without both a confidence and a grade are dropped; n = records used. `calibration` computes all
four from one shared set of resamples. Given each record's `domain`, the bootstrap resamples within
domains, as the bank's design fixes the items per domain (Exp1 passes it).
"""

from __future__ import annotations

import numpy as np

from mirror_hf.scoring._bootstrap import CI, Cells, Statistic, group_sums
from mirror_hf.scoring._columns import (
    ArrayLike,
    ScoringInputError,
    as_float,
    as_outcome,
    as_text,
    codes,
    same_length,
)
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._estimate_helpers import estimates

LOG_CLIP = 1e-6
N_BINS = 10


def wager_confidence(bet: ArrayLike) -> np.ndarray:
    """bet 1-10 -> bet/10 (null stays NaN). Bets outside 1..10 are an error: the parser never keeps them."""
    b = as_float(bet, "bet")
    bad = ~np.isnan(b) & ((b < 1) | (b > 10) | (b != np.round(b)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ScoringInputError(f"bet: row {i} is {float(b[i])!r}; expected an integer 1..10 or null")
    return b / 10.0


def _cells(confidence: ArrayLike, correct: ArrayLike, domain: ArrayLike | None = None) -> Cells:
    """The (confidence, grade) cells; with `domain`, resampled within each domain (the bank fixes
    how many items each domain has, so a resample keeps those counts). The domain only groups the
    resampling: the values are those without it."""
    p = as_float(confidence, "confidence")
    y = as_outcome(correct)
    same_length(confidence=p, correct=y)
    bad = ~np.isnan(p) & ((p < 0) | (p > 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ScoringInputError(f"confidence: row {i} is {float(p[i])!r}; expected a value in [0, 1]")
    keep = ~np.isnan(p) & ~np.isnan(y)
    if domain is None:
        return Cells.of(p=p[keep], y=y[keep])
    d_code, _ = codes(as_text(domain, "domain"))
    same_length(confidence=p, domain=d_code)
    return Cells.of(p=p[keep], y=y[keep], domain=d_code[keep]).stratified("domain")


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return num / den


def _bin_of(p: np.ndarray, n_bins: int) -> np.ndarray:
    """Equal-width bin of each confidence (one rule for `ece` and `reliability`), the top edge in the
    last bin; the 1e-9 keeps a confidence meant to sit on an edge but computed a rounding error below
    it in the bin that edge opens."""
    if n_bins < 1:
        raise ValueError("n_bins must be >= 1")
    return np.minimum(np.floor(p * n_bins + 1e-9).astype(np.int64), n_bins - 1)


def _ece_statistic(cells: Cells, n_bins: int) -> Statistic:
    bins = _bin_of(cells["p"], n_bins)

    def statistic(w: np.ndarray) -> np.ndarray:
        right = group_sums(w, bins, n_bins, cells["y"])
        conf = group_sums(w, bins, n_bins, cells["p"])
        return _ratio(np.abs(right - conf).sum(axis=1), w.sum(axis=1))  # sum |B|·|acc(B) - conf(B)| / N

    return statistic


def _mean_loss_statistic(loss: np.ndarray) -> Statistic:
    return lambda w: _ratio(w @ loss, w.sum(axis=1))


def _brier_statistic(cells: Cells) -> Statistic:
    return _mean_loss_statistic((cells["p"] - cells["y"]) ** 2)


def _log_statistic(cells: Cells) -> Statistic:
    p = np.clip(cells["p"], LOG_CLIP, 1.0 - LOG_CLIP)
    y = cells["y"]
    return _mean_loss_statistic(-(y * np.log(p) + (1.0 - y) * np.log1p(-p)))


def _auroc_statistic(cells: Cells) -> Statistic:
    _, level = np.unique(cells["p"], return_inverse=True)
    level = level.reshape(-1)
    n_levels = int(level.max()) + 1 if len(level) else 0
    y = cells["y"]

    def statistic(w: np.ndarray) -> np.ndarray:
        pos = group_sums(w, level, n_levels, y)
        neg = group_sums(w, level, n_levels, 1.0 - y)
        below = np.cumsum(neg, axis=1) - neg
        wins = (pos * (below + 0.5 * neg)).sum(axis=1)
        return _ratio(wins, pos.sum(axis=1) * neg.sum(axis=1))

    return statistic


def calibration(
    confidence: ArrayLike, correct: ArrayLike, *, n_bins: int = N_BINS, ci: CI = False, domain: ArrayLike | None = None
) -> dict[str, Estimate]:
    """`{"ece", "brier", "log_score", "auroc"}` of the same records, CIs from shared resamples
    (within each domain when `domain` is given; records without one form a stratum of their own)."""
    cells = _cells(confidence, correct, domain)
    statistics = {
        "ece": _ece_statistic(cells, n_bins),
        "brier": _brier_statistic(cells),
        "log_score": _log_statistic(cells),
        "auroc": _auroc_statistic(cells),
    }
    return estimates(statistics, cells, n=cells.n, ci=ci)


def ece(
    confidence: ArrayLike, correct: ArrayLike, *, n_bins: int = N_BINS, ci: CI = False, domain: ArrayLike | None = None
) -> Estimate:
    """Expected calibration error: sum over equal-width bins of |B|/N * |acc(B) - conf(B)|.
    Bin b = [b/n_bins, (b+1)/n_bins), the last closed at 1.0 (with bet/10, bets 9 and 10 share it).
    Range [0, 1], lower is better."""
    cells = _cells(confidence, correct, domain)
    return estimates({"ece": _ece_statistic(cells, n_bins)}, cells, n=cells.n, ci=ci)["ece"]


def brier(
    confidence: ArrayLike, correct: ArrayLike, *, ci: CI = False, domain: ArrayLike | None = None
) -> Estimate:
    """Mean squared error of the confidence as a probability of being correct; [0, 1], lower is better."""
    cells = _cells(confidence, correct, domain)
    return estimates({"brier": _brier_statistic(cells)}, cells, n=cells.n, ci=ci)["brier"]


def log_score(
    confidence: ArrayLike, correct: ArrayLike, *, ci: CI = False, domain: ArrayLike | None = None
) -> Estimate:
    """Negative log-likelihood -[y ln p + (1-y) ln(1-p)], p clipped to [1e-6, 1-1e-6]; lower is better."""
    cells = _cells(confidence, correct, domain)
    return estimates({"log_score": _log_statistic(cells)}, cells, n=cells.n, ci=ci)["log_score"]


def auroc(
    confidence: ArrayLike, correct: ArrayLike, *, ci: CI = False, domain: ArrayLike | None = None
) -> Estimate:
    """Area under the ROC curve of confidence as a predictor of being correct: the probability that a
    correct record outranks an incorrect one, ties counting half. NaN with only one class."""
    cells = _cells(confidence, correct, domain)
    return estimates({"auroc": _auroc_statistic(cells)}, cells, n=cells.n, ci=ci)["auroc"]


def reliability(confidence: ArrayLike, correct: ArrayLike, *, n_bins: int = N_BINS) -> list[dict]:
    """The reliability diagram behind `ece`: per non-empty bin (the same equal-width bins), its edges,
    record count, mean confidence and accuracy. Records without both a confidence and a grade are dropped."""
    cells = _cells(confidence, correct)
    bins = _bin_of(cells["p"], n_bins)
    w = cells.counts.astype(np.float64)
    out = []
    for b in range(n_bins):
        mask = bins == b
        n = float(w[mask].sum())
        if n:
            out.append({
                "lo": b / n_bins, "hi": (b + 1) / n_bins, "n": int(n),
                "confidence": float((w[mask] * cells["p"][mask]).sum() / n),
                "accuracy": float((w[mask] * cells["y"][mask]).sum() / n),
            })
    return out
