"""Confidence intervals for proportions and score rates.

- ``wilson(k, n, level)``: Wilson score interval for k successes of n
  (Wilson 1927, JASA 22:209; Newcombe 1998, Stat Med 17:857, method 3),
  computed by ``statsmodels.stats.proportion.proportion_confint``.
- ``score_rate(tally, level)``: interval for the score rate
  s = (W + D/2) / N of a trinomial (win 1, draw 1/2, loss 0): the score
  (Wilson-type) interval of the trinomial mean, {s : (s_hat - s)^2 <=
  z^2 v(s) / N}, where v(s) is the per-game variance of the trinomial that
  is most likely given the counts among those whose mean is s (the profile
  maximum; ``draw_share_given_score``, closed form). Without draws it is
  exactly Wilson's interval. Design choice: the variance is taken at the
  candidate s, not at the observed counts. A plug-in variance (Wilson on an
  effective sample size N s(1-s)/v_hat, used before) collapses when draws
  dominate: 1 win and 999 draws gave [0.4995, 0.5015], 30x narrower than
  1,000 draws, and nominal 95 % intervals covered 0.91 at 97 % draws (N =
  100, 200). This one covered 0.937-0.987 over 19 win/draw/loss mixes from
  N = 10 to 500, by exact enumeration (the lowest with no draws, where it is
  Wilson's own; draw-heavy mixes err on the wide side), and has the plug-in
  interval's width, within 2 %, where draws are not extreme.
- ``sign_test_p(wins, decided)``: the exact two-sided sign test against 1/2,
  vectorised over rows.
- ``difference(k1, n1, k2, n2, level)``: p1 - p2 of two independent
  proportions with Newcombe's hybrid score interval (Newcombe 1998, Stat Med
  17:873, method 10), via ``statsmodels ... confint_proportions_2indep``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import binom, norm
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


def draw_share_given_score(tally: Tally, s: float) -> float:
    """The draw probability t of the most likely trinomial, given the counts,
    among those with mean score s (win s - t/2, draw t, loss 1 - s - t/2).
    Setting the derivative of W log(s - t/2) + D log t + L log(1 - s - t/2)
    to zero gives N t^2 - 2 B t + 4 s (1-s) D = 0 with B = D + (1-s) W + s L;
    the smaller root is the maximum, kept within the feasible [0, 2 min(s, 1-s)]."""
    n, a, b = tally.games, s, 1.0 - s
    big_b = tally.draws + b * tally.wins + a * tally.losses
    t = (big_b - math.sqrt(max(big_b * big_b - 4.0 * a * b * tally.draws * n, 0.0))) / n
    return min(max(t, 0.0), 2.0 * min(a, b))


def score_rate(tally: Tally | tuple[int, int, int], level: float = 0.95) -> Interval:
    """Score rate (draws as half wins) with the trinomial score interval."""
    tally = as_tally(tally)
    if tally.games <= 0:
        raise ValueError("need at least one game for a score rate")
    z2 = norm.ppf(0.5 + check_level(level) / 2) ** 2
    s_hat, n = tally.score, tally.games

    def inside(s: float) -> bool:
        variance = s * (1.0 - s) - draw_share_given_score(tally, s) / 4.0
        return n * (s_hat - s) ** 2 <= z2 * max(variance, 0.0)

    # the interval holds s_hat; bisect each way to where it ends (60 halvings: below 1e-18)
    low, high = (0.0, s_hat), (s_hat, 1.0)
    for _ in range(60):
        mid = 0.5 * (low[0] + low[1])
        low = (low[0], mid) if inside(mid) else (mid, low[1])
        mid = 0.5 * (high[0] + high[1])
        high = (mid, high[1]) if inside(mid) else (high[0], mid)
    low = 0.0 if inside(0.0) else low[1]
    high = 1.0 if inside(1.0) else high[0]
    return Interval(s_hat, float(min(low, s_hat)), float(max(high, s_hat)), level)


def difference(k1: int, n1: int, k2: int, n2: int, level: float = 0.95) -> Interval:
    """p1 - p2 of independent proportions, Newcombe's hybrid score interval."""
    _check_k_of_n(k1, n1)
    _check_k_of_n(k2, n2)
    low, high = confint_proportions_2indep(
        k1, n1, k2, n2, method="newcomb", compare="diff", alpha=1 - check_level(level))
    d = k1 / n1 - k2 / n2
    return Interval(d, float(min(low, d)), float(max(high, d)), level)


def sign_test_p(wins, decided) -> np.ndarray:
    """Two-sided exact sign test of ``wins`` of ``decided`` games against 1/2, vectorised
    (scipy's ``binomtest`` one row at a time: the same p, as the distribution is symmetric); 1 with no game."""
    wins, decided = np.asarray(wins), np.asarray(decided)
    tail = binom.cdf(np.minimum(wins, decided - wins), decided, 0.5)
    return np.where(decided > 0, np.minimum(1.0, 2.0 * tail), 1.0)
