"""Polarity speed: full games per second on one core, per matchup.

Plays ``--games`` standard games for every pair of non-lookahead strategies
and for ``lookahead`` against ``random``, in this one process (one core), and
prints games and turns per CPU second of the process (= per core, whatever
else the machine runs) per matchup; ``--json`` writes the figures. The
first matchup is preceded by one warm-up game so numba compilation (cached on
disk after the first run) is not counted.

``--compare A B --games N`` instead plays N games of A against B (seats
alternating) and prints A's score rate with a 95 % Wilson interval: the
recorded check that different strategies differ (e.g. lookahead vs random).

    .venv/bin/python benchmarks/bench_polarity.py --games 10
    .venv/bin/python benchmarks/bench_polarity.py --compare lookahead random --games 300
    .venv/bin/python benchmarks/bench_polarity.py --quality --games 10 --workers 2

``--quality`` plays ``--games`` games per matchup (default: cautious vs
aggressive, random vs cautious, converter vs capturer) and prints the mix of
end reasons, turns per game after setup, and what became of every released
leaner that ended a turn (``action_state``: leaning, resting = snapped onto
a disc, flat, stacked, in_hand), plus flat retries (R5), R6 fault kinds,
who touched the red disc (R14) and which strategy lost a sudden end.

Quality recorded 2026-11-30 (``--quality --games 10 --workers 2``, seed
2026, standard rules, physics 0.1.0, sim at ca6fec7; load 4-7 on 2 cores).
Turns are counted after the 10 setup placements.

- before (strategies reasoning with a leaner 26 mm from its host, R19 ending
  the game): cautious vs aggressive: 8 red_touched, 1 red_moved, 1
  step_budget, mean 4.4 turns (median 3); released leaners 12 of 40 leaning.
  random vs cautious: 5 step_budget, 4 red_touched, 1 red_moved, mean 8.4;
  29 of 70 leaning. converter vs capturer: 10 step_budget, mean 18.5; 58 of
  139 leaning.
- after (measured clearances in every strategy, R14 red margins, spread
  foundations, R19 ``unsettled=freeze``; commit dee9de6): cautious vs
  aggressive: 3 stack_empty, 3 red_touched (all aggressive's own move), 3
  no_colour_on_mat (aggressive), 1 physics_error (energy); mean 49.1 turns
  (median 48, 21-100); 157 of 400 releases leaning; 54 frozen turns.
  random vs cautious: 9 red_touched (6 by random, 3 by cautious: 4 by the
  action disc, 4 by a foundation dragged in, 1 by a leaner), 1
  physics_error; mean 45.1 turns (median 51); 151 of 383 leaning.

Recorded 2026-12-02 (session 13), ``--games 8 --matchups cautious,aggressive``,
polsim 0.6.0 / physics 0.9.0 (captured towers set down at rest; captures kept
beyond the larger stack's reach): 0.032 games/s/core, 2.0 turns a CPU second
(252.8 CPU s for 8 games, 62.4 turns a game, median 18.5 s, costliest 109.9
s; 5 red_touched, 1 red_moved, 1 no_colour_on_mat, 1 stack_empty). Earlier
that session, with 0.5.0's capture spots, side by side: physics 0.9.0 0.024
(330.6 s, 60.0 turns, costliest 113.9 s), ``--set tower_at_rest=false`` 0.030
(263.4 s, 66.1 turns): other games each time, and 8 of them do not resolve a
change of this size; the captures replayed from recorded worlds do (docs/MEASUREMENTS.md).

Recorded 2026-12-02 (session 12), ``--games 8 --matchups cautious,aggressive``
and the same with ``--quality --workers 1``, polsim 0.5.0 (strategies pass
over leaners the core finds no balance for, ``skip_unbalanced``) beside
0.4.0's code: 0.026 games/s/core, 1.7 turns a CPU second (308.6 CPU s for
8 games, 66.1 turns a game, median 44.8 s, costliest 80.5 s; 3 stack_empty,
3 red_touched, 2 no_colour_on_mat) against 0.025 (324.6 s, 66.2 turns,
median 41.0 s). Quality: gave_up turns 59 -> 28, flat retries (R5) 65 ->
60, released leaners that ended leaning 135 of 270 -> 164 of 303.

Recorded 2026-12-01 (session 11, AMD EPYC, a slow spell), ``--games 8
--matchups cautious,aggressive``, two processes side by side: physics 0.8.0
0.025 games/s/core, 1.6 turns a CPU second (66.2 turns a game, median game
39 CPU s, costliest 73 s; 4 red_touched, 4 stack_empty); with ``--set
tower_hold=false`` (0.7.0's physics) 0.024 games/s/core, 1.2 turns a CPU
second (52.1 turns a game, median 56 s, costliest 124 s; 4 stack_empty, 2
red_touched, 2 no_colour_on_mat). ``--set`` applies to this mode too since
that session (it was read only by ``--compare`` and ``--quality``).

Recorded 2026-12-01 on another machine of the same kind (AMD Zen 3, ~1.5x
slower): ``--games 8 --matchups cautious,aggressive`` with physics 0.4.1 (the
code of the run below) played other games than that run: 80.5 turns a game,
4 red_touched and 4 stack_empty, 0.014 games/s/core, median game 71 CPU s,
costliest 275 s; float results differ between CPUs and games are chaotic.
With physics 0.5.0 (field table) the same command was stopped after 50 CPU
minutes without its summary: per-game cost is heavy-tailed, so physics
versions are compared on replayed placements (sim/integrate.py docstring).

Recorded 2026-12-01, physics 0.4.1 with the inline magnetic pair tests
(bit-identical): ``--games 8 --matchups cautious,aggressive``: 0.032
games/s/core, median game 10.7 CPU s, costliest 141 s; the same games, ends
and turns as the 2026-11-30 run below.

Recorded 2026-11-30, physics 0.4.x (quiet machine unless said):

- ``--games 8 --matchups cautious,aggressive random,cautious`` (physics
  0.4.1): cautious vs aggressive 0.028 games/s/core, median game 12.0 CPU s,
  costliest 156 s (126 turns: a 21-disc captured tower toppled into a chain
  rolling on its rims, awake for the whole budget in several episodes); ends
  4 red_touched, 3 stack_empty, 1 no_colour_on_mat. Random vs cautious
  0.036, median 30 s; 6 red_touched, 2 stack_empty. No game failed.
- ``--compare lookahead random --games 300 --seed 7 --set stack_size=8 --set
  foundations=3`` (physics 0.4.0, one process beside other work): lookahead
  284 wins, 4 draws, 12 losses, score rate 0.953, 95 % Wilson [0.923, 0.972];
  ends 287 stack_empty, 8 red_touched, 5 no_colour_on_mat; 2,600 s.

Recorded 2026-11-29 on the shared 2-core dev machine (load ~8), physics 0.1.0
(sim at e99b62d-e9244a7), CPU seconds of the process:

- ``--games 4`` (standard rules): cautious vs aggressive 0.17 games/s/core
  (13 turns a game: 3 red_touched, 1 step_budget); random vs cautious 0.29;
  random vs aggressive 0.27; random vs converter 0.19; random vs capturer
  0.15; cautious vs converter 0.065; cautious vs capturer 0.086; aggressive
  vs converter 0.41; aggressive vs capturer 0.27; converter vs capturer
  0.12; lookahead vs random 0.044 (1 of 2 games physics_error "energy").
  The physics is >95 % of the time (cProfile); target 5 games/s not met.
- ``--compare lookahead random --games 100 --workers 2 --seed 7 --set
  stack_size=8 --set foundations=3``: lookahead 82 wins, 4 draws, 5 losses,
  9 without winner (step_budget); score rate 0.923, 95 % Wilson [0.85, 0.96].
  Ends: 63 stack_empty, 23 red_touched, 9 step_budget, 5 no_colour_on_mat.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.base import GameSpec, StrategySpec  # noqa: E402
from rules.polarity import GAME  # noqa: E402
from rules.polarity.records import play_batch  # noqa: E402
from rules.seeds import game_seed  # noqa: E402


def add_game_args(ap) -> None:
    """The games a companion script plays (``profile_polarity``, ``replay_episodes``): ``specs``'s arguments."""
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--strategies", default="cautious,aggressive", metavar="A,B")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--variant", default="standard")


