"""The game loop and the batch loop of Polar, in numba.

``play_games`` plays a whole batch in one jitted call. Per game ``g``:

- inputs: ``sizes[g]``, ``swaps[g]`` (0/1), ``modes[g]`` (score_n code),
  ``komis2[g]`` (komi in half points, P7: set on the game's position, so
  every search copy reads the winner as the game does),
  ``kinds[g, seat]`` and ``params[g, seat, :]`` (strategy codes, see
  ``policies.py``), ``seeds[g, seat]`` (63-bit stream seeds of "seat0",
  "seat1");
- outputs: one entry per game in each array of the ``games`` tuple
  (``GAME_FIELDS`` order) and, when ``record`` is set, one row per turn in
  the ``turns`` tuple (``TURN_FIELDS`` order), written compactly from row 0;
  the caller sizes the turn arrays with ``max_turns`` per game.

A game: seat 0 proposes the opening pair (P2) from its stream, knowing
whether swap is on; with swap, seat 1 sees the opening and picks a colour
from its stream, else seat 0 is Black. The opening is
turn 0 (player 0, colour black, ``point`` = black stone, ``point2`` = white
stone). Then the colour to move plays or, with no legal move, passes (P5);
two passes in a row end the game (``END_BOTH_PASSED``). A game of n points
has at most ``2n - 1`` turns, so the cap ``2n`` (``END_TURN_LIMIT``) is a
guard that never fires in play.

A game reads nothing but its own inputs and streams (scratch arrays are reset
per game), so its result does not depend on the rest of the batch.

Recording costs little: ``n_legal`` is read from ``legal_count``'s tracker,
which the recorded game keeps in step (``play_tracked``); a random seat then
reads legality from the tracker's flags (``random_move_flagged``, the same
draws). Random seats call ``random_move`` directly rather than through
``choose_move``, whose scratch-tuple arguments cost more than the move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.jit import kernel
from rules.polar.core import (
    BLACK,
    M_SCORE_B,
    M_SCORE_W,
    M_TO_MOVE,
    WHITE,
    game_over,
    group_tally,
    legal_moves,
    neighbour_table,
    new_state,
    place,
    play,
    reset_state,
    set_komi,
    winner_colour,
)
from rules.polar.legal_count import legal_row, n_legal, new_tracker, play_tracked, start_opening
from rules.polar.mcts import new_tree, search, tree_capacity
from rules.polar.policies import (
    C,
    CHOOSE,
    CHOOSE_CENTRE,
    EPSILON,
    GREEDY,
    MCTS,
    OPENING,
    OPENING_EDGE,
    PLAYOUT,
    PLAYOUT_EPS,
    PLAYOUTS,
    RANDOM,
    edge_opening,
    greedy_move,
    n_openings,
    nearer_centre,
    random_move,
    random_move_flagged,
    random_opening,
)
from rules.polar.rng import below, seed_stream

END_BOTH_PASSED = 0
END_TURN_LIMIT = 1
END_REASONS = ("both_passed", "turn_limit")

GAME_FIELDS = (
    "winner", "score_0", "score_1", "end_reason", "n_turns", "colour_0", "opening_a",
    "opening_b", "chooser_colour", "n_passes", "n_groups", "n_scoring_groups",
    "black_score", "white_score",
)  # fmt: skip
TURN_FIELDS = (
    "game_pos", "turn", "player", "score_0", "score_1", "colour", "point", "point2", "x", "y",
    "n_legal",
)  # fmt: skip

OPENING_CANDIDATES = 4


def max_turns(size):
    """Rows a game of this size may write to ``turns`` (cap plus the opening); sizes may be an array."""
    return 2 * size * size + 1


@kernel
def _search(st, n, nbr, prm, budget, rng, scratch):
    tree, sim, tmp, cand = scratch
    return search(
        st, n, nbr, rng, budget, prm[C], int(prm[PLAYOUT]), prm[PLAYOUT_EPS], tree, sim, tmp, cand
    )


@kernel
def choose_move(st, n, nbr, kind, prm, rng, scratch):
    """The point the colour to move plays, or -1 when it must pass."""
    _, _, tmp, cand = scratch
    c = st[6 * n + M_TO_MOVE]
    if kind == RANDOM:
        return random_move(st, n, nbr, c, rng, tmp)
    if kind == GREEDY:
        return greedy_move(st, n, nbr, c, rng, tmp, cand, prm[EPSILON])
    k = legal_moves(st, n, nbr, c, cand)
    if k <= 1:
        return cand[0] if k == 1 else -1
    p, _ = _search(st, n, nbr, prm, int(prm[PLAYOUTS]), rng, scratch)
    return p


@kernel
def set_opening(st, n, nbr, mode, a, b, tmp):
    """Empty board with the black stone on a and the white on b, Black to move (P2, P3)."""
    reset_state(st, mode)
    place(st, n, nbr, a, BLACK, tmp)
    place(st, n, nbr, b, WHITE, tmp)
    st[6 * n + M_TO_MOVE] = BLACK


@kernel
def propose(size, swap, st, n, nbr, mode, kind, prm, rng, scratch):
    """Seat 0's opening (black point, white point) (P2).

    MCTS searches a few random pairs (``OPENING_CANDIDATES``, each with
    playouts/4) and keeps, with ``swap``, the one whose value for Black is
    nearest one half (the chooser takes whichever colour is better, so the
    proposer offers a balanced pair); without ``swap`` the proposer is Black
    and keeps the pair with the highest value for Black. Random and greedy
    propose a uniform random pair whatever ``swap`` says: every opening is
    one black and one white stone in one group of two equal sections, so it
    scores 0-0 and every pair ties on greedy's immediate margin; greedy with
    ``opening=edge`` proposes along the edge (``edge_opening``).
    """
    if kind == GREEDY and prm[OPENING] == OPENING_EDGE:
        return edge_opening(size, swap, rng)
    if kind != MCTS:
        return random_opening(size, rng)
    budget = max(1, int(prm[PLAYOUTS]) // OPENING_CANDIDATES)
    best_a, best_b, best_key = -1, -1, -2.0
    for _ in range(OPENING_CANDIDATES):
        a, b = random_opening(size, rng)
        set_opening(st, n, nbr, mode, a, b, scratch[2])
        _, v = _search(st, n, nbr, prm, budget, rng, scratch)
        key = -abs(v - 0.5) if swap else v
        if key > best_key:
            best_a, best_b, best_key = a, b, key
    return best_a, best_b


@kernel
def choose_colour(size, a, b, st, n, nbr, kind, prm, rng, scratch):
    """Seat 1's colour after seeing the opening ``a`` (black), ``b`` (white) in
    ``st`` (Black to move): random; greedy: Black (the tempo; the opening scores
    0-0 and Black moves next, with a move that scores at once), or with
    ``choose=centre`` the colour whose stone is nearer the centre
    (``nearer_centre``); or the colour the search rates better (MCTS)."""
    if kind == RANDOM:
        return below(rng, 2)
    if kind == GREEDY:
        return nearer_centre(size, a, b) if prm[CHOOSE] == CHOOSE_CENTRE else BLACK
    _, v = _search(st, n, nbr, prm, int(prm[PLAYOUTS]), rng, scratch)
    return BLACK if v >= 0.5 else WHITE


@kernel
def _record(turns, row, pos, turn, seat, colour_0, st, n, size, colour, p, p2, n_legal):
    t_game, t_turn, t_player, t_s0, t_s1, t_colour, t_point, t_point2, t_x, t_y, t_nlegal = turns
    sb, sw = st[6 * n + M_SCORE_B], st[6 * n + M_SCORE_W]
    t_game[row] = pos
    t_turn[row] = turn
    t_player[row] = seat
    t_s0[row] = sb if colour_0 == BLACK else sw
    t_s1[row] = sw if colour_0 == BLACK else sb
    t_colour[row] = colour
    t_point[row] = p
    t_point2[row] = p2
    t_x[row] = p % size if p >= 0 else -1
    t_y[row] = p // size if p >= 0 else -1
    t_nlegal[row] = n_legal


@kernel
def _store_game(games, g, st, n, end, n_turns, passes, colour_0, chooser, a, b):
    """Write game g's row of the ``games`` arrays from its final position (P7)."""
    g_winner, g_s0, g_s1, g_end, g_nturns, g_col0, g_a, g_b, g_chooser, g_passes, g_groups, g_scoring, g_black, g_white = games
    sb, sw = st[6 * n + M_SCORE_B], st[6 * n + M_SCORE_W]
    w = winner_colour(st, n)
    g_winner[g] = -1 if w < 0 else (0 if w == colour_0 else 1)
    g_s0[g] = sb if colour_0 == BLACK else sw
    g_s1[g] = sw if colour_0 == BLACK else sb
    g_end[g] = end
    g_nturns[g] = n_turns
    g_col0[g] = colour_0
    g_a[g] = a
    g_b[g] = b
    g_chooser[g] = chooser
    g_passes[g] = passes
    g_groups[g], g_scoring[g] = group_tally(st, n)
    g_black[g] = sb
    g_white[g] = sw


