"""Polar strategies: parameter validation, what each one picks, and MCTS beating greedy."""

import math

import pytest

from rules.base import GameSpec, StrategySpec, UsageError, get_game
from rules.polar.batch import seat_code
from rules.polar.model import PolarRules
from rules.polar.position import Board
from rules.seeds import game_seed

POLAR = get_game("polar")


def wilson_lower(wins: float, n: int, z: float = 1.96) -> float:
    """Lower end of the Wilson score interval (Wilson 1927) for a proportion."""
    p = wins / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


@pytest.mark.parametrize("name", ["random", "greedy", "mcts"])
def test_every_strategy_parameter_has_a_default(name):
    strategy = POLAR.strategy(StrategySpec(name))
    assert strategy.validate(StrategySpec(name)) == strategy.params_model()


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("mcts:playouts=0", "playouts"),
        ("mcts:playouts=many", "playouts"),
        ("mcts:c=-1", "c"),
        ("mcts:playout=smart", "playout"),
        ("greedy:epsilon=1.5", "epsilon"),
        ("random:depth=3", "depth"),
    ],
)
def test_bad_strategy_parameters_are_usage_errors_naming_the_parameter(text, where):
    spec = StrategySpec.parse(text)
    with pytest.raises(UsageError, match=where):
        POLAR.strategy(spec).validate(spec)


def test_unknown_strategy_is_a_usage_error():
    with pytest.raises(UsageError, match="greedy"):
        seat_code(StrategySpec("minimax"))


def test_parameters_arrive_as_strings_from_the_command_line():
    spec = StrategySpec.parse("mcts:playouts=50:c=1.2:playout=greedy")
    params = POLAR.strategy(spec).validate(spec)
    assert (params.playouts, params.c, params.playout) == (50, 1.2, "greedy")


def test_greedy_takes_the_move_with_the_best_immediate_margin():
    # White to move: (3,0) makes X X O O O -> white T(3); nothing else scores as much.
    board = Board.from_rows(["XXOO.", ".....", ".....", ".....", "....X"], to_move="white")
    assert board.score() == (0, 0)
    for seed in range(5):
        point = board.choose(seat_code(StrategySpec("greedy")), seed)
        assert point in {4, 7, 8}  # (4,0), (2,1), (3,1) all give white three
    board.play(board.choose(seat_code(StrategySpec("greedy")), 0))
    assert board.score() == (0, 6)


def test_greedy_with_epsilon_one_plays_like_random():
    board = Board.from_rows(["XXOO.", ".....", ".....", ".....", "....X"], to_move="white")
    picks = {board.choose(seat_code(StrategySpec.parse("greedy:epsilon=1")), s) for s in range(60)}
    assert len(picks) > 5


def test_random_picks_only_legal_moves_and_reaches_all_of_them():
    board = Board.from_rows(["X.O.X", "O..XX", ".X.OO", "O.X.O", ".OX.O"], to_move="white")
    legal = set(board.legal_moves("white"))
    picks = [board.choose(seat_code(StrategySpec("random")), s) for s in range(400)]
    assert set(picks) == legal
    assert min(picks.count(p) for p in legal) > 400 / len(legal) / 3


def test_every_strategy_passes_when_it_has_no_legal_move():
    board = Board.from_rows(["X.O.X", "O..XX", ".X.OO", "O.X.O", ".OX.O"], to_move="black")
    for text in ("random", "greedy", "mcts:playouts=10"):
        assert board.choose(seat_code(StrategySpec.parse(text)), 1) == -1


def test_mcts_beats_greedy_over_both_seats():
    games_per_seat = 30
    seats = (StrategySpec.parse("mcts:playouts=40"), StrategySpec("greedy"))
    specs = [
        GameSpec(i, game_seed(2024, i), "polar-9", PolarRules(), seats if i % 2 == 0 else seats[::-1])
        for i in range(2 * games_per_seat)
    ]
    games, _ = POLAR.play_batch(specs)
    mcts_seat = [0 if i % 2 == 0 else 1 for i in range(len(specs))]
    winners = games["winner"].to_pylist()
    score = sum(1.0 if w == s else 0.5 if w == -1 else 0.0 for w, s in zip(winners, mcts_seat))
    assert wilson_lower(score, len(specs)) > 0.5, f"mcts scored {score}/{len(specs)}"
    for seat in (0, 1):
        seat_games = [w == seat for w, s in zip(winners, mcts_seat) if s == seat]
        assert sum(seat_games) > len(seat_games) / 2, f"mcts in seat {seat} won {sum(seat_games)}"
