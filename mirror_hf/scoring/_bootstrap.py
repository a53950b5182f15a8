"""BCa bootstrap over *cells*: the fast route to scipy's `bootstrap(method="BCa")`.

Resampling n items with replacement only matters through how many copies of each distinct row the
resample holds. So a sample is compressed once to its K distinct rows (`Cells`), a resample is a
row of multinomial counts over those K cells (drawn in one call for all 10,000 replicates), and a
statistic is a vectorised function of a (B, K) weight matrix. Every metric in `mirror_hf.scoring`
is written that way, so the point estimate (weights = the observed counts), the bootstrap
replicates and the leave-one-out jackknife (weights = counts minus one item, one row per distinct
cell) all run through the same code. The interval is then built exactly as scipy builds it
(`scipy.stats._resampling._bca_interval`): z0 from the share of replicates below the estimate
(ties count half), acceleration from the jackknife (the multi-sample form for statistics of
independent samples), adjusted levels through the normal CDF, linear-interpolation quantiles.

Two resampling streams give the same bootstrap distribution. `scipy` draws the n x B index matrix
exactly as `scipy.stats.bootstrap` does (`rng.integers(0, n, (B, n))` per sample, in order), so
with the same seed the replicates, and the interval, equal scipy's; it is used while n x B is small
(`auto`, up to 2 million draws: n <= 200 at 10,000 resamples). `multinomial` draws each replicate's cell counts directly
(`rng.multinomial`, cost B x K instead of B x n), which is what makes 10,000 resamples of a
15,000-record model cheap; its intervals agree with scipy's within Monte-Carlo error.

Departures from scipy, all documented in the metric cards: a replicate counts as tied with the
estimate within a relative 1e-12 (scipy compares floats exactly, so with discrete data its tie count
depends on summation rounding); replicates where the statistic is undefined (NaN) are dropped, as upstream does for correlations; z0's percentile is clipped to
[1e-6, 1 - 1e-6] as upstream does (scipy would return NaN when the estimate lies outside every
replicate); a zero jackknife spread gives acceleration 0 (a degenerate sample gives [θ, θ] here; an
Estimate never reports a zero-width interval, see `_estimate_helpers`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import cast

import numpy as np
from scipy.special import ndtr, ndtri

from mirror_hf.scoring._columns import ArrayLike

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 42
DEFAULT_CONFIDENCE = 0.95
_MAX_BLOCK = 4_000_000  # weight-matrix entries per block: bounds memory at ~32 MB per sample
# `auto` uses scipy's index stream up to this many draws in all. Above it the index route costs
# B x n draws per metric and cell (a 625-trial domain cell at 10,000 resamples: 6.25 million), which
# was 90% of the suite's CI time; the multinomial route draws B x K (K = 2 for a 0/1 outcome).
SCIPY_STREAM_LIMIT = 2_000_000

Statistic = Callable[..., np.ndarray]  # one (B, K_j) weight matrix per sample -> (B,) values


@dataclass(frozen=True)
class Cells:
    """A sample of `n` items compressed to its distinct rows: `columns[name][k]` is cell k's value and
    `counts[k]` how many items share it. Cells with count 0 never exist."""

    columns: dict[str, np.ndarray]
    counts: np.ndarray
    item_cell: np.ndarray | None = None  # cell of each original item, in input order (scipy stream)
    stratum: np.ndarray | None = None  # stratum code of each cell: resampled within strata (`stratified`)
    stratum_by: str | None = None  # the column the strata are the values of

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def k(self) -> int:
        return len(self.counts)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    @classmethod
    def of(cls, **columns: np.ndarray) -> Cells:
        """Group identical rows of equally long numeric columns (NaN equals NaN here)."""
        arrays = {name: np.asarray(col) for name, col in columns.items()}
        lengths = {len(a) for a in arrays.values()}
        if len(lengths) > 1:
            raise ValueError(f"Cells.of: columns differ in length: { {k: len(v) for k, v in arrays.items()} }")
        n = lengths.pop() if lengths else 0
        if n == 0:
            return cls({name: a[:0] for name, a in arrays.items()}, np.zeros(0, dtype=np.int64))
        key, span = np.zeros(n, dtype=np.int64), 1
        for a in arrays.values():
            inverse, levels = _dense_codes(a)
            if span * levels >= 2**62:  # re-densify so the mixed-radix key never overflows
                key, span = _dense_codes(key)
            key, span = key * levels + inverse, span * levels
        # cells in increasing key order (lexicographic in the columns' sorted values), first item of each
        inverse, k = _dense_codes(key)
        counts = np.bincount(inverse, minlength=k)
        first = np.full(k, n, dtype=np.int64)
        np.minimum.at(first, inverse, np.arange(n, dtype=np.int64))
        return cls({name: a[first] for name, a in arrays.items()}, counts.astype(np.int64), inverse)

    def stratified(self, by: str) -> Cells:
        """The same cells, resampled within each value of column `by`: for a design that fixes how
        many items each value has (the bank fixes the items per domain), so a resample keeps them.
        Each stratum is then one of scipy's independent samples (draws and acceleration alike)."""
        _, code = np.unique(self.columns[by], return_inverse=True, equal_nan=True)
        return replace(self, stratum=code.reshape(-1).astype(np.int64), stratum_by=by)

    def smallest_stratum(self) -> int:
        """Items in the smallest stratum (all items when unstratified; 0 when empty)."""
        if self.k == 0:
            return 0
        return min(int(self.counts[cells].sum()) for cells in self.strata())

    def alike(self) -> bool:
        """Every item is the same row, the stratum label aside: a degenerate sample (all correct,
        all wrong), on which any statistic is the same in every resample."""
        rows = {tuple(self.columns[c][i].item() for c in self.columns if c != self.stratum_by) for i in range(self.k)}
        return len(rows) <= 1

    def strata(self) -> list[np.ndarray]:
        """The cell indices of each stratum, in stratum order (one stratum of all cells if unstratified)."""
        if self.stratum is None:
            return [np.arange(self.k)]
        return [np.flatnonzero(self.stratum == s) for s in np.unique(self.stratum)]

    @classmethod
    def weighted(cls, counts: np.ndarray, **columns: np.ndarray) -> Cells:
        """Cells given directly (already distinct), dropping those with count 0."""
        counts = np.asarray(counts, dtype=np.int64)
        keep = counts > 0
        return cls({name: np.asarray(col)[keep] for name, col in columns.items()}, counts[keep])


