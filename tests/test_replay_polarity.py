"""Replays of Polarity games: they equal their stored rows, the trace has one
frame per turns row with the discs the table says are on the mat, and the page
draws those discs (and the red disc's face) with no script errors."""

from __future__ import annotations

import math
import re

import pytest

import rules.polarity  # noqa: F401  (registers the game)
from pipelines.replay import frames, replay
from pipelines.replay_page import page_data, write_html, write_png
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment
from rules.polarity.scenes import B, W, disc, episode, moved
from rules.polarity.state import FaultGroup, Table, Tower
from rules.polarity.physics import Geometry
from rules.polarity.trace import frame, reacted
from tests.chromium import chromium, dump_dom, file_url  # noqa: F401  (fixture)

SMALL = {"foundations": 2, "stack_size": 4}  # short games: 4 setup discs, then a few turns


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """Two small seeded games, replayed, with their frames."""
    exp = Experiment(game="polarity", variant="standard", cells=(Cell(matchup=("aggressive", "cautious"), overrides=SMALL),),
                     games=2, seed=3, shard_size=2)
    uri = run_experiment(exp, str(tmp_path_factory.mktemp("runs")), workers=0).uri
    reps = [replay(uri, g) for g in range(2)]
    return [(rep, frames(rep)) for rep in reps]


def test_every_polarity_game_of_a_sample_replays_to_its_stored_row_and_turns(games):
    for g, (rep, _) in enumerate(games):
        assert rep.reproduced, rep.failure_message()
        assert rep.stored["game_index"] == g and rep.stored["status"] == "ok"
        assert len(rep.stored_turns) >= 2 * SMALL["foundations"]


def test_trace_has_one_frame_per_turns_row_with_the_stored_discs_on_the_mat(games):
    for rep, fr in games:
        assert len(fr) == len(rep.stored_turns)
        for f, row in zip(fr, rep.stored_turns):
            assert (f["turn"], f["phase"], f["outcome"]) == (row["turn"], row["phase"], row["outcome"])
            on_mat = [b for b in f["bodies"] if not b["red"] and b["state"] not in ("out", "in_hand")]
            assert len(on_mat) == row["discs_on_mat"] == f["discs_on_mat"]
            assert f["scores"] == [row["score_0"], row["score_1"]]
            assert f["stacks"] == [row["stack_0"], row["stack_1"]]
            assert sum(len(t["ids"]) for t in f["towers"] if t["controller"] == 0) >= row["tower_discs_0"]
        red = [b for b in fr[-1]["bodies"] if b["red"]]
        assert len(red) == 1 and red[0]["up"] == (1 if rep.stored["red_orientation"] == "bar" else -1)


def test_reacted_discs_are_every_disc_the_episode_moved_but_the_action_disc():
    ep = episode([], action=9, new_contacts=[(3, 9), (4, 5)], fallen=[6], flipped=[6, 7],
                 moved_diameters={8: 0.5, 2: 0.01, 9: 3.0}, out_of_bounds=[10], in_hand=[11])
    assert reacted(ep) == [3, 4, 5, 6, 7, 8, 10, 11]
    assert reacted(None) == []


