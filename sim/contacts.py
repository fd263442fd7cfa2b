"""Contact kernels: penalty springs with Cundall-Strack friction.

A contact is one sample point (a rim point of a disc, or a pusher sphere)
pressing ``depth`` metres into a surface with outward unit ``normal``:

- mat: the plane z = 0, normal +z;
- disc: a cylinder (centre c, axis n, radius a, half thickness hh);
  ``cylinder_sdf`` gives the signed distance and outward normal.

Entered feature (``cylinder_sdf_entered``): a point inside a disc is pushed
out through the surface it came in by (side, +face or -face: ``SIDE``,
``FACE_UP``, ``FACE_DOWN``), remembered per rim point while it stays in the
same disc (``disc_feature``), not through the nearest one. The nearest
surface flips as soon as the point passes a medial surface, and a penalty
contact then pulls the point on through: a face-edge point of a stacked
disc sits 0.8 mm inside the rim (the chamfer), so a tower pair pressed
0.8 mm together was pushed sideways by its points, symmetrically, i.e. not
apart, and the magnets pulled the discs into each other; flat discs pressed
side by side past half their thickness were pushed up instead of apart.
Merged discs (centres < 3 mm apart, seen after toppling towers) spun
without ever sleeping and were flung off the mat (physics < 0.4.0).

Skirt (physics 0.13.0, ``contact_skirt``): the rule's price was energy. A
point that left its disc by another surface than it entered by was dropped
with its spring, K d^2 / 2 of its labelled depth: a point pressed 0.3 mm
into a face that slides past the rim takes ~1 mJ with it. Under 0.12.1 the
leaner of tests/test_physics_conservation.py, pulled onto its host's edge by
the magnets (friction and damping off), lost 0.021 J over 0.2 s against a
peak kinetic energy of 0.019 J, nearly all of it in such steps. Now a
labelled point is pushed until it is out of its feature's surface bent away
past the feature's edge: past a face's rim the face goes on down a quarter
circle of radius ``skirt`` (centred ``skirt`` below the rim, then straight
down the side ``skirt`` further out); past the top or bottom of the side, the
side goes on inward over the face the same way (``skirt_depth``). Its depth
is the distance to that surface, so it equals the feature's own depth at the
edge, its push is along its gradient (a potential's force), and it is zero
where the label is dropped: the spring gives its energy back. The snap then
drifts 0.3 % over 0.2 s. It reaches beyond the disc only while the point is
still pressed: a point resting 5 um deep that slides off a rim is pushed out
and up for ~0.2 mm more, like a rounded edge; a point 1 mm deep for ~2.2 mm.
So a resting contact may sit a little past the edge: after the 152 episodes
of two standard games (seeds 11, 12), 8 rim points rested in a skirt, up to
0.22 mm outside the disc (past ``TOUCH_TOL``), each of their pairs also
touching by other points. Since physics 0.13.1 a world's reading of which
discs touch (sim.state) reads a labelled point through its skirt as well, so
a pair the core pushes apart always reads as touching (in 10 standard games,
3,700 readings, the two readings never differed).
It is still discontinuous for a point deeper than ``skirt`` (3 mm, half the
disc's thickness, so past the disc's middle) when it reaches the edge, for
one that went through a disc and out of its far face, and where the pair's
centres part beyond contact reach (30.6 mm) while a point still sits in a
skirt (possible up to ~33.6 mm): sim.integrate only looks at pairs within
reach. Widening that gate by ``skirt`` changed none of the selfcheck games,
golden scenes or one-second snaps (session 25), no labelled point was beyond
reach at any of the 763 readings of three standard games (8,461 labels), and
it would test every pair 3 mm farther apart each step, so it is not done.
``skirt`` 0 drops the point at the edge (physics 0.12.1). Replayed episodes of standard games cost
1.5 % less CPU and end as before within the rounding-level share; 768 paired
standard games showed no change in outcomes at 5 % (docs/MEASUREMENTS.md, physics 0.13.0).

``point_force`` turns (depth, normal, relative velocity of the point, the
point's tangential spring ``spring[3]``) into the force on the point's body:
normal ``k depth - c v_n`` (never pulling), tangential ``-k_t s - c_t v_t``
where the spring s accumulates tangential slip while the point sticks and is
cut back to the kinetic limit when it slides (static mu_s > kinetic mu_k).
"""

