"""End-to-end run path: games per second with 1 and 2 Ray workers, scaling,
the share of wall time not spent inside games, and peak memory.

    python benchmarks/bench_run.py [--games 100000] [--memory-games 1000000]

Plays random-vs-random Polar 9x9 through ``run_experiment`` (what
``polsim simulate`` calls) into a temporary folder. "Steady" figures exclude
Ray's start-up (a few seconds, paid once per command); "overhead" is
1 - (time inside ``play_batch`` summed over shards) / (workers x wall time).
Peak memory: the driver's own maximum RSS, and the largest worker maximum RSS
reported by the shards.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile

from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment


def polar_random(games: int, shard_size: int = 2000, seed: int = 1) -> Experiment:
    return Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("random", "random")),),
                      games=games, seed=seed, shard_size=shard_size)


def one_run(games: int, workers: int) -> dict:
    with tempfile.TemporaryDirectory() as out:
        r = run_experiment(polar_random(games), out, workers=workers)
    steady = r.seconds - r.seconds_startup
    return {
        "workers": r.workers,
        "games": r.games_done,
        "seconds": round(r.seconds, 2),
        "seconds_startup": round(r.seconds_startup, 2),
        "games_per_s": round(r.games_done / r.seconds),
        "games_per_s_steady": round(r.games_done / steady),
        "overhead_share_steady": round(1 - r.seconds_playing / (r.workers * steady), 4),
        "worker_peak_rss_mb": round(max(s.max_rss_mb for s in r.summaries), 1),
    }


def measure(games: int = 100_000, memory_games: int = 0) -> dict:
    one = one_run(games, 1)
    two = one_run(games, 2)
    out = {
        "polar_e2e_1_worker": one,
        "polar_e2e_2_workers": two,
        "scaling_1_to_2": round(two["games_per_s_steady"] / one["games_per_s_steady"], 3),
    }
    if memory_games:
        big = one_run(memory_games, 2)
        big["driver_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        out["polar_memory_run"] = big
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--memory-games", type=int, default=0)
    args = ap.parse_args(argv)
    print(json.dumps(measure(args.games, args.memory_games), indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
