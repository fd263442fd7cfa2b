"""Whether the discs near a leaner stay put: a static hold check along its approach.

``sim.balance`` finds where a leaner's own tip torque balances and ``sim.fit``
whether a disc can be put there; neither asks what the leaner does to the
discs around it. Off a two- or three-disc tower the only balance lies close
in (33 and 29 mm from the centre, against 56 mm off a lone foundation: further
out a tower's cushion tips the leaner up at every tilt, an unstable balance).
There the leaner's lower face hangs over the tower's top disc and pulls it up
by its rim: in 12 tries each, every leaner aimed at a lone 2- or 3-disc tower
ended with the top disc in hand (R6 c), and in standard games 56 of 65
leaners aimed at towers faulted (polsim 0.26.0, seed 20).

The test is the wake check's (``sim.holding``), taken before the hand moves:
a *plain column* (a flat disc on the mat, or a tower of flat discs each on one
below, nothing else within contact reach: ``column_of``) holds when, at the
mat and at every face between its discs, the part above is pressed onto the
face and friction and the face's width hold it. Its *hold ratio* is the
largest of

    sliding force / (mu_static x N)    and    tipping torque / (N x radius)

over its faces (N the normal force; infinite when the part above is pulled
off), with the forces of every live disc and of the leaner, a dipole of the
disc's magnet at the leaner's pose. ``disturbance`` is the largest hold ratio
of the columns within ``HOLD_REACH`` of the leaner, at its pose, half-way
along the hand's approach and at its start (``sim.fit.approach_poses``): the
leaner at its pose pulls hardest. A leaner that disturbs nothing at rest
still starts its neighbours when it swings in, so the bar ``HOLD_AIM`` is
below 1: a flat host under a disc held at 45 degrees stayed put at a static
tipping ratio of 0.77 and tipped from 0.81 (``sim.holding``'s docstring).
A leaner on a lone foundation at its balance: 0.56; on a lone 2-disc tower:
1.53 (its top disc).

Discs that are not in a plain column (leaners, a disc against another) are
not judged: their contact forces are not known without the dynamics.
"""

from __future__ import annotations

import numpy as np

from sim.fit import approach_poses, world_axes
from sim.holding import column_of, face_load
from sim.jit import kernel
from sim.magnetics import packed_knobs, pair_force_torque
from sim.params import IDX

HOLD_AIM = 0.75   # a column whose hold ratio reaches this is likely to move (module docstring)
HOLD_REACH = 0.10  # m: a column whose bottom disc lies further (seen from above) from each of the leaner's centres is not judged

_RADIUS, _THICK, _MASS, _G = IDX["radius"], IDX["thickness"], IDX["mass"], IDX["gravity"]
_MR, _MT, _FAR, _BR = IDX["magnet_radius"], IDX["magnet_thickness"], IDX["far_cutoff"], IDX["br"]
_MUS_M, _MUS_D = IDX["mu_static_mat"], IDX["mu_static_disc"]
NEVER = 1e9  # the hold ratio of a part pulled off its face


@kernel
def _pull_on(i, src, n_src, br_src, pos, axis, br, P, field, out6, out9):
    """Add to ``out6`` the magnetic force and torque on disc i of a disc at ``src`` (axis n_src)."""
    pair_force_torque(src, n_src, pos[i], axis[i], P[_MR], P[_MT], br_src, br[i], field, out9,
                      packed_knobs(P))
    for k in range(3):
        out6[k] += out9[k]
        out6[3 + k] += out9[6 + k]


@kernel
def _base_pull(i, pos, axis, br, live, P, field, out6, out9):
    """``out6``: the magnetic force and torque on disc i of every other live disc within far_cutoff."""
    far2 = P[_FAR] * P[_FAR]
    for k in range(6):
        out6[k] = 0.0
    for j in range(pos.shape[0]):
        if j == i or not live[j]:
            continue
        if (pos[j, 0] - pos[i, 0]) ** 2 + (pos[j, 1] - pos[i, 1]) ** 2 + (pos[j, 2] - pos[i, 2]) ** 2 >= far2:
            continue
        _pull_on(i, pos[j], axis[j], br[j], pos, axis, br, P, field, out6, out9)


