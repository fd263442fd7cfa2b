"""Balance measures of runs, computed by duckdb over the Parquet results.

``measure(con, by, where, groups)`` returns named tables (lists of dict
rows), gathered from the measure modules by group (``MEASURES``):

- ``outcome`` (``balance_measures``): ``strategies``, ``seats`` (seat 0
  moves first), ``strategy_seat`` — win/draw/loss, win rate and score rate
  with 95 % intervals; ``balance`` — balance score, first-player advantage,
  completion, drawishness, safety-limit share;
- ``length``: turns of play per game (``play_turns``: a Polarity game's
  foundation placements left out) — mean with interval, spread, quantiles;
- ``decisiveness`` (``decisiveness``): how early the winner takes a lead it keeps;
- ``ends``: ``end_reasons`` and ``failures``;
- ``polar`` (``measures_polar``): ``margins``, ``passes``, ``swap``, ``colours``,
  ``komi``;
  (``measures_openings``) ``opening_balance``, and ``openings`` (a row per
  opening class: in ``ON_REQUEST``, computed only when asked for by name);
- ``polarity`` (``measures_polarity``): ``faults``, ``attempts``,
  ``conversions``, ``captures``, ``seat_ends``, ``red_colour``, ``red_losses``,
  ``foundations``.

A game-specific table whose columns the runs lack is left out. ``by`` adds
grouping columns (any column of ``games``; ``seat``/``strategy``/``opponent``
for the per-seat tables; ``default_keys`` is what ``polsim analyze`` and
``polsim report`` group several runs by when no ``--by`` is given);
``where`` filters are ``column=value`` / ``column!=value`` pairs whose
values are passed to duckdb as parameters, never pasted into SQL. ``summarize`` is the short form ``polsim simulate``
prints (outcome, length, ends).

Any duckdb connection with the ``games``/``seats`` (and ``turns``) views of
``dataset.open_runs`` works; ``polsim analyze`` and ``polsim report`` use
``fastscan.open_for_analysis``, the same views read by duckdb's own Parquet
reader when the runs are on local disk.
"""

from __future__ import annotations

from typing import Callable

import duckdb

from pipelines import balance_measures as bm
from pipelines import decisiveness as dec
from pipelines import measures_openings as openings
from pipelines import measures_polar as polar
from pipelines import measures_polarity as polarity
from pipelines.scope import Scope
from pipelines.where import parse_where  # noqa: F401  (public here too)
from rules.base import UsageError

Measure = Callable[[Scope], list[dict]]

MEASURES: dict[str, dict[str, Measure]] = {
    "outcome": {
        "strategies": lambda s: bm.outcomes(s, ["strategy"]),
        "seats": lambda s: bm.outcomes(s, ["seat"]),
        "strategy_seat": lambda s: bm.outcomes(s, ["strategy", "seat"]),
        "balance": bm.balance,
    },
    "length": {"length": bm.length},
    "decisiveness": {"decisiveness": dec.decisiveness},
    "ends": {"end_reasons": bm.end_reasons, "failures": bm.failures},
    "polar": {"margins": polar.margins, "passes": polar.passes, "swap": polar.swap, "colours": polar.colours,
              "komi": polar.komi, "opening_balance": openings.opening_balance, "openings": openings.openings},
    "polarity": {
        "faults": polarity.faults, "attempts": polarity.attempts, "conversions": polarity.conversions,
        "captures": polarity.captures, "seat_ends": polarity.seat_ends, "red_colour": polarity.red_colour,
        "red_losses": polarity.red_losses, "foundations": polarity.foundations,
    },
}
ALWAYS_SHOWN = {"strategies", "seats", "strategy_seat", "balance", "length", "end_reasons", "failures"}
TABLES = {name for group in MEASURES.values() for name in group}
# long tables, computed only when named (``polsim analyze --table openings``), each offered where the
# table that reads the same columns is shown
ON_REQUEST = {"openings": "opening_balance"}
SUMMARY_GROUPS = ("outcome", "length", "ends")