@kernel
def play_game(g, size, swap, mode, kinds, params, rngs, st, nbr, scratch, trk, record, games, turns, row):
    """Play game ``g`` of the batch into ``games[*][g]`` and ``turns`` from ``row``; return the next row.

    With ``record``, ``trk`` (``legal_count``) follows the game so that each
    turn's ``n_legal`` is a read, not a scan of the board.
    """
    n = size * size
    tmp = scratch[2]
    a, b = propose(size, swap, st, n, nbr, mode, kinds[0], params[0], rngs[0], scratch)
    set_opening(st, n, nbr, mode, a, b, tmp)
    chooser = choose_colour(size, a, b, st, n, nbr, kinds[1], params[1], rngs[1], scratch) if swap else WHITE
    colour_0 = 1 - chooser
    black_seat = 0 if colour_0 == BLACK else 1
    if record:
        start_opening(st, n, nbr, trk, a, b)
        _record(turns, row, g, 0, 0, colour_0, st, n, size, BLACK, a, b, n_openings(size))
        row += 1
    turn, passes, end = 1, 0, END_BOTH_PASSED
    while not game_over(st, n):
        if turn >= 2 * n:
            end = END_TURN_LIMIT
            break
        c = st[6 * n + M_TO_MOVE]
        seat = black_seat if c == BLACK else 1 - black_seat
        if kinds[seat] != RANDOM:
            p = choose_move(st, n, nbr, kinds[seat], params[seat], rngs[seat], scratch)
        elif record:
            p = random_move_flagged(st, n, rngs[seat], trk, legal_row(n, c))
        else:
            p = random_move(st, n, nbr, c, rngs[seat], tmp)
        if p < 0:
            passes += 1
        if record:
            mover_legal = n_legal(trk, n, c)
            play_tracked(st, n, nbr, trk, p, tmp)
            _record(turns, row, g, turn, seat, colour_0, st, n, size, c, p, -1, mover_legal)
            row += 1
        else:
            play(st, n, nbr, p, tmp)
        turn += 1
    _store_game(games, g, st, n, end, turn, passes, colour_0, chooser, a, b)
    return row


