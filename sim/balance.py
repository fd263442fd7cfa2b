"""Where a leaner balances: the static tip torque and the nominal intent.

A leaner rests on its lowest rim point P on the mat and leans toward its
host (pose: ``sim.episodes.leaner_pose``). Its *tip torque* is the torque
about P, along the horizontal axis z x u (u: host to leaner), of gravity and
of the magnetic force and torque of every live disc: positive raises the
leaner, negative lays it down. A nominal leaner sits where the tip torque
crosses zero and falls as the tilt grows (stable in tilt).

Its *turning torque* (``lean_torques``) is the torque about the vertical
through P: a leaner balanced in tilt is still turned about P by a crowd or a
tower to one side, and may rise and fall over once turned; ``balance_intent``
follows that turn (``turned_balance``) to tell whether it settles.

``scan_down`` scans one tilt on a 1 mm grid of base distances (``new_scan``)
from its outer end inward, refines each zero crossing by 30 bisections and
judges its stability from the torque 1 degree either side; ``nominal_intent``
picks among the crossings (see its docstring), taking a scan only as far in
as its choice needs (the outermost crossing of the first tilt, usually): 190
intents of two standard games cost 2.5 ms each instead of 3.2 with every grid
scanned whole, the same intents (session 23). The whole search runs in one compiled call
per tilt: the Python version (a world copy and a kernel call per torque,
~25 000 torques per intent in a crowded mid-game) took ~0.2-0.6 s an
intent, as long as the placement episode itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim import detmath as dm
from sim.bodies import normal_of, quat_to_matrix
from sim.detmath import sincos, tan
from sim.disturb import HOLD_AIM, Disturbance
from sim.events import Intent
from sim.fit import intent_fits, world_axes
from sim.jit import kernel
from sim.magnetics import packed_knobs, pair_force_torque
from sim.params import IDX

_RADIUS, _THICK, _MASS, _G = IDX["radius"], IDX["thickness"], IDX["mass"], IDX["gravity"]
_MR, _MT, _FAR, _BR = IDX["magnet_radius"], IDX["magnet_thickness"], IDX["far_cutoff"], IDX["br"]
WORK = 15  # lean_torques' work array


@kernel
def tip_torque(pos, axis, br, live, host, azimuth, base_distance, tilt, up, chamfer, P, field, work):
    """Tip torque (N m, positive raises) of a leaner of colour ``up`` at the pose."""
    return lean_torques(pos, axis, br, live, host, azimuth, base_distance, tilt, 0.0, up, chamfer,
                        P, field, work)[0]


@kernel
def lean_torques(pos, axis, br, live, host, azimuth, base_distance, tilt, turn, up, chamfer, P, field, work):
    """(tip torque, turning torque) of a leaner of colour ``up`` at the pose whose
    face is turned by ``turn`` about its base point (sim.episodes.leaner_pose), N m:
    about the horizontal z x u (positive raises) and about the vertical (positive
    turns it counter-clockwise seen from above). ``work``: float64[WORK], the
    leaner's centre and normal and a pair's result (a kernel allocates nothing)."""
    a, h, m, g = P[_RADIUS], P[_THICK], P[_MASS], P[_G]
    uy, ux = sincos(azimuth)
    st, ct = sincos(tilt)
    sign = 1.0 if up >= 0 else -1.0
    bx = pos[host, 0] + base_distance * ux
    by = pos[host, 1] + base_distance * uy
    if turn != 0.0:
        uy, ux = sincos(azimuth + turn)
    nup0, nup1, nup2 = st * ux, st * uy, ct
    lean = (a - chamfer)
    out9, c, nrm = work[0:9], work[9:12], work[12:15]
    c[0] = bx + lean * (-ct * ux) + 0.5 * h * nup0
    c[1] = by + lean * (-ct * uy) + 0.5 * h * nup1
    c[2] = lean * st + 0.5 * h * nup2
    nrm[0], nrm[1], nrm[2] = sign * nup0, sign * nup1, sign * nup2
    far2 = P[_FAR] * P[_FAR]
    f0, f1, f2 = 0.0, 0.0, -m * g
    t0, t1, t2 = 0.0, 0.0, 0.0
    for j in range(pos.shape[0]):
        if not live[j]:
            continue
        d2 = (c[0] - pos[j, 0]) ** 2 + (c[1] - pos[j, 1]) ** 2 + (c[2] - pos[j, 2]) ** 2
        if d2 >= far2:
            continue
        pair_force_torque(pos[j], axis[j], c, nrm, P[_MR], P[_MT], br[j], P[_BR], field, out9, packed_knobs(P))
        f0 += out9[0]
        f1 += out9[1]
        f2 += out9[2]
        t0 += out9[6]
        t1 += out9[7]
        t2 += out9[8]
    r0, r1, r2 = c[0] - bx, c[1] - by, c[2]
    tx = r1 * f2 - r2 * f1 + t0
    ty = r2 * f0 - r0 * f2 + t1
    tz = r0 * f1 - r1 * f0 + t2
    return -uy * tx + ux * ty, tz          # tip: along z x u = (-uy, ux, 0)


@njit(cache=True, fastmath=False)
def new_scan(P, top, tilt):
    """(grid, torques, crossings, their stability, state) of a scan not begun: base
    distances 1 mm apart over 6 radii from where the lower face clears the host's
    top edge; state = (lowest grid index whose torque is known, crossings found)."""
    a = P[_RADIUS]
    clear = a + top / tan(tilt) + 1e-3
    grid = clear + np.arange(0.0, 6.0 * a, 1e-3)
    k_n = grid.shape[0]
    return grid, np.empty(k_n), np.empty(k_n), np.empty(k_n, np.bool_), np.array([k_n, 0])


@kernel
def scan_down(pos, axis, br, live, host, azimuth, tilt, up, chamfer, P, field, grid, torques, xs, stable, state,
              first_only, work):
    """Carry a scan (``new_scan``) on inward from where it stopped: each grid point's
    tip torque, each sign change refined to a crossing (30 bisections) and judged
    stable from the torque 1 degree either side; with ``first_only`` it stops after
    the next crossing. So an intent that balances at its outermost crossing pays
    for the grid down to there (a leaner balances at ~56 mm of a grid reaching
    ~110 mm), and a scan taken up again computes nothing twice."""
    k, count = state[0], state[1]
    if k == grid.shape[0]:
        k -= 1
        torques[k] = tip_torque(pos, axis, br, live, host, azimuth, grid[k], tilt, up, chamfer, P, field, work)
    while k > 0:
        k -= 1
        torques[k] = tip_torque(pos, axis, br, live, host, azimuth, grid[k], tilt, up, chamfer, P, field, work)
        if (torques[k] > 0) == (torques[k + 1] > 0):
            continue
        lo, hi = grid[k], grid[k + 1]
        for _ in range(30):
            mid = 0.5 * (lo + hi)
            if (tip_torque(pos, axis, br, live, host, azimuth, mid, tilt, up, chamfer, P, field, work) > 0) == (torques[k] > 0):
                lo = mid
            else:
                hi = mid
        bd = 0.5 * (lo + hi)
        step = np.pi / 180.0
        slope = (tip_torque(pos, axis, br, live, host, azimuth, bd, tilt + step, up, chamfer, P, field, work)
                 - tip_torque(pos, axis, br, live, host, azimuth, bd, tilt - step, up, chamfer, P, field, work))
        xs[count] = bd
        stable[count] = slope < 0
        count += 1
        if first_only:
            break
    state[0], state[1] = k, count


_DEG = np.pi / 180.0
_TURN_STILL = 0.1 * _DEG      # a turn this small is left to the hand's noise
_TURN_MAX = 30.0 * _DEG
_STEP_MAX = 5.0 * _DEG


@njit(cache=True, fastmath=False)
def turned_balance(pos, axis, br, live, host, azimuth, base_distance, tilt, up, chamfer, P, field):
    """(turn, tilt, ok): where a leaner balanced in tilt at the pose rests once its
    neighbours' turning torque has turned it about its base point, the base point
    held (friction). Newton steps in turn (stiffness from the turning torque 2
    degrees either side) and in tilt, at most 5 degrees a step, up to 12 rounds;
    ok False if it is unstable in turn or tilt on the way, turns beyond 30
    degrees or leaves 5-85 degrees of tilt. A turn under 0.1 degree is returned
    as 0 with the tilt unchanged."""
    work = np.zeros(WORK)
    d = 2.0 * _DEG
    turn = 0.0
    for rnd in range(12):
        yaw = lean_torques(pos, axis, br, live, host, azimuth, base_distance, tilt, turn, up, chamfer, P, field, work)[1]
        yp = lean_torques(pos, axis, br, live, host, azimuth, base_distance, tilt, turn + d, up, chamfer, P, field, work)[1]
        ym = lean_torques(pos, axis, br, live, host, azimuth, base_distance, tilt, turn - d, up, chamfer, P, field, work)[1]
        stiff = -(yp - ym) / (2.0 * d)
        if stiff <= 0.0:
            return turn, tilt, False
        step = min(max(yaw / stiff, -_STEP_MAX), _STEP_MAX)
        if abs(step) < _TURN_STILL and rnd == 0:
            return 0.0, tilt, True
        turn += step
        if abs(turn) > _TURN_MAX:
            return turn, tilt, False
        for _ in range(4):
            tq = lean_torques(pos, axis, br, live, host, azimuth, base_distance, tilt, turn, up, chamfer, P, field, work)[0]
            tp = lean_torques(pos, axis, br, live, host, azimuth, base_distance, tilt + d, turn, up, chamfer, P, field, work)[0]
            tm = lean_torques(pos, axis, br, live, host, azimuth, base_distance, tilt - d, turn, up, chamfer, P, field, work)[0]
            slope = (tp - tm) / (2.0 * d)
            if slope >= 0.0:
                return turn, tilt, False
            dtilt = min(max(-tq / slope, -_STEP_MAX), _STEP_MAX)
            tilt += dtilt
            if tilt < 5.0 * _DEG or tilt > 85.0 * _DEG:
                return turn, tilt, False
            if abs(dtilt) < 1e-4:
                break
        if abs(step) < 1e-3:
            return turn, tilt, True
    return turn, tilt, False


def world_rotations(world) -> np.ndarray:
    """Every body's rotation matrix [n, 3, 3] (body frame to world; column 2 = axis)."""
    rot = np.zeros((len(world.quat), 3, 3))
    for i, q in enumerate(world.quat):
        quat_to_matrix(q, rot[i])
    return rot


