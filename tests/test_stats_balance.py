"""Seat balance score and first-player advantage."""

import numpy as np
import pytest

from pipelines.stats.balance import balance, first_player_advantage, seat_scores
from pipelines.stats.proportion import score_rate


def test_equal_seat_results_score_perfect_balance_with_upper_bound_one():
    b = balance([480, 480], draws=40)
    assert b.estimate == 1.0 and b.high == 1.0 and 0.9 < b.low < 1.0


def test_one_seat_winning_every_game_scores_zero_balance():
    b = balance([0, 200], draws=0)
    assert b.estimate == 0.0 and b.low == 0.0 and b.high < 0.1


def test_two_seat_balance_is_one_minus_the_seat_score_gap_with_draws_as_half():
    # seat 0: (550 + 50 / 2) / 1000 = 0.575, seat 1: 0.425 -> gap 0.15
    assert seat_scores([550, 400], 50) == pytest.approx([0.575, 0.425])
    b = balance([550, 400], draws=50)
    s0 = score_rate((550, 50, 400))
    assert b.estimate == pytest.approx(0.85)
    assert (b.low, b.high) == pytest.approx((1 - (2 * s0.high - 1), 1 - (2 * s0.low - 1)))


def test_two_seat_balance_interval_covers_the_true_balance_at_least_95_percent():
    rng = np.random.default_rng(11)
    p_seat0, p_draw = 0.53, 0.1
    truth = 1 - abs(2 * (p_seat0 + p_draw / 2) - 1)
    counts = rng.multinomial(800, [p_seat0, 1 - p_seat0 - p_draw, p_draw], size=2000)
    covered = np.mean([balance(c[:2], int(c[2])).contains(truth) for c in counts])
    assert covered >= 0.94


def test_three_seat_balance_is_the_win_rate_gap_with_an_interval_around_it():
    bal = balance([300, 330, 350], draws=20)
    assert bal.estimate == pytest.approx(1 - (350 - 300) / 1000)
    assert bal.low < bal.estimate <= bal.high == 1.0  # the seats' intervals overlap
    large = balance([3000, 3300, 3500], draws=200)
    assert large.high < 1.0 and large.width < 0.5 * bal.width


@pytest.mark.parametrize("probs, games", [([1 / 3, 1 / 3, 1 / 3, 0.0], 300), ([0.3, 0.3, 0.3, 0.1], 300),
                                          ([0.36, 0.30, 0.28, 0.06], 600)])
def test_three_seat_balance_interval_covers_the_truth_even_when_perfectly_balanced(probs, games):
    # a percentile bootstrap of 1 - gap covered a perfectly balanced game 0.2 % of the time
    truth = 1 - (max(probs[:3]) - min(probs[:3]))
    counts = np.random.default_rng(3).multinomial(games, probs, size=1000)
    covered = np.mean([balance(c[:3], int(c[3])).contains(truth) for c in counts])
    assert covered >= 0.95


def test_first_player_advantage_is_seat0_score_minus_half_with_its_interval():
    fpa = first_player_advantage(520, 20, 460)
    s0 = score_rate((520, 20, 460))
    assert fpa.estimate == pytest.approx(0.03)
    assert (fpa.low, fpa.high) == pytest.approx((s0.low - 0.5, s0.high - 0.5))


def test_first_player_advantage_is_detected_when_real_and_not_when_absent():
    rng = np.random.default_rng(2)
    ahead = rng.multinomial(4000, [0.55, 0.05, 0.40])  # seat 0 score 0.575
    even = rng.multinomial(4000, [0.475, 0.05, 0.475])
    assert first_player_advantage(*ahead).low > 0
    assert first_player_advantage(*even).contains(0.0)


@pytest.mark.parametrize("wins, draws", [([10], 0), ([5, -1], 0), ([0, 0], 0), ([1.5, 2], 0)])
def test_impossible_seat_counts_are_rejected(wins, draws):
    with pytest.raises(ValueError):
        balance(np.array(wins), draws)