@kernel
def _capacity(sizes, kinds, params):
    cap = 1
    for g in range(sizes.shape[0]):
        for seat in range(2):
            if kinds[g, seat] == MCTS:
                n = sizes[g] * sizes[g]
                cap = max(cap, tree_capacity(int(params[g, seat, PLAYOUTS]), n))
    return cap


@njit(cache=True)
def play_games(sizes, swaps, modes, komis2, kinds, params, seeds, record, games, turns):
    """Play every game of the batch; return the number of turn rows written."""
    n_max = 1
    for g in range(sizes.shape[0]):
        n_max = max(n_max, sizes[g] * sizes[g])
    scratch = (
        new_tree(_capacity(sizes, kinds, params)),
        np.empty(1, np.int32),
        np.empty(8, np.int32),
        np.empty(n_max, np.int32),
    )
    rngs = np.empty((2, 4), np.uint64)
    row = 0
    last_size = -1
    st = new_state(1, 0)
    nbr = neighbour_table(1)
    trk = new_tracker(1)
    for g in range(sizes.shape[0]):
        size = sizes[g]
        if size != last_size:
            st = new_state(size * size, modes[g])
            nbr = neighbour_table(size)
            scratch = (scratch[0], np.empty(st.shape[0], np.int32), scratch[2], scratch[3])
            trk = new_tracker(size * size)
            last_size = size
        for seat in range(2):
            seed_stream(rngs[seat], seeds[g, seat])
        set_komi(st, komis2[g])
        row = play_game(
            g, size, swaps[g], modes[g], kinds[g], params[g], rngs, st, nbr, scratch, trk, record,
            games, turns, row,
        )
    return row
