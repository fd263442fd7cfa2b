"""Physical clearances of the magnetic core, measured, and the footprint of a leaner.

Strategies reason with these lengths instead of guessing: where a released
leaner stands, how far a disc's pull reaches, how close foundations may lie.
All were measured on the core (``sim.api``, default ``PhysicsParams``: discs
30 x 6 mm, 10 g, Br 0.48 T), 2026-11-30, physics 0.1.0, by ad-hoc scans
(not yet a committed script): a white host at (-100, 0) mm, a leaner released
by ``place_leaner(nominal_intent(...))`` toward +x, and one flat disc (or the
red disc) put at 20-90 mm from the leaner's base point in 5 mm steps, at 0,
45, 90 and 135 deg from the azimuth, each colour; ``lay_flat`` next to one
flat disc at 32-77 mm in 3 mm steps; leaners on one lone host every 30-120
deg. Findings:

- ``LEANER_BASE`` 56 mm: ``nominal_intent`` of a lone host at 45 deg puts the
  leaner's lowest rim point 55.8 mm from the host centre (1.86 diameters),
  its centre ``LEANER_CENTRE_IN`` 8 mm further in; the hand starts
  ``HAND_START`` 20 mm further out (``place_leaner``'s approach).
- ``REACH_ATTRACT`` 78 mm: a leaner released by ``nominal_intent`` next to a
  flat disc showing the *other* face (their magnets attract) snapped onto it
  (new contact, ended stacked, resting or in hand) whenever that disc's centre
  was within 70-78 mm of the leaner's centre, in every direction tried (0, 45,
  90, 135 deg from the azimuth); from 78 mm on it leaned. The red disc has the
  same magnet (``br_red = br``): the same reach, with the pairing given by the
  red face up (bar = North = black).
- ``REACH_REPEL`` 75 mm: a flat disc showing the *same* face pushes the leaner
  over; sideways (90, 135 deg) within 60-75 mm it flipped and snapped on,
  straight ahead it is a second cushion and the leaner stood from 48 mm.
- ``REACH_LEANER`` 80 mm: leaners on one lone host at azimuths 90 deg apart
  (centres 65 mm apart) knock each other flat; 120 deg apart (80 mm) hold,
  a third at 240 deg knocked one flat (two neighbours at 80 mm).
- ``FOUNDATION_GAP`` 50 mm: a foundation laid (``lay_flat``) next to a flat
  disc showing the same face pushed it (>= 0.07 diameters) up to 44 mm between
  centres, the other face pulled them together up to 47 mm; from 50 mm
  neither moved.
- A leaner that snaps onto a disc drags it (R6 d counts a move over one
  diameter): ``margins`` also counts, in the red margin, every disc inside
  the leaner's reach whose distance to the red disc is under
  ``FOUNDATION_GAP + CHAIN_SLIDE`` (a cascade into the red disc, R14; seen
  in a cautious vs aggressive game where a leaner's snap pushed a foundation
  laid 80 mm from red into it).
- Towers pull harder: n stacked discs add their fields, the force at a
  distance grows ~n and a dipole force falls ~r^-4, so the reach of an
  n-disc tower is scaled by n^(1/4) (``stack_scale``; an estimate). Measured
  for captures (physics 0.9.0, 2026-12-02, ``benchmarks/measure_tower_reach.py``:
  an n-disc tower set down by ``place_tower`` 55-140 mm from an m-disc
  tower, 5 mm steps, both colours;
  it snapped or moved the other up to, and held from): n x m = 1 x 1 held
  from 55 mm, 4 x 1, 1 x 4 and 2 x 4 snapped up to 60 mm, 8 x 1, 1 x 8,
  2 x 8 and 4 x 4 up to 65, 14 x 1 up to 70, 8 x 8 up to 75. So the larger
  stack sets the reach: ``spot_margin`` scales ``FOUNDATION_GAP`` by the
  larger size (50 mm x 8^(1/4) = 84 mm for a tower next to an 8-disc one;
  before it ignored the other's size, and strategies set 2-disc captures
  60-70 mm from 8-disc towers, which snapped together: cascades of 5-9 CPU s).

So a leaner needs about 75-80 mm (2.5 diameters) from its centre to every
other magnet: a host with its neighbours 120 mm away can hold one or two
leaners, and the red disc keeps leaners' centres ~80 mm away. Everything is
in metres below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim import detmath as dm
from sim.api import BodyInfo, BodyState

LEANER_BASE = 0.056
LEANER_CENTRE_IN = 0.008
HAND_START = 0.020
REACH_ATTRACT = 0.078
REACH_REPEL = 0.075
REACH_LEANER = 0.080
REACH_HAND = 0.050  # the held disc on its approach: a loose disc this near jumps to the hand (estimate)
FOUNDATION_GAP = 0.050
CHAIN_SLIDE = 0.030  # a disc a leaner snaps onto may be dragged about a diameter (R6 d's limit)

TILTED = (BodyState.LEANING, BodyState.RESTING)


def stack_scale(size: int) -> float:
    """How much farther an n-disc stack reaches than one disc: n^(1/4)."""
    return math.sqrt(math.sqrt(max(1, size)))


def reach(body: BodyInfo, up: int, tower_size: int = 1) -> float:
    """How near (centre to centre, metres) a leaner showing ``up`` may stand to ``body``."""
    if body.state in TILTED:
        return REACH_LEANER
    base = REACH_ATTRACT if body.up != up else REACH_REPEL
    return base * stack_scale(tower_size)


def leaner_centre(host_xy, azimuth: float, base_distance: float = LEANER_BASE) -> tuple[float, float]:
    """Where a leaner's centre stands over the mat (metres)."""
    r = base_distance - LEANER_CENTRE_IN
    return host_xy[0] + r * dm.cos(azimuth), host_xy[1] + r * dm.sin(azimuth)


