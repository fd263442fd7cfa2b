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


def test_embedded_ray_is_lean_and_close_stops_every_process_it_started():
    from ray._private import ray_constants
    from ray._private import worker as ray_worker

    from pipelines.executors import RayExecutor

    executor = RayExecutor(workers=1)
    started = ray_worker._global_node.all_processes
    processes = [info.process for infos in started.values() for info in infos]
    unused = (ray_constants.PROCESS_TYPE_MONITOR, ray_constants.PROCESS_TYPE_LOG_MONITOR,
              ray_constants.PROCESS_TYPE_DASHBOARD)
    assert [kind for kind in unused if started.get(kind)] == []
    assert started.get(ray_constants.PROCESS_TYPE_RAYLET) and started.get(ray_constants.PROCESS_TYPE_GCS_SERVER)
    assert executor._ray.get(executor._ray.remote(lambda: 6 * 7).remote()) == 42
    executor.close()
    assert [p.args[:2] for p in processes if p.poll() is None] == []


def test_lean_local_head_puts_rays_own_classes_back():
    from ray._private import node, parameter

    from pipelines.lean_ray import lean_local_head

    before = parameter.RayParams, node.Node.start_api_server
    with lean_local_head() as lean:
        assert lean and parameter.RayParams is not before[0]
        assert parameter.RayParams().no_monitor and parameter.RayParams().include_log_monitor is False
    assert (parameter.RayParams, node.Node.start_api_server) == before
