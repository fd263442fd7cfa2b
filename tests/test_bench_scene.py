"""benchmarks/bench_physics.py times every physics on one stored mid-game world."""

import importlib
from pathlib import Path

import numpy as np
import pytest

from rules.polarity.physics import physics_restores
from sim.params import PhysicsParams


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return importlib.import_module("bench_physics")


def test_the_stored_scene_is_the_world_its_physics_builds_bit_for_bit(bench):
    stored = bench.stored_scene()
    built = bench.build_scene(PhysicsParams(**physics_restores(bench.SCENE_PHYSICS)))
    assert len(stored) == 37 and not stored.awake.any()
    for name in bench.STATE_ARRAYS:
        assert np.array_equal(getattr(stored, name), getattr(built, name)), name


def test_the_scene_s_placements_are_chosen_from_the_stored_world_alone(bench, tmp_path):
    """Another physics times the same three placements on the same world."""
    world, intents = bench.mid_game_scene()
    other, other_intents = bench.mid_game_scene(PhysicsParams(flat_sleep_time=0.08))
    assert other.params.flat_sleep_time == 0.08 and np.array_equal(other.pos, world.pos)
    assert intents == other_intents and intents["nominal_placement"].host == 24
    path = str(tmp_path / "scene.npz")
    bench.store_scene(world, path)
    again = bench.stored_scene(path)
    assert all(np.array_equal(getattr(again, n), getattr(world, n)) for n in bench.STATE_ARRAYS)
