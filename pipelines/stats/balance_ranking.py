"""Which of several rule sets played on the same seeds is the most balanced,
and which cannot be told apart from it.

Input: ``seat0`` [n_cells, n_seeds], seat 0's score in game (cell c, seed
j): 1 win, 1/2 draw, 0 loss, NaN when the game is missing or failed. Every
cell plays the same seeds, so column j is one seed under every rule set.

Balance of cell c (two seats, as ``balance.balance``): B_c = 1 - |2 s_c - 1|
with s_c seat 0's mean score over the cell's games.

``balance_gaps(seat0, best, level, seed, n_boot)``: for every cell c, an
interval for the gap G_c = B_best - B_c by the paired percentile bootstrap
(Efron & Tibshirani 1993, "An Introduction to the Bootstrap", ch. 13):
resample the seeds with replacement — the same resample for every cell, so
the pairing of cells by seed is kept — and recompute every B_c. The k - 1
comparisons are Bonferroni-corrected: each interval has level
1 - (1 - ``level``) / (k - 1), so all hold together with probability at
least ``level``. A cell whose interval reaches 0 cannot be told apart from
the best. The bootstrap draws from ``numpy.random.default_rng(seed)``; the
seed is required so the answer is reproducible. Percentile intervals of a
quantity with a kink (|·| at s = 1/2) are approximate near perfect balance.
"""

from __future__ import annotations

import numpy as np

from .interval import Interval, check_level

_CHUNK = 500  # bootstrap replicates per matrix product: [chunk, n_seeds] weights


def seat0_balance(seat0: np.ndarray) -> np.ndarray:
    """B per cell [n_cells] of seat-0 scores [n_cells, n_seeds] (NaN = missing)."""
    return 1.0 - np.abs(2.0 * np.nanmean(seat0, axis=1) - 1.0)


def _check(seat0: np.ndarray) -> np.ndarray:
    x = np.asarray(seat0, dtype=float)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError("seat0 scores are [n_cells, n_seeds]")
    finite = x[~np.isnan(x)]
    if np.any((finite != 0) & (finite != 0.5) & (finite != 1)):
        raise ValueError("seat-0 scores are 0, 1/2 or 1 (NaN for a missing game)")
    if np.any(np.all(np.isnan(x), axis=1)):
        raise ValueError("a cell has no games")
    return x


def bootstrap_balances(seat0: np.ndarray, seed: int, n_boot: int = 2000) -> np.ndarray:
    """B per cell for ``n_boot`` seed resamples, shape [n_boot, n_cells]."""
    x = _check(seat0)
    present = ~np.isnan(x)
    values = np.where(present, x, 0.0)
    n_seeds = x.shape[1]
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, n_boot, _CHUNK):
        size = min(_CHUNK, n_boot - start)
        weights = rng.multinomial(n_seeds, np.full(n_seeds, 1.0 / n_seeds), size=size).astype(float)
        games = weights @ present.T.astype(float)  # [size, n_cells]
        score = np.divide(weights @ values.T, games, out=np.full_like(games, 0.5), where=games > 0)
        out.append(1.0 - np.abs(2.0 * score - 1.0))
    return np.concatenate(out, axis=0)


def balance_gaps(seat0: np.ndarray, best: int, level: float = 0.95, seed: int = 0,
                 n_boot: int = 2000) -> list[Interval]:
    """Interval for B_best - B_c for every cell c (the best's own gap is 0)."""
    x = _check(seat0)
    level = check_level(level)
    k = x.shape[0]
    if not 0 <= best < k:
        raise ValueError(f"best cell {best} is not one of the {k} cells")
    estimate = seat0_balance(x)
    each = 1.0 - (1.0 - level) / max(k - 1, 1)
    boot = bootstrap_balances(x, seed, n_boot)
    gaps = boot[:, [best]] - boot  # [n_boot, n_cells]
    tail = (1.0 - each) / 2
    low, high = np.quantile(gaps, [tail, 1 - tail], axis=0)
    out = []
    for c in range(k):
        g = float(estimate[best] - estimate[c])
        out.append(Interval(g, min(float(low[c]), g), max(float(high[c]), g), each) if c != best
                   else Interval(0.0, 0.0, 0.0, each))
    return out
