"""The driver: plan a run, fan its shards out, keep every finished shard.

Steps of ``run_experiment``:
1. validate the experiment (names, knobs, parameters) — nothing written yet;
2. resolve the run folder; refuse an existing run unless ``resume`` or
   ``overwrite``; on resume, the stored run must be the same experiment made
   by the same versions (``resume``);
3. write the manifest (``running``) and list the shards already done, with
   their failed games (``kept``);
4. hand the remaining shards to the executor, counting games as they finish;
5. write the manifest ``complete`` — or ``incomplete`` if interrupted before
   every shard was on disk, so ``--resume`` can finish it. Only whole shards
   are ever on disk. A signal at any moment from the executor's start (Ray's
   start included) to this last write stops the run this way. A stopped
   run's counts are those of the shards on disk at the end.

The driver never holds results: workers write their own shards and send back
a few numbers.

Timing (``RunResult``): ``seconds`` is the whole call; within it
``seconds_startup`` (``seconds_ray_start`` + ``seconds_warm_up`` of the
workers), ``seconds_games`` (first shard out to last shard back) and
``seconds_shutdown``; summed over shards, ``seconds_playing`` (inside the
game's play call), ``seconds_writing`` (Parquet) and ``seconds_tasks``.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Callable

from pyarrow.fs import FileSelector, FileType

from pipelines import manifest as mf
from pipelines.executors import check_address, make_executor
from pipelines.interrupts import Interrupted, Stop, stop_on_signals
from pipelines.kept import check_turns, failed_games, finished_shards, tally
from pipelines.resume import resumable
from pipelines.spec import Experiment, validate
from pipelines.storage import Location, check_writable, delete_dir, exists, locate, remove_temps
from rules.base import UsageError
from workers.shard import package_version


@dataclass
class RunResult:
    run_id: str
    uri: str
    games_total: int
    games_done: int = 0
    games_failed: int = 0
    shards_skipped: int = 0
    seconds: float = 0.0
    seconds_playing: float = 0.0  # summed over shards: inside the game's play call
    seconds_writing: float = 0.0  # summed over shards: Parquet encoding and writes
    seconds_tasks: float = 0.0  # summed over shards: whole ``play_shard`` calls
    cpu_playing: float = 0.0  # summed over shards: worker CPU seconds inside the play call
    cpu_tasks: float = 0.0  # summed over shards: worker CPU seconds of whole tasks
    seconds_startup: float = 0.0  # Ray start plus worker warm-up, before the first shard
    seconds_ray_start: float = 0.0
    seconds_warm_up: float = 0.0
    seconds_games: float = 0.0  # first shard handed out to last shard back
    seconds_shutdown: float = 0.0  # stopping an embedded Ray
    worker_warm_up_cpu: list[float] = field(default_factory=list)
    workers: int = 1
    status: str = "running"  # then "complete", or "interrupted" (SIGINT/SIGTERM): see the manifest for what is on disk
    shards_played: int = 0  # shards this invocation played (not those a resume skipped)
    nodes: set[str] = field(default_factory=set)  # the nodes that played them
    worker_peak_rss_mb: float = 0.0  # the largest worker peak RSS a shard reported


Progress = Callable[[int], None]


def shard_tasks(exp: Experiment, run_id: str, run_uri: str, shards: list[tuple[int, int, int]]) -> list[tuple]:
    """The executor tasks (``play_shard`` arguments) that play ``shards`` of a run."""
    exp_json = exp.model_dump_json()
    return [(exp_json, run_id, number, first, count, run_uri) for number, first, count in shards]


def check_run_id(run_id: str) -> None:
    """A ``--run-id`` names one folder inside ``--out``: not empty, no path separator, not ``.`` or ``..``."""
    if not run_id.strip() or run_id != run_id.strip() or run_id in (".", "..") or any(c in run_id for c in "/\\\0"):
        raise UsageError(f"--run-id {run_id!r} is not a folder name; give a name without '/', '\\' or "
                         "surrounding spaces, other than '.' and '..'")


@dataclass
class Prepared:
    """A run folder ready to play: its manifest (written, ``running``), the
    experiment, and what is already on disk (a resumed run)."""

    run: Location
    manifest: dict
    exp: Experiment
    done: set[int]  # finished shards
    failed: dict[int, int]  # failed games in each finished shard
    notes: list[str] = field(default_factory=list)  # for the user, before anything is played


def prepare_run(exp: Experiment, out: str, run_id: str | None, resume: bool, overwrite: bool,
                address: str | None = None, shard_size_given: bool = True) -> Prepared:
    """Steps 1–3: a validated run folder with its manifest and the shards already done.
    Everything is checked (spec, Ray address, --out, run id, an existing run and
    whether it may be resumed, the finished shards' tables) before anything is
    written. A resumed run keeps its stored shard size unless ``shard_size_given``."""
    if resume and overwrite:
        raise UsageError("--resume and --overwrite exclude each other; choose one")
    if not out.strip():  # '' wrote the run into the current folder, ' ' made a folder named ' '
        raise UsageError("--out is empty; give a folder (such as runs) or s3://bucket/prefix")
    game = validate(exp)
    check_address(address)
    if run_id is not None:
        check_run_id(run_id)
    root = locate(out)
    try:
        check_writable(root)
    except OSError as exc:
        raise _unwritable(out, root, exc) from None
    run_id = run_id or exp.default_run_id()
    run = root.child(run_id)
    stored = _existing_run(run, run_id, out, resume, overwrite)
    if stored:
        current = mf.code_versions(package_version(), game.physics_version())
        exp = resumable(run_id, stored, exp, current, shard_size_given)
    done = finished_shards(run, exp) if stored else set()
    failed = failed_games(run, exp, done)  # a resumed run's failures so far are in its tables
    check_turns(run, exp, done, failed)  # and its turns beside them
    manifest = mf.new_manifest(exp, run_id, package_version(), game.physics_version())
    if stored:
        manifest["created"] = stored.get("created", manifest["created"])
    try:  # the first writes: on object storage they are also the check that --out takes writes
        if overwrite:
            delete_dir(run)
        mf.save(run, manifest)
    except OSError as exc:
        raise _unwritable(out, root, exc) from None
    notes = [_nothing_to_resume(root, out, run_id, exp)] if resume and not stored else []
    return Prepared(run, manifest, exp, done, failed, notes)


def _nothing_to_resume(root: Location, out: str, run_id: str, exp: Experiment) -> str:
    """What --resume without a run to finish says: it starts the run, and which runs of the
    same game, variant and seed ``out`` holds (a changed option names another run)."""
    kin = []
    for info in root.fs.get_file_info(FileSelector(root.path, allow_not_found=True)):
        other = root.child(info.base_name)
        if info.type == FileType.Directory and info.base_name != run_id and exists(other.child(mf.MANIFEST)):
            try:
                spec = mf.load(other).get("spec", {})
            except UsageError:  # another folder's damage is not this run's error
                continue
            if (spec.get("game"), spec.get("variant"), spec.get("seed")) == (exp.game, exp.variant, exp.seed):
                kin.append(info.base_name)
    where = (f"; {out} holds {', '.join(sorted(kin)[:3])} of the same game, variant and seed, made with other "
             "options: resume one with the command that started it, or name it with --run-id") if kin else ""
    return f"there is no run {run_id} in {out} to resume: it starts from the first game{where}"


def _unwritable(out: str, root: Location, exc: OSError) -> UsageError:
    reason = exc.strerror or " ".join(str(exc).split())
    fix = "choose a writable folder" if root.is_local else "check the bucket name, the endpoint and the credentials"
    return UsageError(f"cannot write to --out {out}: {reason}; {fix}")


def _existing_run(run: Location, run_id: str, out: str, resume: bool, overwrite: bool) -> dict | None:
    """What is at ``run`` already: the stored manifest of a run to resume, else
    None; a folder that may not be used (or replaced) is a ``UsageError``."""
    kind = run.fs.get_file_info(run.path).type
    if kind == FileType.File:
        raise UsageError(f"{run.uri} is a file, not a run folder; pass another --run-id or --out")
    if exists(run.child(mf.MANIFEST)) or exists(run.child("games")):
        if overwrite:
            return None
        if not resume:
            raise UsageError(f"run {run_id} already exists in {out}; pass --resume to finish it or --overwrite to replace it")
        return mf.load(run)
    if kind == FileType.Directory and run.fs.get_file_info(FileSelector(run.path)) and not overwrite:
        raise UsageError(f"{run.uri} exists and is not a polsim run (no {mf.MANIFEST}); "
                         "pass another --run-id, or --overwrite to replace the folder")
    return None


def _play(executor, tasks: list[tuple], result: RunResult, on_progress: Progress | None, t_start: float,
          failed: dict[int, int], stop: Stop) -> None:
    """Step 4: warm the workers up, then count each shard as it comes back
    (its failed games into ``failed``, by shard); ``stop.check`` after the
    warm-up, after each shard and while the executor waits (the Ray executor
    polls it; in-process, a stop request raises where it lands)."""
    with stop.deferred() if executor.defers_signals else nullcontext():
        t_warm = time.perf_counter()
        result.worker_warm_up_cpu = executor.warm_up(tasks[0][0])
        result.seconds_warm_up = time.perf_counter() - t_warm
        stop.check()
        t_games = time.perf_counter()
        result.seconds_startup = t_games - t_start
        for summary in executor.run(tasks, stop.check):
            _count(result, failed, summary)
            if on_progress:
                on_progress(summary.games)
            stop.check()
        result.seconds_games = time.perf_counter() - t_games


def _count(result: RunResult, failed: dict[int, int], summary) -> None:
    """Add a finished shard's ``ShardSummary`` to the run's counts and timings."""
    result.games_done += summary.games
    result.games_failed += summary.failed
    failed[summary.shard] = summary.failed
    result.seconds_playing += summary.seconds_playing
    result.seconds_writing += summary.seconds_writing
    result.seconds_tasks += summary.seconds_total
    result.cpu_playing += summary.cpu_playing
    result.cpu_tasks += summary.cpu_total
    result.shards_played += 1
    result.nodes.add(summary.node)
    result.worker_peak_rss_mb = max(result.worker_peak_rss_mb, summary.max_rss_mb)


def _finish(result: RunResult, interrupted: bool, prepared: Prepared, failed: dict[int, int], t0: float) -> None:
    """Step 5: the final counts (from the disk unless every shard came back) and manifest."""
    exp, run, manifest = prepared.exp, prepared.run, prepared.manifest
    if result.status != "complete":  # count what is on disk: a task in flight may have finished since
        kept = finished_shards(run, exp)
        failed.update(failed_games(run, exp, kept - failed.keys()))
        result.games_done, result.games_failed = tally(exp, kept, failed)
    if interrupted:
        result.status = "interrupted"
    for table in ("games", "turns"):  # the executor is closed: no writer is at work, and a killed one's
        remove_temps(run.child(table))  # half-written shard (its retry wrote the shard) must not stay
    result.seconds = time.perf_counter() - t0
    manifest.update(
        status="complete" if result.games_done == exp.total_games else "incomplete",
        games_done=result.games_done,
        games_failed=result.games_failed,
        seconds=round(result.seconds, 3),
    )
    mf.save(run, manifest)


def run_experiment(
    exp: Experiment,
    out: str,
    *,
    run_id: str | None = None,
    resume: bool = False,
    overwrite: bool = False,
    workers: int | None = None,
    address: str | None = None,
    on_progress: Progress | None = None,
    shard_size_given: bool = True,
    on_note: Callable[[str], None] | None = None,
) -> RunResult:
    """Steps 1–5 of the module docstring. From before the executor starts to
    after the last manifest write, SIGINT and SIGTERM stop the run the same
    way: whole shards kept, the manifest written, ``status`` ``interrupted``."""
    t0 = time.perf_counter()
    prepared = prepare_run(exp, out, run_id, resume, overwrite, address, shard_size_given)
    if on_note:
        for note in prepared.notes:
            on_note(note)
    with stop_on_signals() as stop:  # the manifest says 'running' from here: it must be written again
        exp, run, done, failed = prepared.exp, prepared.run, prepared.done, prepared.failed
        result = RunResult(prepared.manifest["run_id"], run.uri, exp.total_games)
        executor = None
        try:
            todo = [s for s in exp.shards() if s[0] not in done]
            result.shards_skipped = len(done)
            result.games_done, result.games_failed = tally(exp, done, failed)
            tasks = shard_tasks(exp, result.run_id, run.uri, todo)
            if on_progress:  # everything is checked: the progress display may start
                on_progress(result.games_done)
            if tasks:  # a finished run resumed has nothing to play: no Ray to start
                t_start = time.perf_counter()
                with stop.deferred():  # a stop request waits for ray.init to return (interrupts.py)
                    executor = make_executor(workers, address)  # keeps our SIGTERM handler while Ray starts
                result.seconds_ray_start = executor.seconds_ray_start
                result.workers = executor.workers
                stop.check()
                _play(executor, tasks, result, on_progress, t_start, failed, stop)
            result.status = "complete"
            stop.wind_down()
        except Interrupted:
            pass
        finally:
            stop.wind_down()  # from here on a signal is recorded: stopping Ray and the manifest always finish
            try:
                if executor is not None:
                    t_close = time.perf_counter()
                    executor.close()
                    result.seconds_shutdown = time.perf_counter() - t_close
            finally:
                _finish(result, stop.requested, prepared, failed, t0)
    return result
