"""Magnetic force and torque between two disc magnets: the pair kernel.

Model (design note)
-------------------
Each magnet is a uniformly, axially magnetised cylinder (radius a, thickness
2b, remanence Br), equivalent to two uniformly charged faces with surface
magnetic charge ±Br/μ0 (North face +).  For a pair (i, j):

- the *source* i's field is evaluated exactly (Derby & Olbert closed form with
  Bulirsch's ``cel``, ``sim.magnetics_fields``);
- the *target* j's two faces are sampled with an area-weighted polar rule
  (Gauss-Legendre in (rho/a)^2 × equal azimuths, the azimuths measured from the
  direction towards the source so that mirror-symmetric poses stay symmetric);
- F_on_j = Σ q_k B_i(r_k), T_on_j = Σ (r_k - c_j) × q_k B_i(r_k); then
  F_on_i = -F_on_j exactly and T_on_i = -(T_on_j + (c_j - c_i) × F_on_j), so
  linear and angular momentum balance to rounding.  F_on_j is the exact
  gradient of the sampled interaction energy, so the force is conservative.

Why: a point dipole is 19× too strong coaxially at contact and 5× too weak side
by side (measured against magpylib), because the interaction near contact is
dominated by the charges near the rims.  The charge model is exact for uniform
magnetisation; its only error is the quadrature over j's faces, which is worst
where a face of j passes close to a rim edge of i (the field there varies on
the scale of that gap).

Tiers (chosen per pair; neighbouring tiers are blended with a C1 smoothstep
over a band, so force and torque are continuous and no energy is injected):

=========  ===========================================  =======================
tier       used when                                    target rule (per face)
=========  ===========================================  =======================
fine       edge gap g_e < 0.10 a (blend to 0.14 a)      6 radii × 16 azimuths
medium     0.14 a ≤ g_e < 0.36 a (blend to 0.44 a)      4 × 10
coarse     g_e ≥ 0.44 a and centre distance < 1.75 D    2 × 8
multipole  1.75 D ≤ d < 8 D (blends 1.75-2 D, 8-10 D)   centre + ring of 6, with
                                                        i's field as axial
                                                        multipoles l = 1, 3, 5
dipole     d ≥ 10 D                                     point dipoles
=========  ===========================================  =======================

g_e ("edge gap") is the distance from i's two rim circles to j's two face
discs, found by a few alternating projections (cheap, continuous in the pose);
D = 2a.  Accuracy against magpylib (``tests/test_physics_magnetics.py``,
25 × 4 mm, coaxial / side by side / 45° leaner, magnet gaps 0.5 mm to 4 D):
force and torque within ~7 % at 0.5 mm gap, within ~2 % from 1.5 mm, and
≤ 0.3 % beyond one diameter; the multipole tier is within 0.1 %, the dipole
tier within ~1 % (its truncation error ~ (a/d)^2).  Cost per pair on one core
(``benchmarks/bench_magnetics.py``): fine ~20 µs, medium ~9 µs, coarse
~3.5 µs, multipole ~0.3 µs, dipole < 0.05 µs.  The shells keep real magnets
≥ 2 mm apart (coaxial) and ≥ 7 mm (edge to edge), so play mostly uses the
medium and coarse tiers.

Units: metres, tesla, newtons, newton-metres.  Arrays: centres and axes
float64[3]; ``out`` float64[9] = F_on_j, T_on_i (about c_i), T_on_j (about c_j).
Deterministic: fixed summation order, no fastmath.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.magnetics_fields import cylinder_field_xyz, multipole_field_xyz, multipole_moments

MU0 = 4e-7 * math.pi

# Near-field sampling rules of j's faces, densest first, and the edge gaps (in
# units of the radius a) where each hands over to the next: below EDGE_GAP_BANDS[k][0]
# rule k alone, across the band a blend of rules k and k + 1.
NEAR_RULE_SIZES = ((6, 16), (4, 16), (3, 12), (2, 8))       # (radii, azimuths) per face
EDGE_GAP_BANDS = ((0.12, 0.16), (0.25, 0.30), (0.55, 0.65))
# centre distance bands, in diameters: near rules -> multipoles -> point dipoles
MULTIPOLE_DISTANCE = (1.75, 2.0)
DIPOLE_DISTANCE = (8.0, 10.0)


def face_rule(n_rho, n_phi):
    """Rule for a unit disc: rows (rho/a, cos φ, sin φ, area fraction).

    Gauss-Legendre in t = (rho/a)^2 (area-uniform) × n_phi equal azimuths at
    φ = (k + 1/2)·2π/n_phi, mirror-symmetric about φ = 0."""
    t, wt = np.polynomial.legendre.leggauss(n_rho)
    rho = np.sqrt(0.5 * (t + 1.0))
    phi = (np.arange(n_phi) + 0.5) * 2.0 * np.pi / n_phi
    rows = [(r, math.cos(p), math.sin(p), 0.5 * w / n_phi) for r, w in zip(rho, wt) for p in phi]
    return np.array(rows, dtype=np.float64)


def centre_ring_rule(n_phi=6):
    """Centre (1/4) + ring at rho = a·sqrt(2/3) (3/4): exact <rho^2> and <rho^4>,
    so the target's multipoles up to l = 5 are exact."""
    rows = [(0.0, 1.0, 0.0, 0.25)]
    r = math.sqrt(2.0 / 3.0)
    for k in range(n_phi):
        p = k * 2.0 * np.pi / n_phi
        rows.append((r, math.cos(p), math.sin(p), 0.75 / n_phi))
    return np.array(rows, dtype=np.float64)


