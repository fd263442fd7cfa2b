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

g_e ("edge gap", ``sim.edge_gap``) is the distance from i's two rim circles to
j's two face discs; D = 2a.  The rules and bands are module constants.  It
is never less than the gap between the magnets' bounding spheres, so where
that gap is beyond the last band the sparsest rule is taken without
computing g_e.  Since physics 0.17.0 (``converged_gap``) it is the least
distance itself, from converged nearest points (``nearest_gap``); before,
three rounds of alternating projection (``projected_gap``), which most band
poses leave too far, by up to ~0.4 a.

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
(``nearest_gap_turn``: where a rim runs parallel over a face an arc of points
is nearest, and the differences take the mean of the kink's two slopes). A
unit vector that equals the gap's central differences within 1e-6
(``test_the_edge_gap_slope_of_the_blend_work_term_is_a_gradient``).
Physics 0.15.0-0.16.0 took central differences of the three projection
rounds (``projected_gap_slope``, 12 evaluations): for a pair nearly coaxial
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
from sim.edge_gap import nearest_gap, nearest_gap_turn, projected_gap, projected_gap_slope
from sim.jit import kernel
from sim.magnetics_fields import multipole_field_at, multipole_moments, multipole_potential_at
from sim.magnetics_table import field_and_potential_at, field_at, field_table, no_table
from sim.magnetics_vec import add, axpy, cross, dot, in_plane, norm, perpendicular, scale, sub, vec
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
            e = perpendicular(nt)
            length = 1.0
    e = scale(1.0 / length, e)
    return e, cross(nt, e)


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
    (``nearest_gap``), else three projection rounds (``projected_gap``).
    ``blend`` 1 adds the blend's energy term (Conservation), with the edge gap's
    gradient from the nearest points (converged) or by central differences
    (``projected_gap_slope``)."""
    turn, blend, converged = knobs
    push = lever = (0.0, 0.0, 0.0)
    reach = EDGE_GAP_EDGES[-1, 1] * a * (1.0 + 1e-9)
    if norm(sub(cj, ci)) - 2.0 * math.sqrt(a * a + b * b) >= reach:
        g = math.inf    # the edge gap is at least the bounding spheres' gap: beyond the last band
        zs = zt = b
    elif converged != 0.0:
        g, push, zs, zt = nearest_gap(ci, ni, cj, nj, a, b, reach)
        g /= a
    else:
        g, zs, zt = projected_gap(ci, ni, cj, nj, a, b)
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
        lever = nearest_gap_turn(ci, ni, cj, nj, a, zs, zt)
    elif dw != 0.0:
        push, lever = projected_gap_slope(ci, ni, cj, nj, a, zs, zt)
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
    # False typed as a run-time bool, not as the literal an omitted ``energy`` is: each tier's
    # kernel then compiles once (a literal is a second specialisation, ~4 s of a cold compile)
    no_energy = need and False
    if d >= DIPOLE_DISTANCE[1]:
        return _dipole_pair(ci, ni, cj, nj, a, b, br_i, br_j)
    if d >= DIPOLE_DISTANCE[0]:
        return _distance_blend(ci, cj, a, d, DIPOLE_DISTANCE, blend,
                               _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, turn, need),
                               _dipole_pair(ci, ni, cj, nj, a, b, br_i, br_j))
    if d >= MULTIPOLE_DISTANCE[1]:
        return _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, turn, no_energy)
    if d >= MULTIPOLE_DISTANCE[0]:
        return _distance_blend(ci, cj, a, d, MULTIPOLE_DISTANCE, blend,
                               _near_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, knobs, need),
                               _multipole_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, turn, need))
    return _near_pair(ci, ni, cj, nj, a, b, br_i, br_j, table, knobs, no_energy)


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
