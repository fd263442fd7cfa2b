"""Polarity measures (RULES.md R1-R19); each skips itself (returns no rows)
when the runs lack its columns, so the same code reads older or partial runs.

Seats: 0 is White (moves first), 1 is Black.

- ``faults``: R6 fault rate per placement by kind (a-e; s, a disc separated
  from a capture; and ``any``), from
  ``turns``: the share of a phase's actions (``place``, ``capture``,
  ``convert``; ``no_move`` rows left out) whose ``fault_kinds`` list holds
  the kind, with Wilson intervals.
- ``attempts``: leaner release attempts per placement (``phase = 'place'``;
  a ``no_move`` turn, where the player had nothing to try, is no placement)
  — mean with interval, quantiles — and the share that gave up
  (``outcome = 'gave_up'``).
- ``conversions``: R7 conversions per game (both seats) and the share of
  conversion actions that succeeded (``converted`` vs ``convert_failed``).
- ``captures``: discs per capture action (R10/R12, ``captured_discs`` of
  ``phase = 'capture'`` rows).
- ``seat_ends``: per seat/colour at the end of the game — discs in the
  stack as R18 scores it (mean, share emptied; the stack the last disc
  emptied counts as empty under ``empty_stack_scoring=when_emptied``, R17,
  though that move's fault may have put discs back in it, which the turns
  table keeps), towers, discs per tower, faults, conversions,
  captures, placements, attempts; whichever of these columns exist.
- ``red_colour``: win/draw/loss by red orientation × colour.
- ``foundations``: how far each colour and strategy lays its foundations
  (R2, R3: White lays all of its own first) from the red disc's centre, in
  mm: per game and seat the mean over its foundations (``phase =
  'setup'`` turns, the intended spot), then mean with interval and
  quantiles over the games. A base near the red disc is what its
  orientation punishes (``red_losses``).
- ``red_losses``: by red orientation × colour, the games that colour lost
  to the red disc (R14 touched, R15 moved), and their share of its games
  with a Wilson interval: which colour the red disc's orientation puts at
  risk (R1's coin flip; a flat disc whose up pole is not the red disc's
  lies antiparallel to it, side by side, and is pulled toward it).
"""

from __future__ import annotations

from pipelines.balance_measures import outcomes, put, put_group_shares, share
from pipelines.distribution import describe
from pipelines.scope import Scope, quote

FAULT_NAMES = {"a": "a · discs come to touch", "b": "b · a leaner falls flat", "c": "c · a disc snaps to the hand",
               "d": "d · a foundation or tower moves", "e": "e · a disc leaves the circle",
               "r": "r · the move pushes the red disc", "s": "s · a disc comes apart from a capture"}
FAULT_KINDS = tuple(FAULT_NAMES)  # the letters of ``turns.fault_kinds`` (rules/polarity/resolve.py)
PER_SEAT = ("stack", "towers", "tower_discs", "faults", "conversions", "captures", "placements", "attempts", "gave_up")
COLOUR_OF_SEAT = "CASE WHEN seat = 0 THEN 'white' ELSE 'black' END"
RED_ENDS = {"red_touched": "touched", "red_moved": "moved"}  # end reasons of a loss to the red disc (R14, R15)

RED_LOSSES_SQL = """
SELECT {keys} count(*) AS games, {counts}
FROM (SELECT *, {colour} AS colour FROM seats) WHERE result IS NOT NULL {where}
GROUP BY ALL ORDER BY ALL
"""

ACTED = "coalesce(t.outcome, '') <> 'no_move'"  # a no_move turn had nothing to try: no action

FAULTS_SQL = """
SELECT {g_keys} t.phase, k.kind, count(*) AS actions,
       count(*) FILTER (WHERE CASE WHEN k.kind = 'any' THEN coalesce(t.fault_kinds, '') <> ''
                              ELSE list_contains(string_split(replace(coalesce(t.fault_kinds, ''), ' ', ''), ','), k.kind)
                         END) AS faults
FROM turns t JOIN {games} g USING ({join})
CROSS JOIN (VALUES {kinds}) k(kind)
WHERE t.phase IN ('place', 'capture', 'convert') AND {acted}
GROUP BY ALL ORDER BY ALL
"""

CONVERT_SQL = """
SELECT {g_keys} count(*) AS attempts, count(*) FILTER (WHERE t.outcome = 'converted') AS converted
FROM turns t JOIN {games} g USING ({join})
WHERE t.phase = 'convert' GROUP BY ALL ORDER BY ALL
"""


def turn_rows(scope: Scope, phase: str, cols: list[str], game_cols: list[str] = (), where: str = "true") -> str:
    """A FROM body: the turns of ``phase`` (and ``where``, on ``t``) with ``cols``, beside their
    game's group keys and ``game_cols`` (taken from the games side: a column both views have,
    such as ``run_id``, is not ambiguous)."""
    from_games = "".join(f"g.{quote(c)}, " for c in dict.fromkeys([*scope.game_keys(), *game_cols]))
    picked = "".join(f", t.{quote(c)}" for c in cols)
    return (f"(SELECT {from_games}t.phase{picked} FROM turns t JOIN {scope.filtered_games_sql(list(game_cols))} g "
            f"USING ({scope.join}) WHERE t.phase = '{phase}' AND {where}) turn_rows")


