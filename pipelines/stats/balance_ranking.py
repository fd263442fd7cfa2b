"""Which of several rule sets played on the same seeds is the most balanced,
and which cannot be told apart from it.

Input: ``seat0`` [n_cells, n_seeds], seat 0's score in game (cell c, seed
j): 1 win, 1/2 draw, 0 loss, NaN when the game is missing or failed. Every
cell plays the same seeds, so column j is one seed under every rule set.

Balance of cell c (two seats, as ``balance.balance``): B_c = 1 - |2 s_c - 1|
with s_c seat 0's mean score over the cell's games.

``balance_gaps(seat0, best, level, seed, n_boot)``: for every cell c, an
interval for the gap G_c = B_best - B_c, all of them holding together with
probability about ``level`` even though ``best`` is picked from the same
data. Design: simultaneous intervals for every pairwise difference
B_i - B_j by the paired bootstrap (Efron & Tibshirani 1993, "An
Introduction to the Bootstrap", ch. 13): resample the seeds with
replacement — the same resample for every cell, so the pairing of cells by
seed is kept — and recompute every B_c; the critical value q is the
``level`` quantile over replicates of max_{i,j} [(B*_i - B^_i) - (B*_j -
B^_j)] (Tukey's all-pairs comparison; Hsu 1996, "Multiple Comparisons:
Theory and Methods"; the bootstrap as its reference distribution), and each gap's
interval is G^_c ± q. Because the family covers every pair, it covers the
pairs of whichever cell the data make the best. (Bonferroni percentile
intervals around a data-chosen best, used before, ignored the winner's
curse: with 10 equally balanced cells at seat-0 score 0.6 some cell was
declared worse than the best in 15-18 % of sweeps; this rule: ~7 % (200
seeds; the bootstrap is an approximation, a little optimistic). A
studentized form, q se_ij, was tried and rejected: the chosen best sits
near the kink of |2 s - 1|, where the bootstrap understates its spread,
and it kept 11 %.) One q for every pair: cells of one sweep play the same
seeds and games of one kind, so their spreads are alike. A cell whose
interval reaches 0 cannot be told apart from the best. A resample that
draws none of a cell's games leaves that cell's B undefined (NaN) in that
replicate, not perfectly balanced; statistics skip it. The bootstrap draws
from ``numpy.random.default_rng(seed)``; the seed is required so the answer
is reproducible. Near perfect balance (the kink of |·| at s = 1/2) the
bootstrap is approximate and errs on the wide side.
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
    """B per cell for ``n_boot`` seed resamples, shape [n_boot, n_cells]; NaN
    where a resample holds none of that cell's games."""
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
        score = np.divide(weights @ values.T, games, out=np.full_like(games, np.nan), where=games > 0)
        out.append(1.0 - np.abs(2.0 * score - 1.0))
    return np.concatenate(out, axis=0)


def max_spread(boot: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """Per replicate, max_{i,j} (B*_i - B^_i) - (B*_j - B^_j): how far apart
    the replicate pulls any two cells (cells that are NaN in it skipped)."""
    dev = boot - estimate
    with np.errstate(invalid="ignore"):
        spread = np.nanmax(dev, axis=1) - np.nanmin(dev, axis=1)
    return np.nan_to_num(spread, nan=0.0)


def balance_gaps(seat0: np.ndarray, best: int, level: float = 0.95, seed: int = 0,
                 n_boot: int = 2000) -> list[Interval]:
    """Interval for B_best - B_c for every cell c (the best's own gap is 0),
    simultaneous over all pairs of cells (see the module docstring)."""
    x = _check(seat0)
    level = check_level(level)
    k = x.shape[0]
    if not 0 <= best < k:
        raise ValueError(f"best cell {best} is not one of the {k} cells")
    estimate = seat0_balance(x)
    q = float(np.quantile(max_spread(bootstrap_balances(x, seed, n_boot), estimate), level)) if k > 1 else 0.0
    out = []
    for c in range(k):
        g = float(estimate[best] - estimate[c])
        out.append(Interval(g, g - q, g + q, level) if c != best else Interval(0.0, 0.0, 0.0, level))
    return out
