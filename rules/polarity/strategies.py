"""Scripted Polarity strategies: small deciders with the random generator passed in.

Each strategy answers three questions from a ``View`` and its own decision
stream (``rng``): where to lay a foundation (setup, R3), where to put a
captured group (R10), and what to do this turn (``Place`` a leaner, ``Convert``
one, R7). Hand noise is *not* applied here: every strategy carries
``noise_mm`` (σ of the hand's position, mm) and ``noise_deg`` (σ of tilt and
azimuth, degrees) and the engine adds that noise from the seat's hand stream.

- ``random``: any host, any direction, any legal spot;
- ``cautious``: the host and direction with the most clearance from other magnets;
- ``aggressive``: leaners and towers near the red disc and the opponent's discs;
- ``converter``: converts its leaners early to widen its base, then plays cautious;
- ``capturer``: hosts on its towers, keeps captured towers safe and near home;
- ``lookahead``: tries candidates on copies of the world with sampled hand
  noise (``trial``) and keeps the best mean result within ``budget`` episodes.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field

from rules.base import StrategyDef, StrategyParams
from rules.polarity.view import Convert, Place, View

MM = 1e-3
TAU = 2 * math.pi


class HandParams(StrategyParams):
    noise_mm: float = Field(1.0, ge=0, description="σ of the hand's position, mm")
    noise_deg: float = Field(2.0, ge=0, description="σ of the hand's tilt and azimuth, degrees")


def far_spot(view: View, rng, n: int, red_weight: float = 2.0):
    spots = view.sample_spots(rng, n) or view.sample_spots(rng, 8 * n)
    return max(spots, key=lambda s: view.rim_gap(*s, red_weight=red_weight)) if spots else (0.0, 0.1)


def nominal(view: View, host, azimuth: float) -> Place:
    return Place(host.id, azimuth % TAU, view.geo.nominal_base_distance, view.geo.nominal_tilt)


def push_direction(view: View, leaner) -> float:
    """Press a leaner down toward the disc it leans on (the side it leans to), so it lies
    flat with its colour kept; the core's ``push_flat`` pivots it that way."""
    by_id = view.by_id()
    host = by_id.get(leaner.leaning_on)
    if host is None:
        others = [b for b in view.discs() if b.id != leaner.id] or [view.red()]
        host = min(others, key=lambda b: math.hypot(b.x - leaner.x, b.y - leaner.y))
    return math.atan2(host.y - leaner.y, host.x - leaner.x) % TAU


def fallback(view: View):
    """No host to play on: convert a leaner if allowed, else no move."""
    leaners = view.leaners()
    if leaners and view.rules.allow_conversion:
        return Convert(leaners[0].id, push_direction(view, leaners[0]))
    return None


def tuned(view: View, place: Place | None) -> Place | None:
    """The chosen candidate with the core's balancing base distance for its host and direction."""
    if not isinstance(place, Place):
        return place
    return Place(place.host, place.azimuth, view.nominal_distance(place.host, place.azimuth, place.tilt), place.tilt)


def candidates(view: View, n_azimuths: int, rng) -> list[Place]:
    """Nominal leaners around every host, on ``n_azimuths`` directions with a random phase."""
    phase = float(rng.random()) * TAU / n_azimuths
    return [nominal(view, h, phase + k * TAU / n_azimuths) for h in view.hosts() for k in range(n_azimuths)]


def clearance_of(view: View, place: Place, red_weight: float) -> float:
    host = view.by_id()[place.host]
    pts = view.leaner_points(host, place.azimuth, place.base_distance, place.tilt)
    return view.clearance(pts, skip={place.host}, red_weight=red_weight)


# random ---------------------------------------------------------------------

class RandomParams(HandParams):
    p_convert: float = Field(0.05, ge=0, le=1, description="chance of converting a leaner when it can")


