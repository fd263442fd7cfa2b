"""benchmarks/profile_polarity.py sees every episode of a game and changes none."""

import importlib
from pathlib import Path

import pytest

from rules.base import GameSpec, StrategySpec
from rules.polarity.model import PolarityRules
from rules.polarity.records import play_batch
from rules.seeds import game_seed

SHORT = PolarityRules(stack_size=6, foundations=2, max_attempts=4)


@pytest.fixture
def profiler(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return importlib.import_module("profile_polarity")


def test_profiled_games_are_the_games_and_every_episode_is_counted(profiler):
    seats = (StrategySpec.parse("cautious"), StrategySpec.parse("random"))
    specs = [GameSpec(i, game_seed(5, i), "standard", SHORT, seats if i % 2 == 0 else seats[::-1]) for i in range(2)]
    games = play_batch(specs)[0].to_pylist()
    out = profiler.profile(specs, warm_up=False)
    assert out["ends"] == {e: [g["end_reason"] for g in games].count(e) for e in {g["end_reason"] for g in games}}
    assert out["steps_per_game"] == round(sum(g["physics_steps"] for g in games) / 2)
    assert out["episodes"]["place_leaner"] == sum(g["attempts_total"] for g in games)
    assert out["episodes"]["lay_flat"] >= 2 * 2 * SHORT.foundations   # two games, each seat its foundations
    # the timers neither overlap (balance scans inside an episode would count twice) nor exceed the games' CPU
    assert 0.0 <= out["elsewhere_share"] < 1.0 and out["balance_intent"]["calls"] > 0
