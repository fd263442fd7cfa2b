"""The field of one disc magnet, tabulated: what the near-field kernel reads.

Why: the near tier of the pair kernel (sim.magnetics) evaluates the source's
field at 64-320 points of the target's faces; in closed form each value costs
two Bulirsch descents (~100-150 ns), and those kernels were ~80 % of a
cascade's CPU (physics 0.4.1). The field of an axially magnetised cylinder
depends only on (rho, z) in its own frame, is linear in Br and odd/even in z
(B_rho odd, B_z even), so one 2-D table per magnet shape (radius a, half
thickness b) serves every pair: a lookup and a bilinear interpolation cost
~15-30 ns. Measured (one core, 2026-12-01, a numba loop over one pose):
a tower pair 4 mm apart 11.5 -> 3.1 us, side by side at 2 mm 20 -> 5.2 us, a
45 deg leaner 3 mm off its host 30 -> 7.8 us; ``benchmarks/bench_magnetics.py``
times both over random poses.

The table changes outcomes only as any rounding-level change does (the
golden scenes moved by tenths of a millimetre; one cascade went another
way): 200 short games (cautious vs random, 8 discs a player, 3 foundations,
seed 7) with and without it, compared by ``polsim compare``: no test
significant (win rate -4.5 pts [-9.7, +0.8], p_Holm 0.96; game length 16.7
-> 16.6 turns; end reasons p_Holm 1).

Grid (design note): the field is smooth except at the two rim edges
(rho = a, z = ±b), where it diverges like log(distance), and across the
side surface (rho = a, |z| < b), where B_z jumps by Br (the closed form is
the equivalent solenoid's B). Nodes are graded geometrically away from
rho = a and from |z| = b (x = x0 ± w sinh(u), equal steps du in u), so a cell's size grows with its distance r from the edge
lines, h ≈ du·max(w, r), and the bilinear error, ~ (h/r)^2 / 8 of the local
field scale, stays ~du^2 (far out, where B falls as r^-3, ~1.5 du^2)
(tests/test_physics_magnetics.py checks the table against the exact field).
A node column sits exactly on the side surface and holds the field just
outside it, so no cell outside the magnet straddles the jump. Points beyond
the table (rho or |z| beyond ``EXTENT``·a) and empty tables (``no_table()``,
``PhysicsParams.field_table=False``) take the closed form.

Lookup in O(1): each axis has a bucket map (buckets no wider than its
smallest cell) from a coordinate to the cell it starts in; at most one node
lies inside a bucket, so one comparison finishes the search.

The table also holds the scalar potential psi (B = -grad psi outside the
magnet, ``cylinder_potential_local``; odd in z), read by ``field_and_potential_at``
for the energies the pair kernel's blends need (sim.magnetics, Conservation).
It is interpolated to third order with the tabulated field as its gradient
(``_corner``): the blends' work term multiplies a difference of two rules'
energies by a steep weight's slope, and plain bilinear values moved a band
pair's force by up to 0.13 % against the closed form.

A table is a tuple (rho_nodes, rho_inv, rho_bucket, z_nodes, z_inv, z_bucket,
values, shape): nodes float64[k], inverse cell widths float64[k-1], bucket
maps int32[m], values float64[k_rho, k_z, 3] (B_rho, B_z, psi at Br = 1 T), shape
float64[4] = (a, b, 1 / bucket width rho, 1 / bucket width z) (a division
costs several multiplications). Deterministic: built from the closed form
with fixed arithmetic and the C library's sinh (numpy's array sinh may take
CPU-specific vector code); 5.9 MB for the default magnet, ~80 ms to fill.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from sim import detmath as dm
from sim.jit import kernel
from sim.magnetics_fields import cylinder_field_local, cylinder_potential_local, from_cylindrical, to_cylindrical

STEP_U = 0.02          # grading step: cell size / distance from the edge lines
GRADING_WIDTH = 0.02   # w, in units of a: cells never narrower than STEP_U·w·a
EXTENT = 5.2           # the table covers rho, |z| up to EXTENT·a (near tier: centres < 4 a apart)


def _graded_axis(x0: float, top: float, w: float) -> np.ndarray:
    """Nodes on [0, top] with one at x0, graded geometrically away from it."""
    def side(length):
        u_max = dm.asinh(length / w)
        n = max(1, math.ceil(u_max / STEP_U))
        steps = np.array([dm.sinh(u) for u in np.linspace(0.0, u_max, n + 1)])
        return w * steps * (length / (w * dm.sinh(u_max)))
    below = x0 - side(x0)[::-1] if x0 > 0 else np.array([0.0])
    above = x0 + side(top - x0)
    nodes = np.concatenate([below[:-1], above])
    nodes[0], nodes[-1] = 0.0, top
    return nodes


def _buckets(nodes: np.ndarray) -> tuple[np.ndarray, float]:
    """Bucket map of an axis: cell index each bucket starts in, and the bucket width."""
    width = 0.999 * float(np.min(np.diff(nodes)))
    m = int(math.ceil(nodes[-1] / width)) + 1
    starts = np.arange(m) * width
    return np.clip(np.searchsorted(nodes, starts, side="right") - 1, 0, len(nodes) - 2).astype(np.int32), width


@kernel
def _fill(rho_nodes, z_nodes, a, b, values):
    """Exact field and potential at every node (Br = 1); on the side surface
    and the rim edge the value just outside the magnet."""
    outside = 1e-9 * a
    for i in range(rho_nodes.shape[0]):
        for k in range(z_nodes.shape[0]):
            rho, z = rho_nodes[i], z_nodes[k]
            if rho == a and z <= b:
                rho = a + outside
                if z == b:
                    z = b + outside
            br, bz = cylinder_field_local(rho, z, a, b, 1.0)
            values[i, k, 0] = br
            values[i, k, 1] = bz
            values[i, k, 2] = cylinder_potential_local(rho, z, a, b, 1.0)


@lru_cache(maxsize=4)
def field_table(radius: float, half_thickness: float):
    """The table of a magnet of this radius and half thickness (m), built once per process."""
    a, b = float(radius), float(half_thickness)
    top = EXTENT * a
    rho_nodes = _graded_axis(a, top, GRADING_WIDTH * a)
    z_nodes = _graded_axis(b, top, GRADING_WIDTH * a)
    rho_bucket, rho_width = _buckets(rho_nodes)
    z_bucket, z_width = _buckets(z_nodes)
    values = np.empty((len(rho_nodes), len(z_nodes), 3))
    _fill(rho_nodes, z_nodes, a, b, values)
    shape = np.array([a, b, 1.0 / rho_width, 1.0 / z_width])
    return (rho_nodes, 1.0 / np.diff(rho_nodes), rho_bucket,
            z_nodes, 1.0 / np.diff(z_nodes), z_bucket, values, shape)


def no_table():
    """An empty table: every lookup takes the exact closed form."""
    empty = np.zeros(0)
    return (empty, empty, np.zeros(0, np.int32), empty, empty, np.zeros(0, np.int32),
            np.zeros((0, 0, 3)), np.zeros(4))


@kernel(inline="always")
def _cell(x, nodes, bucket, inv_width):
    k = bucket[int(x * inv_width)]
    if x >= nodes[k + 1]:
        k += 1
    return k


@kernel(inline="always")
def _covers(rho, zeta, a, b, table):
    """The table is this magnet's (a, b) and reaches (rho, |z| = zeta)."""
    rho_nodes, z_nodes, values, shape = table[0], table[3], table[6], table[7]
    return not (values.shape[0] == 0 or shape[0] != a or shape[1] != b
                or rho >= rho_nodes[-1] or zeta >= z_nodes[-1])


