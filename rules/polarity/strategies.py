"""Scripted Polarity strategies: small deciders with the random generator passed in.

Each strategy answers three questions from a ``View`` and its own decision
stream (``rng``): where to lay a foundation (setup, R3), where to put a
captured group (R10), and what to do this turn (``Place`` a leaner, ``Convert``
one, R7). Hand noise is *not* applied here: every strategy carries
``noise_mm`` (σ of the hand's position, mm) and ``noise_deg`` (σ of tilt and
azimuth, degrees) and the engine adds that noise from the seat's hand stream.

- ``random``: any host, any direction, any legal spot;
- ``cautious``: the host and direction with the most clearance from other magnets;
- ``aggressive``: leaners and towers near the red disc and the opponent's discs,
  but never inside the red disc's reach plus ``red_margin_mm``;
- ``converter``: converts its leaners early to widen its base, then plays cautious;
- ``capturer``: hosts on its towers, keeps captured towers safe and near home;
- ``lookahead``: tries candidates on copies of the world with sampled hand
  noise (``trial``) and keeps the best mean result within ``budget`` episodes.

Clearance is measured, not guessed: ``rules.polarity.clearance`` holds where
a released leaner stands (its centre ~48 mm from its host's, the hand
starting 20 mm further out) and how far each magnet's pull reaches (about
75-80 mm from a leaner's centre). A candidate's *margin* is its distance
beyond those reaches. Every strategy skips leaners whose red margin is below
its ``red_margin_mm`` (R14: the leaner or its fall reaching the red disc is
suicide) unless nothing else is left; a very negative value turns that off.
Setup and captures spread foundations and towers (the spot farthest from
every disc), so each can host leaners.

Every strategy tunes its candidates to the pose where the core balances a
leaner (``tuned``): its base distance and its tilt (45 degrees, else up to 15
either side), at a pose the hand can bring a disc to (the rules' ``aim_tilt``,
``aim_fit``; polsim 0.25.0 kept 45 degrees and aimed wherever the torques
said, into a tower's top or a flat disc, in ~5 % of placements) and that
leaves the discs near it in place (``aim_hold``: polsim 0.26.0 aimed at a
2- or 3-disc tower's only balance, under which the top disc jumps into the
hand; with it such towers balance nowhere and are passed over). Every
strategy but ``random`` tunes its best few (``best_tuned``) and, with
``skip_unbalanced`` (the default), passes over those the core finds no balance for
(``sim.api.balance_intent``): a tall tower's cushion lifts a leaner harder
than gravity lays it down at every distance, so it is flung over at every
try; beside a tower or a crowd a leaner balanced in tilt is turned about its
base until it rises and falls over. R5's retries (up to ``max_attempts``,
10) then end in ``gave_up``, and the next turn tried the same. Before
polsim 0.5.0 they were played: in a recorded standard game (cautious vs
aggressive) 42 of 77 releases were throws at one six-disc tower, and 10
more went to a host beside a tower that turned 9 of them over.
``skip_unbalanced=false`` plays as before.

When nothing tuned balances anywhere (a player whose hosts are all towers),
the throw falls at each of R5's tries and the turn is given up, turn after
turn: in 96 standard games (cautious vs aggressive, seed 12, physics 0.10.0)
144 turns were given up, 1,440 of the 5,522 tries, and one game of seed 11
under physics 0.9.0 ran to the turn cap that way. With ``convert_when_stuck``
(polsim 0.10.0, off by default) the strategy pushes one of its leaners flat
instead (R7, ``unstuck``): the Action Disc goes back to the stack, as after a
give-up, and a new foundation stands to lean on. It is off because it did not
pay (session 20, physics 0.10.0): head to head, 40 standard games (cautious
with it against cautious without, seed 5) 17-1-22, win rate 42.5 %
[28.5, 57.8], its player losing 8 games by R14/R16 against 1 (a give-up is a
free pass: the throw falls flat and harms nothing, a conversion can fault);
48 games of cautious vs aggressive both with it (seed 12): given-up turns
59 -> 30, 107 conversions, games 49 -> 56 turns and 258 -> 280 CPU s.

How far the search looks is a parameter: ``tunings`` candidates at most (12)
before it throws, a host passed over after ``host_misses`` directions that
balance nowhere (2). Not every throw means nothing balances. In the first
four standard games of seed 21 (polsim 0.28.0, cautious vs aggressive), 19
of the 27 decisions whose search found nothing had a candidate further down
the ranking that balanced, 2 to 116 places down; on seed 20, 3 of 34
(``benchmarks/measure_search.py --games 4 --seed 21``). The defaults are the
games played so far; whether a wider search pays, against the balance
search's CPU, is not yet measured.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import Field, model_validator

from sim import detmath as dm

from rules.base import StrategyDef, StrategyParams
from rules.polarity import clearance
from rules.polarity.view import Convert, Place, View

MM = 1e-3
TAU = 2 * math.pi
RIM_KEEP = 0.004  # spread spots keep this gap to the legal edge (R3), so hand noise does not make them illegal


class HandParams(StrategyParams):
    noise_mm: float = Field(1.0, ge=0, description="σ of the hand's position, mm")
    noise_deg: float = Field(2.0, ge=0, description="σ of the hand's tilt and azimuth, degrees")


class TunedParams(HandParams):
    skip_unbalanced: bool = Field(True, description="pass over leaners the core finds no balance for "
                                                    "(flung over or falling at every try; best_tuned)")
    convert_when_stuck: bool = Field(False, description="when no leaner balances anywhere, convert one of "
                                                        "its leaners (R7) instead of throwing (unstuck)")
    tunings: int = Field(12, ge=1, description="with skip_unbalanced: candidates tuned to the core's balance "
                                               "per decision, at most, before it throws (tuned_down)")
    host_misses: int = Field(2, ge=1, description="with skip_unbalanced: directions of one host that balance "
                                                  "nowhere before its other directions are passed over")

    def search(self) -> dict:
        """How far ``best_tuned`` and ``tuned_down`` look for a leaner that balances."""
        return {"skip_unbalanced": self.skip_unbalanced, "tries": self.tunings, "misses": self.host_misses}


def red_scaled(margin: float, weight: float) -> float:
    """A red margin counted ``weight`` times as much as a disc's (more critical either side of 0)."""
    return margin / weight if margin > 0 else margin * weight


