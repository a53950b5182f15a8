"""Spearman's rho of weighted cells: average ranks of tied blocks, then Pearson of the ranks.

With integer weights this is exactly `scipy.stats.spearmanr` on the expanded sample (every item of a
tied block gets the block's average rank), so MCI and TII can be bootstrapped through cell counts.
"""

from __future__ import annotations

import numpy as np


def level_codes(x: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes 0..L-1 in increasing order of value (NaN -> -1) and L."""
    codes = np.full(len(x), -1, dtype=np.int64)
    ok = ~np.isnan(x)
    if not ok.any():
        return codes, 0
    levels, inverse = np.unique(x[ok], return_inverse=True)
    codes[ok] = inverse.reshape(-1)
    return codes, len(levels)


class PairTables:
    """For several (x, y) code pairs over the same cells, the contingency tables of a weight matrix,
    computed with one matrix product for all pairs, and their Spearman rhos (`spearman`)."""

    def __init__(self, pairs: list[tuple[np.ndarray, int, np.ndarray, int]]):
        self.shapes: list[tuple[int, int, int]] = []  # (Lx, Ly, first column): each pair's block, laid out once
        blocks = []
        start = 0
        for x, lx, y, ly in pairs:
            k = len(x)
            onehot = np.zeros((k, max(lx * ly, 1)), dtype=np.float32)
            ok = (x >= 0) & (y >= 0)
            onehot[np.flatnonzero(ok), x[ok] * ly + y[ok]] = 1.0
            blocks.append(onehot)
            self.shapes.append((lx, ly, start))
            start += onehot.shape[1]
        self.onehot = np.concatenate(blocks, axis=1) if blocks else np.zeros((0, 0))

    def _flat(self, w: np.ndarray) -> np.ndarray:
        # float32 is exact here: weights are counts, and no table cell exceeds the sample size
        return w.astype(np.float32) @ self.onehot

    def tables(self, w: np.ndarray) -> list[np.ndarray]:
        """(B, Lx, Ly) per pair."""
        flat = self._flat(w)
        return [
            flat[:, start : start + lx * ly].reshape(-1, lx, ly) if lx and ly else np.zeros((len(w), 0, 0))
            for lx, ly, start in self.shapes
        ]

    def spearman(self, w: np.ndarray, min_n: int = 2) -> np.ndarray:
        """(B, pairs) Spearman rho of each pair's table (`spearman_from_table`). The tables are laid
        out levels-first, (Lx, Ly, B), so every step below runs along the contiguous replicates."""
        flat = np.ascontiguousarray(self._flat(w).T)
        out = np.empty((len(w), len(self.shapes)))
        for j, (lx, ly, start) in enumerate(self.shapes):
            out[:, j] = _spearman_levels_first(flat[start : start + lx * ly].reshape(lx, ly, -1), min_n) if lx and ly else np.nan
        return out


def _average_ranks(counts: np.ndarray, axis: int = 1) -> np.ndarray:
    """Block sizes in increasing value order along `axis` -> each block's average rank (1-based)."""
    return np.cumsum(counts, axis=axis) - counts + (counts + 1.0) / 2.0


def _spearman_levels_first(table: np.ndarray, min_n: int) -> np.ndarray:
    """`spearman_from_table` of (Lx, Ly, B) tables.

    Weights are counts, so every sum here is exact whatever its order (table cells below 2**24, so
    exact in float32; ranks are half-integers and their products with counts multiples of 1/4 far
    below 2**50): the marginals are summed in the table's own dtype, the cross term in two steps."""
    nx = table.sum(axis=1).astype(np.float64)
    ny = table.sum(axis=0).astype(np.float64)
    n = nx.sum(axis=0)
    mid = (n + 1.0) / 2.0
    dx = _average_ranks(nx, axis=0) - mid
    dy = _average_ranks(ny, axis=0) - mid
    sxy = ((table * dy[None, :, :]).sum(axis=1) * dx).sum(axis=0)
    sxx = (nx * dx**2).sum(axis=0)
    syy = (ny * dy**2).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = sxy / np.sqrt(sxx * syy)
    degenerate = (n < min_n) | (sxx <= 1e-12 * np.maximum(n, 1) ** 3) | (syy <= 1e-12 * np.maximum(n, 1) ** 3)
    rho = np.where(degenerate, np.nan, rho)
    return np.clip(rho, -1.0, 1.0)


def spearman_from_table(table: np.ndarray, min_n: int = 2) -> np.ndarray:
    """(B, Lx, Ly) weighted contingency tables -> (B,) Spearman rho; NaN when fewer than `min_n`
    items or a side is constant (no variance in ranks)."""
    if table.size == 0:
        return np.full(table.shape[0], np.nan)
    return _spearman_levels_first(np.moveaxis(table, 0, -1), min_n)