def faults(scope: Scope) -> list[dict]:
    if not scope.has("phase", "fault_kinds", "game_index", view="turns"):
        return []
    kinds = ", ".join(f"('{k}')" for k in (*FAULT_KINDS, "any"))
    sql = FAULTS_SQL.format(g_keys=scope.keys_sql(prefix="g."), games=scope.filtered_games_sql([]), kinds=kinds,
                            acted=ACTED, join=scope.join)
    return [put(r, "fault", share(r["faults"], r["actions"])) for r in scope.rows(sql)]


def attempts(scope: Scope) -> list[dict]:
    if not scope.has("phase", "attempts", "outcome", view="turns"):
        return []
    placements = turn_rows(scope, "place", ["attempts", "outcome"], where=ACTED)
    rows = describe(scope, "attempts", placements, scope.keys_sql())
    gave_up = scope.rows(f"SELECT {scope.keys_sql()} count(*) AS n, count(*) FILTER (WHERE outcome = 'gave_up') AS k "
                         f"FROM {placements} GROUP BY ALL ORDER BY ALL")
    return put_group_shares(scope, rows, "gave_up", gave_up)


def conversions(scope: Scope) -> list[dict]:
    if not scope.has("conversions_0", "conversions_1"):
        return []
    rows = describe(scope, "conversions_0 + conversions_1", f"games WHERE status = 'ok' {scope.where_sql}",
                    scope.keys_sql())
    if scope.has("phase", "outcome", view="turns"):
        sql = CONVERT_SQL.format(g_keys=scope.keys_sql(prefix="g."), games=scope.filtered_games_sql([]),
                                 join=scope.join)
        put_group_shares(scope, rows, "success", scope.rows(sql), k="converted", n="attempts")
    return rows


def captures(scope: Scope) -> list[dict]:
    if not scope.has("phase", "captured_discs", view="turns"):
        return []
    return describe(scope, "captured_discs", turn_rows(scope, "capture", ["captured_discs"]), scope.keys_sql())


SEAT_FOUNDATIONS_SQL = """(
SELECT {keys} {join}, CASE WHEN player = 0 THEN 'white' ELSE 'black' END AS colour,
       CASE WHEN player = 0 THEN strategy_0 ELSE strategy_1 END AS strategy,
       1000 * avg(sqrt(x * x + y * y)) AS red_distance_mm
FROM {setup} WHERE outcome = 'placed' AND x IS NOT NULL AND y IS NOT NULL
GROUP BY ALL) seat_foundations"""


def foundations(scope: Scope) -> list[dict]:
    if not scope.has("phase", "outcome", "player", "x", "y", view="turns") or not scope.has("strategy_0", "strategy_1"):
        return []
    setup = turn_rows(scope, "setup", ["player", "outcome", "x", "y"],
                      [*scope.join.split(", "), "strategy_0", "strategy_1"])
    rows_sql = SEAT_FOUNDATIONS_SQL.format(keys=scope.keys_sql(), join=scope.join, setup=setup)
    rows = describe(scope, "red_distance_mm", rows_sql, scope.keys_sql(["colour", "strategy"]))
    return [{("seats" if k == "n" else k): v for k, v in r.items()} for r in rows]


def _seat_stat_sql(scope: Scope, present: list[str]) -> str:
    keys = scope.keys_sql()
    parts = []
    for seat in (0, 1):
        cols = ", ".join(f"{quote(f'{c}_{seat}')} AS {c}" for c in present)
        parts.append(f"SELECT {keys} {seat} AS seat, {cols} FROM games WHERE status = 'ok' {scope.where_sql}")
    return " UNION ALL ".join(parts)


def seat_ends(scope: Scope) -> list[dict]:
    present = [c for c in PER_SEAT if scope.has(f"{c}_0", f"{c}_1")]
    if not present:
        return []
    means = ", ".join(f"avg({c}) AS mean_{c}" for c in present)
    extra = []
    if "stack" in present:
        extra.append("count(*) FILTER (WHERE stack = 0) AS emptied")
    if {"towers", "tower_discs"} <= set(present):
        extra.append("sum(tower_discs) / nullif(sum(towers), 0) AS discs_per_tower")
    body = _seat_stat_sql(scope, present)
    sql = (f"SELECT {scope.keys_sql()} seat, {COLOUR_OF_SEAT} AS colour, count(*) AS games, {means}"
           f"{''.join(', ' + e for e in extra)} FROM ({body}) GROUP BY ALL ORDER BY ALL")
    rows = scope.rows(sql)
    for row in rows:
        if "emptied" in row:
            put(row, "emptied", share(row.pop("emptied"), row["games"]))
    return rows


def red_colour(scope: Scope) -> list[dict]:
    if not scope.has("red_orientation"):
        return []
    return outcomes(scope, ["red_orientation", "colour"], {"colour": COLOUR_OF_SEAT})


def red_losses(scope: Scope) -> list[dict]:
    if not scope.has("red_orientation", "loser", "end_reason"):
        return []
    counts = ", ".join(f"count(*) FILTER (WHERE loser = seat AND end_reason = '{end}') AS {name}"
                       for end, name in RED_ENDS.items())
    sql = RED_LOSSES_SQL.format(keys=scope.keys_sql(["red_orientation", "colour"], seat_level=True), counts=counts,
                                colour=COLOUR_OF_SEAT, where=scope.where_sql)
    return [put(r, "lost_to_red", share(sum(r[n] for n in RED_ENDS.values()), r["games"])) for r in scope.rows(sql)]
