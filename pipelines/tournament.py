"""Round-robin tournaments among named strategies, rated on the Elo scale.

- ``tournament_experiment(...)``: one cell per pairing (i < j) of the given
  strategies (each with its parameters, e.g. ``mcts:playouts=100``); every
  pairing plays the same ``games`` seeds and each strategy sits in each seat
  in half of them (seed-index parity, ``pipelines.spec``).
- ``tournament_report(run)``:
  * ``cross``: the cross-table, row strategy's score rate against each column
    strategy (draws as half) with wins-draws-losses;
  * ``pairs``: per pairing — games, wins/draws/losses of the first, its score
    rate and Elo difference with 95 % intervals (``ratings.elo_from_score``);
  * ``ratings``: Bradley–Terry ratings on the Elo scale, mean 0, with 95 %
    intervals (``ratings.bradley_terry``). When some strategy never scored
    against another group (the maximum-likelihood ratings are infinite) the
    fit is repeated with one virtual draw per pairing, and a note says so.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from pipelines import manifest as mf
from pipelines.dataset import open_runs
from pipelines.spec import Cell, Experiment, grid_shard_size, make_experiment, validate
from pipelines.stats.proportion import score_rate
from pipelines.stats.ratings import Ratings, bradley_terry, elo_from_score
from pipelines.stats.tally import Tally
from rules.base import StrategySpec, UsageError, get_game

PAIR_SQL = """
SELECT strategy, opponent,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'draw') AS draws,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       count(*) FILTER (WHERE result IS NULL) AS failed
FROM seats GROUP BY ALL
"""


def tournament_experiment(game: str, variant: str | None, strategies: list[str], sets: dict, games: int,
                          seed: int, shard_size: int | None) -> Experiment:
    """One cell per pairing of distinct strategies, the same knobs and seeds for all."""
    names = [str(StrategySpec.parse(s)) for s in strategies]
    game_def = get_game(game)
    if len(names) < 2:
        example = ",".join(sorted(game_def.strategies)[:3])
        raise UsageError(f"a tournament needs at least two strategies (got {len(names)}); e.g. -s {example}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UsageError(f"strategy {repeated[0]} is listed twice; give each strategy (with its parameters) once")
    cells = tuple(Cell(overrides=dict(sets), matchup=(a, b)) for a, b in itertools.combinations(names, 2))
    exp = make_experiment(game_def, variant, cells, games, seed, grid_shard_size(game_def, shard_size, cells))
    validate(exp)
    return exp


def strategies_of(exp: Experiment) -> list[str]:
    """Players in the order first named."""
    out: list[str] = []
    for cell in exp.cells:
        for name in cell.matchup:
            if name not in out:
                out.append(name)
    return out


@dataclass
class TournamentReport:
    names: list[str]
    wins: np.ndarray  # [n, n] games row beat column
    draws: np.ndarray  # [n, n] symmetric
    ratings: Ratings
    cross: list[dict]
    pairs: list[dict]
    table: list[dict]  # ratings rows, best first
    notes: list[str] = field(default_factory=list)


def cross_table(con, names: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """(wins [n, n], draws [n, n], failed games) from the ``seats`` view."""
    index = {n: i for i, n in enumerate(names)}
    n = len(names)
    wins, draws, losses = (np.zeros((n, n), dtype=np.int64) for _ in range(3))
    failed = 0
    for strategy, opponent, w, d, lo, f in con.execute(PAIR_SQL).fetchall():
        i, j = index[strategy], index[opponent]
        wins[i, j] += w
        draws[i, j] += d
        losses[i, j] += lo
        failed += f
    if not np.array_equal(wins, losses.T) or not np.array_equal(draws, draws.T):
        raise ValueError("cross-table invariant broken: i's wins against j must be j's losses against i")
    return wins, draws, failed // 2


def _fit(wins: np.ndarray, draws: np.ndarray, names: list[str], level: float) -> tuple[Ratings, list[str]]:
    try:
        return bradley_terry(wins, draws, names, level=level), []
    except ValueError:
        note = ("some strategy never scored against another group, so maximum-likelihood ratings are infinite; "
                "rated with one virtual draw per pairing (ratings pulled towards each other)")
        return bradley_terry(wins, draws, names, level=level, prior_draws=1.0), [note]


def _pair_row(a: str, b: str, tally: Tally, level: float) -> dict:
    score = score_rate(tally, level)
    elo = elo_from_score(tally, level)
    return {"strategy": a, "opponent": b, "games": tally.games, "wins": tally.wins, "draws": tally.draws,
            "losses": tally.losses, "score_rate": score.estimate, "score_lo": score.low, "score_hi": score.high,
            "elo_diff": elo.estimate, "elo_lo": elo.low, "elo_hi": elo.high}


def tournament_report(run: str, level: float = 0.95) -> TournamentReport:
    con, (manifest,) = open_runs([run])
    exp = mf.experiment_of(manifest)
    names = strategies_of(exp)
    wins, draws, failed = cross_table(con, names)
    if int(wins.sum() + draws.sum() // 2) == 0:
        raise UsageError(f"{run} has no finished games with a result; nothing to rate")
    ratings, notes = _fit(wins, draws, names, level)
    if failed:
        notes.append(f"{failed} games failed or have no result and are left out")
    cross, pairs = [], []
    for i, a in enumerate(names):
        row = {"strategy": a}
        for j, b in enumerate(names):
            if i == j:
                row[b] = "—"
                continue
            t = Tally.of(int(wins[i, j]), int(draws[i, j]), int(wins[j, i]))
            row[b] = f"{100 * t.score:.1f} % ({t.wins}-{t.draws}-{t.losses})" if t.games else "no games"
            if i < j and t.games:
                pairs.append(_pair_row(a, b, t, level))
        cross.append(row)
    table = []
    for i in np.argsort(-ratings.elo, kind="stable"):
        ci = ratings.interval(int(i))
        t = Tally.of(int(wins[i].sum()), int(draws[i].sum()), int(wins[:, i].sum()))
        table.append({"rank": len(table) + 1, "strategy": names[i], "elo": ci.estimate, "elo_lo": ci.low,
                      "elo_hi": ci.high, "games": t.games, "score_rate": t.score if t.games else None})
    return TournamentReport(names, wins, draws, ratings, cross, pairs, table, notes)
