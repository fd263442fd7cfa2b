"""Every command has a one-line help, an example, and a place in the README."""

from __future__ import annotations

import os

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
