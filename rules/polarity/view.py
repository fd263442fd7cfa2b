"""What a strategy sees and what it may answer.

A ``View`` is the table as seen by the seat to move: the bodies on the mat
(``sim.api.BodyInfo``, metres), the bookkeeping ``Table``, the rules and the
``Geometry``; ``nominal`` (set by the engine) asks the core for the base
distance at which a leaner balances and whether any does (static torques,
no simulation; without it, the lone-host distance measured in
``clearance``);
``leans_toward`` (set by the engine) gives the azimuth a leaner leans to;
``trial`` plays one action on a *copy* of the world and returns its
``Resolution`` (look-ahead only). Answers:

- setup and capture: a spot ``(x, y)`` on the mat;
- a turn: ``Place`` (an intent for a leaner on one of your hosts) or
  ``Convert`` (push one of your leaners flat, R7), or ``None`` (no move).

Helpers give the quantities strategies reason with: your hosts (R4: flat
discs showing your colour and towers you control), your leaners, where a
leaner would stand, and whether a spot is legal for a flat disc (R3: wholly inside
the circle, touching no disc; ``rim_gap``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from sim import detmath as dm
from sim.api import BodyInfo, BodyState

from rules.polarity import clearance
from rules.polarity.physics import Geometry
from rules.polarity.state import Table, colour


@dataclass(frozen=True)
class Place:
    host: int
    azimuth: float
    base_distance: float
    tilt: float
    balanced: bool = True  # False: the core found no pose of host and direction that balances


@dataclass(frozen=True)
class Convert:
    leaner: int
    azimuth: float


Action = Place | Convert | None


@dataclass
class View:
    seat: int
    bodies: list[BodyInfo]
    table: Table
    rules: object
    geo: Geometry
    trial: Callable[..., object] | None = field(default=None, repr=False)
    nominal: Callable[[int, float, float], tuple[float, bool]] | None = field(default=None, repr=False)
    leans_toward: Callable[[int], float] | None = field(default=None, repr=False)  # a leaner's side (set by the engine)
    setup: bool = False  # laying a foundation (R3): ``legal_spot`` also keeps ``foundation_red_gap_mm``
    _crowd: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def up(self) -> int:
        return colour(self.seat)

    def by_id(self) -> dict[int, BodyInfo]:
        return {b.id: b for b in self.bodies}

    def crowd(self) -> tuple[clearance.Crowd, dict[int, BodyInfo]]:
        """The bodies as ``clearance.margins`` reads them, and by id: built on first use
        (a view's bodies stay as they are; strategies ask for hundreds of margins)."""
        if self._crowd is None:
            self._crowd = (clearance.Crowd.of(self.bodies), self.by_id())
        return self._crowd

    def discs(self) -> list[BodyInfo]:
        return [b for b in self.bodies if not b.red and b.state != BodyState.OUT]

    def red(self) -> BodyInfo | None:
        return next((b for b in self.bodies if b.red), None)

    def hosts(self, seat: int | None = None) -> list[BodyInfo]:
        """R4: flat discs showing the seat's colour, and the bottoms of its towers."""
        seat = self.seat if seat is None else seat
        in_towers = self.table.tower_ids()
        pending = {i for g in self.table.pending for i in g.ids}
        found = [
            b
            for b in self.discs()
            if b.state == BodyState.FLAT and b.up == colour(seat) and b.id not in in_towers | pending
        ]
        by_id = self.by_id()
        for t in self.table.towers_of(seat):
            bottom = by_id.get(t.ids[0])
            if bottom is not None:
                found.append(bottom)
        return found

    def leaners(self, seat: int | None = None) -> list[BodyInfo]:
        seat = self.seat if seat is None else seat
        return [b for b in self.discs() if b.state == BodyState.LEANING and b.up == colour(seat)]

    def foundations(self, seat: int | None = None) -> int:
        return len([h for h in self.hosts(seat) if self.table.tower_of(h.id) is None])

    def nominal_distance(self, host: int, azimuth: float, tilt: float) -> float:
        """Base distance at which a leaner balances at ``tilt`` off ``host`` (the core's estimate)."""
        return self.nominal_pose(host, azimuth, tilt)[0]

    def nominal_pose(self, host: int, azimuth: float, tilt: float) -> tuple[float, float, bool]:
        """(base distance, tilt, balances): where the core balances a leaner of this host and
        direction near ``tilt`` (it tries up to 15 degrees either side: ``aim_tilt`` keeps the
        tilt it found, else ``tilt``), and whether it found any such pose (False: the pose of
        strongest support, where a released leaner falls or is flung over)."""
        return self.nominal(host, azimuth, tilt) if self.nominal else (clearance.LEANER_BASE, tilt, True)

    def leaner_points(self, host: BodyInfo, azimuth: float, base_distance: float, tilt: float):
        """The leaner's lower rim point and centre on the mat plane, as two (x, y)."""
        ux, uy = dm.cos(azimuth), dm.sin(azimuth)
        centre = base_distance - self.geo.disc_radius * dm.cos(tilt)
        return (host.x + base_distance * ux, host.y + base_distance * uy), (host.x + centre * ux, host.y + centre * uy)

    def rim_gap(self, x: float, y: float) -> float:
        """Gap from the rim of a flat disc laid at (x, y) to the nearest other disc's rim, or to
        the circle's edge less R3's ``edge_gap_mm``."""
        nearest = math.inf
        for b in self.bodies:
            if b.state != BodyState.OUT:
                nearest = min(nearest, dm.hypot(x - b.x, y - b.y) - self.geo.disc_radius)
        edge = self.geo.circle_radius - self.geo.disc_radius - dm.hypot(x, y) - self.rules.edge_gap_mm * 1e-3
        return min(edge, nearest - self.geo.disc_radius)

    def legal_spot(self, x: float, y: float, margin: float = 0.001) -> bool:
        """R3: inside the circle (its rim ``edge_gap_mm`` inside the edge) and touching no
        disc (with a small margin); a foundation (``setup``) also ``foundation_red_gap_mm``
        or more from the red disc's rim."""
        inside = dm.hypot(x, y) <= self.geo.circle_radius - self.geo.disc_radius
        return inside and self.rim_gap(x, y) > margin and not (self.setup and self.near_red(x, y))

    def near_red(self, x: float, y: float) -> bool:
        """A flat disc at (x, y) would lie closer to the red disc's rim than R3's ``foundation_red_gap_mm``."""
        red, gap = self.red(), self.rules.foundation_red_gap_mm * 1e-3
        return gap > 0 and red is not None and dm.hypot(x - red.x, y - red.y) - self.geo.disc_radius - self.geo.red_radius < gap

    def sample_spots(self, rng: np.random.Generator, n: int) -> list[tuple[float, float]]:
        """Up to ``n`` legal spots drawn uniformly over the circle."""
        r_max = self.geo.circle_radius - self.geo.disc_radius
        r = r_max * np.sqrt(rng.random(n))
        th = rng.random(n) * 2 * math.pi
        spots = [(float(a * dm.cos(t)), float(a * dm.sin(t))) for a, t in zip(r, th)]
        return [s for s in spots if self.legal_spot(*s)]
