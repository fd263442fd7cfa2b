"""The contact forces of one step: rim points against the mat, against other
discs, and the pusher sphere (called by sim.integrate's ``compute_forces``).

Shared stiffness: a contact (a body on the mat, or a pair of discs) has one
stiffness K and the potential U = K/2 (sum_k d_k^p)^(2/p) over its
penetrating sample points (depths d_k, p = ``contact_norm``, 8): forces are
its gradient (conservative: the energy test holds with friction and damping
off), a point entering with zero depth enters with zero force, and the
stiffness hardly depends on how many points touch (N equal depths: K N^(2/p),
24 points 2.2 K), so face-to-face stacks stay stable at dt = 0.1 ms while a
single edge point is still stiff. (Sharing by d_k / sum(d) instead is not
conservative: a bouncing disc starts to rock.) Damping and tangential
stiffness are shared by the weights d_k^(p-1) / sum(d^(p-1)).
Per-point spring state: ``mat_spring [n, 3N, 3]``, ``disc_spring [n, 3N, 3]``
with ``disc_partner [n, 3N]`` (the disc the point presses into, -1 none).

Each contact also feeds the step's choice of sub-steps (sim.integrate,
Sub-steps): ``contact_speed [2]`` holds the horizon and the largest square
of a contact point's speed, or of a closing speed that reaches a surface
within the horizon (``predict_entry``). Where a point is inside a disc, and
which surface it entered by: sim.contacts. The per-point helpers
(``world_points``, ``point_velocity``, ``apply_at``) are inlined into the
loops, and the loops read the poses they use into locals first (sim.integrate,
Cost).
"""

import numpy as np

from sim.contacts import NO_FEATURE, cylinder_sdf, point_force_at, power_m2, sdf_entered
from sim.detmath import power
from sim.jit import kernel
from sim.params import IDX

_RADIUS, _THICK, _MASS, _DT = IDX["radius"], IDX["thickness"], IDX["mass"], IDX["dt"]
_KN, _KD = IDX["k_contact"], IDX["k_disc"]
_ZETA, _KT, _PNORM = IDX["contact_damping"], IDX["k_tangent_ratio"], IDX["contact_norm"]
_MUS_M, _MUK_M = IDX["mu_static_mat"], IDX["mu_kinetic_mat"]
_MUS_D, _MUK_D = IDX["mu_static_disc"], IDX["mu_kinetic_disc"]
_FRIC, _DAMP, _SKIRT = IDX["friction"], IDX["damping"], IDX["contact_skirt"]


@kernel(inline="always")
def norm_gain(sp, pw):
    """sp ** (2/p - 1), the shared-stiffness gain; for the default p = 8
    (sp ** -0.75) from square roots, which every machine rounds alike."""
    if pw == 8.0:
        r = np.sqrt(sp)
        return 1.0 / (r * np.sqrt(r))
    return power(sp, 2.0 / pw - 1.0)


@kernel(inline="always")
def world_points(pos, rot, rim, i, wp):
    """Body i's rim points in the world, ``wp[i]``. Its pose is read into
    locals first: LLVM cannot tell that the writes to ``wp`` leave ``pos``
    and ``rot`` alone, and reloaded them for every point (3x slower)."""
    p0, p1, p2 = pos[i, 0], pos[i, 1], pos[i, 2]
    r00, r01, r02 = rot[i, 0, 0], rot[i, 0, 1], rot[i, 0, 2]
    r10, r11, r12 = rot[i, 1, 0], rot[i, 1, 1], rot[i, 1, 2]
    r20, r21, r22 = rot[i, 2, 0], rot[i, 2, 1], rot[i, 2, 2]
    for k in range(rim.shape[0]):
        x, y, z = rim[k, 0], rim[k, 1], rim[k, 2]
        wp[i, k, 0] = p0 + r00 * x + r01 * y + r02 * z
        wp[i, k, 1] = p1 + r10 * x + r11 * y + r12 * z
        wp[i, k, 2] = p2 + r20 * x + r21 * y + r22 * z


@kernel(inline="always")
def velocity_at(v0, v1, v2, w0, w1, w2, r0, r1, r2):
    """Velocity of the point of a body moving at v, spinning at w, at r from its centre."""
    return v0 + w1 * r2 - w2 * r1, v1 + w2 * r0 - w0 * r2, v2 + w0 * r1 - w1 * r0