def _groups(groups) -> list[str]:
    chosen = list(groups) if groups else list(MEASURES)
    for g in chosen:
        if g not in MEASURES:
            raise UsageError(f"unknown measure group {g!r}; choose from: {', '.join(MEASURES)}")
    return chosen


def measure_scope(scope: Scope, groups=None, asked=()) -> dict[str, list[dict]]:
    """The tables of ``groups``; those in ``ON_REQUEST`` only when ``asked`` names them."""
    tables = {}
    for group in _groups(groups):
        for name, fn in MEASURES[group].items():
            if name in ON_REQUEST and name not in asked:
                continue
            rows = fn(scope)
            if rows or name in ALWAYS_SHOWN:
                tables[name] = rows
    return tables


def on_request_offered(tables: dict) -> list[str]:
    """The ``ON_REQUEST`` tables that may be asked for where ``tables`` were shown: those whose
    sibling, the table that reads the same columns, is shown."""
    return [name for name, sibling in ON_REQUEST.items() if name not in tables and sibling in tables]


def measure(con: duckdb.DuckDBPyConnection, by=(), where=(), groups=None, asked=()) -> dict[str, list[dict]]:
    """Every measure of the chosen groups (default: all) over the runs in ``con``; ``asked``: see ``measure_scope``."""
    return measure_scope(Scope.of(con, by, where), groups, asked)


def left_out_note(tables: dict[str, list[dict]]) -> str | None:
    """Says how many games the per-strategy and per-seat tables leave out (failed, or no result), if any."""
    balance = tables.get("balance", [])
    games = sum(r["games"] for r in balance)
    left_out = games - sum(r["finished"] for r in balance)
    if not left_out:
        return None
    return (f"{left_out} of {games} games failed or have no result and are left out of the per-strategy and "
            f"per-seat tables (their seats are no longer split evenly); see --table failures")


def cell_keys(manifests: list[dict]) -> list[str]:
    """The ``rule_*`` columns of the knobs whose values differ between the cells of a run (a sweep's
    ``--set`` lists), so no table pools games played under different rules."""
    knobs: list[str] = []
    for m in manifests:
        cells = [c.get("overrides") or {} for c in m.get("spec", {}).get("cells", [])]
        for knob in dict.fromkeys(k for c in cells for k in c):
            if len({repr(c.get(knob)) for c in cells}) > 1 and knob not in knobs:
                knobs.append(knob)
    return [f"rule_{k}" for k in knobs]


def matchups_of(manifests: list[dict]) -> list[tuple]:
    """Every cell's matchup, run by run."""
    return [tuple(c.get("matchup", ())) for m in manifests for c in m.get("spec", {}).get("cells", [])]


def pooled_matchups(manifests: list[dict]) -> int:
    """How many matchups the most varied run's cells play (a tournament: several, which tables pool)."""
    return max((len(set(matchups_of([m]))) for m in manifests), default=0)


def self_play_note(matchups) -> str:
    """What the strategies table counts when a strategy plays itself: each game twice."""
    selves = sorted({a for a, b in matchups if a == b})
    if not selves:
        return ""
    return (f"{', '.join(selves)} {'plays itself' if len(selves) == 1 else 'play themselves'}: the strategies "
            "table counts each such game once for each seat, so twice; the seats table counts it once")


def default_keys(manifests: list[dict], by) -> list[str]:
    """``by``; else, for several runs, ``variant`` when it tells them apart, or ``run_id``, so no table pools
    them; and the knobs a run's cells set differently (``cell_keys``)."""
    if by:
        return list(by)
    keys = []
    if len(manifests) > 1:
        variants = [m.get("spec", {}).get("variant") for m in manifests]
        keys = ["variant"] if len(set(variants)) == len(variants) else ["run_id"]
    return keys + cell_keys(manifests)


def summarize(con: duckdb.DuckDBPyConnection, by=(), where=()) -> dict[str, list[dict]]:
    """Outcomes, length, end reasons and failures (what ``polsim simulate`` prints)."""
    return measure(con, by, where, SUMMARY_GROUPS)

