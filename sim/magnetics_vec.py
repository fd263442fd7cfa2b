"""3-vectors as tuples (x, y, z) of float64 for the magnetic kernels.

Passed by value, so the kernels touch no arrays (no allocation, no reference
counting) in their inner loops. The helpers are plain kernels, not
``inline="always"``: LLVM inlines them anyway, and numba's own inlining of
them at a few hundred call sites was an eighth of a cold compile (sim.jit,
Compile time).
"""

from __future__ import annotations

import math

from sim.jit import kernel


@kernel
def vec(a):
    """A float64[3] array as a tuple."""
    return (a[0], a[1], a[2])


@kernel
def add(u, v):
    return (u[0] + v[0], u[1] + v[1], u[2] + v[2])


@kernel
def sub(u, v):
    return (u[0] - v[0], u[1] - v[1], u[2] - v[2])


@kernel
def scale(s, u):
    return (s * u[0], s * u[1], s * u[2])


@kernel
def axpy(s, u, v):
    """s·u + v."""
    return (s * u[0] + v[0], s * u[1] + v[1], s * u[2] + v[2])


@kernel
def dot(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


@kernel
def cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


@kernel
def norm(u):
    return math.sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])


@kernel
def in_plane(v, n):
    """The component of v perpendicular to the unit n."""
    return axpy(-dot(v, n), n, v)


@kernel
def perpendicular(n):
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