def openness(disc: float, red: float, red_weight: float) -> float:
    """How open a spot or a leaner is: its smallest margin, the red disc's counted ``red_weight`` times."""
    return min(disc, red_scaled(red, red_weight))


def spread_spot(view: View, rng, n: int, red_weight: float = 2.0, size: int = 1, skip=frozenset()):
    """R3 / R10: of ``n`` legal spots, the one farthest beyond every disc's reach
    (``clearance.spot_margin``; the red disc's margin counted ``red_weight`` times): spreads
    foundations so each keeps room for leaners, and puts a captured ``size``-disc tower
    (its own discs ``skip``ped) away from leaners and from anything near the red disc."""
    spots = view.sample_spots(rng, n) or view.sample_spots(rng, 8 * n)
    spots = [s for s in spots if view.rim_gap(*s) > RIM_KEEP] or spots
    if not spots:
        return (0.0, 0.1)

    def score(s) -> float:
        others = [b for b in view.discs() if b.id not in skip] + ([view.red()] if view.red() else [])
        disc, red = clearance.spot_margin(others, *s, red_gap=clearance.REACH_ATTRACT, size=size)
        return openness(disc, red, red_weight)

    return max(spots, key=score)


far_spot = spread_spot


def nominal(view: View, host, azimuth: float) -> Place:
    return Place(host.id, azimuth % TAU, clearance.LEANER_BASE, view.geo.nominal_tilt)