@kernel(inline="always")
def _locate(rho, zeta, table):
    """(i, k, s, t): the cell (rho_nodes[i], z_nodes[k]) holding the point, and its
    place across the cell in each direction (0 to 1)."""
    rho_nodes, rho_inv, rho_bucket, z_nodes, z_inv, z_bucket, values, shape = table
    i = _cell(rho, rho_nodes, rho_bucket, shape[2])
    k = _cell(zeta, z_nodes, z_bucket, shape[3])
    return i, k, (rho - rho_nodes[i]) * rho_inv[i], (zeta - z_nodes[k]) * z_inv[k]


@kernel(inline="always")
def field_local(rho, z, a, b, br, table):
    """(B_rho, B_z) in T at (rho, z) of a magnet (a, b, br) in its own frame:
    from the table when it is this magnet's and covers the point, else exact."""
    zeta = abs(z)
    if not _covers(rho, zeta, a, b, table):
        return cylinder_field_local(rho, z, a, b, br)
    i, k, s, t = _locate(rho, zeta, table)
    return _field_in_cell(table[6], i, k, s, t, z, br)


@kernel(inline="always")
def _field_in_cell(values, i, k, s, t, z, br):
    """``field_local`` from the cell (i, k) at (s, t) across it (``_locate``)."""
    w00 = (1.0 - s) * (1.0 - t)
    w01 = (1.0 - s) * t
    w10 = s * (1.0 - t)
    w11 = s * t
    b_rho = (w00 * values[i, k, 0] + w01 * values[i, k + 1, 0]
             + w10 * values[i + 1, k, 0] + w11 * values[i + 1, k + 1, 0])
    b_z = (w00 * values[i, k, 1] + w01 * values[i, k + 1, 1]
           + w10 * values[i + 1, k, 1] + w11 * values[i + 1, k + 1, 1])
    if z < 0.0:
        b_rho = -b_rho
    return br * b_rho, br * b_z


