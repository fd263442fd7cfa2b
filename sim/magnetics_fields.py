"""The field of one disc magnet (a uniformly, axially magnetised cylinder).

The magnet is two uniformly charged faces: surface magnetic charge +Br/μ0 on
the North face, -Br/μ0 on the South face; outside the magnet B = μ0·H of
those charges.  Everything here is per source magnet, in its own frame:
centre c (float64[3], m), unit axis n towards North, radius a and half
thickness b (m), remanence br (T).  Fields are in tesla.

- ``cylinder_field_local(rho, z, a, b, br)``: exact (B_rho, B_z) at cylindrical
  coordinates (rho, z) relative to the centre, from Derby & Olbert (2010),
  eqs. for a finite solenoid, with Bulirsch's ``cel``.  Four ``cel`` calls.
- ``cylinder_field_at(p, c, n, a, b, br)``: the same at a world point p
  (3-tuples in and out; ``cylinder_field`` is its array form for tests).
- ``cylinder_potential_local(rho, z, a, b, br)``: the scalar potential psi
  (T·m) with B = -grad psi outside the magnet: the two faces' charged-disc
  potentials, each in closed form with K, E and Pi (Durand's result; checked
  against direct quadrature in the tests), one ``cel_pair`` descent per face.
  A target charge q (A·m) there has the energy q·psi, as its force is q·B.
- ``multipole_moments(a, b, br)`` and ``multipole_field_at(p, c, n, q1, q3, q5)``:
  the far-field expansion in axial multipoles l = 1, 3, 5 (the even ones vanish
  by symmetry), B = (1/4π) Σ Q_l [((l+1)P_l + u P_l') r̂ - P_l' n] / r^(l+2),
  u = r̂·n; Q_1 = br·V is μ0 times the dipole moment.  Relative error of the
  truncation ~ (a/r)^6; valid only well outside the magnet (r >> a).
  ``multipole_potential_at``: their psi = (1/4π) Σ Q_l P_l(u) / r^(l+1).

Points exactly on a rim edge are a logarithmic singularity; the modulus is
clamped there (the plastic shells keep magnets apart, so it is never met).
Inside the source magnet they return the equivalent solenoid's B (B_z jumps
by Br across the side surface); nothing reads them there.
"""

from __future__ import annotations

import math

from sim.elliptic import cel_pair
from sim.jit import kernel
from sim.magnetics_vec import axpy, dot, norm, scale, sub, vec

_KC_MIN = 1e-12          # clamp of the complementary modulus at a rim edge
_RHO_AXIS = 1e-15        # below this (m) a point is on the axis: B_rho = 0
_INV_4PI = 1.0 / (4.0 * math.pi)


@kernel
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


@kernel
def _disc_potential(rho, zeta, a):
    """∫ dA' / |r - r'| over a unit-density disc of radius a, at (rho, zeta)
    from its centre (m): 2 [s E(k) + (a² - rho²)/s K(k) + γ zeta²/s Π(n, k)]
    - 2π|zeta| inside the rim's cylinder (half of it on it), s² = (a + rho)²
    + zeta², k² = 4 a rho / s², γ = (a - rho)/(a + rho), 1 - n = γ²."""
    ap = a + rho
    am = a - rho
    z2 = zeta * zeta
    s = math.sqrt(ap * ap + z2)
    kc = max(math.sqrt((am * am + z2) / (ap * ap + z2)), _KC_MIN)
    gamma = am / ap
    c_k = (a * a - rho * rho) / s
    lam = gamma * z2 / s
    ek, pi = cel_pair(kc, 1.0, s + c_k, s * kc * kc + c_k, gamma * gamma, lam, lam)
    value = 2.0 * (ek + pi)
    if rho < a:
        value -= 2.0 * math.pi * abs(zeta)
    elif rho == a:
        value -= math.pi * abs(zeta)
    return value


@kernel
def cylinder_potential_local(rho, z, a, b, br):
    """psi (T·m) of a magnet at (rho, z) in its own frame: B = -grad psi outside it."""
    return br * _INV_4PI * (_disc_potential(rho, z - b, a) - _disc_potential(rho, z + b, a))


