"""Golden suite: every fixed scene reproduces its recorded outcome exactly,
recorded with the current PHYSICS_VERSION (regenerate: python -m sim.golden --regenerate)."""

import json

import pytest

from sim.golden import FOLDER, load, outcome
from sim.scenes import SCENES, run_scene
from sim.version import PHYSICS_VERSION


def test_golden_suite_has_at_least_twenty_recorded_scenes():
    assert len(SCENES) >= 20
    assert sorted(p.stem for p in FOLDER.glob("*.json")) == sorted(SCENES)


@pytest.mark.parametrize("name", sorted(SCENES))
def test_golden_scene_outcome_unchanged(name):
    record = load(name)
    assert record["physics_version"] == PHYSICS_VERSION
    assert json.loads(json.dumps(outcome(run_scene(name)))) == record["outcome"]
