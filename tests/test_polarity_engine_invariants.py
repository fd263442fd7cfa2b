"""The engine's books hold whatever the physics reports.

A seeded *random* core (a test double like test_polarity_engine.py's scripted
one) answers every episode with a random but self-consistent outcome: the
Action Disc leans, falls flat, rests against its host, snaps onto it, leaves
the circle or stays in the hand; other discs fall and turn over, snap
together, are dragged into the hand, knocked out of the circle or pushed
away; the red disc is touched or moved; a captured group comes apart; an
episode runs out of its step budget. Rare combinations the real core meets a
few times in a thousand games (the red disc touched while the Action Disc
leaves the circle) come up here in every few games.

Every pair of the six strategies plays (lookahead's trials run on the random
core too). After every turn row, for each rule set:
- every disc is in a stack or on the mat (none left out of the circle, none lost);
- every tower's discs are on the mat, each disc in one tower at most, a tower
  of two or more is one stack, and its controller is the colour on top (R13);
- every pending fault group's discs are on the mat, each in one group at most,
  and none in a tower unless ``tower_steal``;
- no stack is below zero;
and every game's books balance as in test_polarity_games (a legal end, the
winner from the scores or the sudden end, each row's stacks from the last,
its discs on the mat and in the stacks adding up, its scores tower discs
minus stack).
"""

import numpy as np
import pytest

from rules.base import GameSpec, StrategySpec
from rules.polarity.engine import Game
from rules.polarity.model import PolarityRules
from rules.polarity.scenes import disc, episode, moved
from sim.api import BodyState, Intent

from test_polarity_engine import ScriptedWorld, new_id
from test_polarity_games import check_books as check_game_books

MM = 1e-3
OUTSIDE_MM = 300.0  # beyond the 225-mm play circle


class RandomWorld(ScriptedWorld):
    def finish(self, final, **events):
        """As the core: discs in the hand leave the world, the others stay, out of the circle too."""
        self.b = {b.id: b for b in final if b.state != BodyState.IN_HAND}
        self.c = {frozenset(p) for p in events.get("final_contacts", []) if set(p) <= self.b.keys()}
        events["final_contacts"] = sorted(tuple(sorted(p)) for p in self.c)
        return episode(final, **events)


class Outcome:
    """One episode's final bodies and events, built up change by change."""

    def __init__(self, world: RandomWorld):
        self.world = world
        self.final = dict(world.b)
        self.contacts = set(world.c)
        self.events = dict(new_contacts=[], fallen=[], flipped=[], moved_diameters={}, out_of_bounds=[],
                           red_contacts=[], in_hand=[])

    def detach(self, i: int) -> None:
        self.contacts = {p for p in self.contacts if i not in p}

    def touch(self, i: int, j: int) -> None:
        pair = frozenset((i, j))
        if pair not in self.world.c:
            self.events["new_contacts"].append(tuple(sorted(pair)))
        self.contacts.add(pair)

    def set(self, i: int, body) -> None:
        self.final[i] = body

    def stack_on(self, i: int, j: int, up: int | None = None) -> None:
        """Disc i snaps face to face onto the top of disc j's stack (j alone becomes a tower)."""
        below = self.final[j]
        bottom = below.tower if below.tower >= 0 else j
        if below.tower < 0:
            self.set(j, moved(below, state="stacked", tower=j, tilt=0.0))
        top = max([k for k in self.tower(bottom) if k != i] or [j], key=lambda k: self.final[k].z)
        b = self.final[i]
        self.set(i, moved(b, x=below.x, y=below.y, z=self.final[top].z + 6 * MM, state="stacked", tower=bottom,
                          leaning_on=-1, tilt=0.0, up=b.up if up is None else up))
        self.detach(i)
        self.touch(i, top)

    def out(self, i: int) -> None:
        self.set(i, moved(self.final[i], x=OUTSIDE_MM * MM, y=0.0, state="out", tower=-1, leaning_on=-1))
        self.detach(i)

    def fall(self, i: int, flip: bool) -> None:
        b = self.final[i]
        self.set(i, moved(b, state="flat", tilt=0.0, tower=-1, leaning_on=-1, up=-b.up if flip else b.up))
        self.detach(i)

    def tower(self, bottom: int) -> list[int]:
        return [i for i, b in self.final.items() if b.tower == bottom and b.state != BodyState.IN_HAND]

    def tip(self, bottom: int) -> None:
        """A tower tipped over against a neighbour: its discs tilted (RESTING), still stacked together."""
        for i in self.tower(bottom):
            self.set(i, moved(self.final[i], state="resting", tilt=np.pi / 4))

    def turn_over(self, bottom: int) -> None:
        """A tilted tower knocked flat upside down: its discs stacked again, the other colour up."""
        for i in self.tower(bottom):
            b = self.final[i]
            self.set(i, moved(b, state="stacked", tilt=0.0, up=-b.up, leaning_on=-1))

    def finish(self, action: int = -1, status: str = "settled"):
        before = self.world.b
        for i, b in self.final.items():
            if b.state == BodyState.OUT:
                self.events["out_of_bounds"].append(i)
            if i in before:
                b0 = before[i]
                lying = b.state in (BodyState.FLAT, BodyState.STACKED)  # tilt under 20 deg: sim.api's "fallen"
                if b0.state in (BodyState.LEANING, BodyState.RESTING) and lying and i != action:
                    self.events["fallen"].append(i)
                if b0.up != b.up:
                    self.events["flipped"].append(i)
                shift = np.hypot(b.x - b0.x, b.y - b0.y) / (32 * MM)
                if shift > 0:
                    self.events["moved_diameters"][i] = shift
        return self.world.finish(list(self.final.values()), action=action, status=status,
                                 final_contacts=[tuple(sorted(p)) for p in self.contacts], **self.events)


