"""Same inputs, bit-identical events and final states: twice in one process
and in two fresh processes."""

import hashlib
import subprocess
import sys

import numpy as np

from sim.golden import outcome
from sim.params import PhysicsParams
from sim.scenes import SCENES as ALL_SCENES, run_scene

SCENES = ("domino", "snap_to_hand", "capture_tower")


def _digest_of(name: str, params: PhysicsParams | None = None) -> str:
    """Hash of a scene's full outcome: events plus every final float bit for bit."""
    ep = run_scene(name, params)
    h = hashlib.sha256(repr(outcome(ep)).encode())
    for b in ep.final:
        h.update(np.array([b.x, b.y, b.z, b.tilt]).tobytes())
    h.update(repr(sorted(ep.moved_diameters.items())).encode())
    h.update(repr(ep.red_displacement).encode())
    return h.hexdigest()


def test_determinism_same_scene_twice_in_one_process_is_bit_identical():
    for name in SCENES:
        assert _digest_of(name) == _digest_of(name)


def test_determinism_two_fresh_processes_agree_bit_for_bit():
    code = ("import sys; sys.path.insert(0, 'tests'); "
            "from test_physics_determinism import _digest_of, SCENES; "
            "print(' '.join(_digest_of(n) for n in SCENES))")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.split() for _ in range(2)]
    here = [_digest_of(n) for n in SCENES]
    assert runs[0] == runs[1] == here


def test_coasting_through_the_hand_phase_changes_no_bit_of_any_golden_scene():
    """The hand phase skips steps where only the held disc is awake and nothing is within reach;
    every scene must come out bit for bit as with every step simulated."""
    for name in ALL_SCENES:
        assert _digest_of(name, PhysicsParams(coast=False)) == _digest_of(name), name

