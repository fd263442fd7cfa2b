"""Magnetic forces on the whole world: the pair kernel lifted to all pairs.

Pair kernel: ``sim.magnetics.pair_force_torque`` (accurate near contact,
multipole and dipole further out, its own tiers) for centres closer than
``far_cutoff``; nothing beyond (at 0.2 m a pair force is ~0.1 % of a disc's
weight, far below what static friction holds). Only pairs with at least one
awake body that moves under forces are evaluated (two sleepers, or a sleeper
and the held disc, move nobody); a sleeper's own force is read only by the
wake check (``magnetic_on``). Pairs are visited in the fixed order i < j, so sums
are bit-reproducible.

Pair cache: the kernel costs ~3-11 us for discs in contact (its finest
tiers, the source field read from its table; 10-35 us in closed form), and discs in contact barely move relative to each other. Each pair
i < j keeps its last result ``cache [n, n, 9]`` and, in ``key [n, n, 18]``,
the pose it was computed at. Near pairs (centres closer than ``reuse_far``)
key the pose in i's body frame (R_i^T (c_j - c_i), R_i^T n_j) and keep the
result there too (``BODY_KEY``): a pair that moves as one piece (a tower
tilting, a chain of discs rolling on its rims, a leaner resting on its host
as both slide) keeps its result, rotated back to the world each step (27
multiplications instead of a kernel call; exact up to rounding, the kernel
being rotation-equivariant). The result is reused while that relative
position moved less than ``reuse_pos`` and j's axis less than ``reuse_axis``
(2 um, 1e-4: error at contact ~1300 N/m x 2 um = 3 mN of ~6 N; at 20 um the
stale forces pumped a teetering leaner into a limit cycle).
Far pairs (centres at least ``reuse_far`` apart, 2 diameters; ``WORLD_KEY``:
their discs move independently, so the world frame is cheaper) are reused
while the relative move is below ``reuse_rel`` x distance and each axis
turned less than 2 ``reuse_rel`` rad: beyond two diameters a pair force falls
off about as d^-4, so the stale result is off by ~4 ``reuse_rel`` of itself
(1 % at 0.0025, i.e. < 0.15 mN at 6 cm), far below contact forces; without it
the moving leaner's ~20 far pairs were ~60 % of a mid-game step.
``new_cache(n)`` makes an empty one; ``valid [n, n]`` marks filled entries.

Lead (``reuse_lead``, physics 0.11.0): a reused result is a held value, and
a value held from where it was computed lags the motion; a slow, weakly
damped mode can take energy from that lag. So the movers' loop computes a
pair ahead (``_recompute_led``): the pose the pair reaches, moving on as it
moves now (relative velocity, and each axis turning with its body's spin; a
near pair's in i's frame), when the quickest of its key's parts has gone
``reuse_lead`` (0.9) of its tolerance, and keys the result there. The pose
of the moment starts 0.9 of a tolerance behind the key and is reused until it
is a tolerance past it, so the held value sits near the middle of the stretch
it serves (no lag to first order) and serves ~1.9 tolerances instead of one.
Sleepers' wake checks (``magnetic_on``) compute at the pose of the moment.
Measured (session 21, 2026-12-03), the episodes of standard games (cautious
vs aggressive) replayed from their recorded worlds with and without lead, in
seven sets of 6-8 games (3,002 episodes; ``benchmarks/replay_episodes.py``
for the last three): CPU 3-18 % less in every set (median 11 %; a near
pair's result serves ~1.9 tolerances), body steps -12 % to +6 %, episodes
run to the step budget 31 -> 19; 4-5.5 % of the episodes end another way
(what a rounding-level change moves), and the outcome counts stay (e.g. the
first four sets: leaning 412 -> 416, out 173 -> 168, fallen neighbours
278 -> 281, red touches 11 -> 10, 4 gained and 4 lost). A disc lying 3.4 deg off
flat beside a 12-disc tower 78 mm away (far pairs: an axis tolerance of
2 ``reuse_rel`` = 5 mrad, ~0.3 deg of its rocking), sleeping off, rocks on
its rim at 1-4 mm/s and drifts to 4.3 deg without lead; with lead at up to
~1.3 mm/s about its rest tilt (3.85 deg, as with far pairs computed every
step, where it rests within a second): less, not gone (the strict xfail in
tests/test_physics_conservation.py until physics 0.12). Tighter tolerances
do not remove it either (``reuse_rel`` 0.000625: up to 0.4 mm/s) and cost more.
``reuse_lead`` = 0 is physics 0.10.0 bit for bit (pipelines.selfcheck).

Split (``far_dipole``, physics 0.12.1; 0.12.0, commit af4656d, held the torque
on i as well, never used for results): a far pair closer than ``far_dipole``
holds only what its result has beyond the dipole term of its two magnets
(``_hold_remainder``: kernel less dipole, at the pose of the moment) and adds
the dipole term of the moment every step (``_serve_split``, ~10-15 ns; valid
= ``WORLD_SPLIT``), the torque on i re-derived from the torque on j and the
force there, so a served result keeps angular momentum to rounding (a held
whole result is off by (d - d_key) x F). What is held, and lags, is then a small part of what it
was: the remainder is 12 / 7 / 3 % of the force at 6 / 8 / 12 cm (median over
random poses; torque alike); the remainder is held from the pose it was
computed at (no lead: ahead of a rocking disc's turning point a led value
pushes on past it, and leading a value that softens the rocking pumps it).
The disc beside the 12-disc tower comes to rest within 2 s (speed < 1e-7 m/s
after 4 s). Pairs beyond ``far_dipole`` (0.12 m) keep the held result with
lead: there a held value's error (its stiffness x the tolerance) is
~(d/reach)^-4 of what it is at the reach; splitting them too (0.2 m) cost
~11 % more CPU on replayed episodes, 0.12 m ~2-4 % (below), 0.09 m left
bumps of 0.02 mm/s in the tower test. Measured (session 22, 2026-12-03),
episodes of standard games replayed under both (``benchmarks/replay_episodes.py
--set far_dipole=0``, sets of 6-8 games, seeds 11, 12, 13, 2026): see the
Physics 0.12.1 row of docs/MEASUREMENTS.md. Lead is kept for near pairs and pairs
beyond the reach, though a led value can pump too (a disc 29 mm from a
two-disc stack, in an episode of seed 2026, rocks at 2-7 mm/s with it and rests with
``reuse_lead`` 0): with split far pairs, ``reuse_lead`` 0 cost 11 % more CPU
over four sets (1,900 episodes; -5 % to +24 % a set) and ran 17 episodes to
the step budget against 11.

Fitted lead (``fitted_lead``, physics 0.18.0): a pair that moves s
tolerances a step is served at offsets -L, -L + s, ... from its key while
they stay under 1 (L = ``reuse_lead``). For s < 1 those are about centred
on the key. For s >= 1 + L the one pose served is L tolerances behind the
key: every step's force was the force L tolerances ahead along the motion,
a bias, not a reuse; for 1 <= s < 1 + L the two poses served sit off
centre. So for s >= 1 the led time is half a step when s < 2 (the key
midway between the two poses it serves) and none beyond (the pair is
computed where it is). Measured (session 33) on the one-second
frictionless snap, sixteen releases at dt 0.05 ms: a steady gain of +0.56 %
of the peak kinetic energy a second with the lead as it was, +0.13 % fitted
(no lead at all: +0.03 %), worst |E - E_0| 0.16-0.65 % (0.17-1.40 %). Also
tried: no lead for s >= 1 (+0.20 %, but 7-13 % more CPU: pairs at 1 <= s <
1.9 had been served twice) and min(L, 1 - s) (+0.13 %, 5-11 % more CPU).

Momentum (``reuse_momentum``, physics 0.16.0): a result served anywhere but
at the pose it was computed at (reused a little way on, or computed ahead by
the lead) is served with its force on j and torque on j and the torque on i
re-derived where the pair is, -(T_j + d x F), as split pairs always were
(``_balance_torque_on_i``). Served with its own torque on i, it was off by
(d - d_key) x F (up to ~2 um x 6 N at contact): a torque whose work whenever
the pair turned, as one piece or not, went one way more than the other. A
leaner snapping onto its host with friction and damping off gained energy
over a second: final drift +1.0 % of the peak kinetic energy on average over
eight releases (-0.1 to +2.2 %; with the tolerances 4x wider +3.3 % on
average, each release +2.4 to +4.6 %); re-derived, -0.1 % on average over the
same eight (+0.1 over sixteen; 4x wider +1.1 %), the spread of a run without
any reuse (sixteen releases, final drift -2.8 to +3.5 %: what is left is not
the reuse, docs/MEASUREMENTS.md, physics 0.16.0). A served result then keeps
angular momentum to rounding, and a pair turning as one piece does no work.
Cost: a cross product a served pair; the episodes of 14 games replayed, 3 %
less CPU (3.4 % fewer body steps); 2 x 160 paired standard games, no
significant change, 122 episodes run to the step budget instead of 181
(docs/MEASUREMENTS.md). ``reuse_momentum`` False is physics 0.15.0 bit for
bit.

Arrays: pos [n,3], axis [n,3] (face normal = magnetic axis), br [n],
force/torque accumulators [n,3]; torques about each body's centre.
"""

