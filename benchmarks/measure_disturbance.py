"""How well the static hold check (``sim.disturb``) foretells a placement's faults.

Plays seeded Polarity games (as ``bench_polarity.py``: seats alternating)
with the core's ``place_leaner`` wrapped: before each release it takes the
``disturbance`` of the intent the hand plays (after noise) in the world as it
stands, then runs the episode and notes whether any other disc reacted
(``profile_polarity.others_reacted``: fell, flipped, left the circle, touched
the red disc, came into the hand or touched a disc it did not touch before)
and whether a disc came into the hand (R6 c). Rows are binned by the ratio,
so the bar ``HOLD_AIM`` can be read off. Not a speed benchmark (``make
bench`` runs ``bench_*.py`` only): re-run it when the physics or the aim
changes and compare with ``sim.disturb``'s docstring.

    .venv/bin/python benchmarks/measure_disturbance.py --games 8 --seed 20 --set aim_hold=false
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.polarity.physics import core  # noqa: E402
from rules.polarity.records import play_one  # noqa: E402
from sim.disturb import disturbance  # noqa: E402

from bench_polarity import add_game_args, specs  # noqa: E402
from profile_polarity import others_reacted  # noqa: E402

BINS = (0.0, 0.25, 0.5, 0.6, 0.75, 0.9, 1.0, 1.25, 1.5, float("inf"))


def host_height(world, host: int) -> int:
    """Discs stacked under and including ``host`` (1: a foundation)."""
    x, y = world.pos[host, :2]
    r2 = world.params.radius ** 2
    return int(sum(1 for i in range(len(world.live))
                   if world.live[i] and (world.pos[i, 0] - x) ** 2 + (world.pos[i, 1] - y) ** 2 < r2))


def measured_core(rows: list):
    base = core()

    def place_leaner(world, intent, *args, **kw):
        ratio = disturbance(world, intent)
        height = host_height(world, int(intent.host))
        ep = base.place_leaner(world, intent, *args, **kw)
        rows.append({"ratio": ratio, "reacted": others_reacted(ep), "in_hand": bool(ep.in_hand),
                     "tower_host": height > 1})
        return ep

    return dataclasses.replace(base, place_leaner=place_leaner)


def table(rows: list) -> list[dict]:
    out = []
    for lo, hi in zip(BINS, BINS[1:]):
        sel = [r for r in rows if lo <= r["ratio"] < hi]
        if sel:
            out.append({"ratio": f"{lo:g}-{hi:g}", "releases": len(sel),
                        "reacted": round(sum(r["reacted"] for r in sel) / len(sel), 3),
                        "in_hand": round(sum(r["in_hand"] for r in sel) / len(sel), 3),
                        "tower_hosts": sum(r["tower_host"] for r in sel)})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_args(ap)
    ap.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE")
    ap.add_argument("--first", type=int, default=0, help="skip this many games of the seed's list")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    a, b = args.strategies.split(",")
    sets = dict(kv.split("=", 1) for kv in args.set)
    rows: list = []
    sim = measured_core(rows)
    for spec in specs(a, b, args.first + args.games, args.seed, args.variant, sets)[args.first:]:
        row, _ = play_one(spec, sim)
        if row["status"] == "error":
            raise RuntimeError(f"game {spec.index}: {row['error']}")
    out = table(rows)
    print(f"{'ratio':>10} {'releases':>9} {'reacted':>8} {'in_hand':>8} {'tower_hosts':>12}")
    for r in out:
        print(f"{r['ratio']:>10} {r['releases']:>9} {r['reacted']:>8.1%} {r['in_hand']:>8.1%} {r['tower_hosts']:>12}")
    if args.json:
        args.json.write_text(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
