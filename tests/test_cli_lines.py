"""The lines polsim prints about the user's own input and runs show them as given:
whole, on one line however long, and never read as rich markup (``runs[old]``
would lose ``[old]``; an error about ``fair[x]`` would name ``fair``)."""

from __future__ import annotations

from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

runner = CliRunner()


def run_into_a_long_bracketed_folder(tmp_path, args: list[str], exit_code: int) -> tuple[str, str]:
    """``polsim args --out <a folder over 100 characters long, ending runs[old]>``: its output and the run's path."""
    out = tmp_path / ("a-long-folder-name-" * 5) / "runs[old]"
    res = runner.invoke(app, [*args, "--out", str(out), "--workers", "0"])
    assert res.exit_code == exit_code, res.output
    return res.output, str(next(out.iterdir()))


def the_line(output: str, start: str, end: str) -> str:
    """The one output line that starts with ``start`` and ends with ``end``."""
    lines = [line for line in output.splitlines() if line.startswith(start) and line.endswith(end)]
    assert len(lines) == 1, output
    return lines[0]


def test_an_error_names_a_bracketed_strategy_as_given(tmp_path):
    res = runner.invoke(app, ["simulate", "--game", "toy", "--strategies", "fair[x],loaded", "--games", "4",
                              "--out", str(tmp_path), "--workers", "0", "--quiet"])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: unknown strategy 'fair[x]' for toy; choose one of:"), lines


def test_an_error_names_a_bracketed_path_as_given(tmp_path):
    missing = tmp_path / "no[such]"
    res = runner.invoke(app, ["analyze", str(missing)])
    assert res.exit_code == 2, res.output
    assert res.output.strip().splitlines() == [
        f"error: there is no folder {missing}; give the folder of one run (simulate prints it)"], res.output


def test_the_run_line_names_its_folder_whole_on_one_line_however_long_or_bracketed(tmp_path):
    output, uri = run_into_a_long_bracketed_folder(
        tmp_path, ["simulate", "--game", "toy", "--strategies", "loaded,fair", "--games", "4"], exit_code=0)
    assert len(uri) > 120
    the_line(output, "run ", f"→ {uri}")


def test_the_sweep_names_its_run_folder_whole_on_one_line(tmp_path):
    output, uri = run_into_a_long_bracketed_folder(
        tmp_path, ["sweep", "--game", "toy", "--strategies", "fair,fair", "--set", "sides=5,6", "--games", "20"],
        exit_code=0)
    the_line(output, "run ", f"→ {uri}")


def test_the_tournament_line_names_its_run_whole(tmp_path):
    output, uri = run_into_a_long_bracketed_folder(
        tmp_path, ["tournament", "--game", "toy", "-s", "fair,loaded", "--games", "4", "-q"], exit_code=0)
    assert len(uri) > 120
    the_line(output, "run ", f"→ {uri}")


def test_the_regress_decision_line_names_the_candidate_run_whole(tmp_path):
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair")),), games=20, seed=3,
                     shard_size=10)
    base = run_experiment(exp, str(tmp_path / "base"), workers=0).uri
    output, uri = run_into_a_long_bracketed_folder(tmp_path, ["regress", base, "--batch", "10", "-q"],
                                                   exit_code=3)  # 20 games decide nothing
    assert "SPRT decision: undecided after 20 paired games" in the_line(output, "SPRT decision: ", f"→ {uri}")


def test_the_failed_games_line_names_the_run_whole(tmp_path):
    output, uri = run_into_a_long_bracketed_folder(
        tmp_path, ["simulate", "--game", "toy", "--strategies", "fair,crash:every=5", "--games", "20", "-q"],
        exit_code=3)
    the_line(output, "4 of 20 games failed (status 'error'); ", f"`polsim analyze {uri} --table failures`")


def test_the_interrupted_line_names_its_run_whole(tmp_path, monkeypatch):
    monkeypatch.setenv("POLSIM_TOY_SIGNAL", "SIGINT")
    run_id = "a-long-run-name-" * 5 + "[old]"
    res = runner.invoke(app, ["simulate", "--game", "toy", "--strategies", "signal:at=9,fair", "--games", "20",
                              "--seed", "9", "--shard-size", "4", "--out", str(tmp_path), "--run-id", run_id,
                              "--workers", "0", "--quiet"])
    assert res.exit_code == 130, res.output
    assert (f"run {run_id} interrupted: 8/20 games kept; finish it with the same command and --resume"
            in res.output.splitlines()), res.output
