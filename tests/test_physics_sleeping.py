"""The wake check: a sleeper friction can hold stays asleep, alone or as the
tower it is part of (sim.holding); one it cannot hold is woken. And how soon
an island falls asleep: a flat one after ``flat_sleep_time``, any other after
``sleep_time`` (sim.sleeping)."""

import numpy as np
import pytest

from sim.api import Intent, PhysicsParams, World, lay_flat, leaner_pose, place_leaner
from sim.bodies import quat_to_matrix
from sim.forces import KEY, magnetic_on
from sim.holding import column_of, flat_holds, stack_holds
from sim.params import IDX


def _frames(w: World):
    n = len(w.pos)
    rot = np.zeros((n, 3, 3))
    for i in range(n):
        quat_to_matrix(w.quat[i], rot[i])
    return rot, rot[:, :, 2].copy()


def _holds(w: World, i: int) -> bool:
    n = len(w.pos)
    rot, axis = _frames(w)
    return bool(stack_holds(i, w.pos, axis, rot, w.br, w.live, w.awake, w.P, w.field,
                            np.zeros((n, n, 9)), np.zeros((n, n, KEY)), np.zeros((n, n), np.uint8),
                            np.zeros(n, np.int64), np.zeros((n, 6)), np.full(n, -1, np.int64), 0))


def _column(w: World, i: int) -> list[int]:
    n = len(w.pos)
    _, axis = _frames(w)
    column = np.zeros(n, np.int64)
    height = column_of(i, w.pos, axis, w.live, w.awake, w.P, column)
    return [int(k) for k in column[:height]]


def test_a_tower_is_read_as_its_column_bottom_first_from_any_of_its_discs():
    w = World.new()
    w.add_flat(0.1, 0.0, 1)
    tower = w.add_tower(4, 0.0, 0.0, 1)
    for disc in tower:
        assert _column(w, disc) == tower
    assert _column(w, 0) == [0]                              # a lone foundation is a column of one


def test_a_tower_with_a_disc_against_it_or_awake_is_tested_disc_by_disc():
    touched = World.new()
    tower = touched.add_tower(3, 0.0, 0.0, 1)
    touched.add_flat(0.030, 0.0, -1)                         # rim to rim with the bottom disc
    assert _column(touched, tower[1]) == []
    awake = World.new()
    tower = awake.add_tower(3, 0.0, 0.0, 1)
    awake.awake[tower[2]] = 1
    assert _column(awake, tower[0]) == []


def _magnetic_force(w: World, i: int) -> np.ndarray:
    n, p = len(w.pos), w.params
    rot, axis = _frames(w)
    f6 = np.zeros(6)
    magnetic_on(i, w.pos, axis, rot, w.br, w.live, p.magnet_radius, p.magnet_thickness, w.field,
                p.far_cutoff, f6, np.zeros((n, n, 9)), np.zeros((n, n, KEY)), np.zeros((n, n), np.uint8),
                p.reuse_pos, p.reuse_axis, p.reuse_far, p.reuse_rel)
    return f6


def test_a_tower_that_friction_holds_holds_although_its_bottom_disc_alone_would_not():
    w = World.new()
    tower = w.add_tower(5, 0.0, 0.0, 1)
    w.add_flat(0.070, 0.0, -1)
    assert all(_holds(w, disc) for disc in tower)
    pulled_up = _magnetic_force(w, tower[0])[2]          # by the four discs above it
    assert pulled_up > w.params.mass * w.params.gravity
    assert not flat_holds(tower[0], _frames(w)[1], _magnetic_force(w, tower[0]), w.P)


def test_a_tower_pulled_sideways_harder_than_friction_holds_is_not_held():
    """A tall opposite tower 6 mm beside a short one (beyond contact reach):
    the short tower as a whole is pulled harder than half its friction on
    the mat, although each face between its discs holds."""
    w = World.new()
    tower = w.add_tower(2, 0.0, 0.0, 1)
    w.add_tower(6, 0.036, 0.0, -1)
    assert _column(w, tower[0]) == tower
    assert not any(_holds(w, disc) for disc in tower)
    w.remove(list(range(2, 8)))
    assert all(_holds(w, disc) for disc in tower)


