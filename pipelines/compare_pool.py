"""One comparison played on several run seeds, pooled: ``polsim compare B1 C1 B2 C2 …``.

A variant's answer from one run seed rests on that seed's games; the same
comparison played on another seed (the standard games of seed 20 against
three foundations on seed 20, then the same on seed 21) adds pairs to the
same test. Each baseline is paired with its own candidate exactly as two runs
are (``compare.join_runs``), and the games of every pair are then tested as
one family (``compare.verdict``), each game scored from its cell's focus side.

The pairs must be one comparison, or the pooled verdict answers no question
(``check_poolable``):

- one game, and no run seed twice: the same seed plays the same games, which
  would count twice;
- each side of every pair plays what the same side of pair 1 plays, cell by
  cell: the same rules as the polsim that made it played them
  (``spec.rules_as_played``) and the same strategies with the same parameters
  (defaults resolved, so ``cautious`` is ``cautious:tunings=12``).

The code that made the pairs may differ: each pair compares like with like,
and a note says which physics each pair was played under.

Every game counts once: in runs made before polsim 0.31.0 (seeding 1) two
run seeds share a game seed or two (``rules.seeds``), and a shared game in
the same seats is the same paired game; the later pair's copy is left out
and a note says how many (``first_copies``).

Notes every pair has are said once; the others name their pair
(``pair 2 (seed 21): …``).

What the pooled effect is made of (``PooledComparison``): each pair's own
change of the focus side's win rate, with its interval and McNemar p-value
(the pair's games alone, outside the Holm family: a look, not a verdict), and
whether the pairs agree (``pairs_agree``). If every pair has the same effect,
the games that changed winner split between "lost a win" and "gained one" in
the same proportion in every pair (the matched-pairs odds ratio is the same);
the test is the chi-square of homogeneity of that pairs × 2 table
(``stats.homogeneity``, Monte Carlo when sparse). Pairs played by other
code can differ for real; pairs played by the same code on other seeds
differ by chance alone, unless something else differs between the runs (a
machine or package that plays other games), and a small p-value then says
one pair's effect is a rare swing, or points at that difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from pipelines.compare import (Comparison, Joined, Paired, changed_games, check_alpha, compare_runs, join_runs,
                               knob_changes, outcome_test, paired_of, resolve_strategy, verdict)
from pipelines.dataset import distinct_runs
from pipelines.stats.homogeneity import Homogeneity, same_mix
from pipelines.spec import Experiment, rules_as_played
from rules.base import UsageError, get_game
from rules.seeds import SEEDING_1_SHARES

SIDES = ("baseline", "candidate")


def pairs_of(runs: Sequence[str]) -> list[tuple[str, str]]:
    """``B1 C1 B2 C2 …`` as (baseline, candidate) pairs; ``UsageError`` for an odd count."""
    if len(runs) < 2 or len(runs) % 2:
        raise UsageError(f"compare takes runs in pairs, each baseline followed by its candidate; got {len(runs)} "
                         f"run{'s' if len(runs) != 1 else ''}: give every baseline its candidate")
    return list(zip(runs[0::2], runs[1::2]))


def _seat_as_played(game, text: str):
    spec, params = resolve_strategy(game, text)
    return str(spec) if params is None else (spec.name, params)  # unknown here: its text is all there is


def _as_played(exp: Experiment, made_by: str | None) -> list[tuple[dict, tuple]]:
    """Each cell's rules and strategies as the run played them."""
    game = get_game(exp.game)
    rules = rules_as_played(game, exp, made_by)
    return [(r.model_dump(mode="json"), tuple(_seat_as_played(game, s) for s in cell.matchup))
            for r, cell in zip(rules, exp.cells)]


def _difference(first: Experiment, first_played: list, other: Experiment, other_played: list) -> str:
    """What ``other`` plays that ``first`` does not, in words; ``""`` when nothing."""
    if len(first_played) != len(other_played):
        return f"{len(other_played)} cells against {len(first_played)}"
    for i, ((rules_1, seats_1), (rules_n, seats_n)) in enumerate(zip(first_played, other_played)):
        if rules_1 != rules_n:
            return f"cell {i}'s rules {knob_changes(rules_1, rules_n)}"
        if seats_1 != seats_n:
            return (f"cell {i} plays {' vs '.join(other.cells[i].matchup)} against "
                    f"{' vs '.join(first.cells[i].matchup)}")
    return ""


