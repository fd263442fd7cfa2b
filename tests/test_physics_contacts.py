"""Discs never pass into each other, and bodies at rest fall asleep.

Contacts push a point out through the surface it entered by (sim.contacts,
``cylinder_sdf_entered``); a body whose pose stays put sleeps even while its
contacts jitter (sim.sleeping, ``in_rest_ball``).
"""

import numpy as np
import pytest

from sim.api import Intent, PhysicsParams, World, place_leaner, settle
from sim.contacts import FACE_DOWN, FACE_UP, NO_FEATURE, SIDE, cylinder_sdf_entered
from sim.sleeping import in_rest_ball

A, HH = 0.015, 0.003


def test_point_deep_in_a_face_is_pushed_back_out_of_that_face_not_out_the_side():
    normal = np.zeros(3)
    axis = np.array([0.0, 0.0, 1.0])
    near_rim = (0.0142, 0.0, 0.0015)                 # 1.5 mm under the top face, 0.8 mm from the rim
    d, feat = cylinder_sdf_entered(*near_rim, axis, A, HH, NO_FEATURE, normal)
    assert feat == SIDE and np.allclose(normal, [1, 0, 0])          # nearest surface: the side
    d, feat = cylinder_sdf_entered(*near_rim, axis, A, HH, FACE_UP, normal)
    assert feat == FACE_UP and np.allclose(normal, [0, 0, 1]) and np.isclose(d, -0.0015)
    past_middle = (0.005, 0.0, -0.001)               # entered through the top, now past the middle
    d, feat = cylinder_sdf_entered(*past_middle, axis, A, HH, FACE_UP, normal)
    assert np.allclose(normal, [0, 0, 1]) and np.isclose(d, -0.004)
    d, feat = cylinder_sdf_entered(*past_middle, axis, A, HH, NO_FEATURE, normal)
    assert feat == FACE_DOWN                         # what the nearest surface would have said


def test_point_outside_has_no_feature_whatever_it_entered_by():
    normal = np.zeros(3)
    d, feat = cylinder_sdf_entered(0.0, 0.0, 0.004, np.array([0.0, 0.0, 1.0]), A, HH, FACE_UP, normal)
    assert d > 0 and feat == NO_FEATURE


def _centre_distance_after(w: World, i: int, j: int) -> float:
    ep = settle(w)
    assert ep.status == "settled"
    return float(np.linalg.norm(w.pos[i] - w.pos[j]))


def test_tower_disc_slammed_onto_another_stays_on_top_of_it():
    for spin in (0.0, 30.0):                          # straight down, and tumbling
        w = World.new()
        low, top = w.add_tower(2, 0.0, 0.0, up=1)
        w.vel[top] = (0.0, 0.0, -3.0)                 # 3 m/s, the magnets pulling too
        w.omega[top] = (spin, 0.0, 0.0)
        w.awake[:] = 1
        assert _centre_distance_after(w, low, top) > 0.9 * w.params.thickness


def _pose(n: int = 1):
    pos = np.zeros((n, 3))
    quat = np.zeros((n, 4))
    quat[:, 0] = 1.0
    return pos, quat


def test_body_jittering_in_place_counts_as_still_and_a_drifting_one_does_not():
    pos, quat = _pose()
    anchor_pos, anchor_quat = pos.copy(), quat.copy()
    for k in range(200):                              # +-20 um at any speed: at rest
        pos[0, 0] = 2e-5 * (-1) ** k
        assert in_rest_ball(0, pos, quat, anchor_pos, anchor_quat, A, 1e-4)
    pos[0, 0] = 2e-4                                  # moved away: not still, re-anchored there
    assert not in_rest_ball(0, pos, quat, anchor_pos, anchor_quat, A, 1e-4)
    assert in_rest_ball(0, pos, quat, anchor_pos, anchor_quat, A, 1e-4)
    assert not in_rest_ball(0, pos, quat, anchor_pos, anchor_quat, A, 0.0)      # 0: off