NEAR_RULES = np.vstack([face_rule(*size) for size in NEAR_RULE_SIZES])   # all rules, stacked
NEAR_RULE_STARTS = np.cumsum([0] + [n * m for n, m in NEAR_RULE_SIZES])  # rule k: rows [k]..[k+1]
EDGE_GAP_EDGES = np.array(EDGE_GAP_BANDS, dtype=np.float64)
RULE_FAR = centre_ring_rule(6)


@njit(cache=True)
def dipole_moment(br, radius, thickness):
    """|m| = Br·V/μ0 (A·m²) of a disc magnet."""
    return br * math.pi * radius * radius * thickness / MU0


@njit(cache=True)
def _smoothstep(x, lo, hi):
    """0 below lo, 1 above hi, C1 in between."""
    if x <= lo:
        return 0.0
    if x >= hi:
        return 1.0
    s = (x - lo) / (hi - lo)
    return s * s * (3.0 - 2.0 * s)


@njit(cache=True)
def _perpendicular(nx, ny, nz):
    """A unit vector perpendicular to the unit n, from its smallest component."""
    ax, ay, az = abs(nx), abs(ny), abs(nz)
    if ax <= ay and ax <= az:
        hx, hy, hz = 1.0, 0.0, 0.0
    elif ay <= az:
        hx, hy, hz = 0.0, 1.0, 0.0
    else:
        hx, hy, hz = 0.0, 0.0, 1.0
    z = hx * nx + hy * ny + hz * nz
    ex, ey, ez = hx - z * nx, hy - z * ny, hz - z * nz
    norm = math.sqrt(ex * ex + ey * ey + ez * ez)
    return ex / norm, ey / norm, ez / norm


@njit(cache=True)
def _in_plane(vx, vy, vz, n):
    """Component of v perpendicular to the unit n, and its length."""
    z = vx * n[0] + vy * n[1] + vz * n[2]
    ex, ey, ez = vx - z * n[0], vy - z * n[1], vz - z * n[2]
    return ex, ey, ez, math.sqrt(ex * ex + ey * ey + ez * ez)


