"""Can friction hold a sleeper? The wake check's test (sim.integrate, step 5).

A sleeper whose magnetic force changed is woken unless friction can hold it
still with margin ``hold_margin``: then magnetism alone cannot start it
moving (a touch still wakes it through its contacts), and it sleeps on.

``flat_holds``: one flat disc, the force and torque on it alone.

``stack_holds``: a flat disc in a tower, tested as the tower it is part of.
The discs of a tower pull on each other far harder than friction holds any
one of them (the bottom disc is pulled up off the mat: alone it never
holds), so each disc failed ``flat_holds`` and a 6-disc tower 8-10 cm from
a placement was woken and kept awake for most of it, jittering by 0.1-0.2
mm on its penalty contacts: 80-90 % of the body steps of a typical clean
placement in a real game (physics 0.7.0). Between the discs of a tower the
magnetic forces cancel (Newton's third law: one pair result, applied both
ways), so the test takes every part of the tower above each face it rests
on - the whole tower on the mat, the discs above each disc-on-disc face -
with the sum of their magnetic forces and gravity: pressed onto that face
(N > 0), sliding force below margin x mu_static N (the mat's or the
discs'), and the tipping torque about the face's centre below
margin x N x radius. A single disc on the mat is a column of one: the
same test as ``flat_holds`` but with the mat's friction (``flat_holds``
cannot tell a disc on the mat from one on a disc and takes the lower), and
the tipping torque about the mat point under its centre.

Each face's torque is taken about the face the disc above it rests on, its
black face or its white one, whichever is down (``hold_bottom_face``;
physics 0.21.0 took the white face, the top face of a white-up disc, so a
white-up sleeper's ratio was off: 12 % low under a disc held over a lone
foundation, 31 % high in a 6-disc tower, and the colours slept and woke
differently in the same scene).

A tower qualifies only if it is a plain column: flat discs each resting on
exactly one below (horizontal offset under a radius, one thickness higher,
1 mm slack), the bottom one on the mat, all asleep, and no other body within
contact reach of any of them (a leaner resting on it or a disc against it
adds a contact force the sums do not know). Otherwise the disc is tested
alone, as before.

Why the margin is 0.5 and not nearer 1: the tests are static, and a disc
pulled by a magnet at its rim tips before the static torque reaches what
holds it, because tilting toward the magnet raises the torque. A flat host
under a disc held at 45 degrees (hold test off, so the dynamics decide)
stayed put at a static tipping ratio of 0.77 and tipped onto the held disc
from 0.81 (tests/test_physics_sleeping.py, test_hold_margin_stays_well_
below_the_tipping_the_dynamics_show). The hosts of clean placements in a
recorded game sit at 0.5-0.78: they are woken and jitter by ~0.01 mm, which
costs 25-40 % of such a placement's body steps (replayed with margin 0.8:
30-40 % less CPU), but a margin near 0.8 would keep asleep discs the
dynamics tip, so it stays.
"""

import numpy as np

from sim.contacts import contact_reach
from sim.forces import magnetic_on
from sim.magnetics import packed_knobs
from sim.jit import kernel
from sim.params import IDX
from sim.sleeping import COS_FLAT

_RADIUS, _THICK, _MASS, _G = IDX["radius"], IDX["thickness"], IDX["mass"], IDX["gravity"]
_MR, _MT, _FAR = IDX["magnet_radius"], IDX["magnet_thickness"], IDX["far_cutoff"]
_MUS_M, _MUS_D, _HOLD_M = IDX["mu_static_mat"], IDX["mu_static_disc"], IDX["hold_margin"]
_BOTTOM = IDX["hold_bottom_face"]
_REUSE_P, _REUSE_A = IDX["reuse_pos"], IDX["reuse_axis"]
_REUSE_F, _REUSE_R = IDX["reuse_far"], IDX["reuse_rel"]
_SPLIT = IDX["far_dipole"]
_MOMENTUM = IDX["reuse_momentum"]
_SLACK = 1e-3                     # m, of a resting face's height and of the mat


@kernel
def flat_holds(i, axis, f6, P):
    """True if body i lies flat (face within 10 deg of level) and friction
    holds it against the magnetic force and torque ``f6`` with margin
    ``hold_margin``: pressed down (N = m g - F_z > 0), sliding force below
    margin x mu_static N (the lower of mat and disc, as a stacked disc rests
    on a disc), and the tipping torque about the rim below margin x N x
    radius."""
    if abs(axis[i, 2]) < COS_FLAT:
        return False
    margin = P[_HOLD_M]
    normal = P[_MASS] * P[_G] - f6[2]
    if normal <= 0.0:
        return False
    mu = min(P[_MUS_M], P[_MUS_D])
    fh = np.sqrt(f6[0] ** 2 + f6[1] ** 2)
    th = np.sqrt(f6[3] ** 2 + f6[4] ** 2)
    return fh < margin * mu * normal and th + 0.5 * P[_THICK] * fh < margin * normal * P[_RADIUS]


