"""The ten phenomena of PHYSICS.md, one scenario each (default PhysicsParams)."""

import numpy as np
import pytest

from sim.api import (BodyState, Intent, PhysicsParams, World, lay_flat, nominal_intent,
                     place_leaner, push_flat, settle)


def _snap_distance(br: float, tower: int) -> float:
    """Largest centre distance (2 mm grid) at which a disc laid flat, colour
    opposite to a tower of ``tower`` discs, ends up touching it."""
    best = 0.0
    for d in np.arange(0.032, 0.08, 0.002):
        w = World.new(PhysicsParams(br=br))
        w.add_tower(tower, 0.0, 0.0, 1)
        if lay_flat(w, float(d), 0.0, -1).new_contacts:
            best = float(d)
    return best


def test_phenomenon1_lone_flat_disc_stays_put():
    w = World.new()
    i = w.add_flat(0.05, -0.02, 1)
    ep = settle(w)
    assert ep.status == "settled"
    assert ep.moved_diameters.get(i, 0.0) < 1e-3
    assert w.body(i).state == BodyState.FLAT


def test_phenomenon2_opposite_colours_far_apart_nothing_moves():
    w = World.new()
    a = w.add_flat(0.0, 0.0, 1)
    ep = lay_flat(w, 0.10, 0.0, -1)
    assert ep.ok and not ep.new_contacts
    assert ep.moved_diameters.get(a, 0.0) < 0.01


def test_phenomenon2_opposite_colours_close_slide_together():
    w = World.new()
    a = w.add_flat(0.0, 0.0, 1)
    ep = lay_flat(w, 0.04, 0.0, -1)
    assert ep.ok
    assert (a, ep.action) in ep.new_contacts


def test_phenomenon2_snap_distance_grows_with_magnet_strength_and_tower_height():
    base = _snap_distance(0.48, 1)
    assert 0.032 < base < 0.08
    assert _snap_distance(0.60, 1) > base
    assert _snap_distance(0.48, 3) > base


def test_phenomenon3_same_colours_close_push_apart():
    w = World.new()
    a = w.add_flat(0.0, 0.0, 1)
    ep = lay_flat(w, 0.034, 0.0, 1)
    assert ep.ok
    moved = ep.moved_diameters.get(a, 0.0)
    flipped = bool(ep.flipped)
    assert moved > 0.1 or flipped
    b = w.body(ep.action)
    assert np.hypot(b.x - w.body(a).x, b.y - w.body(a).y) > 0.034


def test_phenomenon5_released_too_far_falls_flat_and_nothing_reacts():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    ep = place_leaner(w, Intent(host, 0.0, 0.09, np.pi / 4, 1))
    assert ep.ok
    assert w.body(ep.action).state == BodyState.FLAT
    assert not ep.new_contacts and not ep.flipped
    assert ep.moved_diameters.get(host, 0.0) < 0.01


def _hand_phase(world, intent):
    """The new contacts of a placement cut where the hand lets go (a copy of ``world``)."""
    short = world.params.model_copy(update={"settle_budget_s": 1e-4})
    cut = world.copy()
    cut.params, cut.P = short, short.pack()
    return place_leaner(cut, intent).new_contacts


@pytest.mark.parametrize("base_distance, tilt_deg", [(0.04, 45.0), (0.045, 35.0), (0.04, 20.0)])
def test_phenomenon6_released_too_close_or_too_low_snaps_onto_host(base_distance, tilt_deg):
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    intent = Intent(host, 0.0, base_distance, np.radians(tilt_deg), 1)
    assert _hand_phase(w, intent) == []
    ep = place_leaner(w, intent)
    assert ep.ok
    assert (host, ep.action) in ep.new_contacts
    assert (host, ep.action) in ep.final_contacts


@pytest.mark.parametrize("base_distance, tilt_deg", [(0.03, 45.0), (0.035, 35.0), (0.035, 25.0)])
def test_r8_held_closer_still_the_host_tips_up_onto_the_held_disc_and_goes_with_it(base_distance, tilt_deg):
    """Its rim still on the mat, the host clings to the disc in hand: lifting the hand
    takes it (R6(c), R8), where physics 0.19.0 let go of the held disc onto it."""
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    intent = Intent(host, 0.0, base_distance, np.radians(tilt_deg), 1)
    assert _hand_phase(w, intent)
    ep = place_leaner(w, intent)
    assert ep.ok and ep.in_hand == [host] and list(w.bodies()) == []
    old = World.new(PhysicsParams(lift_clinging=False))
    old.add_flat(0.0, 0.0, 1)
    assert place_leaner(old, intent).in_hand == []


