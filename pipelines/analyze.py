"""Outcome summaries of runs, computed by duckdb over the Parquet results.

``summarize(con, by)`` returns named tables (lists of dict rows):

- ``strategies``: per strategy — games, wins, draws, losses, win rate with
  its 95 % Wilson interval, score rate (draws as half), mean score and margin;
- ``seats``: the same per seat (seat 0 moves first): first-player advantage;
- ``strategy_seat``: per strategy × seat;
- ``length``: turns per game — mean, standard deviation, quantiles;
- ``end_reasons``: count and share of each end reason;
- ``failures``: games that did not finish normally (status not ``ok``).

``by`` adds grouping columns (any column of ``games``) to every table;
``where`` filters are ``column=value`` / ``column!=value`` pairs whose values
are passed to duckdb as parameters, never pasted into SQL.
"""

from __future__ import annotations

import duckdb

from pipelines.dataset import columns
from pipelines.stats.proportion import score_rate, wilson
from pipelines.stats.tally import Tally
from rules.base import UsageError

OUTCOME_SQL = """
SELECT {keys}
       count(*) AS games,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'draw') AS draws,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       avg(score) AS mean_score,
       avg(margin) AS mean_margin
FROM seats WHERE result IS NOT NULL {where}
GROUP BY ALL ORDER BY ALL
"""

LENGTH_SQL = """
SELECT {keys}
       count(*) AS games, avg(n_turns) AS mean, stddev_samp(n_turns) AS sd,
       quantile_cont(n_turns, 0.1) AS p10, quantile_cont(n_turns, 0.5) AS median,
       quantile_cont(n_turns, 0.9) AS p90, max(n_turns) AS max
FROM games WHERE status = 'ok' {where}
GROUP BY ALL ORDER BY ALL
"""

END_SQL = """
SELECT {keys} end_reason, count(*) AS games,
       count(*) / sum(count(*)) OVER ({partition}) AS share
FROM games WHERE true {where}
GROUP BY ALL ORDER BY ALL
"""

FAILURE_SQL = """
SELECT {keys} status, count(*) AS games, any_value(error) AS example_error
FROM games WHERE status <> 'ok' {where}
GROUP BY ALL ORDER BY ALL
"""


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def parse_where(items: list[str], known: list[str]) -> tuple[str, list]:
    """``col=value`` / ``col!=value`` filters into SQL with parameters."""
    clauses, params = [], []
    for item in items:
        op = "!=" if "!=" in item else "="
        col, sep, value = item.partition(op)
        col = col.strip()
        if not sep or not col:
            raise UsageError(f"--where {item!r} is not column=value or column!=value")
        if col not in known:
            raise UsageError(f"--where: unknown column {col!r}; columns: {', '.join(known)}")
        clauses.append(f"CAST({_quote(col)} AS VARCHAR) {'<>' if op == '!=' else '='} ?")
        params.append(value.strip())
    return "".join(f" AND {c}" for c in clauses), params


def _keys(by: list[str], known: list[str]) -> list[str]:
    for col in by:
        if col not in known:
            raise UsageError(f"--by: unknown column {col!r}; columns: {', '.join(known)}")
    return [_quote(c) for c in by]


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: list) -> list[dict]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row)) for row in cur.fetchall()]


def with_rates(rows: list[dict], level: float = 0.95) -> list[dict]:
    """Add win rate and score rate (draws as half) with 95 % intervals.

    The tally (wins + draws + losses = games) is checked as it is read."""
    for row in rows:
        tally = Tally(row["wins"], row["draws"], row["losses"], row["games"])
        win = wilson(tally.wins, tally.games, level)
        score = score_rate(tally, level)
        row.update(win_rate=win.estimate, win_lo=win.low, win_hi=win.high,
                   score_rate=score.estimate, score_lo=score.low, score_hi=score.high)
    return rows


def summarize(con: duckdb.DuckDBPyConnection, by: list[str] = (), where: list[str] = ()) -> dict[str, list[dict]]:
    known = columns(con, "games")
    seat_known = columns(con, "seats")
    where_sql, params = parse_where(list(where), known)
    extra = _keys(list(by), known)

    def outcome(group: list[str]) -> list[dict]:
        keys = "".join(f"{k}, " for k in group + extra)
        return with_rates(_rows(con, OUTCOME_SQL.format(keys=keys, where=where_sql), params))

    _keys(["strategy", "seat"], seat_known)
    keys = "".join(f"{k}, " for k in extra)
    partition = ("PARTITION BY " + ", ".join(extra)) if extra else ""
    return {
        "strategies": outcome(["strategy"]),
        "seats": outcome(["seat"]),
        "strategy_seat": outcome(["strategy", "seat"]),
        "length": _rows(con, LENGTH_SQL.format(keys=keys, where=where_sql), params),
        "end_reasons": _rows(con, END_SQL.format(keys=keys, where=where_sql, partition=partition), params),
        "failures": _rows(con, FAILURE_SQL.format(keys=keys, where=where_sql), params),
    }
