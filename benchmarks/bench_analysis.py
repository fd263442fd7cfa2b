"""Speed of ``polsim analyze`` and ``polsim report`` over a big Polar run.

Playing 1,000,000 real Polar games takes far longer than the analysis, so
the run is synthetic but schema-true: a real 20-game Polar run gives the
exact ``games``/``turns`` schemas and the run-constant identity columns
(variant hash, knobs, versions); numpy then fills 1,000,000 games
(``SHARD`` games per shard) and their turns — ~68 per game, running seat
scores that end at the games' final scores, winners that agree with them,
passes, colours and adjacent opening pairs — from a fixed seed, written through the same
atomic shard writer into the usual run layout with a ``complete`` manifest.
The run is cached under ``--data`` (default ``/tmp/polsim-bench-analysis``)
and rebuilt only when missing.

Timed: the two commands as a user runs them (fresh processes, all measures):
``polsim analyze RUN --format json`` and ``polsim report RUN --out …``, in
wall seconds and in CPU seconds (user + system over all threads; on a
machine shared with other jobs the wall time grows, the CPU time does not),
with the 1-minute load average at the start. Targets on the reference
machine: analyze < 3 s, report < 15 s (wall).

    .venv/bin/python benchmarks/bench_analysis.py [--games 1000000] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads

from pipelines import manifest as mf
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment
from pipelines.storage import SHARD_NAME, locate, write_table_atomic

SHARD = 20_000
SEED = 20261129
MATCHUP = ("greedy", "random")
TARGETS = {"analyze_s": 3.0, "report_s": 15.0}
BIN = os.path.join(os.path.dirname(sys.executable), "polsim")


def template(tmp: str) -> tuple[pa.Table, pa.Table]:
    """Schemas and run-constant columns from a real, tiny Polar run."""
    exp = Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=MATCHUP),), games=20, seed=1, shard_size=20)
    uri = run_experiment(exp, tmp, workers=0).uri
    return (pads.dataset(os.path.join(uri, "games")).to_table(),
            pads.dataset(os.path.join(uri, "turns")).to_table())


def synthetic_turns(rng: np.random.Generator, n_turns: np.ndarray) -> dict[str, np.ndarray]:
    """Turn rows: per-game turn counter and running scores (cumulative gains)."""
    rows = int(n_turns.sum())
    starts = np.repeat(np.cumsum(n_turns) - n_turns, n_turns)
    turn = np.arange(rows) - starts
    player = (turn % 2).astype(np.int8)
    gain = rng.integers(0, 9, rows).astype(np.float64) * (turn > 0)
    first = np.cumsum(n_turns) - n_turns
    scores = []
    for seat in (0, 1):
        mine = np.where(player == seat, gain, 0.0)
        total = np.cumsum(mine)
        scores.append(total - np.repeat(total[first] - mine[first], n_turns))
    return {"turn": turn.astype(np.int32), "player": player, "score_0": scores[0], "score_1": scores[1]}


def adjacent_openings(rng, count: int, size: int = 9) -> dict[str, np.ndarray]:
    """Uniform ordered pairs of adjacent points (P2), as ``opening_a`` (black) and ``opening_b``."""
    along = rng.integers(0, size - 1, count)
    across = rng.integers(0, size, count)
    horizontal = rng.random(count) < 0.5
    a = np.where(horizontal, across * size + along, along * size + across)
    b = a + np.where(horizontal, 1, size)
    flip = rng.random(count) < 0.5
    return {"opening_a": np.where(flip, b, a), "opening_b": np.where(flip, a, b)}


def synthetic_shard(rng, first: int, count: int, games_t: pa.Table, turns_t: pa.Table, run_id: str):
    index = np.arange(first, first + count, dtype=np.int64)
    n_turns = np.clip(rng.normal(68.5, 5.3, count).round(), 40, 120).astype(np.int32)
    t = synthetic_turns(rng, n_turns)
    last = np.cumsum(n_turns) - 1
    s0, s1 = t["score_0"][last], t["score_1"][last]
    winner = np.where(s0 > s1, 0, np.where(s1 > s0, 1, -1)).astype(np.int8)
    black0 = rng.random(count) < 0.5
    colour_0 = np.where(black0, "black", "white")
    game_cols = {
        "run_id": np.full(count, run_id), "cell": np.zeros(count, np.int32), "seed_index": index,
        "game_seed": rng.integers(0, 2**62, count), "game_index": index,
        "strategy_0": np.where(index % 2 == 0, MATCHUP[0], MATCHUP[1]),
        "strategy_1": np.where(index % 2 == 0, MATCHUP[1], MATCHUP[0]),
        "winner": winner, "score_0": s0, "score_1": s1, "end_reason": np.full(count, "both_passed"),
        "n_turns": n_turns, "status": np.full(count, "ok"), "colour_0": colour_0,
        **adjacent_openings(rng, count),
        "chooser_colour": np.where(black0, "white", "black"),
        "n_passes": 2 + rng.poisson(3.4, count), "n_groups": rng.integers(2, 12, count),
        "n_scoring_groups": rng.integers(1, 6, count),
        "black_score": np.where(black0, s0, s1), "white_score": np.where(black0, s1, s0),
    }
    games = _like(games_t, game_cols, count)
    turn_cols = {**t, "run_id": np.full(len(t["turn"]), run_id),
                 "game_index": np.repeat(index, n_turns), "colour": np.where(t["player"] == 0, "black", "white"),
                 "point": rng.integers(-1, 81, len(t["turn"])), "point2": np.full(len(t["turn"]), -1),
                 "x": rng.integers(0, 9, len(t["turn"])), "y": rng.integers(0, 9, len(t["turn"])),
                 "n_legal": rng.integers(0, 80, len(t["turn"]))}
    return games, _like(turns_t, turn_cols, len(t["turn"]))


def _like(table: pa.Table, cols: dict, n: int) -> pa.Table:
    """A table with ``table``'s schema: given columns cast, the rest repeated from its first row."""
    arrays = []
    for field in table.schema:
        if field.name in cols:
            arrays.append(pa.array(cols[field.name]).cast(field.type))
        elif field.name == "error":
            arrays.append(pa.nulls(n, field.type))
        else:
            arrays.append(pa.repeat(table[field.name][0], n).cast(field.type))
    return pa.Table.from_arrays(arrays, schema=table.schema)


