"""The run path in-process: seeds, shards, manifests, resume, bad input."""

from __future__ import annotations

import json
import os
import platform

import numba
import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

runner = CliRunner()


def toy(games=40, seed=3, shard_size=7, matchup=("loaded", "fair"), **over):
    return Experiment(game="toy", variant="standard", cells=(Cell(matchup=matchup, overrides=over),),
                      games=games, seed=seed, shard_size=shard_size)


def table(path):
    t = pq.read_table(path)
    return t.drop_columns(["run_id"]).sort_by("game_index")


def content(run_dir, kind="games"):
    t = pq.ParquetDataset(os.path.join(run_dir, kind)).read()
    return t.drop_columns(["run_id"]).sort_by([("game_index", "ascending")] + ([("turn", "ascending")] if kind == "turns" else []))


def test_results_do_not_depend_on_shard_size(tmp_path):
    a = run_experiment(toy(shard_size=7), str(tmp_path / "a"), workers=0)
    b = run_experiment(toy(shard_size=40), str(tmp_path / "b"), workers=0)
    assert a.status == b.status == "complete"
    assert content(a.uri).equals(content(b.uri))
    assert content(a.uri, "turns").equals(content(b.uri, "turns"))


def test_each_strategy_plays_each_seat_in_half_the_games(tmp_path):
    res = run_experiment(toy(games=40), str(tmp_path), workers=0)
    g = content(res.uri).to_pydict()
    assert g["strategy_0"].count("loaded") == 20 and g["strategy_1"].count("loaded") == 20


