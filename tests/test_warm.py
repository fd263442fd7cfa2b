"""sim.warm: the two parts of a split cold compile build what a game calls, no more.

A part that compiled a kernel at a signature no game calls would cost a
cold run the time it means to save, and change nothing else: no outcome
shows it. So a fresh process runs ``compile_path``, then plays a game, and
reports what the game added: the kernels ``compile_path`` built must gain no
new signature, and every ``ASIDE`` signature must be the one the game's
kernels are called with (in the process, for kernels called from Python; in
numba's cache index, for kernels only called from the step loop, whose
callers load them from the cache as part of themselves).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from pipelines.spec import Cell, Experiment
from rules.base import register_game
from tests.toygame import TOY
from workers.shard import warm_up

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GAME = {
    "game": "polarity", "variant": "standard", "games": 1, "seed": 7, "shard_size": 1,
    "cells": [{"matchup": ["cautious", "aggressive"], "overrides": {"stack_size": 5, "foundations": 3}}],
}

SCRIPT = """
import json, sys
from pipelines.spec import Experiment
from sim import forces, integrate, magnetics_table, state, warm
from workers.shard import play_games

PATH = (magnetics_table._fill, state.touching_matrix, state.classify_bodies, forces.refresh_refs, integrate.run)
name = lambda d: f"{d.py_func.__module__}.{d.py_func.__name__}"
warm.compile_path()
before = {name(d): set(map(str, d.signatures)) for d in PATH}
played = play_games(Experiment.model_validate(json.loads(sys.argv[1])), "warm-test", 0, 1)
added = {name(d): sorted(set(map(str, d.signatures)) - before[name(d)]) for d in PATH}
aside = []
for kernel, signature in warm.ASIDE:
    indexed = [key[0] for key in kernel._cache._cache_file._load_index()]
    aside.append({"kernel": name(kernel), "signature": str(signature),
                  "in_process": [str(s) for s in kernel.signatures], "indexed": [str(s) for s in indexed]})
print("@@" + json.dumps({"status": played.games["status"][0].as_py(), "before": {k: sorted(v) for k, v in before.items()},
                         "added": added, "aside": aside}))
"""


@pytest.fixture(scope="module")
def report():
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(GAME)], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith("@@")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return json.loads(lines[-1][2:])


def test_the_game_played(report):
    assert report["status"] == "ok"


def test_compile_path_builds_the_signatures_a_game_calls(report):
    assert all(report["before"].values()), report["before"]  # each was compiled or loaded by compile_path
    assert report["added"] == {name: [] for name in report["added"]}


def test_aside_signatures_are_the_ones_the_game_calls(report):
    for row in report["aside"]:
        # called from Python: the game loaded or compiled it here; called from the step loop: the
        # cache index holds each signature it was ever compiled at, so a second one is a wrong guess
        seen = row["in_process"] or row["indexed"]
        assert seen == [row["signature"]], row


RAN: list[str] = []


def _part(name, fails=False):
    def part():
        RAN.append(name)
        if fails:
            raise RuntimeError(f"{name} failed")
    return part


register_game(dataclasses.replace(TOY, name="toy-warm", warm_parts=(_part("path"), _part("aside", fails=True))))
TOY_WARM = Experiment(game="toy-warm", variant="standard", cells=(Cell(matchup=("fair", "fair")),), games=2, seed=1,
                      shard_size=1).model_dump_json()


@pytest.mark.parametrize("part, parts, ran", [(0, 1, []), (0, 2, ["path"]), (1, 2, ["aside"]), (2, 3, [])])
def test_warm_up_runs_the_workers_own_part_of_a_split_compile(part, parts, ran):
    RAN.clear()
    assert warm_up(TOY_WARM, part, parts) > 0.0  # a part that raises only costs its time: the shards meet the error
    assert RAN == ran
