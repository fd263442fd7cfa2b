"""``polsim ratings RUN…``: strategies rated from the games of several finished
runs — one round robin on several run seeds, or simulate runs of other
matchups — when they are one rule set and hold every game once."""

import json
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app, build_experiment
from pipelines.runner import run_experiment
from pipelines.stats.ratings import bradley_terry
from pipelines.sweep import sweep_experiment
from pipelines.tournament import rate_runs, tournament_experiment, tournament_report

runner = CliRunner()
PLAYERS = ["fair", "loaded:bonus=1", "loaded:bonus=3"]


def tournament_run(tmp_path, seed, players=PLAYERS, games=60, sets=None, folder=None):
    exp = tournament_experiment("toy", None, players, sets or {}, games, seed, 30)
    return run_experiment(exp, str(tmp_path / (folder or f"tour-{seed}")), workers=0).uri


def simulate_run(tmp_path, folder, matchup, seed=1, games=200):
    exp = build_experiment("toy", None, matchup.split(","), [], games, seed, 100)
    return run_experiment(exp, str(tmp_path / folder), workers=0).uri


def rate(*runs):
    res = runner.invoke(app, ["ratings", *runs, "--format", "json"])
    return res, (json.loads(res.stdout) if res.exit_code == 0 else None)


def refused(*runs):
    res = runner.invoke(app, ["ratings", *runs])
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert "\n" not in err, err
    return err


def test_one_round_robin_on_two_run_seeds_is_rated_from_the_summed_cross_table(tmp_path):
    runs = [tournament_run(tmp_path, seed) for seed in (4, 5)]
    apart = [tournament_report(run) for run in runs]
    pooled = rate_runs(runs)
    assert pooled.names == PLAYERS
    assert np.array_equal(pooled.wins, apart[0].wins + apart[1].wins)
    assert np.array_equal(pooled.draws, apart[0].draws + apart[1].draws)
    expected = bradley_terry(pooled.wins, pooled.draws, PLAYERS)
    assert np.allclose(pooled.ratings.elo, expected.elo)
    assert all(p["games"] == 120 for p in pooled.pairs)
    assert pooled.notes[0] == "rated the games of 2 runs together (run seeds 4, 5)"
    one = apart[0].ratings.difference("loaded:bonus=3", "fair")
    both = pooled.ratings.difference("loaded:bonus=3", "fair")
    assert both.high - both.low < one.high - one.low  # more games, a narrower interval


def test_by_run_rates_each_run_on_its_own_and_the_runs_are_tested_for_one_set_of_ratings(tmp_path):
    runs = [tournament_run(tmp_path, seed) for seed in (4, 5)]
    res, report = rate(*runs)
    assert res.exit_code == 0, res.output
    for seed, run in zip((4, 5), runs):
        own = {r["strategy"]: r["elo"] for r in tournament_report(run).table}
        rows = {r["strategy"]: r for r in report["by_run"] if r["run_seed"] == seed}
        assert {s: r["elo"] for s, r in rows.items()} == pytest.approx(own)  # every player in each: no shift
        assert all(r["games"] == 120 and r["label"] == f"seed {seed}" for r in rows.values())
    assert "one set of ratings for every run: likelihood-ratio test p = " in res.stderr
    assert "on 2 df" in res.stderr


def test_runs_sharing_one_player_are_placed_on_the_pooled_scale_and_not_tested(tmp_path):
    low = simulate_run(tmp_path, "low", "fair,loaded:bonus=1", seed=1, games=100)
    high = simulate_run(tmp_path, "high", "loaded:bonus=1,loaded:bonus=3", seed=2, games=100)
    res, report = rate(low, high)
    assert res.exit_code == 0, res.output
    pooled = {r["strategy"]: r["elo"] for r in report["ratings"]}
    for seed, pair in ((1, ["fair", "loaded:bonus=1"]), (2, ["loaded:bonus=1", "loaded:bonus=3"])):
        rows = {r["strategy"]: r["elo"] for r in report["by_run"] if r["run_seed"] == seed}
        assert sorted(rows) == sorted(pair)
        assert sum(rows.values()) == pytest.approx(sum(pooled[s] for s in pair))
    assert "whether the runs share one set of ratings is not tested" in res.stderr
    table = runner.invoke(app, ["ratings", low, high], env={"COLUMNS": "200"}).stdout
    lines = [line.strip() for line in table.splitlines()]
    header = next(line for line in lines[lines.index("by run") + 1:] if "seed" in line)
    assert header.index("seed 1") < header.index("seed 2")  # in run order, though the best is only in run 2


