"""Open one or more runs as duckdb views, wherever they are stored.

Parquet shards are read through ``pyarrow.dataset`` (so local folders and
object storage look the same, with no duckdb extension to download) and
registered in an in-memory duckdb connection as:

- ``games``: one row per game, every run given;
- ``turns``: one row per turn or move (when the runs have turns);
- ``seats``: ``games`` seen from each seat — two rows per game with
  ``seat``, ``strategy``, ``opponent``, ``score``, ``opp_score``, ``margin``
  and ``result`` ('win' / 'draw' / 'loss', null for a failed game). Where
  the runs have a komi (Polar's ``rule_komi``, points for White, P7), the
  seat playing White (``colour_0``) scores its board points plus the komi:
  the totals the winner is read from (``komi_sql``).

Each run's rows carry ``run_no``, the run's position among the runs given,
which ties a turn to its game. Their ``run_id`` is the run's label
(``run_labels``): its run_id, unless another run given shares it (the same
spec simulated into two ``--out`` folders, as for a regression check), in
which case each is labelled by the end of its folder or URI as given that
tells them apart, so no table pools them and every replay command points
at the right folder.
"""

from __future__ import annotations

import re
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.dataset as pads

from pipelines import manifest as mf
from pipelines.pooling import rule_columns_as_played
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
         score_0 + {komi_0} AS score, score_1 + {komi_1} AS opp_score FROM games g
  UNION ALL BY NAME
  SELECT g.*, 1 AS seat, strategy_1 AS strategy, strategy_0 AS opponent,
         score_1 + {komi_1} AS score, score_0 + {komi_0} AS opp_score FROM games g
)
"""


def komi_sql(columns, seat: int, prefix: str = "") -> str:
    """SQL of the komi seat ``seat`` of a games row adds to its board score: Polar's ``rule_komi`` when it
    plays White; 0 in runs without a komi."""
    if not {"rule_komi", "colour_0"} <= set(columns):
        return "0"
    colour = "white" if seat == 0 else "black"  # seat 1 plays White when seat 0 plays Black
    return f"(CASE WHEN {prefix}colour_0 = '{colour}' THEN coalesce({prefix}rule_komi, 0) ELSE 0 END)"


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


def _datasets(runs: list[Location], table: str) -> list[tuple[int, pads.Dataset]]:
    """Each run's ``table`` shards as a dataset, with the run's position; runs without that folder left out."""
    parts = []
    for no, run in enumerate(runs):
        folder = run.child(table)
        if exists(folder):
            parts.append((no, _unified(_discover(folder), folder)))
    return parts


def run_labels(uris: list[str], manifests: list[dict]) -> list[str]:
    """Each run's ``run_id`` for analysis: its own, or, when another of ``uris``
    has the same run_id (the default run_id is a hash of the spec, so the same
    spec run into two folders shares it), the end of its folder or URI as
    given that tells it apart (``base/polar-polar-9-68cdf9c859``)."""
    labels = [m.get("run_id") for m in manifests]
    for rid in {rid for rid in labels if labels.count(rid) > 1}:
        group = [i for i, label in enumerate(labels) if label == rid]
        others = {label for i, label in enumerate(labels) if label != rid}
        for i, tail in zip(group, _distinct_tails([uris[i] for i in group], others)):
            labels[i] = tail
    return labels


def _distinct_tails(uris: list[str], taken: set) -> list[str]:
    """The fewest trailing path parts that tell ``uris`` apart and name no ``taken`` run (else the whole URIs)."""
    parts = [u.rstrip("/").split("/") for u in uris]
    for k in range(1, max(map(len, parts)) + 1):
        tails = ["/".join(p[-k:]) for p in parts]
        if len(set(tails)) == len(tails) and not taken & set(tails):
            return tails
    return [u.rstrip("/") for u in uris]


def shared_run_id_note(uris: list[str], manifests: list[dict]) -> str | None:
    """What ``run_labels`` changed, for a note; None when every run_id is its own."""
    moved = [(label, m.get("run_id")) for label, m in zip(run_labels(uris, manifests), manifests)
             if label != m.get("run_id")]
    if not moved:
        return None
    shared = ", ".join(sorted({str(rid) for _, rid in moved}))
    return (f"runs given share the run_id {shared}; they are kept apart, their run_id column showing their "
            f"folders: {', '.join(label for label, _ in moved)}")


def union_view(con: duckdb.DuckDBPyConnection, table: str, parts: list[tuple[int, duckdb.DuckDBPyRelation]],
               labels: list[str], played: dict[int, dict[str, Any]] | None = None) -> None:
    """View ``table`` over each run's relation ``(run_no, rows)``, with ``run_no``
    added and ``run_id`` set to the run's label. A ``rule_`` column another run
    has and this one's rows predate takes the value the run played
    (``played[run_no]``, ``pooling.rule_columns_as_played``), else stays empty.
    Labels and paths reach duckdb as values, never as SQL text."""
    names = []
    rule_columns = {c for _, rel in parts for c in rel.columns if c.startswith("rule_")}
    for no, rel in parts:
        cols = [duckdb.ConstantExpression(labels[no]).alias("run_id") if c == "run_id" else duckdb.ColumnExpression(c)
                for c in rel.columns]
        filled = [duckdb.ConstantExpression(value).alias(c) for c, value in (played or {}).get(no, {}).items()
                  if c in rule_columns and c not in rel.columns]
        name = f"{table}_run_{no}"
        rel.select(*cols, *filled, duckdb.ConstantExpression(no).cast(duckdb.sqltypes.SMALLINT).alias("run_no")
                   ).create_view(name, replace=True)
        names.append(name)
    con.execute(f"CREATE OR REPLACE VIEW {table} AS " + " UNION ALL BY NAME ".join(f"SELECT * FROM {n}" for n in names))


def stored_notes(con: duckdb.DuckDBPyConnection, uris: list[str], manifests: list[dict]) -> list[str]:
    """What a reader of the tables must know about each run's games on disk: a run not finished (its
    manifest's status), and a run with fewer games on disk than its manifest counts (a shard file lost)."""
    found = dict(con.execute("SELECT run_no, count(*) FROM games GROUP BY run_no").fetchall())
    notes = []
    for no, (uri, m) in enumerate(zip(uris, manifests)):
        done, total, on_disk = m.get("games_done"), m.get("games_total"), found.get(no, 0)
        if isinstance(done, int) and on_disk < done:
            notes.append(f"{uri}: {on_disk} of the {done} games its manifest counts are on disk (a games shard "
                         f"file is missing): the tables cover the {on_disk}; the command that made the run, "
                         "with --resume, plays the missing shards again")
        elif m.get("status") == "running" and isinstance(total, int):
            notes.append(f"{uri} is running, or its driver was killed: {on_disk} of {total} games so far; "
                         "a killed run is finished by the command that made it, with --resume")
        elif m.get("status") != "complete" and isinstance(total, int):
            notes.append(f"{uri} is {m.get('status')}: {on_disk} of {total} games; finish it with the "
                         "command that made it and --resume")
    return notes


