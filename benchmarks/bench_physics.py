"""Speed of the physics core on one core (targets: a typical placement episode
<= 5 ms; a fresh process with a warm compile cache finishes its first
episode within 2 s).

    .venv/bin/python benchmarks/bench_physics.py [--repeat 20]

Reports a nominal placement next to a lone foundation (2 discs) and, for a
seeded mid-game world of 37 discs (red disc, 12 single
foundations, six towers of 3-3-3-3-2-2 discs, 8 leaner placements, whatever
they left standing or knocked down; stored in ``midgame_scene.npz`` as
physics 0.18.0 built it, so each physics since is timed on the same world:
``build_scene`` under another physics builds another one, and until session
35 each version was timed on its own, 0.17.0's clearest host a 16,481-step
cascade; tests/test_bench_scene.py checks the file is what 0.18.0's knobs build;
to store another: ``store_scene(build_scene(params))`` and set SCENE_PHYSICS):
episodes per second and ms per episode (wall and process CPU time, the
median of --repeat runs), steps and body steps (awake bodies summed over
steps: the work, independent of machine load) for a nominal leaner placement
on the single foundation with the most room around it (``clear_host``: the
common case in a game), on a crowded host that already carries a leaner
(``nominal_placement``, host 24), and for a snap fault there (released too
close); magnetic pair evaluations per second
by distance; and the wall time from a fresh process to its first finished
episode (compile cache warm: run once before measuring).

``game_placements``: the placements a real game makes, the honest "typical"
(one built scene can land on a lucky or an unlucky host: after physics
0.4.0 rebuilt ``midgame_world`` differently, its clearest host's leaner rolled
off into a cascade; and one game is another game under each physics version:
seed 11 made 30 placements under 0.12.1, 46 under 0.13.0, and their median
went 17 -> 39 ms on one spell). Plays the ``--game-seed`` standard games
(default 11-14, pooled: ~150 placements) of cautious vs aggressive
(rules.polarity), records the world before each ``place_leaner``
with its intent, then replays each once and reports CPU ms per placement
(median, mean, 90th percentile), body steps, and the share of all placement
CPU spent in the costliest 5 % (cascades: several discs awake for seconds),
and the clean ones apart (``is_clean``: settled leaning, nothing else moved),
with the CPU of their hand phase alone (``carry_cpu``: approach and hold, up
to the release; ~40 % of it the magnetic wake checks of the sleepers near
the moving held disc, game seed 11, session 17).
``--skip-game`` leaves it out (it takes the games' time twice, ~1-2 min).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sim.api import Intent, World, nominal_intent, place_leaner  # noqa: E402
from sim.magnetics import pair_force_torque  # noqa: E402
from sim.magnetics_table import field_table  # noqa: E402
from sim.scenes import free_azimuth, midgame_world  # noqa: E402
from sim.world import STATE_ARRAYS  # noqa: E402

GAME_SEEDS = (11, 12, 13, 14)

FIRST_EPISODE = """
import time
t0 = time.perf_counter()
from sim.api import World, nominal_intent, place_leaner
w = World.new()
h = w.add_flat(0.0, 0.0, 1)
ep = place_leaner(w, nominal_intent(w, h, 0.0))
print(time.perf_counter() - t0, time.time(), ep.status, flush=True)
"""


def time_episodes(world, intent, repeat):
    times, cpu, steps, statuses, body_steps = [], [], [], set(), 0
    for _ in range(repeat):
        w = world.copy()
        t, c = time.perf_counter(), time.process_time()
        ep = place_leaner(w, intent)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        steps.append(ep.steps)
        statuses.add(ep.status)
        body_steps = ep.body_steps
    t, c = float(np.median(times)), float(np.median(cpu))
    n = max(1, int(np.median(steps)))
    return {"ms_per_episode": 1e3 * t, "cpu_ms_per_episode": 1e3 * c, "episodes_per_s": 1.0 / t,
            "steps": int(np.median(steps)), "body_steps": body_steps, "us_per_step": 1e6 * t / n, "cpu_us_per_step": 1e6 * c / n,
            "status": sorted(statuses)}


@njit(cache=True)
def _pairs(ci, ni, cj, nj, reps, table, out):
    for _ in range(reps):
        for k in range(ci.shape[0]):
            pair_force_torque(ci[k], ni[k], cj[k], nj[k], 0.013, 0.004, 0.48, 0.48, table, out)


def pair_rate(distance, reps=200):
    rng = np.random.default_rng(1)
    n = 64
    ci = np.zeros((n, 3))
    ni = rng.normal(size=(n, 3))
    nj = rng.normal(size=(n, 3))
    ni /= np.linalg.norm(ni, axis=1)[:, None]
    nj /= np.linalg.norm(nj, axis=1)[:, None]
    d = rng.normal(size=(n, 3))
    cj = distance * d / np.linalg.norm(d, axis=1)[:, None]
    out = np.zeros(9)
    table = field_table(0.013, 0.002)
    _pairs(ci, ni, cj, nj, 1, table, out)
    t = time.perf_counter()
    _pairs(ci, ni, cj, nj, reps, table, out)
    return n * reps / (time.perf_counter() - t)


def clear_host(world):
    """(host, azimuth): the single flat foundation whose freest side has the
    most room (nearest other disc to the probe point furthest away)."""
    singles = [int(i) for i in np.nonzero(world.live)[0] if not world.red[i]
               and sum(np.hypot(*(world.pos[j, :2] - world.pos[i, :2])) < world.params.radius
                       for j in np.nonzero(world.live)[0]) == 1 and world.pos[i, 2] < world.params.thickness]
    def room(h):
        az = free_azimuth(world, h)
        probe = world.pos[h, :2] + 0.055 * np.array([np.cos(az), np.sin(az)])
        return min(np.hypot(*(world.pos[j, :2] - probe)) for j in np.nonzero(world.live)[0] if j != h)
    host = max(singles, key=room)
    return host, free_azimuth(world, host)


def game_placements(seeds=GAME_SEEDS) -> dict:
    """CPU cost of every leaner placement of seeded standard games, replayed."""
    import sim.api as api
    from rules.base import GameSpec, StrategySpec
    from rules.polarity import GAME
    from rules.polarity.records import play_batch
    from rules.seeds import game_seed

    recorded, place = [], api.place_leaner

    def recording(world, intent, *args, **kwargs):
        recorded.append((world.copy(), intent, args, kwargs))
        return place(world, intent, *args, **kwargs)

    api.place_leaner = recording
    try:
        pair = (StrategySpec.parse("cautious"), StrategySpec.parse("aggressive"))
        play_batch([GameSpec(k, game_seed(s, 0, seeding=1), "standard", GAME.variant("standard"), pair)  # earlier sessions' games
                    for k, s in enumerate(seeds)])
    finally:
        api.place_leaner = place
    cpu, body, clean, carry = [], [], [], []
    for world, intent, args, kwargs in recorded:
        before = world.copy()
        c = time.process_time()
        ep = place(world, intent, *args, **kwargs)
        cpu.append(time.process_time() - c)
        body.append(ep.body_steps)
        clean.append(is_clean(ep))
        if clean[-1]:
            carry.append(carry_cpu(before, intent, *args, **kwargs))
    cpu_ms = np.array(cpu) * 1e3
    top = np.sort(cpu_ms)[::-1][: max(1, len(cpu_ms) // 20)]
    clean_ms = cpu_ms[np.array(clean, dtype=bool)]
    return {"game_seeds": list(seeds), "placements": len(cpu_ms),
            "cpu_ms_median": round(float(np.median(cpu_ms)), 1), "cpu_ms_mean": round(float(cpu_ms.mean()), 1),
            "cpu_ms_p90": round(float(np.percentile(cpu_ms, 90)), 1),
            "body_steps_median": int(np.median(body)), "body_steps_mean": int(np.mean(body)),
            "top_5pct_share_of_cpu": round(float(top.sum() / cpu_ms.sum()), 2),
            "clean_placements": int(clean_ms.size),
            "clean_cpu_ms_median": round(float(np.median(clean_ms)), 1) if clean_ms.size else None,
            "clean_share_of_cpu": round(float(clean_ms.sum() / cpu_ms.sum()), 2),
            "clean_carry_cpu_ms_median": round(float(np.median(carry)) * 1e3, 1) if carry else None,
            "clean_carry_share_of_clean_cpu": round(float(sum(carry) * 1e3 / clean_ms.sum()), 2) if carry else None}


def carry_cpu(world, intent, *args, **kwargs) -> float:
    """CPU seconds of a placement's hand phase alone (approach and hold, up to the
    release): the same episode with a settle budget of one step."""
    params = world.params.model_copy(update={"settle_budget_s": world.params.dt})
    world.params, world.P = params, params.pack()
    c = time.process_time()
    place_leaner(world, intent, *args, **kwargs)
    return time.process_time() - c


def is_clean(ep) -> bool:
    """A placement that settles leaning and disturbs nothing: no new contact, nothing
    fallen, no other disc moved 0.05 diameters (woken discs jitter by ~0.01 mm)."""
    action = next((b for b in ep.final if b.id == ep.action), None)
    return (ep.status == "settled" and not ep.new_contacts and not ep.fallen and action is not None
            and action.state.value == "leaning"
            and all(d < 0.05 for i, d in ep.moved_diameters.items() if i != ep.action))


def first_episode_seconds():
    """A fresh interpreter runs one lone placement (the compile cache warmed by
    a first run). ``start_to_episode_s``, the figure the target is about:
    from just before the process is spawned to the episode's end (the
    child's wall clock); ``import_to_episode_s``: from the child's first
    line; ``exit_s``: from the episode's end to the process gone (CPython's
    teardown of numba's and llvmlite's objects, ~0.4-0.7 s: not the core's
    time, but a script that ends there waits for it)."""
    subprocess.run([sys.executable, "-c", FIRST_EPISODE], check=True, capture_output=True)
    t_wall, t = time.time(), time.perf_counter()
    out = subprocess.run([sys.executable, "-c", FIRST_EPISODE], check=True, capture_output=True,
                         text=True).stdout.split()
    whole = time.perf_counter() - t
    to_episode = float(out[1]) - t_wall
    return {"start_to_episode_s": round(to_episode, 3), "import_to_episode_s": round(float(out[0]), 3),
            "exit_s": round(whole - to_episode, 3), "process_wall_s": round(whole, 3), "status": out[2]}


SCENE_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "midgame_scene.npz")
SCENE_PHYSICS = "0.18.0"        # the physics that built the stored scene


def build_scene(params=None) -> World:
    """The seeded 37-disc mid-game world, built by the physics of ``params``."""
    return midgame_world(7, n_flat=18, n_leaners=8, towers=(3, 3, 3, 3, 2, 2), params=params)


def store_scene(world: World, path: str = SCENE_FILE) -> None:
    np.savez(path, **{name: getattr(world, name) for name in STATE_ARRAYS})


def stored_scene(path: str = SCENE_FILE, params=None) -> World:
    """The mid-game world as physics SCENE_PHYSICS built it, every body asleep where
    it came to rest, under the core's parameters (or ``params``: any but the discs'
    size and magnets, which the stored poses and remanences were made with)."""
    world = World.new(params)
    with np.load(path) as arrays:
        for name in STATE_ARRAYS:
            setattr(world, name, arrays[name].copy())
    return world


def mid_game_scene(params=None):
    """The stored 37-disc world (``stored_scene``: a physics that built its own world
    would time other episodes, e.g. 0.19.0's clearest host an 8,001-step cascade)
    and its three placements: on the clearest host, on a crowded host (24, a single
    foundation that already carries a leaner), and a snap fault there."""
    world = stored_scene(params=params)
    host = 24
    assert world.live[host]
    az = free_azimuth(world, host)
    nominal = nominal_intent(world, host, az)
    clear, clear_az = clear_host(world)
    return world, {"clear_host_placement": nominal_intent(world, clear, clear_az), "nominal_placement": nominal,
                   "snap_fault": Intent(host, az, 0.030, nominal.tilt, nominal.up)}


def measure(repeat: int = 3, game_seeds=GAME_SEEDS) -> dict:
    world, intents = mid_game_scene()
    place_leaner(world.copy(), intents["nominal_placement"])  # compile / load cache
    lone = World.new()
    lone_host = lone.add_flat(0.0, 0.0, 1)
    lone_intent = nominal_intent(lone, lone_host, 0.0)
    return {
        "lone_host_nominal_placement": time_episodes(lone, lone_intent, repeat),
        "clear_host_placement": time_episodes(world, intents["clear_host_placement"], repeat),
        "bodies": int(world.live.sum()),
        "awake_at_start": int(world.awake.sum()),
        "nominal_placement": time_episodes(world, intents["nominal_placement"], repeat),
        "snap_fault": time_episodes(world, intents["snap_fault"], repeat),
        "pair_evals_per_s": {f"{d * 1e3:.0f} mm": round(pair_rate(d)) for d in
                             (0.031, 0.040, 0.060, 0.120)},
        "first_episode_fresh_process": first_episode_seconds(),
        "game_placements": game_placements(game_seeds) if game_seeds else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--game-seed", type=int, action="append", help="seed of a recorded game (repeatable; default 11 12 13 14)")
    parser.add_argument("--skip-game", action="store_true", help="leave out the placements of a real game")
    args = parser.parse_args()
    seeds = () if args.skip_game else tuple(args.game_seed or GAME_SEEDS)
    print(json.dumps(measure(args.repeat, seeds), indent=2))


if __name__ == "__main__":
    main()
