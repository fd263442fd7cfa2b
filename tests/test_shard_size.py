"""Default shard sizes follow what a game costs: cheap Polar games go 5,000 to a
shard, MCTS games ~5 s of play to a shard, so no worker idles behind one huge
shard and an interrupted shard loses little. Results never depend on it."""

import pytest

import rules.polar  # noqa: F401  registers "polar"
import rules.polarity  # noqa: F401  registers "polarity"
from pipelines.cli import build_experiment
from pipelines.sweep import sweep_experiment
from pipelines.tournament import tournament_experiment
from rules.base import SHARD_SECONDS, get_game
from rules.polar.strategies import CHEAP_SEAT_SECONDS, SECONDS_PER_PLAYOUT

POLAR = get_game("polar")


def test_cheap_polar_strategies_keep_the_games_shard_size():
    assert POLAR.shard_size_for([("random", "greedy:epsilon=0.1")]) == POLAR.shard_size == 5000


@pytest.mark.parametrize("matchup, game_seconds", [
    (("mcts", "mcts"), 2 * 200 * SECONDS_PER_PLAYOUT),
    (("mcts:playouts=1000", "random"), 1000 * SECONDS_PER_PLAYOUT + CHEAP_SEAT_SECONDS),
    (("greedy", "mcts:playouts=20"), 20 * SECONDS_PER_PLAYOUT + CHEAP_SEAT_SECONDS),
])
def test_mcts_shards_hold_about_shard_seconds_of_play(matchup, game_seconds):
    size = POLAR.shard_size_for([matchup])
    assert size == int(SHARD_SECONDS / game_seconds) < POLAR.shard_size
    assert size * game_seconds == pytest.approx(SHARD_SECONDS, rel=0.2)


def test_the_dearest_matchup_of_a_grid_sizes_its_shards():
    assert POLAR.shard_size_for([("random", "random"), ("mcts", "random")], 500) == int(
        SHARD_SECONDS / (200 * SECONDS_PER_PLAYOUT + CHEAP_SEAT_SECONDS))
    assert POLAR.shard_size_for([("random", "random")], 500) == 500


def test_games_without_a_cost_model_keep_their_shard_size():
    polarity = get_game("polarity")
    assert polarity.seat_seconds is None
    assert polarity.shard_size_for([("cautious", "aggressive")]) == polarity.shard_size


def test_commands_use_the_cost_aware_default_and_a_given_shard_size_wins():
    assert build_experiment("polar", None, ["mcts", "mcts"], [], 8000, 1, None).shard_size == 25
    assert build_experiment("polar", None, ["mcts", "mcts"], [], 8000, 1, 700).shard_size == 700
    assert build_experiment("polar", None, ["greedy", "random"], [], 8000, 1, None).shard_size == 5000
    sweep = sweep_experiment("polar", None, ["mcts", "mcts"], ["size=9,11"], 100, 1, None)
    assert sweep.shard_size == 25
    tournament = tournament_experiment("polar", None, ["random", "greedy"], {}, 100, 1, None)
    assert tournament.shard_size == 500
