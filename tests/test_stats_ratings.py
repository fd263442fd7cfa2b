"""Bradley–Terry ratings on the Elo scale and Elo from a score rate."""

import numpy as np
import pytest

from pipelines.stats.ratings import (bradley_terry, elo_from_score, elo_of_score,
                                     expected_scores, score_from_elo)


def round_robin(rng, true_elo, games_per_pair, draw_rate=0.2):
    """Simulated cross-table (wins, draws) with the given true ratings; a
    draw is as likely at every rating gap, so expected score stays E_ij."""
    n = len(true_elo)
    e = expected_scores(np.asarray(true_elo, dtype=float))
    wins = np.zeros((n, n), dtype=np.int64)
    draws = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(i + 1, n):
            win_p = np.clip(e[i, j] - draw_rate / 2, 0, 1)
            w, d, l = rng.multinomial(games_per_pair, [win_p, draw_rate, 1 - win_p - draw_rate])
            wins[i, j], wins[j, i], draws[i, j], draws[j, i] = w, l, d, d
    return wins, draws


TRUE = np.array([-150.0, -40.0, 0.0, 60.0, 130.0])


def test_bradley_terry_recovers_known_strengths_within_their_intervals():
    rng = np.random.default_rng(12)
    centred = TRUE - TRUE.mean()
    covered, errors = [], []
    for _ in range(100):
        ratings = bradley_terry(*round_robin(rng, TRUE, 200))
        covered += [ratings.interval(i).contains(centred[i]) for i in range(len(TRUE))]
        errors.append(ratings.elo - centred)
    assert np.mean(covered) >= 0.94  # conservative with draws: at least nominal
    assert np.abs(np.mean(errors, axis=0)).max() < 5  # no bias beyond noise (Elo)


def test_symmetric_results_give_equal_ratings():
    wins = np.array([[0, 7, 3], [7, 0, 5], [3, 5, 0]])
    draws = np.array([[0, 2, 4], [2, 0, 1], [4, 1, 0]])
    ratings = bradley_terry(wins, draws)
    assert ratings.elo == pytest.approx(np.zeros(3), abs=1e-9)


def test_two_players_get_the_elo_of_their_head_to_head_score():
    wins = np.array([[0, 60], [30, 0]])
    draws = np.array([[0, 10], [10, 0]])
    ratings = bradley_terry(wins, draws, names=["a", "b"], anchor="b")
    assert ratings.elo[0] == pytest.approx(elo_of_score(65 / 100))


def test_intervals_halve_with_four_times_the_games():
    rng = np.random.default_rng(13)
    wins, draws = round_robin(rng, TRUE, 100)
    few = bradley_terry(wins, draws)
    many = bradley_terry(4 * wins, 4 * draws)
    assert many.elo == pytest.approx(few.elo)
    for i in range(len(TRUE)):
        assert many.interval(i).width == pytest.approx(few.interval(i).width / 2)


def test_interval_widths_shrink_as_simulated_round_robins_grow():
    rng = np.random.default_rng(14)
    widths = [np.mean([bradley_terry(*round_robin(rng, TRUE, g)).interval(i).width
                       for i in range(len(TRUE))]) for g in (50, 200, 800)]
    assert widths[0] > widths[1] > widths[2]
    assert widths[2] < 0.6 * widths[1]


def test_anchoring_a_named_player_at_zero_keeps_every_difference():
    rng = np.random.default_rng(15)
    wins, draws = round_robin(rng, TRUE, 150)
    names = ["p0", "p1", "p2", "p3", "p4"]
    mean0 = bradley_terry(wins, draws, names=names)
    anchored = bradley_terry(wins, draws, names=names, anchor="p2")
    assert anchored.elo[2] == 0.0 and anchored.interval("p2").width == 0.0
    assert anchored.elo - anchored.elo.mean() == pytest.approx(mean0.elo)
    assert mean0.elo.mean() == pytest.approx(0.0, abs=1e-9)
    assert anchored.interval("p4").estimate == pytest.approx(mean0.difference("p4", "p2").estimate)
    assert anchored.interval("p4").width == pytest.approx(mean0.difference("p4", "p2").width)


def test_a_player_who_never_dropped_a_point_has_no_finite_rating_unless_a_prior_is_given():
    wins = np.array([[0, 10, 10], [0, 0, 5], [0, 5, 0]])
    draws = np.zeros((3, 3), dtype=np.int64)
    with pytest.raises(ValueError, match="prior_draws"):
        bradley_terry(wins, draws)
    ratings = bradley_terry(wins, draws, prior_draws=1)
    assert np.isfinite(ratings.elo).all() and ratings.elo[0] > 200


@pytest.mark.parametrize("wins, draws", [
    (np.array([[0, 1], [1, 0]]), np.array([[0, 1], [2, 0]])),  # asymmetric draws
    (np.array([[1, 1], [1, 0]]), np.zeros((2, 2), int)),  # self-play
    (np.array([[0, -1], [1, 0]]), np.zeros((2, 2), int)),  # negative
    (np.array([[0.0, 1], [1, 0]]), np.zeros((2, 2), int)),  # not counts
])
def test_cross_tables_breaking_their_invariants_are_rejected(wins, draws):
    with pytest.raises(ValueError):
        bradley_terry(wins, draws)


def test_elo_of_a_three_quarter_score_is_about_191():
    assert elo_of_score(0.75) == pytest.approx(400 * np.log10(3))
    assert score_from_elo(elo_of_score(0.62)) == pytest.approx(0.62)
    assert elo_of_score(0.5) == 0.0


def test_elo_from_score_maps_the_score_interval_through_the_elo_curve():
    ci = elo_from_score((60, 20, 20))
    assert ci.estimate == pytest.approx(elo_of_score(0.7))
    assert 0 < ci.low < ci.estimate < ci.high
    assert score_from_elo(ci.low) < 0.7 < score_from_elo(ci.high)
    sweep = elo_from_score((10, 0, 0))
    assert sweep.high == np.inf and np.isfinite(sweep.low)