import numpy as np
from numba import njit

from sim.jit import kernel
from sim.magnetics import KERNEL_KNOBS, _dipole_pair, _pair
from sim.magnetics_vec import axpy, cross, norm, scale, sub, vec


KEY = 18   # per pair: pose (6; 9 far) and the result in i's body frame (9, near) or the held remainder (9, far)
SPLIT = 9  # key[i, j, SPLIT:]: a split far pair's held remainder (Split)
WORLD_KEY, BODY_KEY, WORLD_SPLIT = 1, 2, 3   # valid[i, j]: what key[i, j] holds


def new_cache(n: int):
    return np.zeros((n, n, 9)), np.zeros((n, n, KEY)), np.zeros((n, n), np.uint8)


@kernel
def pair_cached(i, j, pos, axis, rot, br, radius, thickness, table, far, cache, key, valid,
                reuse_pos, reuse_axis, reuse_far, reuse_rel, split=0.0, knobs=KERNEL_KNOBS, momentum=1.0):
    """Fill cache[i, j] (i < j: force on j, torque on i, torque on j, world
    frame) unless the stored one is still good; False (nothing) beyond ``far``.
    The step's pair loops (``magnetic_movers``, ``magnetic_on``) spell these
    three lines out instead of calling it: numba leaves it a call even with
    ``inline="always"`` (measured: 0.53 vs 1.19 us for one awake leaner among
    26 sleepers)."""
    within, d0, d1, d2, dd = _pair_within(i, j, pos, far)
    if not within:
        return False
    if not _reused(i, j, d0, d1, d2, dd, axis, rot, cache, key, valid, reuse_pos, reuse_axis,
                   reuse_far, reuse_rel, br, radius, thickness, momentum):
        _recompute(i, j, d0, d1, d2, dd, pos, axis, rot, br, radius, thickness, table, cache, key,
                   valid, reuse_far, split, knobs)
    return True