def nominal_intent(world, host: int, azimuth: float, up: int | None = None,
                   tilt: float = np.pi / 4, fit: bool = False, hold: bool = False) -> Intent:
    """The intent whose leaner balances near ``tilt``: a base distance where
    the tip torque is zero and restoring in tilt (leaning further in lowers
    it), facing the host. Preference: the outermost crossing (the cushion
    side, away from the host's snap zone) at ``tilt``, then at tilts 2.5, 5,
    ... 15 degrees either side; then any stable crossing in the same order
    (towers often balance only close in). Failing all, the pose of strongest
    support at ``tilt``. With ``fit`` every pose considered is one the hand of
    ``place_leaner`` can bring a leaner to: it and its approach clear of every
    disc (``sim.fit``: a crossing can lie inside a flat disc beside the host or
    a tower's top disc); what the rules engine aims at (``aim_fit``). Without
    it (the default: scenes set their own approach) the torques alone decide.
    With ``hold`` every pose considered also leaves the discs near it in place
    (``sim.disturb``: off a 2- or 3-disc tower the only balance pulls the top
    disc into the hand); what the rules engine aims at (``aim_hold``).
    ``up`` defaults to the host's colour (a leaner shows its owner's colour)."""
    return _tilt_balance(world, host, azimuth, up, tilt, fit=fit, hold=hold)[0]


