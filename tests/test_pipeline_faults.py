"""Runs survive faults: a killed worker, an interrupted driver."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy" for the in-process runs
from pipelines.cli import app
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POLSIM = os.path.join(os.path.dirname(sys.executable), "polsim")


@pytest.fixture
def toy_env(monkeypatch, tmp_path):
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("POLSIM_GAME_MODULES", "tests.toygame")
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    monkeypatch.setenv("POLSIM_TOY_PIDFILE", str(pidfile))
    return pidfile


def sleepy(games=60, shard_size=4):
    return Experiment(game="toy", variant="standard", cells=(Cell(matchup=("sleepy:ms=40", "loaded")),),
                      games=games, seed=9, shard_size=shard_size)


def content(run_dir):
    return pq.ParquetDataset(os.path.join(run_dir, "games")).read().drop_columns(["run_id"]).sort_by("game_index")


def wait_for(predicate, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_worker_killed_mid_run_still_plays_every_game_exactly_once(toy_env, tmp_path):
    result = {}
    thread = threading.Thread(
        target=lambda: result.update(r=run_experiment(sleepy(), str(tmp_path / "run"), workers=2)))
    thread.start()
    assert wait_for(lambda: toy_env.exists() and toy_env.read_text().strip())
    victim = int(toy_env.read_text().split()[0])
    os.kill(victim, signal.SIGKILL)
    thread.join(timeout=180)
    run = result["r"]
    assert run.status == "complete"
    games = content(run.uri)
    assert games["game_index"].to_pylist() == list(range(60))
    reference = run_experiment(sleepy().model_copy(update={"cells": (Cell(matchup=("sleepy:ms=0", "loaded")),)}),
                               str(tmp_path / "ref"), workers=0)
    ref = content(reference.uri)
    for col in ("winner", "score_0", "score_1", "game_seed"):
        assert games[col].equals(ref[col])


@pytest.mark.parametrize("signum, resume_workers", [(signal.SIGINT, "2"), (signal.SIGTERM, "0")])
def test_interrupted_driver_keeps_whole_shards_and_resume_equals_full_run(toy_env, tmp_path, signum, resume_workers):
    """Resumed on Ray, and in-process (another worker count: the same games either way)."""
    out = tmp_path / "out"
    args = [POLSIM, "simulate", "--game", "toy", "--strategies", "sleepy:ms=40,loaded", "--games", "40",
            "--seed", "9", "--shard-size", "4", "--out", str(out), "--run-id", "r", "--workers", "2", "--quiet"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    games_dir = out / "r" / "games"
    assert wait_for(lambda: games_dir.exists() and len(list(games_dir.glob("shard-*.parquet"))) >= 2, timeout=180)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    manifest = json.loads((out / "r" / "manifest.json").read_text())
    assert manifest["status"] == "incomplete"
    kept = sorted(games_dir.glob("shard-*.parquet"))
    assert 0 < len(kept) < 10
    for shard in kept:
        assert pq.read_table(shard).num_rows == 4  # whole shards only
    resumed = subprocess.run(args[:-3] + ["--workers", resume_workers, "--quiet", "--resume"],
                             capture_output=True, text=True, timeout=180)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((out / "r" / "manifest.json").read_text())["status"] == "complete"
    full = run_experiment(sleepy(games=40), str(tmp_path / "full"), run_id="r", workers=0)
    assert content(out / "r").equals(content(full.uri))


# -- a stop request in the middle of a shard played in-process (--workers 0) ------------------
def simulate_in_process(out, *extra, strategies="signal:at=9,fair"):
    return CliRunner().invoke(app, ["simulate", "--game", "toy", "--strategies", strategies, "--games", "20",
                                    "--seed", "9", "--shard-size", "4", "--out", str(out), "--run-id", "r",
                                    "--workers", "0", "--quiet", *extra])


def flat(text):
    """Console output as one line (the console wraps long messages)."""
    return " ".join(text.split())


def statuses(run_dir):
    return pq.ParquetDataset(os.path.join(run_dir, "games")).read()["status"].to_pylist()


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_during_an_in_process_game_stops_the_run_instead_of_failing_the_game(tmp_path, monkeypatch, name):
    monkeypatch.setenv("POLSIM_TOY_SIGNAL", name)
    res = simulate_in_process(tmp_path)
    assert res.exit_code == 130, res.output
    assert "r interrupted: 8/20 games kept; finish it with the same command and --resume" in flat(res.output)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert (manifest["status"], manifest["games_done"], manifest["games_failed"]) == ("incomplete", 8, 0)
    assert sorted(p.name for p in (tmp_path / "r" / "games").iterdir()) == ["shard-00000.parquet", "shard-00001.parquet"]
    assert set(statuses(tmp_path / "r")) == {"ok"}  # game 9 was stopped, not recorded as a failure
    monkeypatch.delenv("POLSIM_TOY_SIGNAL")
    resumed = simulate_in_process(tmp_path, "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert statuses(tmp_path / "r") == ["ok"] * 20


def test_an_interrupted_overwrite_is_finished_with_resume_instead_of_overwrite(tmp_path, monkeypatch):
    """Before: the hint said "the same command and --resume", which refuses --overwrite with --resume."""
    monkeypatch.setenv("POLSIM_TOY_SIGNAL", "SIGINT")
    res = simulate_in_process(tmp_path, "--overwrite")
    assert res.exit_code == 130, res.output
    assert "finish it with the same command with --resume instead of --overwrite" in flat(res.output)
    monkeypatch.delenv("POLSIM_TOY_SIGNAL")
    assert simulate_in_process(tmp_path, "--resume").exit_code == 0


def test_a_run_removes_the_temporary_files_a_killed_writer_left(tmp_path, monkeypatch):
    """Before: a worker SIGKILLed mid-write left its 1.6 MB turns/.tmp-<uuid> in the finished run."""
    monkeypatch.setenv("POLSIM_TOY_SIGNAL", "SIGINT")
    assert simulate_in_process(tmp_path).exit_code == 130
    monkeypatch.delenv("POLSIM_TOY_SIGNAL")
    left = [tmp_path / "r" / table / ".tmp-0123abcd" for table in ("games", "turns")]
    for path in left:
        path.write_bytes(b"half a shard")
    assert simulate_in_process(tmp_path, "--resume").exit_code == 0
    assert not any(path.exists() for path in left)
    assert statuses(tmp_path / "r") == ["ok"] * 20


def test_ctrl_c_during_the_summary_of_a_finished_run_says_it_is_complete(tmp_path, monkeypatch):
    """Before: ~100 lines of traceback ending in "Query interrupted", exit 1, for a complete run."""
    import duckdb

    import pipelines.analyze

    def interrupted(con, by=(), where=()):
        raise duckdb.InterruptException("INTERRUPT Error: Interrupted!")

    monkeypatch.setattr(pipelines.analyze, "summarize", interrupted)
    res = CliRunner().invoke(app, ["simulate", "--game", "toy", "--strategies", "fair,loaded", "--games", "8",
                                   "--out", str(tmp_path), "--run-id", "r", "--workers", "0"])
    assert res.exit_code == 130, res.output
    assert "the run is complete; its summary was interrupted: polsim analyze" in flat(res.output)
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["status"] == "complete"


def test_a_stop_request_passes_through_polaritys_failure_recording():
    """Polarity records a failing game as an error row; a stop request is no failure."""
    from pipelines.runner import Interrupted
    from rules.polarity import records

    class StoppedGame:
        def __init__(self, spec, sim):
            self.turn, self.red_orientation, self.rows = 0, 0, []

        def play(self):
            raise Interrupted("SIGTERM")

    import rules.polarity.engine as engine

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engine, "Game", StoppedGame)
        with pytest.raises(Interrupted):
            records.play_one(type("Spec", (), {"index": 0})())


class SignalledExecutor:
    """Plays in-process, and sends its own process a signal when it closes."""

    defers_signals = False

    def __init__(self, when, name):
        from pipelines.executors import InProcessExecutor

        self.inner, self.when, self.name = InProcessExecutor(), when, name
        self.workers, self.seconds_ray_start = 1, 0.0

    def warm_up(self, exp_json):
        return self.inner.warm_up(exp_json)

    def run(self, tasks, poll=None):
        return self.inner.run(tasks)

    def close(self):
        if self.when == "close":
            os.kill(os.getpid(), getattr(signal, self.name))
            os.kill(os.getpid(), getattr(signal, self.name))  # a second one while stopping changes nothing


def test_a_signal_while_the_executor_stops_still_saves_the_manifest_and_exits_130(tmp_path, monkeypatch):
    """Every shard is on disk, so the manifest says complete; the run was still interrupted."""
    import pipelines.runner

    monkeypatch.setattr(pipelines.runner, "make_executor", lambda workers, address: SignalledExecutor("close", "SIGINT"))
    res = simulate_in_process(tmp_path, strategies="fair,loaded")
    assert res.exit_code == 130, res.output
    assert "r interrupted after its last game: all 20 games kept; it is complete" in flat(res.output)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert (manifest["status"], manifest["games_done"]) == ("complete", 20)


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def test_sigterm_while_ray_starts_stops_the_run_with_exit_130_and_leaves_no_ray_process(toy_env, tmp_path):
    """Ray's own SIGTERM handler (sys.exit(15), installed by ray.init) must not
    end the driver with no message and the manifest 'running'."""
    out = tmp_path / "out"
    proc = subprocess.Popen([POLSIM, "simulate", "--game", "toy", "--strategies", "fair,loaded", "--games", "8",
                             "--out", str(out), "--run-id", "r", "--workers", "1", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = []
    assert wait_for(lambda: started.extend(children(proc.pid)) or started, timeout=60)  # ray.init runs its first process
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "r interrupted: 0/8 games kept; finish it with the same command and --resume" in flat(err)
    assert json.loads((out / "r" / "manifest.json").read_text())["status"] == "incomplete"
    assert wait_for(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in started), timeout=30)


class LostSignalExecutor:
    """Plays in-process; while it starts, a SIGTERM lands in code that swallows
    the handler's ``Interrupted``, as an at-fork hook does while Ray forks."""

    defers_signals = False

    def __init__(self):
        from pipelines.executors import InProcessExecutor
        from pipelines.interrupts import Interrupted

        self.inner, self.workers, self.seconds_ray_start = InProcessExecutor(), 1, 0.0
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)  # the handler runs here at the latest
        except Interrupted:
            pass  # "Exception ignored in: <function _releaseLock ...>"

    def warm_up(self, exp_json):
        return self.inner.warm_up(exp_json)

    def run(self, tasks, poll=None):
        return self.inner.run(tasks)

    def close(self):
        pass