def test_disc_spinning_on_the_spot_is_not_at_rest():
    pos, quat = _pose()
    anchor_pos, anchor_quat = pos.copy(), quat.copy()
    turn = 0.02                                       # rim moves 0.3 mm: more than the ball
    quat[0] = (np.cos(turn / 2), 0.0, 0.0, np.sin(turn / 2))
    assert not in_rest_ball(0, pos, quat, anchor_pos, anchor_quat, A, 1e-4)


def test_rest_ball_puts_a_settled_scene_to_sleep_sooner_and_off_changes_nothing_else():
    def scene(ball):
        w = World.new(PhysicsParams(rest_ball=ball))
        w.add_tower(3, 0.0, 0.0, up=1)
        w.add_flat(0.034, 0.0, up=-1)
        w.vel[2] = (0.3, 0.0, -0.5)
        return settle(w)
    with_ball, without = scene(1e-4), scene(0.0)
    assert with_ball.status == without.status == "settled"
    assert with_ball.steps <= without.steps
    assert [b.state for b in with_ball.final] == [b.state for b in without.final]


def test_near_pair_moved_as_one_piece_reuses_its_result_rotated_along():
    """The pair cache keys near pairs in i's body frame: a tower pair tilted as
    one piece is not recomputed, and the rotated result equals a fresh one."""
    from scipy.spatial.transform import Rotation

    from sim.forces import BODY_KEY, new_cache, pair_cached
    from sim.magnetics import pair_force_torque

    p = PhysicsParams()
    table = World.new(p).field
    pos = np.array([[0.0, 0.0, 0.003], [0.0005, 0.0, 0.009]])     # a slightly offset tower pair
    rot = np.array([np.eye(3), Rotation.from_rotvec([0.02, 0.0, 0.0]).as_matrix()])
    cache, key, valid = new_cache(2)

    def cached(pos, rot):
        axis = np.ascontiguousarray(rot[:, :, 2])
        pair_cached(0, 1, pos, axis, rot, np.full(2, p.br), p.magnet_radius, p.magnet_thickness, table,
                    p.far_cutoff, cache, key, valid, p.reuse_pos, p.reuse_axis, p.reuse_far, p.reuse_rel)
        fresh = np.zeros(9)
        pair_force_torque(pos[0], axis[0], pos[1], axis[1], p.magnet_radius, p.magnet_thickness, p.br, p.br, table,
                          fresh)
        return cache[0, 1].copy(), fresh

    first, fresh = cached(pos, rot)
    assert valid[0, 1] == BODY_KEY and np.array_equal(first, fresh)
    tilt = Rotation.from_rotvec([0.0, 0.3, 0.1]).as_matrix()      # the whole pair turned 18 degrees
    pivot = np.array([0.01, 0.0, 0.0])
    key_before = key[0, 1].copy()
    turned, fresh = cached((pos - pivot) @ tilt.T + pivot, tilt @ rot)
    assert np.array_equal(key[0, 1], key_before)                  # reused, not recomputed
    assert np.abs(turned - fresh).max() <= 1e-9 * np.abs(fresh).max()
    apart = pos.copy()
    apart[1, 2] += 1e-5                                           # 10 um further apart: recomputed
    moved, fresh = cached(apart, rot)
    assert np.array_equal(moved, fresh) and not np.array_equal(key[0, 1], key_before)


