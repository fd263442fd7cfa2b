"""The contract between the magnetic core and the Polarity rules engine.

The rules engine imports only this module. Units: metres, seconds,
kilograms, radians. The mat is the plane z = 0, its play circle centred on
the origin with radius ``params.circle_radius``. The red disc sits at the
origin at the start (the caller adds it: ``add_flat(0, 0, up, red=True)``).

Colours: ``up = +1`` means the black face (North) is up, ``up = -1`` the white
face (South). For the red disc ``+1`` is the bar face (North), ``-1`` the dot.

World (mutable; ``copy()`` is cheap, for look-ahead and take-backs):
    World.new(params: PhysicsParams | None = None) -> World
    world.add_flat(x, y, up, red=False, owner=-1) -> body id  # flat, at rest, asleep
    world.add_tower(n, x, y, up, owner=-1) -> list[body id]    # n discs stacked, all `up`
    world.remove(ids)                                  # lifted off the mat (ids never reused)
    world.copy() -> World
    world.bodies() -> list[BodyInfo]                   # every body on the mat
    world.body(id) -> BodyInfo
    world.contacts() -> list[tuple[int, int]]          # disc-disc pairs touching now (i < j)

Episodes (each mutates the world, runs until every body sleeps or the step
budget ``params.settle_budget_s`` ends, and returns an ``Episode``):
    lay_flat(world, x, y, up, red=False, owner=-1) -> Episode      # setup foundation
    place_leaner(world, Intent, owner=-1, approach_distance=0.02,
                 approach_height=0.005) -> Episode                  # the hand + release
    push_flat(world, leaner_id, azimuth=None) -> Episode   # conversion: a fingertip
        # presses the leaner's raised face down toward the side it leans to
    lean_azimuth(world, leaner_id) -> float    # that side, as an azimuth on the mat (a reading,
        # no episode): a leaner with nothing under its rim still has one
    place_tower(world, ids, x, y, up) -> Episode                    # capture (ids kept,
                                                                    # ids[0] at the bottom;
                                                                    # set down whole, at rest:
                                                                    # sim.stacking)
    sweep(world, start, end, pusher_radius=0.004) -> Episode        # a fingertip's path
    settle(world) -> Episode                                        # wake all, run to rest
    nominal_intent(world, host, azimuth, up=None, tilt=pi/4, fit=False, hold=False) -> Intent
        # a base distance and tilt where the leaner balances, stable in tilt
        # (static torques over every disc on the mat; outermost balance first,
        # then tilts up to 15 deg either side); up defaults to the host's
        # colour. fit: only poses the hand can bring a disc to (intent_fits).
        # hold: only poses that leave the discs near them in place (intent_holds).
        # A lone foundation: base distance 55.8 mm, settles at 45.8 deg.
        # 2- and 3-disc towers balance only close in, where their top disc
        # jumps into the hand (with hold: no balance), taller ones nowhere:
        # leaning on towers fails in this model.
    balance_intent(world, host, azimuth, up=None, tilt=pi/4, fit=False, hold=False) -> (Intent, bool)
        # the same intent and whether it balances at all: False if no pose
        # balances in tilt (the intent is the pose of strongest support: a
        # leaner released there falls or is flung over, e.g. off a tall tower)
        # or if, balanced in tilt, its neighbours turn it about its base
        # until it rises and falls (sim.balance.turned_balance)
    leaner_pose(world, host, azimuth, base_distance, tilt) -> (centre, normal, u)
    intent_fits(world, Intent) -> bool
        # the leaner and the hand's approach to it (place_leaner's defaults)
        # stay 0.5 mm clear of every disc (sim.fit)
    disturbance(world, Intent) -> float; intent_holds(world, Intent) -> bool
        # the largest static hold ratio of the flat discs and towers near the
        # leaner, at its pose and on the hand's approach; holds: below 0.75
        # (sim.disturb)
Compile ahead (sim.warm): two parts of a cold compile that two workers run side by side
    compile_path()     # the kernels every episode runs
    compile_aside()    # the kernels they call or strategies use, by signature

Noise is the caller's business: the intent passed in is the pose after noise.
The hand approaches from ``approach_distance`` further out along the
azimuth and ``approach_height`` higher at ``params.approach_speed``, holds
``params.hold_time`` and lets go; if a disc touches the held disc on the
way, the hand stops and lifts off ``hold_time`` later.

Refinements of the first draft (all names of the draft still work):
- ``Episode.action`` is also set by ``lay_flat`` (the new disc's id).
- ``Episode.status``: ``settled``; ``step_budget`` (not at rest within the
  budget; the world keeps its last state); ``nan`` or ``energy`` (NaN, a
  speed above ``params.max_speed``, or a centre below the mat): the world is
  restored to its state before the episode, ``final`` describes that state,
  no events are reported. Nothing raises.
- ``World.stop_on_red_contact`` (default False): episodes end with status
  ``red_contact`` at the first step a body touches a red disc, events and
  final state as of that step (for rules where that touch ends the game).
- ``new_contacts``: disc pairs (i < j) that touched at any instant and did
  not touch when the action began (the held disc counts; a new tower's own
  discs touching each other do not).
- ``fallen``: bodies LEANING or RESTING before that end with tilt < 20 deg
  (the Action Disc itself is never listed; read its state in ``final``).
- ``flipped``: bodies present before whose colour shown changed.
- ``moved_diameters``: every body present before that moved, its largest
  horizontal displacement from its start, in disc diameters.
- ``red_displacement``: the red disc's largest displacement, in red radii.
- ``in_hand``: discs hanging on the held disc at release (touching it, not
  the mat); they and the Action Disc leave the world (``live = 0``) and are
  listed in ``final`` with state IN_HAND.
- ``BodyInfo.owner``: the tag given to add_flat/lay_flat/place_leaner.
- ``BodyInfo.leaning_on``: for tilted bodies (LEANING or RESTING) the disc
  whose centre is nearest, within two diameters, to its highest rim point.
- ``BodyInfo`` states: tilt < 20 deg is flat; a flat disc touching a flat
  disc above or below that overlaps it is STACKED.
- Towers are separate stacked bodies; ``BodyInfo.tower`` = id of the lowest.
- Ids: index of the body, never reused; ``world.remove`` keeps the row.
- Every number of the physics is a field of ``PhysicsParams`` (sim.params);
  ``PHYSICS_VERSION`` (sim.version) changes with any change of outcome.
"""

from __future__ import annotations

from sim.episodes import (balance_intent, lay_flat, lean_azimuth, leaner_pose, nominal_intent, place_leaner,
                          place_tower, push_flat, settle, sweep)
from sim.events import BodyInfo, BodyState, Episode, Intent
from sim.disturb import disturbance, intent_holds
from sim.fit import intent_fits
from sim.params import PhysicsParams
from sim.version import PHYSICS_VERSION
from sim.warm import compile_aside, compile_path
from sim.world import World

__all__ = [
    "BodyInfo", "BodyState", "Episode", "Intent", "PhysicsParams", "PHYSICS_VERSION", "World",
    "balance_intent", "compile_aside", "compile_path", "disturbance", "intent_fits", "intent_holds", "lay_flat", "lean_azimuth", "leaner_pose", "nominal_intent", "place_leaner", "place_tower",
    "push_flat", "settle", "sweep",
]
