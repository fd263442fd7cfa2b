"""Hypothesis tests for comparing two conditions, and multiplicity control.

Paired data come from running the same game seeds under two conditions
(physics A vs B, rule variant A vs B): seed i gives one outcome under each.
Outcome tables are ``[k, k]`` integer arrays, ``table[a, b]`` = number of
seeds whose outcome was category a under condition A and b under B. For
three-level outcomes the category order is (loss, draw, win) with scores
(0, 1/2, 1), as ``tally.TRINOMIAL_SCORES``.

- ``mcnemar(table)``: paired binary outcomes, ``[2, 2]`` table. Exact
  binomial test on the discordant pairs b, c when b + c < ``exact_below``
  (25 by default), else chi-square with continuity correction,
  (|b - c| - 1)^2 / (b + c) (McNemar 1947, Psychometrika 12:153; Edwards
  1948). Computed by ``statsmodels.stats.contingency_tables.mcnemar``.
- Three-level paired outcomes, two tests with different questions:
  * ``paired_score_difference(table)`` — *did the score move?* Per seed the
    score difference d = s_B - s_A in {-1, -1/2, 0, 1/2, 1}; the exact
    sign-flip test of mean d = 0 (Fisher's randomisation test: each seed's
    d as likely +|d| as -|d|), with a paired t interval for the mean
    (Student 1908, clipped to [-1, 1]); when every seed moved by the same d
    the t interval is undefined and an exact one replaces it
    (``_all_equal``). This is
    the 1-df test aimed at a shift in win rate (draws as half wins) and the
    fixed-sample counterpart of ``sprt.RegressionSPRT``. Chosen as the main
    three-level test: a shift in score is what designers ask about, and a
    1-df test has more power against it than a 2-df omnibus test.
  * ``stuart_maxwell(table)`` — *did the outcome mix change?* Marginal
    homogeneity of a ``[k, k]`` table, chi-square with k - 1 df (Stuart
    1955, Biometrika 42:412; Maxwell 1970, Br J Psychiatry 116:651), via
    ``statsmodels ... SquareTable.homogeneity``. Detects e.g. draws turning
    into equal numbers of wins and losses, which leaves the score unchanged.
    Categories with no discordant pairs carry no information and make the
    covariance singular; they are dropped first (df drops with them).
    With fewer than ``exact_below`` discordant pairs (25, as McNemar's) the
    p-value is exact, given the discordant pairs: under no change each is as
    likely (a, b) as (b, a), so each unordered pair of categories splits its
    m discordant seeds Binomial(m, 1/2), which leaves the statistic's
    covariance fixed; every split is enumerated (``_stuart_maxwell_exact``).
    On two categories this is McNemar's exact test; the chi-square p of 3
    seeds that all moved one way is 0.083, the exact one 0.25.
- ``mann_whitney(x, y)``: Mann–Whitney U (``scipy.stats.mannwhitneyu``,
  two-sided) for unpaired continuous outcomes (game length, margins), with
  the rank-biserial correlation r = 2 U_x / (n_x n_y) - 1 in [-1, 1]
  (Kerby 2014, Compr Psychol 3:11); r > 0 means x tends to exceed y.
- ``holm(pvalues, alpha)``: Holm's step-down correction (Holm 1979, Scand J
  Stat 6:65) via ``statsmodels.stats.multitest.multipletests``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps
from statsmodels.stats.contingency_tables import SquareTable
from statsmodels.stats.contingency_tables import mcnemar as _sm_mcnemar
from statsmodels.stats.multitest import multipletests

from .interval import Interval, check_level
from .tally import TRINOMIAL_SCORES


@dataclass(frozen=True)
class TestResult:
    """A test's statistic and two-sided p-value; ``effect`` when defined."""

    __test__ = False  # not a pytest class

    statistic: float
    pvalue: float
    method: str
    df: float | None = None
    effect: float | None = None


@dataclass(frozen=True)
class HolmResult:
    adjusted: np.ndarray  # [n_tests] Holm-adjusted p-values, input order
    reject: np.ndarray  # [n_tests] bool, reject at the family-wise alpha
    alpha: float


def _table(table: "np.ndarray | list", shape: tuple[int, ...] | None = None) -> np.ndarray:
    """A paired table of counts: square, non-negative integers, not empty."""
    t = np.asarray(table)
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(f"expected a square 2-D table, got shape {t.shape}")
    if shape is not None and t.shape != shape:
        raise ValueError(f"expected a table of shape {shape}, got {t.shape}")
    if not np.issubdtype(t.dtype, np.integer) or np.any(t < 0):
        raise ValueError("a contingency table holds non-negative integer counts")
    if t.sum() == 0:
        raise ValueError("the table is empty")
    return t.astype(np.int64)