import numpy as np

from sim.detmath import power
from sim.jit import kernel


@kernel(inline="always")
def contact_reach(a, hh):
    """Centre distance beyond which two discs (radius a, half thickness hh)
    cannot touch: twice a disc's bounding-sphere radius."""
    return 2.0 * np.sqrt(a * a + hh * hh)


@kernel
def cylinder_sdf(p, c, n, a, hh, normal_out):
    """Signed distance from p to the solid cylinder (negative inside); writes
    the outward normal of the nearest surface into normal_out."""
    return cylinder_sdf_xyz(p[0] - c[0], p[1] - c[1], p[2] - c[2], n, a, hh, normal_out)


@kernel
def cylinder_sdf_xyz(d0, d1, d2, n, a, hh, normal_out):
    """``cylinder_sdf`` of the point at offset (d0, d1, d2) from the centre
    (no array views in the contact loop)."""
    return cylinder_sdf_entered(d0, d1, d2, n, a, hh, NO_FEATURE, normal_out)[0]


NO_FEATURE, SIDE, FACE_UP, FACE_DOWN = -1, 0, 1, 2


@kernel(inline="always")
def cylinder_sdf_entered(d0, d1, d2, n, a, hh, known, normal_out, skirt=0.0):
    """(signed distance, feature) of the point at offset (d0, d1, d2) from the
    centre. Outside: as ``cylinder_sdf_xyz``, feature ``NO_FEATURE``. Inside:
    through the ``known`` feature when there is one (its depth may exceed the
    nearest surface's), else the nearest surface, whose feature is returned.
    ``skirt`` > 0: a ``known`` feature's depth goes on past its edge (see the
    module docstring, Skirt)."""
    return sdf_entered(d0, d1, d2, n[0], n[1], n[2], a, hh, known, normal_out, skirt)


@kernel(inline="always")
def sdf_entered(d0, d1, d2, n0, n1, n2, a, hh, known, normal_out, skirt):
    """``cylinder_sdf_entered`` with the axis as scalars (n0, n1, n2): a loop
    over points reads it once, not after every write to ``normal_out``."""
    zl = d0 * n0 + d1 * n1 + d2 * n2
    r0, r1, r2 = d0 - zl * n0, d1 - zl * n1, d2 - zl * n2
    r = np.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
    dr = r - a
    dz = abs(zl) - hh
    if skirt > 0.0 and known != NO_FEATURE and (dr > 0 or dz > 0):
        d = skirt_depth(r0, r1, r2, r, zl, n0, n1, n2, a, hh, known, skirt, normal_out)
        if d < 0.0:
            return d, known
    if dr > 0 or dz > 0:                     # outside: the nearest surface, edge or side or face
        sz = 1.0 if zl >= 0 else -1.0
        if r > 1e-12:
            r0, r1, r2 = r0 / r, r1 / r, r2 / r
        if dr > 0 and dz > 0:
            dist = np.sqrt(dr * dr + dz * dz)
            normal_out[0] = (dr * r0 + dz * sz * n0) / dist
            normal_out[1] = (dr * r1 + dz * sz * n1) / dist
            normal_out[2] = (dr * r2 + dz * sz * n2) / dist
            return dist, NO_FEATURE
        if dr > dz:
            normal_out[0], normal_out[1], normal_out[2] = r0, r1, r2
            return dr, NO_FEATURE
        normal_out[0], normal_out[1], normal_out[2] = sz * n0, sz * n1, sz * n2
        return dz, NO_FEATURE
    feat = known
    if feat == NO_FEATURE:
        feat = SIDE if dr > dz else (FACE_UP if zl >= 0 else FACE_DOWN)
    if feat == SIDE:
        if r > 1e-12:
            normal_out[0], normal_out[1], normal_out[2] = r0 / r, r1 / r, r2 / r
        else:
            normal_out[0], normal_out[1], normal_out[2] = 0.0, 0.0, 0.0
        return dr, SIDE
    sz = 1.0 if feat == FACE_UP else -1.0
    normal_out[0], normal_out[1], normal_out[2] = sz * n0, sz * n1, sz * n2
    return sz * zl - hh, feat