@njit(cache=True)
def _target_frame(cs, ns, ct, nt):
    """Unit e, f spanning the target's face plane: e towards the source centre or,
    when the target's axis points at it, along the source's axis (both follow a
    rotation of the pair); for a coaxial pair any direction (all are equivalent)."""
    d0, d1, d2 = cs[0] - ct[0], cs[1] - ct[1], cs[2] - ct[2]
    e0, e1, e2, norm = _in_plane(d0, d1, d2, nt)
    if norm <= 1e-9 * math.sqrt(d0 * d0 + d1 * d1 + d2 * d2):
        e0, e1, e2, norm = _in_plane(ns[0], ns[1], ns[2], nt)
        if norm <= 1e-9:
            e0, e1, e2 = _perpendicular(nt[0], nt[1], nt[2])
            norm = 1.0
    e0, e1, e2 = e0 / norm, e1 / norm, e2 / norm
    return e0, e1, e2, nt[1] * e2 - nt[2] * e1, nt[2] * e0 - nt[0] * e2, nt[0] * e1 - nt[1] * e0


@njit(cache=True)
def _to_circle(px, py, pz, cx, cy, cz, n, a):
    """Nearest point to p on the circle (centre c, normal n, radius a)."""
    vx, vy, vz = px - cx, py - cy, pz - cz
    z = vx * n[0] + vy * n[1] + vz * n[2]
    vx, vy, vz = vx - z * n[0], vy - z * n[1], vz - z * n[2]
    norm = math.sqrt(vx * vx + vy * vy + vz * vz)
    if norm <= 1e-12 * a:
        vx, vy, vz = _perpendicular(n[0], n[1], n[2])
        norm = 1.0
    s = a / norm
    return cx + s * vx, cy + s * vy, cz + s * vz


@njit(cache=True)
def _to_disc(px, py, pz, fx, fy, fz, m, a):
    """Nearest point to p on the disc (centre f, normal m, radius a)."""
    vx, vy, vz = px - fx, py - fy, pz - fz
    z = vx * m[0] + vy * m[1] + vz * m[2]
    vx, vy, vz = vx - z * m[0], vy - z * m[1], vz - z * m[2]
    norm = math.sqrt(vx * vx + vy * vy + vz * vz)
    if norm > a:
        s = a / norm
        vx, vy, vz = s * vx, s * vy, s * vz
    return fx + vx, fy + vy, fz + vz


@njit(cache=True)
def edge_gap(cs, ns, ct, nt, a, b):
    """Distance from the source's two rim circles to the target's two faces (m),
    by three rounds of alternating projection per circle-face combination."""
    best = math.inf
    for si in range(2):
        zs = b if si == 0 else -b
        cx, cy, cz = cs[0] + zs * ns[0], cs[1] + zs * ns[1], cs[2] + zs * ns[2]
        for ti in range(2):
            zt = b if ti == 0 else -b
            fx, fy, fz = ct[0] + zt * nt[0], ct[1] + zt * nt[1], ct[2] + zt * nt[2]
            xx, xy, xz = _to_circle(fx, fy, fz, cx, cy, cz, ns, a)
            for _ in range(3):
                yx, yy, yz = _to_disc(xx, xy, xz, fx, fy, fz, nt, a)
                xx, xy, xz = _to_circle(yx, yy, yz, cx, cy, cz, ns, a)
            yx, yy, yz = _to_disc(xx, xy, xz, fx, fy, fz, nt, a)
            gap = math.sqrt((xx - yx) ** 2 + (xy - yy) ** 2 + (xz - yz) ** 2)
            if gap < best:
                best = gap
    return best


