"""Compound bodies: a stack of discs held together, moved as one rigid body.

Why: a game's cost is in its cascades, and most of a cascade's body steps
are a toppled stack of 4-9 discs rolling on its rims for a second or more
(game seed 11, session 17): every step each disc's rim points were tested
against its neighbours', and the stiff contacts between them rang against
the 0.1 ms step, though the discs never moved against each other.

A group (``grp [n]``: the id of its root member, or -1) is a chain of awake
discs stacked face to face: axes within ``_AXES_COS`` of parallel, centres
one thickness apart along the axis (``_AXIAL``) and less than half a radius
off it (``_LATERAL``). Two such discs touching, moving together (relative
speed below ``compound_speed``, spin below ``compound_spin``), join
(``form_groups``, every wake check); merged groups keep the momentum and
angular momentum of their members. While grouped, the discs' contacts and
magnetic pairs with each other are skipped (they cancel in the group's
motion: Newton's third law to rounding); every other force on a member
(the mat, other discs, magnets outside, drag) acts on the group, integrated
as one rigid body with its full inertia tensor (``group_kick``,
``group_drift``), and each member's pose and velocity follow from it.

The group holds while its contacts could hold it (``group_holds``, every
step): for each cut between neighbouring members, the force and moment the
lower part must pass to the upper part for the upper part to follow the rigid
motion, minus what the magnets across the cut pass (recorded in the group's
frame when it formed: the poses do not change), is what the contact must
carry. It must press (N > 0), its shear stay below ``compound_margin``
x mu_static N, its bending moment below margin x N x the face's lever (the
radius less the chamfer and the offset), its twist below margin x mu N x 2/3
of that. Else the group dissolves and its discs go on alone, at the
velocities the group gave them, their contacts computed again at once.

While grouped, each member also keeps what its points remember of a fellow
member (``compound_labels``): the disc they press into, the surface they
entered it by (sim.contacts, entered feature) and their friction spring;
the contact is not evaluated, and the rigid motion does not change it. Up
to physics 0.20.0 they were forgotten, like a point that left its disc, and
read afresh when the group dissolved or its discs were next woken: a stack
of strong magnets pressed past the 0.8 mm chamfer (sim.stacking) was then
pushed sideways by its face-edge points, not apart, and collapsed into
itself. 26 discs at Br x 1.3, captured as one tower, knocked on the game's
131st turn by a disc flung at their base: runaway energy (the one game in 192 of the
strong-magnets variant that failed, seed 20); 20 discs at Br x 1.3 nudged
at 2 cm/s after their capture did the same (tests/test_physics_compound.py).
At the standard strength no stack presses that deep, but a group's members
restarted their friction springs when it dissolved: five golden scenes end
with poses a few tenths of a millimetre apart, their events the same;
576 paired standard games moved no headline figure (docs/FINDINGS.md,
"Re-checked under physics 0.21.0"); replayed episodes cost +0.4 to +6.6 %
CPU (docs/MEASUREMENTS.md).

A group dissolves also when its island falls asleep, a member leaves the
world or any member stops being awake; sleeping discs are never grouped, nor
any disc with friction off (nothing would hold it against sliding; the
energy tests run so).

Measured (physics 0.10.0 against ``compound = False``, which is 0.9.0 bit
for bit; session 19, an Intel Xeon 2-core VM): a six-disc stack rolling on
its rims keeps the path of its discs alone within 0.1 mm over 0.4 s for a
quarter of the CPU (tests/test_physics_compound.py); the 35 placements of a
recorded standard game, replayed: 3.15 -> 2.07 CPU s (its three cascades
2-2.3x, the rest within 5 %); 8 standard games (cautious vs aggressive,
``bench_polarity.py``) 70.3 -> 42.7 CPU s; 200 short games: ``polsim
compare`` finds no significant change (docs/MEASUREMENTS.md).

State per group at its root: ``G [n, 32]`` = centre of mass (0:3), velocity
(3:6), spin (6:9), orientation quaternion (9:13, the root's at formation),
inertia about the centre of mass in the group frame (13:22) and its inverse
(22:31), mass (31). Per member: ``GM [n, 8]`` = offset from the centre of
mass in the group frame (0:3), orientation relative to the group (3:7) and
rank along the axis (7); ``GC [n, 9]`` = the cut below the member (rank >= 1),
in the group frame: its centre (0:3), the magnetic force (3:6) and moment
about that centre (6:9) the members below exert on the member and those above.
"""