@kernel(inline="always")
def skirt_depth(r0, r1, r2, r, zl, n0, n1, n2, a, hh, known, skirt, normal_out):
    """Signed depth (negative: pushed) of a point outside the cylinder through
    its ``known`` feature's skirt, with its outward normal written. Past a face's
    rim the face bends away on a quarter circle of radius ``skirt`` about the
    circle ``skirt`` below the rim, then goes straight down the side ``skirt``
    further out; past the side's top (bottom) the side bends inward the same way
    over the face. Its depth is the distance to that surface: it meets the
    feature's own depth at the edge and is zero where the point comes out."""
    rr = r if r > 1e-12 else 1e-12
    u0, u1, u2 = r0 / rr, r1 / rr, r2 / rr
    if known == SIDE:
        sz = 1.0 if zl >= 0 else -1.0
        er, ez = r - (a - skirt), abs(zl) - hh          # from the circle skirt inside the rim, over the face
        if ez <= 0.0:                                   # beside the side itself: outside it
            return 1.0
        if er < 0.0:
            normal_out[0], normal_out[1], normal_out[2] = sz * n0, sz * n1, sz * n2
            return ez - skirt
    else:
        sz = 1.0 if known == FACE_UP else -1.0
        er, ez = r - a, sz * zl - (hh - skirt)          # from the circle skirt below the rim, beside the side
        if er <= 0.0:                                   # over the face itself: outside it
            return 1.0
        if ez < 0.0:
            normal_out[0], normal_out[1], normal_out[2] = u0, u1, u2
            return er - skirt
    ln = np.sqrt(er * er + ez * ez)
    if ln >= skirt:
        return 1.0
    normal_out[0] = (er * u0 + ez * sz * n0) / ln
    normal_out[1] = (er * u1 + ez * sz * n1) / ln
    normal_out[2] = (er * u2 + ez * sz * n2) / ln
    return ln - skirt


@kernel
def point_force(depth, normal, vrel, spring, kn, cn, kt, ct, mus, muk, dt, friction, out):
    """Force on the point's body (written to out[3]); updates spring in place."""
    return point_force_at(depth, normal[0], normal[1], normal[2], vrel, spring.reshape(1, 1, 3),
                          0, 0, kn, cn, kt, ct, mus, muk, dt, friction, out)


@kernel(inline="always")
def point_force_at(depth, nx, ny, nz, vrel, springs, b, k, kn, cn, kt, ct, mus, muk, dt,
                   friction, out):
    """``point_force`` with the normal as scalars and the spring ``springs[b, k]``
    of a [n, 3N, 3] array (no array views in the contact loop)."""
    vn = vrel[0] * nx + vrel[1] * ny + vrel[2] * nz
    fn = kn * depth - cn * vn
    if fn < 0.0:
        fn = 0.0
    out[0], out[1], out[2] = fn * nx, fn * ny, fn * nz
    if not friction:
        return fn
    sn = springs[b, k, 0] * nx + springs[b, k, 1] * ny + springs[b, k, 2] * nz
    vt0 = vrel[0] - vn * nx
    vt1 = vrel[1] - vn * ny
    vt2 = vrel[2] - vn * nz
    springs[b, k, 0] += vt0 * dt - sn * nx
    springs[b, k, 1] += vt1 * dt - sn * ny
    springs[b, k, 2] += vt2 * dt - sn * nz
    f0 = -kt * springs[b, k, 0] - ct * vt0
    f1 = -kt * springs[b, k, 1] - ct * vt1
    f2 = -kt * springs[b, k, 2] - ct * vt2
    ftn = np.sqrt(f0 * f0 + f1 * f1 + f2 * f2)
    if ftn > mus * fn:
        scale = muk * fn / ftn if ftn > 0 else 0.0
        f0, f1, f2 = f0 * scale, f1 * scale, f2 * scale
        if kt > 0:
            springs[b, k, 0], springs[b, k, 1], springs[b, k, 2] = -f0 / kt, -f1 / kt, -f2 / kt
    out[0] += f0
    out[1] += f1
    out[2] += f2
    return fn


@kernel
def power_m2(x, p):
    """x ** (p - 2), by multiplication for the default p = 8 (hot in the contacts)."""
    if p == 8.0:
        x2 = x * x
        return x2 * x2 * x2
    return power(x, p - 2.0)
