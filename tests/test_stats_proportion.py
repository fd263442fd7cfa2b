"""Wilson, score-rate and Newcombe intervals against textbook values and
simulated coverage (seeded, so the coverage checks cannot flake)."""

import numpy as np
import pytest
from scipy.stats import norm

from pipelines.stats.proportion import difference, draw_share_given_score, score_rate, wilson
from pipelines.stats.tally import Tally


@pytest.mark.parametrize("k, n, low, high", [
    (81, 263, 0.2553, 0.3662),  # Newcombe 1998 (Stat Med 17:857), Table I, method 3
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_matches_newcombe_textbook_values(k, n, low, high):
    ci = wilson(k, n)
    assert (round(ci.low, 4), round(ci.high, 4)) == (low, high)
    assert ci.estimate == pytest.approx(k / n)


def test_wilson_at_other_levels_matches_the_closed_form():
    k, n, level = 17, 60, 0.8
    z = norm.ppf(0.9)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    ci = wilson(k, n, level)
    assert (ci.low, ci.high) == pytest.approx((centre - half, centre + half))
    assert wilson(k, n, 0.99).width > wilson(k, n, 0.95).width > ci.width


def _binomial_coverage(rng, p, n, reps, level=0.95):
    lookup = [wilson(k, n, level) for k in range(n + 1)]
    covered = np.array([ci.contains(p) for ci in lookup])
    return covered[rng.binomial(n, p, size=reps)].mean()


def test_wilson_95_percent_interval_covers_about_95_percent_of_simulated_binomials():
    rng = np.random.default_rng(20261129)
    coverages = [_binomial_coverage(rng, p, n, 4000)
                 for p in (0.1, 0.25, 0.4, 0.5, 0.7) for n in (40, 150, 600)]
    assert 0.935 <= np.mean(coverages) <= 0.965
    assert min(coverages) >= 0.91


def test_score_rate_interval_covers_about_95_percent_with_draws():
    rng = np.random.default_rng(7)
    coverages = []
    for p_win, p_draw in ((0.4, 0.3), (0.2, 0.6), (0.55, 0.1), (0.05, 0.2)):
        truth = p_win + p_draw / 2
        counts = rng.multinomial(300, [p_win, p_draw, 1 - p_win - p_draw], size=2000)
        covered = [score_rate(tuple(int(c) for c in row)).contains(truth) for row in counts]
        coverages.append(np.mean(covered))
    assert 0.93 <= np.mean(coverages) <= 0.97
    assert min(coverages) >= 0.91


def test_draws_make_the_score_interval_narrower_than_a_binomial_on_the_same_games():
    with_draws = score_rate(Tally.of(30, 40, 30))
    binomial = wilson(50, 100)
    assert with_draws.estimate == binomial.estimate == 0.5
    assert with_draws.width < binomial.width


def test_score_rate_without_draws_is_the_wilson_interval():
    ci, reference = score_rate((37, 0, 63)), wilson(37, 100)
    assert ci.estimate == reference.estimate
    assert (ci.low, ci.high) == pytest.approx((reference.low, reference.high), abs=1e-9)


def _exact_coverage(n, p_win, p_draw, level=0.95):
    """P(the interval contains the true score rate), summed over every outcome."""
    from scipy.stats import multinomial

    probs, truth, covered = (p_win, p_draw, 1 - p_win - p_draw), p_win + p_draw / 2, 0.0
    for wins in range(n + 1):
        for draws in range(n + 1 - wins):
            counts = (wins, draws, n - wins - draws)
            chance = multinomial.pmf(counts, n, probs)
            if chance > 1e-10:
                covered += chance * score_rate(counts, level).contains(truth)
    return covered


@pytest.mark.parametrize("n, p_win, p_draw", [(100, 0.02, 0.97), (30, 0.10, 0.85), (50, 0.90, 0.05), (40, 0.3, 0.5)])
def test_score_rate_covers_about_95_percent_even_when_draws_dominate(n, p_win, p_draw):
    # a variance read off the counts (Wilson on an effective n) covered 0.908, 0.932, 0.929 in the first three
    assert 0.935 <= _exact_coverage(n, p_win, p_draw) <= 0.99


def test_one_decisive_game_among_many_draws_does_not_collapse_the_interval():
    all_draws, one_win = score_rate((0, 1000, 0)), score_rate((1, 999, 0))
    assert all_draws.contains(0.5) and one_win.contains(0.5)
    assert one_win.width >= 0.8 * all_draws.width
    assert score_rate((0, 10, 0)).width > 0.05  # ten draws say little about the decisive games to come


def test_draw_share_given_score_is_the_profile_maximum():
    from scipy.optimize import minimize_scalar

    tally = Tally.of(12, 30, 8)
    for s in (0.3, 0.5, 0.55, 0.7):
        top = 2 * min(s, 1 - s)
        best = minimize_scalar(lambda t: -(12 * np.log(s - t / 2) + 30 * np.log(t) + 8 * np.log(1 - s - t / 2)),
                               bounds=(1e-12, top - 1e-12), method="bounded", options={"xatol": 1e-12})
        assert draw_share_given_score(tally, s) == pytest.approx(best.x, abs=1e-6)
    assert draw_share_given_score(Tally.of(tally.wins, tally.draws, tally.losses), tally.score) == pytest.approx(30 / 50)


def test_score_rate_at_a_clean_sweep_keeps_a_proper_interval():
    ci = score_rate((20, 0, 0))
    assert ci.estimate == 1.0 and ci.high == 1.0 and ci.low == pytest.approx(wilson(20, 20).low)
    assert ci.low < 0.9


@pytest.mark.parametrize("k1, n1, k2, n2, low, high", [
    (56, 70, 48, 80, 0.0524, 0.3339),  # Newcombe 1998 (Stat Med 17:873), Table II, method 10
    (9, 10, 3, 10, 0.1705, 0.8090),
    (6, 7, 2, 7, 0.0582, 0.8062),
    (5, 56, 0, 29, -0.0381, 0.1926),
    (10, 10, 0, 10, 0.6075, 1.0),
])
def test_newcombe_difference_matches_textbook_values(k1, n1, k2, n2, low, high):
    ci = difference(k1, n1, k2, n2)
    assert (round(ci.low, 4), round(ci.high, 4)) == (low, high)
    assert ci.estimate == pytest.approx(k1 / n1 - k2 / n2)


def test_newcombe_difference_covers_the_true_difference_about_95_percent():
    rng = np.random.default_rng(3)
    k1 = rng.binomial(120, 0.55, size=3000)
    k2 = rng.binomial(90, 0.45, size=3000)
    covered = np.mean([difference(a, 120, b, 90).contains(0.10) for a, b in zip(k1, k2)])
    assert 0.935 <= covered <= 0.965


@pytest.mark.parametrize("k, n", [(-1, 10), (11, 10), (0, 0)])
def test_impossible_counts_are_rejected(k, n):
    with pytest.raises(ValueError):
        wilson(k, n)


def test_confidence_level_outside_zero_one_is_rejected():
    with pytest.raises(ValueError, match="level"):
        wilson(3, 10, level=95)