def test_ratings_of_one_run_are_the_tournaments_own(tmp_path):
    run = tournament_run(tmp_path, 4)
    res, report = rate(run)
    assert res.exit_code == 0, res.output
    own = tournament_report(run)
    assert [r["strategy"] for r in report["ratings"]] == [r["strategy"] for r in own.table]
    assert [r["elo"] for r in report["ratings"]] == pytest.approx([r["elo"] for r in own.table])
    assert "together" not in res.stderr and "by_run" not in report


def test_simulate_runs_of_other_matchups_are_rated_through_the_player_they_share(tmp_path):
    low = simulate_run(tmp_path, "low", "fair,loaded:bonus=1", seed=1, games=400)
    high = simulate_run(tmp_path, "high", "loaded:bonus=1,loaded:bonus=3", seed=1, games=400)
    res, report = rate(low, high)
    assert res.exit_code == 0, res.output
    assert [r["strategy"] for r in report["ratings"]] == ["loaded:bonus=3", "loaded:bonus=1", "fair"]
    top, mid, bottom = report["ratings"]
    assert top["elo_lo"] > mid["elo_hi"] and mid["elo_lo"] > bottom["elo_hi"]
    assert [(p["strategy"], p["opponent"]) for p in report["pairings"]] == [
        ("fair", "loaded:bonus=1"), ("loaded:bonus=1", "loaded:bonus=3")]
    fair_row = next(r for r in report["cross_table"] if r["strategy"] == "fair")
    assert fair_row["loaded:bonus=3"] == "no games"


def test_a_strategy_written_with_its_default_parameters_is_one_player(tmp_path):
    a = simulate_run(tmp_path, "a", "fair,loaded", seed=1)
    b = simulate_run(tmp_path, "b", "fair,loaded:bonus=1", seed=2)
    res, report = rate(a, b)
    assert res.exit_code == 0, res.output
    assert sorted(r["strategy"] for r in report["ratings"]) == ["fair", "loaded"]
    assert report["pairings"][0]["games"] == 400
    assert "loaded and loaded:bonus=1 are one strategy (the same parameters), rated as loaded" in res.stderr


def test_self_play_games_are_left_out_and_counted_in_a_note(tmp_path):
    mirror = simulate_run(tmp_path, "mirror", "fair,fair", seed=1, games=50)
    duel = simulate_run(tmp_path, "duel", "fair,loaded", seed=2, games=50)
    res, report = rate(mirror, duel)
    assert res.exit_code == 0, res.output
    assert report["pairings"][0]["games"] == 50
    assert "50 games of a strategy against itself say nothing of ratings and are left out" in res.stderr


def test_failed_games_are_left_out_and_counted_in_a_note(tmp_path):
    run = simulate_run(tmp_path, "crash", "fair,crash:every=5", seed=1, games=20)
    res, report = rate(run)
    assert res.exit_code == 0, res.output
    assert report["pairings"][0]["games"] == 16
    assert "4 games failed or have no result and are left out" in res.stderr


def test_the_same_run_seed_twice_is_refused_as_games_that_would_count_twice(tmp_path):
    first = tournament_run(tmp_path, 4)
    copy = tmp_path / "copy"
    shutil.copytree(tmp_path / "tour-4", copy)
    again = str(copy / first.rstrip("/").rsplit("/", 1)[1])
    err = refused(first, again)
    assert "both hold the game of seed" in err and "(both play run seed 4): it would count twice" in err, err


