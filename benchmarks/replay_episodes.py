"""A physics change, A/B on the episodes of real games: replay each under both.

    .venv/bin/python benchmarks/replay_episodes.py --games 6 --seed 2026 --set reuse_lead=0
    .venv/bin/python benchmarks/replay_episodes.py --games 8 --seed 12 --set reuse_pos=5e-6 --json out.json
    .venv/bin/python benchmarks/replay_episodes.py --scene 10 --set contact_skirt=0
    .venv/bin/python benchmarks/replay_episodes.py --games 8 --seed 12 --rounds 3 --set flat_sleep_time=0.08

Plays ``--games`` standard games (seats alternating, as ``bench_polarity.py``)
under the current physics, keeps a copy of the world before every episode the
engine asks of the core (placements, conversions, captures), then replays each
episode from its world twice, in alternation: as is (A) and with the physics
parameters of ``--set`` (B: ``sim.params.PhysicsParams`` fields). Alternating
episode by episode, both sides meet the same spells of a busy machine, so the
CPU ratio holds where wall figures swing. ``--rounds N`` replays each
episode N times a side, still alternating, and counts its median CPU, so one
replay slowed by other work on the machine does not count.

Reported per side: CPU seconds, physics steps and body steps, episodes that ran
to the step budget, and counts of what the episodes did (the Action Disc's end
state, other discs fallen, new contacts, red touches, discs in hand); and how
many episodes ended in another class under B. Chaotic episodes (cascades) move
with any change: a rounding-level change moves ~4 % of them (sim/params.py,
SLEEP), so that share is the floor to read ``changed`` against.
``a_reproduces_the_games``: every A replay ended as the game's own episode, in
as many steps (the core is deterministic; ``tests/test_replay_episodes.py``).

``--scene N``: instead of games, the three placements of ``bench_physics.py``'s
stored mid-game scene (the world physics 0.18.0 built), each replayed N times
in alternation, both sides from that world.

Game-level verdicts (win rates, end reasons) are ``polsim compare``'s job; this
says what a change does to the physics the games are made of, at a fraction
of the CPU.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from pydantic import ValidationError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules.polarity.physics import core  # noqa: E402
from rules.polarity.records import play_one  # noqa: E402
from sim.params import PhysicsParams  # noqa: E402

from bench_polarity import add_game_args, specs  # noqa: E402
from profile_polarity import action_state  # noqa: E402

VERBS = ("place_leaner", "push_flat", "place_tower")


# fields the world's own arrays are built from (its rim points, its field table): not replayable
GEOMETRY = {"radius", "thickness", "magnet_radius", "magnet_thickness", "rim_points", "chamfer", "field_table"}


def record(games) -> list[tuple]:
    """(verb, world before, args, kwargs, (outcome, steps) as played) of every
    episode the games asked for."""
    base = core()
    episodes = []

    def recorded(verb):
        fn = getattr(base, verb)

        def run(world, *args, **kw):
            before = world.copy()
            ep = fn(world, *args, **kw)
            episodes.append((verb, before, args, kw, (outcome(verb, ep), ep.steps)))
            return ep
        return run

    sim = dataclasses.replace(base, **{v: recorded(v) for v in VERBS})
    for spec in games:
        play_one(spec, sim)
    return episodes


def outcome(verb: str, ep) -> tuple:
    return (ep.status, action_state(verb, ep), bool(ep.fallen), bool(ep.new_contacts), bool(ep.red_contacts),
            bool(ep.in_hand))


def scene_episodes(repeat: int) -> list[tuple]:
    """``bench_physics.mid_game_scene``'s placements as ``record`` gives a game's,
    each ``repeat`` times."""
    from bench_physics import mid_game_scene

    world, intents = mid_game_scene()
    base = core()
    episodes = []
    for intent in intents.values():
        ep = base.place_leaner(world.copy(), intent)
        episodes += [("place_leaner", world.copy(), (intent,), {}, (outcome("place_leaner", ep), ep.steps))] * repeat
    return episodes


def with_params(world, overrides: dict):
    w = world.copy()
    if overrides:
        w.params = PhysicsParams(**{**world.params.model_dump(), **overrides})
        w.P = w.params.pack()
    return w


def replay(episodes, overrides: dict, rounds: int = 1) -> dict:
    """Each episode under A and under B, alternating, ``rounds`` times a side: the
    CPU of an episode is the median of its rounds (its steps and outcome, the same
    every round: the core is deterministic, are counted once)."""
    base = core()
    sides = {side: {"cpu_s": 0.0, "steps": 0, "body_steps": 0, "step_budget": 0, "counts": Counter()}
             for side in "AB"}
    changed = reproduced = 0
    for verb, world, args, kw, played in episodes:
        ends, cpu, eps = {}, {"A": [], "B": []}, {}
        for _ in range(rounds):
            for side, params in (("A", {}), ("B", overrides)):
                w = with_params(world, params)
                c = time.process_time()
                eps[side] = getattr(base, verb)(w, *args, **kw)
                cpu[side].append(time.process_time() - c)
        for side in "AB":
            ep = eps[side]
            if side == "A":
                reproduced += (outcome(verb, ep), ep.steps) == played
            s = sides[side]
            s["cpu_s"] += statistics.median(cpu[side])
            s["steps"] += ep.steps
            s["body_steps"] += ep.body_steps
            s["step_budget"] += ep.status == "step_budget"
            ends[side] = outcome(verb, ep)
            status, state, fallen, contacts, red, hand = ends[side]
            s["counts"].update({f"action_{state}": bool(state), "others_fell": fallen, "new_contacts": contacts,
                                "red_touched": red, "in_hand": hand})
        changed += ends["A"] != ends["B"]
    for s in sides.values():
        s["cpu_s"] = round(s["cpu_s"], 2)
        s["counts"] = dict(sorted((k, v) for k, v in s["counts"].items() if v))
    a, b = sides["A"], sides["B"]
    return {"episodes": len(episodes), "a_reproduces_the_games": reproduced == len(episodes),
            "overrides": overrides, "A": a, "B": b, "changed": changed,
            "changed_share": round(changed / max(1, len(episodes)), 3),
            "cpu_ratio_b_over_a": round(b["cpu_s"] / a["cpu_s"], 3) if a["cpu_s"] else None,
            "body_steps_ratio_b_over_a": round(b["body_steps"] / max(1, a["body_steps"]), 3)}


def parse_sets(pairs: list[str]) -> dict:
    fields = PhysicsParams.model_fields
    out = {}
    for kv in pairs:
        key, _, value = kv.partition("=")
        if key not in fields:
            raise SystemExit(f"error: --set {key}: not a PhysicsParams field; see sim/params.py")
        if key in GEOMETRY:
            raise SystemExit(f"error: --set {key}: the recorded worlds are built from it; compare such a "
                             "change with polsim compare")
        out[key] = value
    try:                            # parsed, and a bad value refused, before any game is played
        params = PhysicsParams(**out)
    except ValidationError as e:
        first = e.errors()[0]
        raise SystemExit(f"error: --set {first['loc'][0]}: {first['msg']}") from None
    return {key: getattr(params, key) for key in out}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_game_args(ap)
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="a PhysicsParams field for side B (repeatable)")
    ap.add_argument("--scene", type=int, default=0, metavar="N",
                    help="replay bench_physics.py's stored mid-game scene's placements N times each instead of games")
    ap.add_argument("--rounds", type=int, default=1, metavar="N",
                    help="replay each episode N times a side, alternating, and take its median CPU")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds {args.rounds}: replay each episode at least once a side (--rounds 1)")
    overrides = parse_sets(args.set)
    a, b = args.strategies.split(",")
    episodes = scene_episodes(args.scene) if args.scene else record(specs(a, b, args.games, args.seed, args.variant))
    out = replay(episodes, overrides, args.rounds)
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