import numpy as np

from sim.bodies import quat_rotate_step, quat_to_matrix
from sim.jit import kernel
from sim.params import IDX

_RADIUS, _THICK, _MASS, _CHAMFER = IDX["radius"], IDX["thickness"], IDX["mass"], IDX["chamfer"]
_MUS_D, _DAMP, _LIN, _ANG, _ROLL = IDX["mu_static_disc"], IDX["damping"], IDX["linear_damping"], \
    IDX["angular_damping"], IDX["rolling_damping"]
_MARGIN, _GSPEED, _GSPIN = IDX["compound_margin"], IDX["compound_speed"], IDX["compound_spin"]
_FRIC = IDX["friction"]

_AXES_COS = 0.9961946980917455     # cos(5 deg)
_AXIAL = (0.5, 1.5)                # centre distance along the axis, in thicknesses
_LATERAL = 0.5                     # offset from the axis, in radii


@kernel(inline="always")
def _qmul(a0, a1, a2, a3, b0, b1, b2, b3):
    return (a0 * b0 - a1 * b1 - a2 * b2 - a3 * b3,
            a0 * b1 + a1 * b0 + a2 * b3 - a3 * b2,
            a0 * b2 - a1 * b3 + a2 * b0 + a3 * b1,
            a0 * b3 + a1 * b2 - a2 * b1 + a3 * b0)


@kernel(inline="always")
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@kernel
def _inertia_world(root, G, R, Iw, Iinv):
    """The group's inertia and its inverse in the world frame: R I R^T."""
    for r in range(3):
        for c in range(3):
            s, t = 0.0, 0.0
            for k in range(3):
                for m in range(3):
                    s += R[r, k] * G[root, 13 + 3 * k + m] * R[c, m]
                    t += R[r, k] * G[root, 22 + 3 * k + m] * R[c, m]
            Iw[r, c] = s
            Iinv[r, c] = t


@kernel(inline="always")
def _stacked(i, j, pos, axis, P):
    """Discs i and j lie face to face (see the module docstring)."""
    dot = axis[i, 0] * axis[j, 0] + axis[i, 1] * axis[j, 1] + axis[i, 2] * axis[j, 2]
    if abs(dot) < _AXES_COS:
        return False
    d0, d1, d2 = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
    ax = d0 * axis[i, 0] + d1 * axis[i, 1] + d2 * axis[i, 2]
    th = P[_THICK]
    if not (_AXIAL[0] * th < abs(ax) < _AXIAL[1] * th):
        return False
    l0, l1, l2 = d0 - ax * axis[i, 0], d1 - ax * axis[i, 1], d2 - ax * axis[i, 2]
    return l0 * l0 + l1 * l1 + l2 * l2 < (_LATERAL * P[_RADIUS]) ** 2


@kernel(inline="always")
def _moving_together(i, j, pos, vel, omega, P):
    d0, d1, d2 = pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1], pos[j, 2] - pos[i, 2]
    x0, x1, x2 = _cross(omega[i, 0], omega[i, 1], omega[i, 2], d0, d1, d2)
    dv = ((vel[j, 0] - vel[i, 0] - x0) ** 2 + (vel[j, 1] - vel[i, 1] - x1) ** 2
          + (vel[j, 2] - vel[i, 2] - x2) ** 2)
    dw = (omega[j, 0] - omega[i, 0]) ** 2 + (omega[j, 1] - omega[i, 1]) ** 2 + (omega[j, 2] - omega[i, 2]) ** 2
    return dv < P[_GSPEED] ** 2 and dw < P[_GSPIN] ** 2


@kernel
def _chain_ok(i, j, grp, pos, axis, P, order, keys):
    """Would the members of i's and j's groups (or i, j alone) form one chain:
    every member stacked on the next along i's axis? ``order``, ``keys``: work [n]."""
    n = grp.shape[0]
    gi, gj = grp[i], grp[j]
    m = 0
    for k in range(n):
        if k == i or k == j or (gi >= 0 and grp[k] == gi) or (gj >= 0 and grp[k] == gj):
            order[m] = k
            keys[m] = ((pos[k, 0] - pos[i, 0]) * axis[i, 0] + (pos[k, 1] - pos[i, 1]) * axis[i, 1]
                       + (pos[k, 2] - pos[i, 2]) * axis[i, 2])
            m += 1
    _sort_by(order, keys, m)
    for t in range(m - 1):
        if not _stacked(order[t], order[t + 1], pos, axis, P):
            return False
    return True