def test_the_games_two_run_seeds_share_under_seeding_1_are_counted_once(tmp_path):
    """Before polsim 0.31.0, run seed 1's games 0 and 2 had the seeds of run seed 3's games 2 and 0
    (``rules.seeds``), in the same seats: each pairing holds two games twice."""
    runs = []
    for seed in (1, 3):
        exp = tournament_experiment("toy", None, PLAYERS, {}, 10, seed, 30).model_copy(update={"seeding": 1})
        runs.append(run_experiment(exp, str(tmp_path / f"old-{seed}"), workers=0).uri)
    res, report = rate(*runs)
    assert res.exit_code == 0, res.output
    assert [p["games"] for p in report["pairings"]] == [18, 18, 18]
    assert "6 games held by two runs are counted once" in res.stderr
    assert [p["games"] for p in rate_runs([runs[0]]).pairs] == [10, 10, 10]


def test_a_round_robin_of_other_players_on_the_same_seed_is_not_a_duplicate(tmp_path):
    a = tournament_run(tmp_path, 4, ["fair", "loaded:bonus=1"], folder="a")
    b = tournament_run(tmp_path, 4, ["loaded:bonus=1", "loaded:bonus=3"], folder="b")
    res, report = rate(a, b)
    assert res.exit_code == 0, res.output
    assert len(report["ratings"]) == 3


def test_runs_of_other_rules_are_refused_naming_the_knob(tmp_path):
    standard = tournament_run(tmp_path, 4)
    d20 = tournament_run(tmp_path, 5, sets={"sides": 20})
    err = refused(standard, d20)
    assert "plays other rules or physics than" in err and "sides 6 → 20" in err and "one rule set" in err, err


def test_a_sweep_with_cells_of_other_rules_is_refused_naming_the_cell(tmp_path):
    exp = sweep_experiment("toy", None, ["fair", "loaded"], ["rounds=2,3"], 20, 1, 20)
    sweep = run_experiment(exp, str(tmp_path / "sweep"), workers=0).uri
    err = refused(sweep)
    assert err.startswith("error: cell 1 (fair vs loaded [rounds=3]) of ") and "its cell 0 (rounds 2 → 3)" in err, err


def test_players_that_never_met_are_refused_as_groups_with_no_common_scale(tmp_path):
    a = simulate_run(tmp_path, "a", "fair,loaded:bonus=1", seed=1, games=20)
    b = simulate_run(tmp_path, "b", "loaded:bonus=2,loaded:bonus=3", seed=2, games=20)
    err = refused(a, b)
    assert "2 groups that never played each other (fair, loaded:bonus=1 | loaded:bonus=2, loaded:bonus=3)" in err


def test_runs_of_one_strategy_only_are_refused(tmp_path):
    err = refused(simulate_run(tmp_path, "mirror", "fair,fair", games=20))
    assert "games of one strategy only (fair)" in err, err


def test_the_same_run_given_twice_is_refused(tmp_path):
    run = tournament_run(tmp_path, 4)
    assert "given twice" in refused(run, run + "/")


def test_ratings_need_a_run(tmp_path):
    res = runner.invoke(app, ["ratings"])
    assert res.exit_code == 2


def test_runs_made_by_several_polsim_versions_are_rated_with_a_note_naming_them(tmp_path):
    runs = [tournament_run(tmp_path, seed) for seed in (4, 5)]
    manifest = f"{runs[1]}/manifest.json"
    m = json.loads(open(manifest).read())
    m["package_version"] = "0.0.1"
    open(manifest, "w").write(json.dumps(m))
    res, _ = rate(*runs)
    assert res.exit_code == 0, res.output
    assert "the runs were made by polsim 0.0.1, " in res.stderr and "averaged over" in res.stderr
    assert "made by polsim" not in rate(tournament_run(tmp_path, 6), runs[0])[0].stderr


def test_runs_under_other_physics_are_refused_naming_the_versions(tmp_path):
    standard = tournament_run(tmp_path, 4)
    other = tournament_run(tmp_path, 5)
    manifest = f"{other}/manifest.json"
    m = json.loads(open(manifest).read())
    m["physics_version"] = "9.9.9"
    open(manifest, "w").write(json.dumps(m))
    err = refused(standard, other)
    assert "plays other rules or physics than" in err and "physics_version" in err and "9.9.9" in err, err
