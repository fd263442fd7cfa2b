"""The fixed-step loop: forces, integration, sleeping, events, in one njit run.

One call of ``run`` simulates one episode with velocity Verlet (kick-drift-
kick: half kick, drift, forces at the new poses, half kick; drag is applied
in the kicks with the velocity of the moment). Each step, at time t:

1. kinematics: the held disc (``hand`` >= 0) follows its path ``hand_t [k]``,
   ``hand_p [k, 3]`` (piecewise linear, fixed orientation) until
   ``hand_t[-1]``, then is released (or lifted away with whatever hangs on
   it or tipped up onto it, see ``release_hand``); if a disc touches it on the way, the hand
   stops there and lets go ``hold_time`` later (a player feels the snap);
   the pusher sphere follows ``push_t``/``push_p``;
2. forces (``compute_forces``): geometry of awake bodies (sleepers keep
   their sample points), gravity, magnetic pairs with an awake member
   (sim.forces), rim points against the mat and against other discs
   (both ways), the pusher; a sleeper touched by an awake body is woken and
   the forces are computed again; the discs of a compound body (a stack
   moving as one, sim.compound) skip their contacts and magnets with each
   other, and a compound body whose contacts could not carry what its rigid
   motion asks of them dissolves (``hold_groups``: then its forces are
   computed again);
3. the second half kick of the step that ended at t (a compound body's
   members together, ``kick_groups``);
4. checks and events: NaN, a speed above ``max_speed`` or a centre below the
   mat ends the run; ``touched [n, n]`` collects every disc-disc contact at
   any instant, ``maxdisp [n]`` the largest horizontal displacement;
5. sleeping: a body is still while below both sleep speeds or while its
   pose stays within ``rest_ball`` of where it was (``in_rest_ball``:
   contacts at rest jitter); an island of touching awake bodies that have
   all been still for ``sleep_time`` (``flat_sleep_time`` if all lie flat)
   falls asleep together (``sleep_islands``), each body's magnetic force
   recorded in ``fref [n, 6]``; every ``wake_check_every``
   steps a sleeper within ``wake_radius`` of an awake body is woken if its
   magnetic force or torque changed by more than ``wake_force x m g`` (x
   radius for torques) and, lying flat, friction no longer holds it, alone
   or as part of the tower it is in (sim.holding: ``flat_holds``,
   ``stack_holds``); further out one disc changes a force by less than that
   (a pair force at 0.1 m is ~3 mN); at the same steps, touching awake
   discs stacked face to face and moving together join a compound body
   (``form_groups``), which dissolves when its island falls asleep;
6. the first half kick and the drift to t + dt, in sub-steps (below).

Sub-steps: a contact is stiff against the step (a disc rocking on the mat
rings at ~2,900 rad/s: omega dt ~ 0.3), and with friction and damping off
a disc clattering on the mat gained or lost up to 3.7 % of its energy in a
second at dt = 0.1 ms (1.8 % for a disc dropped on another), the error
shrinking with dt^2. So a step in which some contact point moves against
its surface (the mat, or the other disc's point) faster than
``contact_substep_speed`` (1 cm/s), or a point would reach a surface that
fast (``predict_entry``), is taken as ``contact_substeps`` (3) kick-drift-
kick sub-steps of dt/3 with forces at each; kinematics, events, sleeping and
wake checks stay once a step. ``contact_speed [2]`` carries the prediction's
horizon (dt) and the square of the fastest such speed seen by the step's
forces. With it the clattering disc stays within 0.40 % and the dropped
disc within 0.24 % (tests/test_physics_conservation.py). Resting contacts, and discs rolling on
their rims (the contact point is still), cost nothing more; the 56
placements of two recorded standard games took 1.5x the body steps and CPU.
``contact_substeps = 1`` is physics 0.6.0's integration, bit for bit
(tested through pipelines.selfcheck). Measured and rejected: sub-stepping
only crossings (entries and exits: no better than none, the error lives in
the ringing contact); only what follows an entry, not the entry (-20 %:
the asymmetry drifts); only the normal speed at contact points (a disc
sliding over another's edge drifted -5 %); any body touching something
while moving faster than 2 cm/s (met the bar, but 2x the body steps:
rolling cascades were sub-stepped too); sub-stepping only the islands of
touching bodies that hold a fast contact (with any island that could reach
them within the step), the others taking the step whole (session 14: in the
125 placements of two recorded standard games 17 % of the body steps were
such islands' sub-steps): replayed, those 125 cost 23 % less CPU, but the
330 of four other games 7 % more (7 % less without their costliest 3 %), and
in 24 standard games (cautious vs aggressive, seed 11) episodes still moving
at the step budget rose from 13 to 21 and physics steps by 22 %. In the
two such episodes looked at, a tower a few centimetres from a clattering
group, stepped whole while the group was sub-stepped, kept wobbling at 2-5
mm/s for seconds (suspected: the stiff magnetic coupling of discs that close,
split across two step sizes; widening the sub-stepped set by 3 cm did not
settle the question on 330 replays).

Coasting (``coast``): while only the held disc is awake, nothing lies within
contact reach of its path and no wake check is due, a step changes nothing
but the held disc's pose, so it is skipped (bit-identical; tested on every
golden scene).

The run ends ``SETTLED`` when the hand is released, the pusher is done and
every live dynamic body sleeps; ``BUDGET`` after ``max_steps``; ``RED`` at
the first step where a body touches one of the ids in ``stop_red`` (the
caller's rules end the game at that touch, so the rest is not simulated: in
a crowded mid-game the chase after a red touch could run seconds and blow up).

Contacts (rim points against the mat, other discs and the pusher, with their
shared stiffness): sim.contact_forces. Sleeping islands and the rest ball:
sim.sleeping.

Cost (benchmarks/bench_physics.py, process CPU): the step loop allocates
nothing and takes no array views per rim point or per pair (work rows in
``scratch [8, 3]``; a view costs about as much as a contact point's
arithmetic). A numba call that LLVM does not inline cost ~100-150 ns with
this many array arguments, most of it numba's reference counting of each
array argument (since 2026-12-02 the step loop's functions are ``sim.jit``
kernels, compiled without it: a standard game 35 % cheaper, bit for bit),
so the per-pair work that most pairs skip (the
distance test of contacts; the distance and cache tests of magnetic pairs,
sim.forces ``_pair_within`` and ``_reused``) happens before any call: with 35
sleeping discs in the world, a lone placement went from 17.7 to 5.8 us a
step. Check that a small helper really is inlined: numba left the old
all-in-one ``pair_cached`` (tests and kernel call together) a call despite
``inline="always"``, ~50 ns a pair; split, ``compute_forces`` for one
awake leaner among 26 sleepers went from 2.4 to 1.6 us (bit-identical). Pair loops visit a
sleeper only against the awake bodies after it (``act``), in the order i < j,
so sums stay bit-reproducible. Physics 0.4.1 (bench_physics.py, quiet): a
leaner on a lone host, 2 506 steps, ~4.6 ms; the placements of a real
standard game (``game_placements``), median ~135 ms, mean ~300 ms. A game's
cost is in its cascades: several bodies awake for seconds, each step
recomputing the magnetic kernel of touching pairs that move against each
other (~10-20 us a call in closed form; pairs that move as one piece reuse
it, sim.forces) and their rim contacts; in a crowded world with 13 awake
discs a step costs ~70 us when no pair needs the kernel and ~730 us when all
do (physics 0.4.1). Physics 0.5.0 reads the source field from a table
(sim.magnetics_table): the kernel is 2.6-3.2x cheaper over random near poses
and the 140 placements of two recorded standard games (cautious vs
aggressive, seeds 11 and 12, replayed from the same worlds) cost 60 instead
of 80 CPU s, 9.8 instead of 12.9 us a body step (2026-12-01, a quiet AMD
Zen 3 machine). Longer steps and shorter sleep times were measured and
rejected (sim.params, SLEEP). Physics 0.8.0 tests a sleeping tower's disc as
its tower (sim.holding): a typical clean placement in a real game had woken
a tower 8-10 cm away and kept it jittering for most of the episode; the 169
leaner placements of a recorded standard game (cautious vs aggressive, game
seed 12, replayed from the same worlds) went from 86 to 44 CPU s, median
413 to 117 ms, 7.9 M to 3.7 M body steps (``tower_hold = False``: 0.7.0).
``run`` only allocates the work arrays; the loop is ``step_loop``, a kernel,
and the per-point helpers (``world_points``, ``point_velocity``,
``apply_at``, sim.contacts ``sdf_entered`` and ``point_force_at``)
are inlined: perf over the 125 placements of game seeds 11 and 12 (cautious
vs aggressive, replayed) had 4.5 % of the CPU in the reference counting of
``run``'s own slices and the magnetic rule's, and the helpers were calls
per contact point. With that, the face-plane test in ``pair_contacts`` and
the edge gap skipped for magnets clear of its last band (sim.magnetics),
those placements took 13.4 instead of 15.4 CPU s, bit for bit
(2026-12-02, session 16). Loops over rim points read the poses and
velocities they use into locals first (``world_points``, ``mat_contacts``,
``pair_contacts``): LLVM cannot prove that their writes to the work arrays
leave those arrays alone, so it reloaded them for every point; another
~12 % off the costliest replayed placements, bit for bit. The magnetic
pair loop (sim.forces ``magnetic_movers``) and ``mat_contacts``, each called
from one place in ``compute_forces``, are inlined there: the 83 episodes
of two standard games replayed, ~2.5 % less CPU, bit for bit (session 36;
inlining ``_contact_pair``, called from two places, measured no gain).
"""