def test_a_tower_friction_holds_stays_put_under_a_leaner_placed_on_it():
    """A leaner (as a real game places one: 51 mm out, 44 deg) on a 6-disc
    tower: its push is well under half the tower's friction on the mat, so
    the tower sleeps through the placement. Physics 0.7.0 woke it (its
    bottom disc alone never holds) and the awake tower crept 0.34 diameters
    on its contacts over 0.5 s, at 12x the body steps."""
    w = World.new()
    tower = w.add_tower(6, 0.0, 0.0, -1)
    ep = place_leaner(w, Intent(tower[0], 0.0, 0.0514, 0.773, -1))
    assert ep.ok and not ep.new_contacts
    assert not any(disc in ep.moved_diameters for disc in tower)
    assert ep.body_steps < 10_000


def _critical_margin(w: World, i: int) -> float:
    """The least ``hold_margin`` at which the hold test keeps disc i asleep (bisected): its
    tower's worst ratio of pull to what holds it."""
    lo, hi = 0.0, 5.0
    for _ in range(40):
        margin = 0.5 * (lo + hi)
        w.P[IDX["hold_margin"]] = margin
        if _holds(w, i):
            hi = margin
        else:
            lo = margin
    return hi


def _held_over(up: int, height: int, base: float, tilt_deg: float, **knobs) -> float:
    """The critical margin of a flat disc or tower (``up``) with a disc held at a leaner's
    pose over its top, the held disc showing the same colour."""
    w = World.new(PhysicsParams(**knobs))
    column = w.add_tower(height, 0.0, 0.0, up) if height > 1 else [w.add_flat(0.0, 0.0, up)]
    centre, normal, _ = leaner_pose(w, column[-1], 0.0, base, np.radians(tilt_deg))
    w.add_body(centre, normal * up)
    return _critical_margin(w, column[0])


@pytest.mark.parametrize("height, base, tilt_deg", [(1, 0.045, 55.0), (3, 0.050, 35.0), (6, 0.060, 55.0)])
def test_a_sleepers_hold_does_not_depend_on_which_colour_is_up(height, base, tilt_deg):
    """Every disc turned over, the magnetic forces are the same, so the hold test must say
    the same: each torque is taken about the face a disc rests on. Physics 0.21.0 took it
    about the white face, the top face of a white-up disc (the control): its ratio came out
    12 % low under a lone disc and 31 % high in a 6-disc tower."""
    black, white = _held_over(1, height, base, tilt_deg), _held_over(-1, height, base, tilt_deg)
    assert 0.1 < black < 1.0 and white == pytest.approx(black, rel=1e-6)
    before = _held_over(-1, height, base, tilt_deg, hold_bottom_face=False)
    assert _held_over(1, height, base, tilt_deg, hold_bottom_face=False) == pytest.approx(black, rel=1e-12)
    assert abs(before / black - 1.0) > 0.1


def _tip_ratio(w: World, i: int) -> float:
    """Flat disc i's static tipping torque over what holds it (N x radius), as in ``flat_holds``."""
    n = len(w.pos)
    rot, axis = _frames(w)
    f6 = np.zeros(6)
    P = w.params
    magnetic_on(i, w.pos, axis, rot, w.br, w.live, P.magnet_radius, P.magnet_thickness, w.field,
                P.far_cutoff, f6, np.zeros((n, n, 9)), np.zeros((n, n, KEY)), np.zeros((n, n), np.uint8),
                P.reuse_pos, P.reuse_axis, P.reuse_far, P.reuse_rel)
    normal = P.mass * P.gravity - f6[2]
    return (np.hypot(f6[3], f6[4]) + 0.5 * P.thickness * np.hypot(f6[0], f6[1])) / (normal * P.radius)


def test_hold_margin_stays_well_below_the_tipping_the_dynamics_show():
    """A flat disc under a disc held close tips in the dynamics (hold test off: every change
    wakes it) from a static tipping ratio of ~0.8, not 1 (tilting toward the magnet raises
    its torque). The wake check keeps a disc asleep only below ``hold_margin`` of it, so
    the margin must stay well below where discs really tip."""
    seen = []
    for base in (0.052, 0.050, 0.049, 0.048, 0.047, 0.045):
        w = World.new(PhysicsParams(hold_margin=0.0, hold_time=0.5))
        host = w.add_flat(0.0, 0.0, 1)
        held = w.copy()
        centre, normal, _ = leaner_pose(held, host, 0.0, base, np.radians(45.0))
        held.add_body(centre, normal)
        ep = place_leaner(w, Intent(host, 0.0, base, np.radians(45.0), 1))
        seen.append((_tip_ratio(held, host), ep.moved_diameters.get(host, 0.0) * 0.03 > 1e-3))
    ratios = [r for r, _ in seen]
    assert ratios == sorted(ratios) and any(t for _, t in seen) and not all(t for _, t in seen)
    first_tip = min(r for r, tipped in seen if tipped)
    assert max(r for r, tipped in seen if not tipped) < first_tip < 0.95
    assert World.new().params.hold_margin < 0.75 * first_tip