@pytest.mark.parametrize("gap", [0.08, 0.04])          # a far pair (world key) and a near one (body key)
def test_a_moving_pair_is_computed_ahead_and_served_from_behind_to_past_that_pose(gap):
    """``reuse_lead``: the result of a pair moving apart is the kernel's at the
    pose 0.9 of a tolerance ahead, reused until the pair is a tolerance past it;
    served where the pair is, its torque on i keeps angular momentum there
    (``reuse_momentum``)."""
    from sim.forces import _recompute_led, _reused, new_cache
    from sim.magnetics import pair_force_torque

    p = PhysicsParams()
    table = World.new(p).field
    pos = np.array([[0.0, 0.0, 0.003], [gap, 0.0, 0.003]])
    rot = np.array([np.eye(3), np.eye(3)])
    axis = np.ascontiguousarray(rot[:, :, 2])
    vel, omega = np.array([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0]]), np.zeros((2, 3))
    br = np.full(2, p.br)
    cache, key, valid = new_cache(2)
    tol = max(p.reuse_pos, p.reuse_rel * gap) if gap >= p.reuse_far else p.reuse_pos

    def served(x):
        d = pos[1] - pos[0] + (x, 0.0, 0.0)
        return _reused(0, 1, d[0], d[1], d[2], d @ d, axis, rot, cache, key, valid, p.reuse_pos, p.reuse_axis,
                       p.reuse_far, p.reuse_rel, br, p.magnet_radius, p.magnet_thickness)

    d = pos[1] - pos[0]
    _recompute_led(0, 1, d[0], d[1], d[2], d @ d, pos, axis, rot, vel, omega, br, p.magnet_radius,
                   p.magnet_thickness, table, cache, key, valid, p.reuse_pos, p.reuse_axis, p.reuse_far,
                   p.reuse_rel, p.reuse_lead)
    assert key[0, 1, 0] == pytest.approx(gap + p.reuse_lead * tol, rel=1e-12)
    ahead = np.zeros(9)
    pair_force_torque(pos[0], axis[0], pos[1] + (p.reuse_lead * tol, 0, 0), axis[1], p.magnet_radius,
                      p.magnet_thickness, p.br, p.br, table, ahead)
    ahead[3:6] = -(ahead[6:9] + np.cross(d, ahead[:3]))
    assert np.abs(cache[0, 1] - ahead).max() <= 1e-12 * np.abs(ahead).max()
    lead = p.reuse_lead * tol
    assert served(0.0) and served(lead) and served(lead + 0.99 * tol)
    assert not served(lead + 1.01 * tol) and not served(-0.11 * tol)


@pytest.mark.parametrize("gap, split", [(0.08, True), (0.15, False)])   # within far_dipole's reach, and beyond
def test_a_split_far_pair_serves_its_held_remainder_plus_the_dipole_term_of_the_moment(gap, split):
    """``far_dipole``: a far pair within reach is computed at the pose of the moment
    (no lead), holds the kernel's result less its dipole term, and serves that
    remainder plus the dipole term wherever it is while reused (the torque on i
    re-derived so angular momentum holds there); beyond the reach the pair keeps
    its led, whole result."""
    from sim.forces import WORLD_KEY, WORLD_SPLIT, _recompute_led, _reused, new_cache
    from sim.magnetics import _dipole_pair, pair_force_torque

    p = PhysicsParams(far_dipole=0.12)
    table = World.new(p).field
    a, b = p.magnet_radius, 0.5 * p.magnet_thickness
    pos = np.array([[0.0, 0.0, 0.003], [gap, 0.01, 0.004]])
    axis = np.array([[0.0, 0.0, 1.0], [0.3, 0.0, 0.954]])
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    rot = np.array([np.eye(3), np.eye(3)])                 # unused by far pairs
    vel, omega = np.array([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0]]), np.zeros((2, 3))
    br = np.full(2, p.br)
    cache, key, valid = new_cache(2)

    def kernel(d, nj):
        out = np.zeros(9)
        pair_force_torque(pos[0], axis[0], pos[0] + d, nj, a, p.magnet_thickness, p.br, p.br, table, out)
        return out

    def dipole(d, nj):
        return np.concatenate(_dipole_pair((0.0, 0.0, 0.0), tuple(axis[0]), tuple(d), tuple(nj), a, b, p.br, p.br)[0])

    d0 = pos[1] - pos[0]
    _recompute_led(0, 1, *d0, d0 @ d0, pos, axis, rot, vel, omega, br, a, p.magnet_thickness, table, cache, key,
                   valid, p.reuse_pos, p.reuse_axis, p.reuse_far, p.reuse_rel, p.reuse_lead, p.far_dipole)
    tol = p.reuse_rel * np.linalg.norm(d0)
    if not split:
        assert valid[0, 1] == WORLD_KEY and key[0, 1, 0] == pytest.approx(d0[0] + p.reuse_lead * tol, rel=1e-12)
        return
    assert valid[0, 1] == WORLD_SPLIT and np.array_equal(key[0, 1, :3], d0)     # at the pose of the moment
    exact = kernel(d0, axis[1])
    assert np.abs(cache[0, 1] - exact).max() <= 1e-12 * np.abs(exact).max()
    d1 = d0 + (0.6 * tol, -0.3 * tol, 0.0)                                      # moved, still within tolerance
    nj1 = axis[1] + (0.0, 0.3 * p.reuse_rel, 0.0)
    nj1 /= np.linalg.norm(nj1)
    moved_axis = np.array([axis[0], nj1])
    assert _reused(0, 1, *d1, d1 @ d1, moved_axis, rot, cache, key, valid, p.reuse_pos, p.reuse_axis,
                   p.reuse_far, p.reuse_rel, br, a, p.magnet_thickness)
    served = exact - dipole(d0, axis[1]) + dipole(d1, nj1)
    served[3:6] = -(served[6:9] + np.cross(d1, served[:3]))     # torque on i: angular momentum kept at d1
    assert np.abs(cache[0, 1] - served).max() <= 1e-12 * np.abs(served).max()
    fresh = kernel(d1, nj1)                                 # and that is closer to the kernel than the held result
    assert np.abs(served - fresh).max() < 0.2 * np.abs(exact - fresh).max()


