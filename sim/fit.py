"""Whether a leaner fits where it is aimed: its pose and the hand's approach free of other discs.

``sim.balance`` finds where a leaner balances from torques alone: the tip
torque of a leaner at each base distance, whatever stands there. So a
balance can lie inside a flat disc beside the host (the disc's own cushion
makes the crossing), or, off a tall tower whose scan reaches ~210 mm out, on
top of a flat disc: the hand of ``sim.episodes.place_leaner`` then starts
inside that disc and the contact spring flings it across the mat (a
strong-magnets game, seed 20, game 1, physics 0.20.0: a crossing 159 mm off
a 26-disc tower sat on flat disc 96, which left at 1.4 m/s into the tower).
In three standard games (seed 21, polsim 0.25.0) 12 of 215 placements began
or ended inside a disc. No player can put a disc there, so
``balance_intent(fit=True)``, what the rules engine aims with (``aim_fit``),
passes over balances where it does not fit (``intent_fits``).

A disc is a solid cylinder (radius a, thickness h; the chamfer ignored, which
errs toward "does not fit"). Two discs overlap when a surface point of one
lies inside the other, sampled both ways (a rim poking into a face between
the face's samples is found from the rim's side only): each face's rim and
a ring at half the radius at ``RIM_POINTS`` angles, the side at mid-thickness
and both face centres. At 15 mm radius and 48 angles the rim between two
samples bows 0.03 mm, far below ``FIT_GAP``. A leaner fits when no other live
disc (its host included) comes within ``FIT_GAP`` of it at its pose, at the
hand's start and half-way along the approach (the leaner's footprint is ~21
mm long along the 20 mm approach, so three poses cover the path).
"""

from __future__ import annotations

import numpy as np

from sim import detmath as dm
from sim.bodies import normal_of
from sim.jit import kernel

RIM_POINTS = 48
FIT_GAP = 5e-4  # m: nearer than this counts as touching (hand noise is ~1 mm)
APPROACH_DISTANCE = 0.02  # m: the hand starts this much further out along u ...
APPROACH_HEIGHT = 0.005  # m: ... and this much higher (sim.episodes.place_leaner)
ALONG = (0.0, 0.5, 1.0)  # where a leaner is checked: its pose, half-way along the approach, the hand's start


@kernel(inline="always")
def _depth_in(px, py, pz, cx, cy, cz, nx, ny, nz, a, h, gap):
    """How deep (m) point p lies inside the cylinder (centre c, axis n) grown by ``gap``; <= 0 outside."""
    dx, dy, dz = px - cx, py - cy, pz - cz
    ax = dx * nx + dy * ny + dz * nz
    rx, ry, rz = dx - ax * nx, dy - ax * ny, dz - ax * nz
    radial = np.sqrt(rx * rx + ry * ry + rz * rz)
    return min(0.5 * h + gap - abs(ax), a + gap - radial)


@kernel(inline="always")
def _frame(nx, ny, nz):
    """Two unit vectors perpendicular to the unit vector n and to each other."""
    if abs(nz) < 0.9:
        ex, ey, ez = -ny, nx, 0.0
    else:
        ex, ey, ez = 0.0, -nz, ny
    s = np.sqrt(ex * ex + ey * ey + ez * ez)
    ex, ey, ez = ex / s, ey / s, ez / s
    return ex, ey, ez, ny * ez - nz * ey, nz * ex - nx * ez, nx * ey - ny * ex


