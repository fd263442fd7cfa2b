"""Replay a baseline run's seeds with the code as it is now, and stop as soon
as a sequential test can tell "changed" from "no change larger than δ".

Steps of ``regress``:

1. Read the baseline's stored experiment (manifest ``spec``); the candidate
   is the same experiment with the ``--set`` knob overrides applied to every
   cell (a changed knob models a code change). Validate both.
2. If the game has physics (a non-empty ``physics_version``), run the golden
   scenes of ``sim.golden`` first and stop with ``GoldenSceneChanged`` at the
   first scene that changed (nothing is played or written).
3. Create the candidate's run folder ``<out>/<run_id>`` like any run.
4. Play its shards in batches of about ``batch_games`` games, in seed-index
   order (so every cell's first seeds come first), up to ``max_games``.
5. After each batch, pair the candidate with the baseline
   (``compare.match_runs``) and feed the running counts of the focus-side
   score difference d = s_candidate - s_baseline to the two-sided regression
   SPRT (``stats.sprt.RegressionSPRT``, δ in score-rate units: 0.05 = five
   points). Stop at its first decision.
6. Record the decision in the manifest (``regress``); the run stays
   ``incomplete`` when the SPRT stopped early, so ``--resume`` can finish it.
   Return the decision and the same verdict table as ``compare``.
7. ``flagged``: the SPRT said changed, or the verdict table on the pairs
   played finds a significant change (the SPRT watches the score rate only;
   a magnet 50 % stronger moved Polarity's scores, lengths and end reasons
   but not the win rate by the test's δ). The command's exit code follows it.

Deviation kept small on purpose: ``runner.run_experiment`` runs a whole
experiment, so batches reuse its pieces (``prepare_run``, executors,
``play_shard``) instead.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pipelines import manifest as mf
from pipelines.dataset import open_runs
from pipelines.compare import Verdict, changed_games, match_runs, verdict
from pipelines.executors import make_executor
from pipelines.interrupts import Interrupted, stop_on_signals
from pipelines.runner import check_run_id, prepare_run, shard_tasks
from pipelines.spec import Cell, Experiment, validate
from pipelines.stats.sprt import RegressionConfig, RegressionSPRT, difference_counts
from pipelines.storage import locate
from rules.base import UsageError, get_game

class GoldenSceneChanged(Exception):
    """A golden physics scene no longer gives its recorded outcome."""


class RegressConfig(BaseModel):
    """The sequential test and its budget."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    delta: float = Field(0.05, gt=0, lt=1, description="smallest score-rate change that matters (0.05 = 5 points)")
    alpha: float = Field(0.05, gt=0, lt=0.5, description="P(say changed | nothing changed)")
    beta: float = Field(0.05, gt=0, lt=0.5, description="P(say unchanged | changed by delta)")
    batch_games: int = Field(200, gt=0, description="games between two looks (rounded up to whole shards)")
    max_games: int | None = Field(None, gt=0, description="game limit (default: every baseline seed)")

    @model_validator(mode="after")
    def _valid_sprt(self) -> "RegressConfig":
        RegressionConfig(delta=self.delta, alpha=self.alpha, beta=self.beta)
        return self

    def sprt(self) -> RegressionSPRT:
        return RegressionSPRT(RegressionConfig(delta=self.delta, alpha=self.alpha, beta=self.beta))


@dataclass
class Look:
    """The state after one batch."""

    batch: int
    games_played: int
    pairs: int
    llr_up: float
    llr_down: float
    decision: str


@dataclass
class RegressResult:
    run_id: str
    uri: str
    decision: str  # changed | unchanged | undecided
    direction: int  # +1 candidate scores higher, -1 lower, 0 unknown
    games_played: int
    pairs: int
    bounds: tuple[float, float]
    looks: list[Look] = field(default_factory=list)
    verdict: Verdict | None = None
    changed: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    status: str = "incomplete"
    seconds: float = 0.0
    interrupted: bool = False

    @property
    def flagged(self) -> bool:
        """Changed by the SPRT on the score rate, or by the verdict table (Holm-corrected family of
        outcome, score distribution, length and end-reason tests) on the pairs played: a physics
        change can leave the win rate alone and still move scores, lengths and end reasons."""
        return self.decision == "changed" or bool(self.verdict is not None and self.verdict.significant)


