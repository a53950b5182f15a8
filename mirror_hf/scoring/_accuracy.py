"""Accuracy and the Mirror gap (spec §4.1-4.3).

Ungraded records (correct = null: API error, refusal, skip, no answer) are excluded from every
denominator, as upstream does; they are never counted wrong here (the missing-data variants of Exp9
are in `_exp9`). Model-level accuracies are *macro* means over domains (Table 4), pooled accuracy is
the plain share (the format-control table's Struct.Acc).
"""

from __future__ import annotations

import numpy as np

from mirror_hf.scoring._bootstrap import CI, Cells, group_sums
from mirror_hf.scoring._columns import (
    ArrayLike,
    as_outcome,
    as_text,
    codes,
    same_length,
)
from mirror_hf.scoring._estimate import Estimate
from mirror_hf.scoring._estimate_helpers import estimate


def _share(w: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w @ y) / w.sum(axis=1)


def accuracy(correct: ArrayLike, *, ci: CI = False) -> Estimate:
    """Pooled share correct among graded records; n = graded records. Empty -> NaN."""
    y = as_outcome(correct)
    y = y[~np.isnan(y)]
    cells = Cells.of(y=y)
    return estimate(lambda w: _share(w, cells["y"]), cells, n=len(y), ci=ci)


def _domain_cells(correct: ArrayLike, domain: ArrayLike) -> tuple[Cells, list[str]]:
    y = as_outcome(correct)
    d = as_text(domain, "domain")
    same_length(correct=y, domain=d)
    d_code, levels = codes(d)
    keep = ~np.isnan(y) & (d_code >= 0)
    return Cells.of(domain=d_code[keep], y=y[keep]).stratified("domain"), levels


def _per_domain_accuracy(w: np.ndarray, cells: Cells, n_domains: int) -> np.ndarray:
    """(B, D) accuracy per domain; NaN where the resample holds no graded record of that domain."""
    graded = group_sums(w, cells["domain"], n_domains)
    right = group_sums(w, cells["domain"], n_domains, cells["y"])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(graded > 0, right / graded, np.nan)


def _nanmean_rows(x: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(x)
    count = ok.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, np.where(ok, x, 0.0).sum(axis=1) / count, np.nan)


def macro_accuracy(correct: ArrayLike, domain: ArrayLike, *, ci: CI = False) -> Estimate:
    """Unweighted mean over domains of per-domain accuracy (domains with no graded record are
    skipped); n = graded records. The bootstrap resamples graded records within each domain (the
    bank fixes how many items each domain has)."""
    return _macro_accuracy_of(*_domain_cells(correct, domain), ci=ci)


def _macro_accuracy_of(cells: Cells, levels: list[str], *, ci: CI) -> Estimate:
    return estimate(lambda w: _nanmean_rows(_per_domain_accuracy(w, cells, len(levels))), cells, n=cells.n, ci=ci)


def macro_and_domain_accuracy(correct: ArrayLike, domain: ArrayLike, *, ci: CI = False) -> tuple[Estimate, dict[str, Estimate]]:
    """`macro_accuracy` and `domain_accuracy` of the same records, from one cell table."""
    cells, levels = _domain_cells(correct, domain)
    return _macro_accuracy_of(cells, levels, ci=ci), _domain_accuracy_of(cells, levels)


def natural_accuracy(correct: ArrayLike, domain: ArrayLike, *, ci: CI = False) -> Estimate:
    """Nat.Acc(m): macro mean over domains of the natural channel's accuracy (pass that channel's
    records)."""
    return macro_accuracy(correct, domain, ci=ci)


def wagering_accuracy(correct: ArrayLike, domain: ArrayLike, *, ci: CI = False) -> Estimate:
    """Wag.Acc(m): macro mean over domains of the wagering channel's accuracy; the bet is not used."""
    return macro_accuracy(correct, domain, ci=ci)


def domain_accuracy(correct: ArrayLike, domain: ArrayLike) -> dict[str, Estimate]:
    """Per-domain accuracy (domain -> Estimate with n = graded records of that domain)."""
    return _domain_accuracy_of(*_domain_cells(correct, domain))