@kernel
def _resting_on(j, k, pos, axis, a, thick):
    """True if flat disc j rests on flat disc k (one thickness above it,
    offset under a radius)."""
    if abs(axis[j, 2]) < COS_FLAT or abs(axis[k, 2]) < COS_FLAT:
        return False
    dz = pos[j, 2] - pos[k, 2]
    dh2 = (pos[j, 0] - pos[k, 0]) ** 2 + (pos[j, 1] - pos[k, 1]) ** 2
    return abs(dz - thick) < _SLACK and dh2 < a * a


@kernel
def _next_in_column(k, up, pos, axis, live, a, thick):
    """The one live disc resting on k (up) or under k (down); -1 none,
    -2 more than one."""
    found = -1
    for j in range(pos.shape[0]):
        if j == k or not live[j]:
            continue
        if (_resting_on(j, k, pos, axis, a, thick) if up else _resting_on(k, j, pos, axis, a, thick)):
            if found >= 0:
                return -2
            found = j
    return found


@kernel
def column_of(i, pos, axis, live, awake, P, column):
    """Fill ``column`` bottom first with the plain sleeping tower holding i;
    return its height, or 0 if i is not in one (see the module docstring)."""
    a, thick = P[_RADIUS], P[_THICK]
    n = pos.shape[0]
    if abs(axis[i, 2]) < COS_FLAT:
        return 0
    bottom, depth = i, 0
    while True:
        below = _next_in_column(bottom, False, pos, axis, live, a, thick)
        if below == -2 or depth > n:
            return 0
        if below < 0:
            break
        bottom, depth = below, depth + 1
    if abs(pos[bottom, 2] - 0.5 * thick) > _SLACK:
        return 0
    height, k = 0, bottom
    while k >= 0:
        if awake[k] or height >= n:
            return 0
        column[height] = k
        height += 1
        k = _next_in_column(k, True, pos, axis, live, a, thick)
        if k == -2:
            return 0
    reach = contact_reach(a, 0.5 * thick)
    reach2 = reach * reach
    for j in range(n):
        if not live[j]:
            continue
        member = False
        for c in range(height):
            if column[c] == j:
                member = True
                break
        if member:
            continue
        for c in range(height):
            k = column[c]
            if (pos[j, 0] - pos[k, 0]) ** 2 + (pos[j, 1] - pos[k, 1]) ** 2 + (pos[j, 2] - pos[k, 2]) ** 2 <= reach2:
                return 0
    return height


@kernel(inline="always")
def face_load(face, height, column, f6s, pos, cx, cy, cz, mg):
    """(fx, fy, fz, tx, ty): the force and the horizontal torque about the point c of
    the face column[face] rests on, of gravity (``mg`` a disc) and the magnetic forces
    ``f6s`` on the discs from column[face] up (their forces on each other cancel)."""
    fx = fy = fz = tx = ty = 0.0
    for c in range(face, height):
        k = column[c]
        gx, gy, gz = f6s[c, 0], f6s[c, 1], f6s[c, 2] - mg
        rx, ry, rz = pos[k, 0] - cx, pos[k, 1] - cy, pos[k, 2] - cz
        fx += gx
        fy += gy
        fz += gz
        tx += f6s[c, 3] + ry * gz - rz * gy
        ty += f6s[c, 4] + rz * gx - rx * gz
    return fx, fy, fz, tx, ty


@kernel
def stack_holds(i, pos, axis, rot, br, live, awake, P, field, cache, key, valid, column, f6s,
                held_at, stamp):
    """True if i is in a plain sleeping tower that friction holds, at the mat
    and at every face between its discs (module docstring). ``column`` [n]
    and ``f6s`` [n, 6] are work rows. A tower found held marks its discs
    ``held_at[k] = stamp``, and a disc so marked is held without a second
    look (one wake check: nothing has moved since)."""
    if held_at[i] == stamp:
        return True
    height = column_of(i, pos, axis, live, awake, P, column)
    if height == 0:
        return False
    for c in range(height):
        magnetic_on(column[c], pos, axis, rot, br, live, P[_MR], P[_MT], field, P[_FAR], f6s[c],
                    cache, key, valid, P[_REUSE_P], P[_REUSE_A], P[_REUSE_F], P[_REUSE_R], P[_SPLIT], packed_knobs(P),
                    P[_MOMENTUM])
    a, hh, mg, margin = P[_RADIUS], 0.5 * P[_THICK], P[_MASS] * P[_G], P[_HOLD_M]
    bottom_face = P[_BOTTOM] > 0
    for face in range(height - 1, -1, -1):       # the discs from column[face] up
        b = column[face]
        down = -hh if bottom_face and axis[b, 2] < 0.0 else hh      # to the face b rests on
        cx, cy, cz = pos[b, 0] - down * axis[b, 0], pos[b, 1] - down * axis[b, 1], pos[b, 2] - down * axis[b, 2]
        fx, fy, fz, tx, ty = face_load(face, height, column, f6s, pos, cx, cy, cz, mg)
        normal = -fz
        if normal <= 0.0:
            return False
        mu = P[_MUS_M] if face == 0 else P[_MUS_D]
        if np.sqrt(fx * fx + fy * fy) >= margin * mu * normal:
            return False
        if np.sqrt(tx * tx + ty * ty) >= margin * normal * a:
            return False
    for c in range(height):
        held_at[column[c]] = stamp
    return True