def specs(a: str, b: str, n: int, seed: int, variant: str = "standard", sets: dict | None = None) -> list[GameSpec]:
    rules = GAME.with_overrides(GAME.variant(variant), sets or {})
    pa_, pb = StrategySpec.parse(a), StrategySpec.parse(b)
    # seeding 1 (polsim before 0.31.0): the games every session since the first benchmark has timed
    return [GameSpec(i, game_seed(seed, i, seeding=1), variant, rules, (pa_, pb) if i % 2 == 0 else (pb, pa_))
            for i in range(n)]


def timed(a: str, b: str, n: int, seed: int, variant: str = "standard", sets: dict | None = None) -> dict:
    """Games per CPU second of this process (one core), robust to a busy machine."""
    t0, c0 = time.perf_counter(), time.process_time()
    per_game, parts = [], []
    for spec in specs(a, b, n, seed, variant, sets):      # one at a time: a game's CPU seconds each
        c = time.process_time()
        parts.append(play_batch([spec]))
        per_game.append(time.process_time() - c)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    games = pa.concat_tables([g for g, _ in parts])
    turns_rows = sum(t.num_rows for _, t in parts)
    ends = games.column("end_reason").to_pylist()
    return {
        "matchup": f"{a} vs {b}", "games": n, "cpu_seconds": round(cpu, 2), "wall_seconds": round(wall, 2),
        "games_per_s_per_core": round(n / cpu, 3), "turns_per_s_per_core": round(turns_rows / cpu, 1),
        "game_cpu_s_median": round(sorted(per_game)[n // 2], 1), "game_cpu_s_max": round(max(per_game), 1),
        "mean_turns": round(turns_rows / n, 1),
        "errors": games.column("status").to_pylist().count("error"),
        "ends": {e: ends.count(e) for e in sorted(set(map(str, ends)))},
    }


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a proportion (Wilson 1927)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _play_rows(batch: list[GameSpec]) -> list[dict]:
    return play_batch(batch)[0].to_pylist()


def _progress(g: dict) -> None:
    keys = ("game_index", "winner", "score_0", "score_1", "end_reason")
    print(json.dumps({k: g[k] for k in keys}), file=sys.stderr, flush=True)


def compare(a: str, b: str, n: int, seed: int, variant: str = "standard", sets: dict | None = None,
            workers: int = 1) -> dict:
    """A's score rate against B (win 1, draw 1/2) over n games, seats alternating."""
    t0 = time.perf_counter()
    batch = specs(a, b, n, seed, variant, sets)
    games = []
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            for rows_ in pool.map(_play_rows, [[spec] for spec in batch]):
                games += rows_
                _progress(games[-1])
    else:
        for spec in batch:  # one at a time, a line each, so a long run can be read as it goes
            games += _play_rows([spec])
            _progress(games[-1])
    rows = [g for g in games if g["status"] == "ok" and g["winner"] is not None]
    if not rows:
        return {"matchup": f"{a} vs {b}", "games": n, "decided_or_drawn": 0,
                "ends": {e: [g["end_reason"] for g in games].count(e) for e in sorted({str(g["end_reason"]) for g in games})}}
    points = sum(1.0 if g["winner"] == (g["game_index"] % 2) else 0.5 if g["winner"] == -1 else 0.0 for g in rows)
    lo, hi = wilson(points, len(rows))
    return {
        "matchup": f"{a} vs {b}", "games": n, "decided_or_drawn": len(rows),
        "score_rate_a": round(points / len(rows), 3), "ci95": [round(lo, 3), round(hi, 3)],
        "ends": {e: [g["end_reason"] for g in games].count(e) for e in sorted({str(g["end_reason"]) for g in games})},
        "seconds": round(time.perf_counter() - t0, 1), "variant": variant, "sets": sets or {},
    }


def _play_tables(batch: list[GameSpec]):
    c0 = time.process_time()
    g, t = play_batch(batch)
    games, turns = g.to_pylist(), t.to_pylist()
    for row in games:  # one line per game on stderr, so a long run can be followed
        print(json.dumps({"game": row["game_index"], "end": row["end_reason"], "turns": row["n_turns"],
                          "cpu_s": round(time.process_time() - c0, 1)}), file=sys.stderr, flush=True)
    return games, turns


def mix(values) -> dict:
    values = [str(v) for v in values]
    return {k: values.count(k) for k in sorted(set(values), key=lambda k: -values.count(k))}


def quality(a: str, b: str, n: int, seed: int, variant: str = "standard", sets: dict | None = None,
            workers: int = 1) -> dict:
    """Do the games look like Polarity? End reasons, turns per game, and what became of
    every released leaner (from the turns table), for n games of A against B."""
    batch = specs(a, b, n, seed, variant, sets)
    c0 = time.process_time()
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_play_tables, [[s] for s in batch]))
    else:
        parts = [_play_tables([s]) for s in batch]
    games = [g for gs, _ in parts for g in gs]
    turns = [t for _, ts in parts for t in ts]
    setup = 2 * GAME.with_overrides(GAME.variant(variant), sets or {}).foundations
    played = sorted(g["n_turns"] - setup for g in games if g["n_turns"] is not None)
    place = [t for t in turns if t["phase"] == "place" and t["outcome"] in ("placed", "fault")]
    kinds = [k for t in place for k in (t["fault_kinds"] or "").split(",") if k]
    return {
        "matchup": f"{a} vs {b}", "games": n, "variant": variant, "sets": sets or {},
        "ends": mix(g["end_reason"] for g in games),
        "sudden_losers": mix(f"{(a, b)[(g['loser'] + g['game_index']) % 2].split(':')[0]}:{g['loser_cause']}"
                             for g in games if g["loser"] is not None),
        "errors": mix(g["error"] for g in games if g["status"] == "error"),
        "turns_after_setup": {"mean": round(sum(played) / max(1, len(played)), 1),
                              "median": played[len(played) // 2] if played else None,
                              "min": played[0] if played else None, "max": played[-1] if played else None},
        "stacks_left_mean": round(sum(g["stack_0"] + g["stack_1"] for g in games if g["stack_0"] is not None)
                                  / max(1, len(games)) / 2, 1),
        "releases": len(place),
        "action_state": mix(t.get("action_state") for t in place),
        "flat_retries": sum(t["attempts"] - 1 for t in place),
        "gave_up": sum(t["outcome"] == "gave_up" for t in turns),
        "fault_kinds": mix(kinds),
        "red_toucher": mix(t.get("red_toucher") for t in turns if t["red_touched"]),
        "unsettled_turns": sum(bool(t.get("unsettled")) for t in turns),
        "conversions": mix(t["outcome"] for t in turns if t["phase"] == "convert"),
        "captures": mix(t["outcome"] for t in turns if t["phase"] == "capture"),
        "cpu_seconds_driver": round(time.process_time() - c0, 1),
    }


def measure(games: int = 4, matchups: tuple[str, ...] = ("cautious,aggressive", "random,cautious",
                                                        "lookahead,random"), seed: int = 2026) -> dict:
    """Games per second per core for the given matchups (``make bench``)."""
    play_batch(specs("cautious", "aggressive", 1, 999))  # warm-up: numba compile / cache load
    out = {}
    for a, b in (tuple(m.split(",")) for m in matchups):
        out[f"{a} vs {b}"] = timed(a, b, max(2, games // 2) if "lookahead" in (a, b) else games, seed)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--matchups", nargs="*", metavar="A,B", help="only these matchups (default: all)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"))
    ap.add_argument("--quality", action="store_true",
                    help="end reasons, turns per game and leaner outcomes per matchup (not speed)")
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE")
    ap.add_argument("--workers", type=int, default=1, help="processes for --compare")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    sets = dict(kv.split("=", 1) for kv in args.set)
    if args.quality:
        out = []
        for m in args.matchups or ["cautious,aggressive", "random,cautious", "converter,capturer"]:
            t0 = time.perf_counter()
            out.append(quality(*m.split(","), args.games, args.seed, args.variant, sets, args.workers))
            out[-1]["wall_seconds"] = round(time.perf_counter() - t0, 1)
            print(json.dumps(out[-1]), flush=True)
    elif args.compare:
        out = [compare(*args.compare, args.games, args.seed, args.variant, sets, args.workers)]
    else:
        play_batch(specs("cautious", "aggressive", 1, 999))  # warm-up: numba compile / cache load
        names = [n for n in GAME.strategies if n != "lookahead"]
        pairs = [("cautious", "aggressive")] + [p for p in itertools.combinations(names, 2) if p != ("cautious", "aggressive")]
        if args.matchups:
            pairs = [tuple(m.split(",")) for m in args.matchups]
        else:
            pairs.append(("lookahead", "random"))
        out = []
        for a, b in pairs:
            out.append(timed(a, b, max(2, args.games // 3) if "lookahead" in (a, b) else args.games, args.seed,
                             args.variant, sets))
            print(json.dumps(out[-1]), flush=True)
    if args.compare:
        print(json.dumps(out[0]))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
