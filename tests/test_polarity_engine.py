"""The game loop's rule order on scripted scenes.

These tests drive ``engine.Game`` with a *scripted* core: a test double whose
episodes are written by hand in each test (what the physics would report),
so they check the engine's bookkeeping and rule order (R3, R5, R7, R10, R14,
R17, R19 and the source's edge cases) exactly, independent of the physics
calibration. Full games on the real core are in test_polarity_games.py.
"""

import copy
from dataclasses import replace

import numpy as np
import pytest

from rules.base import GameSpec, StrategySpec
from rules.polarity.engine import Game, GameOver
from rules.polarity.model import PolarityRules
from rules.polarity.records import play_one
from rules.polarity.scenes import B, W, disc, episode, moved
from rules.polarity.state import FaultGroup, Tower, colour
from rules.polarity.strategies import HandParams
from rules.polarity.view import Convert, Place
from sim.api import Intent

MM = 1e-3


class ScriptedWorld:
    def __init__(self):
        self.b, self.c, self.next_id = {}, set(), 0

    @classmethod
    def new(cls, params):
        return cls()

    def add_flat(self, x, y, up, red=False):
        i = self.next_id
        self.next_id += 1
        self.b[i] = disc(i, x / MM, y / MM, up, red=red)
        return i

    def remove(self, ids):
        for i in ids:
            self.b.pop(i, None)
        self.c = {p for p in self.c if not set(p) & set(ids)}

    def discard_last(self, i):
        self.remove([i])

    def copy(self):
        return copy.deepcopy(self)

    def bodies(self):
        return list(self.b.values())

    def contacts(self):
        return sorted(tuple(sorted(p)) for p in self.c)

    def finish(self, final, **events):
        self.b = {b.id: b for b in final}
        self.c = {frozenset(p) for p in events.get("final_contacts", [])}
        return episode(final, **events)


class ScriptedCore:
    """Episodes from a queue of hand-written functions ``(world, *args) -> Episode``."""

    World, Intent, balance_intent = ScriptedWorld, Intent, None

    def __init__(self, script=(), lay=None):
        self.script, self.lay = list(script), lay
        self.calls = []

    def params(self, rules):
        return None

    def lay_flat(self, world, x, y, up):
        self.calls.append("lay_flat")
        if self.lay:
            return self.lay(world, x, y, up)
        before = world.bodies()
        i = world.add_flat(x, y, up)
        return world.finish(before + [world.b[i]])

    def _next(self, name, world, *args):
        self.calls.append(name)
        return self.script.pop(0)(world, *args)

    def place_leaner(self, world, intent):
        return self._next("place_leaner", world, intent)

    def push_flat(self, world, leaner, azimuth):
        return self._next("push_flat", world, leaner, azimuth)

    def place_tower(self, world, ids, x, y, up):
        return self._next("place_tower", world, ids, x, y, up)


def make_game(script=(), rules=None, seats=("cautious", "cautious"), lay=None, setup=True):
    rules = rules or PolarityRules(red_orientation="bar", foundations=2, stack_size=6)
    spec = GameSpec(0, 1234, "standard", rules, tuple(StrategySpec.parse(s) for s in seats))
    game = Game(spec, ScriptedCore(script, lay))
    if setup:
        game.setup()
    return game


def new_id(world):
    i = world.next_id
    world.next_id += 1
    return i


def lean_ok(world, intent):
    """The action disc settles as a leaner; nothing else moves."""
    i = new_id(world)
    host = world.b[intent.host]
    return world.finish(world.bodies() + [disc(i, host.x / MM + 20, host.y / MM, intent.up, "leaning")], action=i)


def falls_flat(world, intent):
    i = new_id(world)
    host = world.b[intent.host]
    return world.finish(world.bodies() + [disc(i, host.x / MM + 40, host.y / MM, intent.up)], action=i, fallen=[i])


def snaps_on_host(world, intent):
    i = new_id(world)
    host = world.b[intent.host]
    final = world.bodies() + [moved(host, state="stacked", tower=host.id),
                              disc(i, host.x / MM, host.y / MM, intent.up, "stacked", tower=host.id, z_mm=9)]
    final = [b for b in final if b.id != host.id] + [final[-2]]
    return world.finish(final, action=i, new_contacts=[(host.id, i)], final_contacts=[(host.id, i)])


def own_hosts(game, seat):
    return [b for b in game.world.bodies() if not b.red and b.up == (-1 if seat == 0 else 1)]


# --- setup ----------------------------------------------------------------

def test_r3_white_lays_all_foundations_then_black_and_stacks_shrink():
    game = make_game()
    rows = game.rows
    assert [r["player"] for r in rows] == [0, 0, 1, 1] and {r["phase"] for r in rows} == {"setup"}
    assert game.table.stacks == [4, 4]
    assert len(own_hosts(game, 0)) == 2 and len(own_hosts(game, 1)) == 2
    assert any(b.red and b.up == B for b in game.world.bodies())  # R1 knob: bar up


def test_r3_knob_alternate_foundations_white_black_in_turn():
    game = make_game(rules=PolarityRules(red_orientation="bar", foundations=3, stack_size=6, foundation_order="alternate"))
    assert [r["player"] for r in game.rows] == [0, 1, 0, 1, 0, 1] and {r["phase"] for r in game.rows} == {"setup"}
    assert game.table.stacks == [3, 3]
    assert len(own_hosts(game, 0)) == 3 and len(own_hosts(game, 1)) == 3


