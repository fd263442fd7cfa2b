"""The magnetic pair kernel (sim/magnetics.py): fidelity against magpylib,
conservation laws, far field, continuity of the tier switches, symmetries."""

from __future__ import annotations

import math

import magpylib as magpy
import numpy as np
import pytest
import scipy.special as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

from sim import edge_gap as eg
from sim import magnetics as mag
from sim.elliptic import cel, cel_pair
from sim.magnetics_fields import cylinder_field, cylinder_field_local, multipole_field, multipole_moments
from sim.magnetics_table import field_local, field_table, no_table
from sim.magnetics_vec import perpendicular

RADIUS = 0.0125          # default magnet: Ø 25 mm × 4 mm, Br 0.39 T
THICKNESS = 0.004
BR = 0.39
A = RADIUS
B = THICKNESS / 2
DIAMETER = 2 * RADIUS
GAPS = np.geomspace(0.0005, 4 * DIAMETER, 9)      # magnet gaps, 0.5 mm .. 4 diameters
REFERENCE_MESH = (96, 24, 12)                     # (nphi, nr, nh) of the meshed target
Z = np.array([0.0, 0.0, 1.0])
S45 = math.sqrt(0.5)


# --- poses: source i flat at the origin, axis +z; j placed at magnet gap `gap` -------------

def coaxial(gap, attracting=True):
    return np.array([0.0, 0.0, 2 * B + gap]), (Z if attracting else -Z)


def side_by_side(gap):
    return np.array([2 * A + gap, 0.0, 0.0]), Z


def tilted_45(gap):
    """j tilted 45° like a leaner, its lower face looking at i's rim edge P = (a, 0, b):
    P lies at distance `gap` from that face, its foot half a radius from the face centre,
    so the magnet gap is exactly `gap`."""
    nj = np.array([S45, 0.0, S45])
    along_face = np.array([S45, 0.0, -S45])
    rim_point = np.array([A, 0.0, B])
    return rim_point + (gap + B) * nj + 0.5 * A * along_face, nj


def magpylib_reference(cj, nj, mesh=REFERENCE_MESH):
    """(F_on_j, T_on_i, T_on_j) from magpylib.getFT with both targets meshed."""
    def magnet(position, axis):
        if axis[2] < -0.999999:
            orientation = Rotation.from_euler("x", 180, degrees=True)
        else:
            orientation = Rotation.align_vectors([axis], [Z])[0]
        return magpy.magnet.Cylinder(
            dimension=(2 * A, THICKNESS), polarization=(0, 0, BR),
            position=position, orientation=orientation)

    mi = magnet((0.0, 0.0, 0.0), Z)
    mj = magnet(cj, nj)
    f_j, t_j = magpy.getFT(mi, mj, meshing=mesh, eps=1e-8)
    _, t_i = magpy.getFT(mj, mi, meshing=mesh, eps=1e-8)
    return np.asarray(f_j), np.asarray(t_i), np.asarray(t_j)


def kernel(cj, nj, ci=np.zeros(3), ni=Z):
    return mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, BR, BR)


def relative_errors(got, ref):
    """Force error over |F_ref|; torque error (worst of the two bodies) over the
    larger reference torque, or over |F_ref|·a where torques vanish by symmetry."""
    f, t_i, t_j = got
    rf, rt_i, rt_j = ref
    force_error = np.linalg.norm(f - rf) / np.linalg.norm(rf)
    scale = max(np.linalg.norm(rt_i), np.linalg.norm(rt_j))
    if scale < 1e-3 * np.linalg.norm(rf) * A:
        scale = np.linalg.norm(rf) * A
    torque_error = max(np.linalg.norm(t_i - rt_i), np.linalg.norm(t_j - rt_j)) / scale
    return force_error, torque_error


def tolerance(gap):
    return 0.15 if gap < DIAMETER else 0.05


# --- the special function and the field -------------------------------------------------

@pytest.mark.parametrize("kc", [1e-8, 1e-4, 0.01, 0.3, 0.9, 1.0, 1.7])
def test_cel_matches_scipy_complete_elliptic_integrals(kc):
    m = 1.0 - kc * kc
    k_ref = sp.ellipkm1(kc * kc)
    assert cel(kc, 1.0, 1.0, 1.0) == pytest.approx(k_ref, rel=1e-12)
    if m > 0:
        assert cel(kc, 1.0, 1.0, kc * kc) == pytest.approx(sp.ellipe(m), rel=1e-12)
    for n in (-2.0, 0.3, 0.9):        # third kind, both branches of Bulirsch's start
        pi_ref = k_ref + n / 3.0 * sp.elliprj(0.0, kc * kc, 1.0, 1.0 - n)
        assert cel(kc, 1.0 - n, 1.0, 1.0) == pytest.approx(pi_ref, rel=1e-12)
        assert cel_pair(kc, 1.0, 1.0, 1.0, 1.0 - n, 1.0, 1.0)[1] == pytest.approx(pi_ref, rel=1e-12)


def test_cylinder_field_matches_magpylib_getB_everywhere_outside():
    rng = np.random.default_rng(1)
    c = np.array([0.01, -0.02, 0.03])
    n = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
    source = magpy.magnet.Cylinder(
        dimension=(2 * A, THICKNESS), polarization=(0, 0, BR), position=c,
        orientation=Rotation.align_vectors([n], [Z])[0])
    points = c + rng.normal(size=(400, 3)) * 0.02
    local = points - c
    z = local @ n
    rho = np.linalg.norm(local - np.outer(z, n), axis=1)
    points = points[(np.abs(z) > B + 1e-4) | (rho > A + 1e-4)]     # outside the magnet
    expected = source.getB(points)
    got = np.empty(3)
    for p, e in zip(points, expected):
        cylinder_field(p, c, n, A, B, BR, got)
        assert np.linalg.norm(got - e) <= 1e-10 * np.linalg.norm(e)


