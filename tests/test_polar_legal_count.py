"""The fast paths of turn recording give exactly what the plain checks give.

``legal_count``'s tracker against a full scan of the board after every move;
``random_move_flagged`` against ``random_move`` draw by draw; the batch's
vectorised stream seeds against ``rules.seeds.stream_seed``; recorded and
unrecorded batches play the same games.
"""

import numpy as np
import pytest

from rules.polar import core, legal_count
from rules.polar.batch import pack_specs, run_core
from rules.polar.engine import set_opening
from rules.polar.model import PolarRules
from rules.polar.policies import random_move, random_move_flagged, random_opening
from rules.polar.rng import seed_stream, stream_seeds
from rules.seeds import game_seed, mix64, purpose_key, stream_seed
from tests.test_polar_games import specs_for


def assert_tracker_matches_board(st, n, nbr, trk):
    empties = [p for p in range(n) if st[p] == core.EMPTY]
    for c in (core.BLACK, core.WHITE):
        flags = trk[(1 + c) * n : (2 + c) * n]
        expected = np.zeros(n, np.int32)
        for p in empties:
            expected[p] = core.is_legal(st, n, nbr, p, c)
        assert flags.tolist() == expected.tolist()
        assert legal_count.n_legal(trk, n, c) == core.count_legal(st, n, nbr, c)


def play_tracked_game(size, seed):
    """A random game with the tracker checked against the board after the opening and
    after every move; returns the stones placed."""
    n = size * size
    nbr = core.neighbour_table(size)
    st = core.new_state(n, core.MODE_MAJORITY)
    trk = legal_count.new_tracker(n)
    tmp = np.zeros(8, np.int32)
    rng = np.zeros(4, np.uint64)
    seed_stream(rng, seed)
    a, b = random_opening(size, rng)
    set_opening(st, n, nbr, core.MODE_MAJORITY, a, b, tmp)
    legal_count.start_opening(st, n, nbr, trk, a, b)
    assert_tracker_matches_board(st, n, nbr, trk)
    moves = 0
    while not core.game_over(st, n):
        c = int(st[6 * n + core.M_TO_MOVE])
        p = random_move(st, n, nbr, c, rng, tmp)
        legal_count.play_tracked(st, n, nbr, trk, p, tmp)
        assert_tracker_matches_board(st, n, nbr, trk)
        moves += p >= 0
    return moves


@pytest.mark.parametrize("size, seed", [(5, 1), (5, 2), (7, 3), (9, 4), (9, 5), (11, 6)])
def test_tracked_legal_moves_equal_a_full_scan_after_every_move(size, seed):
    assert play_tracked_game(size, seed) > size  # a real game, not a stub


def test_legality_answers_is_legal_for_both_colours_on_reached_positions():
    size, n = 9, 81
    nbr = core.neighbour_table(size)
    tmp = np.zeros(8, np.int32)
    rng = np.zeros(4, np.uint64)
    checked = 0
    for seed in range(20):
        st = core.new_state(n, core.MODE_MAJORITY)
        seed_stream(rng, seed)
        a, b = random_opening(size, rng)
        set_opening(st, n, nbr, core.MODE_MAJORITY, a, b, tmp)
        while not core.game_over(st, n):
            for p in range(n):
                if st[p] == core.EMPTY:
                    expected = (core.is_legal(st, n, nbr, p, core.BLACK), core.is_legal(st, n, nbr, p, core.WHITE))
                    assert core.legality(st, n, nbr, p) == expected
                    checked += 1
            core.play(st, n, nbr, random_move(st, n, nbr, int(st[6 * n + core.M_TO_MOVE]), rng, tmp), tmp)
    assert checked > 10_000


def test_flagged_random_move_makes_the_same_draws_and_reorders_empties_the_same():
    size, n = 7, 49
    nbr = core.neighbour_table(size)
    for seed in range(10):
        st = core.new_state(n, core.MODE_MAJORITY)
        trk = legal_count.new_tracker(n)
        tmp = np.zeros(8, np.int32)
        rng = np.zeros(4, np.uint64)
        seed_stream(rng, seed)
        a, b = random_opening(size, rng)
        set_opening(st, n, nbr, core.MODE_MAJORITY, a, b, tmp)
        legal_count.start_opening(st, n, nbr, trk, a, b)
        while not core.game_over(st, n):
            c = int(st[6 * n + core.M_TO_MOVE])
            plain_st, plain_rng = st.copy(), rng.copy()
            expected = random_move(plain_st, n, nbr, c, plain_rng, tmp)
            got = random_move_flagged(st, n, rng, trk, legal_count.legal_row(n, c))
            assert got == expected
            assert rng.tolist() == plain_rng.tolist()
            assert st.tolist() == plain_st.tolist()  # the empty list's order included
            legal_count.play_tracked(st, n, nbr, trk, got, tmp)


def test_batch_stream_seeds_equal_rules_seeds_stream_seed():
    seeds = np.array([0, 1, (1 << 63) - 1, 1 << 62] + [game_seed(9, i) for i in range(500)], np.int64)
    for purpose in ("seat0", "seat1"):
        got = stream_seeds(seeds, np.uint64(mix64(purpose_key(purpose))))
        assert got.tolist() == [stream_seed(int(s), purpose) for s in seeds]


@pytest.mark.parametrize("a, b", [("random", "random"), ("greedy:epsilon=0.3", "random"), ("mcts:playouts=8", "random")])
def test_recording_turns_does_not_change_any_game(a, b):
    packed = pack_specs(specs_for(40, PolarRules(size=7), a, b))
    plain, _ = run_core(packed, record=False)
    recorded, turns = run_core(packed, record=True)
    for x, y in zip(plain, recorded):
        assert x.tolist() == y.tolist()
    assert len(turns[0]) == int(recorded[4].sum())  # one row per turn, n_turns each


def test_packed_specs_follow_each_spec_when_rules_and_seats_vary():
    specs = specs_for(6, PolarRules(size=5), "random", "greedy:epsilon=0.5") + specs_for(
        5, PolarRules(size=7, swap=False, score_n="group"), "mcts:playouts=3", "random", run_seed=4
    )
    packed = pack_specs(specs)
    assert packed["sizes"].tolist() == [5] * 6 + [7] * 5
    assert packed["swaps"].tolist() == [True] * 6 + [False] * 5
    assert packed["modes"].tolist() == [core.MODE_MAJORITY] * 6 + [core.MODE_GROUP] * 5
    assert packed["kinds"].tolist() == [[0, 1], [1, 0]] * 3 + [[2, 0], [0, 2], [2, 0], [0, 2], [2, 0]]
    assert packed["params"][1, 0].tolist() == [0.5, 0, 0, 0] and packed["params"][6, 0, 0] == 3.0
    assert packed["seeds"].tolist() == [[stream_seed(s.seed, "seat0"), stream_seed(s.seed, "seat1")] for s in specs]
