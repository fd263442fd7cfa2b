"""Magnetic force and torque between two disc magnets: the pair kernel.

Model (design note)
-------------------
Each magnet is a uniformly, axially magnetised cylinder (radius a, thickness
2b, remanence Br), equivalent to two uniformly charged faces with surface
magnetic charge ±Br/μ0 (North face +).  For a pair (i, j):

- the *source* i's field is the Derby & Olbert closed form (Bulirsch's
  ``cel``, ``sim.magnetics_fields``), read from its table (``sim.magnetics_table``:
  bilinear on a graded (rho, z) grid, within 0.1 % of the closed form outside
  the magnet, ~4× cheaper per point) unless the table is empty;
- the *target* j's two faces are sampled with an area-weighted polar rule
  (Gauss-Legendre in (rho/a)^2 × equal azimuths, azimuths measured from the
  direction towards i, so mirror-symmetric poses stay mirror-symmetric);
- F_on_j = Σ q_k B_i(r_k), T_on_j = Σ (r_k - c_j) × q_k B_i(r_k); then
  F_on_i = -F_on_j exactly and T_on_i = -(T_on_j + (c_j - c_i) × F_on_j), so
  linear and angular momentum balance to rounding.  F_on_j is the gradient of
  the sampled interaction energy (the force is conservative within a tier).

Why: a point dipole is ~90× too strong coaxially and ~5× too weak side by side
at 0.5 mm gap (magpylib), because near contact the charges near the rims
dominate.  The charge model is exact for uniform magnetisation; its only error
is the quadrature over j's faces, worst where a face of j passes close to a
rim edge of i (i's field there varies on the scale of that gap).

Tiers (per pair; neighbouring tiers are blended with a C1 smoothstep across a
band, so force and torque are continuous, and with the blend's work term, so
no energy is injected: Conservation):

===========  ==========================================  ========================
tier         used when                                   j's faces sampled with
===========  ==========================================  ========================
near, 4      edge gap g_e below 0.09 a | 0.25 a |        6×16 | 4×16 | 3×12 | 2×8
rules        0.55 a | beyond (bands 0.09-0.12,           (radii × azimuths per
             0.25-0.30, 0.55-0.65 a), centre distance    face)
             d < 1.75 D
multipole    1.75 D ≤ d < 8 D (blends 1.75-2 D, 8-10 D)  centre + ring of 6, in
                                                         i's axial multipoles
                                                         l = 1, 3, 5
dipole       d ≥ 10 D                                    point dipoles
===========  ==========================================  ========================

g_e ("edge gap", ``edge_gap``) is the distance from i's two rim circles to j's
two face discs; D = 2a.  The rules and bands are module constants.  It is
never less than the gap between the magnets' bounding spheres, so where that
gap is beyond the last band the sparsest rule is taken without computing g_e.
Since physics 0.17.0 (``converged_gap``) g_e is the least distance itself
(``_nearest_edge_gap``): each rim scanned at 12 points from the direction of
the face's centre (so any frame meets the same points), every minimum between
two samples refined by safeguarded Newton steps on the distance's slope, also
where the samples show a dip or their curvature a hidden pair of minima; rims
and faces that cannot be nearest are skipped by lower bounds. Against a brute
force scan it is within 1e-6 a at every band pose tried (1 miss in 40,000
poses, at 0.03 a, below the first band), ~0.8 us a pair against 0.43 us for
three projection rounds. Before (knob off, physics 0.16.0) three rounds of
alternating projection, which are not converged: they overestimate most band
poses, by up to ~0.4 a (Conservation).

Accuracy (``tests/test_physics_magnetics.py``; 25 × 4 mm, error = |ΔF|/|F|,
torque error over the pair's larger torque):
- against magpylib, coaxial / side by side / 45° leaner, gaps 0.5 mm to 4 D:
  worst 6.4 % (45°, 0.5 mm), ≤ 4 % from 0.9 mm, ≤ 1 % from 2.9 mm;
- random axes and directions against a converged 32 × 128 rule: worst ~10 %
  at 0.5-2 mm, ~5 % at 2-4 mm, ~2 % beyond (median below 1 %);
- multipole tier: field within 0.05 % at 2 D; dipole tier: truncation error
  ~ (a/d)^2, ~2 % at 8 D, ~1 % at 10 D (the blend band).

Conservation: the sampled energy E is a function of the pose, and the kernel
returns its gradient within a rule. j has no body-fixed azimuth: its samples
sit at angles from e (towards i), so E also depends on the frame's angle phi,
and dE/dphi = -T_j . n_j (turning the samples is spinning j under them). The
kernel adds -dE/dphi grad(phi) (``_frame_turn``): with d = c_i - c_j, u its
part in j's face plane and g = (n_j × u) / |u|^2, F_on_j + tau g and
T_on_j + tau d × g, tau = -T_j . n_j. The axial torque on j is then exactly 0,
as for any axially magnetised disc (the sampled one was quadrature error, up
to ~1 % of |F|·a), forces change by under 1 % (valid poses), and the work
around a closed loop of poses within one rule is rounding (~1e-7 of the gross
work with the closed-form field, ~1e-5 with its table; before physics 0.14.0
1e-4 to 2e-3 for a 45° pair 1-2.5 mm apart).

Across a blend (of two rules by edge gap, of two tiers by centre distance)
the energy is E = (1 - w) E_1 + w E_2, and its gradient has, beside the
blend of the two forces, the term -(E_2 - E_1) grad(w) (``_blend_work``;
``blend`` 1, physics 0.15.0). Each E is the sampled Σ q psi_i: i's scalar
potential (``sim.magnetics_fields``, closed form; read from the field
table beside the field), its multipoles' for the multipole tier, -m_j·B_i
for point dipoles; computed only inside a band. grad(w) of the centre
distance is exact. The edge gap's (physics 0.17.0): in j's translation from
the nearest points x, y, -(x - y)/g (the mean over minima that tie), in its
rotation by central differences of the converged gap over 1e-7 rad
(``_edge_gap_turn``: where a rim runs parallel over a face an arc of points
is nearest, and the differences take the mean of the kink's two slopes). A
unit vector that equals the gap's central differences within 1e-6
(``test_the_edge_gap_slope_of_the_blend_work_term_is_a_gradient``).
Physics 0.15.0-0.16.0 took central differences of the three projection
rounds (``_edge_gap_slope``, 12 evaluations): for a pair nearly coaxial
and tilted those rounds, started from the projection of the face's
centre on the rim, stop far from the nearest points (for a leaner
tumbling over its host, 8 deg apart and 0.26 mm off axis, 4.7-7.9 mm
where the gap is 4.5-4.6 mm), so the gap swings with the pose: |dg/dx| > 1
at ~7 % of random band poses, up to ~400, and there the term was a
spurious force (12 N against the pair's 1 N in that tumble). A loop of
poses through a band keeps under 3e-5 of the gross work with the
closed-form field and ~1e-4 with the table (physics 0.14.0: up to 1e-2 at
1.5 mm, 1e-3 at 3.4 and 7.5 mm; tests/test_physics_magnetics.py).
The frame-turn term fades in over ``FRAME_TURN_FADE`` (0.5-1 mm of i's centre from j's
axis): E's frame is undefined on the axis, where u turns round at once, and
the full term there (tau ~ |u|, so tau g keeps a finite size while its
direction jumps) slowed the settling of a tall tower, each disc near its
neighbours' axes: a 12-disc tower with a disc tilted beside it (far pairs
computed every step, sleep off) still had a tower disc at 4e-7 m/s after
3.5 s (1e-10 with the fade) and the tilted disc at 0.11 mm/s after 3 s
(tests/test_physics_conservation.py). Within 1 mm of the axis the
quadrature's axial torque stays, under ~1e-4 of |F|·a.

Cost per pair, one core (``benchmarks/bench_magnetics.py``, random poses,
2026-12-02, compiled as ``sim.jit`` kernels), with the field table / in
closed form: gap 0.5-1.5 mm 6.1 / 20 µs, 2-7 mm 3.0 / 9.1 µs, mixed below
one diameter 1.9 / 5.4 µs, multipole ~0.4 µs, dipole ~0.06 µs (with numba's
reference counting, 2026-12-01: 10.7 / 34, 5.4 / 15, 3.4 / 9.1, 0.8, 0.2).
The blends' work term (0.15.0) costs within the noise of these random poses
(session 31, runs alternating blend 0 and 1: near contact 9.1-13.3 against
10.2-10.4 µs); in games' episodes, where pairs dwell in bands, ~7 % of the
CPU. The shells keep real magnets ≥ ~2 mm apart.

Units: metres, tesla, newtons, newton-metres.  Arrays: centres and axes
float64[3]; ``out`` float64[9] = F_on_j, T_on_i (about c_i), T_on_j (about c_j).
Inside the kernels vectors are 3-tuples (``sim.magnetics_vec``).
Deterministic: fixed summation order, no fastmath.  Not meaningful for
overlapping magnets.
"""