@kernel
def _deepest(c, n, d, m, a, h, gap):
    """The deepest sampled point of disc (c, n) inside disc (d, m) grown by ``gap`` (m; <= 0: none)."""
    ex, ey, ez, fx, fy, fz = _frame(n[0], n[1], n[2])
    worst = -1.0
    for side in (-0.5, 0.5):
        worst = max(worst, _depth_in(c[0] + side * h * n[0], c[1] + side * h * n[1], c[2] + side * h * n[2],
                                     d[0], d[1], d[2], m[0], m[1], m[2], a, h, gap))
    for k in range(RIM_POINTS):
        s, co = dm.sincos(2.0 * np.pi * k / RIM_POINTS)
        for radius, side in ((a, -0.5), (a, 0.0), (a, 0.5), (0.5 * a, -0.5), (0.5 * a, 0.5)):
            px = c[0] + radius * (co * ex + s * fx) + side * h * n[0]
            py = c[1] + radius * (co * ey + s * fy) + side * h * n[1]
            pz = c[2] + radius * (co * ez + s * fz) + side * h * n[2]
            worst = max(worst, _depth_in(px, py, pz, d[0], d[1], d[2], m[0], m[1], m[2], a, h, gap))
    return worst


@kernel
def overlap(pos, axis, live, c, n, a, h, gap):
    """The deepest overlap (m) of a disc at centre ``c`` with unit axis ``n`` and any live
    disc grown by ``gap``, sampled both ways; <= 0: it is ``gap`` clear of every one."""
    reach = 2.0 * np.sqrt(a * a + 0.25 * h * h) + gap
    worst = -1.0
    for j in range(pos.shape[0]):
        if not live[j]:
            continue
        dx, dy, dz = pos[j, 0] - c[0], pos[j, 1] - c[1], pos[j, 2] - c[2]
        if dx * dx + dy * dy + dz * dz > reach * reach:
            continue
        worst = max(worst, _deepest(c, n, pos[j], axis[j], a, h, gap))
        worst = max(worst, _deepest(pos[j], axis[j], c, n, a, h, gap))
    return worst


def world_axes(world) -> np.ndarray:
    """Every body's unit axis [n, 3] (the shown face's normal, either sign)."""
    return np.ascontiguousarray(np.array([normal_of(q) for q in world.quat]).reshape(-1, 3))


def leaner_pose(world, host: int, azimuth: float, base_distance: float, tilt: float):
    """(centre [3], shown-face normal [3], u [3]) of a leaner in contact with the mat
    (geometry: ``sim.episodes``)."""
    p = world.params
    sin_az, cos_az = dm.sincos(azimuth)
    sin_tilt, cos_tilt = dm.sincos(tilt)
    u = np.array([cos_az, sin_az, 0.0])
    n_up = sin_tilt * u + np.array([0.0, 0.0, cos_tilt])
    rise = -cos_tilt * u + np.array([0.0, 0.0, sin_tilt])
    base = np.array([world.pos[host, 0], world.pos[host, 1], 0.0]) + base_distance * u
    centre = base + (p.radius - p.chamfer) * rise + 0.5 * p.thickness * n_up
    return centre, n_up, u


def hand_start(centre, u, approach_distance: float = APPROACH_DISTANCE,
               approach_height: float = APPROACH_HEIGHT) -> np.ndarray:
    """Where the hand picks up its approach to a leaner at ``centre``."""
    return centre + approach_distance * u + np.array([0.0, 0.0, approach_height])


def approach_poses(world, intent) -> tuple[np.ndarray, np.ndarray]:
    """(centres [len(ALONG), 3], shown-face normal [3]) of the leaner of ``intent`` at its
    pose, half-way along the hand's approach (``hand_start``, straight in) and at its start."""
    centre, normal, u = leaner_pose(world, int(intent.host), float(intent.azimuth),
                                    float(intent.base_distance), float(intent.tilt))
    lift = hand_start(centre, u) - centre
    return np.array([centre + along * lift for along in ALONG]), normal


def intent_fits(world, intent, axis: np.ndarray | None = None, gap: float = FIT_GAP) -> bool:
    """Whether the leaner of ``intent`` and the hand's approach to it stay ``gap`` clear of
    every live disc at each of its ``approach_poses``."""
    p = world.params
    axis = world_axes(world) if axis is None else axis
    centres, normal = approach_poses(world, intent)
    return all(overlap(world.pos, axis, world.live, c, normal, p.radius, p.thickness, gap) <= 0.0
               for c in centres)
