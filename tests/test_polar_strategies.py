"""Polar strategies: parameter validation, what each one picks, and MCTS beating greedy."""

import math

import numpy as np
import pytest

from rules.base import GameSpec, StrategySpec, UsageError, get_game
from rules.polar.batch import seat_code
from rules.polar.core import M_TO_MOVE, WHITE, triangular
from rules.polar.engine import OPENING_CANDIDATES, _search, set_opening
from rules.polar.mcts import new_tree, tree_capacity
from rules.polar.model import PolarRules
from rules.polar.policies import PLAYOUTS, random_opening
from rules.polar.position import Board
from rules.polar.rng import seed_stream
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


def test_p5_greedy_plays_a_legal_move_however_much_it_costs_on_the_largest_board():
    """On a 255x255 board one move can cost more than 2**30: White touching a pure
    black group of 65,018 stones hands Black T(65018). Greedy must still play it
    rather than pass (P5: pass only without a legal move)."""
    size, holes = 255, {(2, 0), (0, 1), (1, 1), (100, 100), (200, 50)}
    board = Board(size)
    board.setup((0, 0), "black")  # the opening pair, walled off from the rest by holes
    board.setup((1, 0), "white")
    for y in range(size):
        for x in range(size):
            if (x, y) not in holes and (x, y) not in {(0, 0), (1, 0)}:
                board.setup((x, y), "black")
    board.st[6 * board.n + M_TO_MOVE] = WHITE
    legal = board.legal_moves("white")
    assert legal == [50 * size + 200, 100 * size + 100]  # the holes inside the black group
    point = board.choose(seat_code(StrategySpec("greedy")), 0)
    assert point in legal
    board.play(point)
    assert board.score() == (triangular(size * size - len(holes) - 2), 0)
    assert board.score()[0] > 2**30


# ---------------------------------------------------------------- P2: the opening choices

# 5x5 positions with Black to move in which every continuation ends in a win for
# one colour (found in random games; ``winners`` plays every continuation), so a
# search of any size rates that colour 1 and the other 0. The score does not
# tell: White leads 55-0 in the first, the second stands at 0-0.
BLACK_WINS_WHATEVER_HAPPENS = ["XXXXO", "X.XXO", "..XOO", "X.OOO", "X.OOO"]
WHITE_WINS_WHATEVER_HAPPENS = ["XXXX.", "XXX.O", "X.XO.", ".O.OO", "OOOOO"]
MCTS_PROPOSER = StrategySpec.parse("mcts:playouts=200")


def winners(board):
    """The winners of every way the game can go on from this position."""
    if board.game_over:
        return {board.winner()}
    found = set()
    for move in board.legal_moves() or [None]:
        saved = board.st.copy()
        board.play(move)
        found |= winners(board)
        board.st[:] = saved
    return found


def opening_board(black, white):
    board = Board(5)
    board.setup(black, "black")
    board.setup(white, "white")
    return board