def test_field_table_matches_the_closed_form_outside_the_magnet():
    """The near tier reads the source's field from a table (sim.magnetics_table):
    outside the magnet, 0.3 mm or more from its rim edges, within 0.1 % of the
    closed form; beyond the table's reach and with an empty table, the closed
    form itself."""
    rng = np.random.default_rng(2)
    table = field_table(A, B)
    reach = table[0][-1]
    rho = rng.uniform(0.0, 1.2 * reach, 20000)
    z = rng.uniform(-1.2 * reach, 1.2 * reach, 20000)
    outside = (rho > A) | (np.abs(z) > B)
    clear = np.hypot(rho - A, np.abs(z) - B) >= 3e-4
    errors = []
    for r, h in zip(rho[outside & clear], z[outside & clear]):
        exact = np.array(cylinder_field_local(r, h, A, B, BR))
        got = np.array(field_local(r, h, A, B, BR, table))
        if r >= reach or abs(h) >= reach:
            assert np.array_equal(got, exact)
        else:
            errors.append(np.linalg.norm(got - exact) / np.linalg.norm(exact))
        assert np.array_equal(np.array(field_local(r, h, A, B, BR, no_table())), exact)
    assert len(errors) > 10000
    assert max(errors) < 1e-3


def test_kernel_with_the_field_table_matches_the_closed_form_kernel():
    """Force and torques of random near pairs (0.5 mm to one diameter apart)
    with the table and in closed form agree within 0.1 % (torques: of the
    larger of the torque and force x radius, as a torque may nearly cancel)."""
    rng = np.random.default_rng(20261201)
    for gap in np.geomspace(0.0005, DIAMETER, 40):
        ni, nj, u = (v / np.linalg.norm(v) for v in rng.normal(size=(3, 3)))
        cj = (support(ni, u) + support(nj, u) + gap) * u
        got = mag.pair_force_torque_py(np.zeros(3), ni, cj, nj, RADIUS, THICKNESS, BR, BR)
        exact = mag.pair_force_torque_py(np.zeros(3), ni, cj, nj, RADIUS, THICKNESS, BR, BR, exact=True)
        force = np.linalg.norm(exact[0])
        assert np.linalg.norm(got[0] - exact[0]) < 1e-3 * force
        for t, t_exact in zip(got[1:], exact[1:]):
            assert np.linalg.norm(t - t_exact) < 1e-3 * max(np.linalg.norm(t_exact), force * A)


def test_multipole_field_matches_magpylib_getB_beyond_two_diameters():
    rng = np.random.default_rng(2)
    q = multipole_moments(A, B, BR)
    source = magpy.magnet.Cylinder(dimension=(2 * A, THICKNESS), polarization=(0, 0, BR))
    directions = rng.normal(size=(200, 3))
    points = 2 * DIAMETER * directions / np.linalg.norm(directions, axis=1)[:, None]
    got = np.empty(3)
    for p, e in zip(points, source.getB(points)):
        multipole_field(p, np.zeros(3), Z, *q, got)
        assert np.linalg.norm(got - e) <= 1e-3 * np.linalg.norm(e)


# --- fidelity against magpylib -----------------------------------------------------------

def test_magpylib_reference_is_converged_at_the_closest_gap():
    cj, nj = tilted_45(GAPS[0])
    coarse = magpylib_reference(cj, nj)
    fine = magpylib_reference(cj, nj, mesh=(192, 48, 24))
    force_error, torque_error = relative_errors(coarse, fine)
    assert force_error < 0.02 and torque_error < 0.02


@pytest.mark.parametrize("gap", GAPS)
def test_force_and_torque_match_magpylib_coaxial_attracting(gap):
    cj, nj = coaxial(gap, attracting=True)
    ref = magpylib_reference(cj, nj)
    assert ref[0][2] < 0                      # j is pulled towards i
    assert max(relative_errors(kernel(cj, nj), ref)) < tolerance(gap)


@pytest.mark.parametrize("gap", GAPS)
def test_force_and_torque_match_magpylib_coaxial_repelling(gap):
    cj, nj = coaxial(gap, attracting=False)
    ref = magpylib_reference(cj, nj)
    assert ref[0][2] > 0
    assert max(relative_errors(kernel(cj, nj), ref)) < tolerance(gap)


@pytest.mark.parametrize("gap", GAPS)
def test_force_and_torque_match_magpylib_side_by_side(gap):
    cj, nj = side_by_side(gap)
    ref = magpylib_reference(cj, nj)
    assert ref[0][0] > 0                      # parallel neighbours repel
    assert max(relative_errors(kernel(cj, nj), ref)) < tolerance(gap)


@pytest.mark.parametrize("gap", GAPS)
def test_force_and_torque_match_magpylib_tilted_45_degrees(gap):
    cj, nj = tilted_45(gap)
    ref = magpylib_reference(cj, nj)
    assert max(relative_errors(kernel(cj, nj), ref)) < tolerance(gap)


def support(n, u):
    """Extent of a magnet with axis n from its centre along the unit u."""
    c = abs(u @ n)
    return B * c + A * math.sqrt(max(0.0, 1.0 - c * c))