@kernel
def _sort_by(order, keys, m):
    """Insertion sort of order[:m] by keys[:m] (a handful of members)."""
    for t in range(1, m):
        k, o = keys[t], order[t]
        s = t - 1
        while s >= 0 and keys[s] > k:
            keys[s + 1] = keys[s]
            order[s + 1] = order[s]
            s -= 1
        keys[s + 1] = k
        order[s + 1] = o


@kernel
def setup_group(root, grp, pos, quat, vel, omega, axis, P, G, GM, GC, cache, order, keys, R):
    """(Re)build the state of the group of members ``grp == root`` from their
    poses and velocities, keeping momentum and angular momentum; returns the
    member count. The cuts' magnetics come from the pair cache, which holds
    every pair with an awake member at the step's poses (``sim.forces``:
    ``cache [n, n, 9]``, i < j: force on j, torque on i, torque on j)."""
    n = grp.shape[0]
    m, a, th = P[_MASS], P[_RADIUS], P[_THICK]
    ia, ip = 0.5 * m * a * a, m * (3 * a * a + th * th) / 12.0
    cnt = 0
    com0, com1, com2, p0, p1, p2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    for k in range(n):
        if grp[k] == root:
            order[cnt] = k
            keys[cnt] = ((pos[k, 0] - pos[root, 0]) * axis[root, 0] + (pos[k, 1] - pos[root, 1]) * axis[root, 1]
                         + (pos[k, 2] - pos[root, 2]) * axis[root, 2])
            cnt += 1
            com0 += pos[k, 0]
            com1 += pos[k, 1]
            com2 += pos[k, 2]
            p0 += vel[k, 0]
            p1 += vel[k, 1]
            p2 += vel[k, 2]
    _sort_by(order, keys, cnt)
    G[root, 0], G[root, 1], G[root, 2] = com0 / cnt, com1 / cnt, com2 / cnt
    G[root, 3], G[root, 4], G[root, 5] = p0 / cnt, p1 / cnt, p2 / cnt
    for c in range(4):
        G[root, 9 + c] = quat[root, c]
    G[root, 31] = m * cnt
    quat_to_matrix(quat[root], R)
    I00, I01, I02, I11, I12, I22 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0   # world frame, about the centre of mass
    L0, L1, L2 = 0.0, 0.0, 0.0
    d = ia - ip
    for t in range(cnt):
        k = order[t]
        r0, r1, r2 = pos[k, 0] - G[root, 0], pos[k, 1] - G[root, 1], pos[k, 2] - G[root, 2]
        n0, n1, n2 = axis[k, 0], axis[k, 1], axis[k, 2]
        rr = r0 * r0 + r1 * r1 + r2 * r2
        I00 += ip + d * n0 * n0 + m * (rr - r0 * r0)
        I11 += ip + d * n1 * n1 + m * (rr - r1 * r1)
        I22 += ip + d * n2 * n2 + m * (rr - r2 * r2)
        I01 += d * n0 * n1 - m * r0 * r1
        I02 += d * n0 * n2 - m * r0 * r2
        I12 += d * n1 * n2 - m * r1 * r2
        w0, w1, w2 = omega[k, 0], omega[k, 1], omega[k, 2]
        nw = n0 * w0 + n1 * w1 + n2 * w2
        s0, s1, s2 = _cross(r0, r1, r2, vel[k, 0] - G[root, 3], vel[k, 1] - G[root, 4], vel[k, 2] - G[root, 5])
        L0 += ip * w0 + d * nw * n0 + m * s0
        L1 += ip * w1 + d * nw * n1 + m * s1
        L2 += ip * w2 + d * nw * n2 + m * s2
    # group-frame inertia R^T I R and its inverse
    for r in range(3):
        for c in range(3):
            s = 0.0
            for k in range(3):
                for q in range(3):
                    s += R[k, r] * _sym(I00, I01, I02, I11, I12, I22, k, q) * R[q, c]
            G[root, 13 + 3 * r + c] = s
    _invert3(G, root)
    det = I00 * (I11 * I22 - I12 * I12) - I01 * (I01 * I22 - I12 * I02) + I02 * (I01 * I12 - I11 * I02)
    j00, j01, j02 = (I11 * I22 - I12 * I12) / det, (I02 * I12 - I01 * I22) / det, (I01 * I12 - I02 * I11) / det
    j11, j12, j22 = (I00 * I22 - I02 * I02) / det, (I01 * I02 - I00 * I12) / det, (I00 * I11 - I01 * I01) / det
    G[root, 6] = j00 * L0 + j01 * L1 + j02 * L2
    G[root, 7] = j01 * L0 + j11 * L1 + j12 * L2
    G[root, 8] = j02 * L0 + j12 * L1 + j22 * L2
    qc0, qc1, qc2, qc3 = G[root, 9], -G[root, 10], -G[root, 11], -G[root, 12]
    for t in range(cnt):
        k = order[t]
        r0, r1, r2 = pos[k, 0] - G[root, 0], pos[k, 1] - G[root, 1], pos[k, 2] - G[root, 2]
        for c in range(3):
            GM[k, c] = R[0, c] * r0 + R[1, c] * r1 + R[2, c] * r2
        q0, q1, q2, q3 = _qmul(qc0, qc1, qc2, qc3, quat[k, 0], quat[k, 1], quat[k, 2], quat[k, 3])
        GM[k, 3], GM[k, 4], GM[k, 5], GM[k, 6] = q0, q1, q2, q3
        GM[k, 7] = t
    for t in range(1, cnt):      # the cut below order[t]: the magnets of order[:t] on order[t:]
        up, below = order[t], order[t - 1]
        c0, c1, c2 = 0.5 * (pos[up, 0] + pos[below, 0]), 0.5 * (pos[up, 1] + pos[below, 1]), 0.5 * (pos[up, 2] + pos[below, 2])
        f0, f1, f2, t0, t1, t2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for u in range(t, cnt):
            i = order[u]
            for v in range(t):
                j = order[v]
                lo, hi = min(i, j), max(i, j)
                sign = 1.0 if i == hi else -1.0
                fi0, fi1, fi2 = sign * cache[lo, hi, 0], sign * cache[lo, hi, 1], sign * cache[lo, hi, 2]
                off = 6 if i == hi else 3
                x0, x1, x2 = _cross(pos[i, 0] - c0, pos[i, 1] - c1, pos[i, 2] - c2, fi0, fi1, fi2)
                f0 += fi0
                f1 += fi1
                f2 += fi2
                t0 += cache[lo, hi, off] + x0
                t1 += cache[lo, hi, off + 1] + x1
                t2 += cache[lo, hi, off + 2] + x2
        cc0, cc1, cc2 = c0 - G[root, 0], c1 - G[root, 1], c2 - G[root, 2]
        for c in range(3):
            GC[up, c] = R[0, c] * cc0 + R[1, c] * cc1 + R[2, c] * cc2
            GC[up, 3 + c] = R[0, c] * f0 + R[1, c] * f1 + R[2, c] * f2
            GC[up, 6 + c] = R[0, c] * t0 + R[1, c] * t1 + R[2, c] * t2
    return cnt


