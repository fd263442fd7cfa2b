"""The field of one disc magnet (a uniformly, axially magnetised cylinder).

The magnet is two uniformly charged faces: surface magnetic charge +Br/μ0 on
the North face, -Br/μ0 on the South face; outside the magnet B = μ0·H of
those charges.  Everything here is per source magnet, in its own frame:
centre c (float64[3], m), unit axis n towards North, radius a and half
thickness b (m), remanence br (T).  Fields are in tesla.

- ``cylinder_field_local(rho, z, a, b, br)``: exact (B_rho, B_z) at cylindrical
  coordinates (rho, z) relative to the centre, from Derby & Olbert (2010),
  eqs. for a finite solenoid, with Bulirsch's ``cel``.  Four ``cel`` calls.
- ``cylinder_field(p, c, n, a, b, br, out)``: the same at a world point p.
- ``multipole_moments(a, b, br)`` and ``multipole_field(p, c, n, q1, q3, q5, out)``:
  the far-field expansion in axial multipoles l = 1, 3, 5 (the even ones vanish
  by symmetry), B = (1/4π) Σ Q_l [((l+1)P_l + u P_l') r̂ - P_l' n] / r^(l+2),
  u = r̂·n; Q_1 = br·V is μ0 times the dipole moment.  Relative error of the
  truncation ~ (a/r)^6; valid only well outside the magnet (r >> a).
- ``dipole_field(p, c, n, q1, out)``: the l = 1 term alone.

Points exactly on a rim edge are a logarithmic singularity; the modulus is
clamped there (the plastic shells keep magnets apart, so it is never met).
Inside the source magnet these functions return μ0·H, not B.
"""

from __future__ import annotations

import math

from numba import njit

from sim.elliptic import cel_pair

_KC_MIN = 1e-12          # clamp of the complementary modulus at a rim edge
_RHO_AXIS = 1e-15        # below this (m) a point is on the axis: B_rho = 0
_INV_4PI = 1.0 / (4.0 * math.pi)


@njit(cache=True)
def cylinder_field_local(rho, z, a, b, br):
    """Exact (B_rho, B_z) in T of a magnet at (rho, z) in its own frame."""
    b0 = br / math.pi
    zp = z + b
    zm = z - b
    ap = a + rho
    am = a - rho
    ap2 = ap * ap
    am2 = am * am
    dp = math.sqrt(zp * zp + ap2)
    dm = math.sqrt(zm * zm + ap2)
    kp = max(math.sqrt((zp * zp + am2) / (zp * zp + ap2)), _KC_MIN)
    km = max(math.sqrt((zm * zm + am2) / (zm * zm + ap2)), _KC_MIN)
    gamma = am / ap
    g2 = gamma * gamma
    rho_p, z_p = cel_pair(kp, 1.0, 1.0, -1.0, g2, 1.0, gamma)
    rho_m, z_m = cel_pair(km, 1.0, 1.0, -1.0, g2, 1.0, gamma)
    b_rho = b0 * a * (rho_p / dp - rho_m / dm)
    b_z = b0 * a / ap * (zp / dp * z_p - zm / dm * z_m)
    return b_rho, b_z


@njit(cache=True)
def cylinder_field(p, c, n, a, b, br, out):
    """Exact B (T) at world point p of the magnet (c, n); written to out[3]."""
    out[0], out[1], out[2] = cylinder_field_xyz(p[0], p[1], p[2], c, n, a, b, br)


@njit(cache=True)
def cylinder_field_xyz(px, py, pz, c, n, a, b, br):
    """Exact (Bx, By, Bz) in T at world point (px, py, pz) of the magnet (c, n)."""
    d0 = px - c[0]
    d1 = py - c[1]
    d2 = pz - c[2]
    z = d0 * n[0] + d1 * n[1] + d2 * n[2]
    r0 = d0 - z * n[0]
    r1 = d1 - z * n[1]
    r2 = d2 - z * n[2]
    rho = math.sqrt(r0 * r0 + r1 * r1 + r2 * r2)
    b_rho, b_z = cylinder_field_local(rho, z, a, b, br)
    if rho > _RHO_AXIS:
        s = b_rho / rho
    else:
        s = 0.0
    return s * r0 + b_z * n[0], s * r1 + b_z * n[1], s * r2 + b_z * n[2]


@njit(cache=True)
def multipole_moments(a, b, br):
    """(Q1, Q3, Q5): br × ∫ over both faces of the solid harmonics r^l P_l (T·m^(l+2))."""
    area2 = 2.0 * math.pi * a * a     # both faces; the odd harmonics add
    a2 = a * a
    b2 = b * b
    q1 = br * area2 * b
    q3 = br * area2 * b * (b2 - 0.75 * a2)
    q5 = br * area2 * b * (b2 * b2 - 2.5 * b2 * a2 + 0.625 * a2 * a2)
    return q1, q3, q5


@njit(cache=True)
def multipole_field(p, c, n, q1, q3, q5, out):
    """B (T) at p of axial multipoles Q1, Q3, Q5 at c on axis n; written to out[3]."""
    out[0], out[1], out[2] = multipole_field_xyz(p[0], p[1], p[2], c, n, q1, q3, q5)


@njit(cache=True)
def multipole_field_xyz(px, py, pz, c, n, q1, q3, q5):
    """(Bx, By, Bz) in T at (px, py, pz) of axial multipoles Q1, Q3, Q5 at c on axis n."""
    d0 = px - c[0]
    d1 = py - c[1]
    d2 = pz - c[2]
    r = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    inv_r = 1.0 / r
    u = (d0 * n[0] + d1 * n[1] + d2 * n[2]) * inv_r
    u2 = u * u
    p1 = u
    p3 = 0.5 * (5.0 * u2 - 3.0) * u
    p5 = 0.125 * ((63.0 * u2 - 70.0) * u2 + 15.0) * u
    dp3 = 0.5 * (15.0 * u2 - 3.0)
    dp5 = 0.125 * ((315.0 * u2 - 210.0) * u2 + 15.0)
    inv_r2 = inv_r * inv_r
    s1 = q1 * inv_r2 * inv_r
    s3 = q3 * inv_r2 * inv_r2 * inv_r
    s5 = q5 * inv_r2 * inv_r2 * inv_r2 * inv_r
    radial = _INV_4PI * (s1 * (2.0 * p1 + u) + s3 * (4.0 * p3 + u * dp3) + s5 * (6.0 * p5 + u * dp5))
    axial = -_INV_4PI * (s1 + s3 * dp3 + s5 * dp5)
    radial *= inv_r
    return radial * d0 + axial * n[0], radial * d1 + axial * n[1], radial * d2 + axial * n[2]


@njit(cache=True)
def dipole_field(p, c, n, q1, out):
    """B (T) at p of a point dipole μ0·m = q1·n at c; written to out[3]."""
    multipole_field(p, c, n, q1, 0.0, 0.0, out)