def test_r3_knob_foundation_red_gap_aggressive_lays_no_foundation_nearer_the_red_disc():
    def nearest(game):
        return min(np.hypot(b.x, b.y) for b in game.world.bodies() if not b.red) - 2 * 16 * MM

    rules = dict(red_orientation="bar", foundations=5, stack_size=8)
    seats = ("aggressive", "aggressive")
    assert nearest(make_game(rules=PolarityRules(**rules), seats=seats)) < 60 * MM  # it seeks the red disc
    game = make_game(rules=PolarityRules(**rules, foundation_red_gap_mm=60), seats=seats)
    assert len(own_hosts(game, 0)) == len(own_hosts(game, 1)) == 5
    assert nearest(game) >= 60 * MM


def lays_badly_first(tries, first):
    """A ``lay_flat`` whose first try ends as ``first(world, i, before)`` says; later ones lie still."""
    def lay(world, x, y, up):
        before = world.bodies()
        i = world.add_flat(x, y, up)
        tries.append(i)
        return first(world, i, before) if len(tries) == 1 else world.finish(before + [world.b[i]])
    return lay


def test_r3_a_setup_placement_that_makes_a_disc_react_is_taken_back():
    tries = []
    pulls_a_disc_over = lambda world, i, before: world.finish(  # noqa: E731
        before + [world.b[i]], new_contacts=[(0, i)], red_contacts=[i])
    game = make_game(lay=lays_badly_first(tries, pulls_a_disc_over))
    assert game.rows[0]["attempts"] == 2
    assert len(tries) == 5  # four kept, one taken back from a copy of the world
    assert len([b for b in game.world.bodies() if not b.red]) == 4


def test_r3_a_foundation_that_lands_showing_the_other_colour_is_laid_again():
    tries = []
    turns_over = lambda world, i, before: world.finish(before + [moved(world.b[i], up=-world.b[i].up)])  # noqa: E731
    game = make_game(lay=lays_badly_first(tries, turns_over))
    assert game.rows[0]["attempts"] == 2 and len(tries) == 5
    assert len(own_hosts(game, 0)) == 2 and len(own_hosts(game, 1)) == 2


# --- a turn ---------------------------------------------------------------

def test_r4_r5_placed_leaner_leaves_the_stack():
    game = make_game([lean_ok])
    game.play_turn(0)
    row = game.rows[-1]
    assert (row["phase"], row["outcome"], row["attempts"]) == ("place", "placed", 1)
    assert game.table.stacks == [3, 4]


def test_r5_falling_flat_is_retried_then_given_up_after_max_attempts():
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, max_attempts=3)
    game = make_game([falls_flat] * 3, rules=rules)
    n_before = len(game.world.bodies())
    game.play_turn(0)
    row = game.rows[-1]
    assert (row["outcome"], row["attempts"]) == ("gave_up", 3)
    assert game.table.stacks == [4, 4] and len(game.world.bodies()) == n_before


def test_r5_retry_then_placed_counts_attempts():
    game = make_game([falls_flat, falls_flat, lean_ok])
    game.play_turn(0)
    assert (game.rows[-1]["outcome"], game.rows[-1]["attempts"]) == ("placed", 3)
    assert game.table.stacks == [3, 4]


def recording(intents, then=None):
    """A place_leaner episode that keeps the intent it was given, then plays ``then`` (lean_ok)."""
    def episode_(world, intent):
        intents.append(intent)
        return (then or lean_ok)(world, intent)
    return episode_


def test_r4_the_action_disc_is_released_own_colour_up_for_each_seat():
    intents = []
    game = make_game([recording(intents), recording(intents)])
    game.play_turn(0)
    game.play_turn(1)
    assert [i.up for i in intents] == [W, B] == [colour(0), colour(1)]
    assert [(i.host in {h.id for h in own_hosts(game, s)}) for s, i in enumerate(intents)] == [True, True]


def flies_out(world, intent):
    """The action disc flies out of the circle; nothing else reacts."""
    i = new_id(world)
    return world.finish(world.bodies() + [disc(i, 240, 0, intent.up, "out")], action=i, out_of_bounds=[i])


def test_r5_an_action_disc_flying_out_of_the_circle_with_no_reaction_is_a_retry():
    game = make_game([flies_out, lean_ok])
    n_rows = len(game.rows)
    game.play_turn(0)
    assert [(r["phase"], r["outcome"], r["attempts"]) for r in game.rows[n_rows:]] == [("place", "placed", 2)]
    assert game.rows[-1]["returned_to_stack"] == 0 and game.rows[-1]["fault_kinds"] == ""
    assert game.table.stacks == [3, 4] and game.rows[-1]["discs_on_mat"] == 4 + 1
    assert all(b.state.value != "out" for b in game.world.bodies())


def flung_out_past_the_red_disc(world, intent):
    """The action disc brushes the red disc and flies out of the circle; nothing else reacts."""
    i = new_id(world)
    return world.finish(world.bodies() + [disc(i, 240, 0, intent.up, "out")], action=i, red_contacts=[i],
                        out_of_bounds=[i])


def test_r9_r14_off_a_disc_flung_out_by_a_red_touch_returns_to_the_stack_and_every_disc_is_kept():
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, red_sudden_death=False)
    game = make_game([flung_out_past_the_red_disc, lean_ok], rules=rules)
    game.play_turn(0)
    row = game.rows[-1]
    assert (row["outcome"], row["red_touched"], row["returned_to_stack"]) == ("fault", True, 1)
    assert game.table.stacks == [4, 4]  # drawn, then back by R9
    assert all(b.state.value != "out" for b in game.world.bodies())
    game.play_turn(1)
    for row in game.rows:
        assert row["stack_0"] + row["stack_1"] + row["discs_on_mat"] == 2 * rules.stack_size, row


def tower_ok(world, ids, x, y, up):
    """A captured group set down as a tower, turned to the captor's colour; nothing else moves."""
    rest = [b for b in world.bodies() if b.id not in ids]
    final = rest + [disc(i, x / MM, y / MM, up, "stacked", tower=ids[0], z_mm=3 + 6 * k) for k, i in enumerate(ids)]
    return world.finish(final, final_contacts=[(ids[0], ids[1])])


