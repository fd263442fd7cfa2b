"""``polsim replay``: exit 0 and the page and image written when a game
reproduces; a tampered stored row or turn is a loud reproducibility failure
(exit 1) naming the column; bad input is one line with exit 2."""

from __future__ import annotations

import glob
import shutil

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from pipelines.cli import app
from pipelines.replay import replay
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

runner = CliRunner()


@pytest.fixture(scope="module")
def polar_run(tmp_path_factory):
    exp = Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("greedy", "random")),),
                     games=8, seed=4, shard_size=3)
    return run_experiment(exp, str(tmp_path_factory.mktemp("runs")), workers=0).uri


def tampered_copy(uri: str, dest, table: str, game: int, column: str, change) -> str:
    """A copy of the run whose stored ``table`` rows of ``game`` have ``column`` changed
    (the first matching row only for ``turns``)."""
    copy = str(dest / "copy")
    shutil.copytree(uri, copy)
    for path in sorted(glob.glob(f"{copy}/{table}/*.parquet")):
        t = pq.read_table(path)
        rows = t.to_pylist()
        hits = [i for i, r in enumerate(rows) if r["game_index"] == game]
        if hits:
            rows[hits[0]][column] = change(rows[hits[0]][column])
            pq.write_table(t.from_pylist(rows, schema=t.schema), path)
            return copy
    raise AssertionError(f"game {game} not found in {table}")


def test_a_reproduced_game_exits_0_and_writes_the_page_and_the_image(polar_run, tmp_path):
    page, png = tmp_path / "g.html", tmp_path / "g.png"
    result = runner.invoke(app, ["replay", polar_run, "--game", "5", "--out", str(page), "--png", str(png), "--turn", "12"])
    assert result.exit_code == 0, result.output
    assert "reproduced: game 5" in result.output and "(turn 12)" in result.output
    assert page.read_text().startswith("<!DOCTYPE html>") and '"game_index":5' in page.read_text()
    import matplotlib.image

    image = matplotlib.image.imread(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and image.shape[0] > 300 and image.shape[1] > 300


def test_a_tampered_stored_score_is_a_reproducibility_failure(polar_run, tmp_path):
    copy = tampered_copy(polar_run, tmp_path, "games", 4, "score_0", lambda v: v + 1)
    rep = replay(copy, 4)
    assert not rep.reproduced and [d.column for d in rep.differences] == ["score_0"]
    assert rep.differences[0].replayed == rep.differences[0].stored - 1
    result = runner.invoke(app, ["replay", copy, "--game", "4"])
    assert result.exit_code == 1
    assert "REPRODUCIBILITY FAILURE" in result.output and "score_0" in result.output
    assert runner.invoke(app, ["replay", copy, "--game", "3"]).exit_code == 0  # the other games still reproduce


def test_a_tampered_stored_move_is_a_reproducibility_failure(polar_run, tmp_path):
    copy = tampered_copy(polar_run, tmp_path, "turns", 6, "n_legal", lambda v: v + 3)
    rep = replay(copy, 6)
    assert [d.column for d in rep.differences] == ["turns[0].n_legal"]
    result = runner.invoke(app, ["replay", copy, "--game", "6", "--out", str(tmp_path / "bad.html")])
    assert result.exit_code == 1 and "turns[0].n_legal" in result.output
    assert "REPRODUCIBILITY FAILURE" in (tmp_path / "bad.html").read_text()


def dropped_column_copy(uri: str, dest, table: str, column: str) -> str:
    """A copy of the run with ``column`` left out of every ``table`` shard."""
    copy = str(dest / "copy")
    shutil.copytree(uri, copy)
    for path in glob.glob(f"{copy}/{table}/*.parquet"):
        pq.write_table(pq.read_table(path).drop_columns([column]), path)
    return copy


def test_a_column_dropped_from_the_stored_games_is_a_reproducibility_failure(polar_run, tmp_path):
    copy = dropped_column_copy(polar_run, tmp_path, "games", "winner")
    rep = replay(copy, 4)
    assert [(d.column, d.stored) for d in rep.differences] == [("winner", "<absent>")]
    result = runner.invoke(app, ["replay", copy, "--game", "4"])
    assert result.exit_code == 1 and "REPRODUCIBILITY FAILURE" in result.output and "winner" in result.output


def test_a_column_dropped_from_the_stored_turns_is_a_reproducibility_failure(polar_run, tmp_path):
    copy = dropped_column_copy(polar_run, tmp_path, "turns", "score_0")
    rep = replay(copy, 4)
    assert rep.differences and {d.column.split(".")[-1] for d in rep.differences} == {"score_0"}
    assert len(rep.differences) == len(rep.replayed_turns)  # one per turn
    assert runner.invoke(app, ["replay", copy, "--game", "4"]).exit_code == 1


def test_a_tampered_seed_is_a_reproducibility_failure(polar_run, tmp_path):
    copy = tampered_copy(polar_run, tmp_path, "games", 2, "game_seed", lambda v: v + 1)
    assert "game_seed" in [d.column for d in replay(copy, 2).differences]


@pytest.mark.parametrize("args, message", [
    (["--game", "8"], "out of range"),
    (["--game", "-1"], "out of range"),
    (["--game", "1", "--png", "x.png", "--turn", "500"], "--turn 500 is out of range"),
    (["--game", "1", "--turn", "3"], "add --png FILE"),          # it was ignored without a word
])
def test_bad_input_is_one_line_and_exit_2(polar_run, tmp_path, args, message):
    result = runner.invoke(app, ["replay", polar_run, *[a.replace("x.png", str(tmp_path / "x.png")) for a in args]])
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_folder_that_is_not_a_run_is_exit_2(tmp_path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["replay", str(tmp_path / "empty"), "--game", "0"])
    assert result.exit_code == 2 and "not a polsim run" in result.output
    missing = runner.invoke(app, ["replay", str(tmp_path / "nothing"), "--game", "0"])
    assert missing.exit_code == 2 and "there is no folder" in missing.output


def test_a_game_whose_shard_is_missing_is_exit_2(polar_run, tmp_path):
    copy = str(tmp_path / "copy")
    shutil.copytree(polar_run, copy)
    (tmp_path / "copy" / "games" / "shard-00001.parquet").unlink()  # games 3..5
    result = runner.invoke(app, ["replay", copy, "--game", "4"])
    assert result.exit_code == 2 and "not stored yet" in result.output
    assert runner.invoke(app, ["replay", copy, "--game", "6"]).exit_code == 0


def test_a_game_whose_turns_file_is_missing_is_exit_2_not_a_reproducibility_failure(polar_run, tmp_path):
    """Before: exit 1, "REPRODUCIBILITY FAILURE ... turns.rows stored 0", blaming the code for a lost file."""
    copy = str(tmp_path / "copy")
    shutil.copytree(polar_run, copy)
    (tmp_path / "copy" / "turns" / "shard-00001.parquet").unlink()  # games 3..5
    result = runner.invoke(app, ["replay", copy, "--game", "4"])
    assert result.exit_code == 2 and "turns/shard-00001.parquet is missing" in " ".join(result.output.split())
    assert runner.invoke(app, ["replay", copy, "--game", "6"]).exit_code == 0


def test_any_registered_game_replays_and_a_failed_game_reproduces_its_error(tmp_path):
    import tests.toygame  # noqa: F401  (registers "toy": a game with no trace)

    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("crash:every=2", "fair")),),
                     games=4, seed=9, shard_size=4)
    uri = run_experiment(exp, str(tmp_path), workers=0).uri
    failed = replay(uri, 2)
    assert failed.reproduced and failed.stored["status"] == "error" and "crash" in failed.stored["error"]
    assert replay(uri, 1).reproduced and replay(uri, 1).stored["status"] == "ok"
    result = runner.invoke(app, ["replay", uri, "--game", "1", "--out", str(tmp_path / "toy.html")])
    assert result.exit_code == 2 and "cannot be shown turn by turn" in result.output