@kernel
def column_ratio(height, column, f6s, pos, P):
    """The hold ratio (module docstring) of the flat column ``column[:height]`` under the
    forces ``f6s`` (a row per disc, bottom first); ``NEVER`` if a part is pulled off."""
    a, hh, mg = P[_RADIUS], 0.5 * P[_THICK], P[_MASS] * P[_G]
    worst = 0.0
    for face in range(height - 1, -1, -1):
        b = column[face]
        fx, fy, fz, tx, ty = face_load(face, height, column, f6s, pos, pos[b, 0], pos[b, 1], pos[b, 2] - hh, mg)
        normal = -fz
        if normal <= 0.0:
            return NEVER
        mu = P[_MUS_M] if face == 0 else P[_MUS_D]
        worst = max(worst, np.sqrt(fx * fx + fy * fy) / (mu * normal), np.sqrt(tx * tx + ty * ty) / (normal * a))
    return worst


@kernel
def worst_ratio(pos, axis, br, live, awake, P, field, centres, normal, br_leaner, reach, base6, known, column,
                f6s, work):
    """The largest hold ratio of the plain columns whose bottom disc lies within ``reach``
    (horizontally) of any of the leaner's ``centres`` (axis ``normal``, shown face up), the
    leaner at each centre in turn. ``base6`` [n, 6] caches each disc's pull from the world
    (``known`` [n] marks the filled rows); ``awake`` [n] all 0 (a world between turns is at
    rest); ``column`` [n], ``f6s`` [n, 6], ``work`` [9] are work rows."""
    n = pos.shape[0]
    out9 = work
    worst = 0.0
    for i in range(n):
        if not live[i]:
            continue
        near = False
        for s in range(centres.shape[0]):
            if (pos[i, 0] - centres[s, 0]) ** 2 + (pos[i, 1] - centres[s, 1]) ** 2 < reach * reach:
                near = True
        if not near:
            continue
        height = column_of(i, pos, axis, live, awake, P, column)
        if height == 0 or column[0] != i:  # not a plain column, or judged from its bottom disc
            continue
        for c in range(height):
            k = column[c]
            if not known[k]:
                _base_pull(k, pos, axis, br, live, P, field, base6[k], out9)
                known[k] = 1
        for s in range(centres.shape[0]):
            for c in range(height):
                k = column[c]
                for q in range(6):
                    f6s[c, q] = base6[k, q]
                _pull_on(k, centres[s], normal, br_leaner, pos, axis, br, P, field, f6s[c], out9)
            worst = max(worst, column_ratio(height, column, f6s, pos, P))
    return worst


class Disturbance:
    """``disturbance`` over one world at rest: each disc's pull from the world is
    computed once, on first need, and kept for every intent asked after."""

    def __init__(self, world, axis: np.ndarray | None = None):
        n = len(world.live)
        self.world = world
        self.axis = world_axes(world) if axis is None else axis
        self.base6 = np.zeros((n, 6))
        self.known = np.zeros(n, np.uint8)
        self.column = np.zeros(n, np.int64)
        self.f6s = np.zeros((n, 6))
        self.awake = np.zeros(n, np.uint8)
        self.work = np.zeros(9)

    def __call__(self, intent) -> float:
        w = self.world
        centres, normal = approach_poses(w, intent)
        shown = np.ascontiguousarray(normal * (1.0 if int(intent.up) >= 0 else -1.0))
        return float(worst_ratio(w.pos, self.axis, w.br, w.live, self.awake, w.P, w.field, centres, shown,
                                 float(w.P[_BR]), HOLD_REACH, self.base6, self.known, self.column,
                                 self.f6s, self.work))


def disturbance(world, intent, axis: np.ndarray | None = None) -> float:
    """The largest hold ratio (module docstring) of the plain columns near the leaner of
    ``intent``, at its pose and along the hand's approach; >= ``HOLD_AIM``: likely to move."""
    return Disturbance(world, axis)(intent)


def intent_holds(world, intent, axis: np.ndarray | None = None, limit: float = HOLD_AIM) -> bool:
    """Whether every plain column near the leaner of ``intent`` stays put (``disturbance`` below ``limit``)."""
    return disturbance(world, intent, axis) < limit
