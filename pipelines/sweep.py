"""Variant sweeps: every combination of knob values as one run, and which
combination is the most balanced.

- ``sweep_experiment(...)``: ``--set key=v1,v2`` items into an Experiment
  with one cell per combination (itertools.product, in the order given), one
  matchup, the same seeds in every cell.
- ``sweep_report(run)``: per cell — games, seat wins, draws, first-player
  advantage (seat 0's score rate - 1/2) and balance score, both with 95 %
  intervals (``stats.balance``), mean game length, failed games; then the
  most balanced cell (highest balance estimate) and the cells that cannot be
  told apart from it (``stats.balance_ranking``: paired bootstrap over the
  shared seeds, one family over all pairs of cells, so picking the best from
  the same data is allowed for; seeded by the run seed).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pipelines import manifest as mf
from pipelines.dataset import columns, open_runs
from pipelines.play_turns import play_turns_sql
from pipelines.spec import Cell, Experiment, grid_shard_size, make_experiment, parse_sets, validate
from pipelines.stats.balance import balance, first_player_advantage
from pipelines.stats.balance_ranking import balance_gaps
from pipelines.stats.interval import Interval
from pipelines.stats.tally import Tally
from rules.base import StrategySpec, UsageError, get_game


def sweep_experiment(game: str, variant: str | None, strategies: list[str], sets: list[str], games: int,
                     seed: int, shard_size: int | None) -> Experiment:
    """One cell per combination of the ``--set`` values."""
    if len(strategies) != 2:
        raise UsageError(f"--strategies takes two strategies, A,B (got {len(strategies)})")
    grid = parse_sets(sets)
    if not grid:
        raise UsageError("a sweep needs at least one --set key=v1,v2 (e.g. --set foundations=3,5,7)")
    for key, values in grid.items():
        if len(set(map(repr, values))) != len(values):
            raise UsageError(f"--set {key} repeats a value; give each value once")
    game_def = get_game(game)
    matchup = tuple(str(StrategySpec.parse(s)) for s in strategies)
    keys = list(grid)
    cells = tuple(Cell(overrides=dict(zip(keys, combo)), matchup=matchup)
                  for combo in itertools.product(*(grid[k] for k in keys)))
    exp = make_experiment(game_def, variant, cells, games, seed, grid_shard_size(game_def, shard_size, cells))
    validate(exp)
    return exp


CELL_SQL = """
SELECT cell,
       count(*) FILTER (WHERE ok) AS games,
       count(*) FILTER (WHERE ok AND winner = 0) AS seat0_wins,
       count(*) FILTER (WHERE ok AND winner = 1) AS seat1_wins,
       count(*) FILTER (WHERE ok AND winner = -1) AS draws,
       avg({play_turns}) FILTER (WHERE ok) AS mean_turns,
       count(*) FILTER (WHERE NOT ok) AS failed
FROM (SELECT *, coalesce(status = 'ok' AND winner IS NOT NULL, false) AS ok FROM games)
GROUP BY cell ORDER BY cell
"""

SEEDS_SQL = """
SELECT cell, seed_index, CASE winner WHEN 0 THEN 1.0 WHEN -1 THEN 0.5 ELSE 0.0 END AS seat0
FROM games WHERE status = 'ok' AND winner IS NOT NULL
"""


@dataclass
class SweepReport:
    cells: list[dict]
    best: int
    best_balance: Interval
    ties: list[int]  # cells that cannot be told apart from the best (best excluded)
    gaps: list[Interval]
    notes: list[str] = field(default_factory=list)

    def conclusion(self) -> str:
        b = self.best_balance
        head = (f"most balanced: cell {self.best} ({self.cells[self.best]['knobs']}), balance {b.estimate:.3f} "
                f"[{b.low:.3f}, {b.high:.3f}]")
        if sum(1 for cell in self.cells if cell["games"]) < 2:
            return head + "; the only cell with finished games, so nothing to rank it against"
        if not self.ties:
            return head + "; better than every other cell (paired bootstrap, 95 % family-wise)"
        others = "; ".join(f"cell {c} ({self.cells[c]['knobs']})" for c in self.ties)
        return head + f"; cannot be told apart from: {others} (paired bootstrap, 95 % family-wise)"


def _knobs(cell: Cell) -> str:
    return ", ".join(f"{k}={v}" for k, v in cell.overrides.items()) or "(variant)"


def _cell_row(number: int, cell: Cell, counts: dict, level: float) -> dict:
    row: dict[str, Any] = {"cell": number, "knobs": _knobs(cell),
                           **{f"rule_{k}": v for k, v in cell.overrides.items()}}
    n = counts.get("games", 0)
    row.update(games=n, seat0_wins=counts.get("seat0_wins", 0), seat1_wins=counts.get("seat1_wins", 0),
               draws=counts.get("draws", 0), draw_share=(counts.get("draws", 0) / n) if n else None,
               mean_turns=counts.get("mean_turns"), failed=counts.get("failed", 0))
    if n:
        fpa = first_player_advantage(row["seat0_wins"], row["draws"], row["seat1_wins"], level)
        bal = balance([row["seat0_wins"], row["seat1_wins"]], row["draws"], level)
        Tally.of(row["seat0_wins"], row["draws"], row["seat1_wins"])  # invariant checked where read
        row.update(first_player_adv=fpa.estimate, fpa_lo=fpa.low, fpa_hi=fpa.high,
                   balance=bal.estimate, balance_lo=bal.low, balance_hi=bal.high)
    return row


def sweep_report(run: str, level: float = 0.95, n_boot: int = 2000) -> SweepReport:
    con, (manifest,) = open_runs([run])
    exp = mf.experiment_of(manifest)
    cur = con.execute(CELL_SQL.format(play_turns=play_turns_sql(columns(con, "games"))))
    names = [d[0] for d in cur.description]
    by_cell = {r[0]: dict(zip(names, r)) for r in cur.fetchall()}
    rows = [_cell_row(c, cell, by_cell.get(c, {}), level) for c, cell in enumerate(exp.cells)]
    played = [r["cell"] for r in rows if r["games"]]
    if not played:
        raise UsageError(f"{run} has no finished games with a result; nothing to rank")
    seeds = con.execute(SEEDS_SQL).fetchnumpy()
    seat0 = np.full((len(exp.cells), exp.games), np.nan)
    seat0[seeds["cell"].astype(int), seeds["seed_index"].astype(int)] = seeds["seat0"]
    sub = seat0[played]
    estimates = [rows[c]["balance"] for c in played]
    best_pos = int(np.argmax(estimates))
    gaps_sub = balance_gaps(sub, best_pos, level, seed=exp.seed, n_boot=n_boot)
    gaps = [Interval(0.0, 0.0, 0.0, level)] * len(exp.cells)
    for pos, c in enumerate(played):
        gaps[c] = gaps_sub[pos]
    best = played[best_pos]
    ties = [c for pos, c in enumerate(played) if c != best and gaps_sub[pos].low <= 0.0]
    for c in played:
        rows[c].update(gap_to_best=gaps[c].estimate, gap_lo=gaps[c].low, gap_hi=gaps[c].high)
    notes = [f"cell {r['cell']} ({r['knobs']}) has no finished games" for r in rows if not r["games"]]
    notes += [f"cell {r['cell']}: {r['failed']} games failed or have no result" for r in rows if r["failed"]]
    best_row = rows[best]
    best_interval = Interval(best_row["balance"], best_row["balance_lo"], best_row["balance_hi"], level)
    return SweepReport(rows, best, best_interval, ties, gaps, notes)