def test_near_field_matches_a_converged_rule_on_random_poses():
    """Beyond the three arrangements: random axes and directions, magnets held
    apart by a separating plane at 0.5 mm to one diameter (the gap is at least
    that).  Reference: the same charge model with j's faces sampled 32 × 128."""
    rng = np.random.default_rng(20261129)
    reference_rule = mag.face_rule(32, 128)
    errors = []
    for gap in np.geomspace(0.0005, DIAMETER, 40):
        ni, nj, u = (v / np.linalg.norm(v) for v in rng.normal(size=(3, 3)))
        cj = (support(ni, u) + support(nj, u) + gap) * u
        got = kernel(cj, nj, ni=ni)
        ref = [np.array(v) for v in mag._sampled_pair(
            (0.0, 0.0, 0.0), tuple(ni), tuple(cj), tuple(nj), A, B, BR, BR, reference_rule, 0, len(reference_rule), True,
            no_table(), 1.0)[0]]
        errors.append(max(relative_errors(got, ref)))
    assert max(errors) < 0.15
    assert np.median(errors) < 0.02


def test_point_dipole_is_far_off_near_contact_so_the_kernel_is_not_one():
    """The reason for the charge model: at 0.5 mm the dipole formula is many
    times too strong coaxially and several times too weak side by side."""
    for cj, nj, low, high in ((*coaxial(GAPS[0]), 10.0, 1e3), (*side_by_side(GAPS[0]), 0.0, 0.5)):
        dipole_force = mag._dipole_pair((0.0, 0.0, 0.0), tuple(Z), tuple(cj), tuple(nj), A, B, BR, BR)[0]
        ratio = np.linalg.norm(dipole_force) / np.linalg.norm(kernel(cj, nj)[0])
        assert low < ratio < high


# --- conservation laws -------------------------------------------------------------------

unit_vectors = st.tuples(*[st.floats(-1.0, 1.0)] * 3).filter(
    lambda v: 0.1 < math.sqrt(v[0] ** 2 + v[1] ** 2 + v[2] ** 2)
).map(lambda v: np.array(v) / np.linalg.norm(v))
CLEAR = 2 * math.hypot(A, B)           # centre distance beyond which the magnets never touch


def pose(ni, nj, direction, distance):
    return np.zeros(3), ni, distance * direction, nj


@settings(max_examples=200, deadline=None, derandomize=True)
@given(unit_vectors, unit_vectors, unit_vectors, st.floats(0.3 * CLEAR, 15 * DIAMETER),
       st.floats(0.1, 1.5), st.floats(0.1, 1.5))
def test_torques_balance_angular_momentum_on_random_poses(ni, nj, direction, distance, bri, brj):
    ci, ni, cj, nj = pose(ni, nj, direction, distance)
    f, t_i, t_j = mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, bri, brj)
    # total torque about the origin: T_i + ci × F_i + T_j + cj × F_j, with F_i = -F_j
    total = t_i + t_j + np.cross(cj - ci, f)
    scale = np.linalg.norm(t_i) + np.linalg.norm(t_j) + np.linalg.norm(cj - ci) * np.linalg.norm(f)
    assert np.linalg.norm(total) <= 1e-12 * scale


def _dipole_scale(distance) -> float:
    """The coaxial point-dipole force between two of these magnets at this distance."""
    m = mag.dipole_moment(BR, RADIUS, THICKNESS)
    return 3e-7 * m * m / distance**4


def _swap_mismatch(ni, nj, direction, distance) -> float:
    """How far j's evaluation of the pair is from i's: the force reversed and
    the torques swapped, relative to the pair's force and torque. The model
    samples the source's faces, so the two differ by its discretisation."""
    ci, ni, cj, nj = pose(ni, nj, direction, distance)
    f, t_i, t_j = mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, BR, BR)
    g, s_j, s_i = mag.pair_force_torque_py(cj, nj, ci, ni, RADIUS, THICKNESS, BR, BR)
    force_scale = max(np.linalg.norm(f), 1e-9 * _dipole_scale(distance))  # a force zero by symmetry is rounding
    torque_scale = max(np.linalg.norm(t_i), np.linalg.norm(t_j), A * force_scale)
    return max(np.linalg.norm(g + f) / force_scale, np.linalg.norm(s_i - t_i) / torque_scale,
               np.linalg.norm(s_j - t_j) / torque_scale)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(unit_vectors, unit_vectors, unit_vectors, st.floats(CLEAR + 0.010, 15 * DIAMETER))
def test_swapping_i_and_j_reverses_the_force_and_swaps_the_torques(ni, nj, direction, distance):
    """Magnets 10 mm or more apart: within 2 % (worst of 31,000 random poses:
    1.8 %, at 10-14 mm)."""
    assert _swap_mismatch(ni, nj, direction, distance) <= 0.02


@settings(max_examples=100, deadline=None, derandomize=True)
@example(np.array([0.81322432, 0.43127765, 0.3907247]), np.array([-0.57381148, 0.52397352, 0.62943795]),
         np.array([0.07468827, 0.56010992, -0.82504457]), 0.028897385089917807)