from __future__ import annotations

import math

import numpy as np

from sim import detmath as dm
from sim.jit import kernel
from sim.magnetics_fields import multipole_field_at, multipole_moments, multipole_potential_at
from sim.magnetics_table import field_and_potential_at, field_at, field_table, no_table
from sim.magnetics_vec import add, axpy, cross, dot, in_plane, norm, scale, sub, vec
from sim.params import IDX, KERNEL_KNOB_NAMES

MU0 = 4e-7 * math.pi

# Near-field sampling rules of j's faces, densest first, and the edge gaps (in
# units of the radius a) where each hands over to the next: below EDGE_GAP_BANDS[k][0]
# rule k alone, across the band a blend of rules k and k + 1.
NEAR_RULE_SIZES = ((6, 16), (4, 16), (3, 12), (2, 8))       # (radii, azimuths) per face
EDGE_GAP_BANDS = ((0.09, 0.12), (0.25, 0.30), (0.55, 0.65))
# centre distance bands, in diameters: near rules -> multipoles -> point dipoles
MULTIPOLE_DISTANCE = (1.75, 2.0)
DIPOLE_DISTANCE = (8.0, 10.0)
# in-plane offsets of i from j's axis (m) across which the frame-turn term fades in (_frame_turn)
FRAME_TURN_FADE = (0.0005, 0.001)
# central-difference step of the edge gap's gradient: this share of a in translation, radians in rotation
EDGE_GAP_STEP = 1e-5
# the converged edge gap (``_nearest_edge_gap``): rim samples scanned before each
# minimum between two of them is refined, and the refinement's tolerance (rad)
GAP_SCAN = 12
GAP_TURN_STEP = 1e-7    # rad: central-difference step of the converged gap in the target's rotation (_edge_gap_turn)
GAP_TIE = 1e-12         # minima whose squared distances are this close (relative) are tied: their slopes averaged
GAP_PIECES = 4          # an interval that may hide a minimum (_may_hide_minimum) is scanned again in this many parts
GAP_TOLERANCE = 1e-9
_SCAN_COS = tuple(dm.cos(2.0 * math.pi * k / GAP_SCAN) for k in range(GAP_SCAN))
_SCAN_SIN = tuple(dm.sin(2.0 * math.pi * k / GAP_SCAN) for k in range(GAP_SCAN))
# the kernel's physics-version knobs, as one tuple ``knobs`` (PhysicsParams.kernel_knobs,
# KERNEL_KNOB_NAMES): frame_turn (0: physics 0.13.1), blend_work (0: physics 0.14.0),
# converged_gap (0: physics 0.16.0)
KERNEL_KNOBS = (1.0, 1.0, 1.0)
_KNOB_AT = tuple(IDX[name] for name in KERNEL_KNOB_NAMES)


