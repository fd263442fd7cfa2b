"""Confidence intervals for proportions and score rates.

- ``wilson(k, n, level)``: Wilson score interval for k successes of n
  (Wilson 1927, JASA 22:209; Newcombe 1998, Stat Med 17:857, method 3),
  computed by ``statsmodels.stats.proportion.proportion_confint``.
- ``score_rate(tally, level)``: interval for the score rate
  s = (W + D/2) / N of a trinomial (win 1, draw 1/2, loss 0). Design choice:
  Wilson on an *effective sample size* (Korn & Graubard 1998, Survey
  Methodology 24:193). The per-game variance under the trinomial is
  v = [W(1-s)^2 + D(1/2-s)^2 + L s^2] / N; a proportion with the same
  variance would have n_eff = N s(1-s) / v games, and the Wilson interval
  for s on n_eff games is returned. Draws lower v, so n_eff >= N and the
  interval is narrower than treating the score as a binomial on N. Unlike
  the plain normal interval it stays inside [0, 1] and does not collapse at
  s = 0 or 1. When v = 0 (all draws, or all wins/losses) n_eff falls back to
  N, i.e. the binomial Wilson interval (conservative).
- ``difference(k1, n1, k2, n2, level)``: p1 - p2 of two independent
  proportions with Newcombe's hybrid score interval (Newcombe 1998, Stat Med
  17:873, method 10), via ``statsmodels ... confint_proportions_2indep``.
"""

from __future__ import annotations

from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from .interval import Interval, check_level
from .tally import Tally, as_tally


def _check_k_of_n(k: float, n: float) -> None:
    if n <= 0:
        raise ValueError(f"need at least one trial, got n={n}")
    if not 0 <= k <= n:
        raise ValueError(f"successes must be in [0, n], got k={k}, n={n}")


def wilson(k: float, n: float, level: float = 0.95) -> Interval:
    """Wilson score interval for the proportion k / n (n may be fractional)."""
    _check_k_of_n(k, n)
    low, high = proportion_confint(k, n, alpha=1 - check_level(level), method="wilson")
    p = k / n
    return Interval(p, float(min(low, p)), float(max(high, p)), level)


def effective_games(tally: Tally) -> float:
    """N s(1-s) / v: games of a binomial with the same score variance."""
    s = tally.score
    variance = (tally.wins * (1 - s) ** 2 + tally.draws * (0.5 - s) ** 2
                + tally.losses * s**2) / tally.games
    if variance <= 0 or s in (0.0, 1.0):
        return float(tally.games)
    return tally.games * s * (1 - s) / variance


def score_rate(tally: Tally | tuple[int, int, int], level: float = 0.95) -> Interval:
    """Score rate (draws as half wins) with the effective-n Wilson interval."""
    tally = as_tally(tally)
    n_eff = effective_games(tally)
    return wilson(tally.score * n_eff, n_eff, level)


def difference(k1: int, n1: int, k2: int, n2: int, level: float = 0.95) -> Interval:
    """p1 - p2 of independent proportions, Newcombe's hybrid score interval."""
    _check_k_of_n(k1, n1)
    _check_k_of_n(k2, n2)
    low, high = confint_proportions_2indep(
        k1, n1, k2, n2, method="newcomb", compare="diff", alpha=1 - check_level(level))
    d = k1 / n1 - k2 / n2
    return Interval(d, float(min(low, d)), float(max(high, d)), level)