@kernel(inline="always")
def field_at(p, c, n, a, b, br, table):
    """B (T) at world point p of the magnet (c, n, a, b, br); 3-tuples in and
    out (``sim.magnetics_fields.cylinder_field_at`` read from the table)."""
    r, rho, z = to_cylindrical(p, c, n)
    b_rho, b_z = field_local(rho, z, a, b, br, table)
    return from_cylindrical(b_rho, b_z, r, rho, n)


@kernel(inline="always")
def _corner(values, i, k, du, dv):
    """A node's psi carried half way to the point (du, dv) m away along its field:
    psi - B·(du, dv)/2. Bilinear weights over the four corners of these make the
    mean of the bilinear interpolation (error +psi''h²s(1-s)/2 per axis) and of
    the corners' first-order Taylor values (error -psi''h²s(1-s)/2): third order."""
    return values[i, k, 2] - 0.5 * (values[i, k, 0] * du + values[i, k, 1] * dv)


@kernel(inline="always")
def _potential_local(rho, z, a, b, br, table):
    """psi (T·m) at (rho, z) of a magnet (a, b, br) in its own frame: from the
    table when it is this magnet's and covers the point, else exact."""
    zeta = abs(z)
    if not _covers(rho, zeta, a, b, table):
        return cylinder_potential_local(rho, z, a, b, br)
    i, k, s, t = _locate(rho, zeta, table)
    return _potential_in_cell(table, i, k, s, t, rho, zeta, z, br)


@kernel(inline="always")
def _potential_in_cell(table, i, k, s, t, rho, zeta, z, br):
    """``_potential_local`` from the cell (i, k) at (s, t) across it (``_locate``)."""
    rho_nodes, z_nodes, values = table[0], table[3], table[6]
    u0, u1 = rho - rho_nodes[i], rho - rho_nodes[i + 1]       # offsets from the cell's nodes (m)
    v0, v1 = zeta - z_nodes[k], zeta - z_nodes[k + 1]
    psi = ((1.0 - s) * ((1.0 - t) * _corner(values, i, k, u0, v0) + t * _corner(values, i, k + 1, u0, v1))
           + s * ((1.0 - t) * _corner(values, i + 1, k, u1, v0) + t * _corner(values, i + 1, k + 1, u1, v1)))
    return -br * psi if z < 0.0 else br * psi


@kernel(inline="always")
def potential_at(p, c, n, a, b, br, table):
    """psi (T·m) at world point p of the magnet (c, n, a, b, br), B = -grad psi
    outside it: from the table when it is this magnet's and covers p, else exact."""
    _, rho, z = to_cylindrical(p, c, n)
    return _potential_local(rho, z, a, b, br, table)


@kernel(inline="always")
def field_and_potential_at(p, c, n, a, b, br, table):
    """(``field_at``, ``potential_at``) at p, the point put in the magnet's frame
    and its table cell found once."""
    r, rho, z = to_cylindrical(p, c, n)
    zeta = abs(z)
    if not _covers(rho, zeta, a, b, table):
        b_rho, b_z = cylinder_field_local(rho, z, a, b, br)
        return from_cylindrical(b_rho, b_z, r, rho, n), cylinder_potential_local(rho, z, a, b, br)
    i, k, s, t = _locate(rho, zeta, table)
    b_rho, b_z = _field_in_cell(table[6], i, k, s, t, z, br)
    return from_cylindrical(b_rho, b_z, r, rho, n), _potential_in_cell(table, i, k, s, t, rho, zeta, z, br)
