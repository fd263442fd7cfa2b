"""Score-game measures, written for Polar (RULES.md P1-P7); each skips itself
when the runs lack its columns.

- ``margins``: the final score margin |total_0 - total_1| of finished games
  (any game with scores; a seat's total is its score plus the komi when it
  plays White, ``dataset.komi_sql``, as the winner is read) — mean with
  interval, quantiles; plus seat 0's signed margin total_0 - total_1 with
  its interval (a seat edge on points).
- ``passes``: forced passes per game (``n_passes``, the two final passes of
  P5 included) and the share of games with a pass before the end
  (``n_passes > 2``).
- ``swap``: the swap rule (P2). Seat 0 proposes the opening, seat 1 chooses
  a colour (``chooser_colour``). Per proposer × chooser strategy and pick:
  how often the chooser takes that colour, and how often the chooser then
  wins — with Wilson intervals. Games played with the swap rule off
  (``rule_swap`` false: seat 1 plays white, no choice made) are one row per
  pair with the pick ``NO_CHOICE`` and no rates.
- ``colours``: win/draw/loss per colour played (black / white), from the
  seats view with ``colour_0`` (seat 1 has the other colour).
- ``komi``: Black's board margin (``black_score - white_score``: the komi is
  not in the scores) with its interval, and the fair komi read from the
  margins (``pipelines.stats.komi``): the half-point komi that would give
  Black half the wins, with the stretch of komi a sign test cannot tell from
  fair (``fair_komi_evens`` false: no half-point komi gets there, one margin
  value holding too many games). One row per group and komi played.
  ``players_see_komi`` is true when a seat searches for the win (MCTS),
  whose moves change with the komi: there the fair komi is a first estimate
  to confirm with ``--set komi=...`` (a searching Black plays for a larger
  lead against a komi); for random and greedy players it is what such a run
  gives.
"""

from __future__ import annotations

from pipelines.balance_measures import outcomes, put, put_group_shares, share
from pipelines.dataset import komi_sql
from pipelines.distribution import describe
from pipelines.scope import Scope
from pipelines.stats.komi import fair_komi

NO_CHOICE = "none: swap off"

SWAP_SQL = """
SELECT * EXCLUDE (chose), sum(games) OVER (PARTITION BY {keys} proposer, chooser, chose) AS pair_games
FROM (
  SELECT {keys} strategy_0 AS proposer, strategy_1 AS chooser, {chose} AS chose,
         CASE WHEN {chose} THEN chooser_colour ELSE '{no_choice}' END AS pick,
         count(*) AS games,
         count(*) FILTER (WHERE winner = 1) AS chooser_wins,
         count(*) FILTER (WHERE winner = -1) AS draws
  FROM games WHERE status = 'ok' AND winner IS NOT NULL {where}
  GROUP BY ALL
) ORDER BY ALL
"""

MARGIN_COUNTS_SQL = """
SELECT {keys} CAST(black_score - white_score AS BIGINT) AS margin, count(*) AS games
FROM {rows} GROUP BY ALL ORDER BY ALL
"""
KOMI_KEYS = '"komi", "players_see_komi", '
# strategies whose moves change with the komi (they search for the win); named here, not read from
# rules.polar.strategies, whose import starts numba (~1 s more for every ``polsim analyze``)
KOMI_AWARE = ("mcts",)

COLOUR_OF_SEAT = "CASE WHEN seat = 0 THEN colour_0 WHEN colour_0 = 'black' THEN 'white' ELSE 'black' END"


def finished_games(scope: Scope) -> str:
    return f"games WHERE status = 'ok' {scope.where_sql}"


def margins(scope: Scope) -> list[dict]:
    if not scope.has("score_0", "score_1", "status"):
        return []
    total_0, total_1 = (f"(score_{s} + {komi_sql(scope.games, s)})" for s in (0, 1))  # White's komi in
    rows = describe(scope, f"abs({total_1} - {total_0})", finished_games(scope), scope.keys_sql())
    signed = describe(scope, f"{total_0} - {total_1}", finished_games(scope), scope.keys_sql())
    signed = scope.by_group(signed)
    for row in rows:
        s = signed[scope.group_of(row)]
        row.update(seat0_margin=s["mean"], seat0_margin_lo=s["mean_lo"], seat0_margin_hi=s["mean_hi"])
    return rows