def build_run(data: str, games: int) -> str:
    exp = Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=MATCHUP),), games=games, seed=SEED,
                     shard_size=SHARD)
    run_id = f"bench-polar-{games}-v2"  # v2: adjacent openings (a new name, so a cached v1 run is not reused)
    run = locate(os.path.join(data, run_id))
    if os.path.exists(os.path.join(run.path, mf.MANIFEST)):
        return run.path
    shutil.rmtree(run.path, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        games_t, turns_t = template(tmp)
    rng = np.random.default_rng(SEED)
    for shard, first, count in exp.shards():
        g, t = synthetic_shard(rng, first, count, games_t, turns_t, run_id)
        write_table_atomic(run.child("turns", SHARD_NAME.format(shard)), t)
        write_table_atomic(run.child("games", SHARD_NAME.format(shard)), g)
    manifest = mf.new_manifest(exp, run_id, games_t["package_version"][0].as_py(), games_t["physics_version"][0].as_py())
    manifest.update(status="complete", games_done=games, synthetic=True)
    mf.save(run, manifest)
    return run.path


def timed(args: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, all threads) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(games: int = 1_000_000, data: str = "/tmp/polsim-bench-analysis") -> dict:
    t0 = time.perf_counter()
    run = build_run(data, games)
    prepare = time.perf_counter() - t0
    turns = pads.dataset(os.path.join(run, "turns")).count_rows()
    _, startup_cpu = timed([BIN, "--help"])  # also warms the file cache for the interpreter and imports
    load = os.getloadavg()[0]
    analyze, analyze_cpu = timed([BIN, "analyze", run, "--format", "json"])
    report, report_cpu = timed([BIN, "report", run, "--out", os.path.join(data, "report.html")])
    return {"games": games, "turn_rows": turns, "prepare_s": round(prepare, 1),
            "analyze_s": round(analyze, 2), "analyze_cpu_s": round(analyze_cpu, 2),
            "report_s": round(report, 2), "report_cpu_s": round(report_cpu, 2),
            "cli_startup_cpu_s": round(startup_cpu, 2), "cores": os.cpu_count(), "load_avg_1min": round(load, 1),
            "targets": TARGETS,
            "meets_targets": analyze < TARGETS["analyze_s"] and report < TARGETS["report_s"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--data", default="/tmp/polsim-bench-analysis")
    args = ap.parse_args()
    print(json.dumps(measure(args.games, args.data), indent=2))


if __name__ == "__main__":
    main()