import numpy as np
from numba import njit

from sim.bodies import quat_rotate_step, quat_to_matrix
from sim.contact_forces import mat_contacts, pair_contacts, pusher_contacts, world_points
from sim.contacts import contact_reach
from sim.compound import dissolve, form_groups, group_drift, group_holds, group_kick
from sim.forces import KEY, magnetic_movers, magnetic_on
from sim.holding import flat_holds, stack_holds
from sim.jit import kernel
from sim.magnetics import packed_knobs
from sim.params import IDX
from sim.sleeping import in_rest_ball, sleep_islands, wake_marked
from sim.state import lies_flat

SETTLED, BUDGET, NAN, ENERGY, RED = 0, 1, 2, 3, 4
STATUS_NAMES = ("settled", "step_budget", "nan", "energy", "red_contact")

_RADIUS, _THICK, _MASS = IDX["radius"], IDX["thickness"], IDX["mass"]
_MR, _MT, _G = IDX["magnet_radius"], IDX["magnet_thickness"], IDX["gravity"]
_LIN, _ANG, _ROLL = IDX["linear_damping"], IDX["angular_damping"], IDX["rolling_damping"]
_DAMP, _DT = IDX["damping"], IDX["dt"]
_VS, _WS, _TS, _SLEEP = IDX["sleep_speed"], IDX["sleep_spin"], IDX["sleep_time"], IDX["sleep"]
_FLAT_TS = IDX["flat_sleep_time"]
_CLING = IDX["lift_clinging"]
_GROUP_LABELS = IDX["compound_labels"]
_WAKE, _WAKE_EVERY, _WAKE_R = IDX["wake_force"], IDX["wake_check_every"], IDX["wake_radius"]
_FAR, _VMAX, _HOLD = IDX["far_cutoff"], IDX["max_speed"], IDX["hold_time"]
_REUSE_P, _REUSE_A = IDX["reuse_pos"], IDX["reuse_axis"]
_REUSE_F, _REUSE_R, _REUSE_L = IDX["reuse_far"], IDX["reuse_rel"], IDX["reuse_lead"]
_COAST, _TOWER_HOLD = IDX["coast"], IDX["tower_hold"]
_BALL = IDX["rest_ball"]
_COMPOUND = IDX["compound"]
_SPLIT = IDX["far_dipole"]
_MOMENTUM, _FITTED = IDX["reuse_momentum"], IDX["fitted_lead"]
_SUBS, _VSUB = IDX["contact_substeps"], IDX["contact_substep_speed"]