@kernel(inline="always")
def _pair_within(i, j, pos, far):
    """(centres closer than ``far``, c_j - c_i, its squared length)."""
    d0, d1, d2 = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
    dd = d0 * d0 + d1 * d1 + d2 * d2
    return dd < far * far, d0, d1, d2, dd


@kernel(inline="always")
def _reused(i, j, d0, d1, d2, dd, axis, rot, cache, key, valid, reuse_pos, reuse_axis,
            reuse_far, reuse_rel, br, radius, thickness, momentum=1.0):
    """True if the stored result of pair (i, j), centres d apart (dd = |d|^2),
    still holds; a near pair's is then rotated into cache[i, j].

    Kept apart from the kernel call (``_recompute``): numba does not inline a
    function as big as the two together, and a call with this many array
    arguments costs ~50 ns, more than the test itself (a mid-game step makes
    ~25 such tests per awake body). A split far pair's result is its held
    remainder plus the dipole term at the pose of the moment (Split); with
    ``momentum`` on, any served result's torque on i is re-derived at the pose
    of the moment (Momentum)."""
    if dd >= reuse_far * reuse_far:          # far: world-frame key, relative tolerance
        if valid[i, j] != WORLD_KEY and valid[i, j] != WORLD_SPLIT:
            return False
        tol_p = max(reuse_pos, reuse_rel * np.sqrt(dd))
        tol_a = max(reuse_axis, 2.0 * reuse_rel)
        dp = (d0 - key[i, j, 0]) ** 2 + (d1 - key[i, j, 1]) ** 2 + (d2 - key[i, j, 2]) ** 2
        da = ((axis[i, 0] - key[i, j, 3]) ** 2 + (axis[i, 1] - key[i, j, 4]) ** 2
              + (axis[i, 2] - key[i, j, 5]) ** 2)
        db = ((axis[j, 0] - key[i, j, 6]) ** 2 + (axis[j, 1] - key[i, j, 7]) ** 2
              + (axis[j, 2] - key[i, j, 8]) ** 2)
        if dp >= tol_p * tol_p or da >= tol_a * tol_a or db >= tol_a * tol_a:
            return False
        if valid[i, j] == WORLD_SPLIT:
            d = (d0, d1, d2)
            _serve_split(i, j, d, _dipole_term(i, j, d, vec(axis[i]), vec(axis[j]), br, radius, thickness),
                         cache, key)
        elif momentum > 0.0:
            _balance_torque_on_i(i, j, (d0, d1, d2), cache)
        return True
    if valid[i, j] != BODY_KEY:
        return False
    # near: the pose of j in i's body frame, so a pair moving as one piece
    # (a tower tilting, a chain rolling) keeps its result, rotated along
    l0, l1, l2, m0, m1, m2 = _body_pose(i, j, d0, d1, d2, axis, rot)
    dp = (l0 - key[i, j, 0]) ** 2 + (l1 - key[i, j, 1]) ** 2 + (l2 - key[i, j, 2]) ** 2
    db = (m0 - key[i, j, 3]) ** 2 + (m1 - key[i, j, 4]) ** 2 + (m2 - key[i, j, 5]) ** 2
    if dp >= reuse_pos * reuse_pos or db >= reuse_axis * reuse_axis:
        return False
    for v in range(3):
        if v == 1 and momentum > 0.0:
            continue                # the torque on i: re-derived where the pair is, below
        for r in range(3):
            cache[i, j, 3 * v + r] = (rot[i, r, 0] * key[i, j, 6 + 3 * v]
                                      + rot[i, r, 1] * key[i, j, 7 + 3 * v]
                                      + rot[i, r, 2] * key[i, j, 8 + 3 * v])
    if momentum > 0.0:
        _balance_torque_on_i(i, j, (d0, d1, d2), cache)
    return True