def push_direction(view: View, leaner) -> float:
    """Press a leaner down toward the disc it leans on (the side it leans to), so it lies
    flat with its colour kept; the core's ``push_flat`` pivots it that way. A leaner with
    no disc under its upper rim (physics 0.22.0 left one hanging where a capture carried
    its host off) is pressed toward the side it leans to (``aim_push``; before, toward
    the nearest disc, which a press that way can miss at every try)."""
    by_id = view.by_id()
    host = by_id.get(leaner.leaning_on)
    if host is None and view.rules.aim_push and view.leans_toward is not None:
        return view.leans_toward(leaner.id)
    if host is None:
        others = [b for b in view.discs() if b.id != leaner.id] or [view.red()]
        host = min(others, key=lambda b: dm.hypot(b.x - leaner.x, b.y - leaner.y))
    return dm.atan2(host.y - leaner.y, host.x - leaner.x) % TAU


def fallback(view: View):
    """No host to play on: convert a leaner if allowed, else no move."""
    leaners = view.leaners()
    if leaners and view.rules.allow_conversion:
        return Convert(leaners[0].id, push_direction(view, leaners[0]))
    return None


def unstuck(view: View, choice, p: TunedParams):
    """A tuned choice that balances nowhere falls or is flung over at every try: R5 then
    retries ``max_attempts`` times and gives the turn up (``gave_up``), and with the same
    hosts the next turn is the same. With ``convert_when_stuck`` (and ``skip_unbalanced``,
    which is what tells) a leaner of one's own is pushed flat instead (R7, ``fallback``):
    the Action Disc goes back to the stack as after a give-up, and a new foundation
    stands to lean on. No leaner to convert: the throw, as before."""
    stuck = isinstance(choice, Place) and not choice.balanced and p.skip_unbalanced and p.convert_when_stuck
    return (fallback(view) or choice) if stuck else choice


def tuned(view: View, place: Place | None) -> Place | None:
    """The chosen candidate with the core's balancing base distance and tilt for its host
    and direction, and whether the core found it balancing at all (``Place.balanced``)."""
    if not isinstance(place, Place):
        return place
    distance, tilt, balanced = view.nominal_pose(place.host, place.azimuth, place.tilt)
    return Place(place.host, place.azimuth, distance, tilt, balanced)


def candidates(view: View, n_azimuths: int, rng) -> list[Place]:
    """Nominal leaners around every host, on ``n_azimuths`` directions with a random phase."""
    phase = float(rng.random()) * TAU / n_azimuths
    return [nominal(view, h, phase + k * TAU / n_azimuths) for h in view.hosts() for k in range(n_azimuths)]


def margins_of(view: View, place: Place) -> tuple[float, float]:
    """(disc margin, red margin) of a candidate leaner, metres beyond the measured reach."""
    crowd, by_id = view.crowd()
    return clearance.margins(crowd, by_id[place.host], place.azimuth, view.up, view.geo.circle_radius,
                             place.base_distance)


def clearance_of(view: View, place: Place, red_weight: float) -> float:
    """The candidate's smallest margin, the red disc's counted ``red_weight`` times."""
    return openness(*margins_of(view, place), red_weight)


def not_suicide(view: View, cands: list[Place], red_margin_mm: float) -> list[Place]:
    """R14: the candidates whose leaner (and its fall) stays ``red_margin_mm`` beyond the red
    disc's measured reach; all of them if none does (nothing safe is left)."""
    safe = [c for c in cands if margins_of(view, c)[1] >= red_margin_mm * MM]
    return safe or cands


def tuned_down(view: View, ranked: list[Place], want: int, *, skip_unbalanced: bool, tries: int,
               misses: int) -> list[Place]:
    """The first ``want`` candidates of ``ranked``, tuned (``tuned``). With
    ``skip_unbalanced``, tuning goes on down the ranking until ``want`` of them balance,
    passing over hosts that balanced in none of ``misses`` directions, within ``tries``
    tunings; every tuned candidate is returned, in rank order."""
    if not skip_unbalanced:
        return [tuned(view, c) for c in ranked[:want]]
    out, balanced, missed = [], 0, {}
    for c in ranked:
        if len(out) >= tries or balanced >= want:
            break
        if missed.get(c.host, 0) >= misses:
            continue
        t = tuned(view, c)
        out.append(t)
        balanced += t.balanced
        if not t.balanced:
            missed[c.host] = missed.get(c.host, 0) + 1
    return out


