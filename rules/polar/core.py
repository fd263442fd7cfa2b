"""The Polar board as one flat int32 array, and the kernels that read and change it.

A position of a board with ``n = size * size`` points (point ``p`` is at
``x = p % size``, ``y = p // size``) is one ``int32[6 * n + N_META]`` array
``st`` so that a search can copy it with one slice assignment:

==============  =========================================================
``st[0:n]``     colour on each point: ``EMPTY`` (-1), ``BLACK`` (0), ``WHITE`` (1)
``st[n:2n]``    union-find parent of each stone; a group is a tree, its root
                a stone of the group (stones are never removed, so groups
                only merge)
``st[2n:3n]``   at a group root: black stones in the group
``st[3n:4n]``   at a group root: white stones in the group
``st[4n:5n]``   the empty points, first ``st[6n + M_EMPTIES]`` entries valid
                (order is arbitrary and changes as points are sampled)
``st[5n:6n]``   where each empty point sits in that list (-1 when occupied)
``st[6n:]``     meta: see the ``M_*`` offsets
==============  =========================================================

The komi (P7's balance knob, ``M_KOMI2``, in half points so that 6.5 is a
whole number) belongs to the game, not the position: ``reset_state`` keeps
it, ``set_komi`` sets it once a game, and a search's copies of the position
read the winner with it, so MCTS plays for the game it is in.

Why counts are enough (P4): a group never holds two sections of one colour,
because two same-coloured sections can only be joined through stones of the
other colour, which would make a third section. So a group is one section
(one count is zero) or exactly one black and one white section, and the
sizes of its sections are its two counts.

Legality of colour ``c`` at ``p``: the new group is ``p`` plus every group
next to it; the sections of those groups stay separate unless they have
colour ``c`` and touch ``p``. Hence sections after the move =
``1 + sum(sections of each neighbouring group) - (neighbouring groups whose
c-section touches p)``, a legal move has at most 2. That needs only the up to
four neighbours and their roots: O(neighbours).

Scores (P6) are kept incrementally in meta (integers, points of each colour):
a move subtracts the old scores of the groups it merges and adds the score of
the merged group. ``score_n`` modes: ``MODE_MAJORITY`` (n = larger section),
``MODE_GROUP`` (n = whole group), ``MODE_DIFFERENCE`` (larger - smaller).

``nbr`` is the ``int32[n, 4]`` table of orthogonal neighbours, -1 padded.
``tmp`` is an ``int32[8]`` scratch: ``tmp[0:4]`` distinct neighbouring
roots, ``tmp[4:8]`` 1 where that root's group touches ``p`` with colour ``c``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.jit import kernel

EMPTY = -1
BLACK = 0
WHITE = 1

MODE_MAJORITY = 0
MODE_GROUP = 1
MODE_DIFFERENCE = 2
SCORE_MODES = {"majority": MODE_MAJORITY, "group": MODE_GROUP, "difference": MODE_DIFFERENCE}

M_EMPTIES = 0  # number of empty points
M_SCORE_B = 1  # black's running score
M_SCORE_W = 2  # white's running score
M_TO_MOVE = 3  # colour to move
M_PASSES = 4  # passes in a row (2 ends the game)
M_MODE = 5  # score_n mode
M_KOMI2 = 6  # komi in half points, added to White's total when the winner is read (P7)
N_META = 7


@njit(cache=True)
def neighbour_table(size):
    """``int32[size*size, 4]`` orthogonal neighbours of each point, -1 padded."""
    n = size * size
    nbr = np.full((n, 4), -1, np.int32)
    for p in range(n):
        x, y, k = p % size, p // size, 0
        if x > 0:
            nbr[p, k] = p - 1
            k += 1
        if x < size - 1:
            nbr[p, k] = p + 1
            k += 1
        if y > 0:
            nbr[p, k] = p - size
            k += 1
        if y < size - 1:
            nbr[p, k] = p + size
    return nbr


@kernel
def n_points(st):
    return (st.shape[0] - N_META) // 6


@njit(cache=True)
def new_state(n, mode):
    """An empty board of ``n`` points, black to move, no komi."""
    st = np.zeros(6 * n + N_META, np.int32)
    reset_state(st, mode)
    return st


def half_points(komi: float) -> int:
    """The komi as the core keeps it (``M_KOMI2``): in half points, a whole number."""
    return round(2 * komi)


@kernel
def set_komi(st, komi2):
    """Komi of ``komi2`` half points for this position and every copy of it.

    A rule of the game, not of the position: ``reset_state`` keeps it, so it is
    set once per game and a search's copies of the position carry it."""
    st[6 * n_points(st) + M_KOMI2] = komi2


@kernel
def reset_state(st, mode):
    """Empty board, Black to move, scores 0 (the komi is kept: ``set_komi``)."""
    n = n_points(st)
    for p in range(n):
        st[p] = EMPTY
        st[n + p] = p
        st[2 * n + p] = 0
        st[3 * n + p] = 0
        st[4 * n + p] = p
        st[5 * n + p] = p
    m = 6 * n
    st[m + M_EMPTIES] = n
    st[m + M_SCORE_B] = 0
    st[m + M_SCORE_W] = 0
    st[m + M_TO_MOVE] = BLACK
    st[m + M_PASSES] = 0
    st[m + M_MODE] = mode


