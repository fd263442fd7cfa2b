"""When a strategy's search finds no leaner that balances, was there one further down?

Plays seeded Polarity games (as ``bench_polarity.py``: seats alternating)
with the strategies' ``tuned_down`` wrapped. Every decision it makes with
``skip_unbalanced`` is a row; when the search (``tunings``, ``host_misses``:
rules/polarity/strategies.py) returned nothing that balances, every ranked
candidate is tuned in turn until one balances, and the row notes how far
down it was. Those decisions end in a throw that falls (R5) unless the
strategy converts instead; a balanced candidate further down says a wider
search could have placed a leaner there. The games are unchanged (the
extra tunings only read the world). Not a speed benchmark (``make bench``
runs ``bench_*.py`` only).

    .venv/bin/python benchmarks/measure_search.py --games 4 --seed 21
    .venv/bin/python benchmarks/measure_search.py --games 4 --seed 21 --strategies cautious:tunings=48,aggressive
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import rules.polarity.strategies as strategies  # noqa: E402
from rules.polarity.physics import core  # noqa: E402
from rules.polarity.records import play_one  # noqa: E402

from bench_polarity import add_game_args, specs  # noqa: E402


def searched(rows: list, tuned_down=strategies.tuned_down):
    """``tuned_down`` that also notes each decision in ``rows``: whether it found a leaner
    that balances and, if not, the rank of the first ranked candidate that does (None: none)."""

    def wrapped(view, ranked, want, *, skip_unbalanced, tries, misses):
        out = tuned_down(view, ranked, want, skip_unbalanced=skip_unbalanced, tries=tries, misses=misses)
        if skip_unbalanced:
            found = any(t.balanced for t in out)
            further = None
            if not found:
                further = next((k for k, c in enumerate(ranked) if strategies.tuned(view, c).balanced), None)
            rows.append({"found": found, "further": further, "ranked": len(ranked), "tuned": len(out)})
        return out

    return wrapped


def summary(rows: list) -> dict:
    missed = [r for r in rows if not r["found"]]
    depths = [r["further"] for r in missed if r["further"] is not None]
    return {"decisions": len(rows), "found_nothing": len(missed), "balanced_further_down": len(depths),
            "median_rank": statistics.median(depths) if depths else None,
            "ranks": sorted(depths)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_args(ap)
    ap.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE")
    ap.add_argument("--first", type=int, default=0, help="skip this many games of the seed's list")
    args = ap.parse_args(argv)
    a, b = args.strategies.split(",")
    sets = dict(kv.split("=", 1) for kv in args.set)
    rows: list = []
    plain = strategies.tuned_down
    strategies.tuned_down = searched(rows, plain)
    try:
        for spec in specs(a, b, args.first + args.games, args.seed, args.variant, sets)[args.first:]:
            row, _ = play_one(spec, core())
            if row["status"] == "error":
                raise RuntimeError(f"game {spec.index}: {row['error']}")
    finally:
        strategies.tuned_down = plain
    out = summary(rows)
    print(f"{out['decisions']} decisions searched; {out['found_nothing']} found no leaner that balances; "
          f"{out['balanced_further_down']} of those had one further down the ranking "
          f"(median rank {out['median_rank']}; ranks {out['ranks']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