def test_an_odd_game_count_says_how_the_seats_split(tmp_path):
    res = runner.invoke(app, ["simulate", "--game", "toy", "--strategies", "loaded,fair", "--games", "5",
                              "--workers", "0", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "note: 5 games cannot split the seats evenly: loaded plays seat 0 in 3 and seat 1 in 2" in res.output
    g = content(str(next(tmp_path.iterdir()))).to_pydict()
    assert g["strategy_0"].count("loaded") == 3                    # what the note says
    even = runner.invoke(app, ["simulate", "--game", "toy", "--strategies", "loaded,fair", "--games", "4",
                               "--workers", "0", "--out", str(tmp_path / "even")])
    assert even.exit_code == 0 and "note:" not in even.output


def test_rows_carry_identity_columns(tmp_path):
    res = run_experiment(toy(games=10), str(tmp_path), workers=0)
    g = content(res.uri)
    for col in ("game_seed", "game", "variant", "variant_hash", "strategy_0", "strategy_1",
                "package_version", "physics_version", "rule_sides", "rule_rounds", "seed_index"):
        assert col in g.column_names
    assert len(set(g["game_seed"].to_pylist())) == 10


def test_manifest_records_spec_shards_and_status(tmp_path):
    res = run_experiment(toy(games=20, shard_size=6), str(tmp_path), workers=0)
    m = json.loads(open(os.path.join(res.uri, "manifest.json")).read())
    assert m["status"] == "complete" and m["games_done"] == 20
    assert [s[2] for s in m["shards"]] == [6, 6, 6, 2]
    assert m["spec"]["game"] == "toy" and m["package_version"]
    env = m["environment"]
    assert env["packages"]["numpy"] == np.__version__ and env["packages"]["numba"] == numba.__version__
    assert env["python"] == platform.python_version() and env["machine"] == platform.machine()


def test_failing_game_is_recorded_and_run_goes_on(tmp_path):
    res = run_experiment(toy(games=12, matchup=("crash:every=4", "fair")), str(tmp_path), workers=0)
    g = content(res.uri).to_pydict()
    failed = [i for i, s in zip(g["game_index"], g["status"]) if s == "error"]
    assert failed == [0, 4, 8] and res.games_failed == 3
    assert all("crash strategy failed" in g["error"][i] for i in failed)
    assert len(g["game_index"]) == 12


def test_resume_skips_finished_shards_and_equals_uninterrupted_run(tmp_path):
    full = run_experiment(toy(games=30, shard_size=5), str(tmp_path / "full"), workers=0)
    part = run_experiment(toy(games=30, shard_size=5), str(tmp_path / "part"), workers=0)
    for shard in (1, 4):
        os.remove(os.path.join(part.uri, "games", f"shard-{shard:05d}.parquet"))
    again = run_experiment(toy(games=30, shard_size=5), str(tmp_path / "part"), workers=0, resume=True)
    assert again.shards_skipped == 4 and again.status == "complete"
    assert content(again.uri).equals(content(full.uri))


def test_a_resumed_run_counts_the_failures_of_the_shards_it_skipped(tmp_path):
    crashy = toy(games=12, shard_size=4, matchup=("crash:every=4", "fair"))  # one failed game per shard
    first = run_experiment(crashy, str(tmp_path), workers=0)
    os.remove(os.path.join(first.uri, "games", "shard-00002.parquet"))
    again = run_experiment(crashy, str(tmp_path), workers=0, resume=True)
    assert (again.shards_skipped, again.games_done, again.games_failed) == (2, 12, 3)
    manifest = json.loads(open(os.path.join(again.uri, "manifest.json")).read())
    assert (manifest["status"], manifest["games_failed"]) == ("complete", 3)


def test_resuming_a_complete_run_with_failed_games_still_exits_3(tmp_path):
    args = ["simulate", "--game", "toy", "--strategies", "crash:every=4,fair", "--games", "12", "--shard-size", "4",
            "--out", str(tmp_path), "--run-id", "r", "--workers", "0", "--quiet"]
    assert runner.invoke(app, args).exit_code == 3
    again = runner.invoke(app, args + ["--resume"])
    assert again.exit_code == 3, again.output
    assert "3 of 12 games failed" in again.output


def test_existing_run_without_resume_or_overwrite_is_refused(tmp_path):
    args = ["simulate", "--game", "toy", "--strategies", "fair,loaded", "--games", "4",
            "--out", str(tmp_path), "--workers", "0", "--quiet"]
    assert runner.invoke(app, args).exit_code == 0
    second = runner.invoke(app, args)
    assert second.exit_code == 2 and "already exists" in second.output
    assert runner.invoke(app, args + ["--overwrite"]).exit_code == 0


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--game", "nosuch"], "unknown game"),
        (["--variant", "nosuch"], "unknown variant"),
        (["--strategies", "fair,nosuch"], "unknown strategy"),
        (["--strategies", "loaded:bonus=-1,fair"], "bad parameter bonus"),
        (["--strategies", "loaded:wat=1,fair"], "unknown parameter wat; parameters: bonus"),
        (["--strategies", "loaded:bonu=1,fair"], "unknown parameter bonu (did you mean bonus?)"),
        (["--games", "0"], "--games must be at least 1"),
        (["--set", "nosuch=1"], "unknown knob 'nosuch' for toy; knobs:"),
        (["--set", "side=6"], "unknown knob 'side' for toy (did you mean sides?)"),
        (["--set", "sides=1"], "bad value for knob sides"),
        (["--strategies", "fair"], "two strategies"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, extra, message):
    out = tmp_path / "out"
    base = {"--game": "toy", "--strategies": "fair,loaded", "--games": "4"}
    for flag, value in zip(extra[::2], extra[1::2]):
        base[flag] = value
    args = ["simulate", *sum(([k, v] for k, v in base.items()), []), "--out", str(out), "--workers", "0", "--quiet"]
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_unwritable_out_is_a_usage_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    res = runner.invoke(app, ["simulate", "--game", "toy", "--strategies", "fair,fair", "--games", "2",
                              "--out", str(blocker / "sub"), "--workers", "0", "--quiet"])
    assert res.exit_code == 2 and "cannot write to --out" in res.output


def test_analyze_reports_wins_with_intervals(tmp_path):
    res = run_experiment(toy(games=200, matchup=("loaded:bonus=2", "fair")), str(tmp_path), workers=0)
    out = runner.invoke(app, ["analyze", res.uri, "--format", "json"])
    assert out.exit_code == 0, out.output
    tables = json.loads(out.output)
    rows = {r["strategy"]: r for r in tables["strategies"]}
    loaded, fair = rows["loaded:bonus=2"], rows["fair"]
    assert loaded["games"] == fair["games"] == 200
    assert loaded["wins"] == fair["losses"] and loaded["draws"] == fair["draws"]
    assert loaded["win_lo"] < loaded["win_rate"] < loaded["win_hi"]
    assert loaded["win_lo"] > 0.5  # a +2 bonus over 3 rounds wins clearly
    assert {r["seat"] for r in tables["seats"]} == {0, 1}


def test_analyze_where_values_are_parameters_not_sql(tmp_path):
    res = run_experiment(toy(games=10), str(tmp_path), workers=0)
    out = runner.invoke(app, ["analyze", res.uri, "--where", "variant=x' OR '1'='1", "--format", "json"])
    assert out.exit_code == 2 and "no games match" in out.output, out.output  # matched nothing: not SQL
    bad = runner.invoke(app, ["analyze", res.uri, "--where", "nosuch=1"])
    assert bad.exit_code == 2 and "unknown column" in bad.output


def test_analyze_of_a_folder_that_is_not_a_run_is_a_usage_error(tmp_path):
    res = runner.invoke(app, ["analyze", str(tmp_path)])
    assert res.exit_code == 2 and "not a polsim run" in res.output


def test_analyze_of_the_out_folder_names_the_runs_it_holds(tmp_path):
    first = run_experiment(toy(games=4), str(tmp_path), workers=0)
    res = runner.invoke(app, ["analyze", str(tmp_path)])
    assert res.exit_code == 2 and f"holds 1 run ({first.uri}): give one of them" in res.output
    second = run_experiment(toy(games=4, seed=9), str(tmp_path), workers=0)
    res = runner.invoke(app, ["analyze", str(tmp_path)])
    assert res.exit_code == 2 and "holds 2 runs" in res.output
    assert first.uri in res.output and second.uri in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_analyze_points_at_failed_games_with_their_replay_command(tmp_path):
    res = run_experiment(toy(games=12, matchup=("crash:every=4", "fair")), str(tmp_path), workers=0)
    out = runner.invoke(app, ["analyze", res.uri, "--format", "json"])
    assert out.exit_code == 0, out.output
    tables = json.loads(out.stdout)  # notes go to stderr
    (failure,) = tables["failures"]
    assert failure["games"] == 3 and failure["replay"] == f"polsim replay {res.uri} --game 0"
    assert "3 of 12 games failed or have no result" in out.stderr
    assert all(r["replay"].startswith("polsim replay ") for r in tables["end_reasons"])


def polar(games=30, shard_size=7, seed=5):
    return Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("greedy", "random")),),
                      games=games, seed=seed, shard_size=shard_size)


