"""The edge gap: how near one magnet's rim edges come to the other's faces.

The magnetic kernel (``sim.magnetics``) samples the target's faces the more
densely the nearer they pass to the source's rims, where its field varies on
the scale of that gap; it picks (and blends) its sampling rules by the edge
gap g_e, the least distance from the source's two rim circles (radius a, at
+-b along its axis) to the target's two face discs. The blends' work term
needs its gradient too.

Converged (physics 0.17.0, ``nearest_gap``): per rim and face, the squared
distance f(t) = h^2 + max(rho - a, 0)^2 of the rim point at angle t (h: its
height over the face's plane, rho: its distance from the face's axis) is
scanned at ``GAP_SCAN`` points from the direction of the face's centre (a
direction the pair fixes, so any frame meets the same points and a
mirror-symmetric pose is scanned mirror-symmetrically); every minimum
between two samples is refined (``_rim_minimum``: Newton's steps on f'
inside a shrinking bracket, else Illinois false position; f'' jumps where
the nearest face point crosses the face's rim, rho = a, and plain Newton
hops across it for ever), also where the samples show a dip or their
curvature says a pair of minima may hide between them (20,000-pose searches
found both). Rim-face pairs that cannot be nearest are skipped by lower
bounds (``_rim_to_face_bound``). Gradient: in the target's translation
-(x - y)/g from the nearest points (the mean over tied minima); in its
rotation central differences of the converged gap (``nearest_gap_turn``;
where a rim runs parallel over a face an arc of points is nearest and the
gap has a kink, whose two slopes the differences average in any frame).
Against a brute-force scan: within 1e-6 a at every band pose tried
(tests/test_physics_magnetics.py); ~0.8 us a pair.

Projected (physics 0.15.0-0.16.0, ``projected_gap``, kept for
``converged_gap=False``): three rounds of alternating projection between a
rim and a face from the projection of the face's centre, and central
differences of them for the gradient (``projected_gap_slope``). Not
converged: most band poses come out too far, by up to ~0.4 a, and for
pairs nearly coaxial and tilted the result swings with the pose (|dg/dx| up
to ~400: a spurious force of the blends' work term, docs/MEASUREMENTS.md).

Units: metres; vectors are 3-tuples (``sim.magnetics_vec``).
"""

from __future__ import annotations

import math

from sim import detmath as dm
from sim.jit import kernel
from sim.magnetics_vec import add, axpy, cross, dot, in_plane, norm, perpendicular, scale, sub, vec

# projected gap (physics 0.16.0): central-difference step of its gradient, this share of a in
# translation, radians in rotation
EDGE_GAP_STEP = 1e-5
# converged gap: rim samples scanned before each minimum between two of them is refined;
# the refinement's tolerance (rad); an interval that may hide a minimum (_may_hide_minimum)
# is scanned again in this many parts; minima whose squared distances are this close
# (relative) are tied (their slopes averaged); the central-difference step of the gap in
# the target's rotation (rad; nearest_gap_turn)
GAP_SCAN = 12
GAP_TOLERANCE = 1e-9
GAP_PIECES = 4
GAP_TIE = 1e-12
GAP_TURN_STEP = 1e-7
_SCAN_COS = tuple(dm.cos(2.0 * math.pi * k / GAP_SCAN) for k in range(GAP_SCAN))
_SCAN_SIN = tuple(dm.sin(2.0 * math.pi * k / GAP_SCAN) for k in range(GAP_SCAN))


@kernel(inline="always")
def _to_circle(p, centre, n, a):
    """Nearest point to p on the circle (centre, normal n, radius a)."""
    v = in_plane(sub(p, centre), n)
    length = norm(v)
    if length <= 1e-12 * a:
        return axpy(a, perpendicular(n), centre)
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
def projected_gap(cs, ns, ct, nt, a, b):
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
def _turned(n, axis, angle):
    """Unit n turned by a small angle about a unit axis (to first order, renormalised)."""
    m = axpy(angle, cross(axis, n), n)
    return scale(1.0 / norm(m), m)


@kernel
def _projected_gap_along(cs, ns, ct, nt, a, zs, zt, e):
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
def projected_gap_slope(cs, ns, ct, nt, a, zs, zt):
    """d(edge gap)/d(the target's translation) and d/d(its rotation about its
    centre), the gap being between the rim at zs and the face at zt: by central
    differences of the distance the blend weight is of (its three projection
    rounds are not converged, so the nearest points' direction is off its
    gradient by up to ~2 %)."""
    px, lx = _projected_gap_along(cs, ns, ct, nt, a, zs, zt, (1.0, 0.0, 0.0))
    py, ly = _projected_gap_along(cs, ns, ct, nt, a, zs, zt, (0.0, 1.0, 0.0))
    pz, lz = _projected_gap_along(cs, ns, ct, nt, a, zs, zt, (0.0, 0.0, 1.0))
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
            return perpendicular(ns)
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
    e1 = perpendicular(nt)
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
def nearest_gap(cs, ns, ct, nt, a, b, reach):
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
def nearest_gap_turn(cs, ns, ct, nt, a, zs, zt):
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
    e = perpendicular(nt)
    f = cross(nt, e)
    return axpy(_turn_slope(cs, ns, ct, nt, a, zs, zt, e), e, scale(_turn_slope(cs, ns, ct, nt, a, zs, zt, f), f))


@kernel(inline="always")
def _turn_slope(cs, ns, ct, nt, a, zs, zt, axis):
    """Central difference of the converged rim-to-face distance (zs, zt) as the
    target turns by +-``GAP_TURN_STEP`` about the unit ``axis``."""
    t = GAP_TURN_STEP
    return (math.sqrt(_rim_to_face_nearest(cs, ns, ct, _turned(nt, axis, t), a, zs, zt)[0])
            - math.sqrt(_rim_to_face_nearest(cs, ns, ct, _turned(nt, axis, -t), a, zs, zt)[0])) / (2.0 * t)


@kernel
def edge_gap(cs, ns, ct, nt, a, b, converged=True):
    """The edge gap for float64[3] arrays (m): from converged nearest points
    (``nearest_gap``), or by three projection rounds (``projected_gap``,
    physics 0.16.0)."""
    if converged:
        return nearest_gap(vec(cs), vec(ns), vec(ct), vec(nt), a, b, math.inf)[0]
    return projected_gap(vec(cs), vec(ns), vec(ct), vec(nt), a, b)[0]
