"""Ratings on the Elo scale: Bradley–Terry fits and Elo from a score rate.

Units: Elo points. Expected score of i against j is
E_ij = 1 / (1 + 10^(-(r_i - r_j) / 400)) = σ(c (r_i - r_j)), c = ln 10 / 400
(Elo 1978; the logistic Bradley–Terry model, Bradley & Terry 1952,
Biometrika 39:324, on a 400·log10 scale).

Input cross-table, ``n`` players: ``wins[i, j]`` = games player i won
against j, ``draws[i, j]`` = draws between them (symmetric), both ``[n, n]``
non-negative integer arrays with zero diagonals. Points of i against j:
S_ij = wins[i, j] + draws[i, j] / 2; games N_ij = wins[i, j] + wins[j, i] +
draws[i, j].

``bradley_terry`` steps:

1. Check the table; add ``prior_draws`` virtual draws between every pair
   (0 by default) — a weak pull towards equal ratings.
2. Existence: the maximum-likelihood ratings are finite iff the graph with
   an edge i -> j whenever S_ij > 0 is strongly connected (Ford 1957, Amer
   Math Monthly 64:28). Otherwise raise, suggesting ``prior_draws``.
3. Maximise the log-likelihood Σ_ij S_ij log E_ij by Newton's method with
   one rating held at 0 (the model only sees differences); then anchor: mean
   0, or the named player at 0.
4. Covariance from the observed Fisher information H (the Hessian of the
   negative log-likelihood, H_ii = c² Σ_j N_ij E_ij E_ji, H_ij = -c² N_ij
   E_ij E_ji): for the mean-0 anchor the Moore–Penrose inverse of H (whose
   null space is the constant vector), for a player anchor the inverse of H
   without that player's row and column. Intervals: r_i ± z·sqrt(cov_ii).

Draws: counted as half wins (the likelihood treats a draw as half a win and
half a loss), not the Davidson (1970, JASA 65:317) model. The ratings are
then the usual Elo performance ratings; because a draw varies less than a
half-win-half-loss coin, the Fisher information understates precision when
draws are common and the intervals are conservative (wider than needed).

``elo_from_score(tally)``: Elo difference -400 log10(1/s - 1) of a score rate
s, with the score-rate interval (``proportion.score_rate``) mapped through
this increasing function (±inf at s = 0 or 1). ``score_from_elo`` inverts it,
e.g. to state SPRT hypotheses in Elo.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import connected_components

from .interval import Interval, check_level, z_of
from .proportion import score_rate
from .tally import Tally

ELO_PER_NAT = 400.0 / np.log(10.0)  # Elo points per unit of natural log-odds
_NEWTON_STEPS = 100


@dataclass(frozen=True)
class Ratings:
    """Fitted ratings, anchored; ``cov`` [n, n] in Elo², ``elo`` [n]."""

    names: tuple[str, ...]
    elo: np.ndarray
    cov: np.ndarray
    anchor: str | None  # None = mean 0
    level: float

    def interval(self, player: str | int) -> Interval:
        i = player if isinstance(player, int) else self.names.index(player)
        half = z_of(self.level) * float(np.sqrt(max(self.cov[i, i], 0.0)))
        return Interval(float(self.elo[i]), float(self.elo[i] - half),
                        float(self.elo[i] + half), self.level)

    def difference(self, a: str | int, b: str | int) -> Interval:
        """r_a - r_b with its interval (uses the covariance)."""
        i = a if isinstance(a, int) else self.names.index(a)
        j = b if isinstance(b, int) else self.names.index(b)
        var = self.cov[i, i] + self.cov[j, j] - 2 * self.cov[i, j]
        d = float(self.elo[i] - self.elo[j])
        half = z_of(self.level) * float(np.sqrt(max(var, 0.0)))
        return Interval(d, d - half, d + half, self.level)


def check_cross_table(wins: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate the cross-table invariants and return float copies."""
    w, d = np.asarray(wins), np.asarray(draws)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or d.shape != w.shape or w.shape[0] < 2:
        raise ValueError("wins and draws must be [n, n] arrays, n >= 2")
    for name, a in (("wins", w), ("draws", d)):
        if not np.issubdtype(a.dtype, np.integer) or np.any(a < 0):
            raise ValueError(f"{name} must hold non-negative integer counts")
        if np.any(np.diag(a) != 0):
            raise ValueError(f"{name} must have a zero diagonal (no self-play)")
    if np.any(d != d.T):
        raise ValueError("draws must be symmetric: draws[i, j] == draws[j, i]")
    return w.astype(float), d.astype(float)