@kernel(inline="always")
def _sym(I00, I01, I02, I11, I12, I22, r, c):
    if r > c:
        r, c = c, r
    if r == 0:
        return I00 if c == 0 else (I01 if c == 1 else I02)
    if r == 1:
        return I11 if c == 1 else I12
    return I22


@kernel
def _invert3(G, root):
    """G[root, 22:31] <- the inverse of the symmetric 3x3 G[root, 13:22]."""
    a, b, c = G[root, 13], G[root, 14], G[root, 15]
    e, f, i = G[root, 17], G[root, 18], G[root, 21]
    det = a * (e * i - f * f) - b * (b * i - f * c) + c * (b * f - e * c)
    G[root, 22] = (e * i - f * f) / det
    G[root, 23] = (c * f - b * i) / det
    G[root, 24] = (b * f - c * e) / det
    G[root, 26] = (a * i - c * c) / det
    G[root, 27] = (b * c - a * f) / det
    G[root, 30] = (a * e - b * b) / det
    G[root, 25], G[root, 28], G[root, 29] = G[root, 23], G[root, 24], G[root, 27]


@kernel
def place_members(root, grp, pos, quat, vel, omega, G, GM, R):
    """Every member's pose, velocity and spin from the group's (R: work 3x3)."""
    quat_to_matrix(G[root, 9:13], R)
    w0, w1, w2 = G[root, 6], G[root, 7], G[root, 8]
    for k in range(grp.shape[0]):
        if grp[k] != root:
            continue
        r0 = R[0, 0] * GM[k, 0] + R[0, 1] * GM[k, 1] + R[0, 2] * GM[k, 2]
        r1 = R[1, 0] * GM[k, 0] + R[1, 1] * GM[k, 1] + R[1, 2] * GM[k, 2]
        r2 = R[2, 0] * GM[k, 0] + R[2, 1] * GM[k, 1] + R[2, 2] * GM[k, 2]
        pos[k, 0], pos[k, 1], pos[k, 2] = G[root, 0] + r0, G[root, 1] + r1, G[root, 2] + r2
        x0, x1, x2 = _cross(w0, w1, w2, r0, r1, r2)
        vel[k, 0], vel[k, 1], vel[k, 2] = G[root, 3] + x0, G[root, 4] + x1, G[root, 5] + x2
        omega[k, 0], omega[k, 1], omega[k, 2] = w0, w1, w2
        q0, q1, q2, q3 = _qmul(G[root, 9], G[root, 10], G[root, 11], G[root, 12], GM[k, 3], GM[k, 4], GM[k, 5], GM[k, 6])
        nq = np.sqrt(q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3)
        quat[k, 0], quat[k, 1], quat[k, 2], quat[k, 3] = q0 / nq, q1 / nq, q2 / nq, q3 / nq


