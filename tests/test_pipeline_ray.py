"""The run path on an embedded local Ray: same content whatever the worker count."""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def toy_in_workers(monkeypatch):
    """Ray workers inherit the environment: let them import the toy game."""
    monkeypatch.setenv("POLSIM_GAME_MODULES", "tests.toygame")
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def content(run_dir, kind):
    t = pq.ParquetDataset(os.path.join(run_dir, kind)).read().drop_columns(["run_id"])
    keys = [("game_index", "ascending")] + ([("turn", "ascending")] if kind == "turns" else [])
    return t.sort_by(keys)


def test_same_parquet_content_with_one_and_two_workers(tmp_path):
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair")),),
                     games=60, seed=11, shard_size=8)
    one = run_experiment(exp, str(tmp_path / "one"), workers=1)
    two = run_experiment(exp.model_copy(update={"shard_size": 13}), str(tmp_path / "two"), workers=2)
    local = run_experiment(exp, str(tmp_path / "local"), workers=0)
    for kind in ("games", "turns"):
        assert content(one.uri, kind).equals(content(two.uri, kind))
        assert content(one.uri, kind).equals(content(local.uri, kind))


def test_close_stops_every_process_the_embedded_ray_started():
    from ray._private import worker as ray_worker

    from pipelines.executors import RayExecutor

    executor = RayExecutor(workers=1)
    processes = [info.process for infos in ray_worker._global_node.all_processes.values() for info in infos]
    assert any("monitor" in " ".join(map(str, p.args)) for p in processes)
    executor.close()
    assert [p.args[:2] for p in processes if p.poll() is None] == []
