"""Polarity rules as pure functions of hand-made scenes (no physics run).

Each test names the rule of RULES.md (R1-R19) or the source's edge case it checks.
"""


import numpy as np
import pytest

from rules.base import StrategySpec, UsageError
from rules.polarity import GAME
from rules.polarity.ends import red_orientation, sudden_end, winner
from rules.polarity.model import PolarityRules, load_variants
from rules.polarity.physics import Geometry
from rules.polarity.resolve import pairs, resolve
from rules.polarity.scenes import B, W, disc, episode, moved
from rules.polarity.state import FaultGroup, Table, Tower, colour
from rules.polarity.view import View
from sim import detmath as dm

STD = PolarityRules()
RED = disc(0, 0, 0, B, red=True)


def run(before, ep, mover=0, expected=None, table=None, contacts=(), **kw):
    table = table or Table(stacks=[20, 20])
    expected = expected if expected is not None else ({ep.action} if ep.action >= 0 else set())
    return resolve(ep, {b.id: b for b in before}, pairs(contacts), table, mover, expected, action=ep.action, **kw)


# --- model and variants ---------------------------------------------------

def test_rules_model_defaults_follow_rules_md():
    r = PolarityRules()
    assert (r.red_orientation, r.foundations, r.setup_retries, r.max_attempts) == ("random", 5, 20, 10)
    assert (r.fault_move_diameters, r.allow_conversion, r.tower_steal, r.single_disc_tower_scores) == (1.0, True, False, True)
    assert (r.red_sudden_death, r.red_moved_loses, r.no_colour_loses, r.end_when) == (True, True, True, "stack_empty")
    assert r.magnet_strength == 1.0
    assert (r.stack_size, r.foundation_red_gap_mm, r.edge_gap_mm) == (26, 0.0, 0.0)


def test_variants_hold_only_changed_knobs_and_validate():
    v = load_variants()
    assert {"standard", "no-red-death", "three-foundations", "seven-foundations", "tower-steal", "strong-magnets"} <= set(v)
    assert v["standard"] == PolarityRules()
    assert v["three-foundations"].foundations == 3 and v["seven-foundations"].foundations == 7
    assert v["tower-steal"].tower_steal and not v["no-red-death"].red_sudden_death
    assert v["strong-magnets"].magnet_strength > 1.0
    assert v["strong-magnets"].model_dump(exclude={"magnet_strength"}) == PolarityRules().model_dump(exclude={"magnet_strength"})
    assert v["alternate-foundations"].model_dump() == PolarityRules(foundation_order="alternate").model_dump()
    assert v["red-clearance"].model_dump() == PolarityRules(foundation_red_gap_mm=80).model_dump()
    assert v["fine-step"].model_dump() == PolarityRules(dt=5e-5).model_dump()


def test_set_overrides_reach_every_knob_from_strings():
    base = GAME.variant("standard")
    r = GAME.with_overrides(base, {"foundations": "3", "tower_steal": "true", "magnet_strength": "1.2"})
    assert (r.foundations, r.tower_steal, r.magnet_strength) == (3, True, 1.2)
    with pytest.raises(UsageError):
        GAME.with_overrides(base, {"no_such_knob": "1"})
    with pytest.raises(UsageError):
        GAME.with_overrides(base, {"red_orientation": "sideways"})


def test_every_strategy_is_registered_with_hand_noise_params():
    assert {"random", "cautious", "aggressive", "converter", "capturer", "lookahead"} <= set(GAME.strategies)
    for sdef in GAME.strategies.values():
        assert {"noise_mm", "noise_deg"} <= set(sdef.params_model.model_fields)
    p = GAME.strategy(StrategySpec.parse("cautious:noise_mm=1.5")).validate(StrategySpec.parse("cautious:noise_mm=1.5"))
    assert p.noise_mm == 1.5
    with pytest.raises(UsageError):
        GAME.strategy(StrategySpec.parse("cautious:nois=1")).validate(StrategySpec.parse("cautious:nois=1"))


# --- R1, R2 ---------------------------------------------------------------