@kernel
def _wrench(root, grp, pos, vel, omega, force, torque, on_mat, P, G, out6):
    """Total force and torque (about the centre of mass) on the group, drag included."""
    m, a, th = P[_MASS], P[_RADIUS], P[_THICK]
    ip = m * (3 * a * a + th * th) / 12.0
    for c in range(6):
        out6[c] = 0.0
    for k in range(grp.shape[0]):
        if grp[k] != root:
            continue
        lin, ang = 0.0, 0.0
        if P[_DAMP] > 0:
            lin = P[_LIN]
            ang = P[_ANG] + (P[_ROLL] if on_mat[k] else 0.0)
        f0 = force[k, 0] - lin * m * vel[k, 0]
        f1 = force[k, 1] - lin * m * vel[k, 1]
        f2 = force[k, 2] - lin * m * vel[k, 2]
        x0, x1, x2 = _cross(pos[k, 0] - G[root, 0], pos[k, 1] - G[root, 1], pos[k, 2] - G[root, 2], f0, f1, f2)
        out6[0] += f0
        out6[1] += f1
        out6[2] += f2
        out6[3] += torque[k, 0] - ang * ip * omega[k, 0] + x0
        out6[4] += torque[k, 1] - ang * ip * omega[k, 1] + x1
        out6[5] += torque[k, 2] - ang * ip * omega[k, 2] + x2


@kernel
def _accelerations(root, G, out6, R, Iw, Iinv, acc6):
    """Linear and angular acceleration of the group under ``out6`` (gyroscopic term included)."""
    quat_to_matrix(G[root, 9:13], R)
    _inertia_world(root, G, R, Iw, Iinv)
    w0, w1, w2 = G[root, 6], G[root, 7], G[root, 8]
    L0 = Iw[0, 0] * w0 + Iw[0, 1] * w1 + Iw[0, 2] * w2
    L1 = Iw[1, 0] * w0 + Iw[1, 1] * w1 + Iw[1, 2] * w2
    L2 = Iw[2, 0] * w0 + Iw[2, 1] * w1 + Iw[2, 2] * w2
    g0, g1, g2 = _cross(w0, w1, w2, L0, L1, L2)
    t0, t1, t2 = out6[3] - g0, out6[4] - g1, out6[5] - g2
    M = G[root, 31]
    for c in range(3):
        acc6[c] = out6[c] / M
        acc6[3 + c] = Iinv[c, 0] * t0 + Iinv[c, 1] * t1 + Iinv[c, 2] * t2


@kernel
def group_kick(root, grp, pos, quat, vel, omega, force, torque, on_mat, P, G, GM, h, work6, acc6, R, Iw, Iinv):
    """Velocity and spin of the group change over h; members follow."""
    _wrench(root, grp, pos, vel, omega, force, torque, on_mat, P, G, work6)
    _accelerations(root, G, work6, R, Iw, Iinv, acc6)
    for c in range(3):
        G[root, 3 + c] += acc6[c] * h
        G[root, 6 + c] += acc6[3 + c] * h
    place_members(root, grp, pos, quat, vel, omega, G, GM, R)


