"""Whole Polar games from play_batch: tables, termination, invariants, determinism.

The invariants are checked against an independent pure-Python reading of
the rules (``oracle_*``: flood fills over the colours, nothing from the
numba core), replaying each game from its ``turns`` rows.
"""

from collections import deque

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.base import GameSpec, StrategySpec, get_game
from rules.polar.batch import seat_code
from rules.polar.model import PolarRules
from rules.polar.position import Board
from rules.seeds import game_seed, stream_seed

POLAR = get_game("polar")
GAMES_SCHEMA = {
    "game_index": pa.int64(), "winner": pa.int8(), "score_0": pa.float64(),
    "score_1": pa.float64(), "end_reason": pa.string(), "n_turns": pa.int32(),
    "status": pa.string(), "error": pa.string(), "colour_0": pa.string(),
    "opening_a": pa.int32(), "opening_b": pa.int32(), "chooser_colour": pa.string(),
    "n_passes": pa.int32(), "n_groups": pa.int32(), "n_scoring_groups": pa.int32(),
    "black_score": pa.float64(), "white_score": pa.float64(),
}  # fmt: skip
TURNS_SCHEMA = {
    "game_index": pa.int64(), "turn": pa.int32(), "player": pa.int8(), "score_0": pa.int32(),
    "score_1": pa.int32(), "colour": pa.string(), "point": pa.int32(), "point2": pa.int32(),
    "x": pa.int16(), "y": pa.int16(), "n_legal": pa.int32(),
}  # fmt: skip


# ---------------------------------------------------------------- the oracle


def oracle_components(board, size, same_colour):
    """Connected components of stones (groups, or sections when same_colour)."""
    seen, comps = set(), []
    for start, colour in board.items():
        if start in seen:
            continue
        comp, todo = [], deque([start])
        seen.add(start)
        while todo:
            p = todo.popleft()
            comp.append(p)
            x, y = p % size, p // size
            for q, ok in ((p - 1, x > 0), (p + 1, x < size - 1), (p - size, y > 0), (p + size, y < size - 1)):
                if ok and q in board and q not in seen and (not same_colour or board[q] == colour):
                    seen.add(q)
                    todo.append(q)
        comps.append(comp)
    return comps


def oracle_sections_per_group(board, size):
    section_of = {}
    for i, sec in enumerate(oracle_components(board, size, True)):
        for p in sec:
            section_of[p] = i
    return [
        (group, {section_of[p] for p in group}) for group in oracle_components(board, size, False)
    ]


def oracle_score(board, size, score_n="majority"):
    """(black, white) scores straight from RULES.md P6."""
    totals = [0, 0]
    for group, _ in oracle_sections_per_group(board, size):
        black = sum(1 for p in group if board[p] == 0)
        white = len(group) - black
        if black == 0 or white == 0 or black == white:
            continue
        n = {"majority": max(black, white), "group": black + white, "difference": abs(black - white)}[score_n]
        totals[0 if black > white else 1] += n * (n + 1) // 2
    return tuple(totals)


def oracle_legal(board, size, p, colour):
    trial = dict(board)
    trial[p] = colour
    return all(len(secs) <= 2 for _, secs in oracle_sections_per_group(trial, size))


# ---------------------------------------------------------------- helpers


def specs_for(n, rules=None, a="random", b="random", run_seed=11):
    rules = rules or PolarRules()
    seats = (StrategySpec.parse(a), StrategySpec.parse(b))
    return [
        GameSpec(i, game_seed(run_seed, i), "test", rules, seats if i % 2 == 0 else seats[::-1])
        for i in range(n)
    ]


def rows_by_game(turns):
    by = {}
    for row in turns.to_pylist():
        by.setdefault(row["game_index"], []).append(row)
    return by