def face_rule(n_rho, n_phi):
    """Rule for a unit disc: rows (rho/a, cos φ, sin φ, area fraction).

    Gauss-Legendre in t = (rho/a)^2 (area-uniform) × n_phi equal azimuths at
    φ = (k + 1/2)·2π/n_phi, mirror-symmetric about φ = 0."""
    t, wt = dm.gauss_legendre(n_rho)
    rho = np.sqrt(0.5 * (t + 1.0))
    phi = (np.arange(n_phi) + 0.5) * 2.0 * np.pi / n_phi
    rows = [(r, dm.cos(p), dm.sin(p), 0.5 * w / n_phi) for r, w in zip(rho, wt) for p in phi]
    return np.array(rows, dtype=np.float64)


def centre_ring_rule(n_phi=6):
    """Centre (1/4) + ring at rho = a·sqrt(2/3) (3/4): exact <rho^2> and <rho^4>,
    so the target's multipoles up to l = 5 are exact."""
    rows = [(0.0, 1.0, 0.0, 0.25)]
    r = math.sqrt(2.0 / 3.0)
    for k in range(n_phi):
        p = k * 2.0 * np.pi / n_phi
        rows.append((r, dm.cos(p), dm.sin(p), 0.75 / n_phi))
    return np.array(rows, dtype=np.float64)


NEAR_RULES = np.vstack([face_rule(*size) for size in NEAR_RULE_SIZES])   # all rules, stacked
NEAR_RULE_STARTS = np.cumsum([0] + [n * m for n, m in NEAR_RULE_SIZES])  # rule k: rows [k]..[k+1]
EDGE_GAP_EDGES = np.array(EDGE_GAP_BANDS, dtype=np.float64)
RULE_FAR = centre_ring_rule(6)


@kernel(inline="always")
def packed_knobs(P):
    """``PhysicsParams.kernel_knobs()`` from the packed parameters P."""
    return P[_KNOB_AT[0]], P[_KNOB_AT[1]], P[_KNOB_AT[2]]


@kernel
def dipole_moment(br, radius, thickness):
    """|m| = Br·V/μ0 (A·m²) of a disc magnet."""
    return br * math.pi * radius * radius * thickness / MU0


@kernel
def _smoothstep(x, lo, hi):
    """0 below lo, 1 above hi, C1 in between."""
    if x <= lo:
        return 0.0
    if x >= hi:
        return 1.0
    s = (x - lo) / (hi - lo)
    return s * s * (3.0 - 2.0 * s)


@kernel
def _perpendicular(n):
    """A unit vector perpendicular to the unit n, from its smallest component."""
    ax, ay, az = abs(n[0]), abs(n[1]), abs(n[2])
    if ax <= ay and ax <= az:
        h = (1.0, 0.0, 0.0)
    elif ay <= az:
        h = (0.0, 1.0, 0.0)
    else:
        h = (0.0, 0.0, 1.0)
    e = in_plane(h, n)
    return scale(1.0 / norm(e), e)


@kernel
def _target_frame(cs, ns, ct, nt):
    """Unit e, f spanning the target's face plane: e towards the source centre or,
    when the target's axis points at it, along the source's axis (both follow a
    rotation of the pair); for a coaxial pair any direction (all are equivalent)."""
    d = sub(cs, ct)
    e = in_plane(d, nt)
    length = norm(e)
    if length <= 1e-9 * norm(d):
        e = in_plane(ns, nt)
        length = norm(e)
        if length <= 1e-9:
            e = _perpendicular(nt)
            length = 1.0
    e = scale(1.0 / length, e)
    return e, cross(nt, e)


@kernel(inline="always")
def _to_circle(p, centre, n, a):
    """Nearest point to p on the circle (centre, normal n, radius a)."""
    v = in_plane(sub(p, centre), n)
    length = norm(v)
    if length <= 1e-12 * a:
        return axpy(a, _perpendicular(n), centre)
    return axpy(a / length, v, centre)


@kernel(inline="always")
def _to_disc(p, centre, m, a):
    """Nearest point to p on the disc (centre, normal m, radius a)."""
    v = in_plane(sub(p, centre), m)
    length = norm(v)
    if length > a:
        return axpy(a / length, v, centre)
    return add(centre, v)


@kernel(inline="always")
def _rim_to_face(cs, ns, ct, nt, a, zs, zt):
    """Distance from the source's rim circle at zs to the target's face disc at zt
    (m), by three rounds of alternating projection."""
    rim = axpy(zs, ns, cs)
    face = axpy(zt, nt, ct)
    x = _to_circle(face, rim, ns, a)
    for _ in range(3):
        x = _to_circle(_to_disc(x, face, nt, a), rim, ns, a)
    return norm(sub(x, _to_disc(x, face, nt, a)))


@kernel
def _edge_gap_sides(cs, ns, ct, nt, a, b):
    """(g, zs, zt): the distance from the source's two rim circles to the
    target's two faces (m), and the rim and face it is between."""
    best = math.inf
    best_zs = best_zt = b
    for zs in (b, -b):
        for zt in (b, -b):
            gap = _rim_to_face(cs, ns, ct, nt, a, zs, zt)
            if gap < best:
                best, best_zs, best_zt = gap, zs, zt
    return best, best_zs, best_zt


@kernel
def _edge_gap(cs, ns, ct, nt, a, b):
    """Distance from the source's two rim circles to the target's two faces (m)."""
    return _edge_gap_sides(cs, ns, ct, nt, a, b)[0]


@kernel
def _turned(n, axis, angle):
    """Unit n turned by a small angle about a unit axis (to first order, renormalised)."""
    m = axpy(angle, cross(axis, n), n)
    return scale(1.0 / norm(m), m)


@kernel
def _edge_gap_along(cs, ns, ct, nt, a, zs, zt, e):
    """Central differences of the rim-to-face distance (zs, zt) along the
    target's translation and rotation about the unit e: (dg/dx, dg/dtheta)."""
    h = EDGE_GAP_STEP * a
    t = EDGE_GAP_STEP
    push = (_rim_to_face(cs, ns, axpy(h, e, ct), nt, a, zs, zt)
            - _rim_to_face(cs, ns, axpy(-h, e, ct), nt, a, zs, zt)) / (2.0 * h)
    lever = (_rim_to_face(cs, ns, ct, _turned(nt, e, t), a, zs, zt)
             - _rim_to_face(cs, ns, ct, _turned(nt, e, -t), a, zs, zt)) / (2.0 * t)
    return push, lever


