"""Stop requests: SIGINT and SIGTERM become ``Interrupted`` while a run is driven.

``Interrupted`` is a ``BaseException``, like ``KeyboardInterrupt``: the
``except Exception`` that records a failing game as ``status='error'`` (or
replays a batch game by game) must never swallow a stop request, or the
stopped game would be kept as a failure and ``--resume`` would never play it.

``stop_on_signals()`` installs the handler for a span of the driver and
yields its ``Stop``. The first signal raises ``Interrupted``; a later one,
or any signal after ``Stop.wind_down()``, is only recorded, so the closing
steps (stopping Ray, writing the manifest) always run to the end. Whoever
drives the run reads ``Stop.requested`` afterwards.

Within ``Stop.deferred()`` a signal is only recorded, and ``Interrupted``
is raised when the block ends (or by a ``check()`` within it). The Ray
executor runs its calls into Ray there (``ray.init``, the warm-up, and
``ray.wait`` with a timeout so the driver checks several times a second):
an exception raised by the handler inside Ray's compiled code came back as
``SystemError: ... returned a result with an exception set`` (exit 1 and a
long traceback, 7 of ~50 signals in an operator's trials), and one raised
inside ``ray.init`` left Ray half started, its shutdown segfaulting.

The handler's ``Interrupted`` can be lost: a signal that lands while Python
runs code that ignores exceptions (an at-fork hook, such as logging's lock
release after each process Ray forks while it starts) is printed as
"Exception ignored" and the driver goes on. So the driver also calls
``Stop.check()`` where a run may stop (Ray started, workers warmed up, each
shard counted): it raises ``Interrupted`` for a request that was recorded
but did not stop the run (found on a loaded machine: a SIGTERM while Ray
started, and the run played all its games before it stopped).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """The driver was asked to stop (SIGINT or SIGTERM)."""


class Stop:
    """What the signal handler saw: the first signal's name, and whether it may still raise."""

    def __init__(self) -> None:
        self.signal: str | None = None
        self._may_raise = True
        self._winding_down = False
        self._deferred = 0

    @property
    def requested(self) -> bool:
        return self.signal is not None

    def wind_down(self) -> None:
        """From now on signals are recorded, never raised."""
        self._may_raise = False
        self._winding_down = True

    def check(self) -> None:
        """Raise ``Interrupted`` if a stop was requested and the run is not
        winding down; call it only where the run goes on normally (so a
        request seen here is one whose own ``Interrupted`` was lost)."""
        if self.signal is not None and not self._winding_down:
            raise Interrupted(self.signal)

    @contextmanager
    def deferred(self) -> Iterator["Stop"]:
        """Within the block signals are only recorded; a request is raised when it ends normally."""
        self._deferred += 1
        try:
            yield self
        finally:
            self._deferred -= 1
        self.check()

    def handle(self, signum: int, frame: object) -> None:
        if self.signal is None:
            self.signal = signal.Signals(signum).name
        if self._may_raise and not self._deferred:
            self._may_raise = False  # one Interrupted per run: the rest is the run stopping
            raise Interrupted(self.signal)


@contextmanager
def stop_on_signals() -> Iterator[Stop]:
    """Turn SIGINT and SIGTERM into ``Interrupted`` (see the module docstring)."""
    stop = Stop()
    old = {s: signal.getsignal(s) for s in SIGNALS}
    try:
        for s in old:
            signal.signal(s, stop.handle)
    except ValueError:  # not the main thread: leave signals alone
        old = {}
    try:
        yield stop
    finally:
        for s, h in old.items():
            signal.signal(s, h)
