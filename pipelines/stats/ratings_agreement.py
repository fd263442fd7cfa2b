"""Do several cross-tables share one set of ratings? A likelihood-ratio test.

Input: one cross-table ``(wins, draws)`` per group (a run seed, say), all
``[n, n]`` over the same players and with the invariants of
``ratings.check_cross_table``; a player may have no games in some group.

H0: every group's results follow one set of Bradley–Terry ratings
(``ratings.bradley_terry`` on the summed table). H1: each group has its own.
With ℓ(r; S, N) = Σ_ij S_ij log E_ij(r), the Bradley–Terry log-likelihood
(draws as half points, as in ``ratings``):

    LR = 2 (Σ_g ℓ(r̂_g; group g) - Σ_g ℓ(r̂_pooled; group g))

is asymptotically χ² with df = Σ_g (n_g - c_g) - (n - c) (Wilks 1938): n_g
players with games in group g falling into c_g groups linked by games, and
n, c the same for the summed table — the free rating differences of each
model.

``same_ratings(tables)`` returns ``Agreement(statistic, df, p)``, or an
``Agreement`` with ``p = None`` and the reason when there is no test:

- df = 0: separate ratings are no freer than pooled ones (two runs of
  different matchups sharing one player, A–B and B–C, say);
- some group's own ratings are infinite (a player that never scored against
  the others within it, ``ratings`` step 2): its likelihood has no maximum.

Draws counted as half points vary less than the binomial the likelihood
assumes, so with many draws the statistic is too small and the test
conservative, like the intervals of ``ratings``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import connected_components
from scipy.stats import chi2

from .ratings import bradley_terry, check_cross_table, expected_scores


@dataclass(frozen=True)
class Agreement:
    statistic: float | None
    df: int
    p: float | None
    reason: str = ""  # why there is no test, when p is None
    group: int | None = None  # the group whose own ratings are infinite, when that is the reason


def log_likelihood(elo: np.ndarray, wins: np.ndarray, draws: np.ndarray) -> float:
    """Σ_ij S_ij log E_ij of the ratings ``elo`` [n] (Elo) on one cross-table."""
    w, d = check_cross_table(wins, draws)
    points = w + d / 2
    played = points > 0
    return float(np.sum(points[played] * np.log(expected_scores(np.asarray(elo, dtype=float))[played])))


def _parts(games: np.ndarray) -> list[np.ndarray]:
    """Index arrays of the players linked by games (players without games left out)."""
    active = np.flatnonzero(games.sum(axis=1) > 0)
    count, label = connected_components(games[np.ix_(active, active)] > 0, directed=False)
    return [active[label == c] for c in range(count)]


def _best(wins: np.ndarray, draws: np.ndarray) -> tuple[float, int] | None:
    """(maximum log-likelihood, free rating differences) of one table; None when a maximum does not exist."""
    games = wins + wins.T + draws
    total, free = 0.0, 0
    for part in _parts(games):
        free += len(part) - 1
        if len(part) < 2:
            continue
        w, d = wins[np.ix_(part, part)], draws[np.ix_(part, part)]
        try:
            fit = bradley_terry(w, d)
        except ValueError:
            return None
        total += log_likelihood(fit.elo, w, d)
    return total, free


def same_ratings(tables: Sequence[tuple[np.ndarray, np.ndarray]]) -> Agreement:
    """Likelihood-ratio test of one set of ratings for every group's cross-table."""
    if len(tables) < 2:
        raise ValueError("need the cross-tables of at least two groups")
    checked = [tuple(np.asarray(a, dtype=np.int64) for a in t) for t in tables]
    for wins, draws in checked:
        check_cross_table(wins, draws)
    if len({w.shape for w, _ in checked}) > 1:
        raise ValueError("every group's cross-table must cover the same players")
    pooled_wins = sum(w for w, _ in checked)
    pooled_draws = sum(d for _, d in checked)
    pooled = _best(pooled_wins, pooled_draws)
    separate = [_best(w, d) for w, d in checked]
    if pooled is None or any(s is None for s in separate):
        which = [g for g, s in enumerate(separate) if s is None]
        where = f"group {which[0]}" if which else "the pooled table"
        return Agreement(None, 0, None, f"ratings in {where} are infinite (a player never scored against the others)",
                         which[0] if which else None)
    df = sum(s[1] for s in separate) - pooled[1]
    if df == 0:
        return Agreement(None, 0, None, "separate ratings are no freer than pooled ones: the groups share no comparison")
    statistic = max(2.0 * (sum(s[0] for s in separate) - pooled[0]), 0.0)
    return Agreement(statistic, df, float(chi2.sf(statistic, df)))