@kernel
def _edge_gap_slope(cs, ns, ct, nt, a, zs, zt):
    """d(edge gap)/d(the target's translation) and d/d(its rotation about its
    centre), the gap being between the rim at zs and the face at zt: by central
    differences of the distance the blend weight is of (its three projection
    rounds are not converged, so the nearest points' direction is off its
    gradient by up to ~2 %)."""
    px, lx = _edge_gap_along(cs, ns, ct, nt, a, zs, zt, (1.0, 0.0, 0.0))
    py, ly = _edge_gap_along(cs, ns, ct, nt, a, zs, zt, (0.0, 1.0, 0.0))
    pz, lz = _edge_gap_along(cs, ns, ct, nt, a, zs, zt, (0.0, 0.0, 1.0))
    lever = (lx, ly, lz)
    return (px, py, pz), in_plane(lever, nt)     # a face disc spun about its axis is the same disc


@kernel(inline="always")
def _rim_terms(rim, a, c, s):
    """(f, f', f''): the squared distance from the rim point at angle t (c, s =
    cos t, sin t) to the face disc, and its derivatives in t. ``rim``: the
    rim's centre and its two unit radii (at t = 0 and pi/2) in the face's frame,
    (h0, hu, hv, x0, xu, xv, y0, yu, yv): height over the face's plane, then the
    two in-plane coordinates. f = h^2 + max(rho - a, 0)^2 (rho: in-plane
    distance from the face's centre) is C1 where rho = a."""
    h0, hu, hv, x0, xu, xv, y0, yu, yv = rim
    hc, hs = a * (c * hu + s * hv), a * (c * hv - s * hu)
    h = h0 + hc
    f = h * h
    f1 = 2.0 * h * hs
    f2 = 2.0 * (hs * hs - h * hc)
    xc, xs = a * (c * xu + s * xv), a * (c * xv - s * xu)
    yc, ys = a * (c * yu + s * yv), a * (c * yv - s * yu)
    x, y = x0 + xc, y0 + yc
    rho = math.sqrt(x * x + y * y)
    if rho > a:
        r1 = (x * xs + y * ys) / rho
        r2 = (xs * xs + ys * ys - x * xc - y * yc - r1 * r1) / rho
        e = rho - a
        f += e * e
        f1 += 2.0 * e * r1
        f2 += 2.0 * (r1 * r1 + e * r2)
    return f, f1, f2


@kernel(inline="always")
def _false_position(lo, hi, g_lo, g_hi):
    """Where the line through (lo, g_lo) and (hi, g_hi) crosses 0; the midpoint
    where that is an end (g_hi = 0: a sample on a maximum between two minima,
    as in a mirror-symmetric pose)."""
    span = g_lo - g_hi
    if span < 0.0:                  # (0 once Illinois' halvings underflow)
        t = lo + (hi - lo) * g_lo / span
        if lo < t < hi:
            return t
    return 0.5 * (lo + hi)


@kernel
def _rim_minimum(rim, a, lo, hi, g_lo, g_hi):
    """(f, t): the minimum of ``_rim_terms``' f between rim angles lo < hi where
    f' goes from g_lo < 0 to g_hi >= 0, to ``GAP_TOLERANCE``: Newton's steps on
    f' while they land inside the shrinking bracket and at most half as long as
    the step before last, else a false-position step (Illinois: the end that
    keeps its place has its f' halved). Where the nearest point crosses the
    face's rim (rho = a) f'' jumps and Newton's steps alone would hop across it
    for ever."""
    t = _false_position(lo, hi, g_lo, g_hi)
    side = 0
    last = before = hi - lo
    for _ in range(60):
        s, c = dm.sincos(t)
        f, g, h = _rim_terms(rim, a, c, s)
        if g < 0.0:
            lo, g_lo = t, g
            if side < 0:
                g_hi *= 0.5
            side = -1
        else:
            hi, g_hi = t, g
            if side > 0:
                g_lo *= 0.5
            side = 1
        if hi - lo < GAP_TOLERANCE:
            break
        newton = t - g / h if h > 0.0 else lo
        if lo < newton < hi and 2.0 * abs(newton - t) <= before:
            before, last = last, abs(newton - t)
            t = newton
            if last < GAP_TOLERANCE:
                break
        else:
            step = _false_position(lo, hi, g_lo, g_hi)
            before, last = last, abs(step - t)
            t = step
    s, c = dm.sincos(t)
    return _rim_terms(rim, a, c, s)[0], t


@kernel
def _hidden_minimum(rim, a, lo, hi, f_lo, g_lo, f_hi, g_hi):
    """(f, t): a minimum between rim angles lo < hi where f' has the same sign at
    both ends but f shows a dip: falling from lo and ending above f(lo), or
    rising into hi from above f(hi). Halves the interval, keeping the half that
    still shows the dip, until f' changes sign (``_rim_minimum``)."""
    for _ in range(40):
        m = 0.5 * (lo + hi)
        s, c = dm.sincos(m)
        f_m, g_m, _ = _rim_terms(rim, a, c, s)
        if g_lo < 0.0:                      # falling from lo, f(hi) > f(lo)
            if g_m >= 0.0:
                return _rim_minimum(rim, a, lo, m, g_lo, g_m)
            if f_m > f_lo:
                hi, f_hi, g_hi = m, f_m, g_m
            else:
                lo, f_lo, g_lo = m, f_m, g_m
        else:                               # rising into hi, f(lo) > f(hi)
            if g_m < 0.0:
                return _rim_minimum(rim, a, m, hi, g_m, g_hi)
            if f_m > f_hi:
                lo, f_lo, g_lo = m, f_m, g_m
            else:
                hi, f_hi, g_hi = m, f_m, g_m
    return (f_lo, lo) if f_lo < f_hi else (f_hi, hi)


