"""Whether a leaner fits where it is aimed (sim.fit): its pose and the hand's
approach clear of every disc, and the balance search that keeps to such poses."""

import numpy as np
import pytest

from sim.api import Intent, PhysicsParams, World, balance_intent, nominal_intent
from sim.fit import FIT_GAP, hand_start, intent_fits, leaner_pose, overlap, world_axes

P = PhysicsParams()
A, H = P.radius, P.thickness


def _overlap_with(w: World, centre, normal, gap: float = FIT_GAP) -> float:
    return overlap(w.pos, world_axes(w), w.live, np.asarray(centre, float), np.asarray(normal, float), A, H, gap)


@pytest.mark.parametrize("apart_mm, fits", [(0.6, True), (0.4, False), (-1.0, False)])
def test_two_flat_discs_fit_until_their_rims_come_within_the_gap(apart_mm, fits):
    w = World.new(P)
    w.add_flat(0.0, 0.0, 1)
    x = 2 * A + apart_mm * 1e-3
    for azimuth in (0.0, 1.0, 2.5):   # any direction round the disc
        centre = (x * np.cos(azimuth), x * np.sin(azimuth), 0.5 * H)
        assert (_overlap_with(w, centre, (0, 0, 1)) <= 0.0) == fits, azimuth


def test_overlap_of_two_pressed_discs_is_how_far_they_press_plus_the_gap():
    w = World.new(P)
    w.add_flat(0.0, 0.0, 1)
    for press in (0.5e-3, 1e-3, 2e-3):
        depth = _overlap_with(w, (0.003, 0.0, 1.5 * H - press), (0, 0, 1))
        assert depth == pytest.approx(press + FIT_GAP, abs=1e-9)
    assert _overlap_with(w, (0.0, 0.0, 1.5 * H + 2 * FIT_GAP), (0, 0, 1)) < 0.0   # resting above, clear


def test_overlap_is_sampled_both_ways_so_a_rim_poking_between_samples_is_found():
    # a tilted disc's rim pokes 0.7 mm into a flat disc between the flat disc's samples:
    # none of the flat disc's points lies inside the tilted one, one of its points does
    from sim.fit import _deepest

    w = World.new(P)
    w.add_flat(0.0, 0.0, 1)
    flat, up = np.array([0.0, 0.0, 0.5 * H]), np.array([0.0, 0.0, 1.0])
    centre = np.array([7.43, 4.83, 20.58]) * 1e-3
    axis = np.array([0.89, -0.129, 0.437]) / np.linalg.norm([0.89, -0.129, 0.437])
    assert _deepest(flat, up, centre, axis, A, H, FIT_GAP) <= 0.0           # one way: missed
    assert _deepest(centre, axis, flat, up, A, H, FIT_GAP) > 5e-4           # the other: 0.7 mm in
    assert _overlap_with(w, centre, axis) > 5e-4


def test_a_leaner_beside_a_lone_host_fits_but_not_over_a_flat_disc_or_with_one_in_the_hands_way():
    w = World.new(P)
    host = w.add_flat(0.0, 0.0, 1)
    intent = nominal_intent(w, host, 0.0)
    assert intent_fits(w, intent)
    centre, _, u = leaner_pose(w, host, 0.0, intent.base_distance, intent.tilt)
    under = w.copy()
    under.add_flat(centre[0], centre[1], -1)                      # a flat disc under the leaner
    assert not intent_fits(under, intent)
    start = hand_start(centre, u)
    in_the_way = w.copy()
    in_the_way.add_flat(start[0] + 0.012, start[1], 1)            # clear of the pose, not of the start
    assert not intent_fits(in_the_way, intent)
    out_of_the_way = w.copy()
    out_of_the_way.add_flat(start[0] + 0.040, start[1], 1)
    assert intent_fits(out_of_the_way, intent)


def test_balance_with_fit_passes_over_a_crossing_inside_a_flat_disc_beside_the_host():
    # a flat disc of the host's colour 78 mm out: the tip torques alone balance a leaner
    # whose base lies inside it; aimed with fit, the leaner leans over it instead
    w = World.new(P)
    host = w.add_flat(0.0, 0.0, 1)
    w.add_flat(0.078, 0.0, 1)
    blind, blind_ok = balance_intent(w, host, 0.0)
    assert blind_ok and 0.063 < blind.base_distance < 0.093 and not intent_fits(w, blind)   # the control
    aimed, ok = balance_intent(w, host, 0.0, fit=True)
    assert ok and intent_fits(w, aimed) and aimed.base_distance > 0.093


def test_balance_aims_off_a_three_disc_tower_at_the_steeper_tilt_it_found():
    # off a three-disc tower no pose balances at 45 degrees outside its top; the core finds
    # one 10 degrees steeper, whose base distance at 45 degrees lies in the top disc
    w = World.new(P)
    tower = [w.add_body((0.0, 0.0, (k + 0.5) * H), (0.0, 0.0, 1.0)) for k in range(3)]
    intent, ok = balance_intent(w, tower[0], 0.0, fit=True)
    assert ok and intent.tilt == pytest.approx(np.radians(55.0)) and intent_fits(w, intent)
    at_45 = Intent(intent.host, intent.azimuth, intent.base_distance, np.pi / 4, intent.up)
    assert not intent_fits(w, at_45)


def test_without_a_fitting_pose_the_strongest_support_that_fits_is_the_fallback():
    # a tall tower balances nothing; the fallback is its strongest support among the poses
    # a disc fits at, here where no disc stands in the way
    w = World.new(P)
    tower = [w.add_body((0.0, 0.0, (k + 0.5) * H), (0.0, 0.0, 1.0)) for k in range(8)]
    blind, ok = balance_intent(w, tower[0], 0.0)
    assert not ok
    centre, _, _ = leaner_pose(w, tower[0], 0.0, blind.base_distance, blind.tilt)
    w.add_flat(centre[0], centre[1], -1)                          # a disc where that pose stands
    assert not intent_fits(w, balance_intent(w, tower[0], 0.0)[0])
    aimed, ok = balance_intent(w, tower[0], 0.0, fit=True)
    assert not ok and intent_fits(w, aimed)
