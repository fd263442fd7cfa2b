"""Fixed scenes: the golden suite's cases and the benchmark's worlds.

A scene is a function ``(params) -> Episode`` that builds its world from
constants (or a fixed seed) and runs one episode on it. ``SCENES`` maps a
name to each; ``midgame_world`` builds a seeded world of many discs (flat
foundations of both colours around the red disc, plus a few leaners).
"""

from __future__ import annotations

import numpy as np

from sim import detmath as dm
from sim.episodes import (lay_flat, nominal_intent, place_leaner, place_tower, push_flat,
                          settle)
from sim.events import Episode, Intent
from sim.params import PhysicsParams
from sim.world import World

DEG = np.pi / 180.0


def midgame_world(seed: int = 7, n_flat: int = 12, n_leaners: int = 3,
                  params: PhysicsParams | None = None, spacing: float = 0.066,
                  towers: tuple[int, ...] = ()) -> World:
    """Red disc at the centre, ``n_flat`` foundations (alternating colours) at
    seeded spots at least ``spacing`` apart, the first ones stacked as towers
    of the heights in ``towers``, then ``n_leaners`` nominal leaners on the
    first single foundations still on the mat, on the side facing away from
    the centre.
    Whatever the leaners knock about stays where physics puts it."""
    rng = np.random.default_rng(seed)
    w = World.new(params)
    w.add_flat(0.0, 0.0, 1, red=True)
    spots: list[np.ndarray] = [np.zeros(2)]
    singles = []
    for attempt in range(100_000):
        if len(spots) == n_flat + 1:
            break
        r = 0.195 * np.sqrt(rng.uniform(0.15, 1.0))
        a = rng.uniform(0, 2 * np.pi)
        p = np.array([r * dm.cos(a), r * dm.sin(a)])
        if min(dm.norm(p - q) for q in spots) < spacing:
            continue
        k = len(spots) - 1
        spots.append(p)
        up = 1 if k % 2 else -1
        if k < len(towers):
            w.add_tower(towers[k], p[0], p[1], up, owner=k % 2)
        else:
            singles.append(w.add_flat(p[0], p[1], up, owner=k % 2))
    else:
        raise ValueError(f"cannot place {n_flat} foundations {spacing} m apart")
    placed = 0
    for host in singles:
        if placed == n_leaners:
            break
        if not w.live[host]:                     # an earlier leaner took it off the mat
            continue
        placed += 1
        az = dm.atan2(w.pos[host, 1], w.pos[host, 0])
        place_leaner(w, nominal_intent(w, host, az), owner=int(w.owner[host]))
    return w


def free_azimuth(world: World, host: int) -> float:
    """The direction from ``host`` (of 36) whose nearest other disc is furthest."""
    best, best_gap = 0.0, -1.0
    others = [i for i in np.nonzero(world.live)[0] if i != host]
    for az in np.arange(36) * 10 * DEG:
        probe = world.pos[host, :2] + 0.055 * np.array([dm.cos(az), dm.sin(az)])
        gap = min(dm.norm(world.pos[i, :2] - probe) for i in others)
        if dm.norm(probe) < 0.19 and gap > best_gap:
            best, best_gap = float(az), gap
    return best


def _host(up=1, x=0.0, y=0.0, params=None):
    w = World.new(params)
    return w, w.add_flat(x, y, up)


def lone_flat(p):
    w, _ = _host(params=p)
    return settle(w)


def opposite_far(p):
    w, _ = _host(params=p)
    return lay_flat(w, 0.09, 0.01, -1)


def opposite_snap(p):
    w, _ = _host(params=p)
    return lay_flat(w, 0.04, 0.005, -1)


def same_repel(p):
    w, _ = _host(params=p)
    return lay_flat(w, 0.034, -0.003, 1)


def nominal_black(p):
    w, h = _host(params=p)
    return place_leaner(w, nominal_intent(w, h, 0.4))


def nominal_white(p):
    w, h = _host(-1, params=p)
    return place_leaner(w, nominal_intent(w, h, -2.0))


def noisy_leaner(p):
    w, h = _host(params=p)
    nom = nominal_intent(w, h, 1.0)
    return place_leaner(w, Intent(h, 1.05, nom.base_distance - 0.002, nom.tilt + 3 * DEG, 1))


def leaner_too_far(p):
    w, h = _host(params=p)
    return place_leaner(w, Intent(h, 0.0, 0.09, 45 * DEG, 1))


def leaner_too_close(p):
    w, h = _host(params=p)
    return place_leaner(w, Intent(h, 0.0, 0.04, 45 * DEG, 1))


def host_snaps_to_hand(p):
    """Held so close over its host that the host tips up onto it before release (R8)."""
    w, h = _host(params=p)
    return place_leaner(w, Intent(h, 0.0, 0.03, 45 * DEG, 1))