def test_r6_r10_snap_onto_host_is_a_fault_and_the_opponent_must_capture_first():
    """Common question: discs snapped together from a previous fault are captured before the normal turn."""
    game = make_game([snaps_on_host, tower_ok, lean_ok])
    game.play_turn(0)
    assert game.rows[-1]["outcome"] == "fault" and game.rows[-1]["fault_groups_made"] == 1
    assert game.table.pending and game.table.pending[0].captor == 1
    assert game.table.stacks[0] == 3  # the action disc was played onto the mat
    game.play_turn(1)
    phases = [(r["phase"], r["outcome"]) for r in game.rows[-2:]]
    assert phases == [("capture", "captured"), ("place", "placed")]
    assert game.table.pending == [] and [len(t.ids) for t in game.table.towers_of(1)] == [2]
    assert all(b.up == B for b in game.world.bodies() if b.id in game.table.towers[0].ids)


def test_edge_group_already_a_tower_in_captors_colour_is_captured_in_place():
    game = make_game([lean_ok])
    host = own_hosts(game, 1)[0]
    extra = disc(50, host.x / MM, host.y / MM, B, "stacked", tower=host.id, z_mm=9)
    game.world.b[host.id] = moved(host, state="stacked", tower=host.id)
    game.world.b[50] = extra
    game.world.next_id = 51
    game.table.pending.append(FaultGroup(captor=1, ids=(host.id, 50)))
    game.refresh()
    game.play_turn(1)
    assert game.sim.calls[-1] == "place_leaner"  # no place_tower episode
    assert game.rows[-2]["outcome"] == "captured" and game.rows[-2]["captured_discs"] == 2
    assert game.table.towers == [Tower(1, [host.id, 50])]


def test_r13_a_tower_turned_over_by_a_fault_is_controlled_by_the_colour_now_up():
    """R13: a tower scores for its controller, the colour showing. Before: a White
    tower knocked over to show black still scored for White and hosted White's leaners."""
    game = make_game([])
    a, b = disc(60, 100, 100, W, "stacked", tower=60), disc(61, 100, 100, W, "stacked", tower=60, z_mm=9)
    game.world.b.update({60: a, 61: b})
    game.world.next_id = 62
    game.table.towers.append(Tower(0, [60, 61]))
    game.refresh()

    def knocks_the_tower_over(world, intent):
        i = new_id(world)
        over = [moved(b, x=0.14, up=B, z=0.0), moved(a, x=0.14, up=B, z=0.0045)]  # upside down: 61 under 60
        rest = [x for x in world.bodies() if x.id not in (60, 61)]
        return world.finish(rest + over + [disc(i, 60, -120, intent.up)], action=i, fallen=[i],
                            moved_diameters={60: 1.4, 61: 1.4}, final_contacts=[(60, 61)])

    game.sim.script = [knocks_the_tower_over]
    host = own_hosts(game, 0)[0]
    game.place(0, Place(host.id, 0.0, 0.02, 0.8))
    assert game.rows[-1]["outcome"] == "fault"
    assert game.table.towers == [Tower(1, [61, 60])]
    assert game.rows[-1]["tower_discs_1"] == 2 and game.rows[-1]["tower_discs_0"] == 0
    assert 61 in {h.id for h in game.view(1).hosts()} and 61 not in {h.id for h in game.view(0).hosts()}


def test_edge_fault_during_a_capture_ends_the_turn_and_separated_discs_form_a_new_group():
    game = make_game([])
    w_host = own_hosts(game, 0)[0]
    a, b = disc(60, 100, 100, W), disc(61, 100, 100, B, "stacked", tower=60, z_mm=9)
    game.world.b.update({60: a, 61: b})
    game.world.next_id = 62
    game.table.pending.append(FaultGroup(captor=1, ids=(60, 61)))
    game.refresh()

    def tower_then_slide(world, ids, x, y, up):
        # disc 60 lands on the mat; disc 61 slides off and snaps to White's foundation
        rest = [o for o in world.bodies() if o.id not in ids]
        final = rest + [disc(60, x / MM, y / MM, up), disc(61, w_host.x / MM, w_host.y / MM, W, "stacked", tower=w_host.id, z_mm=9)]
        return world.finish(final, new_contacts=[(61, w_host.id)], final_contacts=[(61, w_host.id)])

    game.sim.script = [tower_then_slide]
    game.play_turn(1)
    assert game.rows[-1]["phase"] == "capture" and game.rows[-1]["outcome"] == "fault"
    assert "place_leaner" not in game.sim.calls  # the turn ended
    assert game.table.towers_of(1) and game.table.towers_of(1)[0].ids == [60]
    assert game.table.pending == [FaultGroup(captor=0, ids=tuple(sorted((61, w_host.id))))]


def pending_group(game, n, captor=1):
    """``n`` discs (ids 60...) snapped together far from everything, waiting for ``captor``."""
    ids = list(range(60, 60 + n))
    for k, i in enumerate(ids):
        game.world.b[i] = disc(i, 100, 100, W, "stacked", tower=60, z_mm=3 + 6 * k)
    game.world.next_id = 60 + n
    game.table.pending.append(FaultGroup(captor=captor, ids=tuple(ids)))
    game.refresh()
    return ids


def capture_falls_apart(pieces):
    """A place_tower episode whose discs end in ``pieces`` (lists of ids): each piece a
    stack of its own, 50 mm apart, touching nothing else."""
    def place(world, ids, x, y, up):
        rest = [o for o in world.bodies() if o.id not in ids]
        final, touching = [], []
        for k, piece in enumerate(pieces):
            for level, i in enumerate(piece):
                state = "stacked" if len(piece) > 1 else "flat"
                final.append(disc(i, x / MM + 50 * k, y / MM, up, state, tower=piece[0] if len(piece) > 1 else -1,
                                  z_mm=3 + 6 * level))
            touching += [(a, b) for a, b in zip(piece, piece[1:])]
        return world.finish(rest + final, final_contacts=touching)
    return place


