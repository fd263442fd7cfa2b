"""Sub-steps of moving contacts (sim.integrate, Sub-steps): taken where a
moving body touches or is about to touch, nowhere else; ``contact_substeps =
1`` is physics 0.6.0's integration bit for bit."""

import numpy as np

from pipelines import selfcheck
from sim.api import PhysicsParams, World, settle


def _drop(contact_substeps: int, height: float, budget_s: float = 0.05):
    params = PhysicsParams(settle_budget_s=budget_s, sleep=False, contact_substeps=contact_substeps)
    w = World.new(params)
    w.add_body((0.0, 0.0, 0.5 * params.thickness + height), (0.0, 0.0, 1.0), awake=True)
    return w, settle(w)


def test_a_disc_in_free_fall_is_not_substepped():
    (w1, ep1), (w3, ep3) = _drop(1, 0.05, 0.02), _drop(3, 0.05, 0.02)   # 20 ms: falls 2 mm of 50
    assert ep1.body_steps == ep3.body_steps == ep1.steps + 1
    assert np.array_equal(w1.pos, w3.pos) and np.array_equal(w1.vel, w3.vel)


def test_a_disc_resting_on_the_mat_is_not_substepped():
    (w1, ep1), (w3, ep3) = _drop(1, -2e-6), _drop(3, -2e-6)        # settled into its contact
    assert ep3.body_steps == ep1.body_steps
    assert np.array_equal(w1.pos, w3.pos) and np.array_equal(w1.quat, w3.quat)


def test_a_landing_is_substepped_from_just_before_the_touch():
    (w1, ep1), (w3, ep3) = _drop(1, 0.001), _drop(3, 0.001)         # lands after ~14 ms
    assert ep1.steps == ep3.steps == 500
    extra = ep3.body_steps - ep1.body_steps
    assert extra % 2 == 0 and 0 < extra // 2 < 500 - 140         # 2 more a sub-stepped step, never in the air


# what each physics since 0.10.0 added, off: every older physics is played with these too
BEFORE_0_11 = {"reuse_lead": 0.0, "far_dipole": 0.0, "contact_skirt": 0.0, "frame_turn": False}


def test_contact_substeps_1_without_tower_hold_plays_physics_0_6_0_games_bit_for_bit():
    """Placements and a short game with the sub-steps off, towers tested disc
    by disc and no compound bodies print the digest that physics 0.6.0
    printed (recorded there): the knobs restore the old physics exactly, for
    runs that need to match results made with it."""
    assert (selfcheck.fingerprint(contact_substeps=1, tower_hold=False, compound=False, **BEFORE_0_11)
            == selfcheck.REFERENCE_SINGLE_STEPS)


def test_tower_hold_off_plays_physics_0_7_0_games_bit_for_bit():
    assert selfcheck.fingerprint(tower_hold=False, compound=False, **BEFORE_0_11) == selfcheck.REFERENCE_0_7_0


def test_compound_off_plays_physics_0_9_0_games_bit_for_bit():
    assert selfcheck.fingerprint(compound=False, **BEFORE_0_11) == selfcheck.REFERENCE_0_9_0


def test_frame_turn_off_plays_physics_0_13_1_games_bit_for_bit():
    assert selfcheck.fingerprint(frame_turn=False) == selfcheck.REFERENCE_0_13_1


def test_contact_skirt_0_plays_physics_0_12_1_games_bit_for_bit():
    assert selfcheck.fingerprint(contact_skirt=0.0, frame_turn=False) == selfcheck.REFERENCE_0_12_1


def test_far_dipole_0_plays_physics_0_11_0_games_bit_for_bit():
    assert selfcheck.fingerprint(far_dipole=0.0, contact_skirt=0.0, frame_turn=False) == selfcheck.REFERENCE_0_11_0


def test_reuse_lead_0_plays_physics_0_10_0_games_bit_for_bit():
    assert selfcheck.fingerprint(**BEFORE_0_11) == selfcheck.REFERENCE_0_10_0
