"""Elementary functions that give the same bits on every machine.

Why: a game of Polarity is chaotic — one last-bit difference in a hand's noise
or a rim point grows into another game. IEEE 754 fixes +, -, *, / and sqrt to
the bit, but not sin, cos, exp, log or pow: the C library picks an
implementation by CPU at load time (glibc runs FMA builds of them where the
CPU has FMA: measured here, a standard short game came out different with
``GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA``), numpy's array sin/cos/exp
run SIMD code chosen by CPU (AVX-512 paths on some machines only), other
systems ship other libraries, and numpy's normal generator calls the C
library's exp and log. Numba itself compiles + - * / without fusing them
(measured: ``NUMBA_CPU_NAME=generic`` plays the same games bit for bit).

So everything that decides an outcome (sim, rules) computes its elementary
functions here, from + - * / and sqrt alone: Cody-Waite argument reduction
and Taylor polynomials long enough for double precision on the reduced range
(within 2 ulp of glibc for sin, cos and exp, 3 for log, 6 for atan2, 8 for
acos, 32 for power = exp(y log x): the bounds the tests hold). They
are ``register_jitable``: numba compiles them into the jitted code that calls
them, and a call from Python runs the same operations as plain Python (~1-3
us a call; no numba start-up at import, which costs ~0.7 s), bit for bit the
same (tested); so are ``hypot`` and ``norm`` (+ * and sqrt alone, for
``sim.state``'s compiled reading). Accuracy against the C library is
tested (``tests/test_detmath.py``); so is the point of the module: games
played with the C library's FMA code switched off, and with numpy's SIMD
dispatch switched off, are bit-identical to the default.

Domain: arguments met in the simulation (angles of at most a few thousand
radians; exp of -700..700; positive arguments of log and power). Outside it the
results stay deterministic but lose accuracy.

``normals(rng, n)`` draws standard normal deviates from a numpy generator's
uniform doubles (Box-Muller), replacing ``Generator.normal``.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
from numba.extending import register_jitable

_PI_DIGITS = "3.14159265358979323846264338327950288419716939937510582097494"
_LN2_DIGITS = "0.693147180559945309417232121458176568075500134360255254120680"


def _split(value: Decimal, keep_bits: int) -> tuple[float, float, float]:
    """value = hi + mid + lo with hi and mid of ``keep_bits`` significant bits,
    so k * hi and k * mid are exact for |k| < 2**(53 - keep_bits)."""
    parts = []
    rest = value
    for _ in range(2):
        m, e = math.frexp(float(rest))
        part = math.ldexp(math.floor(math.ldexp(m, keep_bits)), e - keep_bits)
        parts.append(part)
        rest = rest - Decimal(part)
    parts.append(float(rest))
    return parts[0], parts[1], parts[2]


with localcontext() as _ctx:  # 60 digits for the constants, without touching the caller's context
    _ctx.prec = 60
    _PI, _LN2 = Decimal(_PI_DIGITS), Decimal(_LN2_DIGITS)
    _PIO2_1, _PIO2_2, _PIO2_3 = _split(_PI / 2, 33)
    _LN2_HI = _split(_LN2, 32)[0]
    _LN2_LO = float(_LN2 - Decimal(_LN2_HI))
    _TWO_OVER_PI = float(2 / _PI)
    _INV_LN2 = float(1 / _LN2)
    PI = float(_PI)
    _PI_LO = float(_PI - Decimal(PI))
    _HALF_PI = float(_PI / 2)
    _HALF_PI_LO = float(_PI / 2 - Decimal(_HALF_PI))
_SQRT_HALF = math.sqrt(0.5)

# Taylor coefficients: sin r = r (1 + r^2 S(r^2)), cos r = 1 + r^2 C(r^2)
# on |r| <= pi/4 (terms to r^17 and r^20: the next ones < 2^-62 there)
_S = tuple((-1.0) ** (k + 1) / math.factorial(2 * k + 3) for k in range(8))
_C = tuple((-1.0) ** (k + 1) / math.factorial(2 * k + 2) for k in range(10))
# exp r = sum r^k / k! on |r| <= ln2/2 (to r^14)
_E = tuple(1.0 / math.factorial(k) for k in range(15))
# atan t = t + t^3 A(t^2), A = -1/3 + t^2/5 - ... on |t| <= tan(pi/16) (to t^23)
_A = tuple((-1.0) ** k / (2 * k + 1) for k in range(1, 12))
# log m = 2 (s + s^3 L(s^2)), L = 1/3 + s^2/5 + ..., s = (m-1)/(m+1), |s| <= 0.1716 (to s^23)
_L = tuple(1.0 / (2 * k + 1) for k in range(1, 12))
# sinh x = x + x^3 H(x^2), H = 1/3! + x^2/5! + ... on |x| < 0.5 (to x^15: next term < 2^-60 x)
_H = tuple(1.0 / math.factorial(2 * k + 3) for k in range(7))


@register_jitable
def _horner(z, coeffs):
    """coeffs[0] + coeffs[1] z + coeffs[2] z^2 + ..., by Horner's rule (from the highest power down)."""
    p = coeffs[len(coeffs) - 1]
    for k in range(len(coeffs) - 2, -1, -1):
        p = p * z + coeffs[k]
    return p


@register_jitable
def _sin_poly(r):
    z = r * r
    return r + r * (z * _horner(z, _S))


@register_jitable
def _cos_poly(r):
    z = r * r
    return 1.0 + z * _horner(z, _C)