def best_tuned(view: View, ranked: list[Place], key, top: int = 3, red_margin_mm: float | None = None, *,
               skip_unbalanced: bool, tries: int, misses: int) -> Place | None:
    """Tune the ``top`` best candidates to the core's balancing distance (it moves with the
    crowd, sometimes far) and keep the one whose tuned pose still scores best; with
    ``red_margin_mm``, tuned poses inside the red margin come last (R14).

    ``skip_unbalanced``: a candidate the core finds no balance for falls or is flung over
    at every try (R5 then retries up to ``max_attempts`` times and gives the turn up), so
    tuning goes on down the ranking (``tuned_down``) and unbalanced poses come after
    balanced ones (after the red margin): played only when nothing tuned balances."""
    tuned_ = tuned_down(view, ranked, top, skip_unbalanced=skip_unbalanced, tries=tries, misses=misses)

    def order(c: Place):
        red_ok = red_margin_mm is None or margins_of(view, c)[1] >= red_margin_mm * MM
        return (red_ok, c.balanced or not skip_unbalanced, key(c))

    return max(tuned_, key=order) if tuned_ else None


# random ---------------------------------------------------------------------

class RandomParams(HandParams):
    p_convert: float = Field(0.05, ge=0, le=1, description="chance of converting a leaner when it can")
    red_margin_mm: float = Field(0.0, description="skip leaners within the red disc's reach plus this, mm "
                                                  "(R14; -1000 plays anywhere)")


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
        cands = not_suicide(view, candidates(view, 8, rng), self.p.red_margin_mm)
        if not cands:
            return fallback(view)
        order = [cands[i] for i in rng.permutation(len(cands))[:4]]
        tries = [tuned(view, c) for c in order]  # the first whose balancing pose keeps the red margin
        return next((c for c in tries if margins_of(view, c)[1] >= self.p.red_margin_mm * MM), tries[0])


# cautious -------------------------------------------------------------------

class CautiousParams(TunedParams):
    n_azimuths: int = Field(16, ge=1, description="approach directions tried per host")
    red_weight: float = Field(2.0, gt=0, description="how much more the red disc's margin counts")
    red_margin_mm: float = Field(20.0, description="never lean within the red disc's reach plus this, mm (R14)")
    spots: int = Field(48, ge=1, description="candidate spots for setup and captures")


class CautiousStrategy:
    def __init__(self, p: CautiousParams):
        self.p = p

    def setup_spot(self, view, rng):
        return spread_spot(view, rng, self.p.spots, self.p.red_weight)

    def capture_spot(self, view, group, rng):
        return spread_spot(view, rng, self.p.spots, self.p.red_weight, len(group.ids), set(group.ids))

    def value(self, view, c: Place) -> float:
        return clearance_of(view, c, self.p.red_weight)

    def ranked(self, view, rng) -> list[Place]:
        cands = not_suicide(view, candidates(view, self.p.n_azimuths, rng), self.p.red_margin_mm)
        return sorted(cands, key=lambda c: -self.value(view, c))

    def act(self, view, rng):
        ranked = self.ranked(view, rng)
        if ranked:
            return unstuck(view, best_tuned(view, ranked, lambda c: self.value(view, c),
                                            red_margin_mm=self.p.red_margin_mm, **self.p.search()), self.p)
        return fallback(view)


# aggressive -----------------------------------------------------------------

