"""Reading a world: which discs touch now, and what state each body is in.

``touching_matrix`` tests every rim sample point of i against disc j's
cylinder (both ways) with a small tolerance ``tol`` (m), as the core reads
it: a point labelled with the surface it entered j by (``disc_partner``,
``disc_feature``) is read through that surface and, past its edge, its skirt
(sim.contacts, Skirt). A pair the core pushes apart is a pair that touches:
read through the nearest surface alone, a point resting in a skirt up to
0.22 mm past an edge (seen in standard games) read as apart while the core
reported the pair touching during the episode, so an episode that woke it
would have called that old contact new (R6). With ``skirt`` 0 the two
readings are the same. ``classify`` turns poses and contacts into BodyInfo:

- OUT: all of it beyond the play circle seen from above (R6(e): "entirely
  outside the circle"; ``out_entirely`` False: its centre, physics 0.19.0);
- flat (tilt < FLAT_TILT): STACKED when it touches a flat disc above or
  below it that overlaps it (centres closer than a radius), else FLAT;
  ``tower`` is the lowest disc of its stack;
- tilted: RESTING when it touches any disc, else LEANING; ``leaning_on`` is
  the disc whose centre is nearest (horizontally, within two diameters) to the
  tilted disc's highest rim point.

Both readings are compiled (``classify_bodies`` fills arrays; ``classify``
makes the BodyInfo): an episode reads its world twice, and in plain Python
the reading of a 37-disc world took 0.64 ms, a tenth of a placement on a
clear host there (now ~0.11 ms, most of it the BodyInfo objects).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import detmath as dm
from sim.bodies import normal_of, quat_to_matrix
from sim.contacts import NO_FEATURE, contact_reach, cylinder_sdf_entered
from sim.events import BodyInfo, BodyState
from sim.jit import kernel

FLAT_TILT = np.radians(20.0)
TOUCH_TOL = 1e-4


@kernel(inline="always")
def lies_flat(quat, i):
    """Body i lies flat as ``classify_bodies`` reads it: tilt under FLAT_TILT."""
    nz = 1.0 - 2.0 * (quat[i, 1] * quat[i, 1] + quat[i, 2] * quat[i, 2])      # normal_of's z
    return dm.acos(min(1.0, abs(nz))) < FLAT_TILT


@njit(cache=True, fastmath=False)
def touching_matrix(pos, quat, live, rim, radius, thickness, tol, partner, feature, skirt):
    n = pos.shape[0]
    cur = np.zeros((n, n), np.uint8)
    rot = np.zeros((n, 3, 3))
    axis = np.zeros((n, 3))
    for i in range(n):
        if live[i]:
            quat_to_matrix(quat[i], rot[i])
            for c in range(3):
                axis[i, c] = rot[i, c, 2]
    hh = 0.5 * thickness
    reach = contact_reach(radius, hh) + tol + skirt
    normal = np.zeros(3)
    p = np.zeros(3)
    for i in range(n):
        if not live[i]:
            continue
        for j in range(n):
            if j == i or not live[j] or cur[i, j]:
                continue
            d2 = (pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2 + (pos[i, 2] - pos[j, 2]) ** 2
            if d2 > reach * reach:
                continue
            for k in range(rim.shape[0]):
                for c in range(3):
                    p[c] = pos[i, c] + rot[i, c, 0] * rim[k, 0] + rot[i, c, 1] * rim[k, 1] + rot[i, c, 2] * rim[k, 2]
                known = feature[i, k] if partner[i, k] == j else NO_FEATURE
                if cylinder_sdf_entered(p[0] - pos[j, 0], p[1] - pos[j, 1], p[2] - pos[j, 2], axis[j], radius, hh,
                                        known, normal, skirt)[0] < tol:
                    cur[i, j] = 1
                    cur[j, i] = 1
                    break
    return cur


def pairs_of(cur: np.ndarray) -> list[tuple[int, int]]:
    ii, jj = np.nonzero(np.triu(cur, 1))
    return [(int(i), int(j)) for i, j in zip(ii, jj)]


_STATES = (BodyState.OUT, BodyState.FLAT, BodyState.STACKED, BodyState.RESTING, BodyState.LEANING)
_OUT, _FLAT, _STACKED, _RESTING, _LEANING = range(5)


def classify(world, cur: np.ndarray | None = None) -> list[BodyInfo]:
    """BodyInfo of every live body, ordered by id (the reading: ``classify_bodies``)."""
    p = world.params
    if cur is None:
        cur = world.touching()
    n = len(world)
    state, up, tower, leaning_on = (np.zeros(n, np.int64) for _ in range(4))
    tilt = np.zeros(n)
    classify_bodies(world.pos, world.quat, world.live, cur, p.radius, p.thickness, p.circle_radius,
                    p.out_entirely, FLAT_TILT, state, up, tilt, tower, leaning_on)
    pos, red, owner = world.pos.tolist(), world.red.tolist(), world.owner.tolist()
    up, tilt, tower, leaning_on = up.tolist(), tilt.tolist(), tower.tolist(), leaning_on.tolist()
    return [BodyInfo(i, bool(red[i]), *pos[i], up[i], tilt[i], _STATES[state[i]], tower[i], leaning_on[i], int(owner[i]))
            for i in np.flatnonzero(world.live).tolist()]


@njit(cache=True, fastmath=False)
def classify_bodies(pos, quat, live, cur, a, h, circle, entirely, flat_tilt, state, up, tilt, tower, leaning_on):
    """Fill per live body: state (index into ``_STATES``), up, tilt, tower, leaning_on.
    Compiled; ``normal_of``, ``dm.acos``, ``dm.hypot`` and ``dm.norm`` run the
    same operations in Python (``tests/test_physics_state.py`` holds it to the
    plain reading, to the bit)."""
    n = pos.shape[0]
    normal = np.zeros((n, 3))
    flat = np.zeros(n, np.bool_)
    for i in range(n):
        if live[i]:
            normal[i] = normal_of(quat[i])
            tilt[i] = dm.acos(min(1.0, abs(normal[i, 2])))
            flat[i] = tilt[i] < flat_tilt
    stacked_with = np.zeros((n, n), np.bool_)
    for i in range(n):
        if live[i] and flat[i]:
            for j in range(n):
                if j != i and live[j] and flat[j] and cur[i, j]:
                    dxy = dm.hypot(pos[i, 0] - pos[j, 0], pos[i, 1] - pos[j, 1])
                    if dxy < a and abs(pos[i, 2] - pos[j, 2]) > 0.5 * h:
                        stacked_with[i, j] = True
    seen = np.zeros(n, np.bool_)
    todo = np.zeros(n, np.int64)
    for i in range(n):
        if not live[i]:
            continue
        up[i] = 1 if normal[i, 2] >= 0 else -1
        tower[i], leaning_on[i] = -1, -1
        if beyond(pos, normal, i, a, h, circle, entirely):
            state[i] = _OUT
        elif flat[i]:
            state[i] = _FLAT
            for j in range(n):
                if stacked_with[i, j]:
                    state[i] = _STACKED
                    tower[i] = _bottom_of(i, stacked_with, pos, seen, todo)
                    break
        else:
            state[i] = _LEANING
            for j in range(n):
                if cur[i, j]:
                    state[i] = _RESTING
                    break
            leaning_on[i] = _under_upper_rim(i, normal, pos, live, a)


@njit(cache=True, fastmath=False)
def beyond(pos, normal, i, a, h, circle, entirely):
    """Body i is out of the play circle: all of it (``entirely``, R6(e)), seen from
    above, else its centre. A disc's nearest point to the mat's centre lies inward
    along the radial unit r of its centre by its half-width there,
    a sqrt(1 - (n.r)^2) + h/2 |n.r| (a cylinder's support); for a disc at the
    centre itself that is its full half-width, so it is in."""
    d = dm.hypot(pos[i, 0], pos[i, 1])
    if not entirely or d <= circle:
        return d > circle
    nr = (normal[i, 0] * pos[i, 0] + normal[i, 1] * pos[i, 1]) / d
    return d - (a * np.sqrt(max(0.0, 1.0 - nr * nr)) + 0.5 * h * abs(nr)) > circle


@njit(cache=True, fastmath=False)
def _bottom_of(i, stacked_with, pos, seen, todo):
    """The lowest disc (then the smallest id) of the stack i is in."""
    n = pos.shape[0]
    seen[:] = False
    seen[i] = True
    todo[0] = i
    m = 1
    while m > 0:
        m -= 1
        k = todo[m]
        for j in range(n):
            if stacked_with[k, j] and not seen[j]:
                seen[j] = True
                todo[m] = j
                m += 1
    best = i
    for k in range(n):
        if seen[k] and (pos[k, 2] < pos[best, 2] or (pos[k, 2] == pos[best, 2] and k < best)):
            best = k
    return best


@njit(cache=True, fastmath=False)
def _under_upper_rim(i, normal, pos, live, a):
    """The live disc nearest (horizontally, within two diameters) under tilted disc i's highest rim point."""
    n2 = normal[i, 2]
    r0, r1, r2 = 0.0 - n2 * normal[i, 0], 0.0 - n2 * normal[i, 1], 1.0 - n2 * n2
    norm = dm.norm((r0, r1, r2))
    if norm < 1e-9:
        return -1
    t0, t1, t2 = pos[i, 0] + a * r0 / norm, pos[i, 1] + a * r1 / norm, pos[i, 2] + a * r2 / norm
    best, best_d = -1, 4 * a
    for j in range(pos.shape[0]):
        if j == i or not live[j] or pos[j, 2] > t2:
            continue
        d = dm.hypot(pos[j, 0] - t0, pos[j, 1] - t1)
        if d < best_d:
            best, best_d = j, d
    return best
