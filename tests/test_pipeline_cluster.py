"""A multi-node Ray cluster on this machine (a head and a second node as
separate raylets) plays a run whose results equal the local run's."""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def cluster():
    """One two-node cluster for the module (starting one costs ~10 s)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("POLSIM_GAME_MODULES", "tests.toygame")
        env.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        from ray.cluster_utils import Cluster

        c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        c.add_node(num_cpus=1)
        c.wait_for_nodes()
        yield c
        import ray

        ray.shutdown()
        c.shutdown()


def content(run_dir):
    return pq.ParquetDataset(os.path.join(run_dir, "games")).read().drop_columns(["run_id"]).sort_by("game_index")


def test_two_node_cluster_run_equals_local_run(cluster, tmp_path):
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("sleepy:ms=20", "loaded")),),
                     games=48, seed=21, shard_size=4)
    remote = run_experiment(exp, str(tmp_path / "cluster"), address=cluster.address)
    local = run_experiment(exp, str(tmp_path / "local"), workers=0)
    assert remote.status == "complete"
    assert len(remote.nodes) == 2  # both nodes played shards
    assert content(remote.uri).equals(content(local.uri))


def test_embedded_run_starts_its_own_ray_beside_a_running_cluster(cluster, tmp_path):
    """Without --address a run never attaches to a Ray instance someone else
    started on this machine (Ray's default for ray.init() would)."""
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair")),),
                     games=8, seed=3, shard_size=4)
    own = run_experiment(exp, str(tmp_path / "own"), workers=1)
    local = run_experiment(exp, str(tmp_path / "local"), workers=0)
    cluster_nodes = {node.node_id for node in cluster.list_all_nodes()}
    assert own.status == "complete" and own.workers == 1
    assert len(cluster_nodes) == 2 and own.nodes and all(own.nodes)
    assert not own.nodes & cluster_nodes
    assert content(own.uri).equals(content(local.uri))