@example(np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0]), np.array([S45, 0.0, S45]), 0.029296875)
@given(unit_vectors, unit_vectors, unit_vectors, st.floats(CLEAR + 0.003, CLEAR + 0.010))
def test_swapping_i_and_j_near_contact_differs_by_the_face_sampling_only(ni, nj, direction, distance):
    """Magnets 3-10 mm apart: within 6 %. Of 15,000 random poses 2.4 % differ
    by more than 2 % and the worst (the first example) by 5.0 %. Until
    session 11 one test claimed 2 % at every distance; it passed only while
    the derandomized draws missed such poses, and failed (the second example)
    once Hypothesis mined other constants from the changed source. Well inside the fidelity bar (15 % to magpylib below one
    diameter), and the core evaluates each pair once and applies it both
    ways (sim.forces), so Newton's third law is exact in a run."""
    assert _swap_mismatch(ni, nj, direction, distance) <= 0.06


# --- symmetries ---------------------------------------------------------------------------

def _symmetry_scale(f, distance) -> float:
    """|F|, but not below 1e-4 of the coaxial dipole force at this distance: a
    force zero by symmetry is rounding (~1e-14 of that), and relative to its
    own size its direction is noise."""
    return max(np.linalg.norm(f), 1e-4 * _dipole_scale(distance))


@settings(max_examples=60, deadline=None, derandomize=True)
@example(np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0]), 0.125, (0.0, 0.0, 1.0))
@example(np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0]), np.array([0.0, 1.0, 2e-9]), 0.125, (0.0, 0.0, 2.0))
@given(unit_vectors, unit_vectors, unit_vectors, st.floats(CLEAR, 12 * DIAMETER),
       st.tuples(*[st.floats(-math.pi, math.pi)] * 3))
def test_rotating_the_whole_pair_rotates_force_and_torques(ni, nj, direction, distance, angles):
    """To 1e-9; to 1e-6 where j's axis lies within 1e-9..1e-6 rad of the line
    of centres: there rounding sets the azimuth j's face samples start from
    (sim.magnetics ``_target_frame``), a jump of up to ~0.1 % near contact
    at 1e-6 rad and 3.5e-7 relative in the worst of 2,000 such poses."""
    tilt = np.linalg.norm(np.cross(nj, direction))
    bound = 1e-6 if 1e-10 < tilt < 1e-6 else 1e-9
    ci, ni, cj, nj = pose(ni, nj, direction, distance)
    ci = ci + np.array([0.1, -0.05, 0.02])
    cj = cj + np.array([0.1, -0.05, 0.02])
    rot = Rotation.from_euler("xyz", angles).as_matrix()
    f, t_i, t_j = mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, BR, BR)
    g, s_i, s_j = mag.pair_force_torque_py(rot @ ci, rot @ ni, rot @ cj, rot @ nj, RADIUS, THICKNESS, BR, BR)
    scale = _symmetry_scale(f, distance)
    tscale = max(np.linalg.norm(t_i), np.linalg.norm(t_j), A * scale)
    assert np.linalg.norm(g - rot @ f) <= bound * scale
    assert np.linalg.norm(s_i - rot @ t_i) <= bound * tscale
    assert np.linalg.norm(s_j - rot @ t_j) <= bound * tscale


@settings(max_examples=60, deadline=None, derandomize=True)
@example(np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0]), 0.125)
@given(unit_vectors, unit_vectors, unit_vectors, st.floats(CLEAR, 12 * DIAMETER))
def test_flipping_both_axes_leaves_force_and_torques_unchanged(ni, nj, direction, distance):
    ci, ni, cj, nj = pose(ni, nj, direction, distance)
    f, t_i, t_j = mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, BR, BR)
    g, s_i, s_j = mag.pair_force_torque_py(ci, -ni, cj, -nj, RADIUS, THICKNESS, BR, BR)
    scale = _symmetry_scale(f, distance)
    tscale = max(np.linalg.norm(t_i), np.linalg.norm(t_j), A * scale)
    assert np.linalg.norm(g - f) <= 1e-8 * scale
    assert np.linalg.norm(s_i - t_i) <= 1e-8 * tscale
    assert np.linalg.norm(s_j - t_j) <= 1e-8 * tscale


def test_flipping_one_axis_reverses_force_and_torques():
    cj, nj = tilted_45(0.003)
    f, t_i, t_j = kernel(cj, nj)
    g, s_i, s_j = kernel(cj, -nj)
    assert np.allclose(g, -f, rtol=0, atol=1e-10 * np.linalg.norm(f))
    assert np.allclose(s_j, -t_j, rtol=0, atol=1e-10 * np.linalg.norm(t_i))


def test_force_scales_with_the_product_of_remanences():
    cj, nj = tilted_45(0.002)
    f, t_i, t_j = mag.pair_force_torque_py(np.zeros(3), Z, cj, nj, RADIUS, THICKNESS, 0.39, 0.39)
    g, s_i, s_j = mag.pair_force_torque_py(np.zeros(3), Z, cj, nj, RADIUS, THICKNESS, 0.78, 0.195)
    assert np.allclose(g, f, rtol=1e-12, atol=0)
    assert np.allclose(s_i, t_i, rtol=1e-12, atol=1e-18)


def test_same_inputs_give_bit_identical_outputs():
    cj, nj = tilted_45(0.001)
    first = np.concatenate(kernel(cj, nj))
    second = np.concatenate(kernel(cj.copy(), nj.copy()))
    assert first.tobytes() == second.tobytes()


# --- far field and the switches between tiers -----------------------------------------------

