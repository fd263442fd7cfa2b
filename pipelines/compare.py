"""Compare two runs game by game: did the candidate change outcomes?

Two runs *match* when they play the same game, the same seeds (run seed and
games per cell) and the same strategies by name cell by cell; their rules may
differ, by variant or by knob overrides, and so may the strategies'
parameters (that is what a comparison is for: game seeds depend on the run
seed and the game's index alone, never on the rules or the strategies).
Games are paired by (cell, seed index): the same seed, the same strategies in
the same seats. ``rule_notes`` says which knobs differ, so a named variant
compared with ``standard`` reads the same as ``standard`` with its knobs set;
``strategy_notes`` says which strategy parameters differ (``cautious`` against
``cautious:tunings=48`` reads "cautious tunings 12 → 48").

Pieces:

- ``match_runs(baseline, candidate)`` → ``Paired``: the matched games as
  arrays of length ``n`` (only games finished ``ok`` in both runs);
  ``UsageError`` says what does not match.
- ``focus`` side of a game: strategy A of its cell (the first of the
  matchup), or seat 0 (the first player) when both strategies are the same —
  in self-play, "A" is not a side, the first player is. Outcomes are scored
  from the focus side: loss 0, draw 1/2, win 1 (category 0, 1, 2).
- ``verdict(paired, alpha)`` → ``Verdict``: the family of tests, Holm
  corrected at family-wise ``alpha``:
  * outcome (McNemar on focus-side wins) with the paired win-rate difference
    B - A and Newcombe's paired interval;
  * score rate (the exact sign-flip test of the focus-side score difference,
    with a paired t interval);
  * outcome mix (Stuart–Maxwell on the loss/draw/win table);
  * first player (McNemar on seat-0 wins), when a cell is not self-play;
  * score distribution (Mann–Whitney on the focus side's final score);
  * game length (Mann–Whitney on turns of play, ``pipelines.play_turns``);
  * end reasons (per reason, McNemar on "ended this way" in the paired
    games, exact below 25 discordant pairs; the row keeps the reason that
    moved most surely, its p times the number of reasons when there are
    more than two: Bonferroni, valid however the reasons depend on each
    other).
  The unpaired tests (Mann–Whitney) ignore the pairing; same-seed games are
  positively correlated, which makes them conservative. End reasons were
  tested unpaired too (chi-square on run × reason) until a physics change
  that moved 9 of 24 standard games from a red touch to another end, and
  none back, read p = 0.02 there; paired, 0.004 for that reason, 0.012 for
  the row over the three reasons seen.
- ``changed_games(paired)``: games whose winner changed, with the command
  that replays each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import duckdb
import numpy as np

from pipelines import manifest as mf
from pipelines.dataset import columns, distinct_runs, open_runs
from pipelines.play_turns import play_turns_sql
from pipelines.spec import Experiment, rules_as_played
from pipelines.stats import paired as pt
from pipelines.stats.paired_proportion import difference as paired_difference
from rules.base import GameDef, StrategySpec, UsageError, get_game, knob_text

COLUMNS = ("cell", "seed_index", "game_index", "game_seed", "strategy_0", "strategy_1", "winner",
           "score_0", "score_1", "end_reason", "n_turns", "status")


@dataclass(frozen=True)
class Paired:
    """Matched games; every array has shape ``[n]``. Suffix _a = baseline, _b = candidate."""

    cell: np.ndarray
    seed_index: np.ndarray
    game_index: np.ndarray
    focus_seat: np.ndarray  # seat (0/1) whose outcome is scored
    self_play: np.ndarray  # bool: both seats play the same strategy
    winner_a: np.ndarray  # 0, 1 or -1 (draw)
    winner_b: np.ndarray
    score_a: np.ndarray  # final score of the focus side
    score_b: np.ndarray
    turns_a: np.ndarray
    turns_b: np.ndarray
    end_a: np.ndarray  # end reason strings
    end_b: np.ndarray
    labels: tuple[str, ...] = ()  # cell labels (candidate's), by cell number
    notes: tuple[str, ...] = ()
    pair: np.ndarray | None = None  # pooled pairs of runs (pipelines.compare_pool): each game's pair, from 0

    def __post_init__(self) -> None:
        sizes = {k: len(v) for k, v in self.__dict__.items() if isinstance(v, np.ndarray)}
        if len(set(sizes.values())) > 1:
            raise ValueError(f"paired arrays differ in length: {sizes}")

    @property
    def n(self) -> int:
        return len(self.cell)

    def where(self, mask: np.ndarray) -> Paired:
        """The games where ``mask`` holds (one pooled pair's, say), with the same labels and notes."""
        return replace(self, **{k: v[mask] for k, v in self.__dict__.items() if isinstance(v, np.ndarray)})

    def outcome(self, winner: np.ndarray) -> np.ndarray:
        """Focus-side category: 0 loss, 1 draw, 2 win."""
        return np.where(winner == -1, 1, np.where(winner == self.focus_seat, 2, 0))

    def outcome_table(self) -> np.ndarray:
        """``[3, 3]`` paired table of focus-side (loss, draw, win), baseline × candidate."""
        table = np.zeros((3, 3), dtype=np.int64)
        np.add.at(table, (self.outcome(self.winner_a), self.outcome(self.winner_b)), 1)
        return table

    def win_table(self, seat0: bool = False) -> np.ndarray:
        """``[2, 2]`` paired table of wins (focus side, or seat 0)."""
        side = np.zeros_like(self.focus_seat) if seat0 else self.focus_seat
        table = np.zeros((2, 2), dtype=np.int64)
        np.add.at(table, ((self.winner_a == side).astype(int), (self.winner_b == side).astype(int)), 1)
        return table


def focus_seats(seed_index: np.ndarray, self_play: np.ndarray) -> np.ndarray:
    """Seat of strategy A (seat 0 on even seed indices, see ``pipelines.spec``), or 0 in self-play."""
    return np.where(self_play, 0, seed_index % 2).astype(np.int64)


# --- matching two runs -------------------------------------------------------


def check_matchable(base: Experiment, cand: Experiment, names: tuple[str, str]) -> None:
    """Raise ``UsageError`` naming the first thing that keeps the runs from pairing."""
    a, b = names
    if base.game != cand.game:
        raise UsageError(f"different game: {a} plays {base.game}, {b} plays {cand.game}; compare runs of one game")
    if base.seed != cand.seed:  # a game's seed is game_seed(run seed, seed index), whatever the game count
        raise UsageError(f"different seeds: {a} has run seed {base.seed}, {b} has run seed {cand.seed}; "
                         "games can only be paired on the same seeds")
    if base.seeding != cand.seeding:
        old, new = (a, b) if base.seeding < cand.seeding else (b, a)
        raise UsageError(f"different seeding: {old} was made before polsim 0.31.0, and its run seed {base.seed} "
                         f"plays other games than {new}'s; run {new} again with --seeding 1 to play {old}'s games")
    if len(base.cells) != len(cand.cells):
        raise UsageError(f"different matchups: {a} has {len(base.cells)} cells, {b} has {len(cand.cells)}")
    for i, (x, y) in enumerate(zip(base.cells, cand.cells)):
        if strategy_names(x.matchup) != strategy_names(y.matchup):
            raise UsageError(f"different matchups in cell {i}: {a} plays {' vs '.join(x.matchup)}, "
                             f"{b} plays {' vs '.join(y.matchup)}; only the strategies' parameters may differ")


def strategy_names(matchup) -> tuple[str, ...]:
    """The strategies of a matchup by name, without their parameters."""
    return tuple(StrategySpec.parse(s).name for s in matchup)


JOIN_SQL = """
SELECT a.cell, a.seed_index, b.game_index,
       a.game_seed AS seed_a, b.game_seed AS seed_b,
       split_part(a.strategy_0, ':', 1) AS s0_a, split_part(b.strategy_0, ':', 1) AS s0_b,
       split_part(a.strategy_1, ':', 1) AS s1_a, split_part(b.strategy_1, ':', 1) AS s1_b,
       coalesce(a.status = 'ok' AND a.winner IS NOT NULL AND a.score_0 IS NOT NULL AND a.score_1 IS NOT NULL, false)
         AND coalesce(b.status = 'ok' AND b.winner IS NOT NULL AND b.score_0 IS NOT NULL AND b.score_1 IS NOT NULL, false)
         AS both_ok,
       coalesce(a.winner, -2) AS winner_a, coalesce(b.winner, -2) AS winner_b,
       coalesce(a.score_0, 0) AS score0_a, coalesce(a.score_1, 0) AS score1_a,
       coalesce(b.score_0, 0) AS score0_b, coalesce(b.score_1, 0) AS score1_b,
       coalesce(a.n_turns, 0) AS turns_a, coalesce(b.n_turns, 0) AS turns_b,
       coalesce(a.end_reason, 'none') AS end_a, coalesce(b.end_reason, 'none') AS end_b
FROM a JOIN b USING (cell, seed_index)
ORDER BY a.cell, a.seed_index
"""


def _notes(n_a: int, n_b: int, failed: int, exps: tuple[Experiment, Experiment], names: tuple[str, str]) -> list[str]:
    notes = []
    if exps[0].games != exps[1].games:
        notes.append(f"{names[0]} has {exps[0].games} games per cell, {names[1]} {exps[1].games}: "
                     f"compared on the first {min(e.games for e in exps)} seeds, which both play")
    for name, n, exp in zip(names, (n_a, n_b), exps):
        if n < exp.total_games:
            notes.append(f"{name} has {n} of {exp.total_games} games (incomplete); compared on the games both have")
    if failed:
        notes.append(f"{failed} pairs left out: the game failed or has no result in one run or both")
    return notes


def _provenance_notes(man_a: dict, man_b: dict, names: tuple[str, str]) -> list[str]:
    """What differs in the code and packages that made the two runs: the
    physics and polsim versions (usually the point of the comparison), and the
    result-relevant package versions, which can move results by themselves."""
    a, b = mf.versions(man_a), mf.versions(man_b)
    notes = [f"{what} {a[what]} ({names[0]}) → {b[what]} ({names[1]})" for what in ("physics", "polsim")
             if a[what] != b[what]]
    pkgs_a, pkgs_b = ({k: v for k, v in d.items() if k not in mf.CODE} for d in (a, b))
    if pkgs_a and pkgs_b:
        changed = [f"{k} {pkgs_a.get(k)} → {pkgs_b.get(k)}" for k in sorted(set(pkgs_a) | set(pkgs_b))
                   if pkgs_a.get(k) != pkgs_b.get(k)]
        if changed:
            notes.append(f"made with other package versions ({', '.join(changed)}): these alone can change "
                         "games; pin them to compare code")
    return notes


def knob_changes(before: dict, after: dict) -> str:
    return ", ".join(f"{k} {knob_text(before[k])} → {knob_text(after[k])}" for k in before if before[k] != after[k])


def rule_notes(base: Experiment, cand: Experiment, made_by: tuple[str | None, str | None] = (None, None)) -> list[str]:
    """The knobs whose values differ between the runs, cell by cell (one note
    when every cell differs alike), resolved from variant and overrides with
    the defaults of the polsim packages that made them (``made_by``); or
    that the rules are the same, when the variants' names differ."""
    game = get_game(base.game)
    try:
        changes = [knob_changes(x.model_dump(mode="json"), y.model_dump(mode="json"))
                   for x, y in zip(rules_as_played(game, base, made_by[0]), rules_as_played(game, cand, made_by[1]))]
    except UsageError as exc:  # a variant or knob this polsim no longer has
        return [f"the rules could not be resolved to tell what differs ({exc})"]
    variant = [f"variant {base.variant} → {cand.variant}"] if base.variant != cand.variant else []
    if not any(changes):
        return [f"{variant[0]}: the same rules in every cell"] if variant else []
    notes = _cell_notes("rules", changes, cand.cells)
    return [": ".join(variant + notes)] if len(notes) == 1 else variant + notes


def _cell_notes(what: str, changes: list[str], cells) -> list[str]:
    """``what changed: …`` once when every cell changed alike, else a note per cell."""
    if len(set(changes)) == 1:
        return [f"{what} changed: {changes[0]}"]
    return [f"{what} changed in cell {i} ({cell.label()}): {c or 'none'}"
            for i, (cell, c) in enumerate(zip(cells, changes))]


def resolve_strategy(game: GameDef, text: str) -> tuple[StrategySpec, dict | None]:
    """A strategy as written, and its parameters resolved with this polsim's
    defaults (so ``cautious`` and ``cautious:tunings=12`` are the same
    strategy); ``None`` for a strategy or parameter this polsim does not know."""
    spec = StrategySpec.parse(text)
    try:
        return spec, game.strategy(spec).validate(spec).model_dump(mode="json")
    except UsageError:
        return spec, None


def _param_changes(game: GameDef, before: str, after: str) -> str:
    """``name key old → new, …`` for one strategy's parameters (``resolve_strategy``);
    the texts themselves when the strategy is unknown here."""
    (x, px), (y, py) = resolve_strategy(game, before), resolve_strategy(game, after)
    if px is None or py is None:
        return "" if x == y else f"{x} → {y}"
    changed = knob_changes(px, py)
    return f"{x.name} {changed}" if changed else ""


def strategy_notes(base: Experiment, cand: Experiment) -> list[str]:
    """The strategy parameters that differ between the runs, cell by cell (one
    note when every cell differs alike); nothing when they are the same."""
    game = get_game(base.game)
    changes = []
    for x, y in zip(base.cells, cand.cells):
        seats = dict.fromkeys(_param_changes(game, s, t) for s, t in zip(x.matchup, y.matchup))
        changes.append("; ".join(c for c in seats if c))
    return _cell_notes("strategy parameters", changes, cand.cells) if any(changes) else []


@dataclass(frozen=True)
class Joined:
    """Two runs' games joined on (cell, seed index) and checked: ``rows`` holds
    the pairs both runs finished ok; ``exps`` and ``made_by`` (the polsim
    versions that made them) are the baseline's and the candidate's."""

    rows: dict[str, np.ndarray]
    notes: list[str]
    exps: tuple[Experiment, Experiment]
    made_by: tuple[str | None, str | None]
    physics: tuple[str | None, str | None]


def join_runs(baseline: str, candidate: str, names: tuple[str, str] = ("baseline", "candidate")) -> Joined:
    """Both runs' games joined on (cell, seed index); ``UsageError`` when they cannot be paired."""
    distinct_runs([baseline, candidate], "a run compared with itself shows no change whatever the code")
    con_a, (man_a,) = open_runs([baseline])
    con_b, (man_b,) = open_runs([candidate])
    exp_a, exp_b = mf.experiment_of(man_a), mf.experiment_of(man_b)
    check_matchable(exp_a, exp_b, names)
    con = duckdb.connect()
    for name, side in (("a", con_a), ("b", con_b)):  # n_turns: turns of play (pipelines.play_turns)
        cols = ", ".join(f"{play_turns_sql(columns(side, 'games'))} AS n_turns" if c == "n_turns" else c
                         for c in COLUMNS)
        con.register(name, side.sql(f"SELECT {cols} FROM games").to_arrow_table())
    n_a, n_b = con.execute("SELECT (SELECT count(*) FROM a), (SELECT count(*) FROM b)").fetchone()
    rows = con.execute(JOIN_SQL).fetchnumpy()
    if len(rows["cell"]) == 0:
        raise UsageError(f"{names[0]} and {names[1]} have no game in common yet; finish the runs with --resume")
    if np.any(rows["seed_a"] != rows["seed_b"]):
        raise UsageError(f"different seeds: game seeds of {names[0]} and {names[1]} differ for the same seed index")
    if np.any(rows["s0_a"] != rows["s0_b"]) or np.any(rows["s1_a"] != rows["s1_b"]):
        raise UsageError(f"different matchups: strategies in the seats of {names[0]} and {names[1]} differ")
    ok = np.asarray(rows["both_ok"], dtype=bool)
    made_by = (man_a.get("package_version"), man_b.get("package_version"))
    notes = (rule_notes(exp_a, exp_b, made_by) + strategy_notes(exp_a, exp_b)
             + _provenance_notes(man_a, man_b, names) + _notes(n_a, n_b, int((~ok).sum()), (exp_a, exp_b), names))
    return Joined({k: np.asarray(v)[ok] for k, v in rows.items()}, notes, (exp_a, exp_b), made_by,
                  (man_a.get("physics_version"), man_b.get("physics_version")))


def paired_of(joined: Joined) -> Paired:
    """The matched games of two joined runs, scored from each cell's focus side."""
    r, exp = joined.rows, joined.exps[1]
    self_play = np.array([c.matchup[0] == c.matchup[1] for c in exp.cells])[r["cell"].astype(int)]
    focus = focus_seats(r["seed_index"].astype(np.int64), self_play)
    return Paired(
        cell=r["cell"].astype(np.int64), seed_index=r["seed_index"].astype(np.int64),
        game_index=r["game_index"].astype(np.int64), focus_seat=focus, self_play=self_play,
        winner_a=r["winner_a"].astype(np.int64), winner_b=r["winner_b"].astype(np.int64),
        score_a=np.where(focus == 0, r["score0_a"], r["score1_a"]).astype(float),
        score_b=np.where(focus == 0, r["score0_b"], r["score1_b"]).astype(float),
        turns_a=r["turns_a"].astype(np.int64), turns_b=r["turns_b"].astype(np.int64),
        end_a=r["end_a"].astype(object), end_b=r["end_b"].astype(object),
        labels=tuple(c.label() for c in exp.cells), notes=tuple(joined.notes),
    )


def match_runs(baseline: str, candidate: str, names: tuple[str, str] = ("baseline", "candidate")) -> Paired:
    """Pair the games of two runs; ``UsageError`` when they cannot be paired."""
    return paired_of(join_runs(baseline, candidate, names))


# --- the family of tests -----------------------------------------------------


@dataclass(frozen=True)
class TestRow:
    """One line of the verdict table."""

    __test__ = False  # not a pytest class

    test: str
    method: str
    statistic: float
    pvalue: float
    effect: str  # human-readable effect with its interval
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    p_holm: float = 1.0
    significant: bool = False


@dataclass(frozen=True)
class Verdict:
    n: int
    alpha: float
    rows: tuple[TestRow, ...]
    changed: int  # games whose winner changed
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def significant(self) -> bool:
        return any(r.significant for r in self.rows)

    def table(self, numbers: bool = False) -> list[dict]:
        """The verdict's rows; ``numbers`` adds each effect's estimate and interval as numbers (JSON, CSV)."""
        return [{"test": r.test, "method": r.method, "effect": r.effect,
                 **({"estimate": r.estimate, "low": r.low, "high": r.high} if numbers else {}),
                 "statistic": r.statistic, "p": r.pvalue, "p_holm": r.p_holm,
                 "significant": "YES" if r.significant else "no"}
                for r in self.rows]

    def summary(self, shown: int) -> dict:
        """The totals a script reads: pairs, changed games (and how many are listed), the verdict."""
        return {"paired_games": self.n, "changed_games": self.changed, "changed_listed": shown,
                "significant": self.significant, "alpha": self.alpha}


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def outcome_test(p: Paired) -> TestRow:
    table = p.win_table()
    res = pt.mcnemar(table)
    ci = paired_difference(table)
    return TestRow("outcome (focus side wins)", res.method, res.statistic, res.pvalue,
                   f"win rate {_points(ci.estimate)} pts [{_points(ci.low)}, {_points(ci.high)}]",
                   ci.estimate, ci.low, ci.high)


def _score_test(p: Paired) -> TestRow:
    res, ci = pt.paired_score_difference(p.outcome_table())
    return TestRow("score rate (focus side)", res.method, res.statistic, res.pvalue,
                   f"score {_points(ci.estimate)} pts [{_points(ci.low)}, {_points(ci.high)}]",
                   ci.estimate, ci.low, ci.high)


def _mix_test(p: Paired) -> TestRow:
    res = pt.stuart_maxwell(p.outcome_table())
    a, b = (np.bincount(p.outcome(w), minlength=3) for w in (p.winner_a, p.winner_b))
    return TestRow("outcome mix (loss/draw/win)", res.method, res.statistic, res.pvalue,
                   f"draws {a[1]} → {b[1]}")


def _first_player_test(p: Paired) -> TestRow:
    table = p.win_table(seat0=True)
    res = pt.mcnemar(table)
    ci = paired_difference(table)
    return TestRow("first player wins", res.method, res.statistic, res.pvalue,
                   f"seat 0 win rate {_points(ci.estimate)} pts [{_points(ci.low)}, {_points(ci.high)}]",
                   ci.estimate, ci.low, ci.high)


def _distribution_test(name: str, what: str, x: np.ndarray, y: np.ndarray) -> TestRow:
    if np.array_equal(np.sort(x), np.sort(y)):
        res = pt.TestResult(float(len(x) * len(y) / 2), 1.0, "mann-whitney-u", effect=0.0)
    else:
        res = pt.mann_whitney(y, x)
    return TestRow(name, res.method, res.statistic, res.pvalue,
                   f"mean {what} {np.mean(x):.3g} → {np.mean(y):.3g}, rank-biserial {res.effect:+.3f}",
                   res.effect)


def _end_reason_test(p: Paired) -> TestRow:
    reasons = sorted(set(p.end_a) | set(p.end_b))
    per_reason = []
    for reason in reasons:
        a, b = p.end_a == reason, p.end_b == reason
        table = [[int(np.sum(~a & ~b)), int(np.sum(~a & b))], [int(np.sum(a & ~b)), int(np.sum(a & b))]]
        per_reason.append((pt.mcnemar(table), reason, int(a.sum()), int(b.sum()), table[1][0], table[0][1]))
    res, moved, n_a, n_b, left, joined = min(per_reason, key=lambda t: t[0].pvalue)
    tests = len(reasons) if len(reasons) > 2 else 1   # two reasons: one test, seen from either side
    return TestRow("end reasons", f"{res.method} per reason", res.statistic, min(1.0, tests * res.pvalue),
                   f"{moved} {n_a} → {n_b} ({left} left it, {joined} joined)", res.effect)


def check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be in (0, 1) (got {alpha})")


def verdict(p: Paired, alpha: float = 0.05) -> Verdict:
    """The Holm-corrected family of tests on the matched games."""
    check_alpha(alpha)
    if p.n < 2:
        raise UsageError(f"only {p.n} matched games finished ok in both runs; need at least 2")
    rows = [outcome_test(p), _score_test(p), _mix_test(p)]
    if not p.self_play.all():
        rows.append(_first_player_test(p))
    rows += [_distribution_test("score distribution", "focus score", p.score_a, p.score_b),
             _distribution_test("game length", "turns", p.turns_a.astype(float), p.turns_b.astype(float)),
             _end_reason_test(p)]
    holm = pt.holm([r.pvalue for r in rows], alpha)
    rows = [TestRow(**{**r.__dict__, "p_holm": float(adj), "significant": bool(rej)})
            for r, adj, rej in zip(rows, holm.adjusted, holm.reject)]
    changed = int(np.sum(p.winner_a != p.winner_b))
    return Verdict(p.n, alpha, tuple(rows), changed, p.notes)


# --- the games that changed --------------------------------------------------


def _result_word(winner: int) -> str:
    return "draw" if winner == -1 else f"seat {winner} wins"


def changed_games(p: Paired, candidate: str | Sequence[str]) -> list[dict]:
    """Games whose winner changed, each with the command that replays it in
    its candidate run; pooled pairs (``p.pair``) lead with the pair's number,
    from 1, and replay in ``candidate[p.pair[i]]``."""
    candidates = [candidate] if isinstance(candidate, str) else list(candidate)
    pair = p.pair if p.pair is not None else np.zeros(p.n, dtype=np.int64)
    rows = []
    for i in np.flatnonzero(p.winner_a != p.winner_b):
        rows.append({**({"pair": int(pair[i]) + 1} if p.pair is not None else {}),
                     "game": int(p.game_index[i]), "cell": p.labels[p.cell[i]] if p.labels else int(p.cell[i]),
                     "seed_index": int(p.seed_index[i]), "baseline": _result_word(int(p.winner_a[i])),
                     "candidate": _result_word(int(p.winner_b[i])),
                     "replay": f"polsim replay {candidates[pair[i]]} --game {int(p.game_index[i])}"})
    return rows


@dataclass(frozen=True)
class Comparison:
    verdict: Verdict
    changed: list[dict]
    paired: Paired


def compare_runs(baseline: str, candidate: str, alpha: float = 0.05) -> Comparison:
    """Match two runs and test the matched games (the library side of ``polsim compare``)."""
    check_alpha(alpha)
    p = match_runs(baseline, candidate)
    return Comparison(verdict(p, alpha), changed_games(p, candidate), p)