def expected_scores(elo: np.ndarray) -> np.ndarray:
    """E[i, j] = expected score of i against j, [n, n]."""
    return 1.0 / (1.0 + 10.0 ** (-(elo[:, None] - elo[None, :]) / 400.0))


def _information(elo: np.ndarray, games: np.ndarray) -> np.ndarray:
    """Observed Fisher information [n, n] of the ratings (per Elo²)."""
    e = expected_scores(elo)
    weight = games * e * e.T / ELO_PER_NAT**2
    return np.diag(weight.sum(axis=1)) - weight


def _gradient(elo: np.ndarray, points: np.ndarray, games: np.ndarray) -> np.ndarray:
    """d log-likelihood / d r_i = (Σ_j S_ij - N_ij E_ij) / ELO_PER_NAT."""
    return (points - games * expected_scores(elo)).sum(axis=1) / ELO_PER_NAT


def _newton(points: np.ndarray, games: np.ndarray) -> np.ndarray:
    n = points.shape[0]
    elo = np.zeros(n)
    for _ in range(_NEWTON_STEPS):
        step = np.zeros(n)
        step[1:] = np.linalg.solve(_information(elo, games)[1:, 1:],
                                   _gradient(elo, points, games)[1:])
        elo += step
        if np.max(np.abs(step)) < 1e-9:
            return elo
    raise RuntimeError("Bradley-Terry fit did not converge")


def bradley_terry(wins: np.ndarray, draws: np.ndarray, names: "list[str] | None" = None,
                  anchor: str | None = None, level: float = 0.95,
                  prior_draws: float = 0.0) -> Ratings:
    """Maximum-likelihood Bradley–Terry ratings (Elo scale) with covariance."""
    w, d = check_cross_table(wins, draws)
    n = w.shape[0]
    names = tuple(names) if names is not None else tuple(str(i) for i in range(n))
    if len(names) != n or len(set(names)) != n:
        raise ValueError("need one distinct name per player")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not a player")
    d = d + prior_draws * (1.0 - np.eye(n))
    points, games = w + d / 2, w + w.T + d
    n_parts, _ = connected_components(points > 0, directed=True, connection="strong")
    if n_parts > 1:
        raise ValueError("ratings are infinite: some players never scored against "
                         "a group of others; add games or pass prior_draws > 0")
    elo = _newton(points, games)
    info = _information(elo, games)
    if anchor is None:
        elo -= elo.mean()
        cov = np.linalg.pinv(info)
    else:
        a = names.index(anchor)
        elo -= elo[a]
        keep = np.arange(n) != a
        cov = np.zeros((n, n))
        cov[np.ix_(keep, keep)] = np.linalg.inv(info[np.ix_(keep, keep)])
    return Ratings(names, elo, cov, anchor, check_level(level))


def elo_of_score(s: float) -> float:
    """Elo difference of a score rate s in [0, 1]: -400 log10(1/s - 1)."""
    if not 0.0 <= s <= 1.0:
        raise ValueError(f"score rate must be in [0, 1], got {s}")
    if s in (0.0, 1.0):
        return -np.inf if s == 0.0 else np.inf
    return float(-400.0 * np.log10(1.0 / s - 1.0))


def score_from_elo(elo: float) -> float:
    """Expected score rate of an Elo difference."""
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def elo_from_score(tally: "Tally | tuple[int, int, int]", level: float = 0.95) -> Interval:
    """Elo difference of a (wins, draws, losses) result with its interval."""
    s = score_rate(tally, level)
    return Interval(elo_of_score(s.estimate), elo_of_score(s.low), elo_of_score(s.high), level)