@kernel
def path_at(ts, ps, t, pout, vout):
    """Piecewise-linear path: position and velocity at time t (clamped)."""
    k = ts.shape[0]
    if t <= ts[0]:
        for c in range(3):
            pout[c] = ps[0, c]
            vout[c] = 0.0
        return
    for s in range(k - 1):
        if t < ts[s + 1]:
            span = ts[s + 1] - ts[s]
            f = (t - ts[s]) / span
            for c in range(3):
                pout[c] = ps[s, c] + f * (ps[s + 1, c] - ps[s, c])
                vout[c] = (ps[s + 1, c] - ps[s, c]) / span
            return
    for c in range(3):
        pout[c] = ps[k - 1, c]
        vout[c] = 0.0


@kernel
def kick(i, vel, omega, axis, force, torque, on_mat, P, h):
    """Velocity and spin change over time h under the stored force and
    torque, plus drag (evaluated now) and the gyroscopic term."""
    m = P[_MASS]
    a, th = P[_RADIUS], P[_THICK]
    ia = 0.5 * m * a * a
    ip = m * (3 * a * a + th * th) / 12.0
    n0, n1, n2 = axis[i, 0], axis[i, 1], axis[i, 2]
    w0, w1, w2 = omega[i, 0], omega[i, 1], omega[i, 2]
    lin, ang = 0.0, 0.0
    if P[_DAMP] > 0:
        lin = P[_LIN]
        ang = P[_ANG] + (P[_ROLL] if on_mat else 0.0)
    nw = n0 * w0 + n1 * w1 + n2 * w2
    L0 = ip * w0 + (ia - ip) * nw * n0
    L1 = ip * w1 + (ia - ip) * nw * n1
    L2 = ip * w2 + (ia - ip) * nw * n2
    t0 = torque[i, 0] - ang * ip * w0 - (w1 * L2 - w2 * L1)
    t1 = torque[i, 1] - ang * ip * w1 - (w2 * L0 - w0 * L2)
    t2 = torque[i, 2] - ang * ip * w2 - (w0 * L1 - w1 * L0)
    nt = n0 * t0 + n1 * t1 + n2 * t2
    coef = 1.0 / ia - 1.0 / ip
    for c in range(3):
        vel[i, c] += (force[i, c] / m - lin * vel[i, c]) * h
    omega[i, 0] += (t0 / ip + coef * nt * n0) * h
    omega[i, 1] += (t1 / ip + coef * nt * n1) * h
    omega[i, 2] += (t2 / ip + coef * nt * n2) * h


@kernel
def drift(i, pos, quat, vel, omega, dt):
    for c in range(3):
        pos[i, c] += vel[i, c] * dt
    quat_rotate_step(quat[i], omega[i], dt)