@kernel
def _interval_minimum(rim, a, lo, hi, f_lo, g_lo, f_hi, g_hi):
    """(f, t): a minimum of f between rim angles lo < hi that the ends' values
    f and slopes g = f' show (a sign change of f', ``_rim_minimum``; or a dip,
    ``_hidden_minimum``), or (inf, lo) if they show none."""
    if g_lo < 0.0 <= g_hi:
        return _rim_minimum(rim, a, lo, hi, g_lo, g_hi)
    if (g_lo < 0.0 and g_hi < 0.0 and f_hi > f_lo) or (g_lo >= 0.0 and g_hi > 0.0 and f_lo > f_hi):
        return _hidden_minimum(rim, a, lo, hi, f_lo, g_lo, f_hi, g_hi)
    return math.inf, lo


@kernel(inline="always")
def _may_hide_minimum(width, g_lo, h_lo, g_hi, h_hi):
    """True if f' (g, with f'' = h at the ends) keeps its sign at both ends of an
    interval but, followed from either end along its f'', would change it
    inside: a minimum and a maximum may hide there."""
    if g_lo >= 0.0 and g_hi > 0.0:
        return g_lo + h_lo * width < 0.0 or g_hi - h_hi * width < 0.0
    if g_lo < 0.0 and g_hi < 0.0:
        return g_lo + h_lo * width > 0.0 or g_hi - h_hi * width > 0.0
    return False


@kernel
def _subdivided_minimum(rim, a, lo, hi, f_lo, g_lo, f_hi, g_hi, pieces):
    """(f, t): the least minimum ``_interval_minimum`` finds in ``pieces`` equal
    parts of (lo, hi), or the least value at their ends."""
    best, best_t = (f_lo, lo) if f_lo < f_hi else (f_hi, hi)
    width = (hi - lo) / pieces
    for k in range(1, pieces + 1):
        t = lo + k * width
        if k == pieces:
            f, g = f_hi, g_hi
        else:
            s, c = dm.sincos(t)
            f, g, _ = _rim_terms(rim, a, c, s)
        low, at = _interval_minimum(rim, a, t - width, t, f_lo, g_lo, f, g)
        if f < best:
            best, best_t = f, t
        if low < best:
            best, best_t = low, at
        f_lo, g_lo = f, g
    return best, best_t


@kernel(inline="always")
def _rim_start(rim_centre, ns, face, nt, a):
    """The rim's radius at angle 0, towards the face's centre (along the
    target's axis if that centre is on the rim's axis): a direction fixed by
    the pair, so the scan meets the same rim points in any frame (and a pose
    mirror-symmetric about a plane through the rim's axis and the face's
    centre is scanned mirror-symmetrically)."""
    toward = in_plane(sub(face, rim_centre), ns)
    length = norm(toward)
    if length <= 1e-9 * a:
        toward = in_plane(nt, ns)
        length = norm(toward)
        if length <= 1e-9:
            return _perpendicular(ns)
    return scale(1.0 / length, toward)


@kernel(inline="always")
def _tie(best, total, count, f, side):
    """(least f, sum of the ``side``s of the candidates within ``GAP_TIE`` of it,
    their count), with the candidate (f, side) added."""
    if f < best * (1.0 - GAP_TIE):
        return f, side, 1
    return min(best, f), add(total, side), count + 1


@kernel(inline="always")
def _side(rim_centre, u, v, a, c, s, face, nt):
    """The unit vector from the face disc's nearest point to the rim point at
    angle t (c, s = cos t, sin t); 0 where they meet."""
    x = axpy(a * c, u, axpy(a * s, v, rim_centre))
    apart = sub(x, _to_disc(x, face, nt, a))
    length = norm(apart)
    if length == 0.0:
        return (0.0, 0.0, 0.0)
    return scale(1.0 / length, apart)


@kernel
def _rim_to_face_nearest(cs, ns, ct, nt, a, zs, zt):
    """(f, side, count): the squared distance from the source's rim circle at zs
    to the target's face disc at zt; the sum of the unit vectors from the face
    to the rim at the ``count`` nearest points (more than one where minima tie:
    a pose mirror-symmetric about a plane through the rim's axis). A scan of
    ``GAP_SCAN`` rim points (``_rim_start``), then each minimum between two of
    them refined: where f' changes sign from - to + (``_rim_minimum``), and
    where it keeps its sign but f shows a dip (``_hidden_minimum``) or may hide
    one (``_may_hide_minimum``). Converged, so the distance is a continuous
    function of the pose, smooth wherever one point is nearest."""
    rim_centre = axpy(zs, ns, cs)
    face = axpy(zt, nt, ct)
    u = _rim_start(rim_centre, ns, face, nt, a)
    v = cross(ns, u)
    e1 = _perpendicular(nt)
    e2 = cross(nt, e1)
    d = sub(rim_centre, face)
    rim = (dot(d, nt), dot(u, nt), dot(v, nt), dot(d, e1), dot(u, e1), dot(v, e1),
           dot(d, e2), dot(u, e2), dot(v, e2))
    best, total, count = math.inf, (0.0, 0.0, 0.0), 0
    least, least_k = math.inf, 0              # the least sample: the answer where no minimum is refined
    f_prev, g_prev, h_prev = _rim_terms(rim, a, _SCAN_COS[GAP_SCAN - 1], _SCAN_SIN[GAP_SCAN - 1])
    step = 2.0 * math.pi / GAP_SCAN
    for k in range(GAP_SCAN):
        f, g, h = _rim_terms(rim, a, _SCAN_COS[k], _SCAN_SIN[k])
        if f < least:
            least, least_k = f, k
        lo, hi = (k - 1) * step, k * step
        low, t = _interval_minimum(rim, a, lo, hi, f_prev, g_prev, f, g)
        if low == math.inf and _may_hide_minimum(step, g_prev, h_prev, g, h):
            low, t = _subdivided_minimum(rim, a, lo, hi, f_prev, g_prev, f, g, GAP_PIECES)
        if low < math.inf and low <= best * (1.0 + GAP_TIE):
            s, c = dm.sincos(t)
            best, total, count = _tie(best, total, count, low, _side(rim_centre, u, v, a, c, s, face, nt))
        f_prev, g_prev, h_prev = f, g, h
    if least < best * (1.0 - GAP_TIE):
        return least, _side(rim_centre, u, v, a, _SCAN_COS[least_k], _SCAN_SIN[least_k], face, nt), 1
    return best, total, count


