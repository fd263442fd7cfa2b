"""Which games of which runs may be rated together (``polsim ratings RUN…``).

A tournament rates one run. The same round robin on another run seed, or
``simulate`` runs of other matchups under the same rules, add games to the
same question; one Bradley–Terry fit over all of them answers it with
narrower intervals. The games must be one question, or the ratings answer
none:

- ``check_one_rule_set``: one game, and every cell of every run plays the
  rules and physics the first run's first cell plays, as the polsim that made
  each run played them (``pooling.played_under``). A rating pools strength
  across games, not across rule sets; a sweep's cells are rated one by one.
- ``players``: strategies are matched by their parameters as this polsim
  resolves them (``compare.resolve_strategy``), so ``cautious`` in one run
  and ``cautious:tunings=12`` in another are one player, named as first
  written (and a note says so). A strategy this polsim no longer knows is
  matched by its text.
- ``drop_copies``: a game seed played by the same two players in the same
  seats under one rule set is the same game, whichever run holds it. Runs of
  one run seed (given twice, a run and its copy) are refused; the games
  that two run seeds share in runs made before polsim 0.31.0 (seeding 1,
  ``rules.seeds``; at most two in the same seats) are counted once.
- ``package_note``: the runs may come from several polsim versions (the
  physics and rules are checked; a strategy's code is not), and a note names
  them.
- ``check_connected``: every player must be linked to every other through
  games played. Two groups that never met share no scale: their ratings
  would be set by the virtual draws alone.

Pooling assumes the runs measure one set of strengths. ``by_run_rows`` rates
each run on its own, shifted so that its players' mean is their pooled mean
(the runs' scales then meet where they overlap), and ``agreement_note``
tests the assumption (``stats.ratings_agreement``, a likelihood-ratio test).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
from scipy.sparse.csgraph import connected_components

from pipelines import manifest as mf
from pipelines.compare import knob_changes, resolve_strategy
from pipelines.pooling import played_under
from pipelines.stats.ratings import Ratings, bradley_terry
from pipelines.stats.ratings_agreement import same_ratings
from rules.base import UsageError, get_game
from rules.seeds import SEEDING_1_SHARES


def check_one_rule_set(uris: Sequence[str], manifests: Sequence[dict]) -> str:
    """The game every run plays; ``UsageError`` naming the first run or cell whose rules differ from the first."""
    exps = [mf.experiment_of(m) for m in manifests]
    game = exps[0].game
    for uri, exp in zip(uris, exps):
        if exp.game != game:
            raise UsageError(f"{uri} plays {exp.game}, {uris[0]} {game}: rate the strategies of one game")
    first: dict | None = None
    for uri, manifest in zip(uris, manifests):
        try:
            cells = played_under(manifest)
        except UsageError as exc:
            raise UsageError(f"the rules of {uri} could not be resolved to check the runs share them ({exc})") from None
        rules = cells[0][1]
        for cell_no, (label, other) in enumerate(cells[1:], start=1):
            if other != rules:
                raise UsageError(f"cell {cell_no} ({label}) of {uri} plays other rules than its cell 0 "
                                 f"({knob_changes(rules, other)}): ratings pool games of one rule set, and a "
                                 "sweep's cells each play their own")
        if first is None:
            first = rules
        elif rules != first:
            raise UsageError(f"{uri} plays other rules or physics than {uris[0]} ({knob_changes(first, rules)}): "
                             "ratings pool games of one rule set; give runs of one rule set")
    return game


def _key(game, text: str) -> str:
    spec, params = resolve_strategy(game, text)
    return str(spec) if params is None else json.dumps([spec.name, params], sort_keys=True)


def players(game_name: str, manifests: Sequence[dict]) -> tuple[list[str], dict[str, int], list[str]]:
    """(player names in the order first written, stored strategy text -> player index, notes)."""
    game = get_game(game_name)
    names: list[str] = []
    keys: dict[str, int] = {}
    index: dict[str, int] = {}
    for manifest in manifests:
        for cell in mf.experiment_of(manifest).cells:
            for text in cell.matchup:
                if text in index:
                    continue
                key = _key(game, text)
                if key not in keys:
                    keys[key] = len(names)
                    names.append(text)
                index[text] = keys[key]
    merged = [f"{' and '.join(sorted(t for t, i in index.items() if i == k))} are one strategy (the same "
              f"parameters), rated as {names[k]}" for k in range(len(names)) if list(index.values()).count(k) > 1]
    return names, index, merged


def register_players(con, index: dict[str, int]) -> None:
    """Table ``player(text, no)``: each stored strategy text and its player."""
    con.execute("CREATE OR REPLACE TEMP TABLE player (text VARCHAR, no INTEGER)")
    con.executemany("INSERT INTO player VALUES (?, ?)", list(index.items()))


COPIES_SQL = """
WITH keyed AS (
  SELECT g.run_no, g.game_index, g.game_seed, g.strategy_0, g.strategy_1,
         min(g.run_no) OVER (PARTITION BY g.game_seed, a.no, b.no) AS first_run,
         row_number() OVER (PARTITION BY g.game_seed, a.no, b.no ORDER BY g.run_no, g.game_index) AS copy
  FROM games g JOIN player a ON g.strategy_0 = a.text JOIN player b ON g.strategy_1 = b.text
)
SELECT first_run, run_no, game_index, game_seed, strategy_0, strategy_1 FROM keyed WHERE copy > 1
ORDER BY run_no, game_index
"""


def drop_copies(con, uris: Sequence[str], manifests: Sequence[dict], index: dict[str, int]) -> list[str]:
    """View ``rated_seats``: ``seats`` with every game counted once, and a note on the copies left out.

    A game seed played by the same players in the same seats under one rule set is one game. Two
    runs of one run seed and seeding hold all their games in common: ``UsageError``. Runs made before
    polsim 0.31.0 (seeding 1) of two run seeds share up to two (``rules.seeds``): the later run's copy
    is left out, and a note says how many."""
    register_players(con, index)
    copies = con.execute(COPIES_SQL).fetchall()
    exps = [mf.experiment_of(m) for m in manifests]
    for first, run, _, seed, s0, s1 in copies:
        if (exps[first].seed, exps[first].seeding) == (exps[run].seed, exps[run].seeding):
            raise UsageError(f"{uris[first]} and {uris[run]} both hold the game of seed {seed} with {s0} in seat 0 "
                             f"and {s1} in seat 1 (both play run seed {exps[run].seed}): it would count twice; "
                             "rate runs of other run seeds")
    con.execute("CREATE OR REPLACE TEMP TABLE copies (run_no SMALLINT, game_index BIGINT)")
    if copies:
        con.executemany("INSERT INTO copies VALUES (?, ?)", [(run, game) for _, run, game, *_ in copies])
    con.execute("CREATE OR REPLACE VIEW rated_seats AS SELECT * FROM seats s "
                "WHERE NOT EXISTS (SELECT 1 FROM copies c WHERE c.run_no = s.run_no AND c.game_index = s.game_index)")
    if not copies:
        return []
    return [f"{len(copies)} games held by two runs are counted once: {SEEDING_1_SHARES}"]


def package_note(manifests: Sequence[dict]) -> list[str]:
    """A note when the runs were made by several polsim versions: a strategy is one player across them."""
    made = sorted({str(m.get("package_version") or "unknown") for m in manifests})
    if len(made) < 2:
        return []
    return [f"the runs were made by polsim {', '.join(made)}: each strategy is rated as one player across them, "
            "so a change to its play between those versions is averaged over"]


def check_connected(names: Sequence[str], games: np.ndarray) -> None:
    """``UsageError`` when the players split into groups that never played each other (``games`` [n, n])."""
    count, label = connected_components(games > 0, directed=False)
    if count > 1:
        groups = [[n for n, g in zip(names, label) if g == c] for c in range(count)]
        listed = " | ".join(", ".join(group) for group in groups)
        raise UsageError(f"the players fall into {count} groups that never played each other ({listed}): their "
                         "ratings share no scale; add a run whose games pit the groups against each other")


def run_label(seeds: Sequence[int], run: int) -> str:
    """``seed 20``, or ``run 2 (seed 20)`` when another run has that seed too."""
    return f"seed {seeds[run]}" if seeds.count(seeds[run]) == 1 else f"run {run + 1} (seed {seeds[run]})"


def ratings_or_prior(wins: np.ndarray, draws: np.ndarray, names: tuple[str, ...],
                     level: float) -> tuple[Ratings, bool]:
    """Bradley–Terry ratings; with one virtual draw per pairing (True) when the maximum-likelihood ones are
    infinite (some player never scored against another group)."""
    try:
        return bradley_terry(wins, draws, names, level=level), False
    except ValueError:
        return bradley_terry(wins, draws, names, level=level, prior_draws=1.0), True


def by_run_rows(pooled: Ratings, wins: np.ndarray, draws: np.ndarray,
                seeds: Sequence[int]) -> tuple[list[dict], list[str]]:
    """Each strategy's rating in each run ([runs, n, n] tables), best pooled first, and notes on runs rated
    with virtual draws or not at all (players not all linked within the run)."""
    rows, notes, prior = [], [], []
    order = np.argsort(-pooled.elo, kind="stable")
    fits: dict[int, tuple[np.ndarray, Ratings, float]] = {}
    for run in range(wins.shape[0]):
        games = wins[run] + wins[run].T + draws[run]
        active = np.flatnonzero(games.sum(axis=1) > 0)
        if len(active) < 2:
            continue
        if connected_components(games[np.ix_(active, active)] > 0, directed=False)[0] > 1:
            notes.append(f"{run_label(seeds, run)} is not rated on its own: its players are not all linked by "
                         "its games")
            continue
        names = tuple(pooled.names[i] for i in active)
        own, virtual = ratings_or_prior(wins[run][np.ix_(active, active)], draws[run][np.ix_(active, active)],
                                    names, pooled.level)
        if virtual:
            prior.append(run_label(seeds, run))
        fits[run] = (active, own, float(pooled.elo[active].mean()))
    for i in order:
        for run, (active, own, shift) in fits.items():
            if i not in active:
                continue
            ci = own.interval(int(np.flatnonzero(active == i)[0]))
            rows.append({"strategy": pooled.names[i], "run": run + 1, "run_seed": seeds[run],
                         "label": run_label(seeds, run), "elo": ci.estimate + shift, "elo_lo": ci.low + shift,
                         "elo_hi": ci.high + shift, "games": int(wins[run][i].sum() + wins[run][:, i].sum()
                                                                  + draws[run][i].sum())})
    if prior:
        notes.append(f"{', '.join(prior)} rated on {'their' if len(prior) > 1 else 'its'} own with one virtual "
                     "draw per pairing: some strategy never scored against another group there")
    return rows, notes


def agreement_note(wins: np.ndarray, draws: np.ndarray, seeds: Sequence[int]) -> str:
    """Whether the runs ([runs, n, n] tables) share one set of ratings, in words."""
    test = same_ratings(list(zip(wins, draws)))
    if test.p is None:
        reason = (f"in {run_label(seeds, test.group)} some strategy never scored against the others, so its own "
                  "ratings are infinite" if test.group is not None else test.reason)
        return f"whether the runs share one set of ratings is not tested: {reason}"
    said = (f"one set of ratings for every run: likelihood-ratio test p = {test.p:.2g} "
            f"(chi-square {test.statistic:.1f} on {test.df} df)")
    if test.p < 0.05:
        return (f"{said}: the runs differ more than chance allows, and the pooled ratings average over them; "
                "by_run shows each run's")
    return said
