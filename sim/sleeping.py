"""When bodies sleep (sim.integrate, step 5): a body is still while below
both sleep speeds or while its pose stays within ``rest_ball`` of an anchor
(``in_rest_ball``); an island of touching awake bodies that have all been
still for ``sleep_time`` falls asleep together (``sleep_islands``, as in
Box2D), an island whose every body lies flat after ``flat_sleep_time``. Why
the pose and not only the speed: ``in_rest_ball``; the choice of
``sleep_time``: sim.params, SLEEP; of ``flat_sleep_time``: sim.params,
FLAT_SLEEP.
"""

import numpy as np

from sim.detmath import acos
from sim.jit import kernel

COS_FLAT = 0.984807753012208  # cos(10 deg): a face this near level lies flat (here and in sim.holding)


@kernel
def in_rest_ball(i, pos, quat, anchor_pos, anchor_quat, a, ball):
    """True while body i has stayed within ``ball`` of its anchor pose (centre
    shift plus the rim's shift a x rotation angle, spin included); else the
    anchor moves to the current pose and False. Penalty contacts leave bodies
    at rest jittering at a few mm/s over a fixed pose, above the speed
    thresholds (a chain of 14 discs on edge kept awake for seconds): the pose,
    not the velocity, says they are at rest. ``ball`` 0: off."""
    if ball <= 0.0:
        return False
    dp = np.sqrt((pos[i, 0] - anchor_pos[i, 0]) ** 2 + (pos[i, 1] - anchor_pos[i, 1]) ** 2
                 + (pos[i, 2] - anchor_pos[i, 2]) ** 2)
    dot = abs(quat[i, 0] * anchor_quat[i, 0] + quat[i, 1] * anchor_quat[i, 1]
              + quat[i, 2] * anchor_quat[i, 2] + quat[i, 3] * anchor_quat[i, 3])
    if dp <= ball and dp + a * 2.0 * acos(min(1.0, dot)) <= ball:  # the angle only when it can matter
        return True
    for c in range(3):
        anchor_pos[i, c] = pos[i, c]
    for c in range(4):
        anchor_quat[i, c] = quat[i, c]
    return False


@kernel
def wake_marked(wake_next, awake, still):
    """Wake every body a contact marked in ``wake_next`` (and clear the mark);
    True if any woke, so the caller recomputes the forces with them awake."""
    woke = False
    for i in range(wake_next.shape[0]):
        if wake_next[i]:
            wake_next[i] = 0
            awake[i] = 1
            still[i] = 0.0
            woke = True
    return woke


@kernel
def _root(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@kernel
def sleep_islands(live, awake, still, cur, held, sleep_time, island, ready, roots, axis,
                  flat_time, flat):
    """Box2D-style islands: awake bodies touching each other sleep together,
    only when every one of them has been still for ``sleep_time``, or for
    ``flat_time`` if every one lies flat (face within 10 deg of level).
    Marks the bodies to put to sleep with ``island[i] = -2``. The held disc
    never sleeps, so nothing touching it does. ``ready``, ``flat`` (bool [n])
    and ``roots`` (int64 [n]) are work arrays."""
    n = live.shape[0]
    for i in range(n):
        island[i] = i
    for i in range(n):
        if not (live[i] and awake[i]):
            continue
        for j in range(i + 1, n):
            if live[j] and awake[j] and cur[i, j]:
                ri, rj = _root(island, i), _root(island, j)
                if ri != rj:
                    island[max(ri, rj)] = min(ri, rj)
    for i in range(n):
        roots[i] = _root(island, i)
    ready[:] = True
    flat[:] = True
    for i in range(n):
        if live[i] and awake[i] and abs(axis[i, 2]) < COS_FLAT:
            flat[roots[i]] = False
    for i in range(n):
        if live[i] and awake[i] and (i == held or still[i] < (flat_time if flat[roots[i]] else sleep_time)):
            ready[roots[i]] = False
    for i in range(n):
        island[i] = -2 if (live[i] and awake[i] and i != held and ready[roots[i]]) else -1