@kernel(inline="always")
def point_velocity(vel, omega, pos, i, p0, p1, p2, out):
    """Velocity of body i's material point at p, written to out[3]."""
    out[0], out[1], out[2] = velocity_at(vel[i, 0], vel[i, 1], vel[i, 2], omega[i, 0], omega[i, 1],
                                         omega[i, 2], p0 - pos[i, 0], p1 - pos[i, 1], p2 - pos[i, 2])


@kernel(inline="always")
def apply_at(force, torque, pos, i, p0, p1, p2, f, sign):
    r0, r1, r2 = p0 - pos[i, 0], p1 - pos[i, 1], p2 - pos[i, 2]
    force[i, 0] += sign * f[0]
    force[i, 1] += sign * f[1]
    force[i, 2] += sign * f[2]
    torque[i, 0] += sign * (r1 * f[2] - r2 * f[1])
    torque[i, 1] += sign * (r2 * f[0] - r0 * f[2])
    torque[i, 2] += sign * (r0 * f[1] - r1 * f[0])


@kernel(inline="always")
def speed_bound(i, vel, omega, P):
    """No point of body i moves faster than this (m/s; component sums: no
    square root in the contact loops)."""
    reach = P[_RADIUS] + 0.5 * P[_THICK]
    return (abs(vel[i, 0]) + abs(vel[i, 1]) + abs(vel[i, 2])
            + reach * (abs(omega[i, 0]) + abs(omega[i, 1]) + abs(omega[i, 2])))


@kernel(inline="always")
def predict_entry(gap, vn, contact_speed):
    """A point at ``gap`` (m) outside a surface, moving away from it at ``vn``
    (m/s, < 0 closing): if it would reach the surface within the horizon
    ``contact_speed[0]`` (s), ``contact_speed[1]`` keeps the largest square of
    such a closing speed (and of the contact points' speeds: see the module
    docstring, Sub-steps)."""
    if gap >= 0.0 and gap + vn * contact_speed[0] < 0.0:
        contact_speed[1] = max(contact_speed[1], vn * vn)


@kernel(inline="always")
def mat_contacts(i, pos, vel, omega, wp, mat_spring, P, force, torque, scratch, contact_speed):
    """Rim points of body i against the mat (shared stiffness, see the module
    docstring); returns True if any touches. ``scratch [8, 3]``: work rows;
    ``contact_speed``: see ``predict_entry``."""
    m, dt = P[_MASS], P[_DT]
    kn = P[_KN]
    cn = 2.0 * P[_ZETA] * np.sqrt(kn * m) * P[_DAMP]
    kt = kn * P[_KT]
    ct = cn * np.sqrt(P[_KT])
    vp, f = scratch[1], scratch[2]
    low = np.inf
    for k in range(wp.shape[1]):
        low = min(low, wp[i, k, 2])
    watch = speed_bound(i, vel, omega, P) * contact_speed[0]
    c0, c1, c2 = pos[i, 0], pos[i, 1], pos[i, 2]        # locals: see world_points
    v0, v1, v2 = vel[i, 0], vel[i, 1], vel[i, 2]
    w0, w1, w2 = omega[i, 0], omega[i, 1], omega[i, 2]
    if 0.0 <= low < watch:       # not touching yet, but might within the horizon
        for k in range(wp.shape[1]):
            z = wp[i, k, 2]
            if z < watch:
                vz = v2 + w0 * (wp[i, k, 1] - c1) - w1 * (wp[i, k, 0] - c0)
                predict_entry(z, vz, contact_speed)
    dm = max(0.0, -low)
    if dm <= 0.0:
        mat_spring[i, :, :] = 0.0
        return False
    pw = P[_PNORM]
    sp, sw = 0.0, 0.0
    for k in range(wp.shape[1]):
        if wp[i, k, 2] < 0.0:
            x = -wp[i, k, 2] / dm
            xp2 = power_m2(x, pw)
            sp += xp2 * x * x
            sw += xp2 * x
    g = norm_gain(sp, pw)
    for k in range(wp.shape[1]):
        p0, p1, p2 = wp[i, k, 0], wp[i, k, 1], wp[i, k, 2]
        if p2 < 0.0:
            x = -p2 / dm
            xp2 = power_m2(x, pw)
            ks = kn * g * xp2
            w = xp2 * x / sw
            vp[0], vp[1], vp[2] = velocity_at(v0, v1, v2, w0, w1, w2, p0 - c0, p1 - c1, p2 - c2)
            contact_speed[1] = max(contact_speed[1], vp[0] * vp[0] + vp[1] * vp[1] + vp[2] * vp[2])
            point_force_at(-p2, 0.0, 0.0, 1.0, vp, mat_spring, i, k, ks, cn * w, kt * w, ct * w,
                           P[_MUS_M], P[_MUK_M], dt, P[_FRIC] > 0, f)
            apply_at(force, torque, pos, i, p0, p1, p2, f, 1.0)
        else:
            mat_spring[i, k, 0] = 0.0
            mat_spring[i, k, 1] = 0.0
            mat_spring[i, k, 2] = 0.0
    return True