def opening_candidates(size, spec, seed):
    """(pair, value for Black) of each opening an MCTS proposer with a stream seeded
    ``seed`` searches, re-searched here as ``engine.propose`` does: draw a random
    pair, search it with playouts/4, draw the next."""
    params = seat_code(spec).vector()
    board = Board(size)
    rng = np.zeros(4, np.uint64)
    seed_stream(rng, seed)
    scratch = (new_tree(tree_capacity(int(params[PLAYOUTS]), board.n)), np.empty_like(board.st),
               np.zeros(8, np.int32), np.empty(board.n, np.int32))
    budget = max(1, int(params[PLAYOUTS]) // OPENING_CANDIDATES)
    found = []
    for _ in range(OPENING_CANDIDATES):
        a, b = random_opening(size, rng)
        set_opening(board.st, board.n, board.nbr, 0, a, b, scratch[2])
        _, value = _search(board.st, board.n, board.nbr, params, budget, rng, scratch)
        found.append(((int(a), int(b)), float(value)))
    return found


def test_p2_greedy_chooser_takes_the_colour_that_scores_better():
    """After any opening both colours stand at 0 and Black moves next, with a move that
    scores at once (a stone next to its opening stone: T(2) = 3 against White's 0), so
    greedy, which looks one move ahead, takes Black."""
    greedy = seat_code(StrategySpec("greedy"))
    for black, white in [((0, 0), (1, 0)), ((0, 2), (0, 1)), ((2, 2), (2, 3)), ((4, 4), (3, 4))]:
        board = opening_board(black, white)
        assert board.score() == (0, 0)
        assert [board.choose_colour(greedy, seed) for seed in range(3)] == ["black"] * 3
        board.play(board.choose(greedy, 0))  # Black's greedy first move
        assert board.score() == (3, 0)


def test_p2_mcts_chooser_takes_the_colour_its_search_rates_better():
    assert winners(Board.from_rows(BLACK_WINS_WHATEVER_HAPPENS)) == {"black"}
    assert winners(Board.from_rows(WHITE_WINS_WHATEVER_HAPPENS)) == {"white"}
    mcts = seat_code(StrategySpec.parse("mcts:playouts=30"))
    for seed in range(3):
        assert Board.from_rows(BLACK_WINS_WHATEVER_HAPPENS).choose_colour(mcts, seed) == "black"
        assert Board.from_rows(WHITE_WINS_WHATEVER_HAPPENS).choose_colour(mcts, seed) == "white"


def test_p7_mcts_plays_for_the_komi_of_its_game():
    """A komi beyond any 5x5 margin (T(25) = 325) turns every continuation of the
    first position into a White win and of the second into a Black win; the
    search's copies of the position carry the komi, so the chooser follows it."""
    mcts = seat_code(StrategySpec.parse("mcts:playouts=30"))
    for seed in range(3):
        assert Board.from_rows(BLACK_WINS_WHATEVER_HAPPENS, komi=400).choose_colour(mcts, seed) == "white"
        assert Board.from_rows(WHITE_WINS_WHATEVER_HAPPENS, komi=-400).choose_colour(mcts, seed) == "black"


def test_p2_random_chooser_takes_either_colour():
    random = seat_code(StrategySpec("random"))
    picks = [opening_board((2, 2), (2, 3)).choose_colour(random, seed) for seed in range(40)]
    assert 10 < picks.count("black") < 30


def test_p2_mcts_proposer_offers_a_balanced_opening_when_swap_is_on():
    """With swap the chooser takes the better colour, so of the pairs it searched the
    proposer offers the one whose value for Black is nearest one half."""
    code, kept = seat_code(MCTS_PROPOSER), set()
    for seed in range(8):
        candidates = opening_candidates(5, MCTS_PROPOSER, seed)
        pair = Board.propose(5, code, seed, swap=True)
        gaps = [abs(value - 0.5) for _, value in candidates]
        assert pair in [p for (p, _), gap in zip(candidates, gaps) if gap == min(gaps)], (seed, candidates, pair)
        kept.add(gaps.index(min(gaps)))
    assert len(kept) > 1  # not always the same candidate: a fixed pick would fail above


def test_p2_mcts_proposer_with_swap_off_plays_its_best_opening():
    """Without swap the proposer is Black for the whole game: of the pairs it searched it
    keeps the one with the highest value for Black, not a balanced one."""
    code, not_balanced = seat_code(MCTS_PROPOSER), 0
    for seed in range(8):
        candidates = opening_candidates(5, MCTS_PROPOSER, seed)
        pair = Board.propose(5, code, seed, swap=False)
        best = max(value for _, value in candidates)
        assert pair in [p for p, value in candidates if value == best], (seed, candidates, pair)
        not_balanced += pair != Board.propose(5, code, seed, swap=True)
    assert not_balanced > 0


def test_p2_random_and_greedy_proposers_offer_an_adjacent_pair_with_or_without_swap():
    """Every opening scores 0-0, so greedy's margin ties on every pair: both propose a
    uniform random pair, and the swap rule changes nothing."""
    for name in ("random", "greedy"):
        code = seat_code(StrategySpec(name))
        pairs = [Board.propose(5, code, seed, swap=True) for seed in range(60)]
        assert pairs == [Board.propose(5, code, seed, swap=False) for seed in range(60)]
        assert all(abs(a % 5 - b % 5) + abs(a // 5 - b // 5) == 1 for a, b in pairs)
        assert len(set(pairs)) > 30  # of 80 ordered pairs


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


def square_ring(size, p):
    half = size // 2
    return max(abs(p // size - half), abs(p % size - half))


def steps_to_centre(size, p):
    half = size // 2
    return abs(p // size - half) + abs(p % size - half)


@pytest.mark.parametrize("size", [5, 9, 11])
@pytest.mark.parametrize("swap", [True, False])
def test_p2_greedy_edge_proposer_offers_a_pair_along_the_edge_with_the_swap_deciding_which_stone_is_nearer(size, swap):
    code = seat_code(StrategySpec.parse("greedy:opening=edge"))
    pairs = [Board.propose(size, code, seed, swap=swap) for seed in range(60)]
    for a, b in pairs:
        assert abs(a - b) in (1, size) and (abs(a - b) == size or a // size == b // size)  # adjacent
        assert square_ring(size, a) == square_ring(size, b) == size // 2, (a, b)
        nearer = "white" if steps_to_centre(size, b) < steps_to_centre(size, a) else "black"
        assert nearer == ("white" if swap else "black"), (a, b)
    assert len(set(pairs)) > 12  # drawn at random among those pairs


def test_p2_greedy_centre_chooser_takes_the_colour_whose_stone_is_nearer_the_centre():
    code = seat_code(StrategySpec.parse("greedy:choose=centre"))
    for black, white, nearer in [((2, 1), (2, 2), "white"), ((2, 2), (2, 1), "black"), ((0, 0), (1, 0), "white"),
                                 ((4, 3), (4, 4), "black")]:
        assert [opening_board(black, white).choose_colour(code, seed) for seed in range(3)] == [nearer] * 3


def test_p2_greedy_centre_chooser_picks_in_real_games_what_the_rule_says():
    from tests.test_polar_games import fixed_seats

    games, _ = POLAR.play_batch(fixed_seats(40, "greedy:opening=random", "greedy:choose=centre", PolarRules(size=9)))
    picks = games["chooser_colour"].to_pylist()
    for a, b, pick in zip(games["opening_a"].to_pylist(), games["opening_b"].to_pylist(), picks):
        assert pick == ("black" if steps_to_centre(9, a) < steps_to_centre(9, b) else "white")
    assert set(picks) == {"black", "white"}


def test_greedy_by_default_proposes_the_uniform_random_pair_of_its_stream():
    """The centre parameters' defaults keep greedy's opening what it was: ``random_opening``'s draw."""
    code = seat_code(StrategySpec("greedy"))
    for seed in range(10):
        rng = np.zeros(4, np.uint64)
        seed_stream(rng, seed)
        expected = tuple(int(p) for p in random_opening(9, rng))
        assert Board.propose(9, code, seed, swap=True) == Board.propose(9, code, seed, swap=False) == expected
