"""Legal moves of each colour, kept up to date move by move (the turns' ``n_legal``).

Counting the legal points of the mover by checking every empty point on every
turn cost more than playing the game. Instead a tracker remembers, for each
empty point and colour, whether the point is legal, and after a stone is
placed re-checks only the points whose answer can have changed.

Legality of ``c`` at an empty ``p`` (``core.is_legal``) reads only the groups
next to ``p``: which groups they are (roots), how many sections each has, and
the colours of ``p``'s neighbours. Placing a stone at ``q`` that makes the
group ``G`` changes those facts only for the empty neighbours of ``q`` — unless
it merged groups (their stones get a new root) or added a section to a group;
then every empty neighbour of ``G`` is re-checked. Walking ``G`` needs its
stones: a circular list ``next`` links the stones of each group (merging two
groups swaps one ``next`` entry of each).

The tracker is one flat ``int32[3 * n + 2]`` array ``trk`` for a board of
``n`` points (it reads the ``core`` state ``st`` and never writes it):

=================  ======================================================
``trk[0:n]``       ``next``: the following stone of the same group (a ring)
``trk[n:2n]``      1 where Black may play now, else 0 (occupied points: 0)
``trk[2n:3n]``     the same for White
``trk[3n + c]``    legal points of colour ``c``: the sum of its row
=================  ======================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.jit import kernel
from rules.polar.core import EMPTY, M_TO_MOVE, end_turn, join_groups, legality, neighbour_groups, play


@njit(cache=True)
def new_tracker(n):
    return np.zeros(3 * n + 2, np.int32)


@kernel(inline="always")
def legal_row(n, c):
    """Offset in ``trk`` of colour ``c``'s legal flags."""
    return (1 + c) * n


@kernel(inline="always")
def n_legal(trk, n, c):
    """Legal points colour ``c`` has in the tracked position."""
    return trk[3 * n + c]


@kernel(inline="always")
def _recheck(st, n, nbr, trk, p):
    """Re-check empty point ``p`` for both colours and keep the counts in step."""
    black, white = legality(st, n, nbr, p)
    now_b = 1 if black else 0  # ints, not bools: bool arithmetic here costs 2.5x
    now_w = 1 if white else 0
    was_b, was_w = trk[n + p], trk[2 * n + p]
    trk[n + p] = now_b
    trk[2 * n + p] = now_w
    trk[3 * n] += now_b - was_b
    trk[3 * n + 1] += now_w - was_w


@kernel(inline="always")
def _occupy(trk, n, p):
    for c in range(2):
        trk[3 * n + c] -= trk[(1 + c) * n + p]
        trk[(1 + c) * n + p] = 0


@kernel(inline="always")
def _join(trk, a, b):
    """Merge the rings of stones ``a`` and ``b`` (which are in different rings)."""
    na = trk[a]
    trk[a] = trk[b]
    trk[b] = na


@kernel(inline="always")
def _recheck_around(st, n, nbr, trk, p):
    for d in range(4):
        q = nbr[p, d]
        if q < 0:
            break
        if st[q] == EMPTY:
            _recheck(st, n, nbr, trk, q)


@kernel(inline="always")
def _link(st, n, trk, p, k, sections, tmp):
    """Link ``p`` into the rings of its ``k`` neighbouring groups (``tmp``, before the
    stone is placed); return True when only ``p``'s neighbours can change legality."""
    trk[p] = p
    for j in range(k):
        _join(trk, p, tmp[j])
    if k == 0:
        return True
    if k > 1:
        return False
    r = tmp[0]
    return sections == (st[2 * n + r] > 0) + (st[3 * n + r] > 0)


@kernel(inline="always")
def _after_place(st, n, nbr, trk, p, local):
    """Re-check what the stone just placed on ``p`` can have changed (``local``: ``_link``'s answer)."""
    _occupy(trk, n, p)
    if local:
        _recheck_around(st, n, nbr, trk, p)
        return
    s = p
    while True:
        _recheck_around(st, n, nbr, trk, s)
        s = trk[s]
        if s == p:
            break


@kernel
def start_opening(st, n, nbr, trk, a, b):
    """Track the position of ``engine.set_opening``: only the adjacent stones ``a`` and
    ``b`` (P2), one group of two sections."""
    for p in range(n):
        trk[p] = p
        trk[n + p] = 1
        trk[2 * n + p] = 1
    trk[3 * n] = n
    trk[3 * n + 1] = n
    _join(trk, a, b)
    _occupy(trk, n, a)
    _occupy(trk, n, b)
    _recheck_around(st, n, nbr, trk, a)
    _recheck_around(st, n, nbr, trk, b)


@kernel
def play_tracked(st, n, nbr, trk, p, tmp):
    """``core.play`` (``p`` < 0 passes) with the tracker kept in step."""
    if p < 0:
        play(st, n, nbr, p, tmp)
        return
    c = st[6 * n + M_TO_MOVE]
    k, sections = neighbour_groups(st, n, nbr, p, c, tmp)
    local = _link(st, n, trk, p, k, sections, tmp)
    join_groups(st, n, p, c, k, tmp)
    end_turn(st, n, c, False)
    _after_place(st, n, nbr, trk, p, local)