class RandomStrategy:
    def __init__(self, p: RandomParams):
        self.p = p

    def setup_spot(self, view, rng):
        return (view.sample_spots(rng, 32) or [(0.0, 0.1)])[0]

    def capture_spot(self, view, group, rng):
        return self.setup_spot(view, rng)

    def act(self, view, rng):
        leaners = view.leaners()
        if view.rules.allow_conversion and leaners and rng.random() < self.p.p_convert:
            pick = leaners[rng.integers(len(leaners))]
            return Convert(pick.id, push_direction(view, pick))
        hosts = view.hosts()
        if not hosts:
            return fallback(view)
        return tuned(view, nominal(view, hosts[rng.integers(len(hosts))], float(rng.random() * TAU)))


# cautious -------------------------------------------------------------------

class CautiousParams(HandParams):
    n_azimuths: int = Field(16, ge=1, description="approach directions tried per host")
    red_weight: float = Field(2.0, gt=0, description="how much more the red disc's gap counts")
    spots: int = Field(48, ge=1, description="candidate spots for setup and captures")


class CautiousStrategy:
    def __init__(self, p: CautiousParams):
        self.p = p

    def setup_spot(self, view, rng):
        return far_spot(view, rng, self.p.spots, self.p.red_weight)

    def capture_spot(self, view, group, rng):
        return far_spot(view, rng, self.p.spots, self.p.red_weight)

    def ranked(self, view, rng) -> list[Place]:
        cands = candidates(view, self.p.n_azimuths, rng)
        return sorted(cands, key=lambda c: -clearance_of(view, c, self.p.red_weight))

    def act(self, view, rng):
        ranked = self.ranked(view, rng)
        if ranked:
            return tuned(view, ranked[0])
        return fallback(view)


# aggressive -----------------------------------------------------------------

class AggressiveParams(HandParams):
    gap_mm: float = Field(25.0, gt=0, description="preferred gap to the red disc and opponent discs, mm")
    min_gap_mm: float = Field(12.0, ge=0, description="never closer than this to any other magnet, mm")
    red_weight: float = Field(2.0, gt=0, description="the red disc's gap must be this many times min_gap")
    n_azimuths: int = Field(16, ge=1)
    spots: int = Field(48, ge=1)


class AggressiveStrategy:
    def __init__(self, p: AggressiveParams):
        self.p = p

    def pressure(self, view: View, points, skip=frozenset()) -> float:
        """How far the points are from the preferred gap to red and the opponent (lower is better)."""
        targets = [b for b in view.discs() if b.up != view.up and b.id not in skip]
        red = view.red()
        targets += [red] if red is not None else []
        gaps = [
            math.hypot(px - t.x, py - t.y) - view.geo.disc_radius for t in targets for px, py in points
        ]
        return min(abs(g - self.p.gap_mm * MM) for g in gaps) if gaps else 0.0

    def spot(self, view, rng):
        spots = view.sample_spots(rng, self.p.spots) or [(0.0, 0.1)]
        safe = [s for s in spots if view.rim_gap(*s) > self.p.min_gap_mm * MM] or spots
        return min(safe, key=lambda s: self.pressure(view, [s]))

    def setup_spot(self, view, rng):
        return self.spot(view, rng)

    def capture_spot(self, view, group, rng):
        return self.spot(view, rng)

    def act(self, view, rng):
        cands = candidates(view, self.p.n_azimuths, rng)
        safe = [c for c in cands if clearance_of(view, c, self.p.red_weight) > self.p.min_gap_mm * MM]
        if not (safe or cands):
            return fallback(view)
        pool = safe or cands
        by_id = view.by_id()

        def score(c: Place) -> float:
            pts = view.leaner_points(by_id[c.host], c.azimuth, c.base_distance, c.tilt)
            return self.pressure(view, pts, skip={c.host})

        return tuned(view, min(pool, key=score))


# converter ------------------------------------------------------------------

class ConverterParams(CautiousParams):
    target_foundations: int = Field(8, ge=0, description="convert leaners until it has this many foundations")


class ConverterStrategy(CautiousStrategy):
    def act(self, view, rng):
        leaners = view.leaners()
        if view.rules.allow_conversion and leaners and view.foundations() < self.p.target_foundations:
            lean = max(leaners, key=lambda b: math.hypot(b.x, b.y))  # the outermost first
            return Convert(lean.id, push_direction(view, lean))
        return super().act(view, rng)


