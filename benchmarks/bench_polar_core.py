"""Polar core speed: random-vs-random 9x9 games per second on one core.

Times the numba batch call alone (``rules.polar.batch.run_core``: specs
already packed, compilation excluded by a warm-up), without and with turn
recording (recording also keeps ``legal_count``'s tracker for ``n_legal``),
and the whole ``play_batch`` (packing specs, seeding streams, building Arrow
tables). ``bench_polar.py`` has these figures and the end-to-end ones. Each figure is the best of ``repeats`` runs and is given per second
of process CPU time (the core is single-threaded), so that other work on a
shared machine inflates it less than wall time would; ``*_wall`` keys give
the wall-clock figures too.

Run: ``.venv/bin/python benchmarks/bench_polar_core.py [n_games]``
"""

from __future__ import annotations

import sys
import time

from rules.base import GameSpec, StrategySpec, get_game
from rules.polar.batch import pack_specs, run_core
from rules.seeds import game_seed


def _specs(n_games: int, variant: str) -> list[GameSpec]:
    polar = get_game("polar")
    rules = polar.variant(variant)
    seats = (StrategySpec("random"), StrategySpec("random"))
    return [GameSpec(i, game_seed(1, i), variant, rules, seats) for i in range(n_games)]


def _best_seconds(fn, repeats: int) -> tuple[float, float]:
    """Best (CPU seconds, wall seconds) of ``repeats`` calls."""
    cpu, wall = float("inf"), float("inf")
    for _ in range(repeats):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        fn()
        cpu = min(cpu, time.process_time() - start_cpu)
        wall = min(wall, time.perf_counter() - start_wall)
    return cpu, wall


def measure(n_games: int = 20_000, variant: str = "polar-9", repeats: int = 3) -> dict:
    """Games per second of the Polar core (one core), without and with turn recording."""
    polar = get_game("polar")
    specs = _specs(n_games, variant)
    packed = pack_specs(specs)
    run_core(pack_specs(specs[:4]), record=True)  # compile / load the cache
    bare = _best_seconds(lambda: run_core(packed, record=False), repeats)
    recorded = _best_seconds(lambda: run_core(packed, record=True), repeats)
    whole = _best_seconds(lambda: polar.play_batch(specs), 1)
    return {
        "benchmark": "polar_core",
        "variant": variant,
        "n_games": n_games,
        "games_per_s_core": n_games / bare[0],
        "games_per_s_core_recording_turns": n_games / recorded[0],
        "games_per_s_play_batch": n_games / whole[0],
        "games_per_s_core_wall": n_games / bare[1],
        "games_per_s_core_recording_turns_wall": n_games / recorded[1],
        "games_per_s_play_batch_wall": n_games / whole[1],
    }


def main() -> None:
    n_games = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    r = measure(n_games)
    print(
        f"polar {r['variant']} random vs random, {r['n_games']} games, per CPU-second on one core: "
        f"{r['games_per_s_core']:,.0f} games/s (core), "
        f"{r['games_per_s_core_recording_turns']:,.0f} games/s (core + turn recording), "
        f"{r['games_per_s_play_batch']:,.0f} games/s (play_batch with Arrow tables); "
        f"wall clock: {r['games_per_s_core_wall']:,.0f} / {r['games_per_s_core_recording_turns_wall']:,.0f}"
        f" / {r['games_per_s_play_batch_wall']:,.0f}"
    )


if __name__ == "__main__":
    main()
