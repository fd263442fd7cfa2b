"""The fair komi read from board margins (``pipelines.stats.komi``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from pipelines.stats.komi import fair_komi


def test_fair_komi_is_the_half_point_that_gives_black_the_share_nearest_a_half():
    # margins -3 (1 game), -1 (2), 2 (3), 5 (4): Black wins 10, 9, 7, 4, 0 of 10 as the komi passes them
    got = fair_komi([-3, -1, 2, 5], [1, 2, 3, 4])
    assert (got.fair, got.black_wins, got.games) == (3.5, 4, 10)  # 4 of 10 beats 7 of 10; middle of 2.5 .. 4.5


def test_of_two_komi_equally_near_fair_the_smaller_is_taken():
    # Black wins 4, 3, 1, 0 of 4: 3 (komi 0.5 .. 4.5) and 1 (5.5 .. 9.5) are as near 2
    got = fair_komi([0, 5, 10], [1, 2, 1])
    assert (got.fair, got.black_wins) == (2.5, 3)


def test_the_middle_of_a_stretch_ties_down_to_a_half_point():
    got = fair_komi([0, 10], [2, 2])
    assert (got.fair, got.black_wins) == (4.5, 2)  # 0.5 .. 9.5: middle 5.0, taken as 4.5


def brute_force(margins, level=0.95):
    """Every half-point komi from below the least margin to above the greatest, tested one by one."""
    margins = np.asarray(margins)
    n = len(margins)
    komis = np.arange(margins.min() - 0.5, margins.max() + 1.0, 1.0)
    wins = np.array([(margins > k).sum() for k in komis])
    gap = np.abs(wins - n / 2)
    nearest = komis[gap == gap.min()]
    accepted = [k for k, w in zip(komis, wins) if binomtest(int(w), n, 0.5).pvalue >= 1 - level]
    return nearest, wins[gap == gap.min()].max(), accepted, komis


@pytest.mark.parametrize("seed", range(12))
def test_fair_komi_and_its_interval_agree_with_testing_every_komi(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    margins = np.round(rng.normal(rng.uniform(-20, 20), rng.uniform(0.5, 30), n)).astype(int)
    values, counts = np.unique(margins, return_counts=True)
    got = fair_komi(values, counts)
    nearest, wins, accepted, komis = brute_force(margins)
    assert got.fair in nearest and got.games == n
    assert got.black_wins == wins  # of two stretches equally near, the smaller komi's (more Black wins)
    assert got.lo == (None if accepted[0] == komis[0] else accepted[0])
    assert got.hi == (None if accepted[-1] == komis[-1] else accepted[-1])
    assert accepted == list(np.arange(accepted[0], accepted[-1] + 1.0, 1.0))  # one stretch
    assert (got.lo is None or got.lo <= got.fair) and (got.hi is None or got.fair <= got.hi)
    assert got.evens == (got.fair in accepted)


def test_a_few_games_leave_the_interval_open_on_both_sides():
    got = fair_komi([-1, 1], [2, 3])
    assert (got.lo, got.hi) == (None, None)


def test_a_margin_too_common_to_split_gives_no_stretch_but_the_fair_komi():
    got = fair_komi([-1, 0, 1], [5, 400, 5])
    assert got.fair in (-0.5, 0.5) and got.lo == got.hi == got.fair and not got.evens


@pytest.mark.parametrize("values, counts", [([1, 1], [1, 1]), ([2, 1], [1, 1]), ([1], [0]), ([], []), ([1, 2], [1])])
def test_bad_margin_counts_are_refused(values, counts):
    with pytest.raises(ValueError):
        fair_komi(values, counts)
