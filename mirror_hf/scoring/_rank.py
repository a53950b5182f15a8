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
    """For several (x, y) code pairs over the same cells, the (B, Lx, Ly) contingency tables of a
    weight matrix, computed with one matrix product for all pairs."""

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

    def tables(self, w: np.ndarray) -> list[np.ndarray]:
        # float32 is exact here: weights are counts, and no table cell exceeds the sample size
        flat = w.astype(np.float32) @ self.onehot
        return [
            flat[:, start : start + lx * ly].reshape(-1, lx, ly) if lx and ly else np.zeros((len(w), 0, 0))
            for lx, ly, start in self.shapes
        ]


def _average_ranks(counts: np.ndarray) -> np.ndarray:
    """(B, L) block sizes in increasing value order -> each block's average rank (1-based)."""
    return np.cumsum(counts, axis=1) - counts + (counts + 1.0) / 2.0


def spearman_from_table(table: np.ndarray, min_n: int = 2) -> np.ndarray:
    """(B, Lx, Ly) weighted contingency tables -> (B,) Spearman rho; NaN when fewer than `min_n`
    items or a side is constant (no variance in ranks)."""
    if table.size == 0:
        return np.full(table.shape[0], np.nan)
    nx = table.sum(axis=2, dtype=np.float64)
    ny = table.sum(axis=1, dtype=np.float64)
    n = nx.sum(axis=1)
    mid = (n + 1.0) / 2.0
    dx = _average_ranks(nx) - mid[:, None]
    dy = _average_ranks(ny) - mid[:, None]
    sxy = np.einsum("bij,bi,bj->b", table, dx, dy)
    sxx = (nx * dx**2).sum(axis=1)
    syy = (ny * dy**2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = sxy / np.sqrt(sxx * syy)
    degenerate = (n < min_n) | (sxx <= 1e-12 * np.maximum(n, 1) ** 3) | (syy <= 1e-12 * np.maximum(n, 1) ** 3)
    rho = np.where(degenerate, np.nan, rho)
    return np.clip(rho, -1.0, 1.0)