@kernel
def release_hand(hand, live, awake, still, vel, omega, cur, on_mat, quat, cling, stays, in_hand, stack, seen):
    """Let go of the held disc. Bodies hanging on it go up with the hand: those
    touching it, directly or through other lifted bodies, and touching no mat;
    with ``cling`` also a disc touching the held disc itself that does not lie
    flat, though its rim still rests on the mat (it snapped up onto the held
    disc, R6(c), R8: lifting the hand takes it along). Then the hand and they
    leave the world (``in_hand``). Else it drops. A body marked in ``stays``
    (the red disc) never goes up: it is pulled off and falls where it hung.
    ``stack``, ``seen``: zeroed work arrays [n]."""
    n = live.shape[0]
    top = 0
    stack[top] = hand
    top += 1
    seen[hand] = 1
    count = 0
    while top > 0:
        top -= 1
        b = stack[top]
        for j in range(n):
            if live[j] and not seen[j] and not stays[j] and cur[b, j] and (
                    not on_mat[j] or (cling and b == hand and not lies_flat(quat, j))):
                seen[j] = 1
                in_hand[j] = 1
                count += 1
                stack[top] = j
                top += 1
    if count > 0:
        live[hand] = 0
        awake[hand] = 0
        for j in range(n):
            if in_hand[j]:
                live[j] = 0
                awake[j] = 0
    else:
        awake[hand] = 1
        still[hand] = 0.0
        vel[hand, :] = 0.0
        omega[hand, :] = 0.0


@kernel(inline="always")
def _fellow(grp, i, j):
    """Whether j is another member of i's compound body (their contact is not evaluated)."""
    return j >= 0 and grp[i] >= 0 and grp[j] == grp[i]


@kernel(inline="always")
def _dist2(pos, i, j):
    return (pos[i, 0] - pos[j, 0]) ** 2 + (pos[i, 1] - pos[j, 1]) ** 2 + (pos[i, 2] - pos[j, 2]) ** 2


@kernel
def _contact_pair(i, j, pos, vel, omega, awake, axis, wp, disc_spring, disc_partner, disc_feature,
                  hit, P, kin, force, torque, depth, normals, feats, scratch, cur, touched,
                  wake_next, contact_speed):
    """Contacts of discs i and j (the caller checked they are within reach)."""
    if pair_contacts(i, j, pos, vel, omega, axis, wp, disc_spring, disc_partner, disc_feature,
                     hit, P, i != kin, j != kin, force, torque, depth, normals, feats, scratch,
                     contact_speed):
        cur[i, j] = 1
        cur[j, i] = 1
        touched[i, j] = 1
        touched[j, i] = 1
        if not awake[i]:
            wake_next[i] = 1
        if not awake[j]:
            wake_next[j] = 1


@kernel
def compute_forces(pos, quat, vel, omega, live, awake, br, mat_spring, disc_spring,
                   disc_partner, disc_feature, P, field, rim, kin, pushing, sp, sv, push_r, rot, axis,
                   wp, force, torque, cur, on_mat, wake_next, hit, depth, normals, feats,
                   touched, cache, key, valid, scratch, act, contact_speed, grp):
    """Geometry of awake bodies, then every force and torque on them (drag
    excluded, see ``kick``); discs of one compound body (``grp``) skip their
    contacts and magnets with each other and count as touching. ``kin`` is the held disc (kinematic) or -1.
    ``contact_speed``: see sim.contact_forces ``predict_entry``."""
    n = pos.shape[0]
    npts = rim.shape[0]
    m, g, a, hh = P[_MASS], P[_G], P[_RADIUS], 0.5 * P[_THICK]
    reach = contact_reach(a, hh)
    for i in range(n):
        if live[i] and awake[i]:
            quat_to_matrix(quat[i], rot[i])
            for c in range(3):
                axis[i, c] = rot[i, c, 2]
            world_points(pos, rot, rim, i, wp)
    force[:] = 0.0
    torque[:] = 0.0
    for i in range(n):
        if live[i] and awake[i]:
            force[i, 2] -= m * g
    magnetic_movers(pos, axis, rot, vel, omega, br, live, awake, P[_MR], P[_MT], field, P[_FAR], force, torque,
                    cache, key, valid, P[_REUSE_P], P[_REUSE_A], kin, P[_REUSE_F], P[_REUSE_R], P[_REUSE_L],
                    act, grp, P[_SPLIT], packed_knobs(P), P[_MOMENTUM], P[_DT] * P[_FITTED])
    for i in range(n):
        if live[i] and awake[i] and i != kin:
            on_mat[i] = 1 if mat_contacts(i, pos, vel, omega, wp, mat_spring, P, force, torque,
                                          scratch, contact_speed) else 0
    for i in range(n):
        if awake[i]:
            for j in range(n):
                cur[i, j] = 0
                cur[j, i] = 0
    hit[:, :] = False
    m = 0
    for i in range(n):
        if live[i] and awake[i]:
            act[m] = i
            m += 1
    for i in range(n):        # pairs i < j with an awake member, in that order
        if not live[i]:
            continue
        if awake[i]:
            for j in range(i + 1, n):
                if grp[i] >= 0 and grp[i] == grp[j]:
                    cur[i, j] = 1
                    cur[j, i] = 1
                elif live[j] and _dist2(pos, i, j) <= reach * reach:
                    _contact_pair(i, j, pos, vel, omega, awake, axis, wp, disc_spring,
                                  disc_partner, disc_feature, hit, P, kin, force, torque, depth,
                                  normals, feats, scratch, cur, touched, wake_next, contact_speed)
        else:
            for k in range(m):
                j = act[k]
                if j > i and _dist2(pos, i, j) <= reach * reach:
                    _contact_pair(i, j, pos, vel, omega, awake, axis, wp, disc_spring,
                                  disc_partner, disc_feature, hit, P, kin, force, torque, depth,
                                  normals, feats, scratch, cur, touched, wake_next, contact_speed)
    keep_group = P[_GROUP_LABELS] > 0
    for i in range(n):
        if live[i] and awake[i]:
            for k in range(npts):
                if not hit[i, k] and not (keep_group and _fellow(grp, i, disc_partner[i, k])):
                    disc_partner[i, k] = -1
    if pushing:
        for i in range(n):
            if live[i] and i != kin:
                if pusher_contacts(sp, sv, push_r, i, pos, vel, omega, axis, P, force, torque,
                                   scratch):
                    if not awake[i]:
                        wake_next[i] = 1


