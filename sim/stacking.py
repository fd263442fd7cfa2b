"""A tower set down at rest: the heights where its discs' weight, magnets and contacts balance.

Why: a capture (R10) lifts a group and places it as a tower. Up to physics
0.8.0 ``place_tower`` let the discs go 0.2 mm apart; the magnets (~6 N between
neighbours, 60 times a disc's weight) slammed them together and the stack rang
on its contact springs for 0.3-0.4 s simulated before it slept: a clean
ten-disc capture took ~3,900 steps, ~1 CPU s (more than a typical leaner
placement), for nothing the game reads. A player does not drop discs onto
each other either: stacked in the hand they snap together, and the stack is
set down whole. So ``place_tower`` (``PhysicsParams.tower_at_rest``) now sets
each disc at its static rest height, at rest; the dynamics then only see what
the neighbours do to the tower, and it sleeps after ``sleep_time``.

Model: a flat coaxial stack on the mat, every disc the same face up (their
magnets attract). Interface k (disc k on disc k - 1; k = 0 the mat) carries
the weight of the discs above it and the magnetic pull of every disc below on
every disc above. A contact is the shared-stiffness potential of sim.contact_forces,
K/2 (sum d^p)^(2/p): N points pressed equally deep by d push back with
K N^(2/p) d in all. A face-to-face pair presses 2 x ``rim_points`` points (each
disc's face edge into the other's face), the mat ``rim_points``. The magnetic
pull (each disc's magnetic force from ``sim.forces.refresh_refs``, the
function every episode already calls, so no kernel is compiled for this; the
pull across interface k is minus the force on the discs from k up) depends
on the heights, the heights on the pull: rounds of "pull at these heights,
heights under that pull" gain about one digit each and stop when the
heights repeat to the bit (16 rounds for ten discs; at most ``MAX_ROUNDS``).
Ten discs press their interfaces 0.2-0.37 mm (the middle ones most: every
long pull crosses them) and the mat 44 um. Strong magnets press deeper than
the 0.8 mm chamfer (12 discs at Br x 1.5: 1.1 mm), where the contact would
read a face-edge point as entering the neighbour's side: ``press_faces``
records the faces they were pressed through. At Br x 2 a tall stack presses
2-4 mm, beyond what the penalty contacts hold, and flies apart whether set
down or dropped (as in 0.8.0): the model's limit, not the capture's.
"""

from __future__ import annotations

import numpy as np

from sim import detmath as dm
from sim.bodies import quat_from_normal, quat_to_matrix
from sim.contacts import FACE_DOWN, FACE_UP
from sim.forces import refresh_refs

MAX_ROUNDS = 60


def rest_heights(params, field, br, up: int) -> np.ndarray:
    """Centre heights (m) of a stack of ``len(br)`` discs (remanences ``br``,
    bottom first) showing ``up``, standing at rest on the mat."""
    n = len(br)
    hh, mg = 0.5 * params.thickness, params.mass * params.gravity
    share = 2.0 / params.contact_norm
    mat = params.k_contact * dm.power(float(params.rim_points), share)
    pair = params.k_disc * dm.power(2.0 * params.rim_points, share)
    pos, axis, rot = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3, 3))
    axis[:, 2] = 1.0 if up >= 0 else -1.0
    quat_to_matrix(quat_from_normal(axis[0]), rot[0])
    rot[:] = rot[0]
    live, asleep, on = np.ones(n, np.uint8), np.zeros(n, np.uint8), np.zeros((n, 6))
    br = np.ascontiguousarray(br, dtype=np.float64)
    z = hh * (2.0 * np.arange(n) + 1.0)
    for _ in range(MAX_ROUNDS):
        pos[:, 2] = z
        refresh_refs(pos, axis, rot, br, live, asleep, params.magnet_radius, params.magnet_thickness, field,
                     params.far_cutoff, on, params.kernel_knobs())                      # each disc's magnetic force, as in a step
        pull = -np.cumsum(on[::-1, 2])[::-1]   # pull[k]: on the discs from k up, i.e. from those below k
        new = np.empty(n)
        new[0] = hh - n * mg / mat
        for k in range(1, n):
            new[k] = new[k - 1] + 2.0 * hh - ((n - k) * mg + pull[k]) / pair
        if np.array_equal(new, z):
            break
        z = new
    return z


def press_faces(world, ids, up: int) -> None:
    """Mark each face-edge point of the stack ``ids`` (bottom first, showing ``up``)
    that presses into its neighbour as having entered through that neighbour's
    facing face (``sim.contacts``, entered feature), as if the stack had been
    pressed together face to face. Below the chamfer a point's nearest surface
    is that face anyway; deeper (strong magnets: a tall tower's middle presses
    more than 0.8 mm at Br x 1.5) the nearest would be the side, and the
    stack, pushed sideways from its first step, flew apart."""
    n = world.params.rim_points
    top, bottom = (slice(0, n), slice(n, 2 * n)) if up >= 0 else (slice(n, 2 * n), slice(0, n))
    faces_down, faces_up = (FACE_DOWN, FACE_UP) if up >= 0 else (FACE_UP, FACE_DOWN)
    for lower, upper in zip(ids[:-1], ids[1:]):
        world.disc_partner[lower, top] = upper
        world.disc_feature[lower, top] = faces_down
        world.disc_partner[upper, bottom] = lower
        world.disc_feature[upper, bottom] = faces_up