@register_jitable
def sincos(x):
    """(sin x, cos x)."""
    k = math.floor(x * _TWO_OVER_PI + 0.5)
    r = ((x - k * _PIO2_1) - k * _PIO2_2) - k * _PIO2_3
    s, c = _sin_poly(r), _cos_poly(r)
    q = int(k) & 3
    if q == 0:
        return s, c
    if q == 1:
        return c, -s
    if q == 2:
        return -s, -c
    return -c, s


@register_jitable
def sin(x):
    return sincos(x)[0]


@register_jitable
def cos(x):
    return sincos(x)[1]


@register_jitable
def tan(x):
    s, c = sincos(x)
    return s / c


@register_jitable
def _atan_unit(t):
    """atan t for 0 <= t <= 1: two half-angle steps bring t below tan(pi/16)."""
    t = t / (1.0 + math.sqrt(1.0 + t * t))
    t = t / (1.0 + math.sqrt(1.0 + t * t))
    z = t * t
    p = _horner(z, _A)
    return 4.0 * (t + t * (z * p))


@register_jitable
def atan2(y, x):
    """The angle of (x, y) in (-pi, pi], with the C library's signs for zeros."""
    ay, ax = abs(y), abs(x)
    if ax == 0.0 and ay == 0.0:
        a = 0.0 if x >= 0.0 and math.copysign(1.0, x) > 0 else PI
    elif ay <= ax:
        a = _atan_unit(ay / ax)
        if x < 0.0:
            a = (PI - a) + _PI_LO
    else:
        a = (_HALF_PI - _atan_unit(ax / ay)) + _HALF_PI_LO
        if x < 0.0:
            a = (PI - a) + _PI_LO
    return math.copysign(a, y)


@register_jitable
def atan(x):
    return atan2(x, 1.0)


@register_jitable
def acos(x):
    """arccos on [-1, 1] (arguments outside are clamped)."""
    x = min(1.0, max(-1.0, x))
    return atan2(math.sqrt((1.0 - x) * (1.0 + x)), x)


@register_jitable
def exp(x):
    if x > 709.78:
        return math.inf
    if x < -745.2:
        return 0.0
    k = math.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _horner(r, _E)
    return math.ldexp(p, int(k))


@register_jitable
def log(x):
    """Natural logarithm of x > 0 (nan below 0, -inf at 0)."""
    if x <= 0.0:
        return -math.inf if x == 0.0 else math.nan
    if math.isinf(x):
        return x
    m, e = math.frexp(x)
    if m < _SQRT_HALF:
        m *= 2.0
        e -= 1
    s = (m - 1.0) / (m + 1.0)
    z = s * s
    p = _horner(z, _L)
    return e * _LN2_HI + (e * _LN2_LO + 2.0 * (s + s * (z * p)))


@register_jitable
def power(x, y):
    """x ** y for x > 0 (exp(y log x): relative error ~ |y log x| ulp)."""
    if y == 0.0:
        return 1.0
    return exp(y * log(x))


@register_jitable
def sinh(x):
    ax = abs(x)
    if ax < 0.5:
        z = x * x
        return x + x * (z * _horner(z, _H))
    e = exp(ax)
    return math.copysign(0.5 * (e - 1.0 / e), x)


@register_jitable
def asinh(x):
    ax = abs(x)
    return math.copysign(log(ax + math.sqrt(ax * ax + 1.0)), x)


@register_jitable
def hypot(x, y):
    """sqrt(x^2 + y^2) in plain arithmetic (lengths in metres never overflow)."""
    return math.sqrt(x * x + y * y)


@register_jitable
def norm(v):
    """Euclidean length of a short vector, summed in order (``np.linalg.norm``
    goes through BLAS, whose kernels are chosen by CPU)."""
    total = 0.0
    for c in v:
        total += float(c) * float(c)
    return math.sqrt(total)


def normals(rng: np.random.Generator, n: int | None = None):
    """Standard normal deviates from ``rng``'s uniform doubles (Box-Muller):
    a float for ``n=None``, else an array of n. Uses ``2 * ceil(n / 2)``
    uniforms."""
    count = 1 if n is None else n
    u = rng.random(2 * ((count + 1) // 2))
    out = np.empty(len(u))
    for k in range(0, len(u), 2):
        r = math.sqrt(-2.0 * log(1.0 - u[k]))  # 1 - u in (0, 1]
        s, c = sincos(2.0 * PI * u[k + 1])
        out[k], out[k + 1] = r * c, r * s
    return float(out[0]) if n is None else out[:count]


def _legendre(n: int, x: float) -> tuple[float, float]:
    """P_n(x) and P_n'(x) by the three-term recurrence."""
    p0, p1 = 1.0, x
    for k in range(2, n + 1):
        p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
    return p1, (n * (x * p1 - p0) / (x * x - 1.0) if n > 1 else 1.0)


def gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes (ascending) and weights of the n-point Gauss-Legendre rule on
    [-1, 1], by Newton's method on the Legendre recurrence (numpy's
    ``leggauss`` solves an eigenproblem through LAPACK, CPU-chosen kernels)."""
    nodes, weights = np.empty(n), np.empty(n)
    for i in range(n):
        x = cos(PI * (i + 0.75) / (n + 0.5))
        for _ in range(100):
            p, dp = _legendre(n, x)
            step = p / dp
            x -= step
            if abs(step) < 1e-15:  # quadratic convergence: x is now exact to rounding
                break
        dp = _legendre(n, x)[1]
        nodes[n - 1 - i], weights[n - 1 - i] = x, 2.0 / ((1.0 - x * x) * dp * dp)
    return nodes, weights
