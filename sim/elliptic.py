"""Bulirsch's generalised complete elliptic integral ``cel``, in numba.

    cel(kc, p, c, s) = ∫_0^{π/2} (c cos²φ + s sin²φ)
                        / ((cos²φ + p sin²φ) · sqrt(cos²φ + kc² sin²φ)) dφ

One function covers the complete integrals of the first, second and third
kind: K(k) = cel(kc, 1, 1, 1), E(k) = cel(kc, 1, 1, kc²),
Π(n, k) = cel(kc, 1 - n, 1, 1), with kc² = 1 - k².  It is what the closed-form
field of a uniformly magnetised cylinder needs (Derby & Olbert, "Cylindrical
magnets and ideal solenoids", Am. J. Phys. 78, 229 (2010)).

Algorithm: R. Bulirsch, "Numerical calculation of elliptic integrals and
elliptic functions. III", Numer. Math. 13, 305-315 (1969): a transformation
for p <= 0, then a Gauss/Landen (arithmetic-geometric mean) iteration that
converges quadratically (4-6 rounds to double precision for the moduli met
here).  Written here from the published description.

Domain: kc != 0 (kc = 0 is the logarithmic singularity of K at k = 1; callers
clamp kc away from 0), p != 0.  Units: dimensionless.
"""

from __future__ import annotations

import math

from sim.jit import kernel


_TOLERANCE = 1e-6    # relative; the error after the last round is ~ tolerance²
_HALF_PI = 0.5 * math.pi


@kernel
def _start(kc, p, c, s):
    """Bulirsch's starting values (pp, cc, ss) of one integral; for p <= 0
    his transformation of the integrand to a positive parameter."""
    if p > 0.0:
        pp = math.sqrt(p)
        return pp, c, s / pp
    f = kc * kc
    q = 1.0 - f
    g = 1.0 - p
    f = f - p
    q = q * (s - c * p)
    pp = math.sqrt(f / g)
    cc = (c - s) / g
    return pp, cc, -q / (g * g * pp) + cc * pp


@kernel
def cel(kc, p, c, s):
    """Generalised complete elliptic integral cel(kc, p, c, s) (see module)."""
    k = abs(kc)
    em = 1.0
    pp, cc, ss = _start(kc, p, c, s)
    # Gauss/Landen descent; kk carries the running product used for the next modulus.
    f = cc
    cc = cc + ss / pp
    g = k / pp
    ss = 2.0 * (ss + f * g)
    pp = g + pp
    g = em
    em = k + em
    kk = k
    while abs(g - k) > g * _TOLERANCE:
        k = 2.0 * math.sqrt(kk)
        kk = k * em
        f = cc
        cc = cc + ss / pp
        g = kk / pp
        ss = 2.0 * (ss + f * g)
        pp = g + pp
        g = em
        em = k + em
    return _HALF_PI * (ss + cc * em) / (em * (em + pp))


@kernel
def cel_pair(kc, p1, c1, s1, p2, c2, s2):
    """(cel(kc, p1, c1, s1), cel(kc, p2, c2, s2)) in one descent: the modulus
    sequence depends on kc only, so the two integrals share its square roots."""
    k = abs(kc)
    pa, ca, sa = _start(kc, p1, c1, s1)
    pb, cb, sb = _start(kc, p2, c2, s2)
    em = 1.0
    kk = k
    while True:
        f = ca
        ca = ca + sa / pa
        g = kk / pa
        sa = 2.0 * (sa + f * g)
        pa = g + pa
        f = cb
        cb = cb + sb / pb
        g = kk / pb
        sb = 2.0 * (sb + f * g)
        pb = g + pb
        g = em
        em = k + em
        if abs(g - k) <= g * _TOLERANCE:
            break
        k = 2.0 * math.sqrt(kk)
        kk = k * em
    scale = _HALF_PI / em
    return scale * (sa + ca * em) / (em + pa), scale * (sb + cb * em) / (em + pb)