class RandomCore:
    """Random, self-consistent episodes from a seeded generator."""

    World, Intent, balance_intent = RandomWorld, Intent, None

    def __init__(self, seed: int, react: float = 0.06):
        self.rng = np.random.default_rng(seed)
        self.react = react
        self.calls = []

    def params(self, rules):
        return None

    def freeze(self, world) -> int:
        return 1

    def lay_flat(self, world, x, y, up):
        i = new_id(world)
        o = Outcome(world)
        o.set(i, disc(i, x / MM, y / MM, up))
        return o.finish(action=i)

    def _status(self) -> str:
        return "step_budget" if self.rng.random() < 0.03 else "settled"

    def _others(self, o: Outcome, skip: set[int]) -> list[int]:
        return [i for i, b in o.final.items() if not b.red and i not in skip and b.state != BodyState.OUT]

    def _reactions(self, o: Outcome, skip: set[int], hand: int = -1) -> None:
        """Each other disc reacts with probability ``react``; the red disc is touched or moved now and then."""
        rng = self.rng
        for i in self._others(o, skip):
            if rng.random() >= self.react:
                continue
            kind = rng.choice(["fall", "snap", "out", "push", "hand", "tip"])
            b = o.final[i]
            if kind == "fall" and b.tower >= 0 and b.state == BodyState.RESTING:
                o.turn_over(b.tower)
            elif kind == "fall" and b.state in (BodyState.LEANING, BodyState.RESTING):
                o.fall(i, flip=bool(rng.random() < 0.5))
            elif kind == "tip" and b.tower >= 0:
                o.tip(b.tower)
            elif kind == "snap":
                partners = [j for j in self._others(o, skip | {i}) if o.final[j].state != BodyState.IN_HAND]
                if partners:
                    o.stack_on(i, int(rng.choice(partners)), up=b.up if rng.random() < 0.7 else -b.up)
            elif kind == "out":
                o.out(i)
            elif kind == "push" and b.state in (BodyState.FLAT, BodyState.STACKED):
                o.set(i, moved(b, x=b.x + 0.05))
            elif kind == "hand" and hand >= 0:
                o.set(i, moved(b, state="in_hand", tower=-1, leaning_on=-1))
                o.detach(i)
                o.events["in_hand"].append(i)
        red = next(i for i, b in o.final.items() if b.red)
        if rng.random() < 0.08:
            touchers = self._others(o, set()) or [red]
            o.events["red_contacts"] = [int(rng.choice(touchers))]
        if rng.random() < 0.04:
            o.events["red_displacement"] = float(rng.choice([0.5, 3.0]))
            o.set(red, moved(o.final[red], x=o.final[red].x + (0.02 if o.events["red_displacement"] > 1 else 0.004)))

    def place_leaner(self, world, intent):
        self.calls.append("place_leaner")
        rng, o, i = self.rng, Outcome(world), new_id(world)
        host = o.final[intent.host]
        x, y = host.x / MM + 20 * np.cos(intent.azimuth), host.y / MM + 20 * np.sin(intent.azimuth)
        fate = rng.choice(["leaning", "flat", "resting", "stacked", "out", "in_hand"], p=[.4, .2, .1, .1, .1, .1])
        o.set(i, disc(i, x, y, intent.up, "leaning"))
        if fate == "flat":
            o.fall(i, flip=bool(rng.random() < 0.2))
        elif fate == "resting":
            o.set(i, disc(i, x, y, intent.up, "resting", leaning_on=intent.host))
            o.touch(i, intent.host)
        elif fate == "stacked":
            o.stack_on(i, intent.host)
        elif fate == "out":
            o.out(i)
        elif fate == "in_hand":
            o.set(i, disc(i, x, y, intent.up, "in_hand"))
            o.events["in_hand"].append(i)
        self._reactions(o, {i}, hand=i if fate == "in_hand" else -1)
        if o.events["in_hand"] and i not in o.events["in_hand"]:
            o.events["in_hand"].append(i)
            o.set(i, moved(o.final[i], state="in_hand", tower=-1, leaning_on=-1))
            o.detach(i)
        return o.finish(action=i, status=self._status())

    def push_flat(self, world, leaner, azimuth):
        self.calls.append("push_flat")
        o = Outcome(world)
        if self.rng.random() < 0.8:
            o.fall(leaner, flip=False)
        self._reactions(o, {leaner})
        return o.finish(status=self._status())

    def place_tower(self, world, ids, x, y, up):
        self.calls.append("place_tower")
        rng, o = self.rng, Outcome(world)
        for i in ids:
            o.detach(i)
        base = ids[0]
        o.set(base, moved(o.final[base], x=x, y=y, z=3 * MM, up=up, state="stacked" if len(ids) > 1 else "flat",
                          tower=base if len(ids) > 1 else -1, leaning_on=-1, tilt=0.0))
        for k, i in enumerate(ids[1:], start=1):
            if rng.random() < 0.1:  # came apart from the tower being placed
                o.set(i, moved(o.final[i], x=x + 0.04 * k, y=y, z=3 * MM, up=up, state="flat", tower=-1,
                               leaning_on=-1, tilt=0.0))
            else:
                o.set(i, moved(o.final[i], x=x, y=y, z=(3 + 6 * k) * MM, up=up, state="stacked", tower=base,
                               leaning_on=-1, tilt=0.0))
                o.contacts.add(frozenset((ids[k - 1], i)))
        if len(ids) > 1 and all(o.final[i].state == BodyState.FLAT for i in ids[1:]):
            o.set(base, moved(o.final[base], state="flat", tower=-1))
        self._reactions(o, set(ids))
        return o.finish(status=self._status())


