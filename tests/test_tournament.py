"""``polsim tournament``: round robin on the same seeds in both seats; the
cross-table and Elo-scale ratings recover a known strength difference."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.runner import run_experiment
from pipelines.tournament import strategies_of, tournament_experiment, tournament_report
from rules.base import get_game

runner = CliRunner()
PLAYERS = ["fair", "loaded:bonus=1", "loaded:bonus=3"]


def test_every_pairing_plays_the_same_seeds_with_each_strategy_in_each_seat(tmp_path):
    exp = tournament_experiment("toy", None, PLAYERS, {}, 40, 2, 15)
    assert [c.matchup for c in exp.cells] == [("fair", "loaded:bonus=1"), ("fair", "loaded:bonus=3"),
                                              ("loaded:bonus=1", "loaded:bonus=3")]
    res = run_experiment(exp, str(tmp_path), workers=0)
    games = pq.ParquetDataset(f"{res.uri}/games").read().to_pandas()
    assert (games.groupby("seed_index")["game_seed"].nunique() == 1).all()
    for cell, g in games.groupby("cell"):
        a = exp.cells[cell].matchup[0]
        assert (g["strategy_0"] == a).sum() == (g["strategy_1"] == a).sum() == 20


def test_known_strength_difference_is_recovered_in_order_with_intervals(tmp_path):
    res = runner.invoke(app, ["tournament", "--game", "toy", "-s", ",".join(PLAYERS), "--games", "600",
                              "--out", str(tmp_path), "--workers", "0", "-q", "--format", "json"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    ranked = [r["strategy"] for r in report["ratings"]]
    assert ranked == ["loaded:bonus=3", "loaded:bonus=1", "fair"]
    top, mid, low = report["ratings"]
    assert top["elo_lo"] > mid["elo_hi"] and mid["elo_lo"] > low["elo_hi"]
    assert sum(r["elo"] for r in report["ratings"]) == pytest.approx(0, abs=1e-6)
    for p in report["pairings"]:
        assert p["wins"] + p["draws"] + p["losses"] == p["games"] == 600
        assert p["elo_lo"] < 0 and p["elo_hi"] < 0  # the first named is the weaker in every pairing here


def test_cross_table_is_consistent_both_ways(tmp_path):
    exp = tournament_experiment("toy", "standard", PLAYERS, {"rounds": 2}, 100, 4, 50)
    report = tournament_report(run_experiment(exp, str(tmp_path), workers=0).uri)
    assert strategies_of(exp) == report.names == PLAYERS
    assert np.array_equal(report.draws, report.draws.T) and np.all(np.diag(report.wins) == 0)
    games = report.wins + report.wins.T + report.draws
    assert np.all(games[~np.eye(3, dtype=bool)] == 100)


def test_equal_strategies_are_not_told_apart(tmp_path):
    exp = tournament_experiment("toy", "standard", ["fair", "loaded:bonus=0"], {}, 400, 6, 100)
    report = tournament_report(run_experiment(exp, str(tmp_path), workers=0).uri)
    diff = report.ratings.difference("fair", "loaded:bonus=0")
    assert diff.low < 0 < diff.high


def test_one_sided_results_are_rated_with_a_prior_and_say_so(tmp_path):
    exp = tournament_experiment("toy", "standard", ["fair", "loaded:bonus=100"], {}, 20, 6, 20)
    report = tournament_report(run_experiment(exp, str(tmp_path), workers=0).uri)
    assert report.wins[1, 0] == 20 and any("virtual draw" in n for n in report.notes)
    assert np.all(np.isfinite(report.ratings.elo)) and report.table[0]["strategy"] == "loaded:bonus=100"


def test_failed_games_make_the_tournament_exit_3_saying_how_many_after_its_tables(tmp_path):
    res = runner.invoke(app, ["tournament", "--game", "toy", "-s", "fair,crash:every=5", "--games", "20",
                              "--out", str(tmp_path), "--workers", "0", "-q", "--format", "json"])
    assert res.exit_code == 3, res.output
    assert json.loads(res.stdout)["pairings"][0]["games"] == 16  # the ratings are still printed
    assert "4 of 20 games failed" in res.stderr


@pytest.mark.parametrize("args, word", [
    (["-s", "fair"], "at least two strategies"),
    (["-s", "fair,fair"], "listed twice"),
    (["-s", "fair,bogus"], "unknown strategy 'bogus'"),
    (["-s", "fair,loaded:bonus=-1"], "bad parameter bonus"),
    (["-s", "fair,loaded", "--set", "sides=4,6"], "several values"),
    (["-s", "fair,loaded", "--set", "colour=red"], "unknown knob 'colour'"),
    (["-s", "fair,loaded", "--games", "0"], "--games"),
])
def test_bad_tournament_input_is_a_one_line_error_with_exit_2(tmp_path, args, word):
    res = runner.invoke(app, ["tournament", "--game", "toy", "--out", str(tmp_path), "--workers", "0", "-q", *args])
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert "\n" not in err and word in err, err


@pytest.mark.parametrize("game", ["polarity", "polar"])
def test_a_one_strategy_tournament_suggests_strategies_of_its_own_game(tmp_path, game):
    res = runner.invoke(app, ["tournament", "--game", game, "-s", "random", "--out", str(tmp_path), "-q"])
    assert res.exit_code == 2, res.output
    example = res.stderr.strip().rsplit("-s ", 1)[1].split(",")
    assert len(example) >= 2 and set(example) <= set(get_game(game).strategies), example


def test_analyze_of_a_tournament_says_it_pools_the_matchups_and_by_cell_splits_them(tmp_path):
    uri = run_experiment(tournament_experiment("toy", None, PLAYERS, {}, 20, 2, 10), str(tmp_path), workers=0).uri
    res = runner.invoke(app, ["analyze", uri, "--table", "balance", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert [r["games"] for r in json.loads(res.stdout)["balance"]] == [60]
    assert "the run's cells play 3 matchups (a tournament): the tables pool them; --by cell splits them" in res.stderr
    split = runner.invoke(app, ["analyze", uri, "--table", "balance", "--format", "json", "--by", "cell"])
    assert [(r["cell"], r["games"]) for r in json.loads(split.stdout)["balance"]] == [(0, 20), (1, 20), (2, 20)]
