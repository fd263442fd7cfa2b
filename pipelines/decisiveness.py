"""Decisiveness: how early the final winner takes a lead that it keeps.

Read from the running seat scores of ``turns`` (``score_0``, ``score_1``
after each turn; ``turn`` counts from 0). For a game won by seat w, the
*deciding turn* d is the first turn from which w's score stays strictly
ahead up to the end:

    d = 1 + (last turn where w was not strictly ahead), or 0 if none,

and the *decided fraction* is d / (last turn + 1), in [0, 1]: near 0 the
winner led from the start (a runaway game); (T - 1) / T for a game of T
turns means the winner first took the lead on the last turn (a comeback);
1 means the winner was not ahead on score even after the last turn (won by
a sudden end, e.g. the opponent touched the red disc). Draws and failed
games have no winner and are left out. Where the runs have a komi (Polar's
``rule_komi``, added to White's total, P7), the seat playing White carries
it from the first turn: the scores compared are the totals the winner is
read from. So is the last turn's: the games row's final scores, not the
turns row's. They differ where R18 scores a stack as the last disc left it
while that move's fault refilled it (Polarity's ``empty_stack_scoring``
``when_emptied``, R17): the turns row keeps the refill, and read from it the
winner of such a game was "not ahead even after the last turn" (polsim
before 0.24.0). The two latest turns each seat was not ahead on
(``max(turn, 2)``) let the last be read from the games row in the same pass.

- ``per_game_sql(scope)``: one row per decided game — group keys,
  ``decided_turn``, ``turns``, ``decided_frac``; shared with the report's
  histogram.
- ``decisiveness(scope)``: per group — games, mean and quantiles of the
  decided fraction, mean deciding turn, and two shares with Wilson
  intervals: ``early`` (decided in the first half) and ``last`` (decided
  fraction 1: the winner was not ahead on score at the end).

Turns count from the first turn of play (``pipelines.play_turns``): a
Polarity game's foundation placements are neither deciding turns nor part
of its length (counted in, no standard game could be decided before turn
10), and a game that ended while the board was set up is left out. As the
leader for good is read over every turn, a deciding turn before play
begins counts as play's first.

Skipped (no rows) when the runs have no ``turns`` with running scores.
"""

from __future__ import annotations

from pipelines.balance_measures import put, share
from pipelines.dataset import komi_sql
from pipelines.play_turns import setup_columns, setup_turns_sql
from pipelines.scope import Scope

NEEDS = ("game_index", "turn", "score_0", "score_1")

PER_GAME_SQL = """
SELECT {keys} decided_turn, turns, decided_turn / turns AS decided_frac
FROM (
SELECT {g_keys}
       greatest(coalesce(CASE
         WHEN (g.winner = 0 AND g.final_0 + g.komi_0 <= g.final_1 + g.komi_1)
           OR (g.winner = 1 AND g.final_1 + g.komi_1 <= g.final_0 + g.komi_0) THEN p.last_turn
         ELSE list_filter(CASE g.winner WHEN 0 THEN p.behind_0 ELSE p.behind_1 END, lambda t: t < p.last_turn)[1]
       END, -1) + 1 - g.setup, 0) AS decided_turn,
       p.last_turn + 1 - g.setup AS turns
FROM (SELECT *, {setup} AS setup, score_0 AS final_0, score_1 AS final_1,
             {games_komi_0} AS komi_0, {games_komi_1} AS komi_1 FROM {games}) g
JOIN (
  SELECT {join}, max(turn) AS last_turn,
         max(turn, 2) FILTER (WHERE score_0 + komi_0 <= score_1 + komi_1) AS behind_0,
         max(turn, 2) FILTER (WHERE score_1 + komi_1 <= score_0 + komi_0) AS behind_1
  FROM {turns} GROUP BY {join}
) p USING ({join})
WHERE g.status = 'ok' AND g.winner IN (0, 1) AND p.last_turn + 1 > g.setup
)
"""

SUMMARY_SQL = """
SELECT {keys}
       count(*) AS games,
       avg(decided_frac) AS mean_frac,
       quantile_cont(decided_frac, 0.1) AS p10, quantile_cont(decided_frac, 0.25) AS p25,
       quantile_cont(decided_frac, 0.5) AS median, quantile_cont(decided_frac, 0.75) AS p75,
       quantile_cont(decided_frac, 0.9) AS p90,
       avg(decided_turn) AS mean_turn,
       count(*) FILTER (WHERE decided_frac <= 0.5) AS early,
       count(*) FILTER (WHERE decided_turn = turns) AS last
FROM ({per_game}) GROUP BY ALL HAVING count(*) > 0 ORDER BY ALL
"""


def available(scope: Scope) -> bool:
    return scope.has(*NEEDS, view="turns") and scope.has("winner", "status")


KOMI_TURNS_SQL = """(
  SELECT t.*, {komi_0} AS komi_0, {komi_1} AS komi_1
  FROM turns t JOIN (SELECT {join}, colour_0, rule_komi FROM games) g USING ({join})
)"""


def _turns_sql(scope: Scope) -> str:
    """The turns with each seat's komi; joined to the games only when some game
    has a komi, since every turn row meets its game there (1,000,000 Polar
    games, 68.5 M turns: ``polsim analyze`` 5.0 s with the join, 3.96 s without)."""
    if scope.has("rule_komi", "colour_0") and _any_komi(scope):
        return KOMI_TURNS_SQL.format(join=scope.join, komi_0=komi_sql(scope.games, 0, "g."),
                                     komi_1=komi_sql(scope.games, 1, "g."))
    return "(SELECT *, 0 AS komi_0, 0 AS komi_1 FROM turns)"


def _any_komi(scope: Scope) -> bool:
    return bool(scope.execute("SELECT EXISTS (SELECT 1 FROM games WHERE coalesce(rule_komi, 0) <> 0)").fetchone()[0])


def per_game_sql(scope: Scope) -> str:
    """``SELECT * FROM`` a temporary table of the decided games, computed once per scope."""
    komi = [c for c in ("rule_komi", "colour_0") if c in scope.games]
    games = scope.filtered_games_sql(["winner", "status", "score_0", "score_1", *komi, *setup_columns(scope.games)])
    sql = PER_GAME_SQL.format(keys=scope.keys_sql(), g_keys=scope.keys_sql(prefix="g."), games=games, join=scope.join,
                              turns=_turns_sql(scope), setup=setup_turns_sql(scope.games),
                              games_komi_0=komi_sql(scope.games, 0), games_komi_1=komi_sql(scope.games, 1))
    return f"SELECT * FROM {scope.materialize('decided', sql)}"


def decisiveness(scope: Scope) -> list[dict]:
    if not available(scope):
        return []
    rows = scope.rows(SUMMARY_SQL.format(keys=scope.keys_sql(), per_game=per_game_sql(scope)))
    for row in rows:
        put(row, "early", share(row.pop("early"), row["games"]))
        put(row, "last", share(row.pop("last"), row["games"]))
    return rows