def mcnemar(table: "np.ndarray | list", exact_below: int = 25) -> TestResult:
    """McNemar's test on a paired ``[2, 2]`` table (exact when few discordant)."""
    t = _table(table, shape=(2, 2))
    discordant = int(t[0, 1] + t[1, 0])
    if discordant == 0:
        return TestResult(0.0, 1.0, "mcnemar-exact", effect=0.0)
    exact = discordant < exact_below
    res = _sm_mcnemar(t, exact=exact, correction=True)
    method = "mcnemar-exact" if exact else "mcnemar-chi2-cc"
    effect = float(t[0, 1] - t[1, 0]) / float(t.sum())  # p(B=1) - p(A=1): rows A, columns B
    return TestResult(float(res.statistic), float(res.pvalue), method,
                      None if exact else 1.0, effect)


def score_differences(table: "np.ndarray | list") -> tuple[np.ndarray, np.ndarray]:
    """Values of d = s_B - s_A and their counts, from a ``[3, 3]`` table."""
    t = _table(table, shape=(3, 3))
    diff = TRINOMIAL_SCORES[None, :] - TRINOMIAL_SCORES[:, None]  # [a, b] -> s_b - s_a
    return diff.ravel(), t.ravel()


def sign_flip_pvalue(values: np.ndarray, counts: np.ndarray) -> float:
    """Two-sided exact p of the paired sign-flip (randomisation) test of
    sum d = 0: under no change each seed's d is as likely +|d| as -|d|.
    Score differences are 0, ±1/2 or ±1, so the null distribution of the sum
    is that of (2 K1 - c1) + 2 (2 K2 - c2) half points, K1 ~ Bin(c1, 1/2) over
    the c1 seeds that moved by 1/2 and K2 ~ Bin(c2, 1/2) over the c2 that moved
    by 1. Summed over K2 with K1's binomial tails, so its cost grows with c2
    alone, and seeds that did not move cost nothing: the test stays exact for
    any number of games."""
    half_points = np.rint(np.abs(values) * 2).astype(int)
    c1, c2 = int(counts[half_points == 1].sum()), int(counts[half_points == 2].sum())
    observed = abs(int(np.rint(2 * np.dot(values, counts))))
    if observed == 0:
        return 1.0
    k2 = np.arange(c2 + 1)
    rest = c1 - 2 * (2 * k2 - c2)  # 2 K1 must reach observed + rest, or fall to rest - observed
    upper = sps.binom.sf(np.ceil((observed + rest) / 2) - 1, c1, 0.5)
    lower = sps.binom.cdf(np.floor((rest - observed) / 2), c1, 0.5)
    return float(min(1.0, np.dot(sps.binom.pmf(k2, c2, 0.5), upper + lower)))


def paired_score_difference(table: "np.ndarray | list", level: float = 0.95) -> tuple[TestResult, Interval]:
    """Mean score difference (B - A) with its interval, and the test of 0:
    the exact sign-flip test, whatever the number of seeds. A t-test on a
    handful of discrete differences is far from its nominal size (4 seeds up
    by 1 and one by 1/2 gave p = 0.0008 against an exact 0.0625), and what
    decides that is how many seeds moved, not how many were played: polsim
    before 0.24.0 took the t-test beyond 200 seeds, where 4 of 201 seeds up
    by 1 gave p = 0.045 against an exact 0.125. The interval is the paired
    t's (with few seeds moved among many it can exclude 0 where the exact
    test does not reject: the verdict is the test's)."""
    values, counts = score_differences(table)
    n = int(counts.sum())
    mean = float(np.dot(values, counts) / n)
    if n < 2:
        raise ValueError("need at least two paired games")
    var = float(np.dot(counts, (values - mean) ** 2) / (n - 1))
    level = check_level(level)
    if var == 0.0:
        return _all_equal(mean, n, level)
    se = np.sqrt(var / n)
    t_stat = mean / se
    half = float(sps.t.ppf(0.5 + level / 2, n - 1) * se)
    ci = Interval(mean, max(-1.0, mean - half), min(1.0, mean + half), level)
    return TestResult(float(t_stat), sign_flip_pvalue(values, counts), "sign-flip-exact", None, mean), ci


def _all_equal(d: float, n: int, level: float) -> tuple[TestResult, Interval]:
    """Every seed's score moved by the same d: the t-test is undefined (no
    variance). The exact sign test on the n seeds instead (two-sided; all
    unchanged: p = 1; the sign-flip test's own answer here), and an interval
    that only trusts what was seen: the share q of seeds that move by d is at
    least the exact (Clopper-Pearson) lower bound (alpha/2)^(1/n) for n of n
    — Wilson's bound excluded 0 at n = 4 and 5, where the test cannot reject —
    and the rest may move anywhere in [-1, 1]."""
    p = 1.0 if d == 0.0 else float(sps.binomtest(n, n, 0.5).pvalue)
    q_lo = ((1.0 - level) / 2.0) ** (1.0 / n)
    ci = Interval(d, q_lo * d - (1.0 - q_lo), q_lo * d + (1.0 - q_lo), level)
    return TestResult(float(n) if d else 0.0, p, "sign-exact" if d else "sign-flip-exact", None, d), ci


