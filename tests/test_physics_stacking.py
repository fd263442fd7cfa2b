"""Capture (R10) sets a tower down whole, each disc at its static rest height
(sim.stacking): it starts at rest, sleeps after ``sleep_time`` when nothing
disturbs it, and ``tower_at_rest = False`` is physics 0.8.0's capture bit for bit."""

import hashlib

import numpy as np
import pytest

from rules.polarity.physics import physics_restores
from sim.api import BodyState, PhysicsParams, World, place_tower
from sim.stacking import rest_heights


def _captured(n: int, **params):
    w = World.new(PhysicsParams(**params))
    group = [w.add_flat(-0.15 + 0.031 * k, -0.1, 1 - 2 * (k % 2)) for k in range(n)]
    return w, group, place_tower(w, group, 0.05, 0.08, -1)


@pytest.mark.parametrize("n", [1, 4, 10])
def test_captured_tower_stands_at_its_rest_heights_and_sleeps_after_sleep_time(n):
    w, group, ep = _captured(n)
    p = w.params
    assert ep.status == "settled" and ep.steps <= round(p.sleep_time / p.dt)
    heights = rest_heights(p, w.field, w.br[group], -1)
    assert np.abs(w.pos[group, 2] - heights).max() < 1e-7
    assert np.abs(w.pos[group, :2] - [0.05, 0.08]).max() < 1e-7
    states = {b.id: b for b in ep.final}
    assert all(states[i].up == -1 for i in group)
    if n > 1:
        assert all(states[i].state == BodyState.STACKED and states[i].tower == group[0] for i in group)


def test_rest_heights_balance_weight_magnets_and_contacts_under_the_full_dynamics():
    """Sleeping off, 50 ms of dynamics: the tower set at rest stays still (its
    forces balance to far below what moves a disc); dropped 0.2 mm apart, as
    up to physics 0.8.0, its discs still ring."""
    still = _captured(10, sleep=False, settle_budget_s=0.05)[0]
    ringing = _captured(10, sleep=False, settle_budget_s=0.05, tower_at_rest=False)[0]
    assert np.abs(still.vel).max() < 1e-5
    assert np.abs(ringing.vel).max() > 1e-3


def test_rest_heights_press_each_interface_by_the_weight_and_the_pull_across_it():
    """The mat carries the stack's weight alone (the magnets' pulls are internal);
    an interface carries the weight above it and the pull of every disc below on
    every disc above, so the middle of a tall tower is pressed hardest."""
    w = World.new()
    p = w.params
    z = rest_heights(p, w.field, np.full(10, p.br), 1)
    mat_stiffness = p.k_contact * p.rim_points ** (2.0 / p.contact_norm)
    assert 0.5 * p.thickness - z[0] == pytest.approx(10 * p.mass * p.gravity / mat_stiffness, rel=1e-9)
    pressed = p.thickness - np.diff(z)
    assert pressed.min() > 1e-4 and pressed.max() < p.chamfer   # pressed, face on face
    assert np.argmax(pressed) in (3, 4, 5) and pressed[0] < pressed[4] and pressed[-1] < pressed[4]


def _two_captures_digest(**params) -> tuple[list[int], str]:
    w = World.new(PhysicsParams(**params))
    group = [w.add_flat(0.06 + 0.031 * k, -0.05, 1 - 2 * (k % 2)) for k in range(5)]
    pair = [w.add_flat(-0.1, 0.1 + 0.031 * k, 1) for k in range(3)]
    w.add_flat(-0.06, -0.06, 1)
    steps = [place_tower(w, group, 0.05, 0.08, 1).steps, place_tower(w, pair, -0.06, -0.015, -1).steps]
    poses = np.ascontiguousarray(w.pos).tobytes() + np.ascontiguousarray(w.quat).tobytes()
    return steps, hashlib.sha256(poses).hexdigest()


def test_tower_at_rest_off_is_physics_0_8_0_capture_bit_for_bit():
    """Two captures, one next to a flat disc, with the knobs that restore physics
    0.8.0 (``tower_at_rest=False`` and every later version's); the digest was
    printed by physics 0.8.0's code (commit 006b5d1)."""
    assert _two_captures_digest(**physics_restores("0.8.0")) == (
        [1947, 1664], "a90a3357ede5e1cd7dda05654033bdbfae6138dd35a6fbd9f2936b5822560f40")
    assert _two_captures_digest()[0][0] < 1947 / 2


def test_a_tall_tower_of_strong_magnets_pressed_past_the_chamfer_stands():
    """Br x 1.5: twelve discs press their middle 1.1 mm, past the 0.8 mm chamfer,
    where a point's nearest surface is the neighbour's side, not its face; set
    down as pressed through the faces (``press_faces``) the stack stands still
    (without that it flew apart on the first steps)."""
    w, group, ep = _captured(12, br=0.72, br_red=0.72)
    p = w.params
    heights = rest_heights(p, w.field, w.br[group], -1)
    assert (p.thickness - np.diff(heights)).max() > p.chamfer
    assert ep.status == "settled" and ep.steps <= round(p.sleep_time / p.dt)
    assert np.abs(w.pos[group, 2] - heights).max() < 1e-7
