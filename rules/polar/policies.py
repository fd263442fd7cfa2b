"""Move and opening choices of the strategies, as numba kernels.

A seat's strategy is a ``kind`` code and a ``float64[N_PARAMS]`` parameter
vector (see ``strategies.py`` for the pydantic side):

==========  ===================================================================
kind        params
==========  ===================================================================
RANDOM      none: uniform over legal moves, random opening and colour
GREEDY      ``[EPSILON, OPENING, CHOOSE]``: best immediate score margin for itself,
            ties at random; a random move with probability epsilon. Opening
            ``OPENING_RANDOM`` or ``OPENING_EDGE`` (``edge_opening``); as
            chooser ``CHOOSE_BLACK`` or ``CHOOSE_CENTRE`` (``nearer_centre``)
MCTS        ``[PLAYOUTS, C, PLAYOUT, PLAYOUT_EPS]``: UCT search (see ``mcts.py``)
==========  ===================================================================

Every draw comes from the seat's own stream ``rng`` (``rng.py``). ``cand``
is an ``int32[n]`` scratch for candidate points, ``tmp`` the ``int32[8]``
scratch of ``core.py``.

Uniform random move without listing the legal moves: draw empty points
without replacement (swapping tried ones to the end of the empty list) until
one is legal; the first legal point of a uniform random order is uniform over
the legal points, and when all fail there is no legal move (P5: pass).
``random_move_flagged`` makes the same draws but reads legality from flags
kept by ``legal_count`` (used while turns are recorded, which keeps them).
"""

from __future__ import annotations

from sim.jit import kernel
from rules.polar.core import BLACK, M_EMPTIES, WHITE, is_legal, score_change, swap_empties
from rules.polar.rng import below, uniform

RANDOM = 0
GREEDY = 1
MCTS = 2

EPSILON = 0
OPENING = 1
CHOOSE = 2
PLAYOUTS = 0
C = 1
PLAYOUT = 2
PLAYOUT_EPS = 3
N_PARAMS = 4

PLAYOUT_RANDOM = 0
PLAYOUT_GREEDY = 1

OPENING_RANDOM = 0
OPENING_EDGE = 1
CHOOSE_BLACK = 0
CHOOSE_CENTRE = 1


@kernel
def random_move(st, n, nbr, c, rng, tmp):
    """A uniform legal point for colour c, or -1 when there is none."""
    untried = st[6 * n + M_EMPTIES]
    while untried > 0:
        i = below(rng, untried)
        p = st[4 * n + i]
        if is_legal(st, n, nbr, p, c):
            return p
        untried -= 1
        swap_empties(st, n, i, untried)
    return -1


@kernel
def random_move_flagged(st, n, rng, legal, base):
    """``random_move`` when legality is already known: ``legal[base + p]`` is 1 where the
    mover may play. The same draws, the same point, the same reordering of the
    empty list as ``random_move``; only the check is a read."""
    untried = st[6 * n + M_EMPTIES]
    while untried > 0:
        i = below(rng, untried)
        p = st[4 * n + i]
        if legal[base + p]:
            return p
        untried -= 1
        swap_empties(st, n, i, untried)
    return -1


@kernel
def greedy_move(st, n, nbr, c, rng, tmp, cand, epsilon):
    """The legal point with the best immediate margin for c (ties at random), or -1."""
    if epsilon > 0.0 and uniform(rng) < epsilon:
        return random_move(st, n, nbr, c, rng, tmp)
    best = 0
    ties = 0
    for i in range(st[6 * n + M_EMPTIES]):
        p = st[4 * n + i]
        legal, db, dw = score_change(st, n, nbr, p, c, tmp)
        if not legal:
            continue
        margin = db - dw if c == BLACK else dw - db
        # the first legal point sets ``best``: no sentinel, since on the largest
        # boards one move can cost more than 2**30 (a fixed floor made it pass)
        if ties == 0 or margin > best:
            best = margin
            ties = 0
        if margin == best:
            cand[ties] = p
            ties += 1
    if ties == 0:
        return -1
    return cand[below(rng, ties)]


@kernel
def random_opening(size, rng):
    """(black point, white point): a uniform ordered pair of adjacent points (P2)."""
    per_axis = size * (size - 1)
    e = below(rng, 2 * per_axis)
    if e < per_axis:
        y, x = e // (size - 1), e % (size - 1)
        a, b = y * size + x, y * size + x + 1
    else:
        e -= per_axis
        y, x = e // size, e % size
        a, b = y * size + x, (y + 1) * size + x
    if uniform(rng) < 0.5:
        return a, b
    return b, a


@kernel
def ring(size, p):
    """The square ring of point ``p`` around the centre (0 at the centre)."""
    half = size // 2
    return max(abs(p // size - half), abs(p % size - half))


@kernel
def centre_distance(size, p):
    """Steps from point ``p`` to the centre; adjacent points differ by exactly one."""
    half = size // 2
    return abs(p // size - half) + abs(p % size - half)


@kernel
def edge_opening(size, swap, rng):
    """A uniform pair of adjacent points along the board's edge (both on the
    outer ring); with ``swap`` the white stone is the one nearer the centre,
    without it the black one (the proposer plays Black). Greedy games show
    why (``polsim analyze --table openings``): the colour whose stone is nearer
    the centre wins more, Black moves next, and on the edge the two nearly
    cancel, while nearer the centre the nearer stone wins outright."""
    outer = size // 2
    while True:
        a, b = random_opening(size, rng)
        if ring(size, a) == outer and ring(size, b) == outer:
            if (centre_distance(size, b) < centre_distance(size, a)) == swap:
                return a, b


@kernel
def nearer_centre(size, a, b):
    """BLACK if the black stone ``a`` is nearer the centre than the white ``b``, else WHITE."""
    return BLACK if centre_distance(size, a) < centre_distance(size, b) else WHITE


@kernel
def n_openings(size):
    """Ordered adjacent pairs: the choices the proposer has."""
    return 4 * size * (size - 1)