@kernel(inline="always")
def _rim_to_face_bound(cs, ns, ct, nt, a, zs, zt, tilt):
    """A lower bound of the squared distance from the rim circle at zs to the face
    disc at zt, or inf where another rim or face is nearer: no rim point is nearer
    the face's plane than the rim's centre less a times the tilt between the two
    (|ns x nt|), nor nearer the face's centre within that plane than the rim
    centre's in-plane distance less a. A rim wholly on one side of the target's
    mid-plane is nearer the face on that side at each of its points; a face
    wholly on one side of the source's mid-plane is nearer the rim on that side."""
    rim, face = axpy(zs, ns, cs), axpy(zt, nt, ct)
    rim_side, face_side = dot(sub(rim, ct), nt), dot(sub(face, cs), ns)
    if (abs(rim_side) > a * tilt and rim_side * zt < 0.0) or (abs(face_side) > a * tilt and face_side * zs < 0.0):
        return math.inf
    d = sub(rim, face)
    lift = max(0.0, abs(dot(d, nt)) - a * tilt)
    wide = max(0.0, norm(in_plane(d, nt)) - 2.0 * a)
    return lift * lift + wide * wide


@kernel
def _nearest_edge_gap(cs, ns, ct, nt, a, b, reach):
    """(g, push, zs, zt): the edge gap (m) from converged nearest points, its
    gradient in the target's translation (from the nearest points x, y: the gap
    between fixed points moves as they do, so push = -(x - y) / g; where a rim
    runs parallel over a face an arc of points is nearest, all with the same
    x - y; where minima tie, the mean of theirs, as central differences would
    take), and the rim and face it is between. Rim-face pairs are taken in the
    order of their lower bounds (``_rim_to_face_bound``) and one is skipped once
    its bound is no lower than the nearest found; g is inf if every bound is at
    least ``reach`` (m)."""
    tilt = norm(cross(ns, nt))
    bounds = (_rim_to_face_bound(cs, ns, ct, nt, a, b, b, tilt), _rim_to_face_bound(cs, ns, ct, nt, a, b, -b, tilt),
              _rim_to_face_bound(cs, ns, ct, nt, a, -b, b, tilt), _rim_to_face_bound(cs, ns, ct, nt, a, -b, -b, tilt))
    if min(bounds) == math.inf:     # each pair nearer than another, round a cycle: only interpenetrating magnets
        bounds = (0.0, 0.0, 0.0, 0.0)
    best, total, count, rim_z, face_z = reach * reach, (0.0, 0.0, 0.0), 0, b, b
    done = 0
    for _ in range(4):
        k, low = -1, best
        for m in range(4):
            if not done & (1 << m) and bounds[m] < low:
                k, low = m, bounds[m]
        if k < 0:
            break
        done |= 1 << k
        zs, zt = (b if k < 2 else -b), (b if k % 2 == 0 else -b)
        f, side, n = _rim_to_face_nearest(cs, ns, ct, nt, a, zs, zt)
        if count == 0 or f < best * (1.0 - GAP_TIE):
            best, total, count, rim_z, face_z = f, side, n, zs, zt
        elif f <= best * (1.0 + GAP_TIE):
            best, total, count = min(best, f), add(total, side), count + n
    if count == 0:
        return math.inf, (0.0, 0.0, 0.0), b, b
    return math.sqrt(best), scale(-1.0 / count, total), rim_z, face_z


@kernel
def _edge_gap_turn(cs, ns, ct, nt, a, zs, zt):
    """d(edge gap)/d(the target's rotation about its centre), the gap being
    between the rim at zs and the face at zt: central differences of their
    converged distance about two axes across nt (a face disc spun about its
    axis is the same disc). Not from the nearest points: where a rim runs
    parallel over a face an arc of points is nearest and the gap has a kink in
    rotation (each point's lever differs), as where two minima tie (a pose
    mirror-symmetric about a plane through the rim's axis); differences over
    ``GAP_TURN_STEP`` take the mean of its two slopes there, in any frame, to
    O(step) (the converged gap is smooth to rounding, ~1e-19 m, so the step
    can be small)."""
    e = _perpendicular(nt)
    f = cross(nt, e)
    t = GAP_TURN_STEP
    slope_e = (math.sqrt(_rim_to_face_nearest(cs, ns, ct, _turned(nt, e, t), a, zs, zt)[0])
               - math.sqrt(_rim_to_face_nearest(cs, ns, ct, _turned(nt, e, -t), a, zs, zt)[0])) / (2.0 * t)
    slope_f = (math.sqrt(_rim_to_face_nearest(cs, ns, ct, _turned(nt, f, t), a, zs, zt)[0])
               - math.sqrt(_rim_to_face_nearest(cs, ns, ct, _turned(nt, f, -t), a, zs, zt)[0])) / (2.0 * t)
    return axpy(slope_e, e, scale(slope_f, f))


@kernel
def edge_gap(cs, ns, ct, nt, a, b, converged=True):
    """The edge gap for float64[3] arrays (m): from converged nearest points
    (``_nearest_edge_gap``), or by three projection rounds (``_edge_gap``,
    physics 0.16.0)."""
    if converged:
        return _nearest_edge_gap(vec(cs), vec(ns), vec(ct), vec(nt), a, b, math.inf)[0]
    return _edge_gap(vec(cs), vec(ns), vec(ct), vec(nt), a, b)


@kernel
def _balanced(ci, cj, f, tj):
    """(F_on_j, T_on_i, T_on_j) with T_on_i = -(T_on_j + (cj - ci) × F_on_j)."""
    return f, scale(-1.0, add(tj, cross(sub(cj, ci), f))), tj