def hand_start(host_xy, azimuth: float, base_distance: float = LEANER_BASE) -> tuple[float, float]:
    r = base_distance - LEANER_CENTRE_IN + HAND_START
    return host_xy[0] + r * dm.cos(azimuth), host_xy[1] + r * dm.sin(azimuth)


def tower_sizes(bodies) -> dict[int, int]:
    """Discs per stack, keyed by every disc of the stack."""
    size: dict[int, int] = {}
    for b in bodies:
        if b.tower >= 0:
            size[b.tower] = size.get(b.tower, 0) + 1
    return {b.id: size.get(b.tower, 1) for b in bodies}


@dataclass(frozen=True)
class Crowd:
    """The bodies as ``margins`` reads them, one array entry per body (built once a
    turn: a strategy asks for the margins of hundreds of candidates)."""
    ids: np.ndarray
    x: np.ndarray
    y: np.ndarray
    tower: np.ndarray
    on_mat: np.ndarray      # neither out nor in hand
    red: np.ndarray
    reach: dict             # up -> ``reach`` of each body for a leaner showing up
    red_gap: np.ndarray     # to the nearest red disc, less FOUNDATION_GAP and CHAIN_SLIDE

    @classmethod
    def of(cls, bodies) -> "Crowd":
        sizes = tower_sizes(bodies)
        reds = [b for b in bodies if b.red]
        red_gap = [min((dm.hypot(b.x - r.x, b.y - r.y) - FOUNDATION_GAP - CHAIN_SLIDE for r in reds),
                       default=math.inf) for b in bodies]
        return cls(
            ids=np.array([b.id for b in bodies], np.int64), x=np.array([b.x for b in bodies], float),
            y=np.array([b.y for b in bodies], float), tower=np.array([b.tower for b in bodies], np.int64),
            on_mat=np.array([b.state not in (BodyState.OUT, BodyState.IN_HAND) for b in bodies], bool),
            red=np.array([b.red for b in bodies], bool),
            reach={up: np.array([reach(b, up, sizes.get(b.id, 1)) for b in bodies], float) for up in (1, -1)},
            red_gap=np.array(red_gap, float))


def margins(bodies, host: BodyInfo, azimuth: float, up: int, circle_radius: float,
            base_distance: float = LEANER_BASE, skip=frozenset()) -> tuple[float, float]:
    """(margin to the nearest disc, margin to the red disc) of a leaner at ``azimuth`` off
    ``host``, showing ``up``: distance from its centre less the measured reach (negative =
    inside the reach), and the hand's start point less ``REACH_HAND``. The circle's edge
    counts as a disc: the base point must stay inside it. The red margin also falls when a
    disc inside the reach lies near the red disc (a cascade, ``CHAIN_SLIDE``). ``bodies``:
    a list of ``BodyInfo`` or their ``Crowd``."""
    crowd = bodies if isinstance(bodies, Crowd) else Crowd.of(bodies)
    cx, cy = leaner_centre((host.x, host.y), azimuth, base_distance)
    hx, hy = hand_start((host.x, host.y), azimuth, base_distance)
    bx, by = host.x + base_distance * dm.cos(azimuth), host.y + base_distance * dm.sin(azimuth)
    disc = circle_radius - dm.hypot(bx, by) - 0.003
    counted = crowd.on_mat & (crowd.ids != host.id)
    if host.tower >= 0:
        counted &= crowd.tower != host.tower
    if skip:
        counted &= ~np.isin(crowd.ids, list(skip))
    dx, dy, hdx, hdy = cx - crowd.x, cy - crowd.y, hx - crowd.x, hy - crowd.y
    m = np.minimum(np.sqrt(dx * dx + dy * dy) - crowd.reach[up], np.sqrt(hdx * hdx + hdy * hdy) - REACH_HAND)
    red = _least(m[counted & crowd.red], math.inf)
    discs = counted & ~crowd.red
    disc = _least(m[discs], disc)
    # a disc inside the leaner's reach is disturbed: it must not reach the red disc when dragged
    red = _least(crowd.red_gap[discs & (m < 0)], red)
    return disc, red


def _least(values: np.ndarray, start: float) -> float:
    return min(start, float(values.min())) if values.size else start


def spot_margin(bodies, x: float, y: float, red_gap: float = FOUNDATION_GAP, size: int = 1) -> tuple[float, float]:
    """(margin to the nearest disc, margin to the red disc) of a flat disc or an n-disc tower
    (``size``) put down at (x, y): centre distance less ``FOUNDATION_GAP`` (``REACH_LEANER``
    for a leaner, ``red_gap`` for the red disc), scaled by the fourth root of the larger of
    the two stacks (``stack_scale``). A disc inside that reach which lies near the red disc
    lowers the red margin too (a cascade, ``CHAIN_SLIDE``)."""
    disc, red = math.inf, math.inf
    sizes = tower_sizes(bodies)
    reds = [b for b in bodies if b.red]
    for b in bodies:
        if b.state in (BodyState.OUT, BodyState.IN_HAND):
            continue
        d = dm.hypot(x - b.x, y - b.y)
        if b.red:
            red = min(red, d - red_gap * stack_scale(size))
            continue
        if b.state in TILTED:
            m = d - REACH_LEANER * stack_scale(size)
        else:
            m = d - FOUNDATION_GAP * stack_scale(max(size, sizes.get(b.id, 1)))
        disc = min(disc, m)
        if m < 0:
            for r in reds:
                red = min(red, dm.hypot(b.x - r.x, b.y - r.y) - FOUNDATION_GAP - CHAIN_SLIDE)
    return disc, red