def test_a_stop_whose_interrupted_was_swallowed_still_stops_the_run_before_its_games(tmp_path, monkeypatch):
    import pipelines.runner

    monkeypatch.setattr(pipelines.runner, "make_executor", lambda workers, address: LostSignalExecutor())
    res = simulate_in_process(tmp_path, strategies="fair,loaded")
    assert res.exit_code == 130, res.output
    assert "r interrupted: 0/20 games kept" in flat(res.output)
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["status"] == "incomplete"
    assert not (tmp_path / "r" / "games").exists()


class DeferringExecutor:
    """Defers signals as the Ray executor does: a SIGINT lands while it starts (in ray.init) and another
    while it waits for its second shard (in ray.wait); neither may raise there, only where the driver checks."""

    defers_signals = True

    def __init__(self):
        from pipelines.executors import InProcessExecutor

        self.inner, self.workers, self.seconds_ray_start = InProcessExecutor(), 1, 0.0
        self.reached = []
        if os.environ.get("SIGNAL_WHILE_STARTING"):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)  # the handler runs here at the latest
        self.reached.append("started")
        DeferringExecutor.last = self

    def warm_up(self, exp_json):
        return self.inner.warm_up(exp_json)

    def run(self, tasks, poll=None):
        tasks = list(tasks)
        yield from self.inner.run(tasks[:1])
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)
        self.reached.append("waited")
        poll()  # the Interrupted comes from here
        self.reached.append("went on")
        yield from self.inner.run(tasks[1:])

    def close(self):
        pass