def test_r1_red_orientation_is_a_fair_coin_from_the_seed_unless_fixed():
    draws = [red_orientation("random", np.random.default_rng(s)) for s in range(200)]
    assert 60 < draws.count("bar") < 140 and set(draws) == {"bar", "dot"}
    assert red_orientation("random", np.random.default_rng(5)) == red_orientation("random", np.random.default_rng(5))
    assert red_orientation("dot", np.random.default_rng(0)) == "dot"


def test_r2_seat_0_is_white_showing_south_and_seat_1_black():
    assert colour(0) == W == -1 and colour(1) == B == 1


# --- R3, R4 ---------------------------------------------------------------

def view_of(bodies, seat=0, table=None):
    return View(seat, bodies, table or Table(stacks=[20, 20]), STD, Geometry())


def test_r3_setup_spot_must_be_inside_the_circle_and_touch_no_disc():
    v = view_of([RED, disc(1, 60, 0, W)])
    assert v.legal_spot(0.0, 0.1)
    assert not v.legal_spot(0.0, 0.0)            # on the red disc
    assert not v.legal_spot(0.060 + 0.031, 0.0)  # overlaps disc 1 (radius 16 mm)
    assert v.legal_spot(0.060 + 0.034, 0.0)
    assert not v.legal_spot(0.0, 0.220)          # past the circle's edge
    spots = v.sample_spots(np.random.default_rng(0), 50)
    assert spots and all(v.legal_spot(*s) for s in spots)


def test_r3_knob_foundation_red_gap_keeps_foundation_spots_off_the_red_disc():
    rules = PolarityRules(foundation_red_gap_mm=50)
    setup = View(0, [RED], Table(stacks=[20, 20]), rules, Geometry(), setup=True)
    turn = View(0, [RED], Table(stacks=[20, 20]), rules, Geometry())
    rims = 0.016 + 0.016  # red disc's radius and a disc's
    assert not setup.legal_spot(rims + 0.049, 0.0) and setup.legal_spot(rims + 0.051, 0.0)
    assert turn.legal_spot(rims + 0.010, 0.0)  # a captured tower's spot (R11) is not a foundation
    assert view_of([RED]).legal_spot(rims + 0.010, 0.0)  # the rulebook: touching no disc
    spots = setup.sample_spots(np.random.default_rng(0), 400)
    assert spots and min(np.hypot(x, y) for x, y in spots) >= rims + 0.050
    assert min(np.hypot(x, y) for x, y in view_of([RED]).sample_spots(np.random.default_rng(0), 400)) < rims + 0.050


EDGE = 0.225 - 0.016  # Geometry(): the furthest centre of a disc lying wholly inside the circle


def test_r3_a_foundation_may_lie_anywhere_wholly_inside_the_circle():
    setup = View(0, [RED], Table(stacks=[20, 20]), STD, Geometry(), setup=True)
    for x, y in ((EDGE - 0.0015, 0.0), (0.0, -(EDGE - 0.0015)), (-0.7 * (EDGE - 0.002), 0.7 * (EDGE - 0.002))):
        assert setup.legal_spot(x, y) and view_of([RED]).legal_spot(x, y)
    assert setup.legal_spot(EDGE - 0.0005, 0.0, margin=0.0)  # the engine's test: wholly inside
    assert not setup.legal_spot(EDGE - 0.0005, 0.0)  # strategies keep a millimetre
    assert not setup.legal_spot(EDGE + 0.0005, 0.0, margin=0.0)  # its rim past the edge
    spots = setup.sample_spots(np.random.default_rng(0), 2000)
    assert max(np.hypot(x, y) for x, y in spots) > EDGE - 0.004


def test_r3_r10_knob_edge_gap_keeps_foundations_and_captured_towers_off_the_edge():
    rules = PolarityRules(edge_gap_mm=15)
    for setup in (True, False):  # a foundation, and a captured tower's spot
        v = View(0, [RED], Table(stacks=[20, 20]), rules, Geometry(), setup=setup)
        assert v.legal_spot(EDGE - 0.0165, 0.0) and not v.legal_spot(EDGE - 0.0145, 0.0)
        spots = v.sample_spots(np.random.default_rng(0), 2000)
        assert EDGE - 0.021 < max(np.hypot(x, y) for x, y in spots) < EDGE - 0.016