def balance_intent(world, host: int, azimuth: float, up: int | None = None,
                   tilt: float = np.pi / 4, fit: bool = False, hold: bool = False) -> tuple[Intent, bool]:
    """(``nominal_intent``'s intent, whether its leaner balances at all).
    False when no pose balances in tilt (the intent is then the pose of
    strongest support: a leaner released there falls or is flung over, e.g.
    off a tall tower, whose cushion lifts harder than gravity lays a leaner
    down at every distance), or when the pose balances in tilt but not once
    its neighbours have turned it about its base point (``turned_balance``:
    unstable in turn or in tilt on the way, or turned beyond 30 degrees). Of
    the releases of a recorded standard game (cautious vs aggressive, physics
    0.8.0) whose host and direction balance in tilt, 13 failed the turn test
    and 11 of them fell flat (the leaner turned ~20 degrees about its base
    and rose over); of the 26 that passed none fell flat and 13 ended
    leaning (the others snapped, stacked or left the circle in cascades)."""
    axis = world_axes(world)
    intent, balanced = _tilt_balance(world, host, azimuth, up, tilt, axis, fit, hold)
    if not balanced:
        return intent, False
    ok = turned_balance(world.pos, axis, world.br, world.live, int(intent.host),
                        float(intent.azimuth), float(intent.base_distance), float(intent.tilt),
                        int(intent.up), float(world.params.chamfer), world.P, world.field)[2]
    return intent, bool(ok)