def test_replay_commands_in_a_table_80_columns_wide_are_printed_whole(tmp_path, monkeypatch):
    from pipelines import cli

    monkeypatch.setattr(cli.out_console, "_width", 80)
    out = tmp_path / "a-folder-whose-name-makes-every-replay-command-wider-than-eighty-columns"
    res = run_experiment(polar(games=6, shard_size=6), str(out), workers=0)
    as_json = runner.invoke(app, ["analyze", res.uri, "--table", "end_reasons", "--format", "json"])
    commands = [r["replay"] for r in json.loads(as_json.stdout)["end_reasons"]]
    assert commands and all(len(c) > 80 for c in commands)
    shown = runner.invoke(app, ["analyze", res.uri, "--table", "end_reasons"])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert all(any(line.endswith(c) for line in lines) for c in commands), shown.stdout
    assert all(len(line) <= 80 for line in lines if "polsim replay" not in line), shown.stdout


def test_polar_results_do_not_depend_on_shard_size(tmp_path):
    a = run_experiment(polar(shard_size=7), str(tmp_path / "a"), workers=0)
    b = run_experiment(polar(shard_size=30), str(tmp_path / "b"), workers=0)
    assert content(a.uri).equals(content(b.uri))
    assert content(a.uri, "turns").equals(content(b.uri, "turns"))


def test_stored_string_columns_read_back_as_plain_strings(tmp_path):
    """Workers build repeated strings as dictionary arrays; the files hold plain strings."""
    import pyarrow as pa

    res = run_experiment(polar(games=6, shard_size=6), str(tmp_path), workers=0)
    games = pq.read_table(os.path.join(res.uri, "games", "shard-00000.parquet"))
    turns = pq.read_table(os.path.join(res.uri, "turns", "shard-00000.parquet"))
    for name in ("run_id", "strategy_0", "cell_label", "status", "colour_0", "end_reason"):
        assert games.schema.field(name).type == pa.string()
    assert turns.schema.field("colour").type == pa.string() and turns.schema.field("run_id").type == pa.string()
    assert set(games["strategy_0"].to_pylist()) == {"greedy", "random"}
    assert games["seed_index"].to_pylist() == list(range(6))