def make_config(**kwargs: Any) -> RegressConfig:
    try:
        return RegressConfig(**kwargs)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "options"
        raise UsageError(f"bad regress option {where}: {err['msg']}") from None


def candidate_experiment(baseline: Experiment, overrides: dict[str, Any], shard_size: int | None = None) -> Experiment:
    """The baseline experiment with knob overrides applied to every cell."""
    cells = tuple(Cell(overrides={**c.overrides, **overrides}, matchup=c.matchup) for c in baseline.cells)
    return baseline.model_copy(update={"cells": cells, "shard_size": shard_size or baseline.shard_size})


def seed_order_batches(exp: Experiment, done: set[int], batch_games: int, max_games: int) -> tuple[int, list[list[tuple]]]:
    """(games already on disk, batches of shards still to play) in seed-index order, within ``max_games``."""
    ordered = sorted(exp.shards(), key=lambda s: (s[1] % exp.games, s[1] // exp.games))
    played, batches, current, current_games = 0, [], [], 0
    for shard in ordered:
        if played >= max_games:
            break
        played += shard[2]
        if shard[0] in done:
            continue
        current.append(shard)
        current_games += shard[2]
        if current_games >= batch_games:
            batches.append(current)
            current, current_games = [], 0
    if current:
        batches.append(current)
    already = sum(s[2] for s in exp.shards() if s[0] in done)
    return already, batches


def golden_check(game: str) -> str:
    """Run the physics golden scenes if the game has physics; a note on what was done.

    Uses ``sim.golden``: ``SCENES`` (scene names) and ``differences(name)``
    (what changed, empty when the scene still gives its recorded outcome).
    Stops at the first changed scene (fail fast)."""
    if not get_game(game).physics_version():
        return f"golden scenes: {game} has no physics; skipped"
    try:
        module = importlib.import_module("sim.golden")
    except ModuleNotFoundError:
        return "golden scenes: sim.golden not found; skipped"
    scenes, differences = getattr(module, "SCENES", None), getattr(module, "differences", None)
    if scenes is None or not callable(differences):
        return "golden scenes: sim.golden has no SCENES / differences(name); skipped"
    for name in scenes:
        problems = differences(name)
        if problems:
            more = f" (and {len(problems) - 1} more differences)" if len(problems) > 1 else ""
            raise GoldenSceneChanged(f"golden physics scene {name!r} changed: {problems[0]}{more}; "
                                     "if meant, bump PHYSICS_VERSION and run python -m sim.golden --regenerate")
    return f"golden scenes: all {len(scenes)} unchanged"


def _default_run_id(base_run_id: str, baseline: Experiment, candidate: Experiment) -> str:
    same = candidate.identity() == baseline.identity()
    return f"{base_run_id}-regress" if same else f"{base_run_id}-regress-{candidate.spec_hash()}"


def _look(sprt: RegressionSPRT, baseline_uri: str, run_uri: str, batch: int, played: int) -> Look:
    paired = match_runs(baseline_uri, run_uri)
    decision = sprt.update(difference_counts(paired.outcome_table()))
    return Look(batch, played, paired.n, sprt.up.llr, sprt.down.llr, decision)


def _plan(baseline: str, out: str, overrides: dict[str, Any], shard_size: int | None,
          run_id: str | None) -> tuple[Experiment, str]:
    """Step 1: the validated candidate experiment and its run id; the baseline must
    have finished games in readable shards before anything is played."""
    if run_id is not None:
        check_run_id(run_id)
    con, (base_manifest,) = open_runs([baseline])
    con.close()
    base_exp = mf.experiment_of(base_manifest)
    cand = candidate_experiment(base_exp, overrides, shard_size)
    validate(cand)
    run_id = run_id or _default_run_id(base_manifest["run_id"], base_exp, cand)
    if locate(out).child(run_id).uri == locate(baseline).uri:
        raise UsageError(f"the candidate run {run_id} would replace the baseline; pass another --run-id or --out")
    return cand, run_id


def _play_and_look(result: RegressResult, sprt: RegressionSPRT, cand: Experiment, baseline: str,
                   batches: list[list[tuple]], workers: int | None, address: str | None,
                   on_look: Callable[[Look], None] | None) -> int:
    """Steps 4–5: play batch after batch until the SPRT decides; returns failed games."""
    failed = 0
    executor = None
    with stop_on_signals() as stop:  # from Ray's start to its stop, as in runner.run_experiment
        try:
            if batches:
                executor = make_executor(workers, address)
                stop.check()
            if result.games_played:  # resumed: look at what is already there first
                _record(result, _look(sprt, baseline, result.uri, 0, result.games_played), on_look)
                if result.looks[-1].decision != "continue":
                    return failed
            for number, batch in enumerate(batches, start=1):
                for summary in executor.run(shard_tasks(cand, result.run_id, result.uri, batch)):
                    result.games_played += summary.games
                    failed += summary.failed
                    stop.check()
                _record(result, _look(sprt, baseline, result.uri, number, result.games_played), on_look)
                if result.looks[-1].decision != "continue":
                    break
        except (Interrupted, KeyboardInterrupt):
            result.interrupted = True
        finally:
            stop.wind_down()  # a signal while Ray stops is recorded: the close always finishes
            if executor is not None:
                executor.close()
        result.interrupted |= stop.requested
    if result.interrupted:
        result.notes.append("interrupted: finish with the same command and --resume")
    return failed


def _conclude(result: RegressResult, sprt: RegressionSPRT, baseline: str, alpha: float) -> None:
    """The SPRT's decision and the fixed-sample verdict on every pair played."""
    result.decision = {"changed": "changed", "unchanged": "unchanged"}.get(sprt.verdict, "undecided")
    result.direction = sprt.direction
    try:
        paired = match_runs(baseline, result.uri)
    except UsageError:
        if not result.interrupted:
            raise
        return  # interrupted before a single pair was played
    result.pairs = paired.n
    result.verdict = verdict(paired, alpha)
    result.changed = changed_games(paired, result.uri)


def regress(
    baseline: str,
    out: str,
    *,
    overrides: dict[str, Any] | None = None,
    config: RegressConfig | None = None,
    run_id: str | None = None,
    resume: bool = False,
    overwrite: bool = False,
    workers: int | None = None,
    address: str | None = None,
    shard_size: int | None = None,
    on_look: Callable[[Look], None] | None = None,
) -> RegressResult:
    """Steps 1–6 of the module docstring; ``on_look`` sees the state after every batch."""
    t0 = time.perf_counter()
    config = config or RegressConfig()
    cand, run_id = _plan(baseline, out, overrides or {}, shard_size, run_id)
    notes = [golden_check(cand.game)]
    prepared = prepare_run(cand, out, run_id, resume, overwrite, address)
    run, manifest, done = prepared.run, prepared.manifest, prepared.done
    max_games = min(config.max_games or cand.total_games, cand.total_games)
    already, batches = seed_order_batches(cand, done, config.batch_games, max_games)
    sprt = config.sprt()
    result = RegressResult(run_id, run.uri, "undecided", 0, already, 0, (sprt.up.lower, sprt.up.upper), notes=notes)
    failed = sum(prepared.failed.values())  # a resumed run's earlier failures count too
    failed += _play_and_look(result, sprt, cand, baseline, batches, workers, address, on_look)
    _conclude(result, sprt, baseline, config.alpha)
    result.status = "complete" if result.games_played >= cand.total_games else "incomplete"
    result.seconds = time.perf_counter() - t0
    manifest.update(status=result.status, games_done=result.games_played, games_failed=failed,
                    seconds=round(result.seconds, 3),
                    regress={"baseline": baseline, "decision": result.decision, "direction": result.direction,
                             "pairs": result.pairs, "delta": config.delta, "alpha": config.alpha,
                             "beta": config.beta, "overrides": overrides or {}})
    mf.save(run, manifest)
    return result


def _record(result: RegressResult, look: Look, on_look: Callable[[Look], None] | None) -> None:
    result.looks.append(look)
    result.pairs = look.pairs
    if on_look:
        on_look(look)