def test_edge_a_disc_separated_from_a_capture_is_a_fault_and_stays_where_it_landed():
    """Common question: discs that become separated from the capture attempt create a
    new fault (the turn ends); a lone one touching nothing is left where it landed."""
    game = make_game([])
    ids = pending_group(game, 3)
    game.sim.script = [capture_falls_apart([ids[:2], ids[2:]])]
    game.play_turn(1)
    row = game.rows[-1]
    assert (row["phase"], row["outcome"], row["fault_kinds"], row["captured_discs"]) == ("capture", "fault", "s", 2)
    assert "place_leaner" not in game.sim.calls  # the turn ended
    assert game.table.towers == [Tower(1, ids[:2])] and game.table.pending == []
    assert game.world.b[ids[2]].state.value == "flat"


def test_edge_discs_separated_from_a_capture_still_together_are_a_new_fault_group():
    game = make_game([])
    ids = pending_group(game, 5)
    game.sim.script = [capture_falls_apart([ids[:3], ids[3:]])]
    game.play_turn(1)
    assert game.rows[-1]["outcome"] == "fault" and game.rows[-1]["fault_groups_made"] == 1
    assert game.table.towers == [Tower(1, ids[:3])]
    assert game.table.pending == [FaultGroup(captor=0, ids=tuple(ids[3:]))]


def test_edge_part_of_a_stack_is_not_a_tower_to_declare_captured_in_place():
    """Only a group "completely in tower form" is declared captured where it lies: one
    disc in the captor's colour fallen onto another tower is lifted and placed."""
    game = make_game([lean_ok])
    host = own_hosts(game, 0)[0]
    game.world.b[host.id] = moved(host, state="stacked", tower=host.id)
    game.world.b[50] = disc(50, host.x / MM, host.y / MM, B, "stacked", tower=host.id, z_mm=9)
    game.world.next_id = 51
    game.table.pending.append(FaultGroup(captor=1, ids=(50,)))
    game.refresh()
    game.sim.script = [capture_falls_apart([[50]]), lean_ok]
    game.play_turn(1)
    assert game.sim.calls[-2:] == ["place_tower", "place_leaner"]
    assert game.rows[-2]["phase"] == "capture" and game.rows[-1]["outcome"] == "placed"


def lean_and_keep(world, intent, final, **events):
    """The action disc settles leaning off its host; the rest of the scene is ``final``."""
    i = new_id(world)
    host = world.b[intent.host]
    return world.finish(final + [disc(i, host.x / MM + 20, host.y / MM, intent.up, "leaning")], action=i, **events)


@pytest.mark.parametrize("single, points", [(True, 1), (False, 0)])
def test_r12_a_flipped_leaner_is_captured_by_its_owner_as_a_one_disc_tower_that_scores(single, points):
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, single_disc_tower_scores=single)
    game = make_game([lean_ok, lean_ok], rules=rules)
    game.play_turn(0)
    game.play_turn(1)
    black_leaner = next(b for b in game.world.bodies() if b.state.value == "leaning" and b.up == B)

    def knocks_it_flat_white_up(world, intent):
        final = [moved(b, state="flat", up=W, x=b.x + 0.04) if b.id == black_leaner.id else b
                 for b in world.bodies()]
        return lean_and_keep(world, intent, final, fallen=[black_leaner.id], flipped=[black_leaner.id])

    set_down = []

    def captures(world, ids, x, y, up):
        set_down.append((list(ids), up))
        return capture_falls_apart([ids])(world, ids, x, y, up)

    game.sim.script = [knocks_it_flat_white_up, captures, lean_ok]
    game.play_turn(0)
    assert (game.rows[-1]["outcome"], game.rows[-1]["fault_kinds"]) == ("fault", "b")
    assert game.table.pending == [FaultGroup(captor=1, ids=(black_leaner.id,), flipped_leaner=True)]
    game.play_turn(1)
    assert set_down == [([black_leaner.id], B)]
    assert [(r["phase"], r["outcome"]) for r in game.rows[-2:]] == [("capture", "captured"), ("place", "placed")]
    assert game.rows[-2]["captured_discs"] == 1 and game.table.pending == []
    assert game.table.towers == [Tower(1, [black_leaner.id])]
    assert game.world.b[black_leaner.id].up == B
    assert game.rows[-1]["tower_discs_1"] == points
    assert game.rows[-1]["score_1"] == points - game.table.stacks[1] == points - 2


def test_r7_conversion_ends_the_turn_the_leaner_becomes_a_foundation_and_stack_is_unchanged():
    game = make_game([lean_ok])
    game.play_turn(0)
    leaner = next(b for b in game.world.bodies() if b.state.value == "leaning")

    def push(world, lid, az):
        return world.finish([moved(b, state="flat") if b.id == lid else b for b in world.bodies()], fallen=[lid])

    game.sim.script = [push]
    stacks = list(game.table.stacks)
    game.convert(0, Convert(leaner.id, 0.0))
    assert game.rows[-1]["outcome"] == "converted" and game.rows[-1]["fault_kinds"] == ""
    assert game.table.stacks == stacks and game.counts["conversions"][0] == 1
    assert leaner.id in {h.id for h in game.view(0).hosts()}


def leans_and_knocks_out(victim: int):
    """An episode: the action disc settles as a leaner and knocks disc ``victim`` out of the circle."""
    def episode_(world, intent):
        i = new_id(world)
        host = world.b[intent.host]
        final = [moved(b, state="out", x=0.3) if b.id == victim else b for b in world.bodies()]
        return world.finish(final + [disc(i, host.x / MM + 20, host.y / MM, intent.up, "leaning")],
                            action=i, out_of_bounds=[victim])
    return episode_