@njit(cache=True)
def _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, rule, exact, out):
    """i's field on j's sampled face charges; out = F_on_j, T_on_i, T_on_j.

    exact: i's field in closed form; else its l = 1, 3, 5 multipoles."""
    e0, e1, e2, f0, f1, f2 = _target_frame(ci, ni, cj, nj)
    q1, q3, q5 = multipole_moments(a, b, br_i)
    face_charge = br_j / MU0 * math.pi * a * a
    fx = fy = fz = 0.0
    tx = ty = tz = 0.0
    for side in range(2):
        sign = 1.0 if side == 0 else -1.0
        for k in range(rule.shape[0]):
            u = a * rule[k, 0] * rule[k, 1]
            v = a * rule[k, 0] * rule[k, 2]
            r0 = sign * b * nj[0] + u * e0 + v * f0
            r1 = sign * b * nj[1] + u * e1 + v * f1
            r2 = sign * b * nj[2] + u * e2 + v * f2
            if exact:
                bx, by, bz = cylinder_field_xyz(cj[0] + r0, cj[1] + r1, cj[2] + r2, ci, ni, a, b, br_i)
            else:
                bx, by, bz = multipole_field_xyz(cj[0] + r0, cj[1] + r1, cj[2] + r2, ci, ni, q1, q3, q5)
            q = sign * face_charge * rule[k, 3]
            g0, g1, g2 = q * bx, q * by, q * bz
            fx += g0
            fy += g1
            fz += g2
            tx += r1 * g2 - r2 * g1
            ty += r2 * g0 - r0 * g2
            tz += r0 * g1 - r1 * g0
    _write_balanced(ci, cj, fx, fy, fz, tx, ty, tz, out)


@njit(cache=True)
def _write_balanced(ci, cj, fx, fy, fz, tx, ty, tz, out):
    """out = F_on_j, T_on_i = -(T_on_j + (cj - ci) × F_on_j), T_on_j."""
    d0, d1, d2 = cj[0] - ci[0], cj[1] - ci[1], cj[2] - ci[2]
    out[0] = fx
    out[1] = fy
    out[2] = fz
    out[3] = -(tx + (d1 * fz - d2 * fy))
    out[4] = -(ty + (d2 * fx - d0 * fz))
    out[5] = -(tz + (d0 * fy - d1 * fx))
    out[6] = tx
    out[7] = ty
    out[8] = tz


@njit(cache=True)
def _dipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, out):
    """Point dipoles at the centres: F_on_j, T_on_j = m_j × B_i(c_j), balanced T_on_i."""
    qi = br_i * 2.0 * math.pi * a * a * b            # μ0·|m_i|
    qj = br_j * 2.0 * math.pi * a * a * b
    d0, d1, d2 = cj[0] - ci[0], cj[1] - ci[1], cj[2] - ci[2]
    r = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    u0, u1, u2 = d0 / r, d1 / r, d2 / r
    ui = ni[0] * u0 + ni[1] * u1 + ni[2] * u2
    uj = nj[0] * u0 + nj[1] * u1 + nj[2] * u2
    ij = ni[0] * nj[0] + ni[1] * nj[1] + ni[2] * nj[2]
    s = 3.0 * qi * qj / (4.0 * math.pi * MU0 * r ** 4)
    fx = s * (ui * nj[0] + uj * ni[0] + (ij - 5.0 * ui * uj) * u0)
    fy = s * (ui * nj[1] + uj * ni[1] + (ij - 5.0 * ui * uj) * u1)
    fz = s * (ui * nj[2] + uj * ni[2] + (ij - 5.0 * ui * uj) * u2)
    h = qi / (4.0 * math.pi * r ** 3)                 # B_i(c_j) = h (3 ui u - ni)
    bx, by, bz = h * (3.0 * ui * u0 - ni[0]), h * (3.0 * ui * u1 - ni[1]), h * (3.0 * ui * u2 - ni[2])
    mj = qj / MU0
    tx = mj * (nj[1] * bz - nj[2] * by)
    ty = mj * (nj[2] * bx - nj[0] * bz)
    tz = mj * (nj[0] * by - nj[1] * bx)
    _write_balanced(ci, cj, fx, fy, fz, tx, ty, tz, out)


