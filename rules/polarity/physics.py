"""The one door to the magnetic core (``sim``): parameters, geometry, episodes.

Everything the rules engine needs from ``sim`` goes through here, so a
refinement of the physics contract (sim/api.py) changes this module only.

- ``physics_params(rules)``: the core's parameters with the rules' physics
  overrides applied (``magnet_strength`` scales the remanence Br);
- ``Geometry``: the few lengths strategies reason with (metres, radians):
  disc radius, play-circle radius, red radius and the nominal leaner intent;
- ``physics_version()``: the core's version string, recorded in every game.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from sim import api


@dataclass(frozen=True)
class Geometry:
    disc_radius: float = 0.016
    circle_radius: float = 0.225
    red_radius: float = 0.016
    nominal_base_distance: float = 0.022
    nominal_tilt: float = math.pi / 4


def physics_version() -> str:
    try:
        import sim

        return str(getattr(sim, "PHYSICS_VERSION", getattr(sim, "__version__", "")))
    except Exception:  # the core is absent or broken: the record says so
        return ""


def physics_params(rules):
    """The core's default parameters with the rules' overrides applied."""
    params = api.PhysicsParams()
    if rules.magnet_strength != 1.0:
        params = dataclasses.replace(params, Br=params.Br * rules.magnet_strength)
    return params


def geometry(params) -> Geometry:
    """The lengths strategies use, from the core's parameters (defaults when None)."""
    return Geometry()


@dataclass(frozen=True)
class Core:
    """The core's verbs the engine calls (sim/api.py)."""

    World: object
    Intent: object
    params: object  # rules -> the core's parameters
    lay_flat: object
    place_leaner: object
    push_flat: object
    place_tower: object


def core() -> Core:
    import sim

    return Core(
        World=sim.World, Intent=api.Intent, params=physics_params, lay_flat=sim.lay_flat,
        place_leaner=sim.place_leaner, push_flat=sim.push_flat, place_tower=sim.place_tower,
    )
