"""Magnetic forces on the whole world: the pair kernel lifted to all pairs.

Pair kernel: ``sim.magnetics.pair_force_torque`` (accurate near contact,
multipole and dipole further out, its own tiers) for centres closer than
``far_cutoff``; nothing beyond (at 0.2 m a pair force is ~0.1 % of a disc's
weight, far below what static friction holds).
Only pairs with at least one awake body are evaluated (two sleepers do not
move, so their mutual force cannot change anything). Pairs are visited in
the fixed order i < j, so sums are bit-reproducible.

Arrays: pos [n,3], axis [n,3] (face normal = magnetic axis), br [n],
force/torque accumulators [n,3]; torques about each body's centre.
"""

import numpy as np
from numba import njit

from sim.magnetics import pair_force_torque



@njit(cache=True, fastmath=False)
def pair_any(ci, ni, cj, nj, radius, thickness, br_i, br_j, far, out):
    """The pair kernel, or False (nothing written) beyond ``far``."""
    d2 = (cj[0] - ci[0]) ** 2 + (cj[1] - ci[1]) ** 2 + (cj[2] - ci[2]) ** 2
    if d2 >= far * far:
        return False
    pair_force_torque(ci, ni, cj, nj, radius, thickness, br_i, br_j, out)
    return True


@njit(cache=True, fastmath=False)
def magnetic_all(pos, axis, br, live, awake, radius, thickness, far, force, torque):
    """Add magnetic force and torque of every pair with an awake member."""
    n = pos.shape[0]
    out = np.empty(9)
    for i in range(n):
        if not live[i]:
            continue
        for j in range(i + 1, n):
            if not live[j] or not (awake[i] or awake[j]):
                continue
            if pair_any(pos[i], axis[i], pos[j], axis[j], radius, thickness,
                        br[i], br[j], far, out):
                for k in range(3):
                    force[j, k] += out[k]
                    force[i, k] -= out[k]
                    torque[i, k] += out[3 + k]
                    torque[j, k] += out[6 + k]


@njit(cache=True, fastmath=False)
def magnetic_on(i, pos, axis, br, live, radius, thickness, far, out6):
    """Total magnetic force and torque on body i from every live body."""
    out = np.empty(9)
    for k in range(6):
        out6[k] = 0.0
    for j in range(pos.shape[0]):
        if j == i or not live[j]:
            continue
        if pair_any(pos[j], axis[j], pos[i], axis[i], radius, thickness,
                    br[j], br[i], far, out):
            for k in range(3):
                out6[k] += out[k]
                out6[3 + k] += out[6 + k]


@njit(cache=True, fastmath=False)
def refresh_refs(pos, axis, br, live, awake, radius, thickness, far, fref):
    """Record the magnetic force/torque on every live sleeper as its reference."""
    out6 = np.empty(6)
    for i in range(pos.shape[0]):
        if live[i] and not awake[i]:
            magnetic_on(i, pos, axis, br, live, radius, thickness, far, out6)
            fref[i, :] = out6
