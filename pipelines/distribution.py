"""Distributions of one numeric expression: summaries for tables, bins for plots.

Both take ``rows_sql``: a FROM-clause body (``games WHERE true <filter>`` or
a join of ``turns`` with the filtered games) in which ``Scope.where_sql``
appears exactly once, so the scope's parameters line up with its ``?``.

- ``describe(scope, expr, rows_sql, keys)``: per group — n, mean with its
  95 % Student t interval (t_{n-1}·sd/√n: the normal z·sd/√n covered 81 %
  of means at 3 games, 94 % at 24), sd, min, p10, p25, median, p75, p90, max.
- ``histogram(scope, expr, rows_sql, keys, bins)``: per group — ``lo``,
  ``hi``, ``count`` on ``bins`` equal-width bins over the global range of
  the expression (integers get integer-aligned bins), for plots.
"""

from __future__ import annotations

import math

from scipy.stats import t as student_t

from pipelines.scope import Scope

DESCRIBE_SQL = """
SELECT {keys}
       count(x) AS n, avg(x) AS mean, stddev_samp(x) AS sd, min(x) AS min,
       quantile_cont(x, 0.1) AS p10, quantile_cont(x, 0.25) AS p25,
       quantile_cont(x, 0.5) AS median, quantile_cont(x, 0.75) AS p75,
       quantile_cont(x, 0.9) AS p90, max(x) AS max
FROM (SELECT {keys} {expr} AS x FROM {rows}) WHERE x IS NOT NULL
GROUP BY ALL HAVING count(x) > 0 ORDER BY ALL
"""

HIST_SQL = """
WITH v AS (SELECT {keys} CAST({expr} AS DOUBLE) AS x FROM {rows}),
r AS (SELECT min(x) AS lo, max(x) AS hi FROM v)
SELECT {keys} least(floor((x - r.lo) / {width}), {last}) AS bin, count(*) AS count
FROM v, r WHERE x IS NOT NULL GROUP BY ALL ORDER BY ALL
"""

RANGE_SQL = "SELECT min(x), max(x), bool_and(x = floor(x)) FROM (SELECT CAST({expr} AS DOUBLE) AS x FROM {rows})"


def describe(scope: Scope, expr: str, rows_sql: str, keys: str) -> list[dict]:
    rows = scope.rows(DESCRIBE_SQL.format(keys=keys, expr=expr, rows=rows_sql))
    for row in rows:
        n = row["n"]
        half = student_t.ppf(0.975, n - 1) * row["sd"] / math.sqrt(n) if row["sd"] is not None and n > 1 else None
        row["mean_lo"] = row["mean"] - half if half is not None else None
        row["mean_hi"] = row["mean"] + half if half is not None else None
    return rows


def bin_width(lo: float, hi: float, integral: bool, bins: int) -> float:
    span = max(hi - lo, 1e-12)
    width = span / bins
    return max(1.0, math.ceil(width)) if integral else width


def histogram(scope: Scope, expr: str, rows_sql: str, keys: str, bins: int = 40) -> list[dict]:
    lo, hi, integral = scope.execute(RANGE_SQL.format(expr=expr, rows=rows_sql)).fetchone()
    if lo is None:
        return []
    width = bin_width(lo, hi, bool(integral), bins)
    # the maximum falls on the top edge of the last bin, not into a bin of its own
    # (integral data: each bin holds whole values, the maximum's included)
    last = math.floor((hi - lo) / width) if integral else bins - 1
    rows = scope.rows(HIST_SQL.format(keys=keys, expr=expr, rows=rows_sql, width=repr(width), last=last))
    for row in rows:
        b = row.pop("bin")
        row["lo"], row["hi"] = lo + b * width, lo + (b + 1) * width
    return rows