@kernel(inline="always")
def _body_pose(i, j, d0, d1, d2, axis, rot):
    """A near pair's key: c_j - c_i (= d) and j's axis in i's body frame."""
    return (rot[i, 0, 0] * d0 + rot[i, 1, 0] * d1 + rot[i, 2, 0] * d2,
            rot[i, 0, 1] * d0 + rot[i, 1, 1] * d1 + rot[i, 2, 1] * d2,
            rot[i, 0, 2] * d0 + rot[i, 1, 2] * d1 + rot[i, 2, 2] * d2,
            rot[i, 0, 0] * axis[j, 0] + rot[i, 1, 0] * axis[j, 1] + rot[i, 2, 0] * axis[j, 2],
            rot[i, 0, 1] * axis[j, 0] + rot[i, 1, 1] * axis[j, 1] + rot[i, 2, 1] * axis[j, 2],
            rot[i, 0, 2] * axis[j, 0] + rot[i, 1, 2] * axis[j, 1] + rot[i, 2, 2] * axis[j, 2])


@kernel(inline="always")
def _dipole_term(i, j, d, ni, nj, br, radius, thickness):
    """Pair (i, j)'s dipole term at pose (c_j - c_i = d, axes ni, nj)."""
    return _dipole_pair((0.0, 0.0, 0.0), ni, d, nj, radius, 0.5 * thickness, br[i], br[j])[0]