def _domain_accuracy_of(cells: Cells, levels: list[str]) -> dict[str, Estimate]:
    out = {}
    for code, name in enumerate(levels):
        mask = cells["domain"] == code
        n = int(cells.counts[mask].sum())
        right = float((cells.counts[mask] * cells["y"][mask]).sum())
        out[name] = Estimate(right / n if n else float("nan"), n)
    return out


# ------------------------------------------------------------------------------------------------
# Mirror gap: one row per question, both channels' grades side by side
# ------------------------------------------------------------------------------------------------


def _gap_cells(domain: ArrayLike, natural_correct: ArrayLike, wagering_correct: ArrayLike) -> tuple[Cells, list[str]]:
    nat = as_outcome(natural_correct, "natural_correct")
    wag = as_outcome(wagering_correct, "wagering_correct")
    d = as_text(domain, "domain")
    same_length(domain=d, natural_correct=nat, wagering_correct=wag)
    d_code, levels = codes(d)
    keep = (d_code >= 0) & ~(np.isnan(nat) & np.isnan(wag))
    return Cells.of(domain=d_code[keep], nat=nat[keep], wag=wag[keep]).stratified("domain"), levels


def _per_domain_gap(w: np.ndarray, cells: Cells, n_domains: int) -> np.ndarray:
    """(B, D) |Wag.Acc(m,d) - Nat.Acc(m,d)|, NaN where either accuracy is undefined."""
    d = cells["domain"]
    out = []
    for col in ("nat", "wag"):
        y = cells[col]
        graded = ~np.isnan(y)
        n = group_sums(w, d, n_domains, graded.astype(np.float64))
        k = group_sums(w, d, n_domains, np.where(graded, y, 0.0))
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(n > 0, k / n, np.nan))
    return np.abs(out[1] - out[0])


def mirror_gap(
    domain: ArrayLike, natural_correct: ArrayLike, wagering_correct: ArrayLike, *, ci: CI = False
) -> Estimate:
    """Gap(m) = mean over domains having both accuracies of |Wag.Acc(m,d) - Nat.Acc(m,d)| (spec §4.3).

    One row per question: its domain and the natural / wagering grades (null where that channel is
    missing or ungraded). n = questions with at least one grade; the bootstrap resamples questions
    within each domain, so the two channels stay paired and each domain keeps its item count. The
    interval is the percentile one: near |.|'s kink the bootstrap world folds more often than the
    estimate does, which BCa's bias correction would take for a bias (its 95% covered 93.9%)."""
    return _mirror_gap_of(*_gap_cells(domain, natural_correct, wagering_correct), ci=ci)


def _mirror_gap_of(cells: Cells, levels: list[str], *, ci: CI) -> Estimate:
    statistic = lambda w: _nanmean_rows(_per_domain_gap(w, cells, len(levels)))  # noqa: E731
    return estimate(statistic, cells, n=cells.n, ci=ci, interval="percentile")


def mirror_gap_and_by_domain(
    domain: ArrayLike, natural_correct: ArrayLike, wagering_correct: ArrayLike, *, ci: CI = False
) -> tuple[Estimate, dict[str, Estimate]]:
    """`mirror_gap` and `mirror_gap_by_domain` of the same questions, from one cell table."""
    cells, levels = _gap_cells(domain, natural_correct, wagering_correct)
    return _mirror_gap_of(cells, levels, ci=ci), _mirror_gap_by_domain_of(cells, levels)


def mirror_gap_by_domain(
    domain: ArrayLike, natural_correct: ArrayLike, wagering_correct: ArrayLike
) -> dict[str, Estimate]:
    """g(m,d) per domain (used by Exp9 routing and KDI); n = questions of that domain with a grade.
    Domains lacking either accuracy are left out."""
    return _mirror_gap_by_domain_of(*_gap_cells(domain, natural_correct, wagering_correct))


def _mirror_gap_by_domain_of(cells: Cells, levels: list[str]) -> dict[str, Estimate]:
    gaps = _per_domain_gap(cells.counts[None, :].astype(np.float64), cells, len(levels))[0]
    out = {}
    for code, name in enumerate(levels):
        if not np.isnan(gaps[code]):
            out[name] = Estimate(float(gaps[code]), int(cells.counts[cells["domain"] == code].sum()))
    return out
