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


def test_regenerating_a_changed_outcome_under_the_same_physics_version_is_refused(tmp_path, monkeypatch):
    """A change of outcome is a new physics version: --regenerate will not record it
    under the old one (and writes nothing)."""
    import sim.golden as golden

    name = sorted(SCENES)[0]
    record = load(name)
    record["outcome"]["steps"] += 1                  # as if the physics had changed
    (tmp_path / f"{name}.json").write_text(json.dumps(record))
    monkeypatch.setattr(golden, "FOLDER", tmp_path)
    monkeypatch.setattr(golden, "SCENES", [name])
    with pytest.raises(golden.VersionNotBumped, match="bump"):
        golden.regenerate()
    assert json.loads((tmp_path / f"{name}.json").read_text()) == record
    monkeypatch.setattr(golden, "PHYSICS_VERSION", PHYSICS_VERSION + "-next")
    golden.regenerate()                              # with a new version it records
    assert load(name)["outcome"]["steps"] == record["outcome"]["steps"] - 1