def dipole_reference(ci, ni, cj, nj):
    """Textbook point dipoles: F_on_j, T_on_i = m_i × B_j(ci), T_on_j = m_j × B_i(cj)."""
    m = mag.dipole_moment(BR, RADIUS, THICKNESS)
    mi, mj = m * ni, m * nj
    r = cj - ci
    d = np.linalg.norm(r)
    u = r / d
    k = 3 * mag.MU0 / (4 * math.pi * d ** 4)
    f = k * ((mi @ u) * mj + (mj @ u) * mi + (mi @ mj) * u - 5 * (mi @ u) * (mj @ u) * u)

    def field(moment, at):
        return mag.MU0 / (4 * math.pi * d ** 3) * (3 * (moment @ at) * at - moment)

    return f, np.cross(mi, field(mj, -u)), np.cross(mj, field(mi, u))


def test_dipole_moment_is_remanence_times_volume_over_mu0():
    volume = math.pi * RADIUS ** 2 * THICKNESS
    assert mag.dipole_moment(BR, RADIUS, THICKNESS) == pytest.approx(BR * volume / mag.MU0, rel=1e-15)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(unit_vectors, unit_vectors, unit_vectors, st.floats(mag.DIPOLE_DISTANCE[1], 40.0))
def test_far_field_equals_the_point_dipole_formula(ni, nj, direction, diameters):
    ci, ni, cj, nj = pose(ni, nj, direction, diameters * DIAMETER)
    got = mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, BR, BR)
    want = dipole_reference(ci, ni, cj, nj)
    scale = np.linalg.norm(want[0])
    tscale = max(np.linalg.norm(want[1]), np.linalg.norm(want[2]), A * scale)
    assert np.linalg.norm(got[0] - want[0]) <= 1e-9 * scale
    assert np.linalg.norm(got[1] - want[1]) <= 1e-9 * tscale
    assert np.linalg.norm(got[2] - want[2]) <= 1e-9 * tscale