def test_the_summary_writes_negative_scores_apart(polar_run):
    """A Polarity game can end with both scores below zero: '-12.0--10.0' read as a range."""
    rep = replay(polar_run, 2)
    rep.stored = {**rep.stored, "score_0": -12.0, "score_1": -10.5}
    assert "scores -12 – -10.5," in rep.summary()
    rep.stored = {**rep.stored, "score_0": None, "score_1": None}  # a game that failed
    assert "scores none – none," in rep.summary()


def test_a_run_made_by_another_polsim_reproduces_and_the_summary_names_both_versions(polar_run, tmp_path):
    copy = tampered_copy(polar_run, tmp_path, "games", 2, "package_version", lambda v: "0.0.1")
    rep = replay(copy, 2)
    assert rep.reproduced and rep.made_by == "0.0.1"
    assert f"made by polsim 0.0.1, replayed by {rep.replayed['package_version']}" in rep.summary()
    result = runner.invoke(app, ["replay", copy, "--game", "2"])
    assert result.exit_code == 0 and "made by polsim 0.0.1" in result.output


def test_a_run_made_by_another_polsim_that_plays_differently_is_a_failure_naming_that_polsim(polar_run, tmp_path):
    copy = tampered_copy(polar_run, tmp_path, "games", 2, "package_version", lambda v: "0.0.1")
    copy = tampered_copy(copy, tmp_path / "again", "games", 2, "score_1", lambda v: v + 1)
    rep = replay(copy, 2)
    assert [d.column for d in rep.differences] == ["score_1"]
    assert "the run was made by polsim 0.0.1" in rep.failure_message()


def test_a_stored_row_without_its_package_version_is_a_difference(polar_run, tmp_path):
    copy = dropped_column_copy(polar_run, tmp_path, "games", "package_version")
    assert "package_version" in [d.column for d in replay(copy, 1).differences]
