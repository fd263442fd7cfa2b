"""End-to-end run path: games per second with 1 and 2 Ray workers, scaling,
the share of wall time not spent inside games, and peak memory (issue 5).

    python benchmarks/bench_run.py [--games 100000] [--memory-games 1000000]

Plays random-vs-random Polar 9x9 through ``run_experiment`` (what
``polsim simulate`` calls) into a temporary folder, and splits each run's
wall time (``RunResult``) into

- ``ray_start``: starting the embedded Ray (``ray.init``);
- ``warm_up``: one ``warm_up`` task per worker (imports, numba cache loads);
  ``worker_warm_up_cpu``: each worker's CPU seconds at that point;
- ``games``: from the first shard handed out to the last shard back;
- ``shutdown``: stopping Ray; the rest (checks, manifests) is ``other``.

"Inside games" is the time workers spend in the game's play call (the numba
batch and the Arrow tables of its results), summed over shards. Everything
else is overhead: start-up and shutdown above, and within the games phase
the work around the play call (specs, identity columns: ``around_play``),
Parquet encoding and the atomic writes (``writing``), and what no task
accounts for: scheduling, serialisation, the driver and idle workers at the
tail (``between_tasks`` = workers x games phase - time inside tasks).

- ``overhead_share_tasks_cpu`` = 1 - worker CPU inside games / worker CPU
  of whole tasks: the part of a worker's own work that is not playing
  (specs, identity columns, Parquet); a CPU figure, fair on a busy machine;
- ``overhead_share_games_phase`` = 1 - inside / (workers x games phase);
- ``overhead_share_whole`` = 1 - inside / (workers x whole run): the figure
  issue 5 asks for (< 5 %), start-up and shutdown included;
- ``scaling_1_to_2`` compares games-phase rates; ``scaling_1_to_2_whole``
  whole-run rates; ``scaling_1_to_2_task_cpu`` = 2 x (task CPU per game with
  1 worker) / (task CPU per game with 2 workers): what 2 dedicated cores
  would give if nothing but the tasks used them — the reading to trust when
  other work shares the machine (the wall ratios then mostly measure it).

``driver_cpu_share_between_shards``: the driver's CPU from the first shard
back to the last, as a share of the workers' cores (it should stay near 0:
the driver blocks in ``ray.wait``). Peak memory: the driver's own maximum RSS, and the largest worker maximum
RSS reported by the shards. ``load_before`` is the 1-minute load average: on
a machine shared with other work, wall figures fall.

``polar_e2e_2_workers_no_turns``: the 2-worker run with ``turns`` off
(``--no-turns``: the games table alone), and ``no_turns_speedup_games_phase``
its games-phase rate over the run with turns; ``bytes_per_game``: what each
run left on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from pipelines.runner import RunResult, run_experiment  # noqa: E402
from pipelines.spec import Cell, Experiment  # noqa: E402


def polar_random(games: int, shard_size: int | None = None, seed: int = 1, turns: bool = True) -> Experiment:
    from rules.base import get_game

    return Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("random", "random")),),
                      games=games, seed=seed, shard_size=shard_size or get_game("polar").shard_size, turns=turns)


def breakdown(r: RunResult) -> dict:
    """The wall-time split of one run (see the module docstring)."""
    w = r.workers
    known = r.seconds_ray_start + r.seconds_warm_up + r.seconds_games + r.seconds_shutdown
    return {
        "workers": w,
        "games": r.games_done,
        "shards": r.shards_played,
        "seconds_whole": round(r.seconds, 3),
        "seconds_ray_start": round(r.seconds_ray_start, 3),
        "seconds_warm_up": round(r.seconds_warm_up, 3),
        "seconds_games": round(r.seconds_games, 3),
        "seconds_shutdown": round(r.seconds_shutdown, 3),
        "seconds_other": round(r.seconds - known, 3),
        "worker_warm_up_cpu": [round(c, 2) for c in r.worker_warm_up_cpu],
        "games_per_s_whole": round(r.games_done / r.seconds),
        "games_per_s_games_phase": round(r.games_done / r.seconds_games),
        "games_phase_worker_seconds": {  # sums over workers; add up to workers x games phase
            "inside_games": round(r.seconds_playing, 3),
            "around_play": round(r.seconds_tasks - r.seconds_playing - r.seconds_writing, 3),
            "writing": round(r.seconds_writing, 3),
            "between_tasks": round(w * r.seconds_games - r.seconds_tasks, 3),
        },
        "worker_cpu_us_per_game": {  # CPU, so fair on a busy machine
            "inside_games": round(1e6 * r.cpu_playing / r.games_done, 2),
            "whole_tasks": round(1e6 * r.cpu_tasks / r.games_done, 2),
        },
        "overhead_share_tasks_cpu": round(1 - r.cpu_playing / r.cpu_tasks, 4),
        "overhead_share_games_phase": round(1 - r.seconds_playing / (w * r.seconds_games), 4),
        "overhead_share_whole": round(1 - r.seconds_playing / (w * r.seconds), 4),
        "worker_peak_rss_mb": round(r.worker_peak_rss_mb, 1),
    }


def one_run(games: int, workers: int, shard_size: int | None = None, turns: bool = True) -> dict:
    marks = []  # (wall, driver CPU) as shards come back

    def finished(n: int) -> None:
        marks.append((time.perf_counter(), time.process_time()))

    with tempfile.TemporaryDirectory() as out:
        r = run_experiment(polar_random(games, shard_size, turns=turns), out, workers=workers, on_progress=finished)
        stored = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(r.uri) for f in files)
    marks = marks[1:]  # the first call starts the progress display, before Ray starts: not a shard
    out = breakdown(r)
    out["bytes_per_game"] = round(stored / r.games_done, 1)
    if len(marks) > 1:
        (w0, c0), (w1, c1) = marks[0], marks[-1]
        out["driver_cpu_share_between_shards"] = round((c1 - c0) / (workers * (w1 - w0)), 4)
    return out


def measure(games: int = 100_000, memory_games: int = 0, shard_size: int | None = None) -> dict:
    out = {"load_before": os.getloadavg()[0]}
    one = one_run(games, 1, shard_size)
    two = one_run(games, 2, shard_size)
    bare = one_run(games, 2, shard_size, turns=False)
    out.update({
        "polar_e2e_1_worker": one,
        "polar_e2e_2_workers": two,
        "polar_e2e_2_workers_no_turns": bare,
        "no_turns_speedup_games_phase": round(bare["games_per_s_games_phase"] / two["games_per_s_games_phase"], 3),
        "scaling_1_to_2": round(two["games_per_s_games_phase"] / one["games_per_s_games_phase"], 3),
        "scaling_1_to_2_whole": round(two["games_per_s_whole"] / one["games_per_s_whole"], 3),
        "scaling_1_to_2_task_cpu": round(
            2 * one["worker_cpu_us_per_game"]["whole_tasks"] / two["worker_cpu_us_per_game"]["whole_tasks"], 3
        ),
    })
    if memory_games:
        big = one_run(memory_games, 2, shard_size)
        big["driver_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        out["polar_memory_run"] = big
    out["load_after"] = os.getloadavg()[0]
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--memory-games", type=int, default=0)
    ap.add_argument("--shard-size", type=int, default=None, help="default: Polar's own shard size")
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.games, args.memory_games, args.shard_size), indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