class AggressiveParams(TunedParams):
    gap_mm: float = Field(10.0, description="preferred margin beyond the reach of red and opponent discs, mm")
    min_gap_mm: float = Field(0.0, description="never within the reach of any disc plus this, mm")
    red_margin_mm: float = Field(10.0, description="never within the red disc's reach plus this, mm (R14)")
    red_weight: float = Field(2.0, gt=0, description="how much more the red disc's margin counts when nothing is safe")
    n_azimuths: int = Field(16, ge=1)
    spots: int = Field(48, ge=1)


class AggressiveStrategy:
    """Leaners whose margin to the red disc or an opponent's disc is about ``gap_mm``: the
    opponent's next leaners there have little room; never inside ``red_margin_mm``."""

    def __init__(self, p: AggressiveParams):
        self.p = p

    def pressure(self, view: View, c: Place) -> float:
        """How far the candidate is from the preferred margin to red and the opponent (lower is better)."""
        host = view.by_id()[c.host]
        targets = [b for b in view.discs() if b.up != view.up and b.id != c.host]
        targets += [view.red()] if view.red() is not None else []
        cx, cy = clearance.leaner_centre((host.x, host.y), c.azimuth, c.base_distance)
        gaps = [dm.hypot(cx - t.x, cy - t.y) - clearance.reach(t, view.up) for t in targets]
        return min(abs(g - self.p.gap_mm * MM) for g in gaps) if gaps else 0.0

    def spot(self, view, rng, size: int = 1, skip=frozenset()):
        """Where to put a foundation or a captured ``size``-disc tower (its own discs ``skip``ped):
        of the spots beyond every disc's reach plus ``min_gap_mm`` and the red disc's plus
        ``red_margin_mm``, the one nearest an opponent's disc or the red disc; when none is,
        the most open spot (the red margin counted ``red_weight`` times)."""
        spots = view.sample_spots(rng, self.p.spots) or [(0.0, 0.1)]
        bodies = [b for b in view.discs() if b.id not in skip] + ([view.red()] if view.red() else [])
        margins = {s: clearance.spot_margin(bodies, *s, red_gap=clearance.REACH_ATTRACT, size=size) for s in spots}
        safe = [s for s in spots
                if margins[s][0] > self.p.min_gap_mm * MM and margins[s][1] > self.p.red_margin_mm * MM]
        if not safe:
            return max(spots, key=lambda s: openness(*margins[s], self.p.red_weight))
        targets = [b for b in bodies if b.up != view.up or b.red]
        return min(safe, key=lambda s: min((dm.hypot(s[0] - t.x, s[1] - t.y) for t in targets), default=0.0))

    def setup_spot(self, view, rng):
        return self.spot(view, rng)

    def capture_spot(self, view, group, rng):
        return self.spot(view, rng, size=len(group.ids), skip=set(group.ids))

    def act(self, view, rng):
        cands = candidates(view, self.p.n_azimuths, rng)
        if not cands:
            return fallback(view)
        marg = {c: margins_of(view, c) for c in cands}
        safe = [c for c in cands if marg[c][0] >= self.p.min_gap_mm * MM and marg[c][1] >= self.p.red_margin_mm * MM]
        if not safe:  # nothing clear: the most open candidate, red first
            return unstuck(view, best_tuned(view, sorted(cands, key=lambda c: -clearance_of(view, c, self.p.red_weight)),
                                            lambda c: clearance_of(view, c, self.p.red_weight),
                                            **self.p.search()), self.p)
        ranked = sorted(safe, key=lambda c: self.pressure(view, c))

        def keep(c: Place) -> float:  # after tuning: still outside the margins, then nearest the gap
            d, r = margins_of(view, c)
            ok = d >= self.p.min_gap_mm * MM and r >= self.p.red_margin_mm * MM
            return (1.0 if ok else 0.0) - self.pressure(view, c)

        return unstuck(view, best_tuned(view, ranked, keep, **self.p.search()), self.p)


# converter ------------------------------------------------------------------

class ConverterParams(CautiousParams):
    target_foundations: int = Field(8, ge=0, description="convert leaners until it has this many foundations")