def test_polar_turns_are_stored_with_the_games_parquet_layout_and_read_back_unchanged(tmp_path):
    """Polar names a cheaper encoding per turns column; the file uses it and
    holds exactly the played rows (same types, same values)."""
    from rules.base import get_game
    from workers.shard import parquet_layout, play_games

    exp = polar(games=12, shard_size=12)
    res = run_experiment(exp, str(tmp_path), workers=0)
    path = os.path.join(res.uri, "turns", "shard-00000.parquet")
    stored = pq.read_table(path)
    played = play_games(exp, res.run_id, 0, 12).turns
    assert stored.column_names == played.column_names
    for name in stored.column_names:
        assert stored[name].to_pylist() == played[name].to_pylist(), name
    layout = parquet_layout(get_game("polar"), "turns")
    meta = pq.ParquetFile(path).metadata.row_group(0)
    encodings = {meta.column(i).path_in_schema: meta.column(i).encodings for i in range(meta.num_columns)}
    assert "DELTA_BINARY_PACKED" in encodings["x"]
    assert "BYTE_STREAM_SPLIT" in encodings["point"] and "BYTE_STREAM_SPLIT" in encodings["score_0"]
    schema = pq.ParquetFile(path).schema_arrow  # no definition levels: every Polar turns column is required
    assert [f.name for f in schema if f.nullable and f.name != "run_id"] == []
    assert all(("RLE_DICTIONARY" in encodings[name]) == (enc == "DICTIONARY") for name, (enc, _) in layout.items())
    assert "RLE_DICTIONARY" in encodings["colour"]  # not in the layout: the default


def test_unknown_parquet_encoding_in_a_layout_is_refused(tmp_path):
    import pyarrow as pa

    from pipelines.storage import locate, write_table_atomic

    with pytest.raises(ValueError, match="unknown Parquet encoding 'DELTA'"):
        write_table_atomic(locate(str(tmp_path)).child("t.parquet"), pa.table({"a": [1]}), {"a": ("DELTA", "lz4")})
    assert os.listdir(tmp_path) == []


def test_a_local_file_reaches_the_disk_before_it_is_renamed_into_place(tmp_path, monkeypatch):
    """Else a crash soon after the rename can leave a shard that exists but is empty."""
    from pipelines.storage import locate, write_bytes_atomic

    calls, real_fsync, real_replace = [], os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(("fsync", os.readlink(f"/proc/self/fd/{fd}"))) or real_fsync(fd))
    monkeypatch.setattr(os, "replace", lambda a, b: calls.append(("replace", a, b)) or real_replace(a, b))
    write_bytes_atomic(locate(str(tmp_path)).child("games", "shard-00000.parquet"), b"data")
    (fsync, synced), replaced = calls
    assert fsync == "fsync" and replaced == ("replace", synced, str(tmp_path / "games" / "shard-00000.parquet"))
    assert os.listdir(tmp_path / "games") == ["shard-00000.parquet"]


@pytest.mark.parametrize("game, note", [("polar", "seats (seat 0 proposes the opening)"),
                                        ("toy", "seats (seat 0 moves first)")])     # the default note
def test_the_summary_says_what_seat_0_is_in_the_game_played(tmp_path, game, note):
    """Polar's seat 0 proposes the opening and may not move first (P2): the summary's
    seat table says what seat 0 is, from the game's registration."""
    res = runner.invoke(app, ["simulate", "--game", game, "--strategies", "random,random" if game == "polar" else
                              "loaded,fair", "--games", "4", "--workers", "0", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert note in res.output.replace("\n", " ")


def test_a_report_says_what_seat_0_is_in_each_game():
    from pipelines.report import seat_note

    assert seat_note("polarity") == "seat 0 plays White and moves first"
    assert seat_note("polar, polarity") == ("polar: seat 0 proposes the opening; "
                                            "polarity: seat 0 plays White and moves first")


def test_self_play_says_the_strategies_table_counts_each_game_twice(tmp_path):
    """random vs random: the strategies table has one row, 2 x games (once per seat); a note
    says so in the summary and in analyze (a docs audit found it unexplained)."""
    res = runner.invoke(app, ["simulate", "--game", "polar", "--strategies", "random,random", "--games", "6",
                              "--workers", "0", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    note = "random plays itself: the strategies table counts each such game once for each seat, so twice"
    assert note in " ".join(res.output.split())
    (run,) = tmp_path.iterdir()
    again = runner.invoke(app, ["analyze", str(run), "--table", "strategies", "--format", "json"])
    assert again.exit_code == 0 and note in " ".join(again.stderr.split())
    assert json.loads(again.stdout)["strategies"][0]["games"] == 12
    other = runner.invoke(app, ["simulate", "--game", "toy", "--strategies", "loaded,fair", "--games", "4",
                                "--workers", "0", "--out", str(tmp_path / "two")])
    assert other.exit_code == 0 and "plays itself" not in other.output
