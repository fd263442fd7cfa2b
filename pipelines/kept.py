"""What a run keeps on disk: its finished shards, their games, their failed games.

The shard files are the truth about a run (a shard is finished when its
``games`` file exists). The driver counts from them, not only from what its
workers reported: a resumed run adds the failures of the shards it skips,
and an interrupted run counts the shards actually on disk — a task in flight
may finish after the driver stopped listening — so the manifest, the exit
code and the message agree with the disk.

Listing the ``games`` folder is cheap; failures are read only for shards
whose count the driver does not have yet (one scan of their ``status``
column, keeping only the failed rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from pipelines.spec import Experiment
from pipelines.storage import SHARD_NAME, Location, list_shards
from rules.base import UsageError

STATUS = pa.schema([("game_index", pa.int64()), ("status", pa.string())])  # all a count reads of a games file


def finished_shards(run: Location, exp: Experiment) -> set[int]:
    """The numbers of the shards of ``exp`` whose ``games`` file is in ``run``."""
    return list_shards(run.child("games")) & {number for number, _, _ in exp.shards()}


def failed_games(run: Location, exp: Experiment, shards: Iterable[int]) -> dict[int, int]:
    """Failed games (``status`` not ``ok``) in each of ``shards``, read from their
    ``games`` files; a file that cannot be read is a ``UsageError``."""
    shards = sorted(set(shards))
    counts = dict.fromkeys(shards, 0)
    if not shards:
        return counts
    games = run.child("games")
    paths = [games.child(SHARD_NAME.format(n)).path for n in shards]
    status = ds.field("status")
    try:
        dataset = ds.dataset(paths, schema=STATUS, format="parquet", filesystem=games.fs)
        failed = dataset.to_table(columns=["game_index"], filter=(status != "ok") | status.is_null())
    except (pa.ArrowException, OSError) as exc:
        raise _unreadable(games, shards, exc) from None
    numbers, per_shard = pc.value_counts(pc.divide(failed["game_index"], exp.shard_size)).flatten()
    for number, count in zip(numbers.to_pylist(), per_shard.to_pylist()):
        counts[number] = count
    return counts


def check_turns(run: Location, exp: Experiment, shards: Iterable[int], failed: Mapping[int, int]) -> None:
    """A ``UsageError`` for the first of ``shards`` kept without its ``turns`` file (one with a game that
    did not fail: a shard of failed games alone may have none), or whose file's footer cannot be read:
    a resume would otherwise call the run complete with the turns of that shard missing."""
    if not exp.turns:
        return
    from pipelines.dataset import unreadable_shard

    turns, games = run.child("turns"), run.child("games")
    present = list_shards(turns)
    sizes = shard_sizes(exp)
    for number in sorted(shards):
        name = SHARD_NAME.format(number)
        if number not in present:
            if failed.get(number, 0) < sizes[number]:
                raise UsageError(f"{turns.child(name).uri} is missing, though its games were kept: delete "
                                 f"{games.child(name).uri} and finish the run with --resume")
            continue
        try:
            with turns.fs.open_input_file(turns.child(name).path) as f:
                pq.read_metadata(f)
        except (pa.ArrowException, OSError) as exc:
            raise unreadable_shard(turns.child(name).uri, exc) from None


def _unreadable(games: Location, shards: list[int], exc: Exception):
    """The ``UsageError`` naming the first of ``shards`` whose ``status`` cannot be read."""
    from pipelines.dataset import unreadable_shard

    for number in shards:
        shard = games.child(SHARD_NAME.format(number))
        try:
            ds.dataset(shard.path, schema=STATUS, format="parquet", filesystem=games.fs).to_table()
        except (pa.ArrowException, OSError) as one:
            return unreadable_shard(shard.uri, one)
    return unreadable_shard(None, exc)


def shard_sizes(exp: Experiment) -> dict[int, int]:
    """Games in each shard of ``exp``, by shard number."""
    return {number: count for number, _, count in exp.shards()}


def games_in(exp: Experiment, shards: Iterable[int]) -> int:
    """How many games ``shards`` of ``exp`` hold."""
    sizes = shard_sizes(exp)
    return sum(sizes[n] for n in shards)


def tally(exp: Experiment, shards: Iterable[int], failed: Mapping[int, int]) -> tuple[int, int]:
    """(games, failed games) in ``shards``."""
    shards = list(shards)
    return games_in(exp, shards), sum(failed[n] for n in shards)
