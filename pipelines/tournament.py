"""Round-robin tournaments among named strategies, rated on the Elo scale.

- ``tournament_experiment(...)``: one cell per pairing (i < j) of the given
  strategies (each with its parameters, e.g. ``mcts:playouts=100``); every
  pairing plays the same ``games`` seeds and each strategy sits in each seat
  in half of them (seed-index parity, ``pipelines.spec``).
- ``rate_runs(runs)``: the same tables from the games of one or more finished
  runs — one tournament, or the same round robin on several run seeds, or
  ``simulate`` runs of other matchups under one rule set
  (``pipelines.rating_pool`` says which runs may be pooled);
  ``tournament_report(run)`` is the one-run case:
  * ``cross``: the cross-table, row strategy's score rate against each column
    strategy (draws as half) with wins-draws-losses;
  * ``pairs``: per pairing — games, wins/draws/losses of the first, its score
    rate and Elo difference with 95 % intervals (``ratings.elo_from_score``);
  * ``ratings``: Bradley–Terry ratings on the Elo scale, mean 0, with 95 %
    intervals (``ratings.bradley_terry``). When some strategy never scored
    against another group (the maximum-likelihood ratings are infinite) the
    fit is repeated with one virtual draw per pairing, and a note says so.

Games of a strategy against itself, and failed games, are left out with a
note saying how many.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from pipelines import manifest as mf
from pipelines import rating_pool as pool
from pipelines.dataset import open_runs, stored_notes
from pipelines.spec import Cell, Experiment, grid_shard_size, make_experiment, validate
from pipelines.stats.proportion import score_rate
from pipelines.stats.ratings import Ratings, elo_from_score
from pipelines.stats.tally import Tally
from rules.base import StrategySpec, UsageError, get_game

PAIR_SQL = """
SELECT run_no, strategy, opponent,
       count(*) FILTER (WHERE result = 'win') AS wins,
       count(*) FILTER (WHERE result = 'draw') AS draws,
       count(*) FILTER (WHERE result = 'loss') AS losses,
       count(*) FILTER (WHERE result IS NULL) AS failed
FROM rated_seats GROUP BY ALL
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
    by_run: list[dict] = field(default_factory=list)  # each strategy's rating in each run, when several


def cross_tables(con, index: dict[str, int], n: int, runs: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(wins [runs, n, n], draws [runs, n, n], failed games, self-play games) from the ``rated_seats`` view,
    each stored strategy text counted as its player ``index[text]``, each run apart."""
    wins, draws, losses = (np.zeros((runs, n, n), dtype=np.int64) for _ in range(3))
    failed = mirrored = 0
    for run, strategy, opponent, w, d, lo, f in con.execute(PAIR_SQL).fetchall():
        i, j = index[strategy], index[opponent]
        if i == j:
            mirrored += w + d + lo + f
            continue
        wins[run, i, j] += w
        draws[run, i, j] += d
        losses[run, i, j] += lo
        failed += f
    if not np.array_equal(wins, losses.transpose(0, 2, 1)) or not np.array_equal(draws, draws.transpose(0, 2, 1)):
        raise ValueError("cross-table invariant broken: i's wins against j must be j's losses against i")
    return wins, draws, failed // 2, mirrored // 2


def _fit(wins: np.ndarray, draws: np.ndarray, names: list[str], level: float) -> tuple[Ratings, list[str]]:
    ratings, virtual = pool.ratings_or_prior(wins, draws, tuple(names), level)
    note = ("some strategy never scored against another group, so maximum-likelihood ratings are infinite; "
            "rated with one virtual draw per pairing (ratings pulled towards each other)")
    return ratings, [note] if virtual else []


def _pair_row(a: str, b: str, tally: Tally, level: float) -> dict:
    score = score_rate(tally, level)
    elo = elo_from_score(tally, level)
    return {"strategy": a, "opponent": b, "games": tally.games, "wins": tally.wins, "draws": tally.draws,
            "losses": tally.losses, "score_rate": score.estimate, "score_lo": score.low, "score_hi": score.high,
            "elo_diff": elo.estimate, "elo_lo": elo.low, "elo_hi": elo.high}


def tournament_report(run: str, level: float = 0.95) -> TournamentReport:
    return rate_runs([run], level)


def rate_runs(uris: Sequence[str], level: float = 0.95) -> TournamentReport:
    """Cross-table, pairings and ratings from every game of ``uris`` (one rule set, each game once)."""
    con, manifests = open_runs(list(uris))
    game = pool.check_one_rule_set(uris, manifests)
    names, index, notes = pool.players(game, manifests)
    seeds = [mf.experiment_of(m).seed for m in manifests]
    notes += pool.drop_copies(con, uris, manifests, index)
    notes += pool.package_note(manifests)
    if len(uris) > 1:
        notes.insert(0, f"rated the games of {len(uris)} runs together (run seeds {', '.join(map(str, seeds))})")
    notes += stored_notes(con, list(uris), manifests)
    run_wins, run_draws, failed, mirrored = cross_tables(con, index, len(names), len(uris))
    wins, draws = run_wins.sum(axis=0), run_draws.sum(axis=0)
    what = "the runs have" if len(uris) > 1 else f"{uris[0]} has"
    if len(names) < 2:
        raise UsageError(f"{what} games of one strategy only ({names[0]}); ratings need two or more")
    if int(wins.sum() + draws.sum() // 2) == 0:
        raise UsageError(f"{what} no finished games between two strategies with a result; nothing to rate")
    games = wins + wins.T + draws
    pool.check_connected(names, games)
    ratings, fit_notes = _fit(wins, draws, names, level)
    notes += fit_notes
    if failed:
        notes.append(f"{failed} games failed or have no result and are left out")
    if mirrored:
        notes.append(f"{mirrored} games of a strategy against itself say nothing of ratings and are left out")
    by_run: list[dict] = []
    if len(uris) > 1:
        by_run, run_notes = pool.by_run_rows(ratings, run_wins, run_draws, seeds)
        notes += [*run_notes, pool.agreement_note(run_wins, run_draws, seeds)]
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
    return TournamentReport(names, wins, draws, ratings, cross, pairs, table, notes, by_run)