def test_r3_edge_gap_of_a_disc_radius_is_the_spot_test_of_polsim_before_0_23_bit_for_bit():
    geo = Geometry(disc_radius=0.015)  # the core's disc: edge_gap_mm=15 is one radius
    bodies = [RED, disc(1, 60, 0, W), disc(2, -150, 90, B)]
    v = View(0, bodies, Table(stacks=[20, 20]), PolarityRules(edge_gap_mm=15), geo)
    for x, y in np.random.default_rng(3).uniform(-0.21, 0.21, (400, 2)):
        # polsim 0.22.0: the gap to the edge less a disc radius, or to a disc's rim; less a radius again
        before = min([geo.circle_radius - geo.disc_radius - dm.hypot(x, y)]
                     + [dm.hypot(x - b.x, y - b.y) - geo.disc_radius for b in bodies])
        assert v.rim_gap(x, y) == before - geo.disc_radius, (x, y)


def test_r3_edge_gap_and_red_gap_leave_the_foundations_a_ring():
    assert PolarityRules(foundation_red_gap_mm=80, edge_gap_mm=40).edge_gap_mm == 40
    with pytest.raises(ValueError, match="ring of 60 mm"):
        PolarityRules(foundation_red_gap_mm=80, edge_gap_mm=41)
    with pytest.raises(UsageError, match="edge_gap_mm"):
        GAME.with_overrides(PolarityRules(foundation_red_gap_mm=100), {"edge_gap_mm": "30"})


@pytest.mark.parametrize("gap", [-1, 121])
def test_r3_knob_foundation_red_gap_out_of_range_is_refused(gap):
    with pytest.raises(ValueError, match="foundation_red_gap_mm"):
        PolarityRules(foundation_red_gap_mm=gap)


def test_r4_hosts_are_own_colour_foundations_and_own_towers_only():
    bodies = [RED, disc(1, 60, 0, W), disc(2, -60, 0, B), disc(3, 0, 60, W, "leaning"),
              disc(4, 0, -60, W, "stacked", tower=4), disc(5, 0, -60, W, "stacked", tower=4, z_mm=9),
              disc(6, 90, 90, W), disc(7, 90, 90, W, "stacked", tower=6)]
    table = Table(stacks=[20, 20], towers=[Tower(0, [4, 5])], pending=[FaultGroup(1, (6, 7))])
    white = {b.id for b in view_of(bodies, 0, table).hosts()}
    assert white == {1, 4}  # not the leaner, not the opponent's, not a pending fault group
    assert {b.id for b in view_of(bodies, 1, table).hosts()} == {2}


# --- R5, R6 ---------------------------------------------------------------

def test_r5_action_disc_falling_flat_with_no_reaction_is_a_retry():
    before = [RED, disc(1, 60, 0, W)]
    ep = episode(before + [disc(9, 90, 0, W)], action=9, fallen=[9])
    res = run(before, ep)
    assert res.action == "flat" and not res.fault and res.returned == []


def test_r5_action_disc_leaning_with_no_reaction_is_placed():
    before = [RED, disc(1, 60, 0, W)]
    ep = episode(before + [disc(9, 71, 0, W, "leaning", leaning_on=1)], action=9)
    res = run(before, ep)
    assert res.action == "placed" and not res.fault


def test_r5_an_action_disc_flying_out_of_the_circle_with_no_reaction_is_a_retry():
    before = [RED, disc(1, 60, 0, W)]
    ep = episode(before + [disc(9, 240, 0, W, "out")], action=9, out_of_bounds=[9])
    res = run(before, ep)
    assert res.action == "flat" and not res.fault and res.faults == [] and res.returned == [] and res.groups == []