@kernel
def group_drift(root, grp, pos, quat, vel, omega, G, GM, h, R):
    """The group moves and turns over h; members follow."""
    for c in range(3):
        G[root, c] += G[root, 3 + c] * h
    quat_rotate_step(G[root, 9:13], G[root, 6:9], h)
    place_members(root, grp, pos, quat, vel, omega, G, GM, R)


@kernel
def group_holds(root, grp, pos, vel, omega, axis, force, torque, on_mat, P, G, GM, GC, work6, acc6, R, Iw, Iinv):
    """Can every cut of the group carry what the rigid motion asks of it (see
    the module docstring)? Forces of the step: ``force``/``torque`` without
    the members' contacts and magnets with each other."""
    m, a, th = P[_MASS], P[_RADIUS], P[_THICK]
    ia, ip = 0.5 * m * a * a, m * (3 * a * a + th * th) / 12.0
    margin, mu = P[_MARGIN], P[_MUS_D]
    _wrench(root, grp, pos, vel, omega, force, torque, on_mat, P, G, work6)
    _accelerations(root, G, work6, R, Iw, Iinv, acc6)
    w0, w1, w2 = G[root, 6], G[root, 7], G[root, 8]
    b0, b1, b2 = acc6[3], acc6[4], acc6[5]
    n = grp.shape[0]
    for cut in range(n):
        if grp[cut] != root or GM[cut, 7] < 0.5:
            continue
        rank = GM[cut, 7]
        # the cut's centre and the magnets across it, in the world
        p0 = G[root, 0] + R[0, 0] * GC[cut, 0] + R[0, 1] * GC[cut, 1] + R[0, 2] * GC[cut, 2]
        p1 = G[root, 1] + R[1, 0] * GC[cut, 0] + R[1, 1] * GC[cut, 1] + R[1, 2] * GC[cut, 2]
        p2 = G[root, 2] + R[2, 0] * GC[cut, 0] + R[2, 1] * GC[cut, 1] + R[2, 2] * GC[cut, 2]
        F0 = -(R[0, 0] * GC[cut, 3] + R[0, 1] * GC[cut, 4] + R[0, 2] * GC[cut, 5])
        F1 = -(R[1, 0] * GC[cut, 3] + R[1, 1] * GC[cut, 4] + R[1, 2] * GC[cut, 5])
        F2 = -(R[2, 0] * GC[cut, 3] + R[2, 1] * GC[cut, 4] + R[2, 2] * GC[cut, 5])
        M0 = -(R[0, 0] * GC[cut, 6] + R[0, 1] * GC[cut, 7] + R[0, 2] * GC[cut, 8])
        M1 = -(R[1, 0] * GC[cut, 6] + R[1, 1] * GC[cut, 7] + R[1, 2] * GC[cut, 8])
        M2 = -(R[2, 0] * GC[cut, 6] + R[2, 1] * GC[cut, 7] + R[2, 2] * GC[cut, 8])
        below = -1
        for k in range(n):       # contact force = what the upper part needs - the magnets' share
            if grp[k] != root:
                continue
            if GM[k, 7] == rank - 1:
                below = k
            if GM[k, 7] < rank:
                continue
            r0, r1, r2 = pos[k, 0] - G[root, 0], pos[k, 1] - G[root, 1], pos[k, 2] - G[root, 2]
            x0, x1, x2 = _cross(b0, b1, b2, r0, r1, r2)
            y0, y1, y2 = _cross(w0, w1, w2, r0, r1, r2)
            z0, z1, z2 = _cross(w0, w1, w2, y0, y1, y2)
            lin, ang = 0.0, 0.0
            if P[_DAMP] > 0:
                lin = P[_LIN]
                ang = P[_ANG] + (P[_ROLL] if on_mat[k] else 0.0)
            c0 = m * (acc6[0] + x0 + z0) - (force[k, 0] - lin * m * vel[k, 0])
            c1 = m * (acc6[1] + x1 + z1) - (force[k, 1] - lin * m * vel[k, 1])
            c2 = m * (acc6[2] + x2 + z2) - (force[k, 2] - lin * m * vel[k, 2])
            n0, n1, n2 = axis[k, 0], axis[k, 1], axis[k, 2]
            # the member's own rotation: d(I w)/dt = I b + w x I w (I = ip + (ia - ip) n n)
            nb = n0 * b0 + n1 * b1 + n2 * b2
            nw = n0 * w0 + n1 * w1 + n2 * w2
            ib0, ib1, ib2 = ip * b0 + (ia - ip) * nb * n0, ip * b1 + (ia - ip) * nb * n1, ip * b2 + (ia - ip) * nb * n2
            iw0, iw1, iw2 = ip * w0 + (ia - ip) * nw * n0, ip * w1 + (ia - ip) * nw * n1, ip * w2 + (ia - ip) * nw * n2
            g0, g1, g2 = _cross(w0, w1, w2, iw0, iw1, iw2)
            d0 = ib0 + g0 - (torque[k, 0] - ang * ip * omega[k, 0])
            d1 = ib1 + g1 - (torque[k, 1] - ang * ip * omega[k, 1])
            d2 = ib2 + g2 - (torque[k, 2] - ang * ip * omega[k, 2])
            e0, e1, e2 = _cross(pos[k, 0] - p0, pos[k, 1] - p1, pos[k, 2] - p2, c0, c1, c2)
            F0 += c0
            F1 += c1
            F2 += c2
            M0 += d0 + e0
            M1 += d1 + e1
            M2 += d2 + e2
        # up: the lower member's axis, towards the cut member
        u0, u1, u2 = axis[below, 0], axis[below, 1], axis[below, 2]
        s = (pos[cut, 0] - pos[below, 0]) * u0 + (pos[cut, 1] - pos[below, 1]) * u1 + (pos[cut, 2] - pos[below, 2]) * u2
        if s < 0.0:
            u0, u1, u2 = -u0, -u1, -u2
        N = F0 * u0 + F1 * u1 + F2 * u2
        if N <= 0.0:
            return False
        sh = (F0 - N * u0) ** 2 + (F1 - N * u1) ** 2 + (F2 - N * u2) ** 2
        if sh >= (margin * mu * N) ** 2:
            return False
        tw = M0 * u0 + M1 * u1 + M2 * u2
        bend = (M0 - tw * u0) ** 2 + (M1 - tw * u1) ** 2 + (M2 - tw * u2) ** 2
        off2 = 0.0
        sa = abs(s)
        for c in range(3):
            dc = pos[cut, c] - pos[below, c] - sa * (u0 if c == 0 else (u1 if c == 1 else u2))
            off2 += dc * dc
        lever = a - P[_CHAMFER] - np.sqrt(off2)
        if lever <= 0.0 or bend >= (margin * N * lever) ** 2 or abs(tw) >= margin * mu * N * lever * (2.0 / 3.0):
            return False
    return True


