"""Turn paths of ``engine.Game`` on scripted scenes: R16, R7 via ``play_turn``, R11, R3 fallback.

Same approach as test_polarity_engine.py (whose scripted core and helpers are
reused): each episode is written by hand, so these tests check the engine's
bookkeeping and rule order, not the physics. Covered here:

- R16: a turn that leaves a colour with no disc showing ends the game
  (``no_colour_on_mat``), whichever player lost their colour;
- R7: a ``Convert`` answered by a strategy runs the push and ends the turn,
  and is a ``no_move`` when ``allow_conversion`` is off;
- R11: a fault group that drags in discs of a tower changes their tower
  (``tower_steal``) or leaves the tower alone (default);
- R3: after ``setup_retries`` reacting tries the engine lays the foundation
  on a random legal spot from the ``setup`` stream.
"""

import pytest

from rules.polarity.engine import GameOver
from rules.polarity.model import PolarityRules
from rules.polarity.scenes import B, W, disc, moved
from rules.polarity.state import FaultGroup, Tower
from rules.polarity.view import Convert, Place
from rules.seeds import stream
from tests.test_polarity_engine import lean_ok, make_game, new_id, own_hosts

MM = 1e-3


def rules(**knobs):
    return PolarityRules(red_orientation="bar", foundations=2, stack_size=6, **knobs)


class Always:
    """A player whose every turn answers ``action``; counts the turns asked."""

    def __init__(self, action):
        self.action, self.asked = action, 0

    def act(self, view, rng):
        self.asked += 1
        return self.action


def lean_and(world, intent, final, **events):
    """The action disc settles leaning off its host; the rest of the scene is ``final``."""
    i = new_id(world)
    host = world.b[intent.host]
    return world.finish(final + [disc(i, host.x / MM + 20, host.y / MM, intent.up, "leaning")], action=i, **events)


# --- R16 ------------------------------------------------------------------

def test_r16_knocking_out_every_opponent_disc_ends_the_game_and_the_opponent_loses():
    def knock_out_black(world, intent):
        black = [b.id for b in world.bodies() if not b.red and b.up == B]
        final = [moved(b, state="out", x=0.3) if b.id in black else b for b in world.bodies()]
        return lean_and(world, intent, final, out_of_bounds=black)

    row, turns = make_game([knock_out_black], setup=False).play()
    assert (row["end_reason"], row["loser"], row["winner"], row["loser_cause"]) == ("no_colour_on_mat", 1, 0, "R16")
    assert (turns[-1]["player"], turns[-1]["outcome"], turns[-1]["fault_kinds"]) == (0, "fault", "e")
    assert row["stack_0"] == 4 - 1 + 2  # R9: both knocked-out discs went to White's stack


def test_r16_the_mover_who_loses_their_own_colour_loses():
    game = make_game([])
    white = {b.id for b in own_hosts(game, 0)}

    def grab_own_foundations(world, intent):
        i = new_id(world)
        final = [moved(b, state="in_hand") if b.id in white else b for b in world.bodies()]
        return world.finish(final + [disc(i, 0, 0, intent.up, "in_hand")], action=i, in_hand=sorted(white))

    game.sim.script = [grab_own_foundations]
    with pytest.raises(GameOver) as end:
        game.play_turn(0)
    assert (end.value.reason, end.value.loser, end.value.cause) == ("no_colour_on_mat", 0, "R16")
    assert not any(b.up == W for b in game.world.bodies() if not b.red)
    assert game.table.stacks[0] == 4 - 1 + 3  # R8: the action disc and both foundations


# --- R7 through play_turn ---------------------------------------------------

def game_with_a_white_leaner(**knobs):
    game = make_game([lean_ok], rules=rules(**knobs))
    game.play_turn(0)
    leaner = next(b for b in game.world.bodies() if b.state.value == "leaning")
    game.players[0] = Always(Convert(leaner.id, 0.0))
    return game, leaner


def test_r7_a_strategys_convert_runs_the_push_and_ends_the_turn():
    game, leaner = game_with_a_white_leaner()

    def push(world, lid, az):
        return world.finish([moved(b, state="flat") if b.id == lid else b for b in world.bodies()], fallen=[lid])

    game.sim.script = [push, lean_ok]  # a second episode would be a leaner placed after the conversion
    calls, stacks = len(game.sim.calls), list(game.table.stacks)
    game.play_turn(0)
    assert game.sim.calls[calls:] == ["push_flat"]  # no place_leaner in the same turn
    assert (game.rows[-1]["phase"], game.rows[-1]["outcome"], game.rows[-1]["host"]) == ("convert", "converted", leaner.id)
    assert game.table.stacks == stacks and game.counts["conversions"][0] == 1  # the action disc went back
    assert leaner.id in {h.id for h in game.view(0).hosts()}  # now a foundation


def test_r7_convert_with_allow_conversion_off_is_no_move_and_runs_no_episode():
    game, leaner = game_with_a_white_leaner(allow_conversion=False)
    calls, stacks = len(game.sim.calls), list(game.table.stacks)
    game.play_turn(0)
    assert game.players[0].asked == 1 and game.sim.calls[calls:] == []
    assert (game.rows[-1]["phase"], game.rows[-1]["outcome"]) == ("place", "no_move")
    assert game.table.stacks == stacks and game.counts["conversions"][0] == 0
    assert next(b for b in game.world.bodies() if b.id == leaner.id).state.value == "leaning"