@kernel
def _frame_turn(ci, cj, nj, force, torque, turn):
    """(F_on_j, T_on_j) of samples fixed to j, plus the work of their frame turning
    with the pose (module docstring, Conservation)."""
    d = sub(ci, cj)
    u = in_plane(d, nj)
    rho2 = dot(u, u)
    w = turn * _smoothstep(math.sqrt(rho2), FRAME_TURN_FADE[0], FRAME_TURN_FADE[1])
    if w == 0.0:
        return force, torque
    g = scale(1.0 / rho2, cross(nj, u))
    tau = -w * dot(torque, nj)
    return axpy(tau, g, force), axpy(tau, cross(d, g), torque)


@kernel
def _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, rule, lo, hi, full, table, turn, energy=False):
    """i's field on j's sampled face charges, at the rows lo..hi-1 of ``rule``:
    ((F_on_j, T_on_i, T_on_j), E), E the sampled energy Σ q psi_i if
    ``energy``, else 0. (Rows, not a slice of the rule: a slice is an
    array made per call, which needs numba's reference counting.)

    full: i's full field (its ``table``, or the closed form where the table
    is empty or does not reach); else its l = 1, 3, 5 multipoles."""
    e, f = _target_frame(ci, ni, cj, nj)
    q1, q3, q5 = multipole_moments(a, b, br_i)
    face_charge = br_j / MU0 * math.pi * a * a
    force = (0.0, 0.0, 0.0)
    torque = (0.0, 0.0, 0.0)
    work = 0.0
    for sign in (1.0, -1.0):
        face = scale(sign * b, nj)
        for k in range(lo, hi):
            rho = a * rule[k, 0]
            r = axpy(rho * rule[k, 1], e, axpy(rho * rule[k, 2], f, face))
            p = add(cj, r)
            charge = sign * face_charge * rule[k, 3]
            if full and energy:
                field, psi = field_and_potential_at(p, ci, ni, a, b, br_i, table)
                work += charge * psi
            elif full:
                field = field_at(p, ci, ni, a, b, br_i, table)
            else:
                field = multipole_field_at(p, ci, ni, q1, q3, q5)
                if energy:
                    work += charge * multipole_potential_at(p, ci, ni, q1, q3, q5)
            g = scale(charge, field)
            force = add(force, g)
            torque = add(torque, cross(r, g))
    force, torque = _frame_turn(ci, cj, nj, force, torque, turn)
    return _balanced(ci, cj, force, torque), work


@kernel
def _dipole_pair(ci, ni, cj, nj, a, b, br_i, br_j):
    """Point dipoles at the centres: ((F_on_j, T_on_i, T_on_j), E) with T_on_j =
    m_j × B_i(c_j), balanced T_on_i, E = -m_j · B_i(c_j)."""
    qi = br_i * 2.0 * math.pi * a * a * b            # μ0·|m_i|
    qj = br_j * 2.0 * math.pi * a * a * b
    d = sub(cj, ci)
    r2 = dot(d, d)
    inv_r = 1.0 / math.sqrt(r2)
    u = scale(inv_r, d)
    ui = dot(ni, u)
    uj = dot(nj, u)
    ij = dot(ni, nj)
    s = 3.0 * qi * qj / (4.0 * math.pi * MU0) * (inv_r * inv_r) * (inv_r * inv_r)
    force = scale(s, axpy(ui, nj, axpy(uj, ni, scale(ij - 5.0 * ui * uj, u))))
    h = qi / (4.0 * math.pi) * inv_r * inv_r * inv_r          # B_i(c_j) = h (3 ui u - ni)
    field = scale(h, axpy(3.0 * ui, u, scale(-1.0, ni)))
    return _balanced(ci, cj, force, scale(qj / MU0, cross(nj, field))), -qj / MU0 * dot(nj, field)


@kernel
def _blend(w, first, second):
    """(1 - w)·first + w·second, per vector (each balanced, so the blend is too)."""
    return (axpy(1.0 - w, first[0], scale(w, second[0])),
            axpy(1.0 - w, first[1], scale(w, second[1])),
            axpy(1.0 - w, first[2], scale(w, second[2])))


@kernel
def _blend_work(ci, cj, w, dw, first, second, push, lever):
    """The blend of two results ((F_on_j, T_on_i, T_on_j), E) with weight w, and
    its energy (1 - w) E_first + w E_second. dw: dw/dx of the blend's variable
    x; push, lever: dx/d(j's translation) and dx/d(j's rotation about c_j). Its
    gradient adds -(E_second - E_first) dw grad x, balanced onto i; with dw = 0
    (or no blend asked), the plain ``_blend``."""
    mixed = _blend(w, first[0], second[0])
    work = (1.0 - w) * first[1] + w * second[1]
    if dw == 0.0:
        return mixed, work
    s = -(second[1] - first[1]) * dw
    extra = _balanced(ci, cj, scale(s, push), scale(s, lever))
    return (add(mixed[0], extra[0]), add(mixed[1], extra[1]), add(mixed[2], extra[2])), work


@kernel
def _smoothstep_slope(x, lo, hi):
    """d/dx of ``_smoothstep``."""
    if x <= lo or x >= hi:
        return 0.0
    s = (x - lo) / (hi - lo)
    return 6.0 * s * (1.0 - s) / (hi - lo)