@kernel
def dissolve(root, grp):
    """The members of group ``root`` go on alone."""
    for k in range(grp.shape[0]):
        if grp[k] == root:
            grp[k] = -1


@kernel
def form_groups(live, awake, fresh, kin, grp, pos, quat, vel, omega, axis, cur, P, G, GM, GC, cache, order, keys, R):
    """Join touching awake discs stacked face to face and moving together
    (see the module docstring); returns True if any group formed or grew.
    Without friction nothing holds two discs against sliding: no groups."""
    n = grp.shape[0]
    formed = False
    if P[_FRIC] <= 0:
        return formed
    for i in range(n):
        if not live[i] or not awake[i] or fresh[i] or i == kin:
            continue
        for j in range(i + 1, n):
            if not live[j] or not awake[j] or fresh[j] or j == kin or not cur[i, j]:
                continue
            if grp[i] >= 0 and grp[i] == grp[j]:
                continue
            if not (_stacked(i, j, pos, axis, P) and _moving_together(i, j, pos, vel, omega, P)):
                continue
            if not _chain_ok(i, j, grp, pos, axis, P, order, keys):
                continue
            gi, gj = grp[i], grp[j]
            root = i
            for k in range(n):
                if k == i or k == j or (gi >= 0 and grp[k] == gi) or (gj >= 0 and grp[k] == gj):
                    root = min(root, k)
            for k in range(n):
                if k == i or k == j or (gi >= 0 and grp[k] == gi) or (gj >= 0 and grp[k] == gj):
                    grp[k] = root
            setup_group(root, grp, pos, quat, vel, omega, axis, P, G, GM, GC, cache, order, keys, R)
            place_members(root, grp, pos, quat, vel, omega, G, GM, R)
            formed = True
    return formed
