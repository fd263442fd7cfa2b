"""Run every benchmark and print one JSON document of figures (``make bench``).

Each ``benchmarks/bench_*.py`` exposes ``measure(**kwargs) -> dict``. Runs
them one after another in fresh processes (so one benchmark's compiled code,
threads or memory do not colour the next) and writes
``benchmarks/out/figures.json``.

    python benchmarks/run_all.py [--only NAME ...] [--quick]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
QUICK = {"bench_run": {"games": 20000}, "bench_analysis": {"games": 100000}, "bench_polar": {"games": 20000},
         "bench_physics": {"repeat": 1, "game_seeds": (11,)}, "bench_polarity": {"games": 2, "matchups": ("cautious,aggressive",)}}


def run_one(name: str, kwargs: dict, function: str = "measure", env: dict | None = None) -> dict:
    """``name.function(**kwargs)`` (a benchmark's ``measure`` unless told) in a
    fresh process with environment ``env`` (this one's unless given)."""
    code = (
        "import json, sys; sys.path.insert(0, %r); import %s as b; "
        "print('@@' + json.dumps(b.%s(**%r)))" % (HERE, name, function, kwargs)
    )
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    line = next((l for l in proc.stdout.splitlines() if l.startswith("@@")), None)
    if proc.returncode != 0 or line is None:
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1]}
    out = json.loads(line[2:])
    out["bench_seconds"] = round(time.perf_counter() - t0, 1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description="run every benchmark")
    ap.add_argument("--only", nargs="*", default=None, help="benchmark module names, e.g. bench_run")
    ap.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = ap.parse_args()
    names = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(HERE, "bench_*.py")))
    if args.only:
        names = [n for n in names if n in args.only]
    figures = {}
    for name in names:
        print(f"running {name} ...", file=sys.stderr, flush=True)
        figures[name] = run_one(name, QUICK.get(name, {}) if args.quick else {})
        print(json.dumps({name: figures[name]}, indent=2), flush=True)
    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    with open(os.path.join(HERE, "out", "figures.json"), "w") as f:
        json.dump(figures, f, indent=2)


if __name__ == "__main__":
    main()