def test_a_frame_of_a_hand_made_scene_in_millimetres_and_degrees():
    red = disc(0, 0, 0, B, red=True)
    host = disc(1, 50, 0, W)
    leaner = disc(2, 80, 0, W, "leaning", leaning_on=1)
    tower = [disc(3, -60, 10, B, "stacked", tower=3, z_mm=3), disc(4, -60, 10, B, "stacked", tower=3, z_mm=9)]
    table = Table(stacks=[3, 5], towers=[Tower(1, [3, 4])], pending=[FaultGroup(0, (5,))])
    row = {"turn": 7, "seq": 9, "player": 0, "phase": "place", "outcome": "fault", "azimuth": math.pi / 2,
           "base_distance": 0.03, "tilt": math.pi / 4, "azimuth_noisy": math.pi / 2, "base_distance_noisy": 0.031,
           "tilt_noisy": math.pi / 4, "host": 1, "attempts": 2, "fault_kinds": "a,d", "discs_on_mat": 4,
           "score_0": -3.0, "score_1": -3.0, "stack_0": 3, "stack_1": 5}
    ep = episode([red, host, leaner, *tower], action=2, new_contacts=[(2, 3)])
    f = frame(row, [tower[1], red, host, leaner, tower[0]], table, ep, Geometry())
    assert [b["id"] for b in f["bodies"]] == [0, 1, 2, 3, 4]  # drawn bottom up
    lean = f["bodies"][2]
    assert (lean["x"], lean["state"], lean["leaning_on"], lean["tilt"]) == (80.0, "leaning", 1, 45.0)
    assert f["intent"] == {"host": 1, "azimuth": 90.0, "base_distance": 30.0, "tilt": 45.0,
                           "noisy": {"azimuth": 90.0, "base_distance": 31.0, "tilt": 45.0}}
    assert f["fault_kinds"] == ["a", "d"] and f["reacted"] == [3]
    assert f["towers"] == [{"controller": 1, "ids": [3, 4]}] and f["pending"] == [{"captor": 0, "ids": [5]}]
    assert (f["circle_radius"], f["disc_radius"]) == (225.0, 16.0)
    calm = frame(dict(row, outcome="placed", fault_kinds=""), [moved(leaner)], table, ep, Geometry())
    assert calm["reacted"] == []  # only a fault's reactions are highlighted