@kernel(inline="always")
def _serve_split(i, j, d, dip, cache, key):
    """cache[i, j] = the far pair's held remainder + its dipole term ``dip`` at c_j - c_i = d,
    the torque on i taken as -(T_on_j + d x F_on_j), so the served result keeps
    angular momentum to rounding wherever the pair has moved since."""
    for v in (0, 2):
        for k in range(3):
            cache[i, j, 3 * v + k] = key[i, j, SPLIT + 3 * v + k] + dip[v][k]
    _balance_torque_on_i(i, j, d, cache)


@kernel(inline="always")
def _balance_torque_on_i(i, j, d, cache):
    """cache[i, j]'s torque on i = -(T_on_j + d x F_on_j) at c_j - c_i = d: a result
    served at a pose other than its own then keeps angular momentum to rounding."""
    f = (cache[i, j, 0], cache[i, j, 1], cache[i, j, 2])
    t_i = scale(-1.0, axpy(1.0, (cache[i, j, 6], cache[i, j, 7], cache[i, j, 8]), cross(d, f)))
    for k in range(3):
        cache[i, j, 3 + k] = t_i[k]


@kernel(inline="always")
def _hold_remainder(i, j, result, dip, key, valid):
    """key[i, j, SPLIT:] = ``result`` less the pair's dipole term ``dip`` at the same pose;
    the pair is split."""
    for v in range(3):
        for k in range(3):
            key[i, j, SPLIT + 3 * v + k] = result[v][k] - dip[v][k]
    valid[i, j] = WORLD_SPLIT


@kernel(inline="always")
def _store(i, j, result, cache):
    for v in range(3):
        for k in range(3):
            cache[i, j, 3 * v + k] = result[v][k]


@kernel
def _recompute(i, j, d0, d1, d2, dd, pos, axis, rot, br, radius, thickness, table, cache, key,
               valid, reuse_far, split=0.0, knobs=KERNEL_KNOBS):
    """Call the kernel for pair (i, j) and store its key (see ``_reused``)."""
    d, ni, nj = (d0, d1, d2), vec(axis[i]), vec(axis[j])
    result = _pair(vec(pos[i]), ni, vec(pos[j]), nj, radius, 0.5 * thickness, br[i], br[j], table, knobs)
    _store(i, j, result, cache)
    far = dd >= reuse_far * reuse_far
    _keep(i, j, d, ni, nj, far, rot, cache, key, valid)
    if far and dd < split * split:
        _hold_remainder(i, j, result, _dipole_term(i, j, d, ni, nj, br, radius, thickness), key, valid)


@kernel
def _recompute_led(i, j, d0, d1, d2, dd, pos, axis, rot, vel, omega, br, radius, thickness, table, cache,
                   key, valid, reuse_pos, reuse_axis, reuse_far, reuse_rel, lead, split=0.0, knobs=KERNEL_KNOBS,
                   momentum=1.0, step=0.0):
    """``_recompute`` at the pose the pair will reach, moving as it moves now,
    ``lead`` of the way to where its result stops being reused (see Lead); with
    ``lead`` 0, a zero tolerance or a pair at rest, bit for bit ``_recompute``.
    A far pair closer than ``split`` holds the result less its dipole term, computed
    at the pose of the moment, and serves the dipole term of the moment on top (Split).
    ``step`` > 0 (the time step): a pair that moves its tolerance or more in a
    step is led half a step (under two tolerances a step) or not at all
    (Fitted lead)."""
    far = dd >= reuse_far * reuse_far
    split_now = far and dd < split * split
    d, ni, nj = (d0, d1, d2), vec(axis[i]), vec(axis[j])
    wi, wj = vec(omega[i]), vec(omega[j])
    rate_d = sub(vec(vel[j]), vec(vel[i]))
    if far:
        tol_p = max(reuse_pos, reuse_rel * np.sqrt(dd))
        tol_a = max(reuse_axis, 2.0 * reuse_rel)
        rate_i, rate_j = cross(wi, ni), cross(wj, nj)
    else:                       # in i's frame, i's own axis stays put
        tol_p, tol_a = reuse_pos, reuse_axis
        rate_d = sub(rate_d, cross(wi, d))
        rate_i, rate_j = (0.0, 0.0, 0.0), cross(sub(wj, wi), nj)
    speed = 0.0                 # a zero tolerance reuses nothing: nothing to lead
    if lead > 0.0 and tol_p > 0.0 and tol_a > 0.0 and not split_now:
        speed = max(norm(rate_d) / tol_p, norm(rate_i) / tol_a, norm(rate_j) / tol_a)
    ci, cj = vec(pos[i]), vec(pos[j])
    t = 0.0                     # the led time
    if speed > 0.0:
        moved = speed * step    # tolerances a step
        t = lead / speed if moved < 1.0 else (0.5 * step if moved < 2.0 else 0.0)
    led = t > 0.0               # else computed where it is (two tolerances a step: served there alone)
    if led:
        d = axpy(t, rate_d, d)
        cj = (ci[0] + d[0], ci[1] + d[1], ci[2] + d[2])
        ni = axpy(t, rate_i, ni)
        ni = scale(1.0 / norm(ni), ni)
        nj = axpy(t, rate_j, nj)
        nj = scale(1.0 / norm(nj), nj)
    result = _pair(ci, ni, cj, nj, radius, 0.5 * thickness, br[i], br[j], table, knobs)
    _store(i, j, result, cache)
    _keep(i, j, d, ni, nj, far, rot, cache, key, valid)
    if led and momentum > 0.0:  # served at the pose of the moment, not the led one
        _balance_torque_on_i(i, j, (d0, d1, d2), cache)
    if split_now:               # not led: (d, ni, nj) is the pose of the moment
        dip = _dipole_term(i, j, d, ni, nj, br, radius, thickness)
        _hold_remainder(i, j, result, dip, key, valid)
        _serve_split(i, j, d, dip, cache, key)


