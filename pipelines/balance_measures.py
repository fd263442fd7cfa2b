"""Outcome balance and game length, for any game (duckdb over ``games``/``seats``).

Each function takes a ``Scope`` and returns a list of dict rows; every rate
comes with its 95 % interval as ``<name>_rate``, ``<name>_lo``, ``<name>_hi``.

- ``outcomes(scope, group, derived)``: win/draw/loss of the ``seats`` view
  grouped by ``group`` (``["strategy"]``, ``["seat"]``, ``["strategy",
  "seat"]``…; ``derived`` names computed seat columns such as a colour):
  win rate (Wilson) and score rate (draws as half, the trinomial score interval).
- ``balance(scope)``: one row per group of games: the seat balance score
  1 - |s_0 - s_1| (``stats.balance.balance``), first-player advantage
  s_0 - 1/2, completion (share of games with a winner, out of every game,
  failed ones included), drawishness (draws among ``finished`` games: those
  that ended with a result, a winner or a draw) and the
  share of games ended by a safety limit (``SAFETY_LIMITS``).
- ``length(scope)``: turns of play per game that ran to an end (``status =
  'ok'``, games ended by a safety limit with no result included;
  ``play_turns``: setup turns left out) — mean with a Student t 95 %
  interval, spread (sd, IQR, coefficient of variation), quantiles.
- ``end_reasons(scope)``: count and share of each end reason (and, when
  recorded, the rule that made a sudden end's loser lose: ``loser_cause``);
  ``failures(scope)``: failed games by status, with an example error.
"""

from __future__ import annotations

from pipelines.play_turns import play_turns_sql
from pipelines.scope import Scope
from pipelines.stats.balance import balance as seat_balance
from pipelines.stats.balance import first_player_advantage
from pipelines.distribution import describe
from pipelines.stats.interval import Interval
from pipelines.stats.proportion import score_rate, wilson
from pipelines.stats.tally import Tally

LEVEL = 0.95
SAFETY_LIMITS = ("turn_limit", "stalled", "step_budget")   # ends the engine imposes, not the rules

OUTCOME_SQL = """
SELECT {keys}
       count(*) AS games,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'draw') AS draws,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       avg(score) AS mean_score,
       avg(margin) AS mean_margin
FROM {seats} WHERE result IS NOT NULL {where}
GROUP BY ALL ORDER BY ALL
"""

BALANCE_SQL = """
SELECT {keys}
       count(*) AS games,
       count(*) FILTER (WHERE status = 'ok' AND winner IS NOT NULL) AS finished,
       count(*) FILTER (WHERE status = 'ok' AND winner = 0) AS seat0_wins,
       count(*) FILTER (WHERE status = 'ok' AND winner = 1) AS seat1_wins,
       count(*) FILTER (WHERE status = 'ok' AND winner = -1) AS draws,
       count(*) FILTER (WHERE end_reason IN ({limits})) AS safety_limited
FROM games WHERE true {where}
GROUP BY ALL HAVING count(*) > 0 ORDER BY ALL
"""

END_SQL = """
SELECT *, sum(games) OVER ({partition}) AS of_games
FROM (SELECT {keys} end_reason, {cause} count(*) AS games,
             arg_min(run_id, game_index) AS example_run, min(game_index) AS example_game
      FROM games WHERE true {where} GROUP BY ALL)
ORDER BY ALL
"""

FAILURE_SQL = """
SELECT {keys} status, count(*) AS games, arg_min(error, game_index) AS example_error,
       arg_min(run_id, game_index) AS example_run, min(game_index) AS example_game
FROM games WHERE status <> 'ok' {where}
GROUP BY ALL ORDER BY ALL
"""


def put(row: dict, name: str, interval: Interval | None) -> dict:
    """Store an interval as ``name_rate``/``name_lo``/``name_hi`` (None when undefined)."""
    est, lo, hi = (interval.estimate, interval.low, interval.high) if interval else (None, None, None)
    row.update({f"{name}_rate": est, f"{name}_lo": lo, f"{name}_hi": hi})
    return row