@kernel(inline="always")
def find(st, n, p):
    """Root of the group of stone ``p``; union by size keeps trees O(log n) deep."""
    while st[n + p] != p:
        p = st[n + p]
    return p


@kernel
def triangular(k):
    return k * (k + 1) // 2


@kernel
def group_score(b, w, mode):
    """(black points, white points) a group of b black and w white stones scores."""
    if b == 0 or w == 0 or b == w:
        return 0, 0
    if mode == MODE_GROUP:
        k = b + w
    elif mode == MODE_DIFFERENCE:
        k = abs(b - w)
    else:
        k = max(b, w)
    if b > w:
        return triangular(k), 0
    return 0, triangular(k)


@kernel
def neighbour_groups(st, n, nbr, p, c, tmp):
    """Fill ``tmp`` with the distinct groups next to ``p``; return (count, sections after c at p)."""
    k = 0
    for d in range(4):
        q = nbr[p, d]
        if q < 0:
            break
        col = st[q]
        if col == EMPTY:
            continue
        r = find(st, n, q)
        j = 0
        while j < k and tmp[j] != r:
            j += 1
        if j == k:
            tmp[k] = r
            tmp[4 + k] = 0
            k += 1
        if col == c:
            tmp[4 + j] = 1
    sections = 1
    for j in range(k):
        r = tmp[j]
        sections += (st[2 * n + r] > 0) + (st[3 * n + r] > 0) - tmp[4 + j]
    return k, sections


@kernel(inline="always")
def _neighbour_slot(st, n, nbr, p, d, c):
    """(root or a unique negative id when empty, sections of that group, has colour c)."""
    q = nbr[p, d]
    if q < 0 or st[q] == EMPTY:
        return -1 - d, 0, False
    r = find(st, n, q)
    return r, (st[2 * n + r] > 0) + (st[3 * n + r] > 0), st[q] == c


@kernel
def is_legal(st, n, nbr, p, c):
    """P4: may colour ``c`` play on empty point ``p``?

    The section count of ``neighbour_groups`` written without data-dependent
    branches (this check runs for every empty point on every turn): each of
    the four neighbour slots adds its group's sections, minus one when the
    group's c-section touches p, counted at the slot where the root first
    appears.
    """
    r0, s0, a0 = _neighbour_slot(st, n, nbr, p, 0, c)
    r1, s1, a1 = _neighbour_slot(st, n, nbr, p, 1, c)
    r2, s2, a2 = _neighbour_slot(st, n, nbr, p, 2, c)
    r3, s3, a3 = _neighbour_slot(st, n, nbr, p, 3, c)
    e01, e02, e03 = r0 == r1, r0 == r2, r0 == r3
    e12, e13, e23 = r1 == r2, r1 == r3, r2 == r3
    t0 = a0 | (e01 & a1) | (e02 & a2) | (e03 & a3)
    t1 = a1 | (e12 & a2) | (e13 & a3)
    t2 = a2 | (e23 & a3)
    first1 = not e01
    first2 = not (e02 | e12)
    first3 = not (e03 | e13 | e23)
    sections = 1 + (s0 - t0) + first1 * (s1 - t1) + first2 * (s2 - t2) + first3 * (s3 - a3)
    return sections <= 2


@kernel
def legality(st, n, nbr, p):
    """(Black may play on empty ``p``, White may): ``is_legal`` for both colours at the
    price of one look at the neighbours."""
    r0, s0, b0 = _neighbour_slot(st, n, nbr, p, 0, BLACK)
    r1, s1, b1 = _neighbour_slot(st, n, nbr, p, 1, BLACK)
    r2, s2, b2 = _neighbour_slot(st, n, nbr, p, 2, BLACK)
    r3, s3, b3 = _neighbour_slot(st, n, nbr, p, 3, BLACK)
    w0, w1, w2, w3 = r0 >= 0 and not b0, r1 >= 0 and not b1, r2 >= 0 and not b2, r3 >= 0 and not b3
    e01, e02, e03 = r0 == r1, r0 == r2, r0 == r3
    e12, e13, e23 = r1 == r2, r1 == r3, r2 == r3
    first1 = not e01
    first2 = not (e02 | e12)
    first3 = not (e03 | e13 | e23)
    base = 1 + s0 + first1 * s1 + first2 * s2 + first3 * s3
    tb0 = b0 | (e01 & b1) | (e02 & b2) | (e03 & b3)
    tb1 = b1 | (e12 & b2) | (e13 & b3)
    tb2 = b2 | (e23 & b3)
    tw0 = w0 | (e01 & w1) | (e02 & w2) | (e03 & w3)
    tw1 = w1 | (e12 & w2) | (e13 & w3)
    tw2 = w2 | (e23 & w3)
    black = base - tb0 - first1 * tb1 - first2 * tb2 - first3 * b3
    white = base - tw0 - first1 * tw1 - first2 * tw2 - first3 * w3
    return black <= 2, white <= 2


