"""Likelihood-ratio test that several cross-tables share one set of ratings."""

import numpy as np
import pytest

from pipelines.stats.ratings import bradley_terry
from pipelines.stats.ratings_agreement import log_likelihood, same_ratings
from tests.test_stats_ratings import TRUE, round_robin


def test_identical_groups_agree_perfectly():
    table = round_robin(np.random.default_rng(1), TRUE, 100)
    result = same_ratings([table, table])
    assert result.statistic == pytest.approx(0.0, abs=1e-8) and result.p == pytest.approx(1.0)
    assert result.df == len(TRUE) - 1


def test_groups_drawn_from_one_set_of_ratings_reject_at_about_the_nominal_rate():
    rng = np.random.default_rng(2)
    ps = np.array([same_ratings([round_robin(rng, TRUE, 60, draw_rate=0.0) for _ in range(2)]).p
                   for _ in range(400)])
    assert 0.02 <= np.mean(ps < 0.05) <= 0.09
    assert 0.4 <= np.mean(ps < 0.5) <= 0.6  # p-values spread evenly, not piled at one end


def test_a_player_stronger_in_one_group_is_detected():
    rng = np.random.default_rng(3)
    shifted = TRUE.copy()
    shifted[0] += 250
    result = same_ratings([round_robin(rng, TRUE, 100), round_robin(rng, shifted, 100)])
    assert result.p < 1e-4


def test_the_statistic_is_twice_the_log_likelihood_gained_by_separate_ratings():
    rng = np.random.default_rng(4)
    a, b = round_robin(rng, TRUE, 80), round_robin(rng, TRUE[::-1], 80)
    pooled = bradley_terry(a[0] + b[0], a[1] + b[1])
    own = [bradley_terry(*t) for t in (a, b)]
    gained = sum(log_likelihood(r.elo, *t) for r, t in zip(own, (a, b))) - \
        sum(log_likelihood(pooled.elo, *t) for t in (a, b))
    assert same_ratings([a, b]).statistic == pytest.approx(2 * gained)


def chain(pairs, n=3, games=40, wins_first=25):
    """One group per (i, j): i beat j ``wins_first`` of ``games`` times."""
    tables = []
    for i, j in pairs:
        wins = np.zeros((n, n), dtype=np.int64)
        wins[i, j], wins[j, i] = wins_first, games - wins_first
        tables.append((wins, np.zeros((n, n), dtype=np.int64)))
    return tables


def test_groups_that_share_no_comparison_have_no_test():
    result = same_ratings(chain([(0, 1), (1, 2)]))
    assert result.p is None and result.df == 0 and "no freer" in result.reason


def test_a_cycle_of_single_pairings_is_testable_with_one_degree_of_freedom():
    result = same_ratings(chain([(0, 1), (1, 2), (2, 0)]))
    assert result.df == 1 and result.p < 0.05  # 0 > 1 > 2 > 0, each 25-15: not one set of ratings


def test_a_group_where_a_player_never_scored_has_no_test():
    result = same_ratings(chain([(0, 1), (0, 1)], n=2, wins_first=40))
    assert result.p is None and "infinite" in result.reason and "group 0" in result.reason


def test_fewer_than_two_groups_or_unequal_players_are_rejected():
    table = round_robin(np.random.default_rng(5), TRUE, 10)
    with pytest.raises(ValueError, match="at least two groups"):
        same_ratings([table])
    with pytest.raises(ValueError, match="same players"):
        same_ratings([table, round_robin(np.random.default_rng(6), TRUE[:3], 10)])
