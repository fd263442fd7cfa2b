"""Disc bodies: rotations and the sample points of a disc.

A disc is a cylinder (radius a, thickness h) whose body frame has the face
normal of the black (North) face on its local +z axis. Orientation is a unit
quaternion ``q = (w, x, y, z)``, hot arrays:

    pos [n, 3] m, quat [n, 4], vel [n, 3] m/s, omega [n, 3] rad/s (world frame)

Contact sampling: three rim circles, ``N`` points each, ``rim [3N, 3]`` in
the body frame: the edge of the +z face, of the -z face (both drawn in by
``chamfer``, a rounded shell edge), and the middle of the side. Two flat
discs meeting edge to edge touch with their side middles only: their face
edges lie in each other's face planes, where the nearest-face normal of a
cylinder is ambiguous, and letting them press there excites rocking.
Inertia of a solid cylinder, axisymmetric: in the world frame
``I = I_perp 1 + (I_axis - I_perp) n n^T`` with n the face normal, so no
matrices are stored.
"""

import numpy as np
from numba.extending import register_jitable

from sim.detmath import norm, sincos
from sim.jit import kernel


def rim_points(radius: float, thickness: float, n: int, chamfer: float) -> np.ndarray:
    ang = 2.0 * np.pi * (np.arange(n) + 0.5) / n
    ring = np.array([(radius * c, radius * s, 0.0) for s, c in map(sincos, ang)])
    top, bottom = ring * (1.0 - chamfer / radius), ring * (1.0 - chamfer / radius)
    top[:, 2] = thickness / 2
    bottom[:, 2] = -thickness / 2
    return np.ascontiguousarray(np.concatenate([top, bottom, ring]))


@kernel
def quat_to_matrix(q, out):
    w, x, y, z = q[0], q[1], q[2], q[3]
    out[0, 0] = 1 - 2 * (y * y + z * z)
    out[0, 1] = 2 * (x * y - w * z)
    out[0, 2] = 2 * (x * z + w * y)
    out[1, 0] = 2 * (x * y + w * z)
    out[1, 1] = 1 - 2 * (x * x + z * z)
    out[1, 2] = 2 * (y * z - w * x)
    out[2, 0] = 2 * (x * z - w * y)
    out[2, 1] = 2 * (y * z + w * x)
    out[2, 2] = 1 - 2 * (x * x + y * y)


@kernel
def quat_rotate_step(q, omega, dt):
    """q <- exp(omega dt / 2) * q, omega in the world frame; renormalised."""
    wn = np.sqrt(omega[0] ** 2 + omega[1] ** 2 + omega[2] ** 2)
    if wn * dt < 1e-300:
        return
    half = 0.5 * wn * dt
    sin_half, dw = sincos(half)
    s = sin_half / wn
    dx, dy, dz = omega[0] * s, omega[1] * s, omega[2] * s
    w, x, y, z = q[0], q[1], q[2], q[3]
    nw = dw * w - dx * x - dy * y - dz * z
    nx = dw * x + dx * w + dy * z - dz * y
    ny = dw * y - dx * z + dy * w + dz * x
    nz = dw * z + dx * y - dy * x + dz * w
    norm = np.sqrt(nw * nw + nx * nx + ny * ny + nz * nz)
    q[0], q[1], q[2], q[3] = nw / norm, nx / norm, ny / norm, nz / norm


def quat_from_normal(n, spin: float = 0.0) -> np.ndarray:
    """Unit quaternion turning local +z onto the unit vector n (then spin about n)."""
    n = np.asarray(n, dtype=np.float64)
    n = n / norm(n)
    z = np.array([0.0, 0.0, 1.0])
    c = float(n[2])
    if c < -1 + 1e-12:
        q = np.array([0.0, 1.0, 0.0, 0.0])
    else:
        axis = np.cross(z, n)
        q = np.array([1.0 + c, axis[0], axis[1], axis[2]])
        q /= norm(q)
    if spin:
        sin_half, cos_half = sincos(spin / 2)
        s = np.array([cos_half, *(sin_half * n)])
        q = quat_mul(s, q)
    return q


def quat_mul(a, b) -> np.ndarray:
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    ])


@register_jitable
def normal_of(q):
    """World face normal (black/North face) of a quaternion."""
    w, x, y, z = q
    return np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])