def check_poolable(joined: Sequence[Joined]) -> None:
    """Raise ``UsageError`` naming the first pair that is not pair 1's comparison on another seed."""
    first = joined[0]
    seeds: dict[int, int] = {}
    for i, pair in enumerate(joined, start=1):
        exp = pair.exps[0]
        if exp.game != first.exps[0].game:
            raise UsageError(f"pair {i} plays {exp.game}, pair 1 {first.exps[0].game}: pool pairs of one game")
        if exp.seed in seeds:
            raise UsageError(f"pairs {seeds[exp.seed]} and {i} both play run seed {exp.seed}: the same games would "
                             "count twice; pool pairs of other seeds")
        seeds[exp.seed] = i
    for s, side in enumerate(SIDES):
        try:
            played = [_as_played(pair.exps[s], pair.made_by[s]) for pair in joined]
        except UsageError as exc:
            raise UsageError(f"a {side}'s rules could not be resolved to check the pairs are one comparison "
                             f"({exc})") from None
        for i, pair in enumerate(joined[1:], start=2):
            differs = _difference(first.exps[s], played[0], pair.exps[s], played[i - 1])
            if differs:
                raise UsageError(f"pair {i}'s {side} is not pair 1's on another seed ({differs}): pool only "
                                 "one comparison played on several seeds")


def pooled_notes(joined: Sequence[Joined]) -> list[str]:
    """The pooling, the notes every pair has, once, then each pair's own."""
    seeds = [pair.exps[0].seed for pair in joined]
    notes = [f"pooled {len(joined)} pairs of runs, run seeds {', '.join(map(str, seeds))}: one verdict on "
             "the games of all"]
    physics = [pair.physics for pair in joined]
    if len(set(physics)) > 1:
        made = "; ".join(f"pair {i} {' → '.join(dict.fromkeys(str(v) for v in ph))}"
                         for i, ph in enumerate(physics, start=1))
        notes.append(f"the pairs were played under other physics ({made}): each pair compares like with like")
    every = set.intersection(*(set(pair.notes) for pair in joined))
    notes += [n for n in joined[0].notes if n in every]
    for i, (pair, seed) in enumerate(zip(joined, seeds), start=1):
        notes += [f"pair {i} (seed {seed}): {n}" for n in pair.notes if n not in every]
    return notes


def first_copies(joined: Sequence[Joined], parts: Sequence[Paired]) -> np.ndarray:
    """Mask of the pooled games to keep: a game (cell, game seed, seats) that an earlier pair also holds
    is a copy. Only runs made before polsim 0.31.0 (seeding 1) hold copies: two run seeds shared a game
    seed or two (``rules.seeds``)."""
    keys = []
    for pair, part in zip(joined, parts):  # a pair's rows are its Paired's, one for one (paired_of)
        keys += list(zip(part.cell.tolist(), pair.rows["seed_a"].tolist(), (part.seed_index % 2).tolist()))
    keep = np.zeros(len(keys), dtype=bool)
    seen: set = set()
    for i, key in enumerate(keys):
        keep[i] = key not in seen
        seen.add(key)
    return keep


def pool(joined: Sequence[Joined]) -> Paired:
    """The games of every pair as one ``Paired``, with the pair each came from (``Paired.pair``), each
    game once (``first_copies``)."""
    parts = [paired_of(pair) for pair in joined]
    keep = first_copies(joined, parts)
    arrays = {f.name: np.concatenate([getattr(p, f.name) for p in parts])[keep] for f in fields(Paired)
              if isinstance(getattr(parts[0], f.name), np.ndarray)}
    which = np.concatenate([np.full(p.n, i, dtype=np.int64) for i, p in enumerate(parts)])[keep]
    notes = pooled_notes(joined)
    if not keep.all():
        notes.insert(1, f"{int((~keep).sum())} paired games that two pairs both hold are counted once: "
                        f"{SEEDING_1_SHARES}")
    return Paired(**arrays, labels=parts[0].labels, notes=tuple(notes), pair=which)


