"""``--format json``: every command that has it writes one strict JSON
document (RFC 8259) on stdout — no ``Infinity`` or ``NaN`` (a number that
is not finite is ``null``), no text line after it."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

runner = CliRunner()


def strict(text: str):
    def refuse(constant):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def toy_run(folder, games=200, sides=6):
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair"),
                                                                 overrides={"sides": sides}),),
                     games=games, seed=5, shard_size=100)
    return run_experiment(exp, str(folder), workers=0).uri


def test_a_tournament_with_a_zero_score_writes_null_not_minus_infinity(tmp_path):
    res = runner.invoke(app, ["tournament", "--game", "toy", "-s", "fair,loaded:bonus=100", "--games", "20",
                              "--out", str(tmp_path), "--workers", "0", "-q", "--format", "json"])
    assert res.exit_code == 0, res.output
    pair = strict(res.stdout)["pairings"][0]
    assert pair["score_rate"] == 0 and pair["elo_diff"] is None and pair["elo_lo"] is None


def test_ratings_of_one_sided_runs_write_null_and_finite_per_run_ratings(tmp_path):
    for seed in (1, 2):
        res = runner.invoke(app, ["tournament", "--game", "toy", "-s", "fair,loaded:bonus=100", "--games", "20",
                                  "--seed", str(seed), "--out", str(tmp_path / str(seed)), "--workers", "0", "-q",
                                  "--format", "json"])
        assert res.exit_code == 0, res.output
    runs = [str(next((tmp_path / str(seed)).iterdir())) for seed in (1, 2)]
    res = runner.invoke(app, ["ratings", *runs, "--format", "json"])
    assert res.exit_code == 0, res.output
    report = strict(res.stdout)
    assert report["pairings"][0]["elo_diff"] is None
    assert len(report["by_run"]) == 4 and all(r["elo"] is not None for r in report["by_run"])
    assert "virtual draw" in res.stderr
    assert "not tested: in seed 1 some strategy never scored against the others" in res.stderr


def test_regress_json_is_one_document_with_the_sprt_decision_in_it(tmp_path):
    base = toy_run(tmp_path / "base", games=400)
    res = runner.invoke(app, ["regress", base, "--out", str(tmp_path / "cand"), "--workers", "0", "-q",
                              "--batch", "200", "--format", "json"])
    assert res.exit_code == 0, res.output
    sprt = strict(res.stdout)["sprt"][0]
    assert sprt["decision"] == "unchanged" and sprt["flagged"] is False and sprt["pairs"] == 200
    assert "SPRT decision: unchanged" in res.stderr


@pytest.mark.parametrize("command", [
    ["variants"],
    ["strategies"],
    ["analyze", "{a}"],
    ["analyze", "{a}", "{b}", "--by", "variant"],
    ["compare", "{a}", "{b}"],
    ["sweep", "--game", "toy", "-s", "fair,loaded", "--set", "sides=4,6", "--games", "40", "--out", "{tmp}",
     "--workers", "0", "-q"],
    ["tournament", "--game", "toy", "-s", "fair,loaded", "--games", "40", "--out", "{tmp}", "--workers", "0", "-q"],
], ids=lambda command: " ".join(command[:4]))
def test_every_json_output_is_strict_json(tmp_path, command):
    a = toy_run(tmp_path / "a")
    b = toy_run(tmp_path / "b", sides=8)
    args = [c.format(a=a, b=b, tmp=tmp_path / "out") for c in command]
    res = runner.invoke(app, [*args, "--format", "json"])
    assert res.exit_code in (0, 1), res.output  # compare exits 1 when the runs differ
    assert isinstance(strict(res.stdout), dict)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_compare_json_and_csv_give_the_verdict_line_on_stderr(tmp_path, fmt):
    a, b = toy_run(tmp_path / "a"), toy_run(tmp_path / "b", sides=12)
    res = runner.invoke(app, ["compare", a, b, "--show", "1", "--format", fmt])
    assert res.exit_code == 1, res.output
    assert "CHANGED:" in res.stderr and "paired games changed winner" in res.stderr
    assert "more changed games (--show to list more)" in res.stderr
    assert "changed winner" not in res.stdout and "--show" not in res.stdout
    if fmt == "json":
        assert len(strict(res.stdout)["changed_games"]) == 1
