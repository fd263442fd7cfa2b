"""The fair komi of a score game, read from its board margins (no I/O).

Given the Black-minus-White board margins ``d`` of finished games (whole
numbers, as Polar's scores are), a komi ``k`` added to White's total makes
Black win the games with ``d > k``. For players whose moves do not depend on
the komi (random, greedy), that is exactly what a run at komi ``k`` gives:
the same boards, winners read with ``k``; for players that search for the
win (MCTS) it is a first estimate, to confirm with a run at that komi.

``fair_komi(values, counts, level)`` looks only at half-point komi (``m +
0.5``: no draws) and returns

- ``fair``: the komi whose Black win share is nearest one half (of the
  stretch of komi sharing that share, its middle, rounded to a half point;
  ties to the smaller komi);
- ``lo``, ``hi``: the smallest and largest komi at which an exact two-sided
  sign test does not reject a share of one half at ``1 - level`` (the
  distribution-free interval of the median margin, by test inversion); None
  where every komi beyond the observed margins is accepted too (too few
  games to bound that side);
- ``evens``: whether the test accepts one half at ``fair``. When it does not,
  one margin value holds so many games that no half-point komi splits them
  (on a full 9x9 board one group of 81 stones splits 41-40: a margin of
  T(41) in a quarter of greedy games), and ``lo = hi = fair``;
- ``black_wins`` / ``games``: Black's wins at ``fair``, for its interval.

The Black win share falls as the komi rises, so the accepted komi form one
stretch: ``lo <= fair <= hi`` (checked).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .proportion import sign_test_p


@dataclass(frozen=True)
class FairKomi:
    fair: float
    lo: float | None
    hi: float | None
    black_wins: int
    games: int
    evens: bool


def fair_komi(values, counts, level: float = 0.95) -> FairKomi:
    """See the module note. ``values``: distinct whole-number margins; ``counts``: games at each."""
    values = np.asarray(values, np.int64)
    counts = np.asarray(counts, np.int64)
    if values.ndim != 1 or values.shape != counts.shape or len(values) == 0:
        raise ValueError("need one count per margin value, and at least one value")
    if np.any(counts <= 0) or np.any(np.diff(values) <= 0):
        raise ValueError("margin values must be distinct and increasing, each with a positive count")
    n = int(counts.sum())
    # stretch j (0 .. m): komi from values[j-1] + 0.5 to values[j] - 0.5, Black wins those with d >= values[j]
    wins = np.append(np.cumsum(counts[::-1])[::-1], 0)
    first = np.concatenate(([-np.inf], values + 0.5))
    last = np.concatenate((values - 0.5, [np.inf]))
    gap = np.abs(wins - n / 2.0)
    j = int(np.flatnonzero(gap == gap.min())[0])  # of two equally near, the smaller komi
    fair = _stretch_komi(first[j], last[j])
    accepted = np.flatnonzero(sign_test_p(wins, np.full_like(wins, n)) >= 1.0 - level)
    if len(accepted) == 0:  # one margin value holds so many games that no half point splits them
        return FairKomi(fair, fair, fair, int(wins[j]), n, False)
    lo, hi = first[accepted[0]], last[accepted[-1]]
    if not lo <= fair <= hi:
        raise AssertionError(f"fair komi {fair} outside its accepted stretch [{lo}, {hi}]")
    return FairKomi(fair, None if math.isinf(lo) else float(lo), None if math.isinf(hi) else float(hi),
                    int(wins[j]), n, True)


def _stretch_komi(first: float, last: float) -> float:
    """A stretch's komi: the half point at its middle (ties down); an open stretch's finite end."""
    if math.isinf(first):
        return float(last)
    if math.isinf(last):
        return float(first)
    middle = (first + last) / 2.0
    return float(middle if middle % 1.0 == 0.5 else middle - 0.5)