def test_a_sleepers_reference_is_the_sum_of_its_pairs_kernel_results_in_order_to_the_bit():
    """``refresh_refs`` calls each pair's kernel once and lets the pair serve both
    members; a sleeper's reference is still exactly the kernel's results summed
    over its partners in id order."""
    from sim.forces import refresh_refs
    from sim.magnetics import pair_force_torque
    from sim.scenes import midgame_world

    w = midgame_world(3, n_flat=14, n_leaners=4, towers=(3, 2))
    p, n = w.params, len(w.pos)
    rot, axis = _frames(w)
    fref = np.zeros((n, 6))
    refresh_refs(w.pos, axis, rot, w.br, w.live, w.awake, p.magnet_radius, p.magnet_thickness, w.field,
                 p.far_cutoff, fref)
    out = np.zeros(9)
    sleepers = [i for i in range(n) if w.live[i] and not w.awake[i]]
    assert len(sleepers) >= 20
    for i in sleepers:
        expected = np.zeros(6)
        for j in range(n):
            lo, hi = min(i, j), max(i, j)
            if j == i or not w.live[j] or ((w.pos[hi] - w.pos[lo]) ** 2).sum() >= p.far_cutoff ** 2:
                continue
            pair_force_torque(w.pos[lo], axis[lo], w.pos[hi], axis[hi], p.magnet_radius, p.magnet_thickness,
                              w.br[lo], w.br[hi], w.field, out)
            sign, torque = (1.0, out[6:9]) if i == hi else (-1.0, out[3:6])
            for k in range(3):
                expected[k] += sign * out[k]
                expected[3 + k] += torque[k]
        assert fref[i].tolist() == expected.tolist(), i


def test_an_island_of_flat_discs_sleeps_after_flat_sleep_time_a_leaning_one_after_sleep_time():
    """A foundation laid on an empty mat settles, then sleeps ``flat_sleep_time`` after
    it came to rest; a leaner on a lone host is not flat and sleeps ``sleep_time`` after
    it came to rest, whatever ``flat_sleep_time`` is."""
    def laid(**knobs):
        return lay_flat(World.new(PhysicsParams(**knobs)), 0.0, 0.0, 1).steps

    def leaned(**knobs):
        w = World.new(PhysicsParams(**knobs))
        host = w.add_flat(0.0, 0.0, 1)
        return place_leaner(w, Intent(host, 0.0, 0.056, np.radians(45.0), 1)).steps

    assert PhysicsParams().flat_sleep_time < PhysicsParams().sleep_time
    step = PhysicsParams().dt            # stillness sums the step in floats: +-1 step
    assert abs(laid(flat_sleep_time=0.08) - laid(flat_sleep_time=0.02) - 0.06 / step) <= 1
    assert abs(laid(flat_sleep_time=0.05) - laid(flat_sleep_time=0.02) - 0.03 / step) <= 1
    assert leaned(flat_sleep_time=0.02) == leaned(flat_sleep_time=0.08) == leaned(flat_sleep_time=0.005)
    assert abs(leaned(sleep_time=0.1) - leaned(sleep_time=0.08) - 0.02 / step) <= 1


def _host_tipped(base: float, **knobs) -> bool:
    """A disc held at 45 deg ``base`` from a lone flat host for half a second, the hold
    test off (every change of force wakes the host): did the host move over a millimetre?"""
    w = World.new(PhysicsParams(hold_margin=0.0, hold_time=0.5, **knobs))
    host = w.add_flat(0.0, 0.0, 1)
    ep = place_leaner(w, Intent(host, 0.0, base, np.radians(45.0), 1))
    return ep.moved_diameters.get(host, 0.0) * 2 * w.params.radius > 1e-3


def test_a_flat_disc_s_short_sleep_freezes_no_tipping_that_sleeping_off_shows():
    """A host starting to tip under a held disc is flat for its first instants; its short
    sleep must not catch it there. Across the tipping threshold (between 49 and 48.5 mm
    of base), the host tips or stays exactly as with sleeping off, also at twice that
    short sleep."""
    bases = (0.0500, 0.0490, 0.0485, 0.0475)
    free = [_host_tipped(b, sleep=False) for b in bases]
    assert free[0] is False and free[-1] is True
    assert [_host_tipped(b) for b in bases] == free
    assert [_host_tipped(b, flat_sleep_time=0.04) for b in bases] == free