def put_group_shares(scope, rows: list[dict], name: str, counts: list[dict], k: str = "k", n: str = "n") -> list[dict]:
    """Store on each row the share ``k / n`` of its group, from ``counts`` (one row per group)."""
    by_group = scope.by_group(counts)
    for row in rows:
        c = by_group.get(scope.group_of(row))
        put(row, name, share(c[k], c[n]) if c else None)
    return rows


def share(k: int, n: int) -> Interval | None:
    """Wilson interval of k of n, or None for n = 0."""
    return wilson(k, n, LEVEL) if n else None


def with_rates(rows: list[dict]) -> list[dict]:
    """Add win rate and score rate with 95 % intervals; the tally is checked as read."""
    for row in rows:
        tally = Tally(row["wins"], row["draws"], row["losses"], row["games"])
        put(row, "win", share(tally.wins, tally.games))
        put(row, "score", score_rate(tally, LEVEL))
    return rows


def outcomes(scope: Scope, group: list[str], derived: dict[str, str] | None = None) -> list[dict]:
    """Outcomes per ``group``; ``derived`` adds computed seat columns (name -> SQL expression)."""
    seats = "seats"
    if derived:
        seats = "(SELECT *, " + ", ".join(f"{expr} AS {name}" for name, expr in derived.items()) + " FROM seats)"
    sql = OUTCOME_SQL.format(keys=scope.keys_sql(group, seat_level=True), where=scope.where_sql, seats=seats)
    return with_rates(scope.rows(sql))


def _balance_row(row: dict) -> dict:
    seat0, seat1, draws, finished = row["seat0_wins"], row["seat1_wins"], row["draws"], row["finished"]
    Tally.of(seat0, draws, seat1)  # checks the counts before they are used
    decided = seat0 + seat1 + draws
    row["balance"], row["balance_lo"], row["balance_hi"] = (None, None, None)
    if decided:
        b = seat_balance([seat0, seat1], draws, LEVEL)
        row.update(balance=b.estimate, balance_lo=b.low, balance_hi=b.high)
    put(row, "first_player_adv", first_player_advantage(seat0, draws, seat1, LEVEL) if decided else None)
    put(row, "completion", share(seat0 + seat1, row["games"]))
    put(row, "draw", share(draws, finished))
    put(row, "safety_limit", share(row["safety_limited"], row["games"]))
    return row


def balance(scope: Scope) -> list[dict]:
    limits = ", ".join(f"'{r}'" for r in SAFETY_LIMITS)
    sql = BALANCE_SQL.format(keys=scope.keys_sql(), where=scope.where_sql, limits=limits)
    return [_balance_row(r) for r in scope.rows(sql)]


def length(scope: Scope) -> list[dict]:
    rows = describe(scope, play_turns_sql(scope.games), f"games WHERE status = 'ok' {scope.where_sql}",
                    scope.keys_sql())
    out = []
    for row in rows:
        spread = {"iqr": row["p75"] - row["p25"], "cv": row["sd"] / row["mean"] if row["sd"] is not None and row["mean"] else None}
        out.append({("games" if k == "n" else k): v for k, v in row.items()} | spread)
    return out


def end_reasons(scope: Scope) -> list[dict]:
    cause = "loser_cause, " if scope.has("loser_cause") else ""
    sql = END_SQL.format(keys=scope.keys_sql(), where=scope.where_sql, partition=scope.partition_sql(), cause=cause)
    rows = scope.rows(sql)
    for row in rows:
        s = share(row["games"], int(row.pop("of_games")))
        row.update(share=s.estimate, share_lo=s.low, share_hi=s.high)
    return rows


def failures(scope: Scope) -> list[dict]:
    return scope.rows(FAILURE_SQL.format(keys=scope.keys_sql(), where=scope.where_sql))