def test_multipole_tier_matches_point_dipoles_where_it_hands_over():
    """At the start of the dipole blend the truncation error of the dipole is ~1 %."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        ni, nj, u = (v / np.linalg.norm(v) for v in rng.normal(size=(3, 3)))
        ci, ni, cj, nj = pose(ni, nj, u, mag.DIPOLE_DISTANCE[0] * DIAMETER * 0.999)
        got = mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, BR, BR)
        want = dipole_reference(ci, ni, cj, nj)
        assert np.linalg.norm(got[0] - want[0]) <= 0.03 * np.linalg.norm(want[0])


def walk(direction, ni, nj, distances):
    """Kernel outputs (9 values each) along a radial line of centre distances."""
    return np.array([np.concatenate(mag.pair_force_torque_py(
        np.zeros(3), ni, d * direction, nj, RADIUS, THICKNESS, BR, BR)) for d in distances])


@pytest.mark.parametrize("band", [mag.MULTIPOLE_DISTANCE, mag.DIPOLE_DISTANCE])
def test_force_is_continuous_across_the_distance_switches(band):
    u = np.array([0.6, 0.0, 0.8])
    nj = np.array([0.0, S45, S45])
    for edge in band:
        d = edge * DIAMETER
        below, above = walk(u, Z, nj, [d * (1 - 1e-9), d * (1 + 1e-9)])
        assert np.linalg.norm(above - below) <= 1e-6 * np.linalg.norm(below)


@pytest.mark.parametrize("band", mag.EDGE_GAP_BANDS)
def test_force_is_continuous_across_the_edge_gap_switches(band):
    for edge in band:
        gap = edge * A
        below = np.concatenate(kernel(*tilted_45(gap * (1 - 1e-9))))
        above = np.concatenate(kernel(*tilted_45(gap * (1 + 1e-9))))
        assert np.linalg.norm(above - below) <= 1e-6 * np.linalg.norm(below)


def _rule(k, ci, ni, cj, nj):
    return mag._sampled_pair(tuple(ci), tuple(ni), tuple(cj), tuple(nj), A, B, BR, BR, mag.NEAR_RULES,
                             mag.NEAR_RULE_STARTS[k], mag.NEAR_RULE_STARTS[k + 1], True, field_table(A, B), 1.0)[0]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(unit_vectors, unit_vectors, unit_vectors, st.floats(0.0, 1.3))
def test_near_tier_takes_the_rule_its_edge_gap_picks(ni, nj, direction, sphere_gap):
    """Magnets up to 1.75 diameters apart: the rule (or blend of two, here without
    the blend's work term: ``blend=0``) that the edge gap picks, bit for bit, also
    where the kernel skips the edge gap
    because the bounding spheres are further apart than the last band (the
    edge gap is never smaller than the spheres' gap)."""
    ci, ni, cj, nj = pose(ni, nj, direction, CLEAR + sphere_gap * A)
    g = eg.edge_gap(ci, ni, cj, nj, A, B) / A
    assert g >= sphere_gap * (1.0 - 1e-12)
    k = int(np.sum(g >= mag.EDGE_GAP_EDGES[:, 1]))
    expected = _rule(k, ci, ni, cj, nj)
    if k < len(mag.EDGE_GAP_BANDS) and g > mag.EDGE_GAP_EDGES[k, 0]:
        w = mag._smoothstep(g, *mag.EDGE_GAP_EDGES[k])
        expected = mag._blend(w, expected, _rule(k + 1, ci, ni, cj, nj))
    got = mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, BR, BR, blend=0.0)
    assert np.array_equal(np.concatenate(got), np.concatenate(expected))


def _distance_loop_work_share(band, blend):
    """Carry j (tilted, i tilted too) around a closed loop in 3-D through a band of
    centre distance, fields in closed form: |loop work| / gross work of the force."""
    ni = np.array([0.3, -0.2, 1.0]) / np.linalg.norm([0.3, -0.2, 1.0])
    nj = np.array([0.6, 0.3, 0.7]) / np.linalg.norm([0.6, 0.3, 0.7])
    centre, radius = 0.5 * (band[0] + band[1]) * DIAMETER, 0.75 * (band[1] - band[0]) * DIAMETER
    u = np.array([0.8, 0.36, 0.48])
    e1 = np.cross(u, Z) / np.linalg.norm(np.cross(u, Z))
    e2 = np.cross(u, e1)
    path = np.array([centre * u + radius * ((math.cos(t) - 1.0) * u + math.sin(t) * (0.6 * e1 + 0.8 * e2))
                     for t in np.linspace(0.0, 2 * math.pi, 801)])
    forces = np.array([mag.pair_force_torque_py(np.zeros(3), ni, p, nj, RADIUS, THICKNESS, BR, BR, exact=True,
                                                blend=blend)[0] for p in path])
    work = np.einsum("ij,ij->i", 0.5 * (forces[1:] + forces[:-1]), np.diff(path, axis=0))
    return abs(work.sum()) / np.abs(work).sum()


@pytest.mark.parametrize("band", [mag.MULTIPOLE_DISTANCE, mag.DIPOLE_DISTANCE], ids=["near-multipole", "multipole-dipole"])
def test_no_work_is_gained_around_a_loop_through_a_distance_switch(band):
    """∮ F_on_j · dr around a closed loop through a band where two tiers are blended
    is rounding (<= 1e-7 of the gross work): the blend adds the work of its weight,
    -(E_2 - E_1) grad w (sim.magnetics, Conservation). Without it (physics 0.14.0)
    the multipole-dipole band kept 5e-4."""
    assert _distance_loop_work_share(band, 1.0) <= 1e-7
    if band is mag.DIPOLE_DISTANCE:
        assert _distance_loop_work_share(band, 0.0) > 1e-4


def test_little_work_is_gained_around_a_loop_of_orientations_near_contact():
    """Tilting j around a small closed cone 4 mm from i: the torque's loop work
    is a tiny fraction of the work done along the way (6e-5 since physics 0.14.0,
    the field table's interpolation; 1.7e-4 before)."""
    nj0 = np.array([S45, 0.0, S45])
    cj, _ = tilted_45(0.004)
    tilt_axis = np.array([0.0, 1.0, 0.0])
    other_axis = np.cross(nj0, tilt_axis)
    angles = np.linspace(0.0, 2 * math.pi, 401)
    amplitude = 0.04
    rotations = [Rotation.from_rotvec(tilt_axis * amplitude * math.sin(t))
                 * Rotation.from_rotvec(other_axis * amplitude * (1 - math.cos(t))) for t in angles]
    torques = [kernel(cj, r.apply(nj0))[2] for r in rotations]
    work = [0.5 * (torques[k] + torques[k + 1]) @ (rotations[k + 1] * rotations[k].inv()).as_rotvec()
            for k in range(len(angles) - 1)]
    assert abs(sum(work)) <= 1e-3 * sum(abs(w) for w in work)


def _loop_work_share(gap, seed, exact, steps=400, reach=(2e-4, 0.02), blend=1.0):
    """Carry j around a closed loop of poses near the 45° leaner pose at magnet
    gap ``gap`` (its centre within ``reach[0]`` m, its axis within ``reach[1]`` rad):
    (|loop work| / gross work of force and torque, least and largest edge gap / a)."""
    rng = np.random.default_rng(seed)
    c0, n0 = tilted_45(gap)
    e = rng.normal(size=(4, 3))
    t = np.linspace(0.0, 2 * math.pi, steps + 1)
    centres = [c0 + reach[0] * (math.sin(s) * e[0] + (1 - math.cos(s)) * e[1]) for s in t]
    turns = [Rotation.from_rotvec(reach[1] * (math.sin(2 * s) * e[2] + (1 - math.cos(s)) * e[3])) for s in t]
    axes = [r.apply(n0) for r in turns]
    results = [mag.pair_force_torque_py(np.zeros(3), Z, c, n, RADIUS, THICKNESS, BR, BR, exact=exact, blend=blend)
               for c, n in zip(centres, axes)]
    work = np.array([0.5 * (results[k][0] + results[k + 1][0]) @ (centres[k + 1] - centres[k])
                     + 0.5 * (results[k][2] + results[k + 1][2]) @ (turns[k + 1] * turns[k].inv()).as_rotvec()
                     for k in range(steps)])
    gaps = [eg.edge_gap(np.zeros(3), Z, c, n, A, B) / A for c, n in zip(centres, axes)]
    return abs(work.sum()) / np.abs(work).sum(), min(gaps), max(gaps)


@pytest.mark.parametrize("gap, band", [(0.0015, 0), (0.0034, 1), (0.0075, 2)])
def test_no_work_is_gained_around_a_loop_of_poses_through_a_rule_band(gap, band):
    """Loops of poses (centre within 0.4 mm, axis within 0.04 rad) through each
    band where two sampling rules are blended: with the closed-form field the
    loop work is under 5e-5 of the gross work, because the blend adds the work of
    its weight changing with the pose (-(E_sparse - E_dense) grad w; sim.magnetics,
    Conservation). Without that term (physics 0.14.0, ``blend=0``) the same loops
    keep 1e-4 to 1e-2 of it."""
    shares, bare = [], []
    for seed in range(3):
        share, lowest, highest = _loop_work_share(gap, seed, exact=True, reach=(4e-4, 0.04))
        assert lowest < mag.EDGE_GAP_BANDS[band][1] and mag.EDGE_GAP_BANDS[band][0] < highest
        shares.append(share)
        bare.append(_loop_work_share(gap, seed, exact=True, reach=(4e-4, 0.04), blend=0.0)[0])
    assert max(shares) < 5e-5, shares
    assert max(bare) > 20 * max(shares), (bare, shares)


def test_the_blend_work_term_is_added_inside_a_band_only():
    """Within one rule the term is absent (bit for bit the bare kernel); inside a
    band it moves the force. (At a band's edges its weight's slope is 0: the
    continuity tests above run the kernel with the term.)"""
    for gap in (0.0020, 0.0050):
        cj, nj = tilted_45(gap)
        with_term = mag.pair_force_torque_py(np.zeros(3), Z, cj, nj, RADIUS, THICKNESS, BR, BR)
        bare = mag.pair_force_torque_py(np.zeros(3), Z, cj, nj, RADIUS, THICKNESS, BR, BR, blend=0.0)
        assert np.array_equal(np.concatenate(with_term), np.concatenate(bare))
    cj, nj = tilted_45(0.0015)
    with_term = mag.pair_force_torque_py(np.zeros(3), Z, cj, nj, RADIUS, THICKNESS, BR, BR)
    bare = mag.pair_force_torque_py(np.zeros(3), Z, cj, nj, RADIUS, THICKNESS, BR, BR, blend=0.0)
    assert not np.array_equal(with_term[0], bare[0])


def _band_poses(count: int, seed: int = 1):
    """``count`` random poses (ci, ni, cj, nj as tuples) whose edge gap is inside a
    rule band: j anywhere within 45 mm of i's centre, any tilt, a third of them
    nearly coaxial (tilted under 0.2 rad, centre within 3 mm of i's axis)."""
    rng = np.random.default_rng(seed)
    b, poses = 0.5 * THICKNESS, []
    while len(poses) < count:
        tilt, az, az2 = rng.uniform(0, np.pi), rng.uniform(0, 2 * np.pi), rng.uniform(0, 2 * np.pi)
        coaxial = len(poses) % 3 == 0
        if coaxial:
            tilt = rng.uniform(0, 0.2)
        nj = (float(np.sin(tilt) * np.cos(az)), float(np.sin(tilt) * np.sin(az)), float(np.cos(tilt)))
        off = rng.uniform(0, 0.003 if coaxial else 0.045)
        cj = (float(off * np.cos(az2)), float(off * np.sin(az2)), float(rng.uniform(-0.03, 0.03)))
        ci, ni = (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)
        g = eg.edge_gap(np.array(ci), np.array(ni), np.array(cj), np.array(nj), RADIUS, b)
        if any(lo < g / RADIUS < hi for lo, hi in mag.EDGE_GAP_EDGES):
            poses.append((ci, ni, cj, nj))
    return poses


def _scanned_edge_gap(ci, ni, cj, nj, a, b, samples=4000):
    """The edge gap by brute force: each rim sampled at ``samples`` points, the
    least of them polished on a grid 2,000 times finer around it (m)."""
    ci, ni, cj, nj = (np.asarray(v) for v in (ci, ni, cj, nj))
    u = np.asarray(perpendicular(tuple(ni)))
    v = np.cross(ni, u)

    def squared(t, zs, zt):
        x = ci + zs * ni + a * (np.cos(t)[:, None] * u + np.sin(t)[:, None] * v)
        p = x - (cj + zt * nj)
        h = p @ nj
        rho = np.linalg.norm(p - h[:, None] * nj, axis=1)
        return h * h + np.maximum(rho - a, 0.0) ** 2

    best = math.inf
    t = np.linspace(0.0, 2 * math.pi, samples, endpoint=False)
    for zs in (b, -b):
        for zt in (b, -b):
            k = int(np.argmin(squared(t, zs, zt)))
            fine = np.linspace(t[k] - 2 * math.pi / samples, t[k] + 2 * math.pi / samples, 2001)
            best = min(best, float(np.min(squared(fine, zs, zt))))
    return math.sqrt(best)


def test_the_edge_gap_is_the_least_distance_from_the_rims_to_the_faces():
    """Physics 0.17.0's edge gap (``_nearest_edge_gap``: a 12-point scan of each rim,
    every minimum between two samples refined, rim-face pairs pruned by lower
    bounds) against a brute-force scan, at 300 band poses and at four poses
    where two minima of one rim lie closer than the scan's step (found by
    20,000-pose searches; a scan that refines only sign changes of the
    distance's slope misses them by 1e-3 to 1e-2 a): within 1e-6 a. The three
    projection rounds it replaces (``converged_gap=False``, physics 0.16.0)
    overestimate most band poses, by up to ~0.4 a."""
    b = 0.5 * THICKNESS
    poses = _band_poses(300) + [
        ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), (-0.00164111, 0.0016916, 0.01091106), (0.59670439, -0.52243047, -0.60910613)),
        ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), (-0.01299794, -0.00245029, -0.00151276), (0.00243492, 0.01409686, 0.99989767)),
        ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), (-0.000806699, 0.021109624, 0.010529029), (0.00212173, -0.69643255, 0.71761912)),
        ((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), (-0.019599648, 0.014735176, 0.010741185), (0.01581607, -0.00950067, 0.99982978)),
    ]
    errors, old_errors = [], []
    for ci, ni, cj, nj in poses:
        nj = tuple(np.asarray(nj) / np.linalg.norm(nj))
        scanned = _scanned_edge_gap(ci, ni, cj, nj, RADIUS, b)
        arrays = [np.array(v) for v in (ci, ni, cj, nj)]
        errors.append(abs(eg.edge_gap(*arrays, RADIUS, b) - scanned) / RADIUS)
        old_errors.append((eg.edge_gap(*arrays, RADIUS, b, False) - scanned) / RADIUS)
    assert max(errors) < 1e-6, (int(np.argmax(errors)), max(errors))
    assert np.mean(np.array(old_errors[:300]) > 1e-3) > 0.3 and max(old_errors) > 0.1