def test_polarity_page_at_each_turn_draws_the_discs_the_turns_table_has_on_the_mat(chromium, games, tmp_path):
    rep, fr = games[0]
    page = tmp_path / "game.html"
    write_html(page_data(rep, fr), str(page))
    turns = sorted({row["turn"] for row in rep.stored_turns})
    for turn in (turns[0], turns[len(turns) // 2], turns[-1]):
        dom = dump_dom(chromium, file_url(page, f"turn={turn}"), tmp_path)
        assert 'data-checked="clean"' in dom, re.search(r'<pre id="page-errors".*?</pre>', dom, re.S).group(0)
        board = re.search(r'<svg id="board"[^>]*>', dom).group(0)
        last_row = [r for r in rep.stored_turns if r["turn"] == turn][-1]
        assert f'data-turn="{turn}"' in board
        assert int(re.search(r'data-drawn="(\d+)"', board).group(1)) == last_row["discs_on_mat"]
        face = "bar" if rep.stored["red_orientation"] == "bar" else "dot"
        assert f'class="red" data-face="{face}"' in dom


def test_a_still_image_of_a_polarity_turn(games, tmp_path):
    import matplotlib.image

    rep, fr = games[1]
    out = write_png(page_data(rep, fr), len(fr) // 2, str(tmp_path / "turn.png"))
    assert matplotlib.image.imread(out).shape[0] > 300


BEFORE_0_24 = {"wake_field": False}                                    # what plays physics 0.23.0
BEFORE_0_23 = {**BEFORE_0_24, "wake_vacated": False}                   # ... and with this, 0.22.0
PREVIOUS = {**BEFORE_0_23, "hold_bottom_face": False}                   # ... and with this, 0.21.0
BEFORE_0_21 = {"compound_labels": False}                                # ... and with this, 0.20.0
BEFORE_0_20 = {"lift_clinging": False, "out_entirely": False, "red_stays": False}  # ... and with these, 0.19.0


def stored_as_made_by(tmp_path, played_with: dict, versions: dict, dropped: tuple = (), seed: int = 3) -> str:
    """A small run as older code stored it: played with ``played_with`` (what that code did
    unasked), its spec and cell label naming only SMALL, its rows and manifest naming the
    older ``versions`` (``physics_version``, ``package_version``), without the rule columns
    of the knobs ``dropped`` (those that code did not have), its variant hash the played rules'."""
    import json
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq

    played = Cell(matchup=("aggressive", "cautious"), overrides={**SMALL, **played_with})
    exp = Experiment(game="polarity", variant="standard", cells=(played,), games=2, seed=seed, shard_size=2, seeding=1)
    uri = run_experiment(exp, str(tmp_path), workers=0).uri
    shard = os.path.join(uri, "games", "shard-00000.parquet")
    table = pq.read_table(shard).drop_columns([f"rule_{k}" for k in dropped])
    label = Cell(matchup=played.matchup, overrides=SMALL).label()
    for name, value in (*versions.items(), ("cell_label", label)):
        table = table.set_column(table.schema.get_field_index(name), name, pa.array([value] * table.num_rows))
    pq.write_table(table, shard)
    path = os.path.join(uri, "manifest.json")
    manifest = json.load(open(path))
    manifest["spec"]["cells"][0]["overrides"] = SMALL
    del manifest["spec"]["seeding"]  # older specs name none: seeding 1
    manifest.update(versions)
    json.dump(manifest, open(path, "w"))
    return uri


def made_under_physics_0_21_0(tmp_path) -> str:
    """Played with the knobs that restore physics 0.21.0 (bit for bit, tests/test_physics_substeps.py)."""
    return stored_as_made_by(tmp_path, PREVIOUS, {"physics_version": "0.21.0"}, dropped=tuple(PREVIOUS))


PUSH_THEN = {"aim_push": False, "stall_failed_conversions": False}  # polsim 0.31.0's, which 0.32.0 changed
HOLD_THEN = {"aim_hold": False, **PUSH_THEN}  # polsim 0.26.0's aiming, which 0.27.0 changed
AIM_THEN = {"aim_tilt": False, "aim_fit": False, **HOLD_THEN}  # polsim 0.25.0's, which 0.26.0 changed
EDGE_THEN = {"edge_gap_mm": 15.0, **AIM_THEN}  # polsim 0.22.0's defaults: 0.23.0 changed the edge gap
SCORED_THEN = {"empty_stack_scoring": "after_resolution", **EDGE_THEN}  # polsim 0.21.0's defaults


def made_by_polsim_0_21_0(tmp_path) -> str:
    """Scored as polsim 0.21.0 scored every game; seed 29's game 1 ends with a refilled stack
    (R17: White's last disc faulted, and the fault returned two discs to its stack), so the
    default then changes its score (−2 against 0)."""
    return stored_as_made_by(tmp_path, SCORED_THEN, {"package_version": "0.21.0"}, dropped=tuple(EDGE_THEN), seed=29)


def made_by_polsim_0_22_0(tmp_path) -> str:
    """Played as polsim 0.22.0 played every game: foundations and captured towers one disc
    radius inside the circle's edge; in seed 3's games cautious lays foundations beyond it
    under today's default, so the games differ."""
    return stored_as_made_by(tmp_path, EDGE_THEN, {"package_version": "0.22.0"}, dropped=tuple(EDGE_THEN))


AIM_SEED = 1  # its game 0 plays other turns under 0.26.0's aim


def made_by_polsim_0_25_0(tmp_path) -> str:
    """Aimed as polsim 0.25.0 aimed every leaner: the core's base distance at 45 degrees
    whatever tilt it balanced at, and wherever it lay (the knobs it did not have)."""
    return stored_as_made_by(tmp_path, AIM_THEN, {"package_version": "0.25.0"}, dropped=tuple(AIM_THEN), seed=AIM_SEED)


HOLD_SEED = 14  # the first seed whose two small games play other turns under 0.27.0's aim


def made_by_polsim_0_26_0(tmp_path) -> str:
    """Aimed as polsim 0.26.0 aimed every leaner: at balances that pull a neighbour or a
    tower's top disc off its place too (the knob it did not have)."""
    return stored_as_made_by(tmp_path, HOLD_THEN, {"package_version": "0.26.0"}, dropped=tuple(HOLD_THEN),
                             seed=HOLD_SEED)


def made_by_polsim_0_31_0(tmp_path) -> str:
    """Played as polsim 0.31.0 played: a leaner with no disc under its rim pressed toward the
    nearest disc, and failed conversions not counted toward a stall (the knobs it did not have)."""
    return stored_as_made_by(tmp_path, PUSH_THEN, {"package_version": "0.31.0"}, dropped=tuple(PUSH_THEN))


def test_physics_restores_name_the_knobs_each_older_physics_lacks():
    from rules.polarity.physics import physics_restores
    from sim.version import PHYSICS_VERSION

    assert physics_restores(PHYSICS_VERSION) == {} and physics_restores("not a version") == {}
    assert physics_restores("0.23.0") == BEFORE_0_24
    assert physics_restores("0.22.0") == BEFORE_0_23
    assert physics_restores("0.21.0") == PREVIOUS
    assert physics_restores("0.20.0") == {**PREVIOUS, **BEFORE_0_21}
    assert physics_restores("0.19.0") == {**PREVIOUS, **BEFORE_0_21, **BEFORE_0_20}
    assert physics_restores("0.18.0") == {**PREVIOUS, **BEFORE_0_21, **BEFORE_0_20, "flat_sleep_time": 0.08}
    older = {**PREVIOUS, **BEFORE_0_21, **BEFORE_0_20, "flat_sleep_time": 0.08, "fitted_lead": False}
    assert physics_restores("0.17.0") == older
    assert physics_restores("0.16.0") == {**older, "converged_gap": False}
    assert physics_restores("0.15.0") == {**older, "converged_gap": False, "reuse_momentum": False}
    assert physics_restores("0.14.0") == {**older, "converged_gap": False, "reuse_momentum": False,
                                          "blend_work": False}
    assert physics_restores("0.13.1") == {**older, "converged_gap": False, "reuse_momentum": False,
                                          "blend_work": False, "frame_turn": False}
    assert physics_restores("0.12.1") == {**older, "converged_gap": False, "reuse_momentum": False,
                                          "blend_work": False, "frame_turn": False, "contact_skirt": 0.0}
    assert physics_restores("0.6.0") == {**older, "converged_gap": False, "reuse_momentum": False,
                                         "blend_work": False,
                                         "frame_turn": False, "contact_skirt": 0.0,
                                         "far_dipole": 0.0,
                                         "reuse_lead": 0.0, "compound": False, "tower_at_rest": False,
                                         "tower_hold": False, "contact_substeps": 1}


def test_a_run_made_under_the_previous_physics_replays_as_that_physics_played_it(tmp_path):
    uri = made_under_physics_0_21_0(tmp_path)
    for game in range(2):
        rep = replay(uri, game)
        assert rep.reproduced, rep.failure_message()
        assert rep.restored == PREVIOUS and sorted(rep.predates) == sorted(PREVIOUS)
        assert ("made with physics 0.21.0: replayed with wake_field=false, wake_vacated=false, hold_bottom_face=false,"
                " which plays it" in rep.summary())


def test_without_its_restoring_knobs_a_run_of_the_previous_physics_does_not_replay(tmp_path, monkeypatch):
    """The control: replayed under this physics (no knob restores 0.21.0), the games differ,
    and the failure names the physics version."""
    import pipelines.replay as replay_module

    uri = made_under_physics_0_21_0(tmp_path)
    monkeypatch.setattr(replay_module, "restoring_knobs", lambda game_def, stored: {})
    reps = [replay(uri, game) for game in range(2)]
    assert not all(rep.reproduced for rep in reps)
    assert all("physics_version" in rep.failure_message() for rep in reps if not rep.reproduced)


def test_defaults_then_name_the_knobs_whose_default_changed_since_a_package():
    from rules.polarity.model import defaults_then

    assert defaults_then("0.21.0") == defaults_then("0.6.0") == SCORED_THEN
    assert defaults_then("0.22.0") == EDGE_THEN
    assert defaults_then("0.23.0") == defaults_then("0.25.0") == AIM_THEN
    assert defaults_then("0.26.0") == HOLD_THEN
    assert defaults_then("0.27.0") == defaults_then("0.31.0") == PUSH_THEN
    assert defaults_then("0.32.0") == {} and defaults_then("not a version") == {}


def test_a_knob_the_runs_variant_sets_keeps_the_variants_value_in_a_replay():
    import dataclasses

    from pipelines.spec import defaults_then
    from rules.base import get_game
    from rules.polarity.model import PolarityRules

    game = get_game("polarity")
    exp = Experiment(game="polarity", variant="standard", cells=(Cell(matchup=("random", "random")),), games=1,
                     seed=1, shard_size=1)
    assert defaults_then(game, exp, "0.21.0") == SCORED_THEN
    assert defaults_then(game, exp, "0.22.0") == EDGE_THEN
    assert defaults_then(game, exp, "0.23.0") == AIM_THEN
    assert defaults_then(game, exp, "0.26.0") == HOLD_THEN
    assert defaults_then(game, exp, "0.31.0") == PUSH_THEN
    assert defaults_then(game, exp, "0.32.0") == defaults_then(game, exp, None) == {}
    sets_it = dataclasses.replace(game, variants=lambda: {"standard": PolarityRules(empty_stack_scoring="when_emptied")})
    assert defaults_then(sets_it, exp, "0.21.0") == EDGE_THEN


@pytest.mark.parametrize("made, version, then, dropped, note", [
    (made_by_polsim_0_21_0, "0.21.0", SCORED_THEN, EDGE_THEN,
     "aim_push=false, stall_failed_conversions=false, aim_hold=false, aim_tilt=false, aim_fit=false, edge_gap_mm=15, "
     "empty_stack_scoring=after_resolution, "
     "the defaults"),
    (made_by_polsim_0_22_0, "0.22.0", EDGE_THEN, EDGE_THEN,
     "aim_push=false, stall_failed_conversions=false, aim_hold=false, aim_tilt=false, aim_fit=false, edge_gap_mm=15, the defaults"),
    (made_by_polsim_0_25_0, "0.25.0", AIM_THEN, AIM_THEN,
     "aim_push=false, stall_failed_conversions=false, aim_hold=false, aim_tilt=false, aim_fit=false, the defaults"),
    (made_by_polsim_0_26_0, "0.26.0", HOLD_THEN, HOLD_THEN, "aim_push=false, stall_failed_conversions=false, aim_hold=false, the defaults"),
    (made_by_polsim_0_31_0, "0.31.0", PUSH_THEN, PUSH_THEN, "aim_push=false, stall_failed_conversions=false, the defaults"),
])
def test_a_run_made_by_an_earlier_package_replays_with_its_defaults_then(tmp_path, made, version, then, dropped, note):
    uri = made(tmp_path)
    for game in range(2):
        rep = replay(uri, game)
        assert rep.reproduced, rep.failure_message()
        assert rep.defaults_then == then and sorted(rep.predates) == sorted(dropped) and rep.made_by == version
        assert f"replayed with {note} of polsim {version}" in rep.summary()


def test_aimed_as_today_the_games_of_polsim_0_25_0_do_not_replay(tmp_path, monkeypatch):
    """The control: aimed at the tilt the core balanced, and only where a disc fits, the
    strategies play other leaners and the games are other games."""
    import pipelines.replay as replay_module

    uri = made_by_polsim_0_25_0(tmp_path)
    monkeypatch.setattr(replay_module, "defaults_then", lambda game_def, exp, made_by: {})
    reps = [replay(uri, game) for game in range(2)]
    assert any(d.column.startswith("turns[") for rep in reps for d in rep.differences)


def test_under_todays_edge_gap_the_games_of_polsim_0_22_0_do_not_replay(tmp_path, monkeypatch):
    """The control: with foundations allowed up to the circle's edge, cautious lays them
    further out and the games are other games (their turns differ, not only the knob)."""
    import pipelines.replay as replay_module

    uri = made_by_polsim_0_22_0(tmp_path)
    monkeypatch.setattr(replay_module, "defaults_then", lambda game_def, exp, made_by: {})
    reps = [replay(uri, game) for game in range(2)]
    for rep in reps:
        assert any(d.column.startswith("turns[") for d in rep.differences), rep.failure_message()


def test_under_todays_default_the_previous_packages_refilled_stack_does_not_replay(tmp_path, monkeypatch):
    """The control: scored as this package scores (when_emptied), both rows differ in the knob
    and the variant hash, and game 1's refilled stack scores empty, so its score differs too."""
    import pipelines.replay as replay_module

    uri = made_by_polsim_0_21_0(tmp_path)
    monkeypatch.setattr(replay_module, "defaults_then", lambda game_def, exp, made_by: dict(EDGE_THEN))
    knob = {"rule_empty_stack_scoring", "variant_hash"}
    assert {d.column for d in replay(uri, 0).differences} == knob
    assert {d.column for d in replay(uri, 1).differences} >= knob | {"score_0", "stack_0"}


def test_compare_notes_the_default_that_changed_between_the_packages_that_made_two_runs(tmp_path):
    """A run of polsim 0.21.0 against the same spec played today on its seeds (seeding 1, as
    ``regress`` replays it): the rules differ in the scoring default, though neither run's
    spec names the knob."""
    from pipelines.compare import match_runs

    old = made_by_polsim_0_21_0(tmp_path / "old")
    exp = Experiment(game="polarity", variant="standard", cells=(Cell(matchup=("aggressive", "cautious"), overrides=SMALL),),
                     games=2, seed=29, shard_size=2, seeding=1)
    new = run_experiment(exp, str(tmp_path / "new"), workers=0).uri
    notes = match_runs(old, new).notes
    assert ("rules changed: edge_gap_mm 15 → 0, empty_stack_scoring after_resolution → when_emptied, "
            "stall_failed_conversions false → true, aim_tilt false → true, aim_fit false → true, "
            "aim_hold false → true, aim_push false → true") in notes, notes


def test_analysis_reads_a_knob_an_older_run_predates_as_that_run_played_it(tmp_path):
    """A run written before a knob had its rule_ column shows the value it played (its package's
    default then, the knob restoring its physics), so --by and --where on the column see it."""
    from pipelines.dataset import open_runs
    from pipelines.fastscan import open_for_analysis

    runs = [made_by_polsim_0_22_0(tmp_path / "old"), made_under_physics_0_21_0(tmp_path / "physics")]
    exp = Experiment(game="polarity", variant="standard", cells=(Cell(matchup=("aggressive", "cautious"), overrides=SMALL),),
                     games=2, seed=3, shard_size=2)
    runs.append(run_experiment(exp, str(tmp_path / "new"), workers=0).uri)
    for opened in (open_runs, open_for_analysis):  # the pyarrow views, and duckdb's reader of local shards
        con, _ = opened(runs)
        played = con.execute("SELECT DISTINCT run_no, rule_edge_gap_mm, rule_hold_bottom_face FROM games ORDER BY run_no")
        assert played.fetchall() == [(0, 15.0, True), (1, 0.0, False), (2, 0.0, True)]


def test_aimed_as_today_the_games_of_polsim_0_26_0_do_not_replay(tmp_path, monkeypatch):
    """The control: aimed only where the discs near the leaner stay put, the strategies play
    other leaners and the games are other games."""
    import pipelines.replay as replay_module

    uri = made_by_polsim_0_26_0(tmp_path)
    monkeypatch.setattr(replay_module, "defaults_then", lambda game_def, exp, made_by: {})
    reps = [replay(uri, game) for game in range(2)]
    assert any(d.column.startswith("turns[") for rep in reps for d in rep.differences)