# capturer -------------------------------------------------------------------

class CapturerParams(CautiousParams):
    tower_bias_mm: float = Field(6.0, ge=0, description="clearance bonus for hosting on own towers, mm")
    home_mm: float = Field(60.0, gt=0, description="keep captured towers within this of own discs, mm")


class CapturerStrategy(CautiousStrategy):
    """Builds on towers (they hold a wider cushion) and keeps captures close to home."""

    def capture_spot(self, view, group, rng):
        spots = view.sample_spots(rng, self.p.spots) or [(0.0, 0.1)]
        own = [b for b in view.discs() if b.up == view.up and b.id not in group.ids]

        def home(s) -> float:
            d = min((math.hypot(s[0] - b.x, s[1] - b.y) for b in own), default=0.0)
            return view.rim_gap(*s, red_weight=self.p.red_weight) - max(0.0, d - self.p.home_mm * MM)

        return max(spots, key=home)

    def act(self, view, rng):
        towers = {i for t in view.table.towers_of(view.seat) for i in t.ids}
        cands = candidates(view, self.p.n_azimuths, rng)
        if not cands:
            return super().act(view, rng)
        bonus = self.p.tower_bias_mm * MM
        return tuned(view, max(cands, key=lambda c: clearance_of(view, c, self.p.red_weight) + bonus * (c.host in towers)))


# lookahead ------------------------------------------------------------------

class LookaheadParams(HandParams):
    budget: int = Field(12, ge=1, description="physics episodes tried per decision")
    samples: int = Field(2, ge=1, description="noisy tries per candidate")
    n_azimuths: int = Field(12, ge=1, description="directions per host in the candidate pool")
    red_weight: float = Field(2.0, gt=0)
    spots: int = Field(48, ge=1)


def trial_value(res) -> float:
    """Utility of one trial's resolution: sudden loss << fault < retry < placed."""
    if res is None or res.red_touched or res.red_moved:
        return -100.0
    lost = sum(len(g.ids) for g in res.groups) + len(res.returned)
    if res.faults:
        return -1.0 - lost
    return {"placed": 1.0, "flat": 0.0, "": 0.5}.get(res.action, 0.0)


class LookaheadStrategy(CautiousStrategy):
    def act(self, view, rng):
        ranked = self.ranked(view, rng)
        if not ranked or view.trial is None:
            return super().act(view, rng)
        n_cand = max(1, self.p.budget // self.p.samples)
        # the most open candidates, spread over distinct hosts first
        pool, seen = [], set()
        for c in ranked:
            if c.host not in seen or len(seen) >= len({r.host for r in ranked}):
                pool.append(c)
                seen.add(c.host)
            if len(pool) >= n_cand:
                break
        pool = [tuned(view, c) for c in pool]
        values = []
        for c in pool:
            vals = [trial_value(view.trial(c, rng, self.p)) for _ in range(self.p.samples)]
            values.append(float(np.mean(vals)))
        return pool[int(np.argmax(values))]


def _def(name, description, params, cls) -> StrategyDef:
    return StrategyDef(name=name, description=description, params_model=params, make=cls)


STRATEGIES: dict[str, StrategyDef] = {
    d.name: d
    for d in [
        _def("random", "any own host, any direction, random legal spots", RandomParams, RandomStrategy),
        _def("cautious", "host and direction with the most clearance from other magnets", CautiousParams, CautiousStrategy),
        _def("aggressive", "plays close to the red disc and the opponent to provoke faults", AggressiveParams, AggressiveStrategy),
        _def("converter", "converts leaners early to widen its base, then cautious", ConverterParams, ConverterStrategy),
        _def("capturer", "hosts on its towers and keeps captured towers safe near home", CapturerParams, CapturerStrategy),
        _def("lookahead", "tries candidates on world copies with sampled hand noise, within a budget", LookaheadParams, LookaheadStrategy),
    ]
}