def test_the_edge_gap_slope_of_the_blend_work_term_is_a_gradient():
    """The blends' work term is -(E_2 - E_1) dw/dg grad g. Physics 0.17.0 takes
    grad g in j's translation from the gap's converged nearest points x (rim) and
    y (face), -(x - y) / g (the gap between fixed points moves as they do), and
    in its rotation by central differences of the converged gap over 1e-5 rad.
    At 300 random band poses the first is a unit vector and both equal central
    differences of the gap over 1e-7 within 1e-6. Physics 0.16.0 took central differences of a rim-to-face distance by
    three projection rounds, which for pairs nearly coaxial and tilted stop far
    from the nearest points and swing with the pose: |dg/dx| up to ~400 at ~7 %
    of band poses (a = 13 mm), and there the term was a spurious force (a
    leaner tumbling over its host: 12 N where the pair's force is 1 N; 8.6 % of
    a frictionless snap's peak kinetic energy lost in two steps,
    docs/MEASUREMENTS.md)."""
    b, h = 0.5 * THICKNESS, 1e-7
    old_slopes = []
    for ci, ni, cj, nj in _band_poses(300):
        _, push, zs, zt = eg.nearest_gap(ci, ni, cj, nj, RADIUS, b, math.inf)
        lever = np.array(eg.nearest_gap_turn(ci, ni, cj, nj, RADIUS, zs, zt))
        arrays = [np.array(v) for v in (ci, ni, cj, nj)]
        assert np.linalg.norm(push) == pytest.approx(1.0, abs=1e-12)
        for e in np.eye(3):
            moved = (eg.edge_gap(arrays[0], arrays[1], arrays[2] + h * e, arrays[3], RADIUS, b)
                     - eg.edge_gap(arrays[0], arrays[1], arrays[2] - h * e, arrays[3], RADIUS, b)) / (2 * h)
            turned = (eg.edge_gap(arrays[0], arrays[1], arrays[2], Rotation.from_rotvec(h * e).apply(arrays[3]),
                                   RADIUS, b)
                      - eg.edge_gap(arrays[0], arrays[1], arrays[2], Rotation.from_rotvec(-h * e).apply(arrays[3]),
                                     RADIUS, b)) / (2 * h)
            assert moved == pytest.approx(push @ e, abs=1e-6)
            assert turned == pytest.approx(lever @ e, abs=1e-6 * RADIUS)
        g, zs, zt = eg.projected_gap(ci, ni, cj, nj, RADIUS, b)
        if any(lo < g / RADIUS < hi for lo, hi in mag.EDGE_GAP_EDGES):
            old_slopes.append(float(np.linalg.norm(eg.projected_gap_slope(ci, ni, cj, nj, RADIUS, zs, zt)[0])))
    assert max(old_slopes) > 1.01                    # the control: physics 0.16.0's slope is no gradient