@pytest.mark.parametrize("wake_vacated", [True, False])
def test_a_sleeping_leaner_whose_host_a_capture_carries_off_falls(wake_vacated):
    """The wake check runs only near awake bodies, so a capture that lifts a leaner's host
    and sets it down 18 cm away left the leaner asleep in the air, nothing under it (physics
    0.22.0, ``wake_vacated`` false: a standard game of seed 20 kept such a disc to its end).
    The capture now wakes what the lifted discs held up, and the leaner falls flat
    (``wake_field`` off: it would wake the leaner too, the next test's case)."""
    from sim.api import nominal_intent, place_tower
    from sim.api import BodyState

    w = World.new(PhysicsParams(wake_vacated=wake_vacated, wake_field=False))
    host = w.add_flat(0.0, 0.0, 1)
    leaner = place_leaner(w, nominal_intent(w, host, 0.0)).action
    assert w.body(leaner).state == BodyState.LEANING and w.body(leaner).leaning_on == host
    assert not w.awake.any()
    ep = place_tower(w, [host], -0.12, -0.12, 1)
    after = w.body(leaner)
    assert ep.status == "settled" and after.leaning_on == -1
    if wake_vacated:
        assert ep.fallen == [leaner] and after.state == BodyState.FLAT
    else:
        assert ep.fallen == [] and after.state == BodyState.LEANING and after.tilt > 0.7


def test_a_capture_wakes_only_what_the_lifted_discs_held_up():
    """A leaner on another host, and a flat disc touching the captured one, stay asleep."""
    from sim.api import nominal_intent, place_tower
    from sim.episodes import wake_unsupported

    w = World.new()
    host, other = w.add_flat(0.0, 0.0, 1), w.add_flat(0.15, 0.0, 1)
    flat = w.add_flat(0.0, 0.032, -1)
    on_host = place_leaner(w, nominal_intent(w, host, 0.0)).action
    on_other = place_leaner(w, nominal_intent(w, other, 0.0)).action
    before = {b.id: b for b in w.bodies()}
    touching = w.touching()
    assert touching[host, flat]
    w.remove([host])
    assert wake_unsupported(w, before, touching) == [on_host]
    assert not w.awake[[other, flat, on_other]].any()


@pytest.mark.parametrize("wake_field", [True, False])
def test_a_capture_wakes_a_leaner_whose_cushion_the_lifted_disc_was_part_of(wake_field):
    """A flat disc 55 mm beyond a leaner holds it at 39 deg instead of 46 without touching
    it or being leaned on. Captured and carried off, it leaves a field the leaner no longer
    rests in, with nothing awake near it: physics 0.23.0 (``wake_field`` false) left the
    leaner asleep at 39 deg. The capture now wakes it, and it comes to rest within a degree
    of where settling the whole world afterwards puts it (friction holds its base, so its
    rest tilt varies by ~0.6 deg with the path); a leaner on a host 15 cm away sleeps on."""
    from sim.api import nominal_intent, place_tower, settle
    from sim.episodes import wake_field_changed, wake_unsupported

    w = World.new(PhysicsParams(wake_field=wake_field))
    host, far_host = w.add_flat(0.0, 0.0, 1), w.add_flat(-0.15, 0.0, 1)
    leaner = place_leaner(w, nominal_intent(w, host, 0.0)).action
    far_leaner = place_leaner(w, nominal_intent(w, far_host, np.pi)).action
    alone = w.body(leaner).tilt
    beyond = w.add_flat(w.body(leaner).x + 0.055, w.body(leaner).y, 1)
    assert settle(w).new_contacts == []
    held = w.body(leaner)
    assert held.leaning_on == host and not w.touching()[leaner, beyond]
    assert np.degrees(alone - held.tilt) > 5

    probe = w.copy()
    probe.remove([beyond])
    before = {b.id: b for b in w.bodies()}
    assert wake_unsupported(probe, before, w.touching()) == []
    assert wake_field_changed(probe, before) == [leaner]

    ep = place_tower(w, [beyond], -0.15, -0.12, 1)
    after, resettled = w.body(leaner), w.copy()
    settle(resettled)
    assert ep.status == "settled" and ep.fallen == [] and w.body(far_leaner) == before[far_leaner]
    if wake_field:
        assert abs(np.degrees(after.tilt - resettled.body(leaner).tilt)) < 1.0
        assert np.degrees(after.tilt - held.tilt) > 5
    else:
        assert after == held
        assert np.degrees(resettled.body(leaner).tilt - held.tilt) > 5
