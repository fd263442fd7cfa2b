"""A progress bar for games: done / total, games per second, time left.

    with games_progress(total, quiet=False) as advance:
        run_experiment(..., on_progress=advance)

``advance`` is None when quiet, so the run reports nothing. The bar shows
from the first call of ``advance`` (``run_experiment`` makes one, of the
games already done, once the run is checked and its manifest written), so
a refused run prints its one-line error and nothing else. The bar goes to
standard error, leaving standard output to tables and JSON. It redraws
twice a second: on a machine whose every core plays games the driver's
share of CPU should stay near zero.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


def rate_text(played: int, elapsed: float) -> str:
    """Games a second, whole above 10 and to two figures below (a standard
    Polarity game takes seconds: 0.19 games/s, not 0)."""
    if elapsed <= 0 or played <= 0:
        return ""
    rate = played / elapsed
    return f"{rate:,.0f} games/s" if rate >= 10 else f"{rate:.2g} games/s"


@contextmanager
def games_progress(total: int, quiet: bool = False, console: Console | None = None) -> Iterator[Callable[[int], None] | None]:
    if quiet:
        yield None
        return
    progress = Progress(
        TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(), console=console or Console(stderr=True), refresh_per_second=2,
    )
    task = progress.add_task("games", total=total, rate="")
    start = time.perf_counter()
    played = 0

    def advance(n: int) -> None:
        nonlocal played, start
        if not progress.live.is_started:  # the first call: the run is checked and begins
            start = time.perf_counter()
            progress.start()
        played += n
        elapsed = time.perf_counter() - start
        progress.update(task, advance=n, rate=rate_text(played, elapsed))

    try:
        yield advance
    finally:
        if progress.live.is_started:
            progress.stop()