def _tilt_balance(world, host: int, azimuth: float, up: int | None, tilt: float,
                  axis: np.ndarray | None = None, fit: bool = False,
                  hold: bool = False) -> tuple[Intent, bool]:
    """``nominal_intent`` and whether it found a stable crossing (else the fallback);
    ``axis``: the bodies' axes (``world_axes``) if the caller has them; ``fit``: only
    poses the hand can bring a leaner to (``sim.fit.intent_fits``); ``hold``: only
    poses that leave the discs near them in place (``sim.disturb``)."""
    if not world.live[host]:
        raise ValueError(f"host {host} is not on the mat: choose a live disc")
    if up is None:
        up = 1 if normal_of(world.quat[host])[2] >= 0 else -1
    p = world.params
    stack = [i for i in np.nonzero(world.live)[0]
             if dm.hypot(*(world.pos[i, :2] - world.pos[host, :2])) < p.radius]
    top = max(world.pos[i, 2] for i in stack) + 0.5 * p.thickness
    if axis is None:
        axis = world_axes(world)
    tilts = [tilt + np.radians(d) for d in (0.0, -2.5, 2.5, -5.0, 5.0, -7.5, 7.5, -10.0, 10.0,
                                             -12.5, 12.5, -15.0, 15.0)]
    scans = {}
    work = np.zeros(WORK)

    disturbance = Disturbance(world, axis) if hold else None

    def usable(intent: Intent) -> bool:
        return ((not fit or intent_fits(world, intent, axis))
                and (disturbance is None or disturbance(intent) < HOLD_AIM))

    for outermost_only in (True, False):       # most intents end at the first tilt's outermost crossing
        for t in tilts:
            if t not in scans:
                scans[t] = new_scan(world.P, float(top), float(t))
            grid, torques, xs, stable, state = scans[t]
            if state[0] > 0 and (not outermost_only or state[1] == 0):
                scan_down(world.pos, axis, world.br, world.live, int(host), float(azimuth), float(t), int(up),
                          float(p.chamfer), world.P, world.field, grid, torques, xs, stable, state,
                          outermost_only, work)
            n = min(1, state[1]) if outermost_only else state[1]
            for bd, ok in zip(xs[:n], stable[:n]):
                intent = Intent(host, azimuth, float(bd), t, up)
                if ok and usable(intent):
                    return intent, True
    grid, torques = scans[tilts[0]][:2]
    strongest = [Intent(host, azimuth, float(grid[k]), tilts[0], up)
                 for k in np.argsort(-torques, kind="stable")]
    return next((i for i in strongest if usable(i)), strongest[0]), False