def replay_and_check(game, rows, rules, check_legal_counts):
    """Replay a game's turns; assert the rules hold at every step against the oracle."""
    size, colour_of = rules.size, {"black": 0, "white": 1}
    seat_colour = 0 if game["colour_0"] == "black" else 1
    opening = rows[0]
    assert (opening["turn"], opening["player"]) == (0, 0)
    assert (opening["point"], opening["point2"]) == (game["opening_a"], game["opening_b"])
    a, b = opening["point"], opening["point2"]
    assert abs(a % size - b % size) + abs(a // size - b // size) == 1  # P2: adjacent
    board = {a: 0, b: 1}
    mover = 0  # P3: black moves after the opening
    for i, row in enumerate(rows[1:], start=1):
        assert row["turn"] == i
        assert colour_of[row["colour"]] == mover
        assert row["player"] == (0 if mover == seat_colour else 1)
        empties = [p for p in range(size * size) if p not in board]
        if check_legal_counts:
            assert row["n_legal"] == sum(oracle_legal(board, size, p, mover) for p in empties)
        if row["point"] < 0:
            assert row["n_legal"] == 0  # P5: pass only without a legal move
            assert row["x"] == -1 and row["y"] == -1
        else:
            assert row["n_legal"] > 0
            assert row["point"] not in board
            assert (row["x"], row["y"]) == (row["point"] % size, row["point"] // size)
            board[row["point"]] = mover
        for _, sections in oracle_sections_per_group(board, size):
            assert len(sections) <= 2  # P4 holds in every reached position
        black, white = oracle_score(board, size, rules.score_n)
        seat_scores = (black, white) if seat_colour == 0 else (white, black)
        assert (row["score_0"], row["score_1"]) == seat_scores
        mover = 1 - mover
    passes = [r["point"] < 0 for r in rows[1:]]
    assert passes[-2:] == [True, True]  # P5: ends on two passes in succession
    assert not any(x and y for x, y in zip(passes[:-2], passes[1:-1]))
    assert game["n_passes"] == sum(passes)
    assert game["n_turns"] == len(rows)
    black, white = oracle_score(board, size, rules.score_n)
    assert (game["black_score"], game["white_score"]) == (black, white)
    groups = oracle_sections_per_group(board, size)
    assert game["n_groups"] == len(groups)


# ---------------------------------------------------------------- tests


def test_tables_have_the_documented_columns_and_types():
    games, turns = POLAR.play_batch(specs_for(3))
    assert dict(zip(games.schema.names, games.schema.types)) == GAMES_SCHEMA
    assert dict(zip(turns.schema.names, turns.schema.types)) == TURNS_SCHEMA


def test_one_games_row_per_spec_in_spec_order():
    specs = specs_for(7)[::-1]
    games, turns = POLAR.play_batch(specs)
    assert games["game_index"].to_pylist() == [s.index for s in specs]
    assert set(turns["game_index"].to_pylist()) == {s.index for s in specs}
    assert games["status"].to_pylist() == ["ok"] * 7
    assert games["error"].null_count == 7


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.sampled_from([5, 7, 9]),
    score_n=st.sampled_from(["majority", "group", "difference"]),
    swap=st.booleans(),
    seed=st.integers(0, 2**40),
    players=st.sampled_from([("random", "random"), ("random", "greedy"), ("greedy", "greedy:epsilon=0.3")]),
)
def test_every_game_follows_p2_to_p7_against_an_independent_oracle(size, score_n, swap, seed, players):
    rules = PolarRules(size=size, score_n=score_n, swap=swap)
    specs = specs_for(2, rules, *players, run_seed=seed)
    games, turns = POLAR.play_batch(specs)
    by = rows_by_game(turns)
    for game in games.to_pylist():
        replay_and_check(game, by[game["game_index"]], rules, check_legal_counts=size <= 7)


@pytest.mark.parametrize("size,swap", [(5, True), (7, False)])
def test_mcts_games_follow_p2_to_p7_against_the_independent_oracle(size, swap):
    # MCTS chooses its moves (and its passes, P5) on its own path through the core
    rules = PolarRules(size=size, swap=swap)
    specs = specs_for(4, rules, "mcts:playouts=8", "greedy", run_seed=size)
    games, turns = POLAR.play_batch(specs)
    by = rows_by_game(turns)
    for game in games.to_pylist():
        replay_and_check(game, by[game["game_index"]], rules, check_legal_counts=True)


def test_random_games_all_end_by_both_passing_with_consistent_winners():
    games, turns = POLAR.play_batch(specs_for(300))
    g = games.to_pydict()
    assert set(g["end_reason"]) == {"both_passed"}
    for w, s0, s1 in zip(g["winner"], g["score_0"], g["score_1"]):
        assert w == (0 if s0 > s1 else 1 if s1 > s0 else -1)  # P7
    for c0, s0, b, wh in zip(g["colour_0"], g["score_0"], g["black_score"], g["white_score"]):
        assert s0 == (b if c0 == "black" else wh)
    assert turns.num_rows == sum(g["n_turns"])


@pytest.mark.parametrize("players, komi", [(("random", "random"), 3.5),
                                           (("greedy", "greedy:choose=centre"), 882.5)])
def test_p7_komi_moves_only_the_winner_for_players_blind_to_it(players, komi):
    """Random and greedy play the same moves whatever the komi (it changes no move's
    margin), so the boards are the same and the winner is read from them with it. The
    komi lies among the pair's margins (greedy's are hundreds of points), so it moves some."""
    plain_games, plain_turns = POLAR.play_batch(specs_for(200, PolarRules(), *players))
    games, turns = POLAR.play_batch(specs_for(200, PolarRules(komi=komi), *players))
    assert turns.equals(plain_turns)
    assert games.drop_columns(["winner"]).equals(plain_games.drop_columns(["winner"]))
    g = games.to_pydict()
    for w, c0, b, wh in zip(g["winner"], g["colour_0"], g["black_score"], g["white_score"]):
        black_wins = b > wh + komi
        assert w == (0 if black_wins == (c0 == "black") else 1)  # P7, never a draw at x.5
    assert games["winner"].to_pylist() != plain_games["winner"].to_pylist()


def test_p2_without_swap_the_proposer_is_black():
    games, _ = POLAR.play_batch(specs_for(20, PolarRules(swap=False)))
    assert set(games["colour_0"].to_pylist()) == {"black"}
    assert set(games["chooser_colour"].to_pylist()) == {"white"}


def test_p2_with_swap_the_chooser_takes_either_colour():
    games, _ = POLAR.play_batch(specs_for(40))
    assert set(games["chooser_colour"].to_pylist()) == {"black", "white"}
    for c0, ch in zip(games["colour_0"].to_pylist(), games["chooser_colour"].to_pylist()):
        assert c0 != ch


def fixed_seats(n, a, b, rules=None, run_seed=11):
    """n games with strategy a in seat 0 and b in seat 1 (no alternation)."""
    rules, seats = rules or PolarRules(), (StrategySpec.parse(a), StrategySpec.parse(b))
    return [GameSpec(i, game_seed(run_seed, i), "test", rules, seats) for i in range(n)]


def test_p2_the_chooser_is_seat_1_and_sees_the_opening():
    games, _ = POLAR.play_batch(fixed_seats(20, "random", "greedy", PolarRules(size=5)))
    assert set(games["chooser_colour"].to_pylist()) == {"black"}  # greedy chooses Black
    assert set(games["colour_0"].to_pylist()) == {"white"}
    games, _ = POLAR.play_batch(fixed_seats(20, "greedy", "random", PolarRules(size=5)))
    assert set(games["chooser_colour"].to_pylist()) == {"black", "white"}  # random chooses
    # An MCTS chooser's pick is its search of the opening it was shown, with its own stream.
    mcts = "mcts:playouts=40"
    specs = fixed_seats(16, "random", mcts, PolarRules(size=7))
    games, _ = POLAR.play_batch(specs)
    picks = games["chooser_colour"].to_pylist()
    assert set(picks) == {"black", "white"}  # the opening decides, so both occur
    for spec, a, b, pick in zip(specs, games["opening_a"].to_pylist(), games["opening_b"].to_pylist(), picks):
        board = Board(7)
        board.setup(a, "black")
        board.setup(b, "white")
        assert board.choose_colour(seat_code(StrategySpec.parse(mcts)), stream_seed(spec.seed, "seat1")) == pick


def test_p2_the_proposer_is_seat_0_and_is_told_the_swap_rule():
    code = seat_code(StrategySpec.parse("mcts:playouts=200"))
    offered = {}
    for swap in (True, False):
        specs = fixed_seats(8, "mcts:playouts=200", "random", PolarRules(size=5, swap=swap))
        games, _ = POLAR.play_batch(specs)
        offered[swap] = list(zip(games["opening_a"].to_pylist(), games["opening_b"].to_pylist()))
        for spec, pair in zip(specs, offered[swap]):
            assert pair == Board.propose(5, code, stream_seed(spec.seed, "seat0"), swap=swap)
    assert offered[True] != offered[False]  # swap off: its best pair, not a balanced one


def test_same_specs_give_identical_tables():
    specs = specs_for(20, a="greedy", b="random")
    assert POLAR.play_batch(specs)[0].equals(POLAR.play_batch(specs)[0])
    assert POLAR.play_batch(specs)[1].equals(POLAR.play_batch(specs)[1])


def test_results_do_not_depend_on_batch_composition():
    specs = specs_for(12, a="mcts:playouts=8", b="greedy")
    whole_g, whole_t = POLAR.play_batch(specs)
    parts = [POLAR.play_batch(specs[i : i + k]) for i, k in ((0, 5), (5, 1), (6, 6))]
    assert pa.concat_tables([p[0] for p in parts]).equals(whole_g)
    assert pa.concat_tables([p[1] for p in parts]).equals(whole_t)
    mixed = [specs_for(1, PolarRules(size=13), run_seed=99)[0], specs[3]]
    assert POLAR.play_batch(mixed)[0].slice(1).equals(whole_g.slice(3, 1))


def test_a_seat_draws_only_from_its_own_stream():
    """Seat 0's opening depends on its stream, not on who sits in seat 1."""
    one = POLAR.play_batch([GameSpec(0, 5, "t", PolarRules(), (StrategySpec("random"), StrategySpec("random")))])[0]
    two = POLAR.play_batch([GameSpec(0, 5, "t", PolarRules(), (StrategySpec("random"), StrategySpec("greedy")))])[0]
    assert one["opening_a"].equals(two["opening_a"]) and one["opening_b"].equals(two["opening_b"])
    other = POLAR.play_batch([GameSpec(0, 6, "t", PolarRules(), (StrategySpec("random"), StrategySpec("random")))])[0]
    assert not (other["opening_a"].equals(one["opening_a"]) and other["opening_b"].equals(one["opening_b"]))


def test_forced_passes_happen_and_the_passer_plays_again_later():
    _, turns = POLAR.play_batch(specs_for(200, PolarRules(size=5)))
    replays = 0
    for rows in rows_by_game(turns).values():
        passed = set()
        for row in rows[1:-2]:
            if row["point"] < 0:
                passed.add(row["colour"])
            elif row["colour"] in passed:
                replays += 1
                break
    assert replays > 0


def test_empty_batch_gives_empty_tables_with_the_same_columns():
    games, turns = POLAR.play_batch([])
    assert games.num_rows == 0 and turns.num_rows == 0
    assert dict(zip(games.schema.names, games.schema.types)) == GAMES_SCHEMA
    assert dict(zip(turns.schema.names, turns.schema.types)) == TURNS_SCHEMA


def test_columnar_play_gives_the_tables_of_play_batch_with_dictionary_strings():
    from pipelines.spec import Cell, Experiment, game_columns
    from rules.polar.batch import play_columns

    exp = Experiment(game="polar", variant="polar-9", games=9, seed=4, shard_size=9, cells=(
        Cell(matchup=("greedy", "random")), Cell(matchup=("random", "random"), overrides={"size": 7, "swap": False})))
    cols = game_columns(exp, 5, 10)  # crosses from the first cell into the second
    games, turns = play_columns(cols.index, cols.seeds, cols.group, [(r, s) for _, r, s in cols.groups])
    want_games, want_turns = POLAR.play_batch(cols.specs())
    assert pa.types.is_dictionary(games.schema.field("colour_0").type)
    assert pa.types.is_dictionary(turns.schema.field("colour").type)
    assert games.cast(want_games.schema).equals(want_games)
    assert turns.cast(want_turns.schema).equals(want_turns)