def passes(scope: Scope) -> list[dict]:
    if not scope.has("n_passes", "status"):
        return []
    rows = describe(scope, "n_passes", finished_games(scope), scope.keys_sql())
    early = scope.rows(
        f"SELECT {scope.keys_sql()} count(*) FILTER (WHERE n_passes > 2) AS k, count(n_passes) AS n "
        f"FROM {finished_games(scope)} GROUP BY ALL ORDER BY ALL"
    )
    return put_group_shares(scope, rows, "early_pass", early)


def swap(scope: Scope) -> list[dict]:
    if not scope.has("chooser_colour", "strategy_0", "strategy_1", "winner"):
        return []
    chose = "coalesce(rule_swap, true)" if scope.has("rule_swap") else "true"
    rows = scope.rows(SWAP_SQL.format(keys=scope.keys_sql(), where=scope.where_sql, chose=chose, no_choice=NO_CHOICE))
    for row in rows:
        chose = row["pick"] != NO_CHOICE
        put(row, "pick", share(row["games"], row["pair_games"]) if chose else None)
        put(row, "chooser_win", share(row["chooser_wins"], row["games"]) if chose else None)
    return rows


def colours(scope: Scope) -> list[dict]:
    if not scope.has("colour_0"):
        return []
    return outcomes(scope, ["colour"], {"colour": COLOUR_OF_SEAT})


def scored_games(scope: Scope, extra: str = "") -> str:
    """A FROM body: the finished games that have both colours' scores, with ``extra`` columns
    (``, expression AS name`` ...)."""
    return (f"(SELECT *{extra} FROM games WHERE status = 'ok' AND black_score IS NOT NULL "
            f"AND white_score IS NOT NULL {scope.where_sql}) scored")


def black_margin_counts(scope: Scope, rows: str | None = None, keys: str = "") -> list[dict]:
    """Games per group (and ``keys`` of ``rows``) and board margin ``black_score - white_score``
    (whole numbers), margins ascending within a group; ``rows`` defaults to ``scored_games``."""
    return scope.rows(MARGIN_COUNTS_SQL.format(keys=scope.keys_sql() + keys, rows=rows or scored_games(scope)))


def komi(scope: Scope) -> list[dict]:
    if not scope.has("black_score", "white_score", "status", "strategy_0", "strategy_1"):
        return []
    played = "CAST(coalesce(rule_komi, 0) AS DOUBLE)" if scope.has("rule_komi") else "CAST(0 AS DOUBLE)"
    sees = " OR ".join(f"split_part(strategy_{seat}, ':', 1) = '{name}'" for seat in (0, 1) for name in KOMI_AWARE)
    rows_sql = scored_games(scope, f", {played} AS komi, ({sees}) AS players_see_komi")
    names = [*scope.game_keys(), "komi", "players_see_komi"]
    margins: dict[tuple, list[tuple[int, int]]] = {}
    for r in black_margin_counts(scope, rows_sql, KOMI_KEYS):
        margins.setdefault(tuple(r[k] for k in names), []).append((r["margin"], r["games"]))
    rows = []
    for d in describe(scope, "black_score - white_score", rows_sql, scope.keys_sql() + KOMI_KEYS):
        fair = fair_komi(*zip(*margins[tuple(d[k] for k in names)]))
        row = {k: d[k] for k in names}
        row.update(games=d["n"], black_margin=d["mean"], black_margin_lo=d["mean_lo"], black_margin_hi=d["mean_hi"],
                   fair_komi=fair.fair, fair_komi_lo=fair.lo, fair_komi_hi=fair.hi, fair_komi_evens=fair.evens)
        put(row, "black_win_at_fair", share(fair.black_wins, fair.games))
        rows.append(row)
    return rows