def test_with_the_pair_cache_off_a_placement_runs_and_matches_no_lead():
    """Zero tolerances reuse nothing, so computing ahead has no stretch to serve: lead changes nothing."""
    def placed(lead):
        w = World.new(PhysicsParams(reuse_pos=0.0, reuse_axis=0.0, reuse_rel=0.0, reuse_lead=lead))
        host = w.add_flat(0.0, 0.0, 1)
        w.add_flat(0.07, 0.01, -1)
        ep = place_leaner(w, Intent(host, 0.3, 0.056, np.radians(45.0), 1))
        return ep.status, ep.steps, w.pos.copy()

    (status, steps, pos), (_, steps0, pos0) = placed(0.9), placed(0.0)
    assert status == "settled" and steps == steps0 and np.array_equal(pos, pos0)


def test_sleeping_does_not_change_where_a_released_leaner_comes_to_rest():
    # A swinging leaner slows at each end of its swing; sleeping must not
    # freeze it there. Released around the balance (tilt 40-50 deg, base
    # 52-66 mm), it rests where it would with sleeping off, within 2 deg.
    # (sleep_time 0.02 s fails this: leaners froze 4-9 deg off.)
    def rest(base, tilt, sleep):
        w = World.new(PhysicsParams(sleep=sleep, settle_budget_s=3.0))
        host = w.add_flat(0.0, 0.0, 1)
        b = w.body(place_leaner(w, Intent(host, 0.3, base, np.radians(tilt), 1)).action)
        return b.state, np.degrees(b.tilt)
    for base in np.arange(0.052, 0.0661, 0.002):
        for tilt in (40.0, 45.0, 50.0):
            (s1, t1), (s0, t0) = rest(float(base), tilt, True), rest(float(base), tilt, False)
            assert s1 == s0 and abs(t1 - t0) <= 2.0, (base, tilt, t1, t0)


SKIRT = 0.003
AXES = [np.array([0.0, 0.0, 1.0]), np.array([0.6, 0.0, 0.8]), np.array([-0.36, 0.48, 0.8])]


def _frame(axis):
    """A radial unit vector and the axis: local (r, z) -> offset."""
    radial = np.cross(axis, [0.0, 1.0, 0.0] if abs(axis[1]) < 0.9 else [1.0, 0.0, 0.0])
    return radial / np.linalg.norm(radial), axis