def test_r6a_discs_coming_to_touch_at_any_instant_is_a_fault():
    before = [RED, disc(1, 60, 0, W), disc(2, 100, 0, B)]
    ep = episode(before + [disc(9, 71, 0, W, "leaning")], action=9, new_contacts=[(1, 2)])
    res = run(before, ep)
    assert res.faults == ["a"] and res.action == "fault"
    assert res.groups == []  # they parted again: no fault group


def test_r6a_contacts_that_already_existed_are_not_new():
    a, b = disc(1, 60, 0, W, "stacked", tower=1), disc(2, 60, 0, W, "stacked", tower=1, z_mm=9)
    before = [RED, a, b]
    ep = episode(before + [disc(9, 80, 0, W, "leaning")], action=9, new_contacts=[(1, 2)], final_contacts=[(1, 2)])
    assert not run(before, ep, contacts=[(1, 2)]).fault


def test_r6a_action_disc_snapping_onto_its_host_is_a_fault_and_a_group():
    before = [RED, disc(1, 60, 0, W)]
    ep = episode(before + [disc(9, 60, 0, W, "stacked", tower=1, z_mm=9)], action=9,
                 new_contacts=[(1, 9)], final_contacts=[(1, 9)])
    res = run(before, ep, mover=0)
    assert "a" in res.faults and res.action == "fault"
    assert res.groups == [FaultGroup(captor=1, ids=(1, 9))]


def test_r6b_a_placed_leaner_falling_flat_is_a_fault():
    lean = disc(3, 0, 60, B, "leaning")
    before = [RED, disc(1, 60, 0, W), lean]
    ep = episode([RED, before[1], moved(lean, state="flat"), disc(9, 71, 0, W, "leaning")], action=9, fallen=[3])
    assert run(before, ep).faults == ["b"]


def test_r6c_disc_snapping_onto_held_action_disc_is_a_fault():
    before = [RED, disc(1, 60, 0, W), disc(2, 80, 20, B)]
    ep = episode([RED, before[1]], action=9, in_hand=[2, 9])
    res = run(before, ep)
    assert "c" in res.faults and res.action == "in_hand"


@pytest.mark.parametrize("moved_by, limit, fault", [(0.5, 1.0, False), (1.2, 1.0, True), (0.5, 0.4, True)])
def test_r6d_foundation_moving_more_than_fault_move_diameters_is_a_fault(moved_by, limit, fault):
    f = disc(2, -60, 0, B)
    before = [RED, disc(1, 60, 0, W), f]
    ep = episode(before + [disc(9, 71, 0, W, "leaning")], action=9, moved_diameters={2: moved_by})
    assert ("d" in run(before, ep, move_limit=limit).faults) is fault


@pytest.mark.parametrize("moved_by, faults, action", [(1.2, ["d"], "fault"), (0.5, [], "placed")])
def test_r6d_a_tower_moved_more_than_its_diameter_is_a_fault_and_less_is_not(moved_by, faults, action):
    t1, t2 = disc(4, -60, 0, B, "stacked", tower=4), disc(5, -60, 0, B, "stacked", tower=4, z_mm=9)
    before = [RED, disc(1, 60, 0, W), t1, t2]
    shift = -moved_by * 32 * 1e-3  # disc diameters, radius 16 mm
    slid = [moved(t1, x=t1.x + shift), moved(t2, x=t2.x + shift)]
    ep = episode([RED, before[1], *slid, disc(9, 71, 0, W, "leaning", leaning_on=1)], action=9,
                 moved_diameters={4: moved_by, 5: moved_by}, final_contacts=[(4, 5)])
    table = Table(stacks=[20, 20], towers=[Tower(1, [4, 5])])
    res = run(before, ep, mover=0, table=table, contacts=[(4, 5)])
    assert (res.faults, res.action, res.groups) == (faults, action, [])


def test_r6e_disc_leaving_the_circle_is_a_fault():
    before = [RED, disc(1, 60, 0, W), disc(2, 200, 0, B)]
    ep = episode([RED, before[1], moved(before[2], x=0.230, state="out"), disc(9, 71, 0, W, "leaning")],
                 action=9, out_of_bounds=[2])
    assert run(before, ep).faults == ["e"]