@kernel(inline="always")
def _keep(i, j, d, ni, nj, far, rot, cache, key, valid):
    """Key the result in ``cache[i, j]`` by the pose it was computed at: c_j - c_i = d, the
    axes ni, nj (world frame for a far pair; j's pose and the result in i's frame for a near one)."""
    if far:
        for c in range(3):
            key[i, j, c] = d[c]
            key[i, j, 3 + c] = ni[c]
            key[i, j, 6 + c] = nj[c]
        valid[i, j] = WORLD_KEY
        return
    for c in range(3):
        key[i, j, c] = rot[i, 0, c] * d[0] + rot[i, 1, c] * d[1] + rot[i, 2, c] * d[2]
        key[i, j, 3 + c] = rot[i, 0, c] * nj[0] + rot[i, 1, c] * nj[1] + rot[i, 2, c] * nj[2]
    for v in range(3):
        for c in range(3):
            key[i, j, 6 + 3 * v + c] = (rot[i, 0, c] * cache[i, j, 3 * v] + rot[i, 1, c] * cache[i, j, 3 * v + 1]
                                        + rot[i, 2, c] * cache[i, j, 3 * v + 2])
    valid[i, j] = BODY_KEY


@njit(cache=True, fastmath=False)
def magnetic_all(pos, axis, rot, br, live, awake, radius, thickness, table, far, force, torque,
                 cache, key, valid, reuse_pos, reuse_axis, kin=-1, reuse_far=1.0, reuse_rel=0.0, split=0.0,
                 knobs=KERNEL_KNOBS, momentum=1.0):
    """Add magnetic force and torque of every pair with an awake member that
    moves under forces (the held disc ``kin`` does not: a pair of it and a
    sleeper moves nobody, so it is skipped). Allocates its work list; the
    step loop calls ``magnetic_movers`` with its own."""
    movers = np.empty(pos.shape[0], np.int64)
    grp = np.full(pos.shape[0], -1, np.int64)
    still = np.zeros_like(pos)
    magnetic_movers(pos, axis, rot, still, still, br, live, awake, radius, thickness, table, far, force, torque,
                    cache, key, valid, reuse_pos, reuse_axis, kin, reuse_far, reuse_rel, 0.0, movers, grp, split,
                    knobs, momentum)


