"""The calibration written in sim/params.py holds: the nominal leaner hovers."""

import numpy as np

from sim.api import BodyState, PhysicsParams, World, nominal_intent, place_leaner
from sim.params import CALIBRATED_BASE_DISTANCE, CALIBRATED_TILT_DEG, CALIBRATION


def test_calibration_nominal_intent_matches_the_recorded_base_distance():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    intent = nominal_intent(w, host, 0.3)
    assert abs(intent.base_distance - CALIBRATED_BASE_DISTANCE) < 5e-4
    assert intent.up == 1 and abs(intent.tilt - np.pi / 4) < 1e-12


def test_calibration_nominal_leaner_hovers_at_the_recorded_tilt_for_three_seconds():
    w = World.new(PhysicsParams(sleep=False, settle_budget_s=3.0))
    host = w.add_flat(0.0, 0.0, 1)
    ep = place_leaner(w, nominal_intent(w, host, 0.0))
    assert ep.status == "step_budget"           # nobody sleeps: ran the full 3 s
    assert ep.sim_time >= 3.0
    leaner = w.body(ep.action)
    assert leaner.state == BodyState.LEANING     # touching only the mat
    assert ep.final_contacts == [] and ep.new_contacts == []
    tilt = np.degrees(leaner.tilt)
    assert 35.0 <= tilt <= 55.0
    assert abs(tilt - CALIBRATED_TILT_DEG) < 1.0
    assert f"{CALIBRATED_TILT_DEG}" in CALIBRATION


def test_calibration_white_leaner_on_white_host_mirrors_black():
    w = World.new()
    host = w.add_flat(0.0, 0.0, -1)
    intent = nominal_intent(w, host, 1.0)
    assert intent.up == -1
    ep = place_leaner(w, intent)
    assert ep.ok and w.body(ep.action).state == BodyState.LEANING
    assert abs(np.degrees(w.body(ep.action).tilt) - CALIBRATED_TILT_DEG) < 1.0