# --- R7 -------------------------------------------------------------------

def test_r7_the_converted_leaner_falling_is_not_itself_a_reaction():
    lean = disc(3, 80, 0, W, "leaning", leaning_on=1)
    before = [RED, disc(1, 60, 0, W), lean]
    ep = episode([RED, before[1], moved(lean, state="flat", x=0.085)], fallen=[3], moved_diameters={3: 0.3})
    res = run(before, ep, expected={3})
    assert res.faults == [] and res.groups == []


def test_r7_other_reactions_during_a_conversion_are_faults_as_usual():
    lean, other = disc(3, 80, 0, W, "leaning"), disc(4, 100, 30, B, "leaning")
    before = [RED, disc(1, 60, 0, W), lean, other]
    ep = episode([RED, before[1], moved(lean, state="flat"), moved(other, state="flat")], fallen=[3, 4])
    assert run(before, ep, expected={3}).faults == ["b"]


# --- R8, R9 ---------------------------------------------------------------

def test_r8_discs_snapped_onto_the_held_disc_return_with_it_to_the_faulters_stack():
    before = [RED, disc(1, 60, 0, W), disc(2, 80, 30, B), disc(4, -80, 0, B)]
    ep = episode([RED, before[1], before[3]], action=9, in_hand=[2])
    res = run(before, ep, mover=0)
    assert res.returned == [2, 9] and res.action == "in_hand"


def test_r9_discs_out_of_bounds_go_to_the_faulters_stack():
    before = [RED, disc(1, 60, 0, W), disc(2, 200, 0, B)]
    ep = episode([RED, before[1], moved(before[2], state="out"), disc(9, 71, 0, W, "leaning")],
                 action=9, out_of_bounds=[2])
    res = run(before, ep, mover=1)
    assert res.returned == [2] and res.fault


def test_r9_an_action_disc_that_touched_the_red_disc_and_left_the_circle_goes_to_the_faulters_stack():
    """With R14 off (no-red-death) the touch is a fault and the game goes on. The Action Disc,
    flung out of the circle with no other reaction, is R9's like any disc out of bounds, not a
    retry's (R5): left out there it was in neither stack nor on the mat."""
    before = [RED, disc(1, 60, 0, W)]
    ep = episode(before + [disc(9, 240, 0, W, "out")], action=9, red_contacts=[9], out_of_bounds=[9])
    res = run(before, ep, mover=0)
    assert res.fault and res.action == "fault" and res.returned == [9]


def test_edge_mixed_fault_in_hand_to_stack_and_mat_group_to_opponent():
    """Common question: some discs snapped onto the held disc, others together on the mat."""
    f1, f2, f3 = disc(1, 60, 0, W), disc(2, 95, 0, B), disc(3, 40, 60, B)
    before = [RED, f1, f2, f3]
    ep = episode([RED, f1, moved(f2, x=0.062, z=0.009, state="stacked", tower=1)], action=9, in_hand=[3],
                 new_contacts=[(1, 2)], final_contacts=[(1, 2)])
    res = run(before, ep, mover=0)
    assert res.returned == [3, 9]
    assert res.groups == [FaultGroup(captor=1, ids=(1, 2))]
    assert set(res.faults) == {"a", "c"}


# --- R10, R11, R12 --------------------------------------------------------

def test_r10_discs_snapped_together_on_the_mat_form_a_group_for_the_opponent():
    f1, f2 = disc(1, 60, 0, W), disc(2, 95, 0, B)
    before = [RED, f1, f2, disc(5, -60, 0, B)]
    ep = episode([RED, f1, moved(f2, x=0.062, state="stacked", tower=1), before[3], disc(9, 70, 30, B, "resting")],
                 action=9, new_contacts=[(1, 2), (9, 1)], final_contacts=[(1, 2), (1, 9)])
    res = run(before, ep, mover=1)
    assert res.groups == [FaultGroup(captor=0, ids=(1, 2, 9))]