@njit(cache=True, fastmath=False)
def run(pos, quat, vel, omega, live, awake, still, br, mat_spring, disc_spring,
        disc_partner, disc_feature, fref, P, field, rim, hand, hand_t, hand_p, push_r, push_t, push_p,
        max_steps, touched, maxdisp, in_hand, stop_red, stays):
    """Simulate until settled or max_steps; returns (status, steps, body
    steps: the sum over steps of awake bodies, the episode's cost unit).
    Allocates the step loop's work arrays; the loop itself (``step_loop``)
    is a kernel (sim.jit)."""
    n = pos.shape[0]
    npts = rim.shape[0]
    rot, axis, wp = np.zeros((n, 3, 3)), np.zeros((n, 3)), np.zeros((n, npts, 3))
    force, torque = np.zeros((n, 3)), np.zeros((n, 3))
    cur = np.zeros((n, n), np.uint8)
    on_mat, wake_next, fresh = np.zeros(n, np.uint8), np.zeros(n, np.uint8), np.zeros(n, np.uint8)
    hit = np.zeros((n, npts), np.bool_)
    depth, normals, feats = np.zeros(2 * npts), np.zeros((2 * npts, 3)), np.zeros(2 * npts, np.int8)
    island, roots, act = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64)
    scratch = np.zeros((8, 3))
    ready, flat = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    cache, key, valid = np.zeros((n, n, 9)), np.zeros((n, n, KEY)), np.zeros((n, n), np.uint8)
    pos0, anchor_pos, anchor_quat = pos.copy(), pos.copy(), quat.copy()
    out6 = np.zeros(6)
    column, f6s, held_at = np.zeros(n, np.int64), np.zeros((n, 6)), np.full(n, -1, np.int64)
    hp, hv, sp, sv = np.zeros(3), np.zeros(3), np.zeros(3), np.zeros(3)
    contact_speed = np.zeros(2)
    P_sub = P.copy()
    hand_stack, hand_seen = np.zeros(n, np.int64), np.zeros(n, np.uint8)
    grp, G, GM, GC = np.full(n, -1, np.int64), np.zeros((n, 32)), np.zeros((n, 8)), np.zeros((n, 9))
    gorder, gkeys, g6 = np.zeros(n, np.int64), np.zeros(n), np.zeros((2, 6))
    g33 = np.zeros((3, 3, 3))
    return step_loop(pos, quat, vel, omega, live, awake, still, br, mat_spring, disc_spring,
                     disc_partner, disc_feature, fref, P, field, rim, hand, hand_t, hand_p, push_r,
                     push_t, push_p, max_steps, touched, maxdisp, in_hand, stop_red, stays,
                     rot, axis, wp, force, torque, cur, on_mat, wake_next, hit, depth, normals, feats,
                     island, fresh, scratch, ready, flat, roots, act, cache, key, valid, pos0, anchor_pos,
                     anchor_quat, out6, column, f6s, held_at, hp, hv, sp, sv, contact_speed, P_sub,
                     hand_stack, hand_seen, grp, G, GM, GC, gorder, gkeys, g6, g33)


@kernel
def kick_groups(grp, pos, quat, vel, omega, force, torque, on_mat, P, G, GM, h, g6, g33):
    """``kick`` for every compound body (sim.compound)."""
    for r in range(grp.shape[0]):
        if grp[r] == r:
            group_kick(r, grp, pos, quat, vel, omega, force, torque, on_mat, P, G, GM, h,
                       g6[0], g6[1], g33[0], g33[1], g33[2])


