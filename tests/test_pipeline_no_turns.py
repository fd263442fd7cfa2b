"""Runs without the turns table (``--no-turns``): the same games rows, no turns
shards, their own run id, resume only in kind, and analysis, report and replay
still work on them."""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.replay import frames, replay
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

runner = CliRunner()


def polar(turns=True, games=12, shard_size=5, seeding=2):
    return Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("random", "greedy")),),
                      games=games, seed=5, shard_size=shard_size, turns=turns, seeding=seeding)


def toy(turns=True):
    return Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair")),),
                      games=20, seed=3, shard_size=7, turns=turns)


def games_content(run_dir):
    return pq.ParquetDataset(os.path.join(run_dir, "games")).read().drop_columns(["run_id"]).sort_by("game_index")


@pytest.mark.parametrize("make", [polar, toy], ids=["polar (columnar core)", "toy (play_batch)"])
def test_a_run_without_turns_writes_the_same_games_rows_and_no_turns_shards(tmp_path, make):
    with_turns = run_experiment(make(turns=True), str(tmp_path / "a"), workers=0)
    without = run_experiment(make(turns=False), str(tmp_path / "b"), workers=0)
    assert with_turns.status == without.status == "complete"
    assert os.listdir(os.path.join(with_turns.uri, "turns"))
    assert sorted(os.listdir(without.uri)) == ["games", "manifest.json"]
    assert games_content(without.uri).equals(games_content(with_turns.uri))


def test_polar_columnar_play_without_recording_gives_the_games_table_it_gives_with_turns():
    from pipelines.spec import game_columns
    from rules.polar.batch import play_columns

    cols = game_columns(polar(games=30), 0, 30)
    args = (cols.index, cols.seeds, cols.group, [(r, s) for _, r, s in cols.groups])
    games, turns = play_columns(*args, record=True)
    games_bare, turns_bare = play_columns(*args, record=False)
    assert turns.num_rows > 0 and turns_bare.num_columns == 0
    assert games_bare.equals(games)


def test_a_run_that_writes_turns_keeps_the_id_it_had_before_the_option():
    """``turns`` enters the run's identity (its id, what resume compares) only when off."""
    assert set(polar(seeding=1).identity()) == {"game", "variant", "cells", "games", "seed"}
    assert polar().identity() == {**polar(seeding=1).identity(), "seeding": 2}
    assert polar(turns=False).identity() == {**polar().identity(), "turns": False}
    assert polar(turns=False).default_run_id() != polar().default_run_id()


def _simulate(out, *extra):
    return runner.invoke(app, ["simulate", "--game", "polar", "--variant", "polar-9", "--strategies", "random,greedy",
                               "--games", "12", "--shard-size", "4", "--seed", "5", "--workers", "0", "--quiet",
                               "--out", str(out), "--run-id", "r", *extra])


@pytest.mark.parametrize("made, resumed", [("--no-turns", "--turns"), ("--turns", "--no-turns")])
def test_resume_with_the_other_turns_setting_is_one_line_exit_2_and_writes_nothing(tmp_path, made, resumed):
    assert _simulate(tmp_path, made).exit_code == 0
    run = tmp_path / "r"
    os.remove(run / "games" / "shard-00001.parquet")
    before = sorted(str(p.relative_to(run)) for p in run.rglob("*"))
    res = _simulate(tmp_path, "--resume", resumed)
    assert res.exit_code == 2
    assert f"was made with {made}: resume it with {made} too (not {resumed})" in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert sorted(str(p.relative_to(run)) for p in run.rglob("*")) == before


def test_a_run_without_turns_resumes_to_the_uninterrupted_run(tmp_path):
    assert _simulate(tmp_path / "full", "--no-turns").exit_code == 0
    assert _simulate(tmp_path / "part", "--no-turns").exit_code == 0
    os.remove(tmp_path / "part" / "r" / "games" / "shard-00002.parquet")
    assert _simulate(tmp_path / "part", "--no-turns", "--resume").exit_code == 0
    assert not (tmp_path / "part" / "r" / "turns").exists()
    assert games_content(tmp_path / "part" / "r").equals(games_content(tmp_path / "full" / "r"))


def test_analyze_report_and_replay_work_on_a_run_without_turns(tmp_path):
    run = run_experiment(polar(turns=False), str(tmp_path), workers=0).uri
    analyzed = runner.invoke(app, ["analyze", run, "--format", "json"])
    assert analyzed.exit_code == 0, analyzed.output
    assert '"strategy": "greedy"' in analyzed.output
    page = tmp_path / "report.html"
    assert runner.invoke(app, ["report", run, "--out", str(page)]).exit_code == 0 and page.stat().st_size > 0
    rep = replay(run, 7)
    assert rep.reproduced and not rep.turns_stored and rep.stored_turns == []
    assert len(rep.replayed_turns) == rep.stored["n_turns"] and len(frames(rep)) == len(rep.replayed_turns)
    shown = runner.invoke(app, ["replay", run, "--game", "7", "--out", str(tmp_path / "game.html")])
    assert shown.exit_code == 0
    assert "the run stored no turns: its games row compared" in shown.output


@pytest.mark.parametrize("command", [
    ["sweep", "--set", "swap=true,false", "--strategies", "random,greedy"],
    ["tournament", "--strategies", "random,greedy,greedy:epsilon=0.5"],
], ids=["sweep", "tournament"])
def test_sweep_and_tournament_take_no_turns(tmp_path, command):
    res = runner.invoke(app, [*command, "--game", "polar", "--variant", "polar-9", "--games", "6", "--workers", "0",
                              "--quiet", "--out", str(tmp_path), "--run-id", "grid", "--no-turns"])
    assert res.exit_code == 0, res.output
    assert sorted(os.listdir(tmp_path / "grid")) == ["games", "manifest.json"]