def _bincount_codes(a: np.ndarray, span: int) -> tuple[np.ndarray, int]:
    """Dense codes of non-negative integers below `span`, in increasing order, in O(n + span)."""
    present = np.bincount(a, minlength=span) > 0
    code = np.cumsum(present) - 1
    return code[a].astype(np.int64, copy=False), int(present.sum())


def _dense_codes(a: np.ndarray) -> tuple[np.ndarray, int]:
    """(codes 0..L-1 in increasing order of value, L): `np.unique`'s inverse (NaN equals NaN, and
    sorts last), by counting where the values are small integers or 0/1/NaN outcomes."""
    if a.dtype.kind in "biu":
        if a.dtype.kind == "b":
            return _bincount_codes(a.astype(np.int64), 2)
        lo, hi = int(a.min()), int(a.max())
        if hi - lo <= 4 * len(a):
            return _bincount_codes((a - lo).astype(np.int64), hi - lo + 1)
    elif a.dtype.kind == "f":
        nan = np.isnan(a)
        if ((a == 0.0) | (a == 1.0) | nan).all():  # outcomes: 0 < 1 < NaN, as np.unique sorts them
            return _bincount_codes(np.where(nan, 2, a).astype(np.int64), 3)
    _, inverse = np.unique(a, return_inverse=True, equal_nan=True)
    inverse = inverse.reshape(-1).astype(np.int64, copy=False)
    return inverse, int(inverse.max()) + 1


def point(statistic: Statistic, *samples: Cells) -> float:
    """The statistic on the observed sample(s)."""
    weights = [s.counts[None, :].astype(np.float64) for s in samples]
    return float(np.asarray(statistic(*weights)).reshape(-1)[0])


def _multinomial_weights(sample: Cells, size: int, rng: np.random.Generator) -> np.ndarray:
    """(size, K) multinomial counts: the composition of `size` resamples of n items (of each
    stratum's items, stratum by stratum, when stratified)."""
    out = np.empty((size, sample.k))
    for cells in sample.strata():
        counts = sample.counts[cells]
        n = counts.sum()
        if len(cells) == 1:
            out[:, cells] = float(n)
        else:
            out[:, cells] = rng.multinomial(n, counts / n, size=size)
    return out


