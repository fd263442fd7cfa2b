"""One full game of Polarity: setup, turns, sudden ends, scoring.

``Game(spec, core).play()`` plays the game described by a ``GameSpec`` on the
magnetic core ``core`` (the ``sim`` episodes, see ``physics.core()``) and
returns ``(game_row, turn_rows)`` as plain dicts (columns in ``records``).

Steps of a game:
1. R1 red orientation from the ``red`` stream; the red disc on the centre dot.
2. R3 White lays its foundations, then Black; a placement that makes any disc
   react is taken back (the world copy is dropped) and chosen again; after
   ``setup_retries`` the engine draws random legal spots from ``setup``.
3. Turns alternate from White until an end: each turn first captures the
   fault groups waiting for this seat (R10-R11), then places a leaner with up
   to ``max_attempts`` tries (R4-R5) or converts one (R7). Every episode is
   resolved by ``resolve.resolve`` (R6, R8-R9, R12) and checked for sudden
   ends (R14-R17) in that order of precedence.
4. R18 scores: tower discs minus stack; a sudden end makes the mover lose.

Randomness: decisions from ``seat0``/``seat1``, hand noise from
``hand0``/``hand1``, the red flip from ``red``, fallback setup spots from
``setup``; the physics itself is deterministic.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from sim import detmath as dm

from rules.base import GameSpec
from rules.seeds import stream
from rules.polarity.ends import red_orientation, sudden_end, winner
from rules.polarity.physics import core, geometry, physics_version
from rules.polarity.resolve import Resolution, components, pairs, resolve, tower_pieces
from rules.polarity.state import FaultGroup, Table, Tower, colour, seat_of
from rules.polarity.strategies import STRATEGIES
from rules.polarity.view import Convert, Place, View

DEG = math.pi / 180
SETUP_STILL = 0.1  # R3: another disc moving more than this (diameters) has reacted
MM = 1e-3


class PhysicsError(RuntimeError):
    """The core returned NaN or runaway energy."""


class GameOver(Exception):
    def __init__(self, reason: str, loser: int | None = None, cause: str = ""):
        super().__init__(reason)
        self.reason, self.loser, self.cause = reason, loser, cause


def noisy_place(place: Place, host_xy, hand: np.random.Generator, p) -> tuple[float, float, float]:
    """The intent after hand noise: (azimuth, base_distance, tilt). Draws four normals."""
    dx, dy, daz, dtilt = dm.normals(hand, 4)
    bx = host_xy[0] + place.base_distance * dm.cos(place.azimuth) + dx * p.noise_mm * MM
    by = host_xy[1] + place.base_distance * dm.sin(place.azimuth) + dy * p.noise_mm * MM
    az = dm.atan2(by - host_xy[1], bx - host_xy[0]) + daz * p.noise_deg * DEG
    dist = dm.hypot(bx - host_xy[0], by - host_xy[1])
    tilt = min(max(place.tilt + dtilt * p.noise_deg * DEG, 0.05), math.pi / 2 - 0.05)
    return az % (2 * math.pi), dist, tilt


def noisy_spot(x: float, y: float, hand: np.random.Generator, p) -> tuple[float, float]:
    dx, dy = dm.normals(hand, 2)
    return x + dx * p.noise_mm * MM, y + dy * p.noise_mm * MM


def freeze_world(world) -> int:
    """Stop the moving bodies of a core ``World`` where they are (speeds zeroed, asleep; the
    next episode takes each sleeper's magnetic force as its wake reference) and count them."""
    moving = (world.live > 0) & (world.awake > 0)
    world.vel[moving] = 0.0
    world.omega[moving] = 0.0
    world.awake[moving] = 0
    return int(moving.sum())


def action_state(ep, res: Resolution) -> str:
    """Where the released Action Disc ended: its final state, or ``in_hand`` (R8)."""
    if res.action == "in_hand":
        return "in_hand"
    return next((b.state.value for b in ep.final if b.id == ep.action), "out")


def check_legal(view: View, action) -> None:
    """R4, R7: a leaner only off your own host; convert only your own leaner."""
    if isinstance(action, Place) and action.host not in {h.id for h in view.hosts()}:
        raise ValueError(f"illegal move: body {action.host} is not a host of seat {view.seat}")
    if isinstance(action, Convert) and action.leaner not in {b.id for b in view.leaners()}:
        raise ValueError(f"illegal move: body {action.leaner} is not a leaner of seat {view.seat}")


def separated(res: Resolution, ep, loose: list[int], seat: int) -> None:
    """Common question "a fault during a capture": discs that came apart from the
    tower being placed (``loose``, on the mat) make a new fault, kind ``s``: the
    turn ends, and they are resolved as usual. Those still touching each other
    form a fault group for the opponent (R10); a lone one stays where it landed
    (R6: a fallen disc touching nothing is left there). Discs that also made a
    new contact are already in a group of the resolution."""
    if not loose:
        return
    if "s" not in res.faults:
        res.faults.append("s")
    grouped, apart = {i for g in res.groups for i in g.ids}, set(loose)
    links = {p for p in pairs(ep.final_contacts) if p <= apart}
    for comp in components(loose, links):
        ids = comp - grouped
        if len(ids) >= 2:
            res.groups.append(FaultGroup(captor=1 - seat, ids=tuple(sorted(ids))))


class Game:
    def __init__(self, spec: GameSpec, sim=None):
        self.spec, self.rules = spec, spec.rules
        self.sim = sim or core()
        self.params = self.sim.params(self.rules)
        self.geo = geometry(self.params)
        self.world = self.sim.World.new(self.params)
        # R14 ends the game at the touch: the core stops there instead of chasing the aftermath
        self.world.stop_on_red_contact = bool(self.rules.red_sudden_death)
        self.table = Table(stacks=[self.rules.stack_size] * 2)
        self.players, self.pparams = [], []
        for seat_spec in spec.seats:
            sdef = STRATEGIES[seat_spec.name]
            params = sdef.validate(seat_spec)
            self.players.append(sdef.make(params))
            self.pparams.append(params)
        self.dec = [stream(spec.seed, "seat0"), stream(spec.seed, "seat1")]
        self.hand = [stream(spec.seed, "hand0"), stream(spec.seed, "hand1")]
        self.setup_rng = stream(spec.seed, "setup")
        self.rows: list[dict] = []
        self.turn = 0
        self.emptied_by: int | None = None  # the seat whose last disc emptied its stack (R17), if one did
        self.counts = {k: [0, 0] for k in ("faults", "conversions", "captures", "placements", "gave_up", "attempts")}
        self.unsettled_episodes, self.stopped = 0, 0
        self.steps, self.sim_time = 0, 0.0
        self.red_up = 0
        self.red_orientation = None
        self.setup_turns = 2 * self.rules.foundations

    # -- plumbing ---------------------------------------------------------
    @property
    def world(self):
        return self._world

    @world.setter
    def world(self, world) -> None:
        self._world, self._bodies = world, None

    def refresh(self) -> None:
        """Forget the cached bodies (after the world changed outside an episode)."""
        self._bodies = None

    def bodies(self):
        if self._bodies is None:
            self._bodies = self._world.bodies()
        return self._bodies

    def remove(self, ids) -> None:
        self._world.remove(ids)
        self._bodies = None

    def discard(self, i: int) -> None:
        """R5: the attempt's disc fell flat and disturbed nothing; it leaves no trace."""
        self._world.discard_last(i)
        self._bodies = None

    def view(self, seat: int, setup: bool = False) -> View:
        return View(seat, self.bodies(), self.table, self.rules, self.geo,
                    trial=self.trial_for(seat), nominal=self.nominal_for(seat), leans_toward=self.leans_toward(),
                    setup=setup)

    def leans_toward(self):
        lean_azimuth = getattr(self.sim, "lean_azimuth", None)
        return None if lean_azimuth is None else (lambda leaner: lean_azimuth(self.world, leaner))

    def nominal_for(self, seat: int):
        if self.sim.balance_intent is None:
            return None

        aim_tilt, aim_fit, aim_hold = self.rules.aim_tilt, self.rules.aim_fit, self.rules.aim_hold

        def pose(host, azimuth, tilt):
            intent, balanced = self.sim.balance_intent(self.world, host, azimuth, colour(seat), tilt, fit=aim_fit,
                                                       hold=aim_hold)
            return intent.base_distance, (intent.tilt if aim_tilt else tilt), balanced
        return pose

    def episode(self, fn, *args, take_back: bool = False):
        """Run one episode on the live world; returns (before, before_contacts, episode).
        Not at rest within the budget (R19): ``rules.unsettled`` freezes the world or ends
        the game; ``take_back`` (a setup try on a copy) always raises, to be taken back."""
        before = {b.id: b for b in self.bodies()}
        contacts = pairs(self.world.contacts())
        ep = fn(self.world, *args)
        self._bodies = None
        self.steps += ep.steps
        self.sim_time += ep.sim_time
        if ep.status in ("nan", "energy"):
            raise PhysicsError(f"physics reported {ep.status} after {ep.steps} steps")
        if ep.status not in ("settled", "red_contact"):
            if take_back or self.rules.unsettled == "end_game":
                raise GameOver("step_budget")
            self.freeze()
        return before, contacts, ep

    def freeze(self) -> None:
        """R19 ``unsettled=freeze``: stop every moving body where it is and let it sleep."""
        self.stopped += (getattr(self.sim, "freeze", None) or freeze_world)(self.world)
        self.unsettled_episodes += 1
        self._bodies = None

    def resolve(self, ep, before, contacts, seat, expected, keep=frozenset(), action=-1) -> Resolution:
        return resolve(
            ep, before, contacts, self.table, seat, expected,
            self.rules.fault_move_diameters, self.rules.tower_steal, keep, action, self.geo.red_radius,
            self.rules.red_moved_loses,
        )

    def trial_for(self, seat: int):
        """Look-ahead: play a Place on a copy of the world with noise from the caller's rng;
        an episode not at rest within the budget is read as the game would (R19 ``unsettled``)."""

        def trial(place: Place, rng: np.random.Generator, p) -> Resolution | None:
            world = self.world.copy()
            bodies = {b.id: b for b in world.bodies()}
            host = bodies[place.host]
            az, dist, tilt = noisy_place(place, (host.x, host.y), rng, p)
            contacts = pairs(world.contacts())
            ep = self.sim.place_leaner(world, self.sim.Intent(place.host, az, dist, tilt, colour(seat)))
            at_rest = ep.status in ("settled", "red_contact")
            if ep.status in ("nan", "energy") or (not at_rest and self.rules.unsettled == "end_game"):
                return None  # the game would not go on from here
            return self.resolve(ep, bodies, contacts, seat, {ep.action}, action=ep.action)

        return trial

    def record(self, seat: int, phase: str, outcome: str, res: Resolution | None = None, **cols) -> None:
        res = res or Resolution()
        bodies = self.bodies()
        row = {
            "turn": self.turn, "player": seat, "phase": phase, "outcome": outcome,
            "fault_kinds": ",".join(res.faults), "returned_to_stack": len(res.returned),
            "fault_groups_made": len(res.groups), "red_touched": res.red_touched,
            "discs_on_mat": sum(1 for b in bodies if not b.red and b.state.value != "out"),
            "red_toucher": res.red_toucher, "unsettled": self.stopped,
        }
        self.stopped = 0
        for s in (0, 1):
            row[f"stack_{s}"] = self.table.stacks[s]
            row[f"towers_{s}"] = len(self.table.towers_of(s))
            row[f"tower_discs_{s}"] = self.table.tower_discs(s, self.rules.single_disc_tower_scores)
            row[f"score_{s}"] = self.table.score(s, self.rules.single_disc_tower_scores)
        row.update(cols)
        self.rows.append(row)
        if res.faults:
            self.counts["faults"][seat] += 1

    def apply(self, seat: int, ep, res: Resolution) -> None:
        """Move returned discs to the mover's stack, update towers, queue fault groups.
        A tower's discs in a fault group (``tower_steal``) stay its controller's until
        the group is captured (``take_from_towers``): a game that ends first scores them so."""
        on_mat = {b.id for b in self.bodies()}
        gone = [i for i in res.returned if i in on_mat]
        if gone:
            self.remove(gone)
        self.table.stacks[seat] += len(res.returned)
        self.refresh_towers(ep, set(res.returned))
        # a disc is in one pending group, the newest: snapped onto a new group, it left its old one;
        # back in a stack (R8, R9), it left its group. A group left with one disc is no group: R10
        # captures "discs connected together due to a previous Fault", and the lone disc stays where
        # it lies, as a disc separated from a capture does (an R12 flipped leaner is a group of one)
        left = {i for g in res.groups for i in g.ids} | set(res.returned)
        if left:
            kept = [(g, tuple(i for i in g.ids if i not in left)) for g in self.table.pending]
            self.table.pending = [replace(g, ids=ids) for g, ids in kept
                                  if len(ids) > 1 or (ids and len(g.ids) == 1)]
        self.table.pending.extend(res.groups)

    def refresh_towers(self, ep, removed: set[int]) -> None:
        """Towers keep the discs still stacked together (``resolve.tower_pieces``), and
        belong to the colour their top disc now shows (R13: turned over, a tower changes hands)."""
        final = {b.id: b for b in ep.final}
        for t, piece in zip(self.table.towers, tower_pieces(self.table, final, removed)):
            t.ids = piece
            if piece:
                t.controller = seat_of(final[piece[-1]].up)
        self.table.towers = [t for t in self.table.towers if t.ids]

    def check_end(self, seat: int, res: Resolution, emptied: bool = False) -> None:
        shown = {b.up for b in self.bodies() if not b.red and b.state.value != "out"}
        end = sudden_end(self.rules, seat, res.red_touched, res.red_moved, self.table.stacks, emptied, shown)
        if end:
            raise GameOver(*end)

    # -- setup (R1-R3) ----------------------------------------------------
    def setup(self) -> None:
        self.red_orientation = red_orientation(self.rules.red_orientation, stream(self.spec.seed, "red"))
        self.red_up = 1 if self.red_orientation == "bar" else -1
        self.world.add_flat(0.0, 0.0, self.red_up, red=True)
        self.refresh()
        for seat in self.foundation_seats():
            self.lay_foundation(seat)
            self.turn += 1

    def foundation_seats(self) -> list[int]:
        """Who lays each foundation, in order (R3, ``foundation_order``)."""
        n = self.rules.foundations
        return [0, 1] * n if self.rules.foundation_order == "alternate" else [0] * n + [1] * n

    def lay_foundation(self, seat: int) -> None:
        view = self.view(seat, setup=True)
        player, p = self.players[seat], self.pparams[seat]
        for attempt in range(self.rules.setup_retries + 200):
            if attempt < self.rules.setup_retries:
                x0, y0 = player.setup_spot(view, self.dec[seat])
                x, y = noisy_spot(x0, y0, self.hand[seat], p)
            else:
                spots = view.sample_spots(self.setup_rng, 1)
                if not spots:
                    continue
                (x0, y0), (x, y) = spots[0], spots[0]
            if not view.legal_spot(x, y, margin=0.0):
                continue
            if self.try_lay(seat, x, y):
                self.table.stacks[seat] -= 1
                self.record(seat, "setup", "placed", x=x0, y=y0, x_noisy=x, y_noisy=y, attempts=attempt + 1)
                return
        raise PhysicsError("no setup spot without a reaction")

    def try_lay(self, seat: int, x: float, y: float) -> bool:
        """Lay a foundation on a copy; keep it only if no disc reacted and all came to rest (R3)."""
        live = self.world
        self.world = live.copy()
        try:
            before, contacts, ep = self.episode(self.sim.lay_flat, x, y, colour(seat), take_back=True)
        except GameOver:  # not at rest within the budget: it reacted, take it back
            self.world = live
            return False
        new = {b.id for b in ep.final} - before.keys()
        res = self.resolve(ep, before, contacts, seat, new)
        stirred = any(d > SETUP_STILL for i, d in ep.moved_diameters.items() if i not in new)
        # flat with its own colour up (ep.flipped names only discs that were there before)
        laid_wrong = any(b.id in new and (b.up != colour(seat) or b.state.value != "flat") for b in ep.final)
        calm = not (res.fault or stirred or laid_wrong or res.returned)
        if not calm:
            self.world = live
        return calm

    # -- a turn -----------------------------------------------------------
    def play_turn(self, seat: int) -> None:
        if self.capture_pending(seat):
            return
        view = self.view(seat)
        action = self.players[seat].act(view, self.dec[seat])
        check_legal(view, action)
        if isinstance(action, Convert) and self.rules.allow_conversion:
            self.convert(seat, action)
        elif isinstance(action, Place):
            self.place(seat, action)
        else:
            self.record(seat, "place", "no_move")

    def capture_pending(self, seat: int) -> bool:
        """R10: capture every group made for ``seat``, first thing in its turn; True
        if a capture's fault ended the turn."""
        for group in [g for g in self.table.pending if g.captor == seat]:
            self.table.pending.remove(group)
            if self.capture(seat, group):
                return True
        return False

    def capture(self, seat: int, group) -> bool:
        """R10-R11: lift a fault group and place it as a tower; True if the turn ended."""
        bodies = {b.id: b for b in self.bodies()}
        ids = [i for i in group.ids if i in bodies and bodies[i].state.value != "out"]
        if not self.rules.tower_steal:  # R11: discs captured into a tower since stay in it
            in_towers = self.table.tower_ids()
            ids = [i for i in ids if i not in in_towers]
        if not ids:
            return False
        # declared captured where it lies: a lone flat disc, or a whole stack (not part of one)
        stacks = {bodies[i].tower for i in ids}
        whole_stack = (len(stacks) == 1 and -1 not in stacks
                       and {b.id for b in bodies.values() if b.tower in stacks} == set(ids))
        in_place = all(bodies[i].up == colour(seat) for i in ids) and (
            (len(ids) == 1 and bodies[ids[0]].state.value == "flat") or whole_stack
        )
        self.take_from_towers(ids)
        if in_place:
            self.table.towers.append(Tower(seat, sorted(ids, key=lambda i: bodies[i].z)))
            self.counts["captures"][seat] += len(ids)
            self.record(seat, "capture", "captured", captured_discs=len(ids), host=-1)
            return False
        x0, y0 = self.players[seat].capture_spot(self.view(seat), group, self.dec[seat])
        x, y = noisy_spot(x0, y0, self.hand[seat], self.pparams[seat])
        before, contacts, ep = self.episode(self.sim.place_tower, ids, x, y, colour(seat))
        final = {b.id: b for b in ep.final}
        pieces: dict[int, list[int]] = {}
        for i in ids:
            if i in final and final[i].state.value in ("stacked", "flat"):
                pieces.setdefault(final[i].tower if final[i].tower >= 0 else i, []).append(i)
        tower = max(pieces.values(), key=len, default=[])
        res = self.resolve(ep, before, contacts, seat, set(ids), keep=set(tower))
        tower = [i for i in tower if i not in res.returned]
        separated(res, ep, [i for i in ids if i in final and i not in tower and i not in res.returned], seat)
        if tower:
            self.table.towers.append(Tower(seat, sorted(tower, key=lambda i: final[i].z)))
        self.apply(seat, ep, res)
        self.counts["captures"][seat] += len(tower)
        self.record(seat, "capture", "fault" if res.fault else "captured", res,
                    captured_discs=len(tower), x=x0, y=y0, x_noisy=x, y_noisy=y, attempts=1)
        self.check_end(seat, res)
        return res.fault

    def take_from_towers(self, ids) -> None:
        """R11 with tower_steal: captured discs leave the towers they were in."""
        for t in self.table.towers:
            t.ids = [i for i in t.ids if i not in ids]
        self.table.towers = [t for t in self.table.towers if t.ids]

    def convert(self, seat: int, c: Convert) -> None:
        """R7: push your leaner flat; it becomes a foundation and the turn ends."""
        daz = dm.normals(self.hand[seat]) * self.pparams[seat].noise_deg * DEG
        before, contacts, ep = self.episode(self.sim.push_flat, c.leaner, c.azimuth + daz)
        res = self.resolve(ep, before, contacts, seat, {c.leaner})
        self.apply(seat, ep, res)
        flat = any(b.id == c.leaner and b.state.value == "flat" for b in ep.final)
        self.counts["conversions"][seat] += int(flat)
        self.record(seat, "convert", "converted" if flat else "convert_failed", res,
                    host=c.leaner, azimuth=c.azimuth, azimuth_noisy=c.azimuth + daz, attempts=1)
        self.check_end(seat, res)

    def place(self, seat: int, place: Place) -> None:
        """R4-R5: try up to ``max_attempts`` times to float a leaner off your host."""
        p = self.pparams[seat]
        intended = dict(host=place.host, azimuth=place.azimuth, base_distance=place.base_distance, tilt=place.tilt)
        for attempt in range(1, self.rules.max_attempts + 1):
            self.counts["attempts"][seat] += 1
            host = next(b for b in self.bodies() if b.id == place.host)
            az, dist, tilt = noisy_place(place, (host.x, host.y), self.hand[seat], p)
            noisy = dict(azimuth_noisy=az, base_distance_noisy=dist, tilt_noisy=tilt)
            before, contacts, ep = self.episode(
                self.sim.place_leaner, self.sim.Intent(place.host, az, dist, tilt, colour(seat))
            )
            res = self.resolve(ep, before, contacts, seat, {ep.action}, action=ep.action)
            if res.action == "flat" and not res.fault:
                self.discard(ep.action)
                continue
            # the drawn disc leaves the stack (if it stayed in hand, R8 returns it with the
            # rest); the last one played ends the game even if R8 or R9 refill the stack (R17)
            self.table.stacks[seat] -= 1
            emptied = self.table.stacks[seat] == 0
            if emptied:
                self.emptied_by = seat
            self.apply(seat, ep, res)
            placed = res.action == "placed" and not res.fault
            self.counts["placements"][seat] += int(placed)
            self.record(seat, "place", "placed" if placed else "fault", res, attempts=attempt,
                        action_state=action_state(ep, res), **intended, **noisy)
            self.check_end(seat, res, emptied)
            return
        self.counts["gave_up"][seat] += 1
        self.record(seat, "place", "gave_up", attempts=self.rules.max_attempts, **intended, **noisy)

    # -- the whole game ---------------------------------------------------
    def play(self) -> tuple[dict, list[dict]]:
        over = None
        try:
            self.setup()
            seat = 0
            idle = 0                        # turns in a row that changed nothing: R5 give-ups
            while True:
                if self.turn - self.setup_turns >= self.rules.max_turns:
                    raise GameOver("turn_limit")
                if self.table.stacks[seat] > 0:
                    first = len(self.rows)
                    self.play_turn(seat)
                    self.turn += 1
                    idle = idle + 1 if self.changed_nothing(self.rows[first:]) else 0
                    if self.rules.stall_rounds and idle >= 2 * self.rules.stall_rounds:
                        raise GameOver("stalled")
                elif any(g.captor == seat for g in self.table.pending):
                    # R10 under end_when=both_stacks_empty: a player with no disc left
                    # still captures the groups made for it; it only cannot place
                    self.capture_pending(seat)
                    self.turn += 1
                seat = 1 - seat
        except GameOver as end:
            over = end
        return self.game_row(over), self.rows

    def changed_nothing(self, rows: list[dict]) -> bool:
        """R5's stall count: the turn left the mat as it was. A give-up or no move did; so did,
        under ``stall_failed_conversions``, a conversion that left its leaner up with no fault
        and nothing frozen (R19)."""
        def idle(r: dict) -> bool:
            if r["outcome"] == "convert_failed":
                return self.rules.stall_failed_conversions and not r["fault_kinds"] and not r["unsettled"]
            return r["outcome"] in ("gave_up", "no_move")
        return bool(rows) and all(map(idle, rows))

    def scored_stacks(self, over: GameOver) -> list[int]:
        """The stacks R18 scores: as they stand, but under ``empty_stack_scoring=when_emptied`` an R17 end
        scores the stack the last disc emptied as empty, whatever that move's fault returned to it."""
        stacks = list(self.table.stacks)
        if (self.rules.empty_stack_scoring == "when_emptied" and over.reason == "stack_empty"
                and self.emptied_by is not None):
            stacks[self.emptied_by] = 0
        return stacks

    def game_row(self, over: GameOver) -> dict:
        single = self.rules.single_disc_tower_scores
        stacks = self.scored_stacks(over)
        scores = [self.table.score(s, single, stacks[s]) for s in (0, 1)]
        row = {
            "winner": winner(scores, over.loser, over.reason), "score_0": scores[0], "score_1": scores[1],
            "end_reason": over.reason, "n_turns": self.rows[-1]["turn"] + 1 if self.rows else 0,
            "status": "ok", "error": None,
            "loser": over.loser, "loser_cause": over.cause or None,
            "red_orientation": self.red_orientation, "physics_version": physics_version(),
            "attempts_total": sum(self.counts["attempts"]), "physics_steps": self.steps, "sim_time": self.sim_time,
            "unsettled_episodes": self.unsettled_episodes,
        }
        for s in (0, 1):
            row[f"stack_{s}"] = stacks[s]
            row[f"towers_{s}"] = len(self.table.towers_of(s))
            row[f"tower_discs_{s}"] = self.table.tower_discs(s, single)
            for k, v in self.counts.items():
                row[f"{k}_{s}"] = v[s]
        return row
