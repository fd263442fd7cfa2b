"""Open one or more runs as duckdb views, wherever they are stored.

Parquet shards are read through ``pyarrow.dataset`` (so local folders and
object storage look the same, with no duckdb extension to download) and
registered in an in-memory duckdb connection as:

- ``games``: one row per game, every run given;
- ``turns``: one row per turn or move (when the runs have turns);
- ``seats``: ``games`` seen from each seat — two rows per game with
  ``seat``, ``strategy``, ``opponent``, ``score``, ``opp_score``, ``margin``
  and ``result`` ('win' / 'draw' / 'loss', null for a failed game).
"""

from __future__ import annotations

import re

import duckdb
import pyarrow as pa
import pyarrow.dataset as pads

from pipelines import manifest as mf
from pipelines.storage import Location, exists, locate
from rules.base import UsageError

SEATS_SQL = """
CREATE VIEW seats AS
SELECT *, score - opp_score AS margin,
       CASE WHEN status <> 'ok' OR winner IS NULL THEN NULL
            WHEN winner = -1 THEN 'draw'
            WHEN winner = seat THEN 'win' ELSE 'loss' END AS result
FROM (
  SELECT g.*, 0 AS seat, strategy_0 AS strategy, strategy_1 AS opponent,
         score_0 AS score, score_1 AS opp_score FROM games g
  UNION ALL BY NAME
  SELECT g.*, 1 AS seat, strategy_1 AS strategy, strategy_0 AS opponent,
         score_1 AS score, score_0 AS opp_score FROM games g
)
"""


def unreadable_shard(uri: str | None, exc: Exception) -> UsageError:
    """The one-line error for a shard file that is not a readable Parquet file
    (``uri`` None: a query met it, and which file is not known)."""
    reason = re.sub(r"^Could not open Parquet input source '[^']*': ", "", " ".join(str(exc).split()))
    what = (f"{uri} is not a readable Parquet file: {reason}" if uri else
            f"a shard of the run cannot be read ({reason}); one of its Parquet files is damaged")
    return UsageError(f"{what}; delete that shard's games and turns files and finish the run with --resume")


def _schema(folder: Location, frag) -> pa.Schema:
    try:
        return frag.physical_schema
    except (pa.ArrowException, OSError) as exc:
        raise unreadable_shard(folder.child(frag.path.rsplit("/", 1)[-1]).uri, exc) from None


def _unified(ds: pads.Dataset, folder: Location) -> pads.Dataset:
    """The dataset with the union of its shards' schemas (a shard of failed
    games only lacks the game's own columns; they read as nulls); a shard
    that is not readable Parquet is a ``UsageError`` naming it."""
    schemas = [_schema(folder, frag) for frag in ds.get_fragments()]
    if not schemas:
        return ds
    schema = pa.unify_schemas(schemas, promote_options="permissive")
    return pads.dataset(ds.files, schema=schema, filesystem=ds.filesystem, format="parquet")


def _discover(folder: Location) -> pads.Dataset:
    """The shards of ``folder`` as a dataset, without reading any of them yet."""
    try:
        return pads.dataset(folder.path, filesystem=folder.fs, format="parquet",
                            exclude_invalid_files=False, schema=pa.schema([]))
    except (pa.ArrowException, OSError) as exc:
        raise UsageError(f"cannot list the shards in {folder.uri}: {' '.join(str(exc).split())}") from None


def _dataset(runs: list[Location], table: str) -> pads.Dataset | None:
    parts = []
    for run in runs:
        folder = run.child(table)
        if exists(folder):
            parts.append(_unified(_discover(folder), folder))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else pads.dataset(parts)


def open_runs(uris: list[str]) -> tuple[duckdb.DuckDBPyConnection, list[dict]]:
    """A duckdb connection over the given runs, and their manifests."""
    if not uris:
        raise UsageError("give at least one run folder")
    runs = [locate(u) for u in uris]
    seen: set[str] = set()
    for uri, run in zip(uris, runs):
        if run.uri.rstrip("/") in seen:
            raise UsageError(f"run {uri} is given twice: its games would count twice; give each run once")
        seen.add(run.uri.rstrip("/"))
    manifests = [mf.load(run) for run in runs]
    games = _dataset(runs, "games")
    if games is None:
        raise UsageError(f"{uris[0]} has no finished games yet; run or --resume it first")
    con = duckdb.connect()
    con.register("games_ds", games)
    con.execute("CREATE VIEW games AS SELECT * FROM games_ds")
    turns = _dataset(runs, "turns")
    if turns is not None:
        con.register("turns_ds", turns)
        con.execute("CREATE VIEW turns AS SELECT * FROM turns_ds")
    con.execute(SEATS_SQL)
    return con, manifests


def columns(con: duckdb.DuckDBPyConnection, view: str = "games") -> list[str]:
    return [row[0] for row in con.execute(f"DESCRIBE {view}").fetchall()]
