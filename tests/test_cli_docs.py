"""Every command has a one-line help, an example, and a place in the README."""

from __future__ import annotations

import os
import shlex

import typer.main
from typer.testing import CliRunner

from pipelines.cli import app

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def commands() -> dict[str, object]:
    group = typer.main.get_command(app)
    return dict(group.commands)


def test_every_command_has_help_and_an_example():
    for name, cmd in commands().items():
        assert cmd.help and cmd.help.strip(), name
        assert "Example: polsim " + name in cmd.help, f"{name} help has no example"


def test_every_command_is_documented_in_readme():
    readme = open(os.path.join(ROOT, "README.md")).read()
    missing = [name for name in commands() if f"polsim {name}" not in readme]
    assert not missing, f"README does not show: {', '.join(missing)}"


def test_help_shows_no_value_for_flags():
    runner = CliRunner()
    for args in [[], *([name] for name in commands())]:
        res = runner.invoke(app, [*args, "--help"])
        assert res.exit_code == 0, res.output
        assert "<bool>" not in res.output, f"polsim {' '.join(args)} --help:\n{res.output}"
    simulate = runner.invoke(app, ["simulate", "--help"]).output
    assert "<int>" in simulate  # options that take a value still say what kind


def test_commands_that_decide_say_their_exit_codes_in_help():
    for name in ("compare", "regress", "replay", "selfcheck"):
        assert "exit 0" in " ".join(commands()[name].help.lower().split()), f"{name} help does not give its exit codes"


def test_sweep_and_tournament_seed_help_says_every_cell_plays_the_same_seeds():
    for name, group in (("sweep", "cell"), ("tournament", "pairing")):
        seed = next(p for p in commands()[name].params if p.name == "seed")
        assert f"the j-th game of each {group} uses (seed, j)" in seed.help, seed.help
        assert "game i" not in seed.help, seed.help


def example_args(name: str) -> list[str]:
    """The arguments of the example in ``polsim name --help``."""
    example = " ".join(commands()[name].help.split()).split(f"Example: polsim {name} ", 1)[1]
    return shlex.split(example)


def test_sweep_example_is_a_valid_sweep_that_takes_under_a_cpu_hour():
    from pipelines.cli import game_defaults
    from pipelines.sweep import sweep_experiment

    p = commands()["sweep"].make_context("sweep", example_args("sweep")).params
    matchup, games = game_defaults(p["game"], p["strategies"], p["games"])
    exp = sweep_experiment(p["game"], p["variant"], matchup, p["sets"], games, p["seed"], p["shard_size"])
    short = all(int(c.overrides.get("stack_size", 99)) <= 8 for c in exp.cells)
    cpu_seconds_a_game = 0.01 if exp.game == "polar" else 1.5 if short else 30  # README's Polarity figures
    assert exp.total_games * cpu_seconds_a_game < 3600, f"{exp.total_games} games"