@pytest.mark.parametrize("starting", [True, False])
def test_a_signal_into_an_executor_that_defers_signals_stops_the_run_where_the_driver_checks(
        tmp_path, monkeypatch, starting):
    """Before: the handler raised inside Ray's compiled code (SystemError, exit 1 and a traceback) or
    inside ray.init (Ray left half started; its shutdown segfaulted): an operator's signal trials."""
    import pipelines.runner

    if starting:
        monkeypatch.setenv("SIGNAL_WHILE_STARTING", "1")
    monkeypatch.setattr(pipelines.runner, "make_executor", lambda workers, address: DeferringExecutor())
    res = simulate_in_process(tmp_path, strategies="fair,loaded")
    assert res.exit_code == 130, res.output
    kept = 0 if starting else 4
    assert f"r interrupted: {kept}/20 games kept" in flat(res.output)
    assert DeferringExecutor.last.reached == (["started"] if starting else ["started", "waited"])


def test_a_signal_within_deferred_is_recorded_and_raised_when_the_block_ends():
    from pipelines.interrupts import Interrupted, stop_on_signals

    reached = []
    with stop_on_signals() as stop:
        with pytest.raises(Interrupted, match="SIGINT"):
            with stop.deferred():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.01)
                reached.append("after the signal")
    assert reached == ["after the signal"]


