"""The decision commands are registered, documented with an example, and
parse the issue's own sweep example."""

import pytest
from typer.testing import CliRunner

from pipelines.cli import app
from pipelines.sweep import sweep_experiment

runner = CliRunner()


@pytest.mark.parametrize("command", ["compare", "regress", "sweep", "tournament"])
def test_decision_command_has_one_line_help_and_an_example(command):
    listing = runner.invoke(app, ["--help"])
    assert listing.exit_code == 0 and command in listing.stdout
    res = runner.invoke(app, [command, "--help"])
    assert res.exit_code == 0, res.output
    assert "Example: polsim " + command in " ".join(res.stdout.split())


def test_issue_sweep_example_is_a_six_cell_grid_on_shared_seeds():
    pytest.importorskip("rules.polarity")
    exp = sweep_experiment("polarity", "standard", ["random", "random"],
                           ["foundations=3,5,7", "red_sudden_death=true,false"], 2000, 0, None)
    assert len(exp.cells) == 6 and exp.games == 2000
    assert {(c.overrides["foundations"], c.overrides["red_sudden_death"]) for c in exp.cells} == {
        (f, r) for f in (3, 5, 7) for r in (True, False)}
