"""Executors: how shards reach workers. The driver sees only ``run(tasks)``.

- ``RayExecutor``: an embedded local Ray (one worker per core, or
  ``workers``; always a new one: ``ray.init()`` alone would attach to any
  Ray already running on the machine; lean: without the daemons a run never
  uses, ``pipelines/lean_ray.py``), or an existing cluster at ``address``. At most a few tasks per
  CPU are in flight, so the driver's memory stays flat however long the run;
  the cluster's CPUs are read again every few seconds (``InFlight``), so a
  cluster that grows gets more work, and an autoscaler, which scales on
  queued tasks, sees demand beyond the CPUs it has.
  Tasks are retried if their worker dies (``max_retries``): a shard is written
  atomically and idempotently, so a retry can never duplicate a game.
- ``InProcessExecutor``: plays shards in the calling process, in order; for
  debugging, replays and small tests (``--workers 0``).

``close`` stops an embedded Ray; an autoscaler monitor, if it has one (the
lean start does not; a Ray whose private start-up moved would), is killed
first, which saves the second ``ray.shutdown()`` would wait for it in vain. A start
that fails or is interrupted stops whatever it had started. ``ray.init``
would install its own SIGTERM handler (``sys.exit``): the driver's handler
(``interrupts.stop_on_signals``) is kept instead, so a SIGTERM while Ray
starts is a stop request like any other.

Both yield ``ShardSummary`` objects as shards finish. ``warm_up`` readies
every worker before the first shard (imports, numba cache loads), so a run's
start-up (Ray, then workers) is measured apart from its games. The driver
blocks in ``ray.wait``: it uses no CPU while workers play.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from pipelines.lean_ray import lean_local_head
from workers.shard import ShardSummary, play_shard, warm_up

Task = tuple  # the positional arguments of ``play_shard``


# The raylet connects to its object store right after starting it; when the
# store's socket is not there yet (a race: 1 start in 4 or 5 on a busy 2-core
# machine) it sleeps ``raylet_client_connect_timeout_milliseconds`` (1000)
# before trying again, and the whole start waits that second. Retry every
# 100 ms, ten times as often: the default budget (10 s) stays the same.
LOCAL_RAY_CONFIG = {"raylet_client_connect_timeout_milliseconds": 100, "raylet_client_num_connect_attempts": 100}
CPU_REFRESH_S = 5.0  # how often the in-flight window reads the cluster's CPUs again
POLL_S = 0.2  # the longest the driver waits in ray.wait before it checks for a stop request


class ShardFailed(Exception):
    """A shard's task raised: not a game (games record their own errors, ``status='error'``)
    but what plays them, e.g. the store refused a write. One line, naming the shard."""


def shard_failed(number: int, exc: BaseException) -> ShardFailed:
    """Shard ``number``'s failure in one line: the worker's own exception (a Ray
    task error's ``cause``), its type and the first line of its message."""
    cause = getattr(exc, "cause", None) or exc
    first = (str(cause).strip().splitlines() or [""])[0]
    return ShardFailed(f"shard {number} failed: {type(cause).__name__}: {first}")


class InProcessExecutor:
    workers = 1
    seconds_ray_start = 0.0
    defers_signals = False  # a stop request may interrupt a game here (no compiled Ray code to land in)

    def warm_up(self, exp_json: str) -> list[float]:
        return [warm_up(exp_json)]

    def run(self, tasks: Iterable[Task], poll: Callable[[], None] | None = None) -> Iterator[ShardSummary]:
        for args in tasks:
            try:
                summary = play_shard(*args)
            except Exception as exc:
                raise shard_failed(args[2], exc) from exc
            yield summary

    def close(self) -> None:
        pass


class InFlight:
    """How many tasks may be in flight: ``per_cpu`` per CPU of the cluster, at
    least ``minimum``. ``cpus()`` is called again once ``refresh_s`` seconds
    have passed, so nodes that join (or leave) change the window as the run goes."""

    def __init__(self, cpus: Callable[[], float], per_cpu: int = 3, minimum: int = 2,
                 refresh_s: float = CPU_REFRESH_S, clock: Callable[[], float] = time.monotonic):
        self._cpus, self._per_cpu, self._minimum, self._refresh_s, self._clock = cpus, per_cpu, minimum, refresh_s, clock
        self._read_at = None
        self._limit = minimum

    def limit(self) -> int:
        now = self._clock()
        if self._read_at is None or now - self._read_at >= self._refresh_s:
            self._read_at = now
            self._limit = max(self._minimum, int(self._per_cpu * self._cpus()))
        return self._limit


def run_in_window(tasks: Iterable[Task], submit: Callable[[Task], object], wait_one: Callable[[list], tuple[list, list]],
                  fetch: Callable[[object], ShardSummary], window: InFlight) -> Iterator[ShardSummary]:
    """Submit ``tasks`` while fewer than ``window.limit()`` are pending; yield each result as one finishes."""
    pending: list = []
    todo = iter(tasks)
    exhausted = False
    while pending or not exhausted:
        limit = window.limit()
        while not exhausted and len(pending) < limit:
            args = next(todo, None)
            if args is None:
                exhausted = True
                break
            pending.append(submit(args))
        if not pending:
            break
        done, pending = wait_one(pending)
        for ref in done:
            yield fetch(ref)


@contextmanager
def _driver_keeps_sigterm(ray) -> Iterator[None]:
    """While ``ray.init`` runs, keep the driver's own SIGTERM handler, if it has
    one: Ray's (``sys.exit(15)``, installed first thing) would end the driver
    with no message and the manifest ``running``. Uses Ray's private helper; if
    Ray moved it, Ray's handler is only replaced once ``ray.init`` returns."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main else None
    if not callable(previous):  # no handler of the driver's own: Ray's is welcome
        yield
        return
    utils = getattr(getattr(ray, "_private", None), "utils", None)
    original = getattr(utils, "set_sigterm_handler", None)
    if original is not None:
        utils.set_sigterm_handler = lambda handler: None
    try:
        yield
    finally:
        if original is not None:
            utils.set_sigterm_handler = original
        signal.signal(signal.SIGTERM, previous)


class RayExecutor:
    defers_signals = True  # run within interrupts.Stop.deferred(): see there

    def __init__(self, workers: int | None, address: str | None = None, in_flight_per_cpu: int = 3):
        t0 = time.perf_counter()
        import ray

        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        self._ray = ray
        self._started_here = not ray.is_initialized()
        self._local = not address
        try:
            if self._started_here:
                kwargs = dict(
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level=logging.ERROR,
                    configure_logging=True,
                )
                with _driver_keeps_sigterm(ray):
                    if address:
                        ray.init(address=address, **kwargs)
                    else:  # "local": a fresh Ray, never one someone else started here
                        with lean_local_head():
                            ray.init(address="local", num_cpus=workers or os.cpu_count(),
                                     _system_config=LOCAL_RAY_CONFIG, **kwargs)
            self.workers = int(ray.cluster_resources().get("CPU", 1))
        except BaseException:  # failed or interrupted: stop what was started
            try:
                self.close()
            except Exception:  # noqa: BLE001 - the start's own error is the one to report
                pass
            raise
        self._window = InFlight(lambda: ray.cluster_resources().get("CPU", 0), per_cpu=in_flight_per_cpu,
                                refresh_s=CPU_REFRESH_S)
        self._remote = ray.remote(num_cpus=1, max_retries=5, retry_exceptions=False)(play_shard)
        self.seconds_ray_start = time.perf_counter() - t0

    def warm_up(self, exp_json: str) -> list[float]:
        """One ``warm_up`` task per worker, all in flight together (each takes a
        CPU, so they land on distinct workers), worker k as part k of a split
        compile (``GameDef.warm_parts``); returns each worker's CPU seconds."""
        task = self._ray.remote(num_cpus=1, max_retries=2)(warm_up)
        return self._ray.get([task.remote(exp_json, part, self.workers) for part in range(self.workers)])

    def run(self, tasks: Iterable[Task], poll: Callable[[], None] | None = None) -> Iterator[ShardSummary]:
        """Shards as they finish; ``poll`` (``Stop.check``) is called at least every ``POLL_S`` while waiting."""
        ray = self._ray
        shard_of = {}  # in-flight task -> its shard number, for a failure's message

        def submit(args: Task):
            ref = self._remote.remote(*args)
            shard_of[ref] = args[2]
            return ref

        def fetch(ref) -> ShardSummary:
            number = shard_of.pop(ref)
            try:
                return ray.get(ref)
            except ray.exceptions.RayError as exc:  # the task raised, or its worker died past the retries
                raise shard_failed(number, exc) from exc

        def wait_one(pending: list) -> tuple[list, list]:
            done, pending = ray.wait(pending, num_returns=1, timeout=POLL_S if poll else None)
            if poll:
                poll()
            return done, pending

        return run_in_window(tasks, submit, wait_one, fetch, self._window)

    def close(self) -> None:
        if self._started_here:
            if self._local:
                _stop_autoscaler_monitor()
            self._ray.shutdown()


def _stop_autoscaler_monitor() -> None:
    """SIGKILL the embedded Ray's autoscaler monitor before ``ray.shutdown()``.

    ``ray.shutdown()`` sends the monitor SIGTERM and waits up to 1 s; the
    monitor's handler (report its "failure" to the GCS) never finishes in time,
    so Ray SIGKILLs it after that second, every run. Killing it first skips
    only the wait: a local node has nothing to autoscale and the monitor holds
    no result. Best effort: uses Ray's private node handle, and on any surprise
    leaves everything to ``ray.shutdown()``.
    """
    try:
        from ray._private import ray_constants
        from ray._private import worker as ray_worker

        node = ray_worker._global_node
        infos = list(node.all_processes.get(ray_constants.PROCESS_TYPE_MONITOR, [])) if node is not None else []
        for info in infos:
            if info.process.poll() is None:
                info.process.kill()
                info.process.wait(timeout=1)
    except Exception:  # noqa: BLE001 - ray.shutdown() still stops it, one second later
        pass


@contextmanager
def _quiet_fd2():
    """Send file descriptor 2 (where C++ libraries log) to /dev/null for a while."""
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


ADDRESS_TIMEOUT_S = 5.0  # a cluster's head answers a TCP connect in milliseconds; Ray itself would retry for minutes


def check_address(address: str | None) -> None:
    """Raise ``UsageError`` unless ``address`` (``auto``, ``host:port`` or
    ``ray://host:port``) names a Ray head this machine can reach now; at most
    ``ADDRESS_TIMEOUT_S`` seconds (plus the name lookup). ``None``: nothing to check."""
    import socket

    from rules.base import UsageError

    if address is None:
        return
    target = address.strip()
    if target == "auto":
        try:
            from ray._private.services import canonicalize_bootstrap_address_or_die
        except ImportError:  # Ray moved it: let ray.init say what it finds
            return
        try:
            target = canonicalize_bootstrap_address_or_die("auto")
        except ConnectionError as exc:
            reason = " ".join(str(exc).split()).split(". ")[0]
            raise UsageError(f"--address auto found no Ray cluster on this machine ({reason}); "
                             "start one with `ray start --head` or give --address host:port") from None
    host, sep, port = target.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise UsageError(f"--address {address!r} is not 'auto' or host:port (e.g. 10.0.0.5:6379)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=ADDRESS_TIMEOUT_S).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise UsageError(f"cannot reach a Ray cluster at --address {address} ({reason}); "
                         "check the head is running and the host and port are right") from None
    if target.startswith("ray://"):
        return  # a Ray Client server, not the GCS: ray.init checks it
    try:  # something answers: is it a Ray head's GCS? (a proxy or another service would stall ray.init)
        from ray._raylet import InnerGcsClient
    except ImportError:
        return
    try:
        with _quiet_fd2():  # Ray's C++ client logs each failed attempt to fd 2
            InnerGcsClient.standalone(f"{host}:{port}", None, int(ADDRESS_TIMEOUT_S * 1000))
    except (TypeError, AttributeError):  # another Ray's private API: let ray.init judge the address
        return
    except Exception as exc:  # noqa: BLE001 - Ray's RpcError and kin: whatever it is, it is not a usable head
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise UsageError(f"--address {address} does not answer as a Ray cluster head ({reason}); "
                         "give the head's GCS address (port 6379 by default)") from None


def make_executor(workers: int | None, address: str | None) -> InProcessExecutor | RayExecutor:
    if workers == 0 and not address:
        return InProcessExecutor()
    return RayExecutor(workers, address)