@kernel
def pair_contacts(i, j, pos, vel, omega, axis, wp, disc_spring, disc_partner, disc_feature, hit,
                  P, dyn_i, dyn_j, force, torque, depth, normals, feats, scratch, contact_speed):
    """Disc i against disc j: i's rim points inside j and j's inside i, one
    contact of stiffness K_disc (shared, see the module docstring). Force on the
    point's owner, reaction on the other; ``hit [n, 3N]`` marks points that
    found a partner this step (a point presses into one disc at a time).
    A point further outside o's face planes than ``watch`` (how far a point can
    come within the entry horizon) is outside o and cannot enter it: it skips
    the distance function, unless it entered o and may still be in o's skirt
    (sim.contacts, Skirt), which also reaches past o's bounding ball.
    ``scratch [8, 3]``: work rows (no allocation in the step loop);
    ``contact_speed``: see ``predict_entry``."""
    m, dt = P[_MASS], P[_DT]
    a, hh = P[_RADIUS], 0.5 * P[_THICK]
    npts = wp.shape[1]
    bound2 = a * a + hh * hh
    total = 0.0
    nrm = scratch[3]
    watch = (speed_bound(i, vel, omega, P) + speed_bound(j, vel, omega, P)) * contact_speed[0]
    skirt = P[_SKIRT]
    for side in range(2):
        b, o = (i, j) if side == 0 else (j, i)
        c0, c1, c2 = pos[o, 0], pos[o, 1], pos[o, 2]        # locals: see world_points
        n0, n1, n2 = axis[o, 0], axis[o, 1], axis[o, 2]
        for k in range(npts):
            depth[side * npts + k] = 0.0
            if hit[b, k]:
                continue
            d0, d1, d2 = wp[b, k, 0] - c0, wp[b, k, 1] - c1, wp[b, k, 2] - c2
            d = 1.0
            beyond = abs(d0 * n0 + d1 * n1 + d2 * n2) - hh
            if (d0 ** 2 + d1 ** 2 + d2 ** 2 <= bound2 and not (beyond > 0.0 and beyond >= watch)
                    or skirt > 0.0 and disc_partner[b, k] == o):
                known = disc_feature[b, k] if disc_partner[b, k] == o else NO_FEATURE
                d, feat = sdf_entered(d0, d1, d2, n0, n1, n2, a, hh, known, nrm, skirt)
                if 0.0 <= d < watch:
                    vb, vo = scratch[4], scratch[5]
                    point_velocity(vel, omega, pos, b, wp[b, k, 0], wp[b, k, 1], wp[b, k, 2], vb)
                    point_velocity(vel, omega, pos, o, wp[b, k, 0], wp[b, k, 1], wp[b, k, 2], vo)
                    predict_entry(d, (vb[0] - vo[0]) * nrm[0] + (vb[1] - vo[1]) * nrm[1]
                                     + (vb[2] - vo[2]) * nrm[2], contact_speed)
            if d < 0.0:
                depth[side * npts + k] = -d
                for c in range(3):
                    normals[side * npts + k, c] = nrm[c]
                feats[side * npts + k] = feat
                total = max(total, -d)
            elif disc_partner[b, k] == o:     # left o (also a sleeper's point): forget it
                disc_partner[b, k] = -1
    if total <= 0.0:
        return False
    pw = P[_PNORM]
    sp, sw = 0.0, 0.0
    for k in range(2 * npts):
        if depth[k] > 0.0:
            x = depth[k] / total
            xp2 = power_m2(x, pw)
            sp += xp2 * x * x
            sw += xp2 * x
    g = norm_gain(sp, pw)
    kn = P[_KD]
    meff = 0.5 * m if (dyn_i and dyn_j) else m
    cn = 2.0 * P[_ZETA] * np.sqrt(kn * meff) * P[_DAMP]
    kt = kn * P[_KT]
    ct = cn * np.sqrt(P[_KT])
    vrel, f = scratch[6], scratch[2]
    for side in range(2):
        b, o = (i, j) if side == 0 else (j, i)
        dyn_b, dyn_o = (dyn_i, dyn_j) if side == 0 else (dyn_j, dyn_i)
        cb0, cb1, cb2 = pos[b, 0], pos[b, 1], pos[b, 2]
        vb0, vb1, vb2 = vel[b, 0], vel[b, 1], vel[b, 2]
        wb0, wb1, wb2 = omega[b, 0], omega[b, 1], omega[b, 2]
        co0, co1, co2 = pos[o, 0], pos[o, 1], pos[o, 2]
        vo0, vo1, vo2 = vel[o, 0], vel[o, 1], vel[o, 2]
        wo0, wo1, wo2 = omega[o, 0], omega[o, 1], omega[o, 2]
        for k in range(npts):
            d = depth[side * npts + k]
            if d <= 0.0:
                continue
            x = d / total
            xp2 = power_m2(x, pw)
            ks = kn * g * xp2
            w = xp2 * x / sw
            hit[b, k] = True
            if disc_partner[b, k] != o:
                disc_partner[b, k] = o
                disc_spring[b, k, :] = 0.0
            q = side * npts + k
            disc_feature[b, k] = feats[q]
            p0, p1, p2 = wp[b, k, 0], wp[b, k, 1], wp[b, k, 2]
            ub0, ub1, ub2 = velocity_at(vb0, vb1, vb2, wb0, wb1, wb2, p0 - cb0, p1 - cb1, p2 - cb2)
            uo0, uo1, uo2 = velocity_at(vo0, vo1, vo2, wo0, wo1, wo2, p0 - co0, p1 - co1, p2 - co2)
            vrel[0], vrel[1], vrel[2] = ub0 - uo0, ub1 - uo1, ub2 - uo2
            contact_speed[1] = max(contact_speed[1], vrel[0] * vrel[0] + vrel[1] * vrel[1] + vrel[2] * vrel[2])
            point_force_at(d, normals[q, 0], normals[q, 1], normals[q, 2], vrel, disc_spring, b, k,
                           ks, cn * w, kt * w, ct * w, P[_MUS_D], P[_MUK_D], dt, P[_FRIC] > 0, f)
            if dyn_b:
                apply_at(force, torque, pos, b, p0, p1, p2, f, 1.0)
            if dyn_o:
                apply_at(force, torque, pos, o, p0, p1, p2, f, -1.0)
    return True


@kernel
def pusher_contacts(sp, sv, rp, i, pos, vel, omega, axis, P, force, torque, scratch):
    """Frictionless kinematic sphere (centre sp, velocity sv, radius rp) on disc i."""
    a, hh = P[_RADIUS], 0.5 * P[_THICK]
    normal, p, vi, f = scratch[3], scratch[4], scratch[5], scratch[2]
    d = cylinder_sdf(sp, pos[i], axis[i], a, hh, normal)
    if d >= rp:
        return False
    for c in range(3):
        p[c] = sp[c] - d * normal[c]
    point_velocity(vel, omega, pos, i, p[0], p[1], p[2], vi)
    kn = 4.0 * P[_KN]
    cn = 2.0 * P[_ZETA] * np.sqrt(kn * P[_MASS]) * P[_DAMP]
    vn = (vi[0] - sv[0]) * normal[0] + (vi[1] - sv[1]) * normal[1] + (vi[2] - sv[2]) * normal[2]
    fn = kn * (rp - d) + cn * vn      # normal points from the disc to the sphere
    if fn > 0.0:
        for c in range(3):
            f[c] = fn * normal[c]
        apply_at(force, torque, pos, i, p[0], p[1], p[2], f, -1.0)
    return True