def test_r8_r17_last_disc_ends_the_game_even_if_the_fault_refills_the_stack():
    """Common question: playing my last disc ends the game at once, even mid-turn."""
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=3)
    game = make_game([], rules=rules)
    game.sim.script = [leans_and_knocks_out(own_hosts(game, 1)[0].id)]
    with pytest.raises(GameOver) as end:
        game.play_turn(0)
    assert end.value.reason == "stack_empty"
    assert game.table.stacks[0] == 1  # emptied by the last disc, refilled by R9: the end stands


@pytest.mark.parametrize("scoring, scored_stack", [(None, 0), ("when_emptied", 0), ("after_resolution", 1)])
def test_r17_r18_the_stack_the_last_disc_emptied_scores_as_empty_stack_scoring_says(scoring, scored_stack):
    """"Proceed to scoring immediately": scored when it emptied (the default since polsim 0.22.0),
    White's stack is empty, though the same move's fault returned a disc to it (R9; a helper's
    rules review: 0-6 of 384 stored games a run change winner)."""
    knob = {} if scoring is None else {"empty_stack_scoring": scoring}
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=3, **knob)
    game = make_game([], rules=rules)
    game.sim.script = [leans_and_knocks_out(own_hosts(game, 1)[0].id)]
    with pytest.raises(GameOver) as end:
        game.play_turn(0)
    row = game.game_row(end.value)
    assert game.table.stacks[0] == 1  # the table holds the refill either way
    assert (row["stack_0"], row["score_0"]) == (scored_stack, float(row["tower_discs_0"] - scored_stack))
    assert (row["stack_1"], row["score_1"]) == (game.table.stacks[1], float(row["tower_discs_1"] - game.table.stacks[1]))


def test_r9_r10_a_pending_groups_disc_knocked_out_of_the_circle_leaves_the_group():
    """A group waits for Black's capture (a capture of Black's faulted, say); White's move
    knocks one of its discs out of the circle: back in White's stack (R9), it is no longer
    in the group Black will capture; the disc left alone is connected to nothing, so no group
    is left (before, Black captured it as a one-disc tower: a helper's rules review)."""
    game = make_game([])
    a, b = own_hosts(game, 1)  # Black's two foundations, snapped together (White still has hosts)
    flipped = own_hosts(game, 0)[-1]  # and a group of one, as R12 makes of a flipped leaner: it stays
    game.table.pending += [FaultGroup(captor=1, ids=(a.id, b.id)), FaultGroup(captor=1, ids=(flipped.id,))]
    game.sim.script = [leans_and_knocks_out(a.id)]
    game.play_turn(0)
    assert game.rows[-1]["returned_to_stack"] == 1
    assert game.table.pending == [FaultGroup(captor=1, ids=(flipped.id,))]


def test_r14_red_touch_in_a_full_game_makes_the_mover_lose():
    def touch_red(world, intent):
        i = new_id(world)
        host = world.b[intent.host]
        return world.finish(world.bodies() + [disc(i, host.x / MM + 20, host.y / MM, intent.up, "leaning")],
                            action=i, red_contacts=[i], new_contacts=[(0, i)])

    game = make_game([lean_ok, touch_red], setup=False)
    row, turns = game.play()
    assert (row["end_reason"], row["winner"], row["loser"], row["loser_cause"]) == ("red_touched", 0, 1, "R14")
    assert row["n_turns"] == 4 + 2  # the turn that touched red counts
    assert turns[-1]["player"] == 1 and turns[-1]["red_touched"]


def touches_red_setting_down(world, ids, x, y, up):
    """A captured group set down as a tower whose bottom disc brushes the red disc."""
    rest = [b for b in world.bodies() if b.id not in ids]
    final = rest + [disc(i, x / MM, y / MM, up, "stacked", tower=ids[0], z_mm=3 + 6 * k) for k, i in enumerate(ids)]
    return world.finish(final, status="red_contact", red_contacts=[ids[0]], new_contacts=[(0, ids[0])],
                        final_contacts=[(ids[0], ids[1])])


def test_r14_red_touch_while_placing_a_captured_tower_loses_for_the_capturer():
    game = make_game([])
    pending_group(game, 2, captor=1)
    game.sim.script = [touches_red_setting_down, lean_ok]
    with pytest.raises(GameOver) as end:
        game.play_turn(1)
    assert (end.value.reason, end.value.loser, end.value.cause) == ("red_touched", 1, "R14")
    row = game.game_row(end.value)
    assert (row["end_reason"], row["loser"], row["loser_cause"], row["winner"]) == ("red_touched", 1, "R14", 0)
    assert game.rows[-1]["phase"] == "capture" and game.rows[-1]["red_touched"]
    assert "place_leaner" not in game.sim.calls and len(game.sim.script) == 1


class Always:
    """A player whose every turn answers ``action``."""

    def __init__(self, action):
        self.action = action

    def act(self, view, rng):
        return self.action


@pytest.mark.parametrize("seat", [0, 1])
def test_r14_red_touch_during_a_conversion_loses_for_the_converter(seat):
    game = make_game([lean_ok])
    game.play_turn(seat)
    leaner = next(b for b in game.world.bodies() if b.state.value == "leaning")

    def pushed_into_red(world, lid, az):
        final = [moved(b, state="flat", x=0.02, y=0.0) if b.id == lid else b for b in world.bodies()]
        return world.finish(final, status="red_contact", fallen=[lid], red_contacts=[lid], new_contacts=[(0, lid)])

    game.players[seat] = Always(Convert(leaner.id, np.pi))
    game.sim.script = [pushed_into_red, lean_ok]
    with pytest.raises(GameOver) as end:
        game.play_turn(seat)
    assert (end.value.reason, end.value.loser, end.value.cause) == ("red_touched", seat, "R14")
    assert game.game_row(end.value)["winner"] == 1 - seat
    assert game.rows[-1]["phase"] == "convert" and game.rows[-1]["red_touched"]
    assert game.sim.calls[-1] == "push_flat" and len(game.sim.script) == 1