@dataclass(frozen=True)
class PairChange:
    """One pooled pair's own change of the focus side's win rate (``compare.outcome_test`` on its games)."""
    pair: int  # from 1
    seed: int
    games: int
    wins: tuple[int, int]  # the focus side's wins, baseline and candidate
    effect: str
    estimate: float
    low: float
    high: float
    p: float  # McNemar, this pair's games alone

    def row(self, numbers: bool = False) -> dict:
        return {"pair": self.pair, "seed": self.seed, "paired_games": self.games,
                "focus_wins": f"{self.wins[0]} → {self.wins[1]}", "effect": self.effect,
                **({"estimate": self.estimate, "low": self.low, "high": self.high} if numbers else {}),
                "p_alone": self.p}


def pair_changes(p: Paired, seeds: Sequence[int]) -> list[PairChange]:
    """Each pair's win-rate change on its own games (``p.pair``), pair ``i`` played on ``seeds[i]``."""
    changes = []
    for i, seed in enumerate(seeds):
        part = p.where(p.pair == i)
        if part.n == 0:  # every game of the pair is an earlier pair's copy (seeding 1)
            continue
        table, outcome = part.win_table(), outcome_test(part)
        changes.append(PairChange(i + 1, int(seed), part.n, (int(table[1].sum()), int(table[:, 1].sum())),
                                  outcome.effect, outcome.estimate, outcome.low, outcome.high, outcome.pvalue))
    return changes


def pairs_agree(p: Paired) -> Homogeneity | None:
    """Do the pairs' win-rate changes differ by more than chance? The homogeneity test on each pair's
    games that changed winner for the focus side, lost a win against gained one (None: too few)."""
    tables = [p.where(p.pair == i).win_table() for i in np.unique(p.pair)]
    split = np.array([[t[1, 0], t[0, 1]] for t in tables])
    split = split[split.sum(axis=1) > 0]
    if len(split) < 2:
        return None
    if (split.sum(axis=0) == 0).any():  # every pair's changed games went the same one way: the same split
        return Homogeneity(1.0, "every changed game the same way")
    return same_mix(split)


def agreement_line(h: Homogeneity | None, alpha: float, same_code: bool) -> str:
    if h is None:
        return "pairs: too few games changed winner in more than one pair to test whether the pairs agree"
    how = f"homogeneity of each pair's games that changed winner, gained a win against lost one; {h.method}: p = {h.p:.3g}"
    if h.p >= alpha:
        return f"pairs agree: their win-rate changes differ no more than chance would ({how})"
    if same_code:
        return (f"pairs DISAGREE: their win-rate changes differ more than chance usually makes them ({how}); "
                "each pair plays the same code on other seeds, so one pair's effect is a rare swing of chance "
                "or something else differs between the runs (their notes)")
    return (f"pairs DISAGREE: their win-rate changes differ more than chance usually makes them ({how}); the "
            "pairs were played by other code (the notes), which may change the effect itself: read the pairs")


@dataclass(frozen=True)
class PooledComparison(Comparison):
    pairs: tuple[PairChange, ...] = ()
    agreement: Homogeneity | None = None
    same_code: bool = True  # every pair made by the same polsim and physics on each side

    def pair_rows(self, numbers: bool = False) -> list[dict]:
        return [c.row(numbers) for c in self.pairs]

    def agreement_rows(self, alpha: float) -> list[dict]:
        h = self.agreement
        return [{"p": h.p, "method": h.method, "agree": h.p >= alpha}] if h else []


def compare_pairs(pairs: Sequence[tuple[str, str]], alpha: float = 0.05) -> Comparison:
    """Pair each baseline with its candidate, check the pairs are one comparison and test
    their games as one (the library side of ``polsim compare`` given more than one pair)."""
    check_alpha(alpha)
    if len(pairs) == 1:
        return compare_runs(*pairs[0], alpha)
    distinct_runs([run for pair in pairs for run in pair], "its games would count twice")
    joined = []
    for i, (baseline, candidate) in enumerate(pairs, start=1):
        try:
            joined.append(join_runs(baseline, candidate))
        except UsageError as exc:
            raise UsageError(f"pair {i} ({baseline}, {candidate}): {exc}") from None
    check_poolable(joined)
    p = pool(joined)
    return PooledComparison(verdict(p, alpha), changed_games(p, [candidate for _, candidate in pairs]), p,
                            tuple(pair_changes(p, [pair.exps[0].seed for pair in joined])), pairs_agree(p),
                            len({(pair.made_by, pair.physics) for pair in joined}) == 1)