@pytest.mark.parametrize("gap", [0.0020, 0.0023, 0.0026])
def test_no_work_is_gained_around_a_loop_of_poses_within_one_rule(gap):
    """Moving and tilting j around closed loops 2-2.6 mm from i, all within the
    4 x 16 rule: with the closed-form field the loop work is rounding (<= 2e-7 of
    the gross work), because the kernel adds the work of its sampling frame
    turning with the pose (sim.magnetics, Conservation). Physics 0.13 left
    1.5e-5 to 8.5e-5 on these loops."""
    for seed in range(3):
        share, lowest, highest = _loop_work_share(gap, seed, exact=True)
        assert mag.EDGE_GAP_BANDS[0][1] < lowest and highest < mag.EDGE_GAP_BANDS[1][0]
        assert share < 1e-6, (seed, share)


@settings(max_examples=100, deadline=None, derandomize=True)
@given(unit_vectors, unit_vectors, unit_vectors, st.floats(0.02 * CLEAR, 15 * DIAMETER))
def test_no_torque_turns_a_disc_magnet_about_its_own_axis(ni, nj, direction, distance):
    """A uniformly, axially magnetised disc's energy does not change as it spins
    about its axis, so no torque acts along it: the kernel's axial torque on j is
    rounding (before physics 0.14.0 it kept the quadrature's, up to ~1 % of |F| a).
    Within 1 mm of j's axis, where the frame-turn term fades out, the quadrature's
    stays: under 1e-3 of |F| a."""
    ci, ni, cj, nj = pose(ni, nj, direction, distance)
    f, _, t_j = mag.pair_force_torque_py(ci, ni, cj, nj, RADIUS, THICKNESS, BR, BR)
    d = ci - cj
    off_axis = np.linalg.norm(d - (d @ nj) * nj)
    scale = np.linalg.norm(t_j) + np.linalg.norm(f) * A
    if off_axis >= mag.FRAME_TURN_FADE[1]:
        assert abs(t_j @ nj) <= 1e-12 * scale
    else:
        assert abs(t_j @ nj) <= 1e-3 * np.linalg.norm(f) * A
