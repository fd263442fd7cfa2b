"""Sub-steps of moving contacts (sim.integrate, Sub-steps): taken where a
moving body touches or is about to touch, nowhere else; ``contact_substeps =
1`` is physics 0.6.0's integration bit for bit."""

import numpy as np
import pytest

from pipelines import selfcheck
from rules.polarity.physics import physics_restores
from sim.api import PHYSICS_VERSION, PhysicsParams, World, settle


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


@pytest.mark.parametrize("version, reference", [
    ("0.23.0", selfcheck.REFERENCE_0_23_0), ("0.22.0", selfcheck.REFERENCE_0_22_0),
    ("0.21.0", selfcheck.REFERENCE_0_21_0), ("0.20.0", selfcheck.REFERENCE_0_20_0),
    ("0.19.0", selfcheck.REFERENCE_0_19_0), ("0.18.0", selfcheck.REFERENCE_0_18_0),
    ("0.17.0", selfcheck.REFERENCE_0_17_0), ("0.16.0", selfcheck.REFERENCE_0_16_0),
    ("0.15.0", selfcheck.REFERENCE_0_15_0), ("0.14.0", selfcheck.REFERENCE_0_14_0),
    ("0.13.1", selfcheck.REFERENCE_0_13_1),
    ("0.12.1", selfcheck.REFERENCE_0_12_1),
    ("0.11.0", selfcheck.REFERENCE_0_11_0), ("0.10.0", selfcheck.REFERENCE_0_10_0),
    ("0.9.0", selfcheck.REFERENCE_0_9_0), ("0.7.0", selfcheck.REFERENCE_0_7_0),
    ("0.6.0", selfcheck.REFERENCE_SINGLE_STEPS)])
def test_the_knobs_that_restore_an_older_physics_play_its_games_bit_for_bit(version, reference):
    """Placements and a short game, played with the knobs ``physics_restores`` names for
    an older physics (what ``polsim replay`` sets for a run made with it), print the
    digest that physics printed (recorded there): e.g. 0.6.0 with the sub-steps off,
    towers tested disc by disc, no compound bodies, results computed where the pair is,
    far pairs held whole, no skirt, the kernel's frame held, its blends without
    their weight's work, reused results served with their own pose's torque, the
    edge gap by three projection rounds, the lead in full, flat islands sleeping
    after the sleep time of every island, and the held disc let go onto a disc that
    tipped up onto it, a disc out by its centre, a compound body's members forgetting
    the faces they pressed into each other through, a white-up tower's hold taken about
    its top face, a capture's lifted discs waking nothing they held up, nor any leaner
    whose pull they changed."""
    assert selfcheck.fingerprint(**physics_restores(version)) == reference


@pytest.mark.parametrize("version", sorted(selfcheck.CAPTURE_REFERENCE))
def test_the_knobs_that_restore_an_older_physics_play_its_captures_bit_for_bit(version):
    """Two captures that disturb a sleeping leaner (its host carried off; a disc 55 mm beyond it
    carried off), which the games above never play, print what each physics's own code printed:
    0.22.0 leaves the leaner asleep in the air, 0.23.0 lets it fall but keeps the other leaner
    where the lifted disc's field held it, 0.24.0 lets that one settle too."""
    knobs = {} if version == PHYSICS_VERSION else physics_restores(version)
    assert selfcheck.capture_fingerprint(**knobs) == selfcheck.CAPTURE_REFERENCE[version]


def test_the_capture_print_is_recorded_for_todays_physics_and_tells_each_physics_apart():
    assert PHYSICS_VERSION in selfcheck.CAPTURE_REFERENCE, "re-record it: python -m pipelines.selfcheck"
    assert len(set(selfcheck.CAPTURE_REFERENCE.values())) == len(selfcheck.CAPTURE_REFERENCE)
