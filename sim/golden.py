"""The golden suite: fixed scenes (sim.scenes) with recorded outcomes.

Each scene's outcome (status, events, and every body's final state with
positions to 0.1 mm and tilts to 0.1 deg) is stored in
``sim/golden/<scene>.json`` with the PHYSICS_VERSION it was made with.
tests/test_physics_golden.py fails on any difference, and when the recorded
version is not the current one. When a change of outcome is meant: bump
sim.version.PHYSICS_VERSION, then regenerate (regenerating refuses an
outcome change under the version it was recorded with):

    python -m sim.golden --regenerate     # rewrite every record
    python -m sim.golden                  # compare, print differences, exit 1 if any
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from sim.events import Episode
from sim.scenes import SCENES, run_scene
from sim.version import PHYSICS_VERSION

FOLDER = Path(__file__).parent / "golden"


def outcome(ep: Episode) -> dict:
    """The JSON-able record of an episode that the suite compares."""
    pairs = lambda items: [list(map(int, p)) for p in items]  # noqa: E731
    return {
        "status": ep.status,
        "steps": int(ep.steps),
        "action": int(ep.action),
        "new_contacts": pairs(ep.new_contacts),
        "fallen": [int(i) for i in ep.fallen],
        "flipped": [int(i) for i in ep.flipped],
        "out_of_bounds": [int(i) for i in ep.out_of_bounds],
        "red_contacts": [int(i) for i in ep.red_contacts],
        "in_hand": [int(i) for i in ep.in_hand],
        "moved_diameters": {str(k): round(v, 3) for k, v in sorted(ep.moved_diameters.items())},
        "final_contacts": pairs(ep.final_contacts),
        "final": [[b.id, b.state.value, b.up, b.tower, b.leaning_on, round(b.x * 1e3, 1),
                   round(b.y * 1e3, 1), round(b.z * 1e3, 1), round(float(np.degrees(b.tilt)), 1)]
                  for b in ep.final],
    }


def record_path(name: str) -> Path:
    return FOLDER / f"{name}.json"


def load(name: str) -> dict:
    return json.loads(record_path(name).read_text())


class VersionNotBumped(RuntimeError):
    """An outcome changed but PHYSICS_VERSION is the one it was recorded with."""


def regenerate() -> None:
    """Rewrite every record. Refuses (``VersionNotBumped``, nothing written) when
    a scene's outcome changed while its record already carries the current
    PHYSICS_VERSION: a change of outcome is a new physics version."""
    records = {name: {"physics_version": PHYSICS_VERSION, "scene": name,
                      "outcome": json.loads(json.dumps(outcome(run_scene(name))))} for name in SCENES}
    changed = [name for name, record in records.items() if record_path(name).exists()
               and load(name)["physics_version"] == PHYSICS_VERSION and load(name)["outcome"] != record["outcome"]]
    if changed:
        raise VersionNotBumped(f"outcomes changed ({', '.join(changed)}) under physics {PHYSICS_VERSION}: "
                               "bump sim.version.PHYSICS_VERSION, then regenerate")
    FOLDER.mkdir(exist_ok=True)
    for name, record in records.items():
        record_path(name).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
        print(f"recorded {name}")


def differences(name: str) -> list[str]:
    record = load(name)
    problems = []
    if record["physics_version"] != PHYSICS_VERSION:
        problems.append(f"recorded with physics {record['physics_version']}, "
                        f"now {PHYSICS_VERSION}: regenerate")
    now = json.loads(json.dumps(outcome(run_scene(name))))
    for key in sorted(set(now) | set(record["outcome"])):
        if now.get(key) != record["outcome"].get(key):
            problems.append(f"{key}: recorded {record['outcome'].get(key)!r}, now {now.get(key)!r}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sim.golden", description=__doc__.split("\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="rewrite every record")
    args = parser.parse_args(argv)
    if args.regenerate:
        try:
            regenerate()
        except VersionNotBumped as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    failed = 0
    for name in SCENES:
        problems = differences(name)
        failed += bool(problems)
        print(f"{name}: {'ok' if not problems else 'CHANGED'}")
        for line in problems:
            print(f"    {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