@pytest.mark.parametrize("steal, ids", [(False, (7,)), (True, (4, 5, 7))])
def test_r11_discs_joining_a_captured_tower_only_new_ones_captured_unless_tower_steal(steal, ids):
    t1, t2 = disc(4, 60, 0, W, "stacked", tower=4), disc(5, 60, 0, W, "stacked", tower=4, z_mm=9)
    loose = disc(7, 100, 0, B)
    before = [RED, t1, t2, loose]
    table = Table(stacks=[20, 20], towers=[Tower(0, [4, 5])])
    ep = episode([RED, t1, t2, moved(loose, x=0.060, z=0.015, state="stacked", tower=4), disc(9, 0, 80, B, "leaning")],
                 action=9, new_contacts=[(5, 7)], final_contacts=[(4, 5), (5, 7)])
    res = run(before, ep, mover=1, table=table, contacts=[(4, 5)], tower_steal=steal)
    assert res.groups == [FaultGroup(captor=0, ids=ids)]


def test_r12_opponents_leaner_flipped_to_faulters_colour_is_captured_by_its_owner():
    lean = disc(3, 0, 60, B, "leaning")  # Black's leaner; White faults
    before = [RED, disc(1, 60, 0, W), lean]
    ep = episode([RED, before[1], moved(lean, state="flat", up=W), disc(9, 71, 0, W, "leaning")],
                 action=9, fallen=[3], flipped=[3])
    res = run(before, ep, mover=0)
    assert res.groups == [FaultGroup(captor=1, ids=(3,), flipped_leaner=True)]


def test_r12_discs_of_a_captured_tower_are_not_flipped_leaners_when_its_placement_faults():
    """White captures two of Black's former leaners (white now showing) and faults
    placing them (a foundation is knocked away): the tower's discs match R12's
    "opponent's leaner flipped to the faulter's colour", but they are the capture,
    not leaners flipped by the fault. Before: each became a one-disc group for Black."""
    g1, g2 = disc(3, 0, 60, B, "leaning"), disc(4, 0, -60, B, "leaning")
    hit = disc(1, 60, 0, W)
    before = [RED, hit, g1, g2]
    tower = [moved(g1, x=0.1, y=0.0, state="stacked", up=W, tower=3),
             moved(g2, x=0.1, y=0.0, z=0.0045, state="stacked", up=W, tower=3)]
    ep = episode([RED, moved(hit, x=0.2), *tower], fallen=[3, 4], flipped=[3, 4], moved_diameters={1: 2.5},
                 final_contacts=[(3, 4)])
    res = run(before, ep, mover=0, expected={3, 4}, keep={3, 4})
    assert res.fault and "d" in res.faults
    assert res.groups == []


@pytest.mark.parametrize("tower_steal", [False, True])
def test_r12_a_tilted_tower_knocked_flat_and_turned_over_is_no_flipped_leaner(tower_steal):
    """A tower of Black's resting tilted against a disc (its discs read RESTING, like a
    leaner) falls flat and turns over to White in White's fault. R12's "opponent's leaner"
    is a leaner: the tower stays a tower, its controller the colour now on top (R13).
    Before polsim 0.20.1 each disc became a one-disc group for Black: a group counted that
    the capture then dropped as a tower's discs (R11), or with ``tower_steal`` lifted out."""
    t1, t2 = disc(3, 0, 60, B, "resting", tower=3), disc(4, 0, 60, B, "resting", tower=3, z_mm=9)
    t0 = disc(5, 1, 75, B)  # a one-disc tower (a captured single disc, lying alone) tipped up
    hit = disc(1, 60, 0, W)
    before = [RED, hit, t1, t2, moved(t0, state="resting")]
    table = Table(stacks=[20, 20], towers=[Tower(1, [3, 4]), Tower(1, [5])])
    final = [RED, hit, moved(t1, state="stacked", up=W), moved(t2, state="stacked", up=W), moved(t0, up=W),
             disc(9, 71, 0, W, "leaning")]
    ep = episode(final, action=9, fallen=[3, 4, 5], flipped=[3, 4, 5], final_contacts=[(3, 4)])
    res = run(before, ep, mover=0, table=table, contacts=[(3, 4)], tower_steal=tower_steal)
    assert res.fault and "b" in res.faults
    assert res.groups == []