def never_settles(world, intent):
    """The action disc ends leaning but the world is still moving when the budget ends."""
    i = new_id(world)
    host = world.b[intent.host]
    return world.finish(world.bodies() + [disc(i, host.x / MM + 20, host.y / MM, intent.up, "leaning")],
                        action=i, status="step_budget")


def test_r19_unsettled_end_game_ends_the_game_as_step_budget():
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, unsettled="end_game")
    row, _ = make_game([never_settles], rules=rules, setup=False).play()
    assert (row["end_reason"], row["winner"], row["status"]) == ("step_budget", None, "ok")


def test_r19_unsettled_freeze_resolves_the_turn_and_the_game_goes_on():
    frozen = []
    game = make_game([never_settles] + [lean_ok] * 20, setup=False)
    game.sim.freeze = lambda world: frozen.append(world) or 3  # three bodies were still moving
    row, turns = game.play()
    assert row["end_reason"] == "stack_empty" and row["unsettled_episodes"] == 1 and len(frozen) == 1
    first = next(t for t in turns if t["phase"] == "place")
    assert (first["outcome"], first["unsettled"], first["action_state"]) == ("placed", 3, "leaning")
    assert all(t["unsettled"] == 0 for t in turns if t is not first)


@pytest.mark.parametrize("unsettled", ["freeze", "end_game"])
def test_r19_lookahead_reads_an_unsettled_trial_as_the_game_would(unsettled):
    """Before: a trial not at rest was valued as a sudden loss even under ``freeze``,
    where the game resolves it like any other episode."""
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, unsettled=unsettled)
    game = make_game([never_settles], rules=rules)
    host = next(b for b in game.bodies() if not b.red and b.up == colour(0))
    res = game.trial_for(0)(Place(host.id, 0.0, 0.02, 0.8), np.random.default_rng(0), HandParams())
    if unsettled == "end_game":
        assert res is None
    else:
        assert res.action == "placed" and not res.fault


def test_r19_unsettled_is_the_default_freeze():
    assert PolarityRules().unsettled == "freeze"


def test_physics_nan_and_strategy_errors_become_error_rows_not_exceptions(monkeypatch):
    def nan(world, intent):
        return world.finish(world.bodies(), status="nan")

    spec = GameSpec(3, 99, "standard", PolarityRules(foundations=2, stack_size=6),
                    (StrategySpec("random"), StrategySpec("random")))
    row, turns = play_one(spec, ScriptedCore([nan]))
    assert (row["status"], row["end_reason"], row["game_index"], row["winner"]) == ("error", "physics_error", 3, None)
    assert "nan" in row["error"] and len(turns) == 4

    bad = replace(spec, seats=(StrategySpec("random", (("p_convert", "2"),)), StrategySpec("random")))
    row, _ = play_one(bad, ScriptedCore())
    assert row["status"] == "error" and "p_convert" in row["error"]


def test_turn_limit_is_a_safety_cap():
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, max_turns=4, max_attempts=1)
    row, turns = make_game([falls_flat] * 10, rules=rules, setup=False).play()
    assert row["end_reason"] == "turn_limit" and row["n_turns"] == 4 + 4
    assert [t["outcome"] for t in turns[4:]] == ["gave_up"] * 4


def test_r5_both_players_giving_up_on_their_last_stall_rounds_turns_ends_the_game_as_stalled():
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, max_attempts=1, stall_rounds=2)
    row, turns = make_game([falls_flat] * 10, rules=rules, setup=False).play()
    assert row["end_reason"] == "stalled" and row["n_turns"] == 4 + 2 * 2
    assert [t["outcome"] for t in turns[4:]] == ["gave_up"] * 4
    assert (row["winner"], row["score_0"], row["score_1"]) == (-1, -4.0, -4.0)   # R18 on the unchanged table


def test_r5_a_placement_between_give_ups_starts_the_stall_count_again():
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, max_attempts=1, stall_rounds=2)
    row, turns = make_game([falls_flat] * 3 + [lean_ok] + [falls_flat] * 10, rules=rules, setup=False).play()
    assert [t["outcome"] for t in turns[4:]] == ["gave_up"] * 3 + ["placed"] + ["gave_up"] * 4
    assert row["end_reason"] == "stalled" and row["n_turns"] == 4 + 8


def test_r5_stall_rounds_0_plays_give_ups_on_to_the_turn_limit():
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, max_turns=12, max_attempts=1,
                          stall_rounds=0)
    row, turns = make_game([falls_flat] * 20, rules=rules, setup=False).play()
    assert row["end_reason"] == "turn_limit" and [t["outcome"] for t in turns[4:]] == ["gave_up"] * 12


def push_fails(world, leaner, azimuth):
    """A press that leaves the leaner up and moves nothing (it missed the raised face)."""
    return world.finish(world.bodies())


def push_fails_knocking(victim: int):
    """A press that leaves the leaner up but knocks disc ``victim`` 30 mm: R6(d), a fault."""
    def episode_(world, leaner, azimuth):
        final = [moved(b, x=b.x + 0.03) if b.id == victim else b for b in world.bodies()]
        return world.finish(final, moved_diameters={victim: 1.3})
    return episode_