def test_r8_a_held_disc_over_a_host_lying_flat_is_let_go_onto_it():
    """Touching the held disc is not clinging to it: a host that still lies flat stays."""
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    intent = Intent(host, 0.0, 0.03, np.radians(20.0), 1)
    assert _hand_phase(w, intent) == [(host, host + 1)]
    ep = place_leaner(w, intent)
    assert ep.in_hand == [] and (host, ep.action) in ep.final_contacts


def test_phenomenon7_held_disc_swept_over_opposite_disc_lifts_it_into_the_hand():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    victim = w.add_flat(0.085, 0.0, -1)
    intent = nominal_intent(w, host, 0.0)
    ep = place_leaner(w, intent, approach_distance=0.06, approach_height=0.012)
    assert ep.in_hand == [victim]
    states = {b.id: b.state for b in ep.final}
    assert states[victim] == BodyState.IN_HAND and states[ep.action] == BodyState.IN_HAND
    assert victim not in [b.id for b in w.bodies()]


@pytest.mark.parametrize("red_up", [1, -1])
def test_phenomenon8_red_disc_attracts_one_colour_and_repels_the_other(red_up):
    def lay_next_to_red(up):
        w = World.new()
        red = w.add_flat(0.0, 0.0, red_up, red=True)
        return red, lay_flat(w, 0.036, 0.0, up)
    red, attract = lay_next_to_red(-red_up)
    assert attract.red_contacts == [attract.action]
    red, repel = lay_next_to_red(red_up)
    assert not repel.red_contacts and not repel.new_contacts
    assert repel.red_displacement > 0.1


def test_phenomenon9_disc_pushed_past_the_circle_is_out_of_bounds():
    w = World.new()
    edge = w.add_flat(0.220, 0.0, 1)
    ep = lay_flat(w, 0.188, 0.0, 1)
    assert ep.ok
    assert edge in ep.out_of_bounds
    assert w.body(edge).state == BodyState.OUT
    assert np.hypot(*w.pos[edge, :2]) - w.params.radius > w.params.circle_radius


@pytest.mark.parametrize("out_entirely", [True, False])
def test_r6e_a_disc_pushed_until_its_centre_is_past_the_circle_but_not_all_of_it_is_in(out_entirely):
    """'Entirely outside the circle': a third of it still inside, the disc is in play;
    physics 0.19.0 (``out_entirely=False``) read it by its centre and called it out."""
    w = World.new(PhysicsParams(out_entirely=out_entirely))
    edge = w.add_flat(0.205, 0.0, 1)
    ep = lay_flat(w, 0.172, 0.0, 1)
    centre = np.hypot(*w.pos[edge, :2])
    assert w.params.circle_radius < centre < w.params.circle_radius + 0.8 * w.params.radius
    assert (edge in ep.out_of_bounds) == (not out_entirely)
    assert (w.body(edge).state == BodyState.OUT) == (not out_entirely)


def test_phenomenon10_falling_leaner_topples_its_neighbour():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    standing = place_leaner(w, nominal_intent(w, host, 0.0))
    assert w.body(standing.action).state == BodyState.LEANING
    too_far = Intent(host, np.radians(55.0), 0.075, np.pi / 4, 1)
    assert _hand_phase(w, too_far) == []                  # it falls after the hand let go
    ep = place_leaner(w, too_far)
    assert standing.action in ep.fallen and ep.in_hand == []
    assert (standing.action, ep.action) in ep.new_contacts


def test_r8_a_standing_leaner_the_held_disc_is_carried_into_goes_up_with_it():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    standing = place_leaner(w, nominal_intent(w, host, 0.0)).action
    ep = place_leaner(w, Intent(host, 0.0, 0.085, np.pi / 4, 1))
    assert ep.in_hand == [standing] and [b.id for b in w.bodies()] == [host]


def test_conversion_presses_a_leaner_flat_keeping_its_colour():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    leaner = place_leaner(w, nominal_intent(w, host, 0.0)).action
    ep = push_flat(w, leaner)
    assert ep.ok and ep.fallen == [leaner] and not ep.flipped
    assert w.body(leaner).state == BodyState.FLAT and w.body(leaner).up == 1


@pytest.mark.parametrize("red_stays", [True, False])
def test_r8_the_red_disc_never_goes_up_with_the_held_disc(red_stays):
    """The red disc jumps onto the held disc (a no-red-death game: its touch does not
    stop the episode). It has no stack to go to (R8): pulled off, it stays in the
    world; physics 0.19.0 (``red_stays=False``) lifted it out of the game."""
    w = World.new(PhysicsParams(red_stays=red_stays))
    host = w.add_flat(0.0, 0.0, 1)
    red = w.add_flat(0.085, 0.0, -1, red=True)
    ep = place_leaner(w, nominal_intent(w, host, 0.0), approach_distance=0.06, approach_height=0.012)
    assert ep.red_contacts == [ep.action]
    assert (red in ep.in_hand) == (not red_stays)
    assert (red in [b.id for b in w.bodies()]) == red_stays
