"""The Ray executor's in-flight window follows the cluster's CPUs as nodes join.

An autoscaler scales on queued tasks: a window fixed at 3 x the CPUs present
at the start (none on a head started with --num-cpus=0) never lets it see
demand beyond the first nodes. No Ray here: the cluster is a fake ``ray``.
"""

from __future__ import annotations

import sys

import pytest

import pipelines.executors as executors


class FakeRay:
    """A cluster already joined; each ``wait`` finishes the oldest task and may add CPUs."""

    def __init__(self, cpus_after_waits):
        self.cpus_after_waits, self.waits, self.pending_seen = cpus_after_waits, 0, []

    def is_initialized(self):
        return True

    def cluster_resources(self):
        cpus = max(c for w, c in self.cpus_after_waits.items() if self.waits >= w)
        return {"CPU": float(cpus)} if cpus else {}

    def remote(self, **options):
        return lambda fn: type("Remote", (), {"remote": staticmethod(lambda *args: args)})

    def wait(self, pending, num_returns=1, timeout=None):
        self.waits += 1
        self.pending_seen.append(len(pending))
        return pending[:1], pending[1:]

    def get(self, ref):
        return ref


@pytest.fixture
def cluster(monkeypatch):
    fake = FakeRay({0: 0, 10: 16, 60: 64})  # a head with no CPUs, then worker nodes join
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setattr(executors, "CPU_REFRESH_S", 0.0, raising=False)  # read the CPUs at every look (the default: every 5 s)
    return fake


def test_the_in_flight_window_grows_with_the_cluster_and_stays_bounded(cluster):
    executor = executors.RayExecutor(workers=None, address="head:6379")
    tasks = [("{}", "r", n, n, 1, "out/r") for n in range(1000)]  # play_shard arguments: shard n
    assert list(executor.run(tasks)) == tasks  # every task once
    seen = cluster.pending_seen
    assert max(seen[:10]) == 2  # no CPUs yet: a couple of tasks queued, so an autoscaler sees demand
    assert max(seen[10:60]) == 48 and max(seen[60:]) == 192  # 3 per CPU as the nodes join, never more


def test_the_window_reads_the_cluster_at_most_every_refresh_interval():
    now, reads = [0.0], []
    window = executors.InFlight(lambda: reads.append(now[0]) or 4, per_cpu=3, refresh_s=5.0, clock=lambda: now[0])
    for _ in range(40):
        assert window.limit() == 12
        now[0] += 0.5
    assert reads == [0.0, 5.0, 10.0, 15.0]