@kernel(inline="always")
def to_cylindrical(p, c, n):
    """World point p in the frame of the magnet (c, n): (radial vector r, rho = |r|, z)."""
    d = sub(p, c)
    z = dot(d, n)
    r = axpy(-z, n, d)
    return r, norm(r), z


@kernel(inline="always")
def from_cylindrical(b_rho, b_z, r, rho, n):
    """The world vector of field components (b_rho, b_z) at the point of ``to_cylindrical``."""
    s = b_rho / rho if rho > _RHO_AXIS else 0.0
    return axpy(s, r, scale(b_z, n))


@kernel
def cylinder_field_at(p, c, n, a, b, br):
    """Exact B (T) at world point p of the magnet (c, n); 3-tuples in and out."""
    r, rho, z = to_cylindrical(p, c, n)
    b_rho, b_z = cylinder_field_local(rho, z, a, b, br)
    return from_cylindrical(b_rho, b_z, r, rho, n)


@kernel
def multipole_moments(a, b, br):
    """(Q1, Q3, Q5): br × ∫ over both faces of the solid harmonics r^l P_l (T·m^(l+2))."""
    area2 = 2.0 * math.pi * a * a     # both faces; the odd harmonics add
    a2 = a * a
    b2 = b * b
    q1 = br * area2 * b
    q3 = br * area2 * b * (b2 - 0.75 * a2)
    q5 = br * area2 * b * (b2 * b2 - 2.5 * b2 * a2 + 0.625 * a2 * a2)
    return q1, q3, q5


@kernel(inline="always")
def _legendre_at(p, c, n):
    """(d = p - c, 1/|d|, u = cos of d's angle to n, u², P3(u), P5(u))."""
    d = sub(p, c)
    inv_r = 1.0 / norm(d)
    u = dot(d, n) * inv_r
    u2 = u * u
    p3 = 0.5 * (5.0 * u2 - 3.0) * u
    p5 = 0.125 * ((63.0 * u2 - 70.0) * u2 + 15.0) * u
    return d, inv_r, u, u2, p3, p5


@kernel(inline="always")
def multipole_field_at(p, c, n, q1, q3, q5):
    """B (T) at p of axial multipoles Q1, Q3, Q5 at c on axis n; 3-tuples in and out."""
    d, inv_r, u, u2, p3, p5 = _legendre_at(p, c, n)
    dp3 = 0.5 * (15.0 * u2 - 3.0)
    dp5 = 0.125 * ((315.0 * u2 - 210.0) * u2 + 15.0)
    inv_r2 = inv_r * inv_r
    s1 = q1 * inv_r2 * inv_r
    s3 = q3 * inv_r2 * inv_r2 * inv_r
    s5 = q5 * inv_r2 * inv_r2 * inv_r2 * inv_r
    radial = _INV_4PI * (3.0 * u * s1 + s3 * (4.0 * p3 + u * dp3) + s5 * (6.0 * p5 + u * dp5))
    axial = -_INV_4PI * (s1 + s3 * dp3 + s5 * dp5)
    return axpy(radial * inv_r, d, scale(axial, n))


@kernel(inline="always")
def multipole_potential_at(p, c, n, q1, q3, q5):
    """psi (T·m) at p of the multipoles of ``multipole_field_at`` (B = -grad psi)."""
    _, inv_r, u, _, p3, p5 = _legendre_at(p, c, n)
    inv_r2 = inv_r * inv_r
    return _INV_4PI * inv_r2 * (q1 * u + inv_r2 * (q3 * p3 + inv_r2 * q5 * p5))


def cylinder_field(p, c, n, a, b, br, out):
    """Array form of ``cylinder_field_at`` (for tests): B written to out[3]."""
    out[:] = cylinder_field_at(vec(p), vec(c), vec(n), a, b, br)


def multipole_field(p, c, n, q1, q3, q5, out):
    """Array form of ``multipole_field_at`` (for tests): B written to out[3]."""
    out[:] = multipole_field_at(vec(p), vec(c), vec(n), q1, q3, q5)