def _stratum_items(sample: Cells) -> list[np.ndarray]:
    """Per stratum, the cell of each of its items in input order: scipy's sample of that stratum."""
    item_cell = sample.item_cell if sample.item_cell is not None else np.repeat(np.arange(sample.k), sample.counts)
    if sample.stratum is None:
        return [item_cell]
    item_stratum = sample.stratum[item_cell]
    return [item_cell[item_stratum == s] for s in np.unique(sample.stratum)]


def _index_weights(k: int, item_cell: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """(rows, K) cell counts of resamples given as item indices into `item_cell` (scipy's representation)."""
    rows = indices.shape[0]
    if k <= 4:  # a few cells (0/1 outcomes): count matches per cell, 3-4x faster than bincount
        drawn = np.take(item_cell.astype(np.int8), indices)
        out = np.empty((rows, k))
        if k == 2:  # the cell-1 count is the row sum of 0/1 codes (int16 is exact: scipy's n is at most 2 million / B)
            total = drawn.sum(axis=1, dtype=np.int16 if indices.shape[1] < 2**15 else np.int64)
            out[:, 1] = total
            out[:, 0] = indices.shape[1] - total
            return out
        for cell in range(1, k):
            out[:, cell] = np.count_nonzero(drawn == cell, axis=1)
        out[:, 0] = indices.shape[1] - out[:, 1:].sum(axis=1)
        return out
    flat = item_cell[indices] + (np.arange(rows) * k)[:, None]
    return np.bincount(flat.ravel(), minlength=rows * k).reshape(rows, k).astype(np.float64)


# scipy's index draws depend only on the generator's state and the samples' sizes, never on their
# values, so metrics of equally many items from the same seed draw the same matrices (IPW and the
# MNAR bound of one condition, the resolver's four accuracies, the baselines' strategies). The last
# two sets are kept per thread and handed out again, with the generator moved on as drawing would.
_INDEX_DRAWS = threading.local()
_INDEX_DRAWS_KEPT = 2


def _scipy_indices(rng: np.random.Generator, sizes: list[list[int]], n_resamples: int) -> list[list[np.ndarray]]:
    """`rng.integers(0, size, (n_resamples, size))` for each stratum of each sample, in order."""
    cache = getattr(_INDEX_DRAWS, "entries", None)
    if cache is None:
        cache = _INDEX_DRAWS.entries = OrderedDict()
    key = (repr(rng.bit_generator.state), n_resamples, tuple(tuple(p) for p in sizes))
    hit = cache.get(key)
    if hit is not None:
        cache.move_to_end(key)
        indices, after = hit
        rng.bit_generator.state = after
        return indices
    indices = [[rng.integers(0, size, (n_resamples, size)) for size in p] for p in sizes]
    if n_resamples * sum(map(sum, sizes)) > SCIPY_STREAM_LIMIT:
        return indices  # a forced scipy stream on a large sample: not worth keeping
    cache[key] = (indices, rng.bit_generator.state)
    while len(cache) > _INDEX_DRAWS_KEPT:
        cache.popitem(last=False)
    return indices


def replicates_many(
    statistics: dict[str, Statistic],
    *samples: Cells,
    n_resamples: int,
    rng: np.random.Generator,
    stream: str = "auto",
) -> dict[str, np.ndarray]:
    """Bootstrap distributions of several statistics of the same samples from one set of draws (each
    equals what that statistic alone would get from the same seed: the draws come first)."""
    if stream not in ("auto", "scipy", "multinomial"):
        raise ValueError(f"stream must be 'auto', 'scipy' or 'multinomial', got {stream!r}")
    widest = max(s.k for s in samples)
    block = max(1, min(n_resamples, _MAX_BLOCK // max(widest, 1)))
    out = {name: np.empty(n_resamples) for name in statistics}

    def evaluate(start: int, stop: int, weights: list[np.ndarray]) -> None:
        for name, statistic in statistics.items():
            out[name][start:stop] = statistic(*weights)

    draws = n_resamples * sum(s.n for s in samples)
    if stream == "scipy" or (stream == "auto" and draws <= SCIPY_STREAM_LIMIT):
        # scipy's draw, in its order: each stratum of each sample is one of scipy's samples
        parts = [_stratum_items(s) for s in samples]
        indices = _scipy_indices(rng, [[len(items) for items in p] for p in parts], n_resamples)
        for start in range(0, n_resamples, block):
            stop = min(n_resamples, start + block)
            # a sum of arrays is an array (the stubs add sum()'s start value 0 to its type)
            weights = [
                cast(np.ndarray, sum(_index_weights(s.k, items, i[start:stop]) for items, i in zip(p, ind)))
                for s, p, ind in zip(samples, parts, indices)
            ]
            evaluate(start, stop, weights)
        return out
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        evaluate(start, start + size, [_multinomial_weights(s, size, rng) for s in samples])
    return out


def replicates(
    statistic: Statistic,
    *samples: Cells,
    n_resamples: int,
    rng: np.random.Generator,
    stream: str = "auto",
) -> np.ndarray:
    """The bootstrap distribution: each sample resampled independently, `n_resamples` times."""
    return replicates_many({"_": statistic}, *samples, n_resamples=n_resamples, rng=rng, stream=stream)["_"]


def _jackknife_acceleration(statistic: Statistic, samples: tuple[Cells, ...]) -> float:
    """scipy's multi-sample acceleration, with each distinct cell's leave-one-out value weighted by how
    many items share it (removing any of them gives the same statistic). Each stratum of a stratified
    sample is one of scipy's samples: its items are left out one at a time, its own n in the sums."""
    num = den = 0.0
    observed = [s.counts[None, :].astype(np.float64) for s in samples]
    for j, sample in enumerate(samples):
        if sample.n < 2:
            continue
        thetas = np.empty(sample.k)
        block = max(1, _MAX_BLOCK // max(sample.k, 1))
        for start in range(0, sample.k, block):
            stop = min(sample.k, start + block)
            rows = np.repeat(observed[j], stop - start, axis=0)
            rows[np.arange(stop - start), np.arange(start, stop)] -= 1.0
            weights = [np.repeat(o, stop - start, axis=0) for o in observed]
            weights[j] = rows
            thetas[start:stop] = statistic(*weights)
        for cells in sample.strata():
            ok = cells[~np.isnan(thetas[cells])]
            w = sample.counts[ok].astype(np.float64)
            nj = w.sum()
            if nj < 2:
                continue
            theta_dot = float((w * thetas[ok]).sum() / nj)
            u = (nj - 1.0) * (theta_dot - thetas[ok])
            num += float((w * u**3).sum()) / nj**3
            den += float((w * u**2).sum()) / nj**2
    if den <= 0.0 or not np.isfinite(den):
        return 0.0
    return num / (6.0 * den**1.5)


def bca_from_replicates(
    theta_hat: float,
    theta_b: np.ndarray,
    acceleration: float,
    *,
    confidence_level: float = DEFAULT_CONFIDENCE,
) -> tuple[float, float] | None:
    """The BCa interval from a bootstrap distribution and an acceleration (scipy's construction)."""
    theta_b = theta_b[~np.isnan(theta_b)]
    if theta_b.size == 0 or np.isnan(theta_hat):
        return None
    # a replicate equal to the estimate counts half (scipy's rule); "equal" allows for summation
    # rounding, since a replicate with the sample's own composition is computed in another order
    tie = np.abs(theta_b - theta_hat) <= 1e-12 * max(1.0, abs(theta_hat))
    below = 2 * np.count_nonzero((theta_b < theta_hat) & ~tie) + np.count_nonzero(tie)
    share = np.clip(below / (2.0 * theta_b.size), 1e-6, 1.0 - 1e-6)
    z0 = ndtri(share)
    z_alpha = ndtri((1.0 - confidence_level) / 2.0)
    levels = []
    for z in (z_alpha, -z_alpha):
        num = z0 + z
        levels.append(ndtr(z0 + num / (1.0 - acceleration * num)))
    lo, hi = np.quantile(theta_b, levels)
    return float(lo), float(hi)


def percentile_from_replicates(
    theta_b: np.ndarray, *, confidence_level: float = DEFAULT_CONFIDENCE
) -> tuple[float, float] | None:
    """The percentile interval (scipy's `method="percentile"`): the replicates' alpha/2 and
    1 - alpha/2 quantiles, linear interpolation; NaN replicates dropped."""
    theta_b = theta_b[~np.isnan(theta_b)]
    if theta_b.size == 0:
        return None
    alpha = (1.0 - confidence_level) / 2.0
    lo, hi = np.quantile(theta_b, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


#: Interval methods over the same replicates. BCa is the default (the paper's); a metric that is a
#: mean of absolute differences (the Mirror gap) takes the percentile interval, because BCa's bias
#: correction reads the bootstrap world's folding at |.| as a bias of the estimate (see the gap's card).
INTERVALS = ("BCa", "percentile")


def bca_intervals(
    statistics: dict[str, Statistic],
    *samples: Cells,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | np.random.Generator = DEFAULT_SEED,
    confidence_level: float = DEFAULT_CONFIDENCE,
    stream: str = "auto",
    interval: str = "BCa",
    theta_hat: dict[str, float] | None = None,
) -> dict[str, tuple[float, float] | None]:
    """BCa (or, with `interval="percentile"`, percentile) intervals of several statistics of the
    same samples, sharing one set of resamples. A sample of fewer than two units has no interval
    (None), not a zero-width one. `theta_hat`: the statistics' point values, if already computed."""
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {INTERVALS}, got {interval!r}")
    if not samples or any(s.n < 2 for s in samples):
        return {name: None for name in statistics}
    if theta_hat is None:
        theta_hat = {name: point(statistic, *samples) for name, statistic in statistics.items()}
    wanted = {name: st for name, st in statistics.items() if not np.isnan(theta_hat[name])}
    out: dict[str, tuple[float, float] | None] = {name: None for name in statistics}
    if not wanted:
        return out
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    theta_b = replicates_many(wanted, *samples, n_resamples=n_resamples, rng=rng, stream=stream)
    for name, statistic in wanted.items():
        if interval == "percentile":
            out[name] = percentile_from_replicates(theta_b[name], confidence_level=confidence_level)
            continue
        acceleration = _jackknife_acceleration(statistic, samples)
        out[name] = bca_from_replicates(theta_hat[name], theta_b[name], acceleration, confidence_level=confidence_level)
    return out


def bca_interval(
    statistic: Statistic,
    *samples: Cells,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | np.random.Generator = DEFAULT_SEED,
    confidence_level: float = DEFAULT_CONFIDENCE,
    stream: str = "auto",
) -> tuple[float, float] | None:
    """BCa interval of `statistic` over independent samples of cells; None when undefined (an empty
    sample, or a statistic undefined on the data)."""
    return bca_intervals(
        {"_": statistic}, *samples, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, stream=stream
    )["_"]


# ------------------------------------------------------------------------------------------------
# Building blocks for statistics of weight matrices
# ------------------------------------------------------------------------------------------------


def weighted_mean(values: np.ndarray) -> Statistic:
    """Mean of a per-cell value (NaN when the resample is empty)."""
    values = np.asarray(values, dtype=np.float64)

    def statistic(w: np.ndarray) -> np.ndarray:
        total = w.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (w @ values) / total

    return statistic


def group_sums(w: np.ndarray, group: np.ndarray, n_groups: int, values: np.ndarray | None = None) -> np.ndarray:
    """(B, G): per resample, the sum over cells of each group of weight (x value)."""
    onehot = np.zeros((len(group), n_groups))
    onehot[np.arange(len(group)), group] = 1.0 if values is None else values
    return w @ onehot


def bca_mean(
    values: ArrayLike,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | np.random.Generator = DEFAULT_SEED,
    confidence_level: float = DEFAULT_CONFIDENCE,
    stream: str = "auto",
) -> tuple[float, float] | None:
    """BCa interval of the mean of `values` (NaN entries dropped)."""
    x = np.asarray(values, dtype=np.float64)
    x = x[~np.isnan(x)]
    cells = Cells.of(x=x)
    return bca_interval(
        weighted_mean(cells["x"]), cells, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, stream=stream
    )


@dataclass(frozen=True)
class Bootstrap:
    """How a metric's CI is computed (defaults: the paper's 10,000 resamples, seed 42, 95%)."""

    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    confidence_level: float = DEFAULT_CONFIDENCE
    stream: str = "auto"  # "scipy" (scipy's own draws), "multinomial" (fast), "auto" (scipy while small)


CI = bool | Bootstrap  # a metric's `ci` keyword: False (point only), True (defaults) or a Bootstrap


def resolve_ci(ci: CI) -> Bootstrap | None:
    if ci is True:
        return Bootstrap()
    if ci is False or ci is None:
        return None
    if isinstance(ci, Bootstrap):
        return ci
    raise TypeError(f"ci must be True, False or a Bootstrap, got {ci!r}")