def test_r12_r13_a_disc_knocked_off_a_tilted_tower_lies_where_it_landed_like_one_off_a_flat_tower():
    """Knocked apart, a tower is none (R13); its disc, turned over to White, is no leaner of
    Black's to capture back (R12), whether the tower stood tilted (RESTING) or flat: it lies
    where it landed, a foundation of the colour now up. Before polsim 0.20.1 only the
    tilted tower's disc became a group for Black."""
    hit = disc(1, 60, 0, W)
    for state in ("resting", "stacked"):
        t1, t2 = disc(3, 0, 60, B, state, tower=3), disc(4, 0, 60, B, state, tower=3, z_mm=9)
        table = Table(stacks=[20, 20], towers=[Tower(1, [3, 4])])
        final = [RED, hit, moved(t1, state="flat", tower=-1), moved(t2, x=0.03, state="flat", up=W, tower=-1),
                 disc(9, 71, 0, W, "leaning")]
        ep = episode(final, action=9, fallen=[3, 4] if state == "resting" else [], flipped=[4],
                     moved_diameters={4: 1.2})
        res = run(before=[RED, hit, t1, t2], ep=ep, mover=0, table=table, contacts=[(3, 4)])
        assert res.fault and res.groups == [], state


def test_r12_fallen_leaners_touching_nothing_stay_as_foundations_no_capture():
    own, opp = disc(3, 0, 60, W, "leaning"), disc(4, 0, -60, B, "leaning")
    before = [RED, disc(1, 60, 0, W), own, opp]
    ep = episode([RED, before[1], moved(own, state="flat", up=B), moved(opp, state="flat"), disc(9, 71, 0, W, "leaning")],
                 action=9, fallen=[3, 4], flipped=[3])
    res = run(before, ep, mover=0)
    assert res.fault and res.groups == []  # own leaner flipped to Black: Black's foundation now


# --- R13, R18 -------------------------------------------------------------

@pytest.mark.parametrize("single, expected", [(True, 3 + 1 - 4), (False, 3 - 4)])
def test_r13_r18_score_is_tower_discs_minus_stack_with_single_disc_knob(single, expected):
    t = Table(stacks=[4, 2], towers=[Tower(0, [1, 2, 3]), Tower(0, [8]), Tower(1, [5, 6])])
    assert t.score(0, single) == expected
    assert t.score(1, single) == 2 - 2


def test_r13_towers_host_leaners_like_a_foundation():
    """Common question: can I play a Leaner off a Tower? Yes, off your own."""
    bodies = [RED, disc(4, 0, -60, B, "stacked", tower=4), disc(5, 0, -60, B, "stacked", tower=4, z_mm=9)]
    table = Table(stacks=[20, 20], towers=[Tower(1, [4, 5])])
    assert [h.id for h in view_of(bodies, 1, table).hosts()] == [4]
    assert view_of(bodies, 0, table).hosts() == []


def test_r18_higher_score_wins_equal_is_a_draw():
    assert winner([3.0, 1.0], None, "stack_empty") == 0
    assert winner([-2.0, 1.0], None, "stack_empty") == 1
    assert winner([1.0, 1.0], None, "stack_empty") == -1
    assert winner([9.0, 1.0], 0, "red_touched") == 1  # a sudden end beats the score
    assert winner([1.0, 1.0], None, "step_budget") is None


# --- R14-R17 --------------------------------------------------------------

BOTH = {W, B}


def test_r14_touching_the_red_disc_loses_at_once():
    before = [RED, disc(1, 30, 0, W)]
    ep = episode(before + [disc(9, 41, 0, W, "leaning")], action=9, red_contacts=[9], new_contacts=[(0, 9)])
    res = run(before, ep)
    assert res.red_touched
    assert sudden_end(STD, 0, res.red_touched, res.red_moved, [10, 10], False, BOTH) == ("red_touched", 0, "R14")


