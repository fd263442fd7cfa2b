"""The one door to the magnetic core (``sim.api``): parameters, geometry, episodes.

Everything the rules engine needs from ``sim`` goes through here, so a
refinement of the physics contract (sim/api.py) changes this module only.

- ``physics_params(rules)``: the core's ``PhysicsParams`` with the rules'
  physics overrides applied (``magnet_strength`` scales the remanence Br of
  every disc, red included; ``settle_budget_s`` is R19's step budget;
  ``contact_substeps``, when set, the core's sub-steps of moving contacts;
  ``dt``, when set, the core's fixed step (the ``fine-step`` variant halves it);
  ``flat_sleep_time``, when set, how long an island of flat discs stays still
  before it sleeps (0.08 s, the sleep time of every island: physics 0.18.0);
  ``tower_hold`` false, the wake check of physics 0.7.0 and before;
  ``tower_at_rest`` false, physics 0.8.0's capture, its discs let go apart;
  ``compound`` false, physics 0.9.0: a toppled stack's discs each moved alone;
  ``reuse_lead`` 0, physics 0.10.0: magnetic pair results held from the pose
  they were computed at, not from a pose ahead along the pair's motion;
  ``far_dipole`` 0, physics 0.11.0: a far pair's whole result held, not only
  what it has beyond its dipole term; ``contact_skirt`` 0, physics 0.12.1;
  ``frame_turn`` false, physics 0.13.1: the magnetic kernel's samples
  turn with the pose without the work that turn does; ``blend_work`` false,
  physics 0.14.0: the kernel's blends between sampling rules and tiers
  without the work of their weight; ``reuse_momentum`` false, physics 0.15.0:
  a reused pair result served with the torque of the pose it was computed at;
  ``converged_gap`` false, physics 0.16.0: the kernel's edge gap by three
  projection rounds; ``fitted_lead`` false, physics 0.17.0: every led pair
  computed ``reuse_lead`` of a tolerance ahead; ``lift_clinging``,
  ``out_entirely`` and ``red_stays`` false together, physics 0.19.0: only
  discs touching no mat go up with the held disc, the red disc among them, and
  a disc is out when its centre is); ``compound_labels`` false, physics
  0.20.0: a compound body's members forgot the faces they pressed into each
  other through; ``hold_bottom_face`` false, physics 0.21.0: the hold test
  of a sleeping tower took a white-up disc's torque about its top face;
  ``wake_vacated`` false, physics 0.22.0: a capture that carried a disc off
  left a sleeping leaner on it hanging in the air; ``wake_field`` false,
  physics 0.23.0: a capture woke no sleeper whose magnetic pull it changed;
- ``Geometry``: the few lengths strategies reason with (metres, radians):
  disc radius, play-circle radius, red radius and the nominal tilt (the
  core's ``balance_intent`` finds each leaner's base distance; the measured
  reaches strategies keep are in ``rules.polarity.clearance``);
- ``Core``: the verbs the engine calls (``core()`` is the real one);
- ``physics_version()``: the core's version string, recorded in every game.
- ``compile_path`` and ``compile_aside``: the two halves of a cold compile that
  a run's first two workers split (``sim.warm``), the game's ``warm_parts``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rules.base import before_version
from sim.api import compile_aside, compile_path  # noqa: F401 - re-exported: the game's warm_parts


@dataclass(frozen=True)
class Geometry:
    disc_radius: float = 0.016
    circle_radius: float = 0.225
    red_radius: float = 0.016
    nominal_tilt: float = math.pi / 4


def physics_version() -> str:
    from sim.api import PHYSICS_VERSION

    return str(PHYSICS_VERSION)


# Each physics knob whose other value plays the physics before the version that made
# its default: (that version, knob, value). Knobs of one version combine with every
# newer one's (docs/MEASUREMENTS.md lists the combinations tested bit for bit).
RESTORES = (
    ((0, 24, 0), "wake_field", False),
    ((0, 23, 0), "wake_vacated", False),
    ((0, 22, 0), "hold_bottom_face", False),
    ((0, 21, 0), "compound_labels", False),
    ((0, 20, 0), "lift_clinging", False),
    ((0, 20, 0), "out_entirely", False),
    ((0, 20, 0), "red_stays", False),
    ((0, 19, 0), "flat_sleep_time", 0.08),
    ((0, 18, 0), "fitted_lead", False),
    ((0, 17, 0), "converged_gap", False),
    ((0, 16, 0), "reuse_momentum", False),
    ((0, 15, 0), "blend_work", False),
    ((0, 14, 0), "frame_turn", False),
    ((0, 13, 0), "contact_skirt", 0.0),
    ((0, 12, 0), "far_dipole", 0.0),
    ((0, 11, 0), "reuse_lead", 0.0),
    ((0, 10, 0), "compound", False),
    ((0, 9, 0), "tower_at_rest", False),
    ((0, 8, 0), "tower_hold", False),
    ((0, 7, 0), "contact_substeps", 1),
)


def physics_restores(version: str) -> dict:
    """The knobs that play games as physics ``version`` did (for replays of runs made
    with it): every knob a later version brought, at its restoring value; ``{}`` for
    this version or one that is not a version number."""
    return before_version(RESTORES, version)


# the rules' physics knobs passed to the core: these when set (None: the core's default) ...
SET_WHEN_GIVEN = ("contact_substeps", "dt", "reuse_lead", "far_dipole", "contact_skirt", "flat_sleep_time")
# ... and these when switched off (each false plays an older physics: RESTORES)
SWITCHED_OFF = ("tower_hold", "tower_at_rest", "compound", "frame_turn", "blend_work", "reuse_momentum",
                "converged_gap", "fitted_lead", "lift_clinging", "out_entirely", "red_stays", "compound_labels",
                "hold_bottom_face", "wake_vacated", "wake_field")


def physics_params(rules):
    """The core's default parameters with the rules' overrides applied."""
    from sim.api import PhysicsParams

    base = PhysicsParams()
    update = {
        "br": base.br * rules.magnet_strength,
        "br_red": base.br_red * rules.magnet_strength,
        "settle_budget_s": rules.settle_budget_s,
    }
    update.update({knob: getattr(rules, knob) for knob in SET_WHEN_GIVEN if getattr(rules, knob) is not None})
    update.update({knob: False for knob in SWITCHED_OFF if not getattr(rules, knob)})
    return base.model_copy(update=update)


def geometry(params) -> Geometry:
    """The lengths strategies use, from the core's parameters (defaults when None)."""
    if params is None:
        return Geometry()
    a = params.radius
    return Geometry(disc_radius=a, circle_radius=params.circle_radius, red_radius=a)


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
    balance_intent: object = None  # (Intent, whether it balances at all): what strategies tune to
    lean_azimuth: object = None    # the side a leaner leans to: where strategies press it flat (R7)


def core() -> Core:
    from sim import api

    return Core(
        World=api.World, Intent=api.Intent, params=physics_params, lay_flat=api.lay_flat,
        place_leaner=api.place_leaner, push_flat=api.push_flat, place_tower=api.place_tower,
        balance_intent=api.balance_intent, lean_azimuth=api.lean_azimuth,
    )
