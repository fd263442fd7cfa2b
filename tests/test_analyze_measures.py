"""Balance measures: hand-built runs with known answers, and small real Polar runs.

``write_run`` lays out a run folder (manifest + one games shard + one turns
shard) from plain rows, so each measure can be checked against values
worked out by hand; Polarity-shaped rows use the column names of
``rules/polarity/records.py``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy.stats import t as student_t
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.analyze import measure, summarize
from pipelines.cli import app
from pipelines.dataset import open_runs, run_labels
from pipelines.display import readable
from pipelines.fastscan import open_for_analysis
from pipelines.measures_polar import NO_CHOICE
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment
from rules.base import UsageError

runner = CliRunner()


# --- hand-built runs -------------------------------------------------------

def game_row(i, winner, end="done", status="ok", s0=0.0, s1=0.0, n_turns=4, **extra):
    row = {"run_id": "hand", "game": "toy", "variant": "v1", "game_index": i, "strategy_0": "a", "strategy_1": "b",
           "winner": winner, "score_0": s0, "score_1": s1, "end_reason": end, "n_turns": n_turns,
           "status": status, "error": None if status == "ok" else "boom"}
    row.update(extra)
    return row


def write_run(folder, games: list[dict], turns: list[dict] | None = None, run_id="hand") -> str:
    run = os.path.join(str(folder), run_id)
    os.makedirs(os.path.join(run, "games"))
    for g in games:
        g["run_id"] = run_id
    pq.write_table(pa.Table.from_pylist(games), os.path.join(run, "games", "shard-00000.parquet"))
    if turns:
        os.makedirs(os.path.join(run, "turns"))
        for t in turns:
            t["run_id"] = run_id
        pq.write_table(pa.Table.from_pylist(turns), os.path.join(run, "turns", "shard-00000.parquet"))
    manifest = {"format": 1, "run_id": run_id, "status": "complete", "games_done": len(games), "games_failed": 0,
                "spec": {"game": "toy", "variant": "v1", "seed": 0, "cells": [{"matchup": ["a", "b"]}]}}
    with open(os.path.join(run, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    return run


def score_turns(i, pairs):
    return [{"game_index": i, "turn": t, "player": t % 2, "score_0": float(a), "score_1": float(b)}
            for t, (a, b) in enumerate(pairs)]


def tables_of(run, **kw):
    con, _ = open_runs([run])
    return measure(con, **kw)


def balance_run(tmp_path):
    games = ([game_row(i, 0) for i in range(6)] + [game_row(6, 1), game_row(7, 1, end="turn_limit"),
             game_row(8, -1), game_row(9, None, end="error", status="error")])
    return write_run(tmp_path, games)


def test_balance_score_is_one_minus_the_gap_between_seat_score_rates(tmp_path):
    b = tables_of(balance_run(tmp_path))["balance"][0]
    s0, s1 = (6 + 0.5) / 9, (2 + 0.5) / 9
    assert b["balance"] == pytest.approx(1 - abs(s0 - s1))
    assert b["balance_lo"] <= b["balance"] <= b["balance_hi"] <= 1
    assert b["first_player_adv_rate"] == pytest.approx(s0 - 0.5)
    assert b["first_player_adv_lo"] < b["first_player_adv_rate"] < b["first_player_adv_hi"]


def test_completion_draws_and_safety_limit_are_shares_with_intervals(tmp_path):
    b = tables_of(balance_run(tmp_path))["balance"][0]
    assert (b["games"], b["finished"], b["seat0_wins"], b["seat1_wins"], b["draws"]) == (10, 9, 6, 2, 1)
    assert b["completion_rate"] == pytest.approx(8 / 10)  # the failed game and the draw have no winner
    assert b["draw_rate"] == pytest.approx(1 / 9)
    assert b["safety_limit_rate"] == pytest.approx(1 / 10)
    for stem in ("completion", "draw", "safety_limit"):
        assert 0 <= b[f"{stem}_lo"] < b[f"{stem}_rate"] < b[f"{stem}_hi"] <= 1


def test_analyze_and_report_note_a_lost_games_shard_and_an_unfinished_run(tmp_path):
    """Before: a run whose games shard was deleted analysed as complete, 18,000 games of 20,000 with no
    note, and an interrupted run too (a helper's audit)."""
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair")),), games=12, seed=4,
                     shard_size=4)
    uri = run_experiment(exp, str(tmp_path), workers=0).uri
    assert "note:" not in runner.invoke(app, ["analyze", uri]).stderr
    os.remove(os.path.join(uri, "games", "shard-00001.parquet"))
    res = runner.invoke(app, ["analyze", uri, "--table", "balance", "--format", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["balance"][0]["games"] == 8
    assert "8 of the 12 games its manifest counts are on disk (a games shard file is missing)" in \
        " ".join(res.stderr.split())
    page = tmp_path / "page.html"
    assert runner.invoke(app, ["report", uri, "--out", str(page)]).exit_code == 0
    assert "8 of the 12 games its manifest counts are on disk" in page.read_text()
    manifest = json.loads(open(os.path.join(uri, "manifest.json")).read())
    manifest.update(status="incomplete", games_done=8)
    with open(os.path.join(uri, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    res = runner.invoke(app, ["analyze", uri])
    assert "is incomplete: 8 of 12 games; finish it with the command that made it and --resume" in \
        " ".join(res.stderr.split())


def test_analyze_and_report_note_the_games_two_seeding_1_runs_both_hold(tmp_path):
    """Run seeds 1 and 3 made before polsim 0.31.0 share two games in the same seats (``rules.seeds``)."""
    def toy(seed, seeding):
        exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair")),), games=10,
                         seed=seed, shard_size=10, seeding=seeding)
        return run_experiment(exp, str(tmp_path / f"s{seed}-{seeding}"), workers=0).uri

    old = [toy(1, 1), toy(3, 1)]
    res = runner.invoke(app, ["analyze", *old, "--by", "variant", "--table", "balance", "--format", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["balance"][0]["games"] == 20
    assert "2 games are held by two of these runs" in " ".join(res.stderr.split())
    page = tmp_path / "page.html"
    assert runner.invoke(app, ["report", *old, "--out", str(page)]).exit_code == 0
    assert "2 games are held by two of these runs" in page.read_text()
    assert "held by two" not in runner.invoke(app, ["analyze", toy(1, 2), toy(3, 2), "--by", "variant"]).stderr


def test_analyze_notes_how_many_failed_games_the_outcome_tables_leave_out(tmp_path):
    res = runner.invoke(app, ["analyze", balance_run(tmp_path / "failed"), "--table", "seats", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert [r["games"] for r in json.loads(res.stdout)["seats"]] == [9, 9]
    assert "note: 1 of 10 games failed or have no result and are left out" in res.stderr
    clean = write_run(tmp_path / "clean", [game_row(i, i % 2) for i in range(4)])
    assert "left out" not in runner.invoke(app, ["analyze", clean]).stderr


def test_analyze_table_repeated_prints_those_tables_in_the_order_given(tmp_path):
    run = balance_run(tmp_path)
    res = runner.invoke(app, ["analyze", run, "--table", "length", "--table", "seats", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert list(json.loads(res.stdout)) == ["length", "seats"]
    bad = runner.invoke(app, ["analyze", run, "--table", "seats", "--table", "sets"])
    assert bad.exit_code == 2 and "unknown --table 'sets' (did you mean seats?); choose from: strategies" in bad.output
    assert bad.stdout == ""  # no table printed before the error


def test_length_reports_mean_interval_spread_and_quantiles(tmp_path):
    games = [game_row(i, 0, n_turns=n) for i, n in enumerate([10, 20, 30, 40])]
    row = tables_of(write_run(tmp_path, games))["length"][0]
    assert row["mean"] == 25 and row["median"] == 25 and row["min"] == 10 and row["max"] == 40
    assert row["sd"] == pytest.approx(math.sqrt(500 / 3))
    assert row["iqr"] == pytest.approx(15) and row["cv"] == pytest.approx(row["sd"] / 25)
    assert row["mean_lo"] < 25 < row["mean_hi"]


def test_a_mean_interval_is_students_t_with_n_minus_1_degrees_of_freedom(tmp_path):
    """Before: z * sd / sqrt(n), which covered 81 % of means at 3 games (a helper's audit)."""
    games = [game_row(i, 0, n_turns=n) for i, n in enumerate([10, 20, 30, 40])]
    row = tables_of(write_run(tmp_path, games))["length"][0]
    half = student_t.ppf(0.975, 3) * math.sqrt(500 / 3) / 2
    assert (row["mean_lo"], row["mean_hi"]) == (pytest.approx(25 - half), pytest.approx(25 + half))
    one = tables_of(write_run(tmp_path / "one", [game_row(0, 0, n_turns=7)]))["length"][0]
    assert one["mean"] == 7 and one["mean_lo"] is None and one["mean_hi"] is None


def decisiveness_run(tmp_path):
    games = [game_row(0, 0, s0=4, s1=2), game_row(1, 1, s1=2), game_row(2, -1, s0=1, s1=1),
             game_row(3, 0, s1=1, end="red_touched")]
    turns = (score_turns(0, [(0, 0), (1, 0), (1, 2), (3, 2), (4, 2)])  # seat 0 ahead for good from turn 3
             + score_turns(1, [(0, 1), (0, 2)])                      # seat 1 ahead from the first turn
             + score_turns(2, [(1, 0), (1, 1)])                      # a draw: no winner
             + score_turns(3, [(0, 0), (0, 1)]))                     # seat 0 wins by a sudden end, never ahead
    return write_run(tmp_path, games, turns)


def test_decisiveness_is_the_turn_from_which_the_winner_keeps_the_lead(tmp_path):
    row = tables_of(decisiveness_run(tmp_path))["decisiveness"][0]
    fracs = [3 / 5, 0.0, 1.0]
    assert row["games"] == 3
    assert row["mean_frac"] == pytest.approx(sum(fracs) / 3)
    assert row["median"] == pytest.approx(3 / 5)
    assert row["mean_turn"] == pytest.approx((3 + 0 + 2) / 3)
    assert row["early_rate"] == pytest.approx(1 / 3) and row["last_rate"] == pytest.approx(1 / 3)


def test_decisiveness_reads_the_end_from_the_scores_the_winner_was_read_from(tmp_path):
    """R17/R18: a last move that empties the stack and refills it by a fault is scored with the stack
    empty (``empty_stack_scoring=when_emptied``), while the turns row keeps the refill. Before: the
    winner, ahead only on the scored stack, read as "not ahead even after the last turn" (a helper's
    audit)."""
    games = [game_row(0, 0, s0=0, s1=-1, end="stack_empty")]
    turns = score_turns(0, [(-2, -2), (-3, -1), (-3, -1)])  # the last row: 3 discs back in seat 0's stack
    row = tables_of(write_run(tmp_path, games, turns))["decisiveness"][0]
    assert row["mean_turn"] == 2 and row["mean_frac"] == pytest.approx(2 / 3)
    assert row["last_rate"] == 0.0


def test_margins_and_seat_scores_carry_the_komi_of_the_seat_playing_white(tmp_path):
    """Before: board points only, so a komi of 30.5 showed margins of 0 and a winner behind (a helper's audit)."""
    games = [game_row(0, 0, s0=10.0, s1=12.0, colour_0="white", rule_komi=3.5),   # 13.5 to 12
             game_row(1, 1, s0=12.0, s1=10.0, colour_0="black", rule_komi=3.5),   # 12 to 13.5
             game_row(2, 0, s0=20.0, s1=11.0, colour_0="black", rule_komi=3.5)]   # 20 to 14.5
    run = write_run(tmp_path, games)
    margins = tables_of(run)["margins"][0]
    assert (margins["min"], margins["max"], margins["mean"]) == (1.5, 5.5, pytest.approx(8.5 / 3))
    assert margins["seat0_margin"] == pytest.approx((1.5 - 1.5 + 5.5) / 3)
    con, _ = open_runs([run])
    seats = con.execute("SELECT game_index, seat, score, margin, result FROM seats ORDER BY ALL").fetchall()
    assert seats == [(0, 0, 13.5, 1.5, "win"), (0, 1, 12.0, -1.5, "loss"), (1, 0, 12.0, -1.5, "loss"),
                     (1, 1, 13.5, 1.5, "win"), (2, 0, 20.0, 5.5, "win"), (2, 1, 14.5, -5.5, "loss")]


def test_polarity_length_and_decisiveness_count_turns_of_play_not_the_foundations(tmp_path):
    """Before: n_turns held the 2 x foundations setup turns: three foundations looked 4 turns shorter
    than five over the same play, and no standard game could be decided before turn 10 (a helper's audit)."""
    polarity = {"game": "polarity"}
    games = [game_row(0, 0, s0=1, n_turns=20, rule_foundations=5, **polarity),
             game_row(1, 0, s0=1, n_turns=16, rule_foundations=3, **polarity),
             game_row(2, 0, s0=2, n_turns=5, rule_foundations=1, **polarity),
             game_row(3, 1, s0=-1, s1=-2, n_turns=1, rule_foundations=1, end="red_touched",
                      **polarity)]  # ended in setup
    turns = (score_turns(0, [(-1, -2)] * 10 + [(0, 0)] * 9 + [(1, 0)])
             + score_turns(1, [(-1, -2)] * 6 + [(1, 0)] * 10)         # ahead from play's first turn
             + score_turns(2, [(-1, -2), (-1, -1), (0, 0), (1, 0), (2, 0)])  # ahead for good from turn 3
             + score_turns(3, [(-1, -2)]))
    tables = tables_of(write_run(tmp_path, games, turns))
    assert [tables["length"][0][k] for k in ("games", "min", "max")] == [4, 0, 10]
    row = tables["decisiveness"][0]
    assert row["games"] == 3  # the game that ended in setup has no play to be decided in
    assert row["mean_frac"] == pytest.approx((9 / 10 + 0 / 10 + 1 / 3) / 3)
    assert row["mean_turn"] == pytest.approx((9 + 0 + 1) / 3)


@pytest.mark.parametrize("colour_0, komi, winner, frac", [
    ("black", 3.5, 1, 0.0),   # seat 1 plays White: 3.5 ahead before any stone, and wins 4.5 to 4
    ("white", 3.5, 0, 0.0),   # seat 0 plays White: ahead from the start
    ("black", 0.0, 0, 0.25),  # no komi: seat 0 is level at turn 0 and ahead from turn 1
])
def test_decisiveness_reads_the_lead_with_the_komi_white_carries(tmp_path, colour_0, komi, winner, frac):
    game = game_row(0, winner, s0=4, s1=1, colour_0=colour_0, rule_komi=komi)
    run = write_run(tmp_path, [game], score_turns(0, [(0, 0), (2, 0), (3, 1), (4, 1)]))  # board points
    assert tables_of(run)["decisiveness"][0]["mean_frac"] == pytest.approx(frac)


def test_decisiveness_reads_each_game_with_its_own_komi_when_the_runs_mix_komi_and_none(tmp_path):
    games = [game_row(0, 1, s0=4, s1=1, colour_0="black", rule_komi=3.5),
             game_row(1, 0, s0=4, s1=1, colour_0="black", rule_komi=0.0)]
    turns = score_turns(0, [(0, 0), (2, 0), (3, 1), (4, 1)]) + score_turns(1, [(0, 0), (2, 0), (3, 1), (4, 1)])
    assert tables_of(write_run(tmp_path, games, turns))["decisiveness"][0]["mean_frac"] == pytest.approx(0.125)


def test_decisiveness_joins_turns_to_games_only_when_a_game_has_a_komi(tmp_path):
    from pipelines.decisiveness import _turns_sql
    from pipelines.scope import Scope

    turns = score_turns(0, [(0, 0), (1, 0)])
    for komi, joined in ((0.0, False), (2.5, True)):
        run = write_run(tmp_path / str(komi), [game_row(0, 0, colour_0="white", rule_komi=komi)], turns)
        con, _ = open_runs([run])
        assert ("JOIN" in _turns_sql(Scope.of(con))) is joined


def test_decisiveness_is_left_out_without_turns(tmp_path):
    tables = tables_of(balance_run(tmp_path))
    assert "decisiveness" not in tables and "balance" in tables


def test_where_values_are_parameters_and_by_splits_every_table(tmp_path):
    games = [game_row(i, i % 2, variant="v1" if i < 4 else "v2") for i in range(10)]
    run = write_run(tmp_path, games)
    tables = tables_of(run, by=["variant"])
    assert [(r["variant"], r["games"]) for r in tables["balance"]] == [("v1", 4), ("v2", 6)]
    assert {r["variant"] for r in tables["length"]} == {"v1", "v2"}
    assert tables_of(run, where=["variant=v2"])["balance"][0]["games"] == 6
    with pytest.raises(UsageError, match="no games match"):  # the quote is a value: it matches no game
        tables_of(run, where=["variant=v1' OR '1'='1"])


def test_where_matches_booleans_and_numbers_as_they_are_shown(tmp_path):
    games = [game_row(i, i % 2, s0=float(100 + i % 3), rule_swap=i < 4) for i in range(10)]
    run = write_run(tmp_path, games)

    def count(*where):
        return tables_of(run, where=list(where))["balance"][0]["games"]

    assert count("rule_swap=False") == count("rule_swap=false") == count("rule_swap!=TRUE") == 6
    assert count("rule_swap=True") == 4
    assert count("score_0=101") == count("score_0=101.0") == 3  # stored as 101.0
    assert count("n_turns=4.0") == 10 and count("score_0!=100", "rule_swap=true") == 2
    with pytest.raises(UsageError, match="rule_swap is true or false"):
        count("rule_swap=no")
    with pytest.raises(UsageError, match="score_0 is a number"):
        count("score_0=101' OR '1'='1")


def test_where_not_equal_keeps_games_whose_cell_is_empty_and_null_matches_them(tmp_path):
    """Before: ``loser_cause!=R14`` dropped every game without a loser (SQL's ``<>`` is never true of NULL)."""
    games = [game_row(i, i % 2, loser_cause="R14" if i < 3 else None) for i in range(10)]
    run = write_run(tmp_path, games)

    def count(*where):
        return tables_of(run, where=list(where))["balance"][0]["games"]

    assert count("loser_cause!=R14") == count("loser_cause=null") == count("loser_cause=—") == 7
    assert count("loser_cause=R14") == count("loser_cause!=null") == count("loser_cause!=NULL") == 3
    assert count("loser_cause!=R16") == 10


def test_by_a_seat_column_splits_seat_tables_only(tmp_path):
    tables = tables_of(balance_run(tmp_path), by=["seat"])
    assert {r["seat"] for r in tables["strategies"]} == {0, 1}
    assert len(tables["balance"]) == 1 and "seat" not in tables["balance"][0]


def test_runs_sharing_a_run_id_are_kept_apart_and_replayed_from_their_own_folders(tmp_path):
    base = write_run(tmp_path / "base", [game_row(i, 0) for i in range(4)], run_id="same")
    cand = write_run(tmp_path / "cand", [game_row(i, 1, end="late") for i in range(6)], run_id="same")
    res = runner.invoke(app, ["analyze", base, cand, "--by", "run_id", "--format", "json"])
    assert res.exit_code == 0, res.output
    tables = json.loads(res.stdout)
    assert [(r["run_id"], r["games"]) for r in tables["balance"]] == [("base/same", 4), ("cand/same", 6)]
    assert [r["replay"] for r in tables["end_reasons"]] == [f"polsim replay {base} --game 0",
                                                           f"polsim replay {cand} --game 0"]
    assert "share the run_id same" in res.stderr
    con, _ = open_runs([base, cand])  # the pyarrow views (runs on object storage) keep them apart too
    assert [(r["run_id"], r["games"]) for r in measure(con, by=["run_id"])["balance"]] == [("base/same", 4),
                                                                                           ("cand/same", 6)]


def polar_variant_run(folder, variant, games=40):
    exp = Experiment(game="polar", variant=variant, cells=(Cell(matchup=("greedy", "random")),),
                     games=games, seed=5, shard_size=games)
    return run_experiment(exp, str(folder), workers=0).uri


def test_analyze_keeps_several_runs_apart_by_variant_else_by_run_id(tmp_path):
    nine, eleven = polar_variant_run(tmp_path / "v", "polar-9"), polar_variant_run(tmp_path / "v", "polar-11")
    res = runner.invoke(app, ["analyze", nine, eleven, "--format", "json"])
    assert res.exit_code == 0, res.output
    tables = json.loads(res.stdout)
    assert sorted((r["variant"], r["games"]) for r in tables["balance"]) == [("polar-11", 40), ("polar-9", 40)]
    length = {r["variant"]: r["mean"] for r in tables["length"]}
    assert set(length) == {"polar-9", "polar-11"} and length["polar-11"] > length["polar-9"]
    assert "2 runs given: grouped by variant" in res.stderr

    base, cand = polar_variant_run(tmp_path / "base", "polar-9"), polar_variant_run(tmp_path / "cand", "polar-9")
    res = runner.invoke(app, ["analyze", base, cand, "--format", "json"])
    assert res.exit_code == 0, res.output
    run_id = os.path.basename(base)
    assert sorted((r["run_id"], r["games"]) for r in json.loads(res.stdout)["balance"]) == [
        (f"base/{run_id}", 40), (f"cand/{run_id}", 40)]
    assert "2 runs given: grouped by run_id" in res.stderr

    pooled = runner.invoke(app, ["analyze", base, cand, "--by", "game", "--format", "json"])
    assert [r["games"] for r in json.loads(pooled.stdout)["balance"]] == [80]  # --by says how to group
    assert "grouped by" not in pooled.stderr


def test_runs_sharing_a_run_id_are_labelled_by_the_shortest_folder_ending_that_tells_them_apart():
    m = [{"run_id": "x"}, {"run_id": "x"}, {"run_id": "y"}, {"run_id": "x"}]
    assert run_labels(["a/b/x", "a/c/x/", "s3://k/y", "s3://k/b/x"], m) == ["a/b/x", "a/c/x", "y", "k/b/x"]
    assert run_labels(["r/x", "r/y"], [{"run_id": "x"}, {"run_id": "y"}]) == ["x", "y"]


def test_turns_of_runs_sharing_a_run_id_join_only_their_own_games(tmp_path):
    runs = [write_run(tmp_path / folder, *polarity_rows()) for folder in ("a", "b")]  # both run_id "hand"
    con, _ = open_runs(runs)
    captures = measure(con)["captures"][0]
    assert captures["n"] == 2 * 2 and captures["mean"] == pytest.approx(2.0)  # each run's two captures, once


def test_unknown_by_column_is_a_usage_error(tmp_path):
    res = runner.invoke(app, ["analyze", balance_run(tmp_path), "--by", "nosuch"])
    assert res.exit_code == 2 and "unknown column" in res.output


def polarity_rows():
    g = dict(red_orientation="bar", stack_0=0, stack_1=3, towers_0=2, towers_1=1, tower_discs_0=5, tower_discs_1=2,
             faults_0=1, faults_1=2, conversions_0=1, conversions_1=0, placements_0=4, placements_1=4)
    games = [game_row(0, 0, end="stack_empty", loser=None, **g),
             game_row(1, 1, end="red_touched", loser=0, **{**g, "red_orientation": "dot", "stack_0": 2, "stack_1": 0,
                                                           "conversions_1": 2}),
             game_row(2, 0, end="stack_empty", loser=None, **{**g, "red_orientation": "dot"})]

    def t(i, turn, phase, outcome, kinds="", attempts=1, captured=None):
        return {"game_index": i, "turn": turn, "player": turn % 2, "phase": phase, "outcome": outcome,
                "fault_kinds": kinds, "attempts": attempts, "captured_discs": captured,
                "score_0": 0.0, "score_1": 0.0}

    turns = [t(0, 0, "place", "fault", "a", 1), t(0, 1, "place", "fault", "a,c", 3), t(0, 2, "place", "placed", "", 2),
             t(0, 3, "place", "fault", "e,r", 2), t(0, 4, "place", "no_move", "", None),
             t(0, 5, "capture", "captured", "", 1, 3), t(1, 0, "capture", "captured", "", 1, 1),
             t(1, 1, "convert", "converted"), t(1, 2, "convert", "convert_failed", "b"),
             t(1, 3, "place", "gave_up", "", 5)]
    return games, turns


def test_polarity_fault_rate_per_placement_by_kind(tmp_path):
    games, turns = polarity_rows()
    faults = tables_of(write_run(tmp_path, games, turns))["faults"]
    place = {r["kind"]: r for r in faults if r["phase"] == "place"}
    assert place["a"]["actions"] == 5  # the no_move row is not a placement
    assert {k: place[k]["faults"] for k in ("a", "b", "c", "d", "e", "r", "s", "any")} == \
           {"a": 2, "b": 0, "c": 1, "d": 0, "e": 1, "r": 1, "s": 0, "any": 3}
    assert place["a"]["fault_rate"] == pytest.approx(2 / 5)
    assert place["b"]["fault_lo"] == 0 < place["b"]["fault_hi"]
    convert = {r["kind"]: r for r in faults if r["phase"] == "convert"}
    assert convert["b"]["faults"] == 1 and convert["b"]["actions"] == 2


def test_polarity_attempts_conversions_and_captures(tmp_path):
    games, turns = polarity_rows()
    tables = tables_of(write_run(tmp_path, games, turns))
    attempts = tables["attempts"][0]
    assert attempts["n"] == 5 and attempts["mean"] == pytest.approx((1 + 3 + 2 + 2 + 5) / 5)
    assert attempts["gave_up_rate"] == pytest.approx(1 / 5)  # a no_move turn tried nothing: no placement
    conv = tables["conversions"][0]
    assert conv["mean"] == pytest.approx((1 + 3 + 1) / 3) and conv["success_rate"] == pytest.approx(1 / 2)
    caps = tables["captures"][0]
    assert caps["n"] == 2 and caps["mean"] == pytest.approx(2.0) and caps["max"] == 3


def test_polarity_discs_left_in_stacks_and_towers_per_seat(tmp_path):
    games, turns = polarity_rows()
    seats = {r["seat"]: r for r in tables_of(write_run(tmp_path, games, turns))["seat_ends"]}
    assert seats[0]["colour"] == "white" and seats[1]["colour"] == "black"
    assert seats[0]["mean_stack"] == pytest.approx(2 / 3) and seats[1]["mean_stack"] == pytest.approx(2.0)
    assert seats[0]["emptied_rate"] == pytest.approx(2 / 3)
    assert seats[0]["discs_per_tower"] == pytest.approx(15 / 6)


def test_polarity_win_rate_by_red_orientation_and_colour(tmp_path):
    games, turns = polarity_rows()
    rows = tables_of(write_run(tmp_path, games, turns))["red_colour"]
    got = {(r["red_orientation"], r["colour"]): (r["wins"], r["games"]) for r in rows}
    assert got == {("bar", "white"): (1, 1), ("bar", "black"): (0, 1),
                   ("dot", "white"): (1, 2), ("dot", "black"): (1, 2)}


def test_polarity_losses_to_the_red_disc_by_orientation_and_colour(tmp_path):
    games, turns = polarity_rows()
    games.append({**games[0], "game_index": 3, "winner": 0, "end_reason": "red_moved", "loser": 1})  # bar up
    rows = tables_of(write_run(tmp_path, games, turns))["red_losses"]
    got = {(r["red_orientation"], r["colour"]): (r["games"], r["touched"], r["moved"]) for r in rows}
    assert got == {("bar", "white"): (2, 0, 0), ("bar", "black"): (2, 0, 1),
                   ("dot", "white"): (2, 1, 0), ("dot", "black"): (2, 0, 0)}
    rate = {(r["red_orientation"], r["colour"]): r["lost_to_red_rate"] for r in rows}
    assert rate == {("bar", "white"): 0.0, ("bar", "black"): 0.5, ("dot", "white"): 0.5, ("dot", "black"): 0.0}
    assert all(r["lost_to_red_lo"] <= r["lost_to_red_rate"] < r["lost_to_red_hi"] for r in rows)


def test_polarity_foundations_distance_from_the_red_disc_per_colour_and_strategy(tmp_path):
    games, turns = polarity_rows()
    games[1].update(strategy_0="b", strategy_1="a")  # seats swapped in game 1

    def setup(i, player, x, y, outcome="placed"):
        return {"game_index": i, "turn": 0, "player": player, "phase": "setup", "outcome": outcome, "x": x, "y": y}

    turns = [{**t, "x": None, "y": None} for t in turns] + [
        setup(0, 0, 0.09, 0.0), setup(0, 0, 0.0, -0.11), setup(0, 1, 0.18, 0.0),   # a white 100 mm, b black 180
        setup(1, 0, 0.12, 0.16), setup(1, 1, -0.06, 0.0), setup(1, 1, 0.3, 0.4, outcome="gave_up"),  # b white 200, a black 60
        setup(2, 0, 0.0, 0.14), setup(2, 1, 0.0, 0.2)]                              # a white 140, b black 200
    rows = tables_of(write_run(tmp_path, games, turns))["foundations"]
    got = {(r["colour"], r["strategy"]): (r["seats"], r["mean"]) for r in rows}
    assert got == {("white", "a"): (2, pytest.approx(120.0)), ("white", "b"): (1, pytest.approx(200.0)),
                   ("black", "a"): (1, pytest.approx(60.0)), ("black", "b"): (2, pytest.approx(190.0))}
    white_a = next(r for r in rows if (r["colour"], r["strategy"]) == ("white", "a"))
    assert white_a["mean_lo"] < 120.0 < white_a["mean_hi"]  # over two games, not over three foundations


def test_polarity_turn_measures_of_two_runs_are_kept_apart_by_run(tmp_path):
    """Two runs of one variant are grouped by ``run_id``, a column ``turns`` has too."""
    runs = []
    for run_id in ("one", "two"):
        games, turns = polarity_rows()
        runs.append(write_run(tmp_path, games, turns, run_id=run_id))
    con, _ = open_runs(runs)
    tables = measure(con, by=["run_id"])
    assert [(r["run_id"], r["n"]) for r in tables["attempts"]] == [("one", 5), ("two", 5)]
    assert [(r["run_id"], r["n"]) for r in tables["captures"]] == [("one", 2), ("two", 2)]
    res = runner.invoke(app, ["analyze", *runs, "--table", "attempts", "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "note:" in res.stderr and "run_id" in res.stderr  # grouped by run, and said so


def test_polarity_end_reasons_name_the_losing_rule(tmp_path):
    games, turns = polarity_rows()
    for g, cause in zip(games, (None, "R15", None)):
        g["loser_cause"] = cause
    rows = tables_of(write_run(tmp_path, games, turns))["end_reasons"]
    got = {(r["end_reason"], r["loser_cause"]): (r["games"], r["share"]) for r in rows}
    assert got == {("red_touched", "R15"): (1, pytest.approx(1 / 3)), ("stack_empty", None): (2, pytest.approx(2 / 3))}
    assert all(r["share_lo"] < r["share"] < r["share_hi"] for r in rows)


def test_polar_tables_are_left_out_of_other_games(tmp_path):
    games, turns = polarity_rows()
    tables = tables_of(write_run(tmp_path, games, turns))
    assert "swap" not in tables and "passes" not in tables and "colours" not in tables


# --- small real runs -------------------------------------------------------

@pytest.fixture(scope="module")
def polar_run(tmp_path_factory):
    exp = Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("greedy", "random")),),
                     games=80, seed=11, shard_size=40)
    return run_experiment(exp, str(tmp_path_factory.mktemp("polar")), workers=0).uri


def raw_games(run):
    return pq.ParquetDataset(os.path.join(run, "games")).read().to_pylist()


def test_polar_margins_and_passes_match_the_raw_rows(polar_run):
    tables = tables_of(polar_run)
    games = raw_games(polar_run)
    margins = [abs(g["score_0"] - g["score_1"]) for g in games]
    assert tables["margins"][0]["mean"] == pytest.approx(sum(margins) / len(margins))
    assert tables["margins"][0]["max"] == max(margins)
    passes = tables["passes"][0]
    assert passes["mean"] == pytest.approx(sum(g["n_passes"] for g in games) / len(games))
    assert passes["min"] >= 2  # the two final passes (P5) are always counted
    assert passes["early_pass_rate"] == pytest.approx(sum(g["n_passes"] > 2 for g in games) / len(games))


def test_polar_colour_win_rates_match_the_raw_rows(polar_run):
    colours = {r["colour"]: r for r in tables_of(polar_run)["colours"]}
    games = raw_games(polar_run)

    def winner_colour(g):
        other = "white" if g["colour_0"] == "black" else "black"
        return g["colour_0"] if g["winner"] == 0 else other

    black_wins = sum(1 for g in games if g["winner"] in (0, 1) and winner_colour(g) == "black")
    assert colours["black"]["wins"] == black_wins
    assert colours["black"]["wins"] + colours["white"]["wins"] + colours["black"]["draws"] == len(games)


def test_polar_swap_picks_partition_each_matchup(polar_run):
    swap = tables_of(polar_run)["swap"]
    pairs = {}
    for r in swap:
        pairs.setdefault((r["proposer"], r["chooser"]), []).append(r)
        assert r["pick"] in ("black", "white")
        assert r["pick_lo"] <= r["pick_rate"] <= r["pick_hi"]
    assert set(pairs) == {("greedy", "random"), ("random", "greedy")}
    for rows in pairs.values():
        assert sum(r["pick_rate"] for r in rows) == pytest.approx(1.0)
        assert sum(r["games"] for r in rows) == rows[0]["pair_games"] == 40


def test_swap_table_shows_the_colour_picked_beside_how_often_it_is_picked(polar_run):
    shown = readable(tables_of(polar_run)["swap"])
    assert {r["pick"] for r in shown} == {"black", "white"}
    assert all(re.fullmatch(r"\d+\.\d % \[\d+\.\d, \d+\.\d\]", r["pick_rate"]) for r in shown)
    out = runner.invoke(app, ["analyze", polar_run, "--table", "swap"], terminal_width=250)
    assert out.exit_code == 0 and "black" in out.output and "white" in out.output


def test_swap_table_says_no_colour_was_chosen_when_the_swap_rule_is_off(tmp_path):
    exp = Experiment(game="polar", variant="polar-9", cells=(Cell(overrides={"swap": False},
                                                                 matchup=("greedy", "random")),),
                     games=20, seed=3, shard_size=20)
    swap = tables_of(run_experiment(exp, str(tmp_path), workers=0).uri)["swap"]
    assert [(r["proposer"], r["pick"], r["games"]) for r in swap] == [("greedy", NO_CHOICE, 10),
                                                                      ("random", NO_CHOICE, 10)]
    assert all(r["pick_rate"] is None and r["chooser_win_rate"] is None for r in swap)


def test_polar_decisiveness_comes_from_the_running_scores(polar_run):
    row = tables_of(polar_run)["decisiveness"][0]
    decided = sum(1 for g in raw_games(polar_run) if g["winner"] in (0, 1))
    assert row["games"] == decided
    assert 0 <= row["p10"] <= row["median"] <= row["p90"] <= 1


def test_summarize_keeps_the_tables_simulate_prints(polar_run):
    con, _ = open_runs([polar_run])
    tables = summarize(con)
    assert {"strategies", "seats", "end_reasons", "failures"} <= set(tables)
    assert "swap" not in tables


def test_analyze_measures_option_picks_groups_and_formats(polar_run):
    out = runner.invoke(app, ["analyze", polar_run, "--measures", "polar", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert set(json.loads(out.output)) == {"margins", "passes", "swap", "colours", "komi", "opening_balance"}
    bad = runner.invoke(app, ["analyze", polar_run, "--measures", "nosuch"])
    assert bad.exit_code == 2 and "unknown measure group" in bad.output
    as_csv = runner.invoke(app, ["analyze", polar_run, "--measures", "outcome", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(as_csv.output.split("\n\n")[0])))
    assert as_csv.exit_code == 0 and rows[0]["table"] == "strategies" and float(rows[0]["win_lo"]) >= 0


def test_tables_show_each_rate_with_its_interval_in_one_cell(polar_run):
    row = readable([tables_of(polar_run)["balance"][0]])[0]
    assert re.fullmatch(r"\d+\.\d % \[\d+\.\d, \d+\.\d\]", row["balance"])
    assert re.fullmatch(r"-?\d+\.\d % \[-?\d+\.\d, -?\d+\.\d\]", row["first_player_adv"])
    assert not any(k.endswith(("_lo", "_hi")) for k in row) and row["games"] == 80
    out = runner.invoke(app, ["analyze", polar_run, "--table", "balance"])
    assert out.exit_code == 0 and "balance" in out.output


def test_native_parquet_views_give_the_same_tables_as_pyarrow_views(polar_run, tmp_path):
    games, turns = polarity_rows()
    polarity_run = write_run(tmp_path, games, turns)
    for run, kw in ((polar_run, {"where": ["strategy_0=greedy"], "by": ["seat"]}), (polarity_run, {})):
        slow = tables_of(run, **kw)
        con, _ = open_for_analysis([run])
        assert rounded(measure(con, **kw)) == rounded(slow)


def rounded(tables):
    """Tables with floats to 9 significant digits (sums may add up in another order)."""
    def cell(v):
        return float(f"{v:.9g}") if isinstance(v, float) else v
    return {name: [{k: cell(v) for k, v in row.items()} for row in rows] for name, rows in tables.items()}


def test_one_connection_serves_several_scopes(tmp_path):
    con, _ = open_runs([decisiveness_run(tmp_path)])
    first = measure(con)["decisiveness"]
    assert measure(con, where=["game_index!=0"])["decisiveness"][0]["games"] == 2
    assert measure(con)["decisiveness"] == first


def test_runs_of_different_games_side_by_side_keep_their_own_measures(polar_run, tmp_path):
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair")),), games=30, seed=2,
                     shard_size=10)
    toy_run = run_experiment(exp, str(tmp_path), workers=0).uri
    con, _ = open_for_analysis([toy_run, polar_run])
    tables = measure(con, by=["game"])
    assert [(r["game"], r["games"]) for r in tables["balance"]] == [("polar", 80), ("toy", 30)]
    assert [r["game"] for r in tables["passes"]] == ["polar"]  # the toy game records no passes
    assert {r["game"] for r in tables["decisiveness"]} == {"polar", "toy"}


def test_length_of_games_all_the_same_length_has_no_spread(tmp_path):
    row = tables_of(write_run(tmp_path, [game_row(i, 0, n_turns=12) for i in range(3)]))["length"][0]
    assert row["sd"] == 0 and row["cv"] == 0


def test_polar_komi_table_predicts_a_run_at_its_fair_komi(tmp_path):
    """Greedy players make the same moves whatever the komi, so a run at the fair
    komi the table reads from the margins wins exactly as the table says."""
    def run(komi, folder):
        cell = Cell(matchup=("greedy", "greedy"), overrides={"komi": komi} if komi else {})
        exp = Experiment(game="polar", variant="polar-9-noswap", cells=(cell,), games=300, seed=4, shard_size=150)
        return run_experiment(exp, str(tmp_path / folder), workers=0).uri

    plain_run = run(0.0, "plain")
    plain = tables_of(plain_run)["komi"]
    assert len(plain) == 1 and plain[0]["players_see_komi"] is False
    assert type(plain[0]["komi"]) is float and plain[0]["komi"] == 0.0  # a number in JSON, not a decimal
    games = raw_games(plain_run)
    margins = [g["black_score"] - g["white_score"] for g in games]
    assert plain[0]["black_margin"] == pytest.approx(sum(margins) / len(margins))
    fair = plain[0]["fair_komi"]
    assert fair % 1 == 0.5 and plain[0]["fair_komi_lo"] <= fair <= plain[0]["fair_komi_hi"]
    assert plain[0]["fair_komi_evens"] is True
    at_fair = run(fair, "fair")
    colours = {r["colour"]: r for r in tables_of(at_fair)["colours"]}
    assert colours["black"]["win_rate"] == pytest.approx(plain[0]["black_win_at_fair_rate"])
    assert colours["black"]["draws"] == 0
    again = tables_of(at_fair)["komi"][0]
    assert (again["komi"], again["fair_komi"], again["black_margin"]) == (fair, fair, plain[0]["black_margin"])


def test_polar_komi_table_says_when_a_seat_searches_with_the_komi(tmp_path):
    exp = Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("mcts:playouts=8", "random")),),
                     games=6, seed=2, shard_size=6)
    rows = tables_of(run_experiment(exp, str(tmp_path), workers=0).uri)["komi"]
    assert [r["players_see_komi"] for r in rows] == [True]


def test_an_unknown_table_offers_the_tables_computed_only_on_request_where_their_game_is():
    from pipelines.analyze import on_request_offered

    assert on_request_offered({"strategies": [], "opening_balance": []}) == ["openings"]     # a Polar run
    assert on_request_offered({"strategies": [], "red_losses": []}) == []                    # a Polarity run
    assert on_request_offered({"openings": [], "opening_balance": []}) == []                 # already there


def test_a_table_these_runs_cannot_fill_is_named_as_such_not_as_unknown(tmp_path):
    """Before: "unknown --table 'openings' (did you mean openings?)" on a Polarity run (a helper's audit)."""
    games, turns = polarity_rows()
    run = write_run(tmp_path, games, turns)
    res = runner.invoke(app, ["analyze", run, "--table", "openings"])
    assert res.exit_code == 2 and "'openings' has nothing to show for these runs" in res.output
    offered = res.output.split("choose from:")[1]
    assert "openings" not in offered and "attempts" in offered
