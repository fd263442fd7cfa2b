"""Tally and Pentanomial carry their invariants: checked where made and read."""

import numpy as np
import pytest

from pipelines.stats.proportion import score_rate
from pipelines.stats.tally import Pentanomial, Tally, as_tally


def test_tally_whose_parts_do_not_sum_to_games_is_rejected():
    with pytest.raises(ValueError, match="games"):
        Tally(wins=3, draws=2, losses=1, games=7)


@pytest.mark.parametrize("bad", [(-1, 2, 3), (1, -2, 3), (1, 2, -3)])
def test_tally_with_a_negative_count_is_rejected(bad):
    with pytest.raises(ValueError, match="non-negative"):
        Tally.of(*bad)


@pytest.mark.parametrize("bad", [1.5, 2.0, True, "3"])
def test_tally_with_a_non_integer_count_is_rejected(bad):
    with pytest.raises(TypeError):
        Tally(bad, 0, 0, 2)


def test_tally_accepts_numpy_integers_and_stores_python_ints():
    t = Tally.of(np.int64(3), np.int32(2), np.uint8(5))
    assert t.games == 10 and type(t.wins) is int
    assert t.score == pytest.approx(0.4)


def test_tally_score_counts_draws_as_half_wins_and_flips_for_the_opponent():
    t = Tally.of(6, 2, 2)
    assert t.score == pytest.approx(0.7)
    assert t.flipped().score == pytest.approx(0.3)
    assert (t + t.flipped()) == Tally.of(8, 4, 8)


def test_empty_tally_has_no_score_rate():
    with pytest.raises(ValueError, match="empty"):
        Tally.of(0, 0, 0).score


def test_a_tally_corrupted_after_construction_is_caught_where_it_is_read():
    t = Tally.of(5, 0, 5)
    object.__setattr__(t, "games", 11)  # e.g. a bad merge of shards
    with pytest.raises(ValueError, match="games"):
        as_tally(t)
    with pytest.raises(ValueError, match="games"):
        score_rate(t)


def test_pentanomial_needs_five_non_negative_integer_counts():
    with pytest.raises(ValueError, match="5 counts"):
        Pentanomial((1, 2, 3))
    with pytest.raises(ValueError, match="non-negative"):
        Pentanomial((1, 2, -3, 0, 0))


def test_pentanomial_from_pair_scores_bins_half_points_and_rejects_others():
    p = Pentanomial.from_pair_scores(np.array([0, 0.5, 1, 1, 1.5, 2, 2, 2]))
    assert p.counts == (1, 1, 2, 1, 3)
    assert p.score == pytest.approx((0 + 0.5 + 2 + 1.5 + 6) / 16)
    with pytest.raises(ValueError):
        Pentanomial.from_pair_scores(np.array([0.25]))
    with pytest.raises(ValueError):
        Pentanomial.from_pair_scores(np.array([2.5]))


def test_tally_from_a_winner_column_counts_each_seats_wins_draws_and_losses():
    winners = np.array([0, 1, -1, 0, 0, 1, -1], dtype=np.int8)
    assert Tally.from_winners(winners, side=0) == Tally.of(3, 2, 2)
    assert Tally.from_winners(winners, side=1) == Tally.of(2, 2, 3)


@pytest.mark.parametrize("winners", [np.array([0, 2]), np.array([0.0, np.nan]), np.zeros((2, 2))])
def test_tally_from_a_winner_column_refuses_unknown_winners(winners):
    with pytest.raises(ValueError):
        Tally.from_winners(winners, side=0)
