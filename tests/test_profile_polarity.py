"""benchmarks/profile_polarity.py sees every episode of a game and changes none."""

import importlib
from pathlib import Path

import pytest

from rules.base import GameSpec, StrategySpec
from rules.polarity.model import PolarityRules
from rules.polarity.records import play_batch
from rules.seeds import game_seed

SHORT = PolarityRules(stack_size=6, foundations=2, max_attempts=4)


def _benchmark_script(monkeypatch, name: str):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return importlib.import_module(name)


@pytest.fixture
def profiler(monkeypatch):
    return _benchmark_script(monkeypatch, "profile_polarity")


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


@pytest.fixture
def disturbance_meter(monkeypatch):
    return _benchmark_script(monkeypatch, "measure_disturbance")


def test_measured_games_are_the_games_and_every_release_is_rated(disturbance_meter):
    from rules.polarity.records import play_one

    seats = (StrategySpec.parse("cautious"), StrategySpec.parse("random"))
    spec = GameSpec(0, game_seed(5, 0), "standard", SHORT, seats)
    game = play_batch([spec])[0].to_pylist()[0]
    rows: list = []
    row, _ = play_one(spec, disturbance_meter.measured_core(rows))
    assert (row["winner"], row["physics_steps"]) == (game["winner"], game["physics_steps"])
    assert len(rows) == game["attempts_total"] and all(r["ratio"] >= 0.0 for r in rows)
    table = disturbance_meter.table(rows)
    assert sum(b["releases"] for b in table) == len(rows)
    for b in table:
        assert 0.0 <= b["in_hand"] <= b["reacted"] <= 1.0   # a disc in hand is a reaction


@pytest.fixture
def search_meter(monkeypatch):
    return _benchmark_script(monkeypatch, "measure_search")


def test_measured_searches_are_the_games_and_every_decision_is_noted(search_meter, monkeypatch):
    import rules.polarity.strategies as strategies
    from rules.polarity.physics import core
    from rules.polarity.records import play_one

    seats = (StrategySpec.parse("cautious"), StrategySpec.parse("aggressive"))
    spec = GameSpec(0, game_seed(5, 0), "standard", SHORT, seats)
    game = play_batch([spec])[0].to_pylist()[0]
    rows: list = []
    monkeypatch.setattr(strategies, "tuned_down", search_meter.searched(rows, strategies.tuned_down))
    row, _ = play_one(spec, core())
    assert (row["winner"], row["physics_steps"], row["n_turns"]) == (game["winner"], game["physics_steps"], game["n_turns"])
    assert rows and all((r["further"] is None) or (not r["found"] and 0 <= r["further"] < r["ranked"]) for r in rows)
    out = search_meter.summary(rows)
    assert out["decisions"] == len(rows) and out["balanced_further_down"] <= out["found_nothing"]


class _OnlyHostBalances:
    """A view whose core balances a leaner on one host only (``tuned`` asks nothing else of it)."""

    def __init__(self, host: int):
        self.host = host

    def nominal_pose(self, host, azimuth, tilt):
        return 0.05, tilt, host == self.host


def test_a_search_that_found_nothing_notes_how_far_down_a_leaner_balances(search_meter):
    import rules.polarity.strategies as strategies
    from rules.polarity.view import Place

    ranked = [Place(h, 0.0, 0.05, 0.785) for h in (1, 1, 2, 2, 3, 7, 7)]
    rows: list = []
    search = search_meter.searched(rows, strategies.tuned_down)
    short = search(_OnlyHostBalances(7), ranked, 1, skip_unbalanced=True, tries=4, misses=2)
    wide = search(_OnlyHostBalances(7), ranked, 1, skip_unbalanced=True, tries=12, misses=2)
    assert [t.host for t in short] == [1, 1, 2, 2] and not any(t.balanced for t in short)
    assert [t.host for t in wide] == [1, 1, 2, 2, 3, 7] and wide[-1].balanced
    assert rows == [{"found": False, "further": 5, "ranked": 7, "tuned": 4},
                    {"found": True, "further": None, "ranked": 7, "tuned": 6}]
    search(_OnlyHostBalances(9), ranked, 1, skip_unbalanced=True, tries=12, misses=2)
    assert rows[-1]["further"] is None and not rows[-1]["found"]       # nothing balances anywhere