def test_r14_red_touch_overrides_every_other_end():
    """Common question: touching red is not a fault, it is a loss that overrides all rules."""
    assert sudden_end(STD, 1, True, True, [0, 3], True, set())[0:2] == ("red_touched", 1)


def test_r14_off_in_no_red_death_variant():
    rules = load_variants()["no-red-death"]
    assert sudden_end(rules, 1, True, True, [5, 5], False, BOTH) is None


def test_r15_red_moved_more_than_its_radius_loses():
    before = [RED, disc(1, 30, 0, W)]
    ep = episode(before, red_displacement=1.3)
    res = run(before, ep)
    assert res.red_moved and not run(before, episode(before, red_displacement=0.4)).red_moved
    assert sudden_end(STD, 1, False, res.red_moved, [5, 5], False, BOTH) == ("red_moved", 1, "R15")


def test_r15_red_moved_is_measured_from_the_dot_so_small_pushes_add_up():
    """Each push is under a radius, but the second leaves the dot uncovered."""
    a = Geometry().red_radius
    once = moved(RED, x=0.6 * a)
    first = run([RED], episode([once], red_displacement=0.6), red_radius=a)
    second = run([once], episode([moved(RED, x=1.2 * a)], red_displacement=0.6), red_radius=a)
    assert not first.red_moved and second.red_moved


def test_r15_red_pushed_back_over_the_dot_has_not_moved_off_it():
    """From 0.5 radii off, 1.1 radii through the dot to 0.6 on the other side: never uncovered."""
    a = Geometry().red_radius
    start, end = moved(RED, x=0.5 * a), moved(RED, x=-0.6 * a)
    assert not run([start], episode([end], red_displacement=1.1), red_radius=a).red_moved
    assert run([start], episode([moved(RED, x=0.4 * a)], red_displacement=1.6), red_radius=a).red_moved  # out and back


def test_r16_a_player_with_no_colour_on_the_mat_loses():
    assert sudden_end(STD, 0, False, False, [5, 5], False, {W}) == ("no_colour_on_mat", 1, "R16")
    assert sudden_end(STD, 0, False, False, [5, 5], False, set())[1] == 0  # both: the mover caused it
    assert sudden_end(STD.model_copy(update={"no_colour_loses": False}), 0, False, False, [5, 5], False, set()) is None


def test_r17_an_emptied_stack_ends_the_game_even_if_refilled_in_the_same_resolution():
    """Common question: playing my last disc ends the game at once, even mid-turn."""
    assert sudden_end(STD, 0, False, False, [2, 5], True, BOTH) == ("stack_empty", None, "")
    assert sudden_end(STD, 0, False, False, [0, 5], False, BOTH)[0] == "stack_empty"
    both = STD.model_copy(update={"end_when": "both_stacks_empty"})
    assert sudden_end(both, 0, False, False, [0, 5], True, BOTH) is None
    assert sudden_end(both, 0, False, False, [0, 0], False, BOTH)[0] == "stack_empty"


def test_r15_off_a_red_disc_left_off_its_dot_earlier_does_not_make_later_moves_faults():
    """With R15 off (no-red-death), where the red disc lies is not a reaction; a push is."""
    a = Geometry().red_radius
    off = moved(RED, x=1.5 * a)  # pushed off the dot turns ago
    calm = run([off, disc(1, 30, 0, W)], episode([off, disc(1, 30, 0, W)], red_displacement=0.0),
               red_radius=a, red_moved_loses=False)
    assert calm.red_moved and not calm.fault and calm.faults == []
    strict = run([off], episode([off], red_displacement=0.0), red_radius=a)
    assert strict.fault  # R15 in force: the game ends on it, and the move is a fault as before


def test_r6_a_move_that_pushes_the_red_disc_is_a_fault_recorded_as_r():
    before = [RED, disc(1, 30, 0, W)]
    pushed = run(before, episode(before, red_displacement=2.4), red_moved_loses=False)  # 1.2 red diameters
    assert pushed.fault and "r" in pushed.faults
    assert "r" not in run(before, episode(before, red_displacement=0.8), red_moved_loses=False).faults