def leaner_too_low(p):
    w, h = _host(params=p)
    return place_leaner(w, Intent(h, 0.0, 0.04, 20 * DEG, 1))


def snap_to_hand(p):
    w, h = _host(params=p)
    w.add_flat(0.085, 0.0, -1)
    return place_leaner(w, nominal_intent(w, h, 0.0), approach_distance=0.06,
                        approach_height=0.012)


def red_attracts(p):
    w = World.new(p)
    w.add_flat(0.0, 0.0, -1, red=True)
    return lay_flat(w, 0.036, 0.0, 1)


def red_repels(p):
    w = World.new(p)
    w.add_flat(0.0, 0.0, -1, red=True)
    return lay_flat(w, 0.036, 0.0, -1)


def out_of_bounds(p):
    w = World.new(p)
    w.add_flat(0.220, 0.0, 1)
    return lay_flat(w, 0.188, 0.0, 1)


def half_past_the_circle(p):
    """Pushed until its centre is past the circle, a third of it still inside: in (R6(e))."""
    w = World.new(p)
    w.add_flat(0.205, 0.0, 1)
    return lay_flat(w, 0.172, 0.0, 1)


def domino(p):
    """Released too far, the leaner falls sideways onto its neighbour and topples it (domino)."""
    w, h = _host(params=p)
    place_leaner(w, nominal_intent(w, h, 0.0))
    return place_leaner(w, Intent(h, 55 * DEG, 0.075, 45 * DEG, 1))


def leaner_meets_held_disc(p):
    """The held disc carried into a standing leaner: it clings, rim on the mat (R8)."""
    w, h = _host(params=p)
    place_leaner(w, nominal_intent(w, h, 0.0))
    return place_leaner(w, Intent(h, 0.0, 0.085, 45 * DEG, 1))


def conversion(p):
    w, h = _host(params=p)
    leaner = place_leaner(w, nominal_intent(w, h, 0.0)).action
    return push_flat(w, leaner)


def capture_tower(p):
    w = World.new(p)
    a = w.add_flat(0.0, 0.0, 1)
    b = w.add_flat(0.031, 0.0, -1)
    return place_tower(w, [a, b], -0.08, 0.05, -1)


def capture_under_a_leaner(p):
    """A capture carries off the host a sleeping leaner floats on: the leaner falls."""
    w, h = _host(params=p)
    place_leaner(w, nominal_intent(w, h, 0.0))
    return place_tower(w, [h], -0.12, -0.12, 1)


def capture_beyond_a_leaner(p):
    """A capture carries off a disc 55 mm beyond a sleeping leaner, whose field held it
    7 deg low: the leaner rises back near its rest over the lone host."""
    w, h = _host(params=p)
    leaner = place_leaner(w, nominal_intent(w, h, 0.0)).action
    beyond = w.add_flat(w.pos[leaner, 0] + 0.055, w.pos[leaner, 1], 1)
    settle(w)
    return place_tower(w, [beyond], -0.15, -0.12, 1)


def snap_to_tower(p):
    w = World.new(p)
    w.add_tower(3, 0.0, 0.0, 1)
    return lay_flat(w, 0.055, 0.0, -1)


def leaner_on_tower(p):
    w = World.new(p)
    ids = w.add_tower(2, 0.0, 0.0, -1)
    return place_leaner(w, nominal_intent(w, ids[0], 2.5))


def two_leaners(p):
    w, h = _host(params=p)
    place_leaner(w, nominal_intent(w, h, 0.0))
    return place_leaner(w, nominal_intent(w, h, 120 * DEG))


def midgame_placement(p):
    w = midgame_world(11, n_flat=12, n_leaners=3, params=p)
    host = 5
    return place_leaner(w, nominal_intent(w, host, free_azimuth(w, host)))


def midgame_fault(p):
    w = midgame_world(11, n_flat=12, n_leaners=3, params=p)
    return lay_flat(w, float(w.pos[6, 0]) + 0.036, float(w.pos[6, 1]), -int(np.sign(
        w.quat[6, 0] ** 2 + w.quat[6, 3] ** 2 - w.quat[6, 1] ** 2 - w.quat[6, 2] ** 2)))


SCENES = {f.__name__: f for f in (
    lone_flat, opposite_far, opposite_snap, same_repel, nominal_black, nominal_white,
    noisy_leaner, leaner_too_far, leaner_too_close, host_snaps_to_hand, leaner_too_low, snap_to_hand,
    red_attracts, red_repels, out_of_bounds, half_past_the_circle, domino, leaner_meets_held_disc,
    conversion, capture_tower, capture_under_a_leaner, capture_beyond_a_leaner, snap_to_tower, leaner_on_tower,
    two_leaners, midgame_placement, midgame_fault)}


def run_scene(name: str, params: PhysicsParams | None = None) -> Episode:
    return SCENES[name](params or PhysicsParams())
