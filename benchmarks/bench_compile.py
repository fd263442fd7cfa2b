"""Cold compile of one Polarity game's numba cores: the bulk of ``make run``
with an empty compile cache (issue #4: under 3 minutes on two cores, each
worker compiling the same cores at once).

Plays game 0 of ``make run``'s experiment (standard rules, 8 discs a player,
3 foundations, cautious vs aggressive, seed 7) in a fresh process whose
numba cache is an empty temporary folder, with numba's compile events
recorded, then the same game in another fresh process with that cache warm.
Reports each process's seconds for the game (cold: compile and play; warm:
cache loads and play), the compile seconds (the top-level compile events
summed), how many functions and compiles, and the functions with the most
exclusive compile seconds (their own, not their callees'; a callee inlined
by numba counts as its caller's). Where the time goes inside numba and LLVM,
and what was tried: the ``sim.jit`` docstring.

Then ``make run``'s two workers, each on one core, one empty cache shared:
game 0 in two processes at once, each compiling everything (as before
sim.warm); and, on another empty cache, the split: ``compile_path`` beside
``compile_aside``, then game 0 in two fresh processes at once, with what
they still compiled ("left to the game"; nothing, when the parts' signatures
are a game's). "In all" is the parts' wall time plus the games'.

    .venv/bin/python benchmarks/bench_compile.py [--top 12] [--json F]

Recorded 2026-12-07 (session 58, polsim 0.34.0, numba 0.68.1; an AMD EPYC
VM, machine otherwise idle): see README and MEASUREMENTS.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from run_all import run_one  # noqa: E402

MAKE_RUN_SPEC = {
    "game": "polarity", "variant": "standard", "games": 40, "seed": 7, "shard_size": 2,
    "cells": [{"matchup": ["cautious", "aggressive"], "overrides": {"stack_size": 8, "foundations": 3}}],
}


def compile_seconds(events) -> tuple[float, dict, dict]:
    """From ``(name, is_start, t)`` compile events in order (nested: a caller's
    compile holds its callees'): (the top-level compiles' seconds summed,
    exclusive seconds per name, compiles per name)."""
    stack, total, own, count = [], 0.0, {}, {}
    for name, is_start, t in events:
        if is_start:
            stack.append([name, t, 0.0])
            continue
        opened, start, inner = stack.pop()
        if opened != name:
            raise ValueError(f"compile events out of order: {name} ends inside {opened}")
        spent = t - start
        own[name] = own.get(name, 0.0) + spent - inner
        count[name] = count.get(name, 0) + 1
        if stack:
            stack[-1][2] += spent
        else:
            total += spent
    if stack:
        raise ValueError(f"compile of {stack[-1][0]} never ended")
    return total, own, count


def cold_game(top: int) -> dict:
    """Play game 0 here with the compile events recorded (``measure`` runs it in a fresh process)."""
    from numba.core import event

    from pipelines.spec import Experiment
    from workers.shard import play_games

    exp = Experiment.model_validate(MAKE_RUN_SPEC)
    wall, cpu = time.perf_counter(), time.process_time()
    with event.install_recorder("numba:compile") as recorder:
        played = play_games(exp, "bench-compile", 0, 1)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    events = [(f"{e.data['dispatcher'].py_func.__module__}.{e.data['dispatcher'].py_func.__qualname__}",
               e.is_start, t) for t, e in recorder.buffer]
    total, own, count = compile_seconds(events)
    costliest = sorted(own.items(), key=lambda item: -item[1])[:top]
    return {"game_wall_s": round(wall, 1), "game_cpu_s": round(cpu, 1), "compile_s": round(total, 1),
            "functions": len(own), "compiles": sum(count.values()),
            "status": played.games["status"][0].as_py(),
            "costliest": [{"function": name, "own_s": round(s, 2), "compiles": count[name]} for name, s in costliest]}


def split_part(part: int) -> dict:
    """Part ``part`` of the split cold compile (sim.warm; ``make run``'s worker ``part``), here."""
    from sim import warm

    t0 = time.perf_counter()
    (warm.compile_path, warm.compile_aside)[part]()
    return {"part_s": round(time.perf_counter() - t0, 1)}


def _in_fresh_process(cache: str, function: str, **kwargs) -> dict:
    figures = run_one("bench_compile", kwargs, function=function, env=dict(os.environ, NUMBA_CACHE_DIR=cache))
    if "error" in figures:
        raise RuntimeError(figures["error"])
    return figures


def _side_by_side(cache: str, calls: list[tuple[str, dict]]) -> list[dict]:
    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: _in_fresh_process(cache, call[0], **call[1]), calls))


def measure(top: int = 12) -> dict:
    with tempfile.TemporaryDirectory(prefix="polsim-compile-") as cache:
        cold = _in_fresh_process(cache, "cold_game", top=top)
        warm = _in_fresh_process(cache, "cold_game", top=0)
    return {"cold": cold, "warm": {k: warm[k] for k in ("game_wall_s", "game_cpu_s", "compile_s", "status")},
            "split": measure_split(top)}


def measure_split(top: int = 12) -> dict:
    """``make run``'s two workers on an empty cache: each playing game 0 at once (no split,
    as before sim.warm); then, on another empty cache, the two parts side by side and
    after them game 0 in two processes at once (what the parts left to compile)."""
    with tempfile.TemporaryDirectory(prefix="polsim-compile-") as cache:
        together = _side_by_side(cache, [("cold_game", {"top": 0})] * 2)
    with tempfile.TemporaryDirectory(prefix="polsim-compile-") as cache:
        parts = _side_by_side(cache, [("split_part", {"part": 0}), ("split_part", {"part": 1})])
        after = _side_by_side(cache, [("cold_game", {"top": top})] * 2)
    ready = max(p["bench_seconds"] for p in parts)
    most = max(after, key=lambda g: g["compile_s"])  # the game that compiled most after the parts
    return {"together_s": max(g["game_wall_s"] for g in together),
            "path_s": parts[0]["part_s"], "aside_s": parts[1]["part_s"],
            "after_s": max(g["game_wall_s"] for g in after), "after_compile_s": most["compile_s"],
            "left": most["costliest"] if most["compile_s"] else [],
            "split_s": round(ready + max(g["bench_seconds"] for g in after), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=12, help="functions to list by their own compile seconds")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    figures = measure(args.top)
    cold, warm = figures["cold"], figures["warm"]
    print(f"cold cache: game 0 of make run {cold['game_wall_s']} s ({cold['game_cpu_s']} CPU s), "
          f"compile {cold['compile_s']} s: {cold['functions']} functions, {cold['compiles']} compiles")
    print(f"warm cache: the same game {warm['game_wall_s']} s ({warm['game_cpu_s']} CPU s)")
    for row in cold["costliest"]:
        print(f"  {row['own_s']:7.2f} s  x{row['compiles']}  {row['function']}")
    split = figures["split"]
    print(f"two processes, one empty cache: game 0 in each at once {split['together_s']} s; "
          f"split (sim.warm): compile_path {split['path_s']} s beside compile_aside {split['aside_s']} s, "
          f"then game 0 in each at once {split['after_s']} s (compile {split['after_compile_s']} s): "
          f"{split['split_s']} s in all")
    for row in split["left"]:
        print(f"  left to the game: {row['own_s']:7.2f} s  x{row['compiles']}  {row['function']}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=2)


if __name__ == "__main__":
    main()
