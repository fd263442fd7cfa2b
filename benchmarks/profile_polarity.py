"""Where a Polarity game's CPU goes: each episode timed and sorted by kind.

    .venv/bin/python benchmarks/profile_polarity.py --games 6
    .venv/bin/python benchmarks/profile_polarity.py --games 6 --strategies random,cautious --json out.json

Plays ``--games`` games (seats alternating, as ``bench_polarity.py``) with
the core's verbs wrapped in timers (the engine takes its core as an
argument: ``rules.polarity.physics.Core``), so the games are the games
``polsim simulate`` plays, bit for bit. Every episode is filed under

- its verb: ``lay_flat`` (setup), ``place_leaner`` (a try), ``push_flat``
  (a conversion), ``place_tower`` (a capture);
- its status: settled, red_contact (stopped at the red touch), step_budget;
- for a try, what the Action Disc became (flat, leaning, resting = snapped
  onto a disc, stacked, in_hand, out = beyond the circle);
- ``others``: whether any other disc reacted (fell, flipped, left the
  circle, touched the red disc, came into the hand, or touched a disc it
  did not touch before) or lay still.

Per kind: episodes, CPU seconds and their share of the games' CPU,
simulated seconds per episode, awake bodies per step (``body_steps`` /
steps) and CPU per body step. ``balance_intent`` (the strategies' balance
scans) is timed the same way; ``elsewhere`` is what is left: strategies,
rule resolution, records. A benchmark's companion, not a target: it says
which episodes a speed-up has to reach.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.base import GameSpec  # noqa: E402
from rules.polarity.physics import core  # noqa: E402
from rules.polarity.records import play_one  # noqa: E402

from bench_polarity import add_game_args, specs  # noqa: E402

VERBS = ("lay_flat", "place_leaner", "push_flat", "place_tower")


def others_reacted(ep) -> bool:
    """Did any disc besides the Action Disc react (R6's faults, R12, R14)?"""
    me = ep.action
    return bool(
        [i for i in ep.fallen + ep.flipped + ep.out_of_bounds if i != me]
        or ep.red_contacts or ep.in_hand
        or any(me not in pair for pair in ep.new_contacts)
    )


def action_state(verb: str, ep) -> str:
    """What a try's Action Disc became (its final state, ``gone`` if it left); "" for other verbs."""
    if verb != "place_leaner":
        return ""
    return next((b.state.value for b in ep.final if b.id == ep.action), "gone")


def kind(verb: str, ep) -> tuple[str, str, str, str]:
    return verb, ep.status, action_state(verb, ep), "reacted" if others_reacted(ep) else "still"


class Ledger:
    """Episodes and balance scans, timed in CPU seconds of this process."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.kinds = defaultdict(lambda: {"episodes": 0, "cpu_s": 0.0, "sim_s": 0.0, "steps": 0, "body_steps": 0})
        self.balance = {"calls": 0, "cpu_s": 0.0}

    def timed_core(self):
        base = core()

        def episode_verb(verb):
            fn = getattr(base, verb)

            def run(*args, **kw):
                c = time.process_time()
                ep = fn(*args, **kw)
                k = self.kinds[kind(verb, ep)]
                k["episodes"] += 1
                k["cpu_s"] += time.process_time() - c
                k["sim_s"] += ep.sim_time
                k["steps"] += ep.steps
                k["body_steps"] += ep.body_steps
                return ep
            return run

        def balance(*args, **kw):
            c = time.process_time()
            out = base.balance_intent(*args, **kw)
            self.balance["calls"] += 1
            self.balance["cpu_s"] += time.process_time() - c
            return out

        return dataclasses.replace(base, balance_intent=balance, **{v: episode_verb(v) for v in VERBS})


def profile(games: list[GameSpec], warm_up: bool = True) -> dict:
    ledger = Ledger()
    sim = ledger.timed_core()
    if warm_up:  # numba compile / cache load, not counted
        play_one(specs("cautious", "aggressive", 1, 999)[0], sim)
        ledger.reset()
    c0 = time.process_time()
    ends = []
    for spec in games:
        row, _ = play_one(spec, sim)
        if row["status"] == "error":  # play_one records failures; here one is a bug to see
            raise RuntimeError(f"game {spec.index}: {row['error']}")
        ends.append(row["end_reason"])
    total = time.process_time() - c0
    rows = []
    for (verb, status, state, others), k in sorted(ledger.kinds.items(), key=lambda kv: -kv[1]["cpu_s"]):
        rows.append({
            "verb": verb, "status": status, "action": state, "others": others, "episodes": k["episodes"],
            "cpu_s": round(k["cpu_s"], 2), "cpu_share": round(k["cpu_s"] / total, 3),
            "sim_s_each": round(k["sim_s"] / k["episodes"], 2),
            "awake_per_step": round(k["body_steps"] / max(1, k["steps"]), 1),
            "us_per_body_step": round(1e6 * k["cpu_s"] / max(1, k["body_steps"]), 2),
        })
    in_episodes = sum(k["cpu_s"] for k in ledger.kinds.values())
    return {
        "games": len(games), "cpu_s": round(total, 1), "games_per_cpu_s": round(len(games) / total, 3),
        "ends": {e: ends.count(e) for e in sorted(set(map(str, ends)))},
        "sim_s_per_game": round(sum(k["sim_s"] for k in ledger.kinds.values()) / len(games), 1),
        "steps_per_game": round(sum(k["steps"] for k in ledger.kinds.values()) / len(games)),
        "episodes": {verb: sum(k["episodes"] for key, k in ledger.kinds.items() if key[0] == verb) for verb in VERBS},
        "episodes_share": round(in_episodes / total, 3),
        "balance_intent": {"calls": ledger.balance["calls"], "cpu_s": round(ledger.balance["cpu_s"], 2),
                           "cpu_share": round(ledger.balance["cpu_s"] / total, 3)},
        "elsewhere_share": round(1 - (in_episodes + ledger.balance["cpu_s"]) / total, 3),
        "kinds": rows,
    }


def show(out: dict) -> None:
    print(f"{out['games']} games, {out['cpu_s']} CPU s ({out['games_per_cpu_s']} games a CPU second), "
          f"{out['sim_s_per_game']} simulated s and {out['steps_per_game']:,} steps a game; ends {out['ends']}")
    head = ("verb", "status", "action", "others", "episodes", "cpu_s", "cpu_share", "sim_s_each",
            "awake_per_step", "us_per_body_step")
    print("  ".join(f"{h:>14}" for h in head))
    for r in out["kinds"]:
        print("  ".join(f"{r[h]:>14}" for h in head))
    b = out["balance_intent"]
    print(f"episodes {out['episodes_share']:.1%} of the CPU; balance_intent {b['cpu_share']:.1%} "
          f"({b['calls']} calls); elsewhere {out['elsewhere_share']:.1%}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_args(ap)
    ap.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    a, b = args.strategies.split(",")
    sets = dict(kv.split("=", 1) for kv in args.set)
    out = profile(specs(a, b, args.games, args.seed, args.variant, sets))
    show(out)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