class ConverterStrategy(CautiousStrategy):
    def act(self, view, rng):
        leaners = view.leaners()
        if view.rules.allow_conversion and leaners and view.foundations() < self.p.target_foundations:
            lean = max(leaners, key=lambda b: dm.hypot(b.x, b.y))  # the outermost first
            return Convert(lean.id, push_direction(view, lean))
        return super().act(view, rng)


# capturer -------------------------------------------------------------------

class CapturerParams(CautiousParams):
    tower_bias_mm: float = Field(6.0, ge=0, description="margin bonus for hosting on own towers, mm")
    home_mm: float = Field(60.0, gt=0, description="keep captured towers within this of own discs, mm")


class CapturerStrategy(CautiousStrategy):
    """Builds on towers (they hold a wider cushion) and keeps captures close to home."""

    def capture_spot(self, view, group, rng):
        spots = view.sample_spots(rng, self.p.spots) or [(0.0, 0.1)]
        own = [b for b in view.discs() if b.up == view.up and b.id not in group.ids]
        others = [b for b in view.discs() if b.id not in group.ids] + ([view.red()] if view.red() else [])

        def home(s) -> float:
            d = min((dm.hypot(s[0] - b.x, s[1] - b.y) for b in own), default=0.0)
            disc, red = clearance.spot_margin(others, *s, red_gap=clearance.REACH_ATTRACT, size=len(group.ids))
            return openness(disc, red, self.p.red_weight) - max(0.0, d - self.p.home_mm * MM)

        return max(spots, key=home)

    def value(self, view, c: Place) -> float:
        towers = {i for t in view.table.towers_of(view.seat) for i in t.ids}
        return super().value(view, c) + self.p.tower_bias_mm * MM * (c.host in towers)


# lookahead ------------------------------------------------------------------

class LookaheadParams(TunedParams):
    budget: int = Field(12, ge=1, description="physics episodes tried per decision")
    samples: int = Field(2, ge=1, description="noisy tries per candidate")
    n_azimuths: int = Field(12, ge=1, description="directions per host in the candidate pool")
    red_weight: float = Field(2.0, gt=0)
    red_margin_mm: float = Field(10.0, description="never try leaners within the red disc's reach plus this, mm")
    spots: int = Field(48, ge=1)

    @model_validator(mode="after")
    def _samples_within_budget(self) -> "LookaheadParams":
        if self.samples > self.budget:
            raise ValueError(f"samples ({self.samples}) must not exceed budget ({self.budget}): "
                             "every candidate is tried samples times within the budget")
        return self


LOSS = -100.0


def trial_value(res, rules) -> float:
    """Utility of one trial's resolution under ``rules``: sudden loss << fault < retry <
    placed. A red touch or move is a loss only where it ends the game (R14, R15; under
    ``no-red-death`` it is a fault like any other); ``None``, a trial the game could not
    go on from (a physics failure, or not at rest under ``unsettled=end_game``), too."""
    if res is None or (res.red_touched and rules.red_sudden_death) or (res.red_moved and rules.red_moved_loses):
        return LOSS
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
        chosen, seen = [], set()
        for c in ranked:
            if c.host not in seen or len(seen) >= len({r.host for r in ranked}):
                chosen.append(c)
                seen.add(c.host)
            if len(chosen) >= n_cand:
                break
        # trials of a leaner that balances nowhere are spent: the rest of the ranking refills
        tried = tuned_down(view, chosen + [c for c in ranked if c not in chosen], len(chosen), **self.p.search())
        pool = [c for c in tried if c.balanced or not self.p.skip_unbalanced]
        if not pool:  # nothing balances: convert if it can (unstuck), else trials of the throws
            pool = tried[:len(chosen)]
            choice = unstuck(view, pool[0], self.p)
            if choice is not pool[0]:
                return choice
        values = []
        for c in pool:
            vals = [trial_value(view.trial(c, rng, self.p), view.rules) for _ in range(self.p.samples)]
            values.append(math.fsum(vals) / len(vals))  # exactly rounded: no summation order to differ
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