def _depth(r, z, feature, axis=AXES[0], skirt=SKIRT):
    """(signed distance, feature, outward normal) of the point at radius r, height z."""
    radial, n = _frame(axis)
    return _sdf(r * radial + z * n, feature, n, skirt)


def _sdf(q, feature, axis, skirt=SKIRT):
    normal = np.zeros(3)
    d, feat = cylinder_sdf_entered(*q, axis, A, HH, feature, normal, skirt)
    return d, feat, normal


def test_skirt_a_point_that_entered_by_a_face_and_slid_past_the_rim_is_pushed_until_it_is_out():
    """0.5 mm under the top face, 1 mm past the rim: without a skirt it is outside (no
    push, physics 0.12.1); with the 3 mm skirt the face bends down past the rim on a
    quarter circle, so the point is still 3 - |(1, 2.5)| mm = 0.31 mm in, pushed
    outward and up; 2 mm past the rim it is out."""
    d, feat, _ = _depth(A + 0.001, HH - 0.0005, FACE_UP, skirt=0.0)
    assert d > 0 and feat == NO_FEATURE
    d, feat, normal = _depth(A + 0.001, HH - 0.0005, FACE_UP)
    assert d == pytest.approx(np.hypot(0.001, 0.0025) - SKIRT) and feat == FACE_UP
    radial, up = _frame(AXES[0])
    assert normal == pytest.approx((0.001 * radial + 0.0025 * up) / np.hypot(0.001, 0.0025))
    assert _depth(A + 0.002, HH - 0.0005, FACE_UP)[0] > 0
    assert _depth(A + 0.001, HH + 0.0001, FACE_UP)[0] > 0           # above its face plane: out
    assert _depth(A + 0.001, HH - 0.0005, NO_FEATURE)[0] > 0        # never entered: no skirt


@pytest.mark.parametrize("axis", AXES, ids=["upright", "tilted", "tilted_askew"])
@pytest.mark.parametrize("feature", [FACE_UP, FACE_DOWN, SIDE])
def test_skirt_depth_is_continuous_through_the_edge_and_its_normal_is_its_gradient(feature, axis):
    """The spring's potential K d^2 / 2 stays continuous while a labelled point leaves
    its disc by another surface (the energy it holds is given back, not dropped), and
    the push is along -grad d, so the force is that potential's (sim.contacts, Skirt)."""
    rng = np.random.default_rng(feature + 7)
    sign = -1.0 if feature == FACE_DOWN else 1.0
    for depth in (1e-6, 2e-4, 1.5e-3):                       # resting, impact, deep
        if feature == SIDE:
            path = [(A - depth, sign * z) for z in np.linspace(HH - 0.002, HH + 0.004, 601)]
        else:
            path = [(r, sign * (HH - depth)) for r in np.linspace(A - 0.002, A + 0.004, 601)]
        d = np.array([_depth(r, z, feature, axis)[0] for r, z in path])
        inside = d < 0
        assert inside[0] and not inside[-1]
        assert np.max(np.abs(np.diff(np.minimum(d, 0.0)))) < 2e-5, depth       # steps of 10 um
    radial, n = _frame(axis)
    checked = 0
    for _ in range(300):
        if feature == SIDE:
            r, z = A - rng.uniform(0.0, 0.004), sign * (HH + rng.uniform(0.0, 0.003))
        else:
            r, z = A + rng.uniform(0.0, 0.004), sign * (HH - rng.uniform(0.0, 0.004))
        q = r * radial + z * n
        d, _, normal = _depth(r, z, feature, axis)
        if d >= -1e-5:
            continue
        grad = [(_sdf(q + 1e-8 * e, feature, axis)[0] - _sdf(q - 1e-8 * e, feature, axis)[0]) / 2e-8
                for e in np.eye(3)]
        assert np.allclose(grad, normal, atol=1e-5), (r, z)
        checked += 1
    assert checked > 50