STRATEGIES = ("random", "cautious", "aggressive", "converter", "capturer", "lookahead:budget=3")

RULE_SETS = {
    "standard": {},
    "no-red-death": dict(red_sudden_death=False, red_moved_loses=False),
    "tower-steal": dict(tower_steal=True, red_sudden_death=False),
    "both-stacks": dict(end_when="both_stacks_empty", red_sudden_death=False, no_colour_loses=False),
    "no-single-towers": dict(single_disc_tower_scores=False, red_sudden_death=False),
}


class CheckedGame(Game):
    """A game that checks the books at every row it records."""

    def record(self, seat, phase, outcome, res=None, **cols):
        super().record(seat, phase, outcome, res, **cols)
        check_row(self, self.rows[-1])


def check_row(game: Game, row: dict) -> None:
    rules, table = game.rules, game.table
    on_mat = {b.id: b for b in game.bodies() if not b.red}
    where = f"turn {row['turn']} {row['phase']} {row['outcome']}"
    assert not [i for i, b in on_mat.items() if b.state == BodyState.OUT], f"{where}: a disc left out of the circle"
    assert sum(table.stacks) + len(on_mat) == 2 * rules.stack_size, f"{where}: a disc lost or made"
    in_towers = [i for t in table.towers for i in t.ids]
    assert len(in_towers) == len(set(in_towers)), f"{where}: a disc in two towers"
    assert set(in_towers) <= on_mat.keys(), f"{where}: a tower disc not on the mat"
    for t in table.towers:
        top = max(t.ids, key=lambda i: on_mat[i].z)
        assert t.controller == (0 if on_mat[top].up == -1 else 1), f"{where}: tower {t} not its top colour's (R13)"
        if len(t.ids) > 1:
            assert len({on_mat[i].tower for i in t.ids} - {-1}) == 1, f"{where}: tower {t} is not one stack"
    pending = [i for g in table.pending for i in g.ids]
    assert len(pending) == len(set(pending)), f"{where}: a disc in two fault groups"
    assert set(pending) <= on_mat.keys(), f"{where}: a fault group's disc not on the mat"
    if not rules.tower_steal:
        assert not set(pending) & set(in_towers), f"{where}: a tower's disc in a fault group (R11)"
    assert min(table.stacks) >= 0, where


def play_random(seed: int, knobs: dict) -> tuple[dict, list[dict], RandomCore, PolarityRules]:
    rules = PolarityRules(red_orientation="bar", foundations=3, stack_size=12, max_attempts=3, max_turns=120,
                          **knobs)
    seats = (STRATEGIES[seed % len(STRATEGIES)], STRATEGIES[(seed // len(STRATEGIES) + 1 + seed) % len(STRATEGIES)])
    spec = GameSpec(seed, 1000 + seed, "random-core", rules, tuple(StrategySpec.parse(s) for s in seats))
    core = RandomCore(seed)
    game = CheckedGame(spec, core)
    row, turns = game.play()
    return row, turns, core, rules


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_every_turn_keeps_every_disc_and_the_towers_and_fault_groups_consistent(name):
    ends, calls = set(), set()
    for seed in range(40):
        row, turns, core, rules = play_random(seed, RULE_SETS[name])
        check_game_books(row, turns, rules)
        ends.add(row["end_reason"])
        calls |= set(core.calls)
    # the random core reached every verb and the games ended more than one way
    assert calls == {"place_leaner", "push_flat", "place_tower"}, calls
    assert len(ends) >= 2, ends