def test_stop_check_raises_a_recorded_request_only_until_the_run_winds_down():
    from pipelines.interrupts import Interrupted, Stop

    stop = Stop()
    stop.check()                                   # nothing asked: goes on
    with pytest.raises(Interrupted):
        stop.handle(signal.SIGTERM, None)          # the handler's own, here lost
    with pytest.raises(Interrupted, match="SIGTERM"):
        stop.check()
    stop.wind_down()
    stop.check()                                   # stopping: a request is only recorded
    assert stop.requested


class LateShardExecutor:
    """Plays two shards, is stopped while the third is in flight, and that one
    finishes (is written) after the driver stopped listening."""

    workers, seconds_ray_start, defers_signals = 1, 0.0, False

    def warm_up(self, exp_json):
        return [0.0]

    def run(self, tasks, poll=None):
        from workers.shard import play_shard

        self.tasks = list(tasks)
        for args in self.tasks[:2]:
            yield play_shard(*args)
        os.kill(os.getpid(), signal.SIGINT)

    def close(self):
        from workers.shard import play_shard

        play_shard(*self.tasks[2])


def test_an_interrupted_run_counts_the_shards_on_disk_including_one_that_finished_late(tmp_path, monkeypatch):
    import pipelines.runner

    monkeypatch.setattr(pipelines.runner, "make_executor", lambda workers, address: LateShardExecutor())
    res = simulate_in_process(tmp_path, strategies="crash:every=9,fair")  # games 0, 9, 18 fail
    assert res.exit_code == 130, res.output
    assert "r interrupted: 12/20 games kept" in flat(res.output)
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert (manifest["status"], manifest["games_done"], manifest["games_failed"]) == ("incomplete", 12, 2)
    assert len(list((tmp_path / "r" / "games").iterdir())) == 3