def converter_game(pushes, stall_failed_conversions=True, max_turns=400):
    """White (converter) places a leaner, then presses it at every turn (``pushes``, one a turn);
    Black's leaners all fall flat, one try a turn, so Black gives up every turn."""
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=6, max_attempts=1, stall_rounds=2,
                          max_turns=max_turns, stall_failed_conversions=stall_failed_conversions)
    script = [lean_ok, falls_flat]
    for push in pushes:
        script += [push, falls_flat]
    return make_game(script, rules=rules, seats=("converter", "cautious"), setup=False).play()


def test_r5_a_failed_conversion_that_changes_nothing_counts_toward_the_stall_as_a_give_up_does():
    row, turns = converter_game([push_fails] * 10)
    assert [t["outcome"] for t in turns[4:]] == ["placed", "gave_up", "convert_failed", "gave_up", "convert_failed"]
    assert row["end_reason"] == "stalled" and row["n_turns"] == 4 + 5


def test_r5_failed_conversions_were_not_a_stall_before_polsim_0_32_0():
    row, turns = converter_game([push_fails] * 10, stall_failed_conversions=False, max_turns=9)
    assert row["end_reason"] == "turn_limit" and row["n_turns"] == 4 + 9
    assert [t["outcome"] for t in turns[6:]] == ["convert_failed", "gave_up"] * 3 + ["convert_failed"]


def test_r5_a_failed_conversion_that_faults_starts_the_stall_count_again():
    game_row, turns = converter_game([push_fails, push_fails_knocking(1)] + [push_fails] * 10)
    assert [t["outcome"] for t in turns[4:9]] == ["placed", "gave_up", "convert_failed", "gave_up", "convert_failed"]
    assert turns[8]["fault_kinds"] == "d" and game_row["end_reason"] == "stalled"
    assert [t["outcome"] for t in turns[9:]] == ["gave_up", "convert_failed"] * 2   # then two rounds of nothing
    assert game_row["n_turns"] == 4 + 5 + 4


def test_r4_a_leaner_off_an_opponents_disc_is_an_illegal_move():
    from rules.polarity.engine import check_legal

    game = make_game([])
    black = own_hosts(game, 1)[0]
    with pytest.raises(ValueError, match="not a host"):
        check_legal(game.view(0), Place(black.id, 0.0, 0.024, 0.78))
    check_legal(game.view(1), Place(black.id, 0.0, 0.024, 0.78))
    with pytest.raises(ValueError, match="not a leaner"):
        check_legal(game.view(0), Convert(black.id, 0.0))


def grabbing(victim):
    """A place_leaner episode in which ``victim`` snaps onto the Action Disc still in hand (R8)."""
    def grab(world, intent):
        i = new_id(world)
        final = [b for b in world.bodies() if b.id != victim.id]
        return world.finish(final + [moved(victim, state="in_hand"), disc(i, 0, 0, intent.up, "in_hand")],
                            action=i, in_hand=[victim.id])
    return grab


def test_r8_discs_in_hand_and_the_action_disc_return_to_the_stack_net_of_the_draw():
    game = make_game([])
    game.sim.script = [grabbing(own_hosts(game, 1)[0])]
    stacks = list(game.table.stacks)
    game.play_turn(0)
    row = game.rows[-1]
    assert (row["outcome"], row["fault_kinds"], row["returned_to_stack"]) == ("fault", "c", 2)
    assert game.table.stacks == [stacks[0] + 1, stacks[1]]  # drew 1, got back the action disc and one more


def test_r8_a_host_that_tips_up_onto_the_held_disc_goes_back_to_the_stack_with_it():
    """With the real core: Black holds its Action Disc so close over its own foundation
    that the foundation tips up onto it before the hand lets go. Both go to Black's
    stack (R8), not to the mat as White's fault group (physics 0.19.0 let go of the
    held disc onto the foundation: ``lift_clinging=false``)."""
    def turn(**rules):
        spec = GameSpec(0, 5, "standard", PolarityRules(red_orientation="bar", **rules),
                        tuple(StrategySpec.parse("cautious") for _ in range(2)))
        game = Game(spec)
        game.world.add_flat(0.0, 0.0, 1, red=True)
        host = game.world.add_flat(-0.15, 0.08, 1)                     # Black's foundation
        game.world.add_flat(0.12, -0.1, 1)                             # another one (R16)
        game.world.add_flat(0.12, 0.1, -1)                             # White's (R16)
        game.refresh()
        game.table.stacks = [10, 10]
        game.place(1, Place(host, 0.0, 0.03, np.pi / 4))
        return game, host
    game, host = turn()
    row = game.rows[-1]
    assert (row["action_state"], row["fault_kinds"], row["returned_to_stack"]) == ("in_hand", "a,c", 2)
    assert game.table.stacks == [10, 11] and not game.table.pending
    assert host not in [b.id for b in game.world.bodies()]
    old, host = turn(lift_clinging=False, out_entirely=False, red_stays=False)
    assert old.rows[-1]["action_state"] != "in_hand" and old.table.stacks == [10, 9]
    assert [g.ids for g in old.table.pending] == [(host, host + 3)]


def test_r8_r17_last_disc_snapped_back_into_the_hand_still_ends_the_game():
    """RULES.md R17: a fault that refills the stack in the same resolution (here R8:
    the last Action Disc comes back with a disc stuck to it) does not undo the end."""
    game = make_game([], rules=PolarityRules(red_orientation="bar", foundations=2, stack_size=3))
    game.sim.script = [grabbing(own_hosts(game, 1)[0])]
    with pytest.raises(GameOver) as end:
        game.play_turn(0)
    assert end.value.reason == "stack_empty"
    assert game.table.stacks[0] == 2  # the last disc and the one stuck to it count against White


def test_r3_r19_a_setup_placement_that_does_not_settle_is_taken_back_not_a_game_end():
    tries = []

    def lay(world, x, y, up):
        before = world.bodies()
        i = world.add_flat(x, y, up)
        tries.append(i)
        return world.finish(before + [world.b[i]], status="step_budget" if len(tries) == 2 else "settled")

    game = make_game(lay=lay)
    assert [r["attempts"] for r in game.rows] == [1, 2, 1, 1]