@kernel(inline="always")
def magnetic_movers(pos, axis, rot, vel, omega, br, live, awake, radius, thickness, table, far, force, torque,
                    cache, key, valid, reuse_pos, reuse_axis, kin, reuse_far, reuse_rel, lead, movers, grp,
                    split=0.0, knobs=KERNEL_KNOBS, momentum=1.0, step=0.0):
    """``magnetic_all`` with a work array ``movers [n]``: pairs (i, j), i < j,
    in the same order, but a sleeping i meets only the movers after it
    instead of every body (O(awake x n), not O(n^2), per step). Pairs within
    one compound body (``grp``, sim.compound) are skipped: they cancel."""
    n = pos.shape[0]
    m = 0
    for i in range(n):
        if live[i] and awake[i] and i != kin:
            movers[m] = i
            m += 1
    for i in range(n):
        if not live[i]:
            continue
        mover = awake[i] and i != kin
        for t in range(n - i - 1 if mover else m):
            j = i + 1 + t if mover else movers[t]
            if j <= i or not live[j] or (grp[i] >= 0 and grp[i] == grp[j]):
                continue
            within, d0, d1, d2, dd = _pair_within(i, j, pos, far)
            if not within:
                continue
            if not _reused(i, j, d0, d1, d2, dd, axis, rot, cache, key, valid, reuse_pos,
                           reuse_axis, reuse_far, reuse_rel, br, radius, thickness, momentum):
                _recompute_led(i, j, d0, d1, d2, dd, pos, axis, rot, vel, omega, br, radius, thickness,
                               table, cache, key, valid, reuse_pos, reuse_axis, reuse_far, reuse_rel, lead,
                               split, knobs, momentum, step)
            for k in range(3):
                force[j, k] += cache[i, j, k]
                force[i, k] -= cache[i, j, k]
                torque[i, k] += cache[i, j, 3 + k]
                torque[j, k] += cache[i, j, 6 + k]


@kernel
def magnetic_on(i, pos, axis, rot, br, live, radius, thickness, table, far, out6, cache, key,
                valid, reuse_pos, reuse_axis, reuse_far=1.0, reuse_rel=0.0, split=0.0, knobs=KERNEL_KNOBS,
                momentum=1.0):
    """Total magnetic force and torque on body i from every live body."""
    for k in range(6):
        out6[k] = 0.0
    for j in range(pos.shape[0]):
        if j == i or not live[j]:
            continue
        lo, hi = min(i, j), max(i, j)
        within, d0, d1, d2, dd = _pair_within(lo, hi, pos, far)
        if not within:
            continue
        if not _reused(lo, hi, d0, d1, d2, dd, axis, rot, cache, key, valid, reuse_pos,
                       reuse_axis, reuse_far, reuse_rel, br, radius, thickness, momentum):
            _recompute(lo, hi, d0, d1, d2, dd, pos, axis, rot, br, radius, thickness, table,
                       cache, key, valid, reuse_far, split, knobs)
        for k in range(3):
            if i == hi:
                out6[k] += cache[lo, hi, k]
                out6[3 + k] += cache[lo, hi, 6 + k]
            else:
                out6[k] -= cache[lo, hi, k]
                out6[3 + k] += cache[lo, hi, 3 + k]


_SAME_POSE = 1e-150  # a reuse tolerance met only by an unchanged pose (its square, 1e-300, is still > 0)


@njit(cache=True, fastmath=False)
def refresh_refs(pos, axis, rot, br, live, awake, radius, thickness, table, far, fref, knobs=KERNEL_KNOBS):
    """Record the magnetic force/torque on every live sleeper as its reference,
    each pair's kernel called once: every pair keyed in the world frame
    (``reuse_far`` 0) and reused only at the very pose it was computed at (a
    tolerance whose square is ~1e-300), so a pair of two sleepers serves its
    second member the first one's result, bit for bit the kernel's."""
    n = pos.shape[0]
    cache = np.zeros((n, n, 9))
    key = np.zeros((n, n, KEY))
    valid = np.zeros((n, n), np.uint8)
    out6 = np.zeros(6)
    for i in range(n):
        if live[i] and not awake[i]:
            magnetic_on(i, pos, axis, rot, br, live, radius, thickness, table, far, out6, cache,
                        key, valid, _SAME_POSE, _SAME_POSE, 0.0, 0.0, 0.0, knobs, 0.0)
            fref[i, :] = out6

