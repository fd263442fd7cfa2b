"""What a measure is computed over: grouping keys, a filter, the columns at hand.

``Scope.of(con, by, where)`` validates the user's ``--by`` / ``--where`` once
and is handed to every measure:

- ``by``: grouping columns. A column of ``games`` groups every table; a
  column only the ``seats`` view has (``seat``, ``strategy``, ``opponent``)
  groups only the per-seat tables (a per-game table has no seat to split by).
- ``where``: ``column=value`` / ``column!=value`` filters on ``games``
  columns (``where.parse_where``: a value is read as its column's type).
  The values become duckdb parameters (``?``), never SQL text.
- ``games`` / ``seats`` / ``turns``: the column names each view has (empty
  for ``turns`` when the runs recorded none), so a measure can skip itself
  cleanly when its columns are absent.

Turn-level measures read ``turns`` joined to the filtered games
(``filtered_games_sql``, on ``join``: ``run_no, game_index`` over the views
of ``dataset.open_runs``, else ``run_id, game_index``), so filters and
groups on game columns reach them too. ``execute`` passes the parameters
once per copy of the filter in a query; ``materialize`` computes a shared
intermediate (e.g. the decided games) once per scope into a temporary table.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import duckdb

from pipelines.dataset import column_types, columns, unreadable_shard
from pipelines.where import parse_where, quote
from rules.base import UsageError

_TEMP_TABLES = itertools.count()


def _views(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {row[0] for row in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}


@dataclass(frozen=True)
class Scope:
    con: duckdb.DuckDBPyConnection
    by: tuple[str, ...]
    where_sql: str
    params: tuple
    games: frozenset[str]
    seats: frozenset[str]
    turns: frozenset[str]
    cache: dict = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, con: duckdb.DuckDBPyConnection, by=(), where=()) -> "Scope":
        games, seats = columns(con, "games"), columns(con, "seats")
        turns = columns(con, "turns") if "turns" in _views(con) else []
        for col in by:
            if col not in seats:
                raise UsageError(f"--by: unknown column {col!r}; columns: {', '.join(seats)}")
        if "game" in games and "game" not in by:  # one game's measures mixed with another's mean nothing
            played = [r[0] for r in con.execute("SELECT DISTINCT game FROM games ORDER BY game LIMIT 3").fetchall()]
            if len(played) > 1:
                raise UsageError(f"runs play different games ({', '.join(map(str, played))}): "
                                 "analyze one game at a time (or keep them apart with --by game)")
        where_sql, params = parse_where(list(where), column_types(con, "games"))
        if where and not con.execute(f"SELECT count(*) FROM games WHERE true {where_sql}", params).fetchone()[0]:
            given = " ".join(f"--where {w}" for w in where)
            raise UsageError(f"no games match {given}; check the values (e.g. with --by on that column)")
        return cls(con, tuple(by), where_sql, tuple(params), frozenset(games), frozenset(seats), frozenset(turns))

    # grouping -------------------------------------------------------------
    def game_keys(self) -> list[str]:
        """``--by`` columns that exist per game (seat-only ones dropped)."""
        return [c for c in self.by if c in self.games]

    def keys_sql(self, extra: list[str] = (), prefix: str = "", seat_level: bool = False) -> str:
        """``"k1", "k2", `` for a SELECT / GROUP BY (empty when no keys)."""
        keys = list(extra) + [c for c in (self.by if seat_level else self.game_keys()) if c not in extra]
        return "".join(f"{prefix}{quote(k)}, " for k in keys)

    def by_group(self, rows: list[dict]) -> dict[tuple, dict]:
        """Rows of a per-game table indexed by their group key values."""
        return {tuple(r.get(k) for k in self.game_keys()): r for r in rows}

    def group_of(self, row: dict) -> tuple:
        return tuple(row.get(k) for k in self.game_keys())

    def partition_sql(self, prefix: str = "") -> str:
        keys = self.game_keys()
        return ("PARTITION BY " + ", ".join(prefix + quote(k) for k in keys)) if keys else ""

    # columns --------------------------------------------------------------
    def has(self, *cols: str, view: str = "games") -> bool:
        return set(cols) <= getattr(self, view)

    @property
    def join(self) -> str:
        """Columns that tie a turn to its game: ``run_no`` (``dataset`` views) or ``run_id``, and ``game_index``."""
        run = "run_no" if "run_no" in self.games and "run_no" in self.turns else "run_id"
        return f"{run}, game_index"

    def filtered_games_sql(self, cols: list[str]) -> str:
        """A subquery of the filtered games with the join keys, group keys and ``cols``."""
        wanted = [*self.join.split(", "), *self.game_keys(), *cols]
        select = ", ".join(quote(c) for c in dict.fromkeys(wanted))
        return f"(SELECT {select} FROM games WHERE true {self.where_sql})"

    # running --------------------------------------------------------------
    def execute(self, sql: str) -> duckdb.DuckDBPyConnection:
        """Run ``sql``, which holds the filter ``where_sql`` zero or more times. A
        shard whose footer reads but whose data does not (duckdb's I/O, input or
        bare errors: not a mistake in the SQL) is a ``UsageError``."""
        uses = sql.count("?") // len(self.params) if self.params else 0
        try:
            return self.con.execute(sql, list(self.params) * uses)
        except duckdb.Error as exc:
            if type(exc) is not duckdb.Error and not isinstance(exc, (duckdb.IOException, duckdb.InvalidInputException)):
                raise
            raise unreadable_shard(None, exc) from None

    def rows(self, sql: str) -> list[dict]:
        cur = self.execute(sql)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    def materialize(self, name: str, sql: str) -> str:
        """Compute ``sql`` once into a temporary table; later calls reuse it."""
        if name not in self.cache:
            table = f"scope_{next(_TEMP_TABLES)}_{name}"
            self.execute(f"CREATE TEMP TABLE {table} AS {sql}")
            self.cache[name] = table
        return self.cache[name]
