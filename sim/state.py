"""Reading a world: which discs touch now, and what state each body is in.

``touching_matrix`` tests every rim sample point of i against disc j's
cylinder (both ways) with a small tolerance ``tol`` (m); ``classify`` turns
poses and contacts into BodyInfo:

- OUT: centre beyond the play circle;
- flat (tilt < FLAT_TILT): STACKED when it touches a flat disc above or
  below it that overlaps it (centres closer than a radius), else FLAT;
  ``tower`` is the lowest disc of its stack;
- tilted: RESTING when it touches any disc, else LEANING; ``leaning_on`` is
  the disc whose centre is nearest (horizontally, within two diameters) to the
  tilted disc's highest rim point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import detmath as dm
from sim.bodies import normal_of, quat_to_matrix
from sim.contacts import contact_reach, cylinder_sdf
from sim.events import BodyInfo, BodyState

FLAT_TILT = np.radians(20.0)
TOUCH_TOL = 1e-4


@njit(cache=True, fastmath=False)
def touching_matrix(pos, quat, live, rim, radius, thickness, tol):
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
    reach = contact_reach(radius, hh) + tol
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
                if cylinder_sdf(p, pos[j], axis[j], radius, hh, normal) < tol:
                    cur[i, j] = 1
                    cur[j, i] = 1
                    break
    return cur


def pairs_of(cur: np.ndarray) -> list[tuple[int, int]]:
    ii, jj = np.nonzero(np.triu(cur, 1))
    return [(int(i), int(j)) for i, j in zip(ii, jj)]


def classify(world, cur: np.ndarray | None = None) -> list[BodyInfo]:
    """BodyInfo of every live body, ordered by id."""
    p = world.params
    a, h = p.radius, p.thickness
    if cur is None:
        cur = world.touching()
    live = np.nonzero(world.live)[0]
    normals = {int(i): normal_of(world.quat[i]) for i in live}
    tilt = {i: dm.acos(min(1.0, abs(float(nv[2])))) for i, nv in normals.items()}
    flat = {i for i in tilt if tilt[i] < FLAT_TILT}
    stacked_with: dict[int, list[int]] = {i: [] for i in flat}
    for i in flat:
        for j in flat:
            if j != i and cur[i, j]:
                dxy = dm.hypot(*(world.pos[i, :2] - world.pos[j, :2]))
                if dxy < a and abs(world.pos[i, 2] - world.pos[j, 2]) > 0.5 * h:
                    stacked_with[i].append(j)
    infos = []
    for i in (int(k) for k in live):
        x, y, z = (float(v) for v in world.pos[i])
        up = 1 if normals[i][2] >= 0 else -1
        tower, leaning_on = -1, -1
        if dm.hypot(x, y) > p.circle_radius:
            state = BodyState.OUT
        elif i in flat:
            if stacked_with[i]:
                state = BodyState.STACKED
                tower = _bottom_of(i, stacked_with, world.pos)
            else:
                state = BodyState.FLAT
        else:
            state = BodyState.RESTING if cur[i].any() else BodyState.LEANING
            leaning_on = _under_upper_rim(world, i, normals[i], live)
        infos.append(BodyInfo(i, bool(world.red[i]), x, y, z, up, tilt[i], state, tower,
                              leaning_on, int(world.owner[i])))
    return infos


def _bottom_of(i, stacked_with, pos) -> int:
    seen, todo = {i}, [i]
    while todo:
        for j in stacked_with[todo.pop()]:
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return min(seen, key=lambda k: (pos[k, 2], k))


def _under_upper_rim(world, i, n, live) -> int:
    a = world.params.radius
    rise = np.array([0.0, 0.0, 1.0]) - n[2] * n
    norm = dm.norm(rise)
    if norm < 1e-9:
        return -1
    top = world.pos[i] + a * rise / norm
    best, best_d = -1, 4 * a
    for j in (int(k) for k in live):
        if j == i or world.pos[j, 2] > top[2]:
            continue
        d = float(dm.hypot(*(world.pos[j, :2] - top[:2])))
        if d < best_d:
            best, best_d = j, d
    return best