@kernel
def _near_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, knobs, energy=False):
    """Closed-form field of i on j's faces; the rule is picked (and blended with
    the next sparser one across a band) by the edge gap: from converged nearest
    points with ``knobs`` (turn, blend, converged) converged 1
    (``_nearest_edge_gap``), else three projection rounds (``_edge_gap_sides``).
    ``blend`` 1 adds the blend's energy term (Conservation), with the edge gap's
    gradient from the nearest points (converged) or by central differences
    (``_edge_gap_slope``)."""
    turn, blend, converged = knobs
    push = lever = (0.0, 0.0, 0.0)
    reach = EDGE_GAP_EDGES[-1, 1] * a * (1.0 + 1e-9)
    if norm(sub(cj, ci)) - 2.0 * math.sqrt(a * a + b * b) >= reach:
        g = math.inf    # the edge gap is at least the bounding spheres' gap: beyond the last band
        zs = zt = b
    elif converged != 0.0:
        g, push, zs, zt = _nearest_edge_gap(ci, ni, cj, nj, a, b, reach)
        g /= a
    else:
        g, zs, zt = _edge_gap_sides(ci, ni, cj, nj, a, b)
        g /= a
    k = 0
    while k < EDGE_GAP_EDGES.shape[0] and g >= EDGE_GAP_EDGES[k, 1]:
        k += 1
    in_band = k < EDGE_GAP_EDGES.shape[0] and g > EDGE_GAP_EDGES[k, 0]
    work = energy or (in_band and blend != 0.0)
    dense = _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, NEAR_RULES, NEAR_RULE_STARTS[k],
                          NEAR_RULE_STARTS[k + 1], True, table, turn, work)
    if not in_band:
        return dense
    sparse = _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, NEAR_RULES, NEAR_RULE_STARTS[k + 1],
                           NEAR_RULE_STARTS[k + 2], True, table, turn, work)
    lo, hi = EDGE_GAP_EDGES[k, 0], EDGE_GAP_EDGES[k, 1]
    dw = blend * _smoothstep_slope(g, lo, hi) / a
    if dw != 0.0 and converged != 0.0:
        lever = _edge_gap_turn(ci, ni, cj, nj, a, zs, zt)
    elif dw != 0.0:
        push, lever = _edge_gap_slope(ci, ni, cj, nj, a, zs, zt)
    return _blend_work(ci, cj, _smoothstep(g, lo, hi), dw, dense, sparse, push, lever)


@kernel
def _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, turn, energy=False):
    return _sampled_pair(ci, ni, cj, nj, a, b, br_i, br_j, RULE_FAR, 0, RULE_FAR.shape[0], False, table, turn,
                         energy)


@kernel
def _distance_blend(ci, cj, a, d, band, blend, first, second):
    """``_blend_work`` across a band of centre distance d (in diameters)."""
    dw = blend * _smoothstep_slope(d, band[0], band[1]) / (2.0 * a)
    e = sub(cj, ci)
    e = scale(1.0 / norm(e), e)
    return _blend_work(ci, cj, _smoothstep(d, band[0], band[1]), dw, first, second, e, (0.0, 0.0, 0.0))


@kernel
def _pair_work(ci, ni, cj, nj, a, b, br_i, br_j, table, knobs=KERNEL_KNOBS):
    """The tier chosen by centre distance (see the module docstring), and the
    pair's energy where it was computed (inside blend bands, and for point
    dipoles; else 0)."""
    d = norm(sub(cj, ci)) / (2.0 * a)
    turn, blend = knobs[0], knobs[1]
    need = blend != 0.0
    if d >= DIPOLE_DISTANCE[1]:
        return _dipole_pair(ci, ni, cj, nj, a, b, br_i, br_j)
    if d >= DIPOLE_DISTANCE[0]:
        return _distance_blend(ci, cj, a, d, DIPOLE_DISTANCE, blend,
                               _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, turn, need),
                               _dipole_pair(ci, ni, cj, nj, a, b, br_i, br_j))
    if d >= MULTIPOLE_DISTANCE[1]:
        return _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, turn)
    if d >= MULTIPOLE_DISTANCE[0]:
        return _distance_blend(ci, cj, a, d, MULTIPOLE_DISTANCE, blend,
                               _near_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, knobs, need),
                               _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, turn, need))
    return _near_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, knobs)


@kernel
def _pair(ci, ni, cj, nj, a, b, br_i, br_j, table, knobs=KERNEL_KNOBS):
    """(F_on_j, T_on_i, T_on_j) of ``_pair_work``."""
    return _pair_work(ci, ni, cj, nj, a, b, br_i, br_j, table, knobs)[0]


@kernel
def pair_force_torque(ci, ni, cj, nj, radius, thickness, br_i, br_j, table, out, knobs=KERNEL_KNOBS):
    """Magnetic interaction of magnet i on magnet j (and back).

    ci, cj: float64[3] magnet centres (m); ni, nj: float64[3] unit axes pointing
    to the North face; radius, thickness: magnet cylinder radius and thickness
    (m), the same for all discs; br_i, br_j: remanence (T) of each (>= 0; a sign
    flip of the axis is a flip of polarity); table: the source field table
    (``sim.magnetics_table.field_table(radius, thickness / 2)``, or
    ``no_table()`` for the closed form everywhere); out: float64[9] written with
    F_on_j[3], T_on_i[3] (about ci), T_on_j[3] (about cj), in N and N·m;
    knobs: (turn, blend, converged) as floats, ``PhysicsParams.kernel_knobs()``:
    turn 1 adds the work of the sampling frame's turn (Conservation), 0 leaves
    it out (physics 0.13.1, ``PhysicsParams.frame_turn``); blend 1 adds the
    work of the blends between tiers and rules (Conservation), 0 leaves it out
    (physics 0.14.0, ``PhysicsParams.blend_work``); converged 1 takes the edge
    gap from converged nearest points, 0 by three projection rounds (physics
    0.16.0, ``PhysicsParams.converged_gap``).
    Force on i is -F_on_j exactly."""
    result = _pair(vec(ci), vec(ni), vec(cj), vec(nj), radius, 0.5 * thickness, br_i, br_j, table, knobs)
    for v in range(3):
        for k in range(3):
            out[3 * v + k] = result[v][k]


def pair_force_torque_py(ci, ni, cj, nj, radius, thickness, br_i, br_j, exact=False, blend=1.0, converged=1.0):
    """Convenience for tests: (F_on_j, T_on_i, T_on_j) as three float64[3]
    arrays; the source field from its table, or in closed form if ``exact``."""
    out = np.empty(9)
    table = no_table() if exact else field_table(float(radius), 0.5 * float(thickness))
    pair_force_torque(
        np.asarray(ci, dtype=np.float64), np.asarray(ni, dtype=np.float64),
        np.asarray(cj, dtype=np.float64), np.asarray(nj, dtype=np.float64),
        float(radius), float(thickness), float(br_i), float(br_j), table, out, (1.0, float(blend), float(converged)),
    )
    return out[0:3].copy(), out[3:6].copy(), out[6:9].copy()
