"""How far a stack reaches another: the scan behind ``clearance.spot_margin``.

An n-disc tower is set down by ``place_tower`` (as a capture is) at 5 mm
steps from an m-disc tower standing alone on the mat, showing the other
colour (they attract) and the same colour (they repel). A distance is
marked ``X`` when the two touched or the standing tower moved more than 0.07
diameters. Not a speed benchmark (``make bench`` runs ``bench_*.py`` only):
re-run it when the physics changes and compare with the clearance docstring.

    .venv/bin/python benchmarks/measure_tower_reach.py 2x8 8x1 4x4

Recorded 2026-12-02, physics 0.9.0 (X up to, and held from): 1x1 held from
55 mm; 4x1, 1x4, 2x4 up to 60 mm; 8x1, 1x8, 2x8, 4x4 up to 65; 14x1 up to 70;
8x8 up to 75; the same colour reaches as far or less (14x1: 60, 2x4: 55).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sim.api import World, place_tower  # noqa: E402


def reached(placed: int, standing: int, distance: float, same_colour: bool) -> bool:
    world = World.new()
    tower = world.add_tower(standing, 0.0, 0.0, 1)
    group = [world.add_flat(-0.15 + 0.031 * k, -0.15, 1) for k in range(placed)]
    ep = place_tower(world, group, distance, 0.0, 1 if same_colour else -1)
    moved = any(d > 0.07 for i, d in ep.moved_diameters.items() if i in tower)
    return bool(ep.new_contacts) or moved


def scan(placed: int, standing: int, start_mm: int, stop_mm: int, step_mm: int) -> dict[str, str]:
    return {("same" if same else "other") + " colour": " ".join(
        f"{d}:{'X' if reached(placed, standing, d * 1e-3, same) else '.'}"
        for d in range(start_mm, stop_mm + 1, step_mm)) for same in (False, True)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pairs", nargs="+", metavar="NxM", help="an N-disc tower set down near an M-disc tower")
    ap.add_argument("--from-mm", type=int, default=55)
    ap.add_argument("--to-mm", type=int, default=140)
    ap.add_argument("--step-mm", type=int, default=5)
    args = ap.parse_args(argv)
    for pair in args.pairs:
        try:
            placed, standing = (int(v) for v in pair.lower().split("x"))
        except ValueError:
            ap.error(f"pair {pair!r} is not NxM (for example 2x8)")
        for colour, row in scan(placed, standing, args.from_mm, args.to_mm, args.step_mm).items():
            print(f"{placed} by {standing}, {colour}: {row}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