@kernel
def hold_groups(live, awake, kin, grp, pos, vel, omega, axis, force, torque, on_mat, P, G, GM, GC,
                g6, g33):
    """Dissolve every compound body that no longer holds (a member gone,
    asleep or in the hand, or a cut that cannot carry its load); True if any
    did (its contacts must be computed again)."""
    n = grp.shape[0]
    broke = False
    for r in range(n):
        if grp[r] != r:
            continue
        ok = True
        for k in range(n):
            if grp[k] == r and (not live[k] or not awake[k] or k == kin):
                ok = False
        if ok:
            ok = group_holds(r, grp, pos, vel, omega, axis, force, torque, on_mat, P, G, GM, GC,
                             g6[0], g6[1], g33[0], g33[1], g33[2])
        if not ok:
            dissolve(r, grp)
            broke = True
    return broke


@kernel
def step_loop(pos, quat, vel, omega, live, awake, still, br, mat_spring, disc_spring,
              disc_partner, disc_feature, fref, P, field, rim, hand, hand_t, hand_p, push_r, push_t,
              push_p, max_steps, touched, maxdisp, in_hand, stop_red, stays,
              rot, axis, wp, force, torque, cur, on_mat, wake_next, hit, depth, normals, feats,
              island, fresh, scratch, ready, flat, roots, act, cache, key, valid, pos0, anchor_pos,
              anchor_quat, out6, column, f6s, held_at, hp, hv, sp, sv, contact_speed, P_sub,
              hand_stack, hand_seen, grp, G, GM, GC, gorder, gkeys, g6, g33):
    """``run``'s loop, given its zeroed work arrays (``pos0``, ``anchor_pos``,
    ``anchor_quat``: copies of the poses at the start; ``P_sub``: a copy of P)."""
    n = pos.shape[0]
    npts = rim.shape[0]
    dt, m, g, a, hh = P[_DT], P[_MASS], P[_G], P[_RADIUS], 0.5 * P[_THICK]
    far = P[_FAR]
    wake_f = P[_WAKE] * m * g
    wake_every = max(1, int(P[_WAKE_EVERY]))
    wake_r = P[_WAKE_R]
    held = hand >= 0
    snapped = False
    snap_wait = P[_HOLD]
    cling = P[_CLING] > 0
    release = hand_t[hand_t.shape[0] - 1] if held else 0.0
    push_end = push_t[push_t.shape[0] - 1] if push_r > 0 else 0.0
    for i in range(n):
        if live[i]:
            quat_to_matrix(quat[i], rot[i])
            for c in range(3):
                axis[i, c] = rot[i, c, 2]
            world_points(pos, rot, rim, i, wp)
            lowest = 1.0
            for k in range(npts):
                lowest = min(lowest, wp[i, k, 2])
            on_mat[i] = 1 if lowest < 1e-4 else 0
    t = 0.0
    body_steps = 0
    reach = contact_reach(a, hh)
    hand_speed = 0.0                  # the held disc's fastest leg, m/s
    if held:
        for s in range(hand_t.shape[0] - 1):
            span = hand_t[s + 1] - hand_t[s]
            if span > 0.0:
                leg = np.sqrt((hand_p[s + 1, 0] - hand_p[s, 0]) ** 2 + (hand_p[s + 1, 1] - hand_p[s, 1]) ** 2
                              + (hand_p[s + 1, 2] - hand_p[s, 2]) ** 2)
                hand_speed = max(hand_speed, leg / span)
    coast_until = -1.0
    contact_speed[0] = dt if P[_SUBS] > 1 else 0.0     # the horizon of contact entries
    # P_sub: P with _DT the sub-step (or the time since the last forces)
    h_last = dt
    for step in range(max_steps + 1):
        t = step * dt
        # 1. kinematics at t: the held disc, the pusher
        if held and t >= release:
            release_hand(hand, live, awake, still, vel, omega, cur, on_mat, quat, cling, stays, in_hand,
                         hand_stack, hand_seen)
            held = False
        if held and not snapped:
            for j in range(n):
                if cur[hand, j]:          # something jumped on: stop, then lift off
                    snapped = True
                    release = t + snap_wait
                    hv[:] = 0.0
                    break
        if held and not snapped:
            path_at(hand_t, hand_p, t, hp, hv)
        if held:
            for c in range(3):
                pos[hand, c] = hp[c]
                vel[hand, c] = hv[c]
            omega[hand, :] = 0.0
            awake[hand] = 1
        pushing = push_r > 0 and t < push_end
        if pushing:
            path_at(push_t, push_p, t, sp, sv)
        kin = hand if held else -1
        # coasting: only the held disc is awake, far from everything, and no
        # wake check is due: a full step would change nothing but its pose
        if (held and not snapped and not pushing and step % wake_every != 0
                and t < coast_until):
            dx = pos[hand, 0] - pos0[hand, 0]
            dy = pos[hand, 1] - pos0[hand, 1]
            disp = np.sqrt(dx * dx + dy * dy)
            if disp > maxdisp[hand]:
                maxdisp[hand] = disp
            body_steps += 1
            continue
        # 2. forces at t (again if they woke someone: a sleeper had none);
        #    tangential springs stretch over the time since the last forces
        P_sub[_DT] = h_last
        contact_speed[1] = 0.0
        compute_forces(pos, quat, vel, omega, live, awake, br, mat_spring, disc_spring,
                       disc_partner, disc_feature, P_sub, field, rim, kin, pushing, sp, sv, push_r, rot,
                       axis, wp, force, torque, cur, on_mat, wake_next, hit, depth, normals,
                       feats, touched, cache, key, valid, scratch, act, contact_speed, grp)
        if P[_COMPOUND] > 0 and hold_groups(live, awake, kin, grp, pos, vel, omega, axis, force, torque,
                                            on_mat, P, G, GM, GC, g6, g33):
            compute_forces(pos, quat, vel, omega, live, awake, br, mat_spring, disc_spring,
                           disc_partner, disc_feature, P_sub, field, rim, kin, pushing, sp, sv, push_r, rot,
                           axis, wp, force, torque, cur, on_mat, wake_next, hit, depth, normals,
                           feats, touched, cache, key, valid, scratch, act, contact_speed, grp)
        if wake_marked(wake_next, awake, still):
            compute_forces(pos, quat, vel, omega, live, awake, br, mat_spring, disc_spring,
                           disc_partner, disc_feature, P_sub, field, rim, kin, pushing, sp, sv, push_r, rot,
                           axis, wp, force, torque, cur, on_mat, wake_next, hit, depth, normals,
                           feats, touched, cache, key, valid, scratch, act, contact_speed, grp)
            wake_next[:] = 0
        if stop_red.shape[0] > 0:          # the game ends at this touch (R14): stop here
            for r in range(stop_red.shape[0]):
                for j in range(n):
                    if touched[stop_red[r], j]:
                        return RED, step, body_steps
        # 3. second half kick of the step that ended at t (velocities now at t)
        if step > 0:
            for i in range(n):
                if live[i] and awake[i] and i != kin and grp[i] < 0:
                    kick(i, vel, omega, axis, force, torque, on_mat[i] > 0, P, 0.5 * h_last)
            kick_groups(grp, pos, quat, vel, omega, force, torque, on_mat, P, G, GM, 0.5 * h_last, g6, g33)
        # 4. checks and events at t
        for i in range(n):
            if not (live[i] and awake[i]):
                continue
            body_steps += 1
            v2 = vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2
            if not (np.isfinite(v2) and np.isfinite(pos[i, 0]) and np.isfinite(pos[i, 1])
                    and np.isfinite(pos[i, 2]) and np.isfinite(omega[i, 0])
                    and np.isfinite(omega[i, 1]) and np.isfinite(omega[i, 2])):
                return NAN, step, body_steps
            if v2 > P[_VMAX] ** 2 or pos[i, 2] < -hh:
                return ENERGY, step, body_steps
            dx = pos[i, 0] - pos0[i, 0]
            dy = pos[i, 1] - pos0[i, 1]
            disp = np.sqrt(dx * dx + dy * dy)
            if disp > maxdisp[i]:
                maxdisp[i] = disp
        # 5. sleeping and waking
        for i in range(n):
            if not (live[i] and awake[i]) or i == kin:
                continue
            v2 = vel[i, 0] ** 2 + vel[i, 1] ** 2 + vel[i, 2] ** 2
            w2 = omega[i, 0] ** 2 + omega[i, 1] ** 2 + omega[i, 2] ** 2
            slow = v2 < P[_VS] ** 2 and w2 < P[_WS] ** 2
            if P[_SLEEP] > 0 and (in_rest_ball(i, pos, quat, anchor_pos, anchor_quat, a, P[_BALL])
                                  or slow):
                still[i] += dt
            else:
                still[i] = 0.0
        sleep_islands(live, awake, still, cur, kin, P[_TS], island, ready, roots, axis, P[_FLAT_TS], flat)
        for i in range(n):
            if island[i] == -2:      # marked to fall asleep now
                if grp[i] >= 0:
                    dissolve(grp[i], grp)
                awake[i] = 0
                vel[i, :] = 0.0
                omega[i, :] = 0.0
                magnetic_on(i, pos, axis, rot, br, live, P[_MR], P[_MT], field, far, out6, cache, key,
                            valid, P[_REUSE_P], P[_REUSE_A], P[_REUSE_F], P[_REUSE_R], P[_SPLIT], packed_knobs(P),
                            P[_MOMENTUM])
                for c in range(6):
                    fref[i, c] = out6[c]
        if step % wake_every == 0:
            m = 0
            for j in range(n):
                if live[j] and awake[j]:
                    act[m] = j
                    m += 1
            for i in range(n):
                if not live[i] or awake[i]:
                    continue
                close = False
                for k in range(m):
                    j = act[k]
                    if _dist2(pos, i, j) < wake_r * wake_r:
                        close = True
                        break
                if not close:
                    continue
                magnetic_on(i, pos, axis, rot, br, live, P[_MR], P[_MT], field, far, out6, cache, key,
                            valid, P[_REUSE_P], P[_REUSE_A], P[_REUSE_F], P[_REUSE_R], P[_SPLIT], packed_knobs(P),
                            P[_MOMENTUM])
                df = np.sqrt((out6[0] - fref[i, 0]) ** 2 + (out6[1] - fref[i, 1]) ** 2 + (out6[2] - fref[i, 2]) ** 2)
                dtq = np.sqrt((out6[3] - fref[i, 3]) ** 2 + (out6[4] - fref[i, 4]) ** 2 + (out6[5] - fref[i, 5]) ** 2)
                if ((df > wake_f or dtq > wake_f * a) and not flat_holds(i, axis, out6, P)
                        and not (P[_TOWER_HOLD] > 0
                                 and stack_holds(i, pos, axis, rot, br, live, awake, P, field, cache,
                                                 key, valid, column, f6s, held_at, step))):
                    awake[i] = 1
                    still[i] = 0.0
                    fresh[i] = 1
                    act[m] = i          # counts as awake for the sleepers after it
                    m += 1
        if P[_COMPOUND] > 0 and step % wake_every == 0:
            form_groups(live, awake, fresh, kin, grp, pos, quat, vel, omega, axis, cur, P, G, GM, GC,
                        cache, gorder, gkeys, g33[0])
        coast_until = -1.0
        if held and not snapped and not pushing and hand_speed > 0.0 and P[_COAST] > 0:
            alone = True
            clear2 = np.inf
            for i in range(n):
                if live[i] and i != hand:
                    if awake[i]:
                        alone = False
                        break
                    clear2 = min(clear2, _dist2(pos, i, hand))
            if alone and clear2 > reach * reach:
                coast_until = t + (np.sqrt(clear2) - reach) / hand_speed
        if not held and not pushing:
            done = True
            for i in range(n):
                if live[i] and awake[i]:
                    done = False
                    break
            if done:
                return SETTLED, step, body_steps
        if step == max_steps:
            break
        # 6. first half kick and drift to t + dt (a body just woken by the
        #    magnetic check has no gravity or contact forces yet: it waits),
        #    in sub-steps of h if a contact contact_speed is imminent (Impacts)
        subs = int(P[_SUBS]) if contact_speed[1] > P[_VSUB] * P[_VSUB] else 1
        h = dt / subs
        P_sub[_DT] = h
        for s in range(subs):
            if s > 0:       # forces at t + s h, then the second half kick (written
                #             out as in 2.: a helper holding both costs a non-inlined
                #             call with 40 arguments a step, +19 % on a lone placement)
                tt = t + s * h
                if held and not snapped:
                    path_at(hand_t, hand_p, tt, hp, hv)
                    for c in range(3):
                        pos[hand, c] = hp[c]
                        vel[hand, c] = hv[c]
                if pushing:
                    path_at(push_t, push_p, tt, sp, sv)
                compute_forces(pos, quat, vel, omega, live, awake, br, mat_spring, disc_spring,
                               disc_partner, disc_feature, P_sub, field, rim, kin, pushing, sp, sv,
                               push_r, rot, axis, wp, force, torque, cur, on_mat, wake_next, hit,
                               depth, normals, feats, touched, cache, key, valid, scratch, act,
                               contact_speed, grp)
                if wake_marked(wake_next, awake, still):
                    compute_forces(pos, quat, vel, omega, live, awake, br, mat_spring, disc_spring,
                                   disc_partner, disc_feature, P_sub, field, rim, kin, pushing, sp,
                                   sv, push_r, rot, axis, wp, force, torque, cur, on_mat, wake_next,
                                   hit, depth, normals, feats, touched, cache, key, valid, scratch,
                                   act, contact_speed, grp)
                    wake_next[:] = 0
                for i in range(n):
                    if live[i] and awake[i] and i != kin and not fresh[i]:
                        body_steps += 1
                        if grp[i] < 0:
                            kick(i, vel, omega, axis, force, torque, on_mat[i] > 0, P, 0.5 * h)
                kick_groups(grp, pos, quat, vel, omega, force, torque, on_mat, P, G, GM, 0.5 * h, g6, g33)
            for i in range(n):
                if live[i] and awake[i] and i != kin and not fresh[i] and grp[i] < 0:
                    kick(i, vel, omega, axis, force, torque, on_mat[i] > 0, P, 0.5 * h)
                    drift(i, pos, quat, vel, omega, h)
            for r in range(n):
                if grp[r] == r:
                    group_kick(r, grp, pos, quat, vel, omega, force, torque, on_mat, P, G, GM, 0.5 * h,
                               g6[0], g6[1], g33[0], g33[1], g33[2])
                    group_drift(r, grp, pos, quat, vel, omega, G, GM, h, g33[0])
        fresh[:] = 0
        h_last = h
    return BUDGET, max_steps, body_steps
