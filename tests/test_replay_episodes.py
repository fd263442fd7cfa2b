"""benchmarks/replay_episodes.py replays a game's episodes as they were played, and
shows a physics change against them."""

import importlib
import sys
from pathlib import Path

import pytest

from rules.base import GameSpec, StrategySpec
from rules.polarity.model import PolarityRules
from rules.seeds import game_seed

SHORT = PolarityRules(stack_size=5, foundations=2, max_attempts=3)


@pytest.fixture(scope="module")
def tool():
    root = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, root)
    try:
        yield importlib.import_module("replay_episodes")
    finally:
        sys.path.remove(root)


@pytest.fixture(scope="module")
def episodes(tool):
    seats = (StrategySpec.parse("cautious"), StrategySpec.parse("aggressive"))
    return tool.record([GameSpec(0, game_seed(3, 0), "standard", SHORT, seats)])


def test_replayed_as_is_the_episodes_are_the_games_own_on_both_sides(tool, episodes):
    out = tool.replay(episodes, {})
    assert out["episodes"] == len(episodes) > 3 and out["a_reproduces_the_games"]
    assert out["changed"] == 0
    for key in ("steps", "body_steps", "step_budget", "counts"):
        assert out["A"][key] == out["B"][key], key


def test_a_physics_change_shows_in_the_steps_of_side_b(tool, episodes):
    out = tool.replay(episodes, {"reuse_lead": 0.0})
    assert out["a_reproduces_the_games"] and out["overrides"] == {"reuse_lead": 0.0}
    assert out["A"]["body_steps"] != out["B"]["body_steps"]


@pytest.mark.parametrize("pair, word", [("gravity_well=1", "not a PhysicsParams field"),
                                        ("radius=0.02", "recorded worlds are built from it"),
                                        ("reuse_lead=1.5", "less than 1")])
def test_a_bad_override_is_refused_before_any_game(tool, pair, word):
    with pytest.raises(SystemExit, match=word):
        tool.parse_sets([pair])


def test_scene_replays_bench_physics_placements_from_the_world_side_a_built(tool):
    """``--scene``: the built mid-game scene's three placements, each replayed as it
    was first played; a runaway speed limit twice the default (10 m/s, never
    reached there) changes none of them, so both sides take the same steps. (Until
    physics 0.14.0 this was contact_skirt=0, which 0.14.0's placements reach.)"""
    episodes = tool.scene_episodes(2)
    assert len(episodes) == 6 and episodes[0][4] == episodes[1][4]
    out = tool.replay(episodes, tool.parse_sets(["max_speed=20"]))
    assert out["a_reproduces_the_games"] and out["changed"] == 0
    assert out["A"]["steps"] == out["B"]["steps"] > 6 * 2000


def test_rounds_replay_each_episode_again_and_count_its_median_cpu(tool, episodes, monkeypatch):
    """Three rounds a side play every episode six times (the core is deterministic), so
    every count is one round's; only the CPU is a median of three."""
    import dataclasses

    real, calls = tool.core(), []

    def counted(verb):
        def run(*args, **kw):
            calls.append(verb)
            return getattr(real, verb)(*args, **kw)
        return run

    monkeypatch.setattr(tool, "core", lambda: dataclasses.replace(real, **{v: counted(v) for v in tool.VERBS}))
    once = tool.replay(episodes, {"reuse_lead": 0.0})
    assert len(calls) == 2 * len(episodes)
    thrice = tool.replay(episodes, {"reuse_lead": 0.0}, rounds=3)
    assert len(calls) == 8 * len(episodes) and thrice["a_reproduces_the_games"]
    for side in "AB":
        for key in ("steps", "body_steps", "step_budget", "counts"):
            assert thrice[side][key] == once[side][key], (side, key)
        assert thrice[side]["cpu_s"] > 0


def test_no_rounds_is_a_usage_error(tool, capsys):
    with pytest.raises(SystemExit) as exit_:
        tool.main(["--rounds", "0"])
    assert exit_.value.code == 2 and "--rounds 0" in capsys.readouterr().err
