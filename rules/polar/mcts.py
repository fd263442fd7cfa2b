"""Monte Carlo tree search (UCT) for Polar, as numba kernels.

The tree lives in preallocated node arrays (``new_tree``), reused for every
search of a batch; each search starts from node 0 again:

================  ==========================================================
``parent``        int32[cap]  parent node (-1 for the root)
``first``         int32[cap]  first child; children are contiguous
``nchild``        int32[cap]  number of children, -1 while not expanded
``move``          int32[cap]  point played into the node (-1 = pass)
``colour``        int32[cap]  colour that played that move
``visits``        int32[cap]
``value``         float64[cap] sum of rewards for ``colour`` (win 1, draw 0.5)
================  ==========================================================

One iteration: copy the position into ``sim``; select children by UCT
(``value/visits + c*sqrt(ln(parent visits)/visits)``, unvisited children
first, in the random order they got at expansion); expand the leaf with all
legal moves (a lone pass child when there is none; no expansion when the
arrays are full); play out to the end with random moves (or epsilon-greedy
ones); back the result up. The move is the most visited root child.
Capacity: every iteration expands at most one node of at most ``n``
children, so ``(playouts + 1) * n + 1`` nodes always suffice; the arrays are
capped at ``MAX_NODES`` (about 60 MB), beyond which a very large search stops
growing its tree and keeps refining the visit counts it has.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.detmath import log
from sim.jit import kernel
from rules.polar.core import M_TO_MOVE, game_over, legal_moves, play, winner_colour
from rules.polar.policies import PLAYOUT_GREEDY, greedy_move, random_move
from rules.polar.rng import below


@njit(cache=True)
def new_tree(capacity):
    return (
        np.empty(capacity, np.int32),
        np.empty(capacity, np.int32),
        np.empty(capacity, np.int32),
        np.empty(capacity, np.int32),
        np.empty(capacity, np.int32),
        np.empty(capacity, np.int32),
        np.empty(capacity, np.float64),
    )


MAX_NODES = 2_000_000


@kernel
def tree_capacity(playouts, n):
    return min((playouts + 1) * n + 1, MAX_NODES)


@kernel
def rollout(sim, n, nbr, rng, policy, epsilon, tmp, cand):
    """Play the position in ``sim`` to its end; return the winning colour (-1 draw)."""
    while not game_over(sim, n):
        c = sim[6 * n + M_TO_MOVE]
        if policy == PLAYOUT_GREEDY:
            p = greedy_move(sim, n, nbr, c, rng, tmp, cand, epsilon)
        else:
            p = random_move(sim, n, nbr, c, rng, tmp)
        play(sim, n, nbr, p, tmp)
    return winner_colour(sim, n)


@kernel
def _init_node(tree, node, parent, move, colour):
    t_parent, t_first, t_nchild, t_move, t_colour, t_visits, t_value = tree
    t_parent[node] = parent
    t_first[node] = -1
    t_nchild[node] = -1
    t_move[node] = move
    t_colour[node] = colour
    t_visits[node] = 0
    t_value[node] = 0.0


@kernel
def _select_child(tree, node, c_explore):
    _, t_first, t_nchild, _, _, t_visits, t_value = tree
    log_n = log(float(max(t_visits[node], 1)))
    best = -1.0
    chosen = t_first[node]
    for ch in range(t_first[node], t_first[node] + t_nchild[node]):
        v = t_visits[ch]
        if v == 0:
            return ch
        u = t_value[ch] / v + c_explore * math.sqrt(log_n / v)
        if u > best:
            best = u
            chosen = ch
    return chosen


@kernel
def _expand(tree, node, used, sim, n, nbr, rng, tmp, cand):
    """Give ``node`` its children in random order; return the new node count."""
    c = sim[6 * n + M_TO_MOVE]
    k = legal_moves(sim, n, nbr, c, cand)
    if k == 0:
        cand[0] = -1
        k = 1
    if used + k > tree[0].shape[0]:
        return used
    for i in range(k - 1, 0, -1):
        j = below(rng, i + 1)
        cand[i], cand[j] = cand[j], cand[i]
    tree[1][node] = used
    tree[2][node] = k
    for i in range(k):
        _init_node(tree, used + i, node, cand[i], c)
    return used + k


@kernel
def _backup(tree, node, winner):
    t_parent, _, _, _, t_colour, t_visits, t_value = tree
    while node >= 0:
        t_visits[node] += 1
        if winner < 0:
            t_value[node] += 0.5
        elif winner == t_colour[node]:
            t_value[node] += 1.0
        node = t_parent[node]


@kernel
def search(st, n, nbr, rng, playouts, c_explore, policy, epsilon, tree, sim, tmp, cand):
    """(best point or -1 for a pass, its mean reward for the mover) after ``playouts`` iterations."""
    _init_node(tree, 0, -1, -1, 1 - st[6 * n + M_TO_MOVE])
    used = 1
    for _ in range(playouts):
        for k in range(st.shape[0]):
            sim[k] = st[k]
        node = 0
        while tree[2][node] > 0 and not game_over(sim, n):
            node = _select_child(tree, node, c_explore)
            play(sim, n, nbr, tree[3][node], tmp)
        if not game_over(sim, n):
            before = used
            used = _expand(tree, node, used, sim, n, nbr, rng, tmp, cand)
            if used > before:
                node = tree[1][node]
                play(sim, n, nbr, tree[3][node], tmp)
        winner = rollout(sim, n, nbr, rng, policy, epsilon, tmp, cand)
        _backup(tree, node, winner)
    best = tree[1][0]
    for ch in range(tree[1][0], tree[1][0] + tree[2][0]):
        if tree[5][ch] > tree[5][best]:
            best = ch
    if best < 0:
        return -1, 0.5
    return tree[3][best], tree[6][best] / max(tree[5][best], 1)