def test_r3_a_setup_placement_that_pushes_a_disc_a_little_is_taken_back():
    tries = []

    def lay(world, x, y, up):
        before = world.bodies()
        i = world.add_flat(x, y, up)
        tries.append(i)
        return world.finish(before + [world.b[i]], moved_diameters={0: 0.3} if len(tries) == 3 else {})

    game = make_game(lay=lay)
    assert [r["attempts"] for r in game.rows] == [1, 1, 2, 1]


def test_r10_r17_with_both_stacks_to_empty_a_player_with_no_disc_left_still_captures():
    """end_when=both_stacks_empty: seat 0 has played its last disc when seat 1 snaps a
    disc onto its host; seat 0 cannot place, but captures the group made for it."""
    rules = PolarityRules(red_orientation="bar", foundations=2, stack_size=4, end_when="both_stacks_empty",
                          max_attempts=1)
    game = make_game(rules=rules, setup=False)
    # after setup both stacks hold 2: 0 places; 1 gives up; 0 places its last; 1 faults
    # (a group for 0); 0 captures it; 1 places its last disc: both stacks empty
    game.sim.script = [lean_ok, falls_flat, lean_ok, snaps_on_host, tower_ok, lean_ok]
    row, turns = game.play()
    assert [(r["player"], r["phase"], r["outcome"]) for r in turns[-3:]] == [
        (1, "place", "fault"), (0, "capture", "captured"), (1, "place", "placed")]
    assert row["end_reason"] == "stack_empty" and row["tower_discs_0"] == 2 and row["winner"] == 0
    assert game.table.pending == []


def white_tower_of_two(rules=None):
    """A game after setup with a White tower 60 (bottom) under 61, away from everything."""
    game = make_game(rules=rules)
    game.world.b[60] = disc(60, 100, -100, W, "stacked", tower=60)
    game.world.b[61] = disc(61, 100, -100, W, "stacked", tower=60, z_mm=9)
    game.world.c = {frozenset((60, 61))}
    game.world.next_id = 62
    game.table.towers.append(Tower(0, [60, 61]))
    game.refresh()
    return game


def test_r13_a_tower_knocked_apart_into_single_discs_is_no_tower():
    game = white_tower_of_two()

    def knocks_apart(world, intent):
        i, host = new_id(world), world.b[intent.host]
        rest = [b for b in world.bodies() if b.id not in (60, 61)]
        final = rest + [disc(60, 100, -100, W), disc(61, 160, -100, W),
                        disc(i, host.x / MM + 20, host.y / MM, intent.up, "leaning")]
        return world.finish(final, action=i, moved_diameters={61: 1.9}, final_contacts=[])

    game.sim.script = [knocks_apart]
    game.place(1, Place(own_hosts(game, 1)[0].id, 0.0, 0.05, 0.78))
    assert game.table.towers == [] and game.rows[-1]["towers_0"] == 0
    assert {60, 61} <= {h.id for h in game.view(0).hosts()}  # two flat White discs, hosts like any


def test_r10_r11_a_disc_knocked_off_a_tower_onto_another_is_captured_by_the_opponent():
    game = white_tower_of_two(PolarityRules(red_orientation="bar", foundations=2, stack_size=6, tower_steal=False))
    foundation = own_hosts(game, 0)[0]

    def knocks_top_onto_foundation(world, intent):
        i, host = new_id(world), world.b[intent.host]
        rest = [b for b in world.bodies() if b.id not in (61, foundation.id)]
        final = rest + [moved(foundation, state="stacked", tower=foundation.id),
                        disc(61, foundation.x / MM, foundation.y / MM, W, "stacked", tower=foundation.id, z_mm=9),
                        disc(i, host.x / MM + 20, host.y / MM, intent.up, "leaning")]
        return world.finish(final, action=i, moved_diameters={61: 4.0}, new_contacts=[(foundation.id, 61)],
                            final_contacts=[(foundation.id, 61)])

    game.sim.script = [knocks_top_onto_foundation]
    game.place(1, Place(own_hosts(game, 1)[0].id, 0.0, 0.05, 0.78))
    assert [(g.captor, g.ids) for g in game.table.pending] == [(0, tuple(sorted((foundation.id, 61))))]
    assert game.table.towers == []  # 60 alone is no tower


def test_r11_without_tower_steal_a_stale_group_cannot_take_discs_out_of_a_tower():
    game = white_tower_of_two(PolarityRules(red_orientation="bar", foundations=2, stack_size=6, tower_steal=False))
    game.table.pending.append(FaultGroup(captor=1, ids=(60, 61)))  # queued before 60 and 61 became White's tower
    game.sim.script = [lean_ok]
    game.play_turn(1)
    assert [t.ids for t in game.table.towers_of(0)] == [[60, 61]] and game.table.pending == []
    assert [r["phase"] for r in game.rows[-1:]] == ["place"]


def test_r10_a_disc_snapped_onto_a_new_group_leaves_its_old_pending_group():
    game = make_game()
    ids = pending_group(game, 2, captor=1)  # 60 and 61 wait for Black

    def snaps_onto_the_group(world, intent):
        i = new_id(world)
        final = world.bodies() + [disc(i, 100, 100, intent.up, "stacked", tower=60, z_mm=15)]
        return world.finish(final, action=i, new_contacts=[(61, i)], final_contacts=[(60, 61), (61, i)])

    game.sim.script = [snaps_onto_the_group]
    game.place(1, Place(own_hosts(game, 1)[0].id, 0.0, 0.05, 0.78))  # Black faults onto its own group
    assert [(g.captor, g.ids) for g in game.table.pending] == [(0, (*ids, 62))]