# --- R11 --------------------------------------------------------------------

def tower_ok(world, ids, x, y, up):
    """The captured discs land at (x, y) as one tower (or one flat disc), captor's colour up."""
    rest = [b for b in world.bodies() if b.id not in ids]
    state, tower = ("stacked", ids[0]) if len(ids) > 1 else ("flat", -1)
    final = rest + [disc(i, x / MM, y / MM, up, state, tower=tower, z_mm=3 + 6 * k) for k, i in enumerate(ids)]
    return world.finish(final, final_contacts=list(zip(ids, ids[1:])))


def white_tower_fault(steal: bool):
    """White owns a 2-disc tower and snaps its action disc onto it (a fault); Black then captures.
    Returns the game after White's turn, the tower's ids and the action disc's id."""
    game = make_game([], rules=rules(tower_steal=steal))
    base = own_hosts(game, 0)[0]
    top = new_id(game.world)
    game.world.b[base.id] = moved(base, state="stacked", tower=base.id)
    game.world.b[top] = disc(top, base.x / MM, base.y / MM, W, "stacked", tower=base.id, z_mm=9)
    game.world.c = {frozenset((base.id, top))}
    game.table.towers.append(Tower(0, [base.id, top]))
    game.refresh()
    game.players[0] = Always(Place(base.id, 0.0, 0.024, 0.78))
    action = game.world.next_id

    def snap_onto_tower(world, intent):
        i = new_id(world)
        final = world.bodies() + [disc(i, base.x / MM, base.y / MM, intent.up, "stacked", tower=base.id, z_mm=15)]
        return world.finish(final, action=i, new_contacts=[(top, i)], final_contacts=[(base.id, top), (top, i)])

    game.sim.script = [snap_onto_tower, tower_ok, lean_ok]
    game.play_turn(0)
    assert game.rows[-1]["outcome"] == "fault"
    return game, [base.id, top], action


def test_r11_tower_steal_a_fault_group_takes_the_tower_discs_to_the_captor():
    game, tower, action = white_tower_fault(steal=True)
    assert game.table.pending == [FaultGroup(captor=1, ids=tuple(tower + [action]))]
    assert game.table.towers_of(0) == [Tower(0, tower)]  # White's until Black captures it
    game.play_turn(1)
    assert [(r["phase"], r["outcome"]) for r in game.rows[-2:]] == [("capture", "captured"), ("place", "placed")]
    assert game.table.towers_of(0) == []  # the old tower left White
    assert game.table.towers_of(1) == [Tower(1, tower + [action])]
    assert all(b.up == B for b in game.world.bodies() if b.id in tower + [action])
    assert (game.rows[-1]["tower_discs_0"], game.rows[-1]["tower_discs_1"]) == (0, 3)


def test_r11_without_tower_steal_only_the_joined_disc_is_captured_and_the_tower_stays():
    game, tower, action = white_tower_fault(steal=False)
    assert game.table.pending == [FaultGroup(captor=1, ids=(action,))]
    game.play_turn(1)
    assert game.rows[-2]["phase"] == "capture" and game.rows[-2]["captured_discs"] == 1
    assert game.table.towers_of(0) == [Tower(0, tower)]
    assert game.table.towers_of(1) == [Tower(1, [action])]
    assert all(b.up == W for b in game.world.bodies() if b.id in tower)


# --- R3 fallback ----------------------------------------------------------

def test_r3_after_setup_retries_reacting_spots_the_engine_lays_on_a_random_spot_from_the_setup_stream():
    retries = 2
    laid = []  # (x, y, reacted) of every try

    def lay(world, x, y, up):
        before = world.bodies()
        i = world.add_flat(x, y, up)
        react = len(laid) % (retries + 1) < retries  # each foundation's first `retries` tries snap to the red disc
        laid.append((x, y, react))
        return world.finish(before + [world.b[i]], new_contacts=[(0, i)] if react else [])

    game = make_game(rules=rules(setup_retries=retries), lay=lay)
    rows = game.rows
    assert [r["attempts"] for r in rows] == [retries + 1] * 4
    assert game.table.stacks == [4, 4] and len([b for b in game.world.bodies() if not b.red]) == 4
    assert [(r["x_noisy"], r["y_noisy"]) for r in rows] == [(x, y) for x, y, react in laid if not react]
    assert all((r["x"], r["y"]) == (r["x_noisy"], r["y_noisy"]) for r in rows)  # no hand noise on a fallback spot

    fresh = make_game(setup=False)  # the first fallback spot is the first legal draw of the setup stream
    fresh.world.add_flat(0.0, 0.0, B, red=True)
    rng, spots = stream(fresh.spec.seed, "setup"), []
    while not spots:
        spots = fresh.view(0).sample_spots(rng, 1)
    assert (rows[0]["x"], rows[0]["y"]) == spots[0]