def copies_note(con: duckdb.DuckDBPyConnection) -> str | None:
    """How many games two of the runs opened both hold — the same game seed, strategies in the same seats,
    rules and physics, so the same game (one run seed played twice, or runs made before polsim 0.31.0:
    ``rules.seeds``, seeding 1); None when there are none."""
    cols = columns(con, "games")
    if not {"game_seed", "strategy_0", "strategy_1", "run_no"} <= set(cols):
        return None
    key = ["game_seed", "strategy_0", "strategy_1", *(c for c in cols if c.startswith("rule_")),
           *(c for c in ("physics_version",) if c in cols)]
    listed = ", ".join(f'"{c}"' for c in key)
    copies = con.execute(f"SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM games GROUP BY {listed} "
                         "HAVING count(DISTINCT run_no) > 1)").fetchone()[0]
    if not copies:
        return None
    return (f"{int(copies)} games are held by two of these runs (the same game seed, seats, strategies, rules and "
            "physics: one run seed played twice, or two run seeds of runs made before polsim 0.31.0, which share "
            "a game seed or two); a table that pools the runs counts each twice")


def distinct_runs(uris: list[str], why: str = "its games would count twice") -> list[Location]:
    """Where each of ``uris`` is; a run given twice (however spelt) is a ``UsageError`` saying ``why`` it matters."""
    runs = [locate(u) for u in uris]
    seen: set[str] = set()
    for uri, run in zip(uris, runs):
        if run.uri.rstrip("/") in seen:
            raise UsageError(f"run {uri} is given twice: {why}; give each run once")
        seen.add(run.uri.rstrip("/"))
    return runs


def open_runs(uris: list[str]) -> tuple[duckdb.DuckDBPyConnection, list[dict]]:
    """A duckdb connection over the given runs, and their manifests."""
    if not uris:
        raise UsageError("give at least one run folder")
    runs = distinct_runs(uris)
    manifests = [mf.load(run) for run in runs]
    games = _datasets(runs, "games")
    if not games:
        raise UsageError(f"{uris[0]} has no finished games yet; run or --resume it first")
    con = duckdb.connect()
    labels = run_labels(uris, manifests)
    for table, parts in (("games", games), ("turns", _datasets(runs, "turns"))):
        if parts:
            for no, ds in parts:
                con.register(f"{table}_ds_{no}", ds)
            union_view(con, table, [(no, con.view(f"{table}_ds_{no}")) for no, _ in parts], labels,
                       played_rule_columns(manifests))
    cols = columns(con, "games")
    con.execute(SEATS_SQL.format(komi_0=komi_sql(cols, 0), komi_1=komi_sql(cols, 1)))
    return con, manifests


def played_rule_columns(manifests: list[dict]) -> dict[int, dict[str, Any]]:
    """Each run's ``rule_`` values as it played them (``union_view``'s ``played``)."""
    return {no: rule_columns_as_played(m) for no, m in enumerate(manifests)}


def columns(con: duckdb.DuckDBPyConnection, view: str = "games") -> list[str]:
    return list(column_types(con, view))


def column_types(con: duckdb.DuckDBPyConnection, view: str = "games") -> dict[str, str]:
    """Each column of ``view`` and its duckdb type (``BOOLEAN``, ``DOUBLE``, ``VARCHAR``…), in order."""
    return {row[0]: row[1] for row in con.execute(f"DESCRIBE {view}").fetchall()}