@kernel
def merged_counts(st, n, c, k, tmp):
    """(black, white, old black score, old white score) of the group c at p would make."""
    b = 1 if c == BLACK else 0
    w = 1 - b
    mode = st[6 * n + M_MODE]
    old_b = 0
    old_w = 0
    for j in range(k):
        r = tmp[j]
        gb, gw = st[2 * n + r], st[3 * n + r]
        sb, sw = group_score(gb, gw, mode)
        old_b += sb
        old_w += sw
        b += gb
        w += gw
    return b, w, old_b, old_w


@kernel
def score_change(st, n, nbr, p, c, tmp):
    """(legal, change of black's score, change of white's score) if c plays at p."""
    k, sections = neighbour_groups(st, n, nbr, p, c, tmp)
    if sections > 2:
        return False, 0, 0
    b, w, old_b, old_w = merged_counts(st, n, c, k, tmp)
    sb, sw = group_score(b, w, st[6 * n + M_MODE])
    return True, sb - old_b, sw - old_w


@kernel
def remove_empty(st, n, p):
    m = 6 * n
    i = st[5 * n + p]
    last = st[m + M_EMPTIES] - 1
    q = st[4 * n + last]
    st[4 * n + i] = q
    st[5 * n + q] = i
    st[4 * n + last] = p
    st[5 * n + p] = -1
    st[m + M_EMPTIES] = last


@kernel
def swap_empties(st, n, i, j):
    """Exchange entries i and j of the empty-point list."""
    p, q = st[4 * n + i], st[4 * n + j]
    st[4 * n + i] = q
    st[4 * n + j] = p
    st[5 * n + q] = i
    st[5 * n + p] = j


@kernel
def place(st, n, nbr, p, c, tmp):
    """Put a stone of colour c on empty p (legality is the caller's job); update scores.

    Steps: find the neighbouring groups; take their scores off; hang every
    root (and p) under the largest root; store the merged counts; add the
    merged group's score; take p off the empty list.
    """
    k, _ = neighbour_groups(st, n, nbr, p, c, tmp)
    join_groups(st, n, p, c, k, tmp)


@kernel
def join_groups(st, n, p, c, k, tmp):
    """The rest of ``place`` once ``neighbour_groups`` has put p's k groups in ``tmp``."""
    m = 6 * n
    b, w, old_b, old_w = merged_counts(st, n, c, k, tmp)
    root = p
    biggest = 0
    for j in range(k):
        r = tmp[j]
        size = st[2 * n + r] + st[3 * n + r]
        if size > biggest:
            biggest = size
            root = r
    for j in range(k):
        st[n + tmp[j]] = root
    st[p] = c
    st[n + p] = root
    st[2 * n + root] = b
    st[3 * n + root] = w
    sb, sw = group_score(b, w, st[m + M_MODE])
    st[m + M_SCORE_B] += sb - old_b
    st[m + M_SCORE_W] += sw - old_w
    remove_empty(st, n, p)


@kernel
def play(st, n, nbr, p, tmp):
    """The colour to move plays p, or passes when p < 0 (P3, P5)."""
    c = st[6 * n + M_TO_MOVE]
    if p >= 0:
        place(st, n, nbr, p, c, tmp)
    end_turn(st, n, c, p < 0)


@kernel(inline="always")
def end_turn(st, n, c, passed):
    """Count a pass (or clear the count after a stone) and hand the move to the other colour."""
    m = 6 * n
    st[m + M_PASSES] = st[m + M_PASSES] + 1 if passed else 0
    st[m + M_TO_MOVE] = 1 - c


@kernel
def game_over(st, n):
    """P5: both players had to pass in succession."""
    return st[6 * n + M_PASSES] >= 2


@kernel
def count_legal(st, n, nbr, c):
    count = 0
    for i in range(st[6 * n + M_EMPTIES]):
        if is_legal(st, n, nbr, st[4 * n + i], c):
            count += 1
    return count


@kernel
def legal_moves(st, n, nbr, c, out):
    """Write the legal points of colour c to ``out``; return how many."""
    count = 0
    for i in range(st[6 * n + M_EMPTIES]):
        p = st[4 * n + i]
        if is_legal(st, n, nbr, p, c):
            out[count] = p
            count += 1
    return count


@kernel
def group_tally(st, n):
    """(groups, scoring groups) on the board."""
    groups = 0
    scoring = 0
    mode = st[6 * n + M_MODE]
    for p in range(n):
        if st[p] != EMPTY and st[n + p] == p:
            groups += 1
            sb, sw = group_score(st[2 * n + p], st[3 * n + p], mode)
            if sb + sw > 0:
                scoring += 1
    return groups, scoring


@kernel
def winner_colour(st, n):
    """P7: BLACK, WHITE, or -1 for a draw; White's total is its score plus the komi."""
    m = 6 * n
    margin2 = 2 * (np.int64(st[m + M_SCORE_B]) - np.int64(st[m + M_SCORE_W])) - np.int64(st[m + M_KOMI2])
    if margin2 > 0:
        return BLACK
    if margin2 < 0:
        return WHITE
    return -1