@njit(cache=True)
def _blend_into(w, first, second, out):
    """out = (1 - w)·first + w·second (each balanced, so the blend is too)."""
    for k in range(9):
        out[k] = (1.0 - w) * first[k] + w * second[k]


@njit(cache=True)
def _near_rule(k):
    return NEAR_RULES[NEAR_RULE_STARTS[k]:NEAR_RULE_STARTS[k + 1]]


@njit(cache=True)
def _near_pair(ci, ni, cj, nj, a, b, br_i, br_j, out):
    """Closed-form field of i on j's faces; the rule is picked (and blended with
    the next sparser one across a band) by the edge gap."""
    g = edge_gap(ci, ni, cj, nj, a, b) / a
    k = 0
    while k < EDGE_GAP_EDGES.shape[0] and g >= EDGE_GAP_EDGES[k, 1]:
        k += 1
    if k == EDGE_GAP_EDGES.shape[0] or g <= EDGE_GAP_EDGES[k, 0]:
        _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, _near_rule(k), True, out)
        return
    first = np.empty(9)
    second = np.empty(9)
    _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, _near_rule(k), True, first)
    _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, _near_rule(k + 1), True, second)
    _blend_into(_smoothstep(g, EDGE_GAP_EDGES[k, 0], EDGE_GAP_EDGES[k, 1]), first, second, out)


@njit(cache=True)
def _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, out):
    _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, RULE_FAR, False, out)


@njit(cache=True)
def pair_force_torque(ci, ni, cj, nj, radius, thickness, br_i, br_j, out):
    """Magnetic interaction of magnet i on magnet j (and back).

    ci, cj: float64[3] magnet centres (m); ni, nj: float64[3] unit axes pointing
    to the North face; radius, thickness: magnet cylinder radius and thickness
    (m), the same for all discs; br_i, br_j: remanence (T) of each (>= 0; a sign
    flip of the axis is a flip of polarity); out: float64[9] written with
    F_on_j[3], T_on_i[3] (about ci), T_on_j[3] (about cj), in N and N·m.
    Force on i is -F_on_j exactly."""
    a = radius
    b = 0.5 * thickness
    diameter = 2.0 * radius
    d = math.sqrt((cj[0] - ci[0]) ** 2 + (cj[1] - ci[1]) ** 2 + (cj[2] - ci[2]) ** 2) / diameter
    if d >= DIPOLE_DISTANCE[1]:
        _dipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, out)
    elif d >= DIPOLE_DISTANCE[0]:
        first = np.empty(9)
        second = np.empty(9)
        _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, first)
        _dipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, second)
        _blend_into(_smoothstep(d, DIPOLE_DISTANCE[0], DIPOLE_DISTANCE[1]), first, second, out)
    elif d >= MULTIPOLE_DISTANCE[1]:
        _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, out)
    elif d >= MULTIPOLE_DISTANCE[0]:
        first = np.empty(9)
        second = np.empty(9)
        _near_pair(ci, ni, cj, nj, a, b, br_i, br_j, first)
        _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, second)
        _blend_into(_smoothstep(d, MULTIPOLE_DISTANCE[0], MULTIPOLE_DISTANCE[1]), first, second, out)
    else:
        _near_pair(ci, ni, cj, nj, a, b, br_i, br_j, out)


def pair_force_torque_py(ci, ni, cj, nj, radius, thickness, br_i, br_j):
    """Convenience for tests: (F_on_j, T_on_i, T_on_j) as three float64[3] arrays."""
    out = np.empty(9)
    pair_force_torque(
        np.asarray(ci, dtype=np.float64), np.asarray(ni, dtype=np.float64),
        np.asarray(cj, dtype=np.float64), np.asarray(nj, dtype=np.float64),
        float(radius), float(thickness), float(br_i), float(br_j), out,
    )
    return out[0:3].copy(), out[3:6].copy(), out[6:9].copy()