def stuart_maxwell(table: "np.ndarray | list", exact_below: int = 25) -> TestResult:
    """Stuart–Maxwell marginal homogeneity test on a paired ``[k, k]`` table
    (exact when fewer than ``exact_below`` seeds are discordant)."""
    t = _table(table)
    off = t - np.diag(np.diag(t))
    informative = (off.sum(axis=0) + off.sum(axis=1)) > 0
    reduced = t[np.ix_(informative, informative)]
    if reduced.shape[0] < 2:
        return TestResult(0.0, 1.0, "stuart-maxwell", 0.0)
    res = SquareTable(reduced, shift_zeros=False).homogeneity(method="stuart_maxwell")
    df = float(res.df)
    if off.sum() < exact_below:
        return TestResult(float(res.statistic), _stuart_maxwell_exact(reduced), "stuart-maxwell-exact", df)
    # chi2.sf, not statsmodels' 1 - cdf, which rounds any p below ~1e-16 to 0
    return TestResult(float(res.statistic), float(sps.chi2.sf(res.statistic, df)), "stuart-maxwell", df)


def _stuart_maxwell_exact(t: np.ndarray) -> float:
    """P(statistic >= observed) over every split of each unordered category pair's
    discordant seeds, each Binomial(m, 1/2) (the discordant counts given)."""
    k = t.shape[0]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k) if t[i, j] + t[j, i] > 0]
    m = np.array([t[i, j] + t[j, i] for i, j in pairs])
    cov = np.zeros((k, k))
    for (i, j), mm in zip(pairs, m):
        cov[[i, j], [i, j]] += mm
        cov[[i, j], [j, i]] -= mm
    inverse = np.linalg.inv(cov[:-1, :-1])

    def statistic(splits: np.ndarray) -> np.ndarray:     # splits[:, p] = seeds (i, j) of pair p
        d = np.zeros((len(splits), k))
        for p, (i, j) in enumerate(pairs):
            moved = 2 * splits[:, p] - m[p]
            d[:, i] += moved
            d[:, j] -= moved
        return np.einsum("ni,ij,nj->n", d[:, :-1], inverse, d[:, :-1])

    splits = np.stack([g.ravel() for g in np.meshgrid(*(np.arange(mm + 1) for mm in m), indexing="ij")], axis=1)
    prob = np.prod([sps.binom.pmf(splits[:, p], m[p], 0.5) for p in range(len(pairs))], axis=0)
    observed = statistic(np.array([[t[i, j] for i, j in pairs]]))[0]
    return float(min(1.0, prob[statistic(splits) >= observed * (1 - 1e-9) - 1e-12].sum()))


def mann_whitney(x: "np.ndarray | list", y: "np.ndarray | list") -> TestResult:
    """Two-sided Mann–Whitney U of x vs y; effect = rank-biserial correlation.
    With few games (at most ``EXACT_MAX_SPLITS`` ways to split them) the
    p-value is the exact permutation one: scipy's normal approximation with
    ties was too small there (5 + 5 games: 0.0056 against an exact 0.0079)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.size == 0 or y.size == 0 or np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("both samples must be non-empty and free of NaN")
    res = sps.mannwhitneyu(x, y, alternative="two-sided")
    r = 2.0 * float(res.statistic) / (x.size * y.size) - 1.0
    if math.comb(x.size + y.size, x.size) <= EXACT_MAX_SPLITS:  # few games: every split, ties and all
        return TestResult(float(res.statistic), _exact_u_pvalue(x, y), "mann-whitney-u-exact", effect=r)
    return TestResult(float(res.statistic), float(res.pvalue), "mann-whitney-u", effect=r)


EXACT_MAX_SPLITS = 20_000  # ways to split the games into the two runs: up to 8 + 8 games, or 5 + 15


def _exact_u_pvalue(x: np.ndarray, y: np.ndarray) -> float:
    """Two-sided exact permutation p of U over every split of the pooled games
    into groups of x's and y's sizes (twice the smaller tail, at most 1, as
    ``scipy.stats.permutation_test`` reads two-sided; it refuses a group of
    one game, which this does not). U of a split is its x ranks' sum less
    n_x (n_x + 1) / 2, with mid-ranks for ties: ties count 1/2."""
    ranks = sps.rankdata(np.concatenate([x, y]))
    splits = np.array(list(itertools.combinations(range(ranks.size), x.size)))
    u = ranks[splits].sum(axis=1) - x.size * (x.size + 1) / 2
    observed = ranks[: x.size].sum() - x.size * (x.size + 1) / 2
    slack = 1e-9 * max(1.0, observed)
    tails = np.mean(u <= observed + slack), np.mean(u >= observed - slack)
    return float(min(1.0, 2.0 * min(tails)))


def holm(pvalues: "np.ndarray | list[float]", alpha: float = 0.05) -> HolmResult:
    """Holm step-down adjusted p-values and reject flags at family-wise alpha."""
    p = np.asarray(pvalues, dtype=float)
    if p.ndim != 1 or p.size == 0 or np.any((p < 0) | (p > 1)) or np.isnan(p).any():
        raise ValueError("p-values must be a non-empty 1-D array in [0, 1]")
    reject, adjusted, _, _ = multipletests(p, alpha=alpha, method="holm")
    return HolmResult(adjusted, reject, alpha)
