"""``analyze --by`` that pools games played under other rules says so (pipelines/pooling.py):
other knobs, an older polsim's default, an older physics; and not when the key keeps them apart."""

from __future__ import annotations

from typer.testing import CliRunner

import rules.polarity  # noqa: F401  (registers the game)
import tests.toygame  # noqa: F401  registers "toy"
from pipelines import manifest as mf
from pipelines.cli import app
from pipelines.pooling import mixed_rules_note
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment


def manifest(game="toy", variant="standard", package="0.22.0", physics="", seed=3, **overrides) -> dict:
    matchup = ("loaded", "fair") if game == "toy" else ("cautious", "aggressive")
    exp = Experiment(game=game, variant=variant, cells=(Cell(matchup=matchup, overrides=overrides),), games=4,
                     seed=seed, shard_size=2)
    return mf.new_manifest(exp, f"{game}-{variant}-{seed}-{sorted(overrides.items())}", package, physics)


def test_runs_of_other_knobs_pooled_by_a_game_level_key_are_named_with_the_keys_that_part_them():
    note = mixed_rules_note([manifest(), manifest(sides=20)], ["a", "b"], ["strategy"])
    assert note.startswith("the tables pool games played under other rules")
    assert "sides 6 in a, 20 in b" in note and "--by run_id or --by rule_sides" in note


def test_no_note_when_the_runs_play_the_same_rules_or_a_key_keeps_them_apart():
    assert mixed_rules_note([manifest(seed=20), manifest(seed=21)], ["a", "b"], ["variant"]) == ""
    assert mixed_rules_note([manifest(), manifest(sides=20)], ["a", "b"], ["strategy", "rule_sides"]) == ""
    assert mixed_rules_note([manifest(), manifest(sides=20)], ["a", "b"], ["run_id"]) == ""
    assert mixed_rules_note([manifest(), manifest(sides=20)], ["a", "b"], []) == ""  # kept apart by default
    assert mixed_rules_note([manifest(), manifest(sides=20)], ["a", "b"], ["strategy"], ["rule_sides=20"]) == ""


def test_a_run_of_an_older_polsim_is_pooled_under_its_default_then():
    """Seeds 20 and 21 pooled by variant, one made by polsim 0.21.0: its games were scored
    with the refilled stack (empty_stack_scoring's default before 0.22.0)."""
    old, new = manifest("polarity", package="0.21.0", seed=20), manifest("polarity", seed=21)
    note = mixed_rules_note([old, new], ["s20", "s21"], ["variant"])
    assert "empty_stack_scoring after_resolution in s20, when_emptied in s21" in note, note
    assert mixed_rules_note([old, new], ["s20", "s21"], ["package_version"]) == ""


def test_runs_of_other_physics_are_named_with_physics_version():
    note = mixed_rules_note([manifest("polarity", physics="0.19.0"), manifest("polarity", physics="0.20.0")],
                            ["a", "b"], ["strategy"])
    assert "physics 0.19.0 in a, 0.20.0 in b" in note and "--by physics_version" in note
    assert mixed_rules_note([manifest("polarity", physics="0.19.0"), manifest("polarity", physics="0.20.0")],
                            ["a", "b"], ["strategy", "physics_version"]) == ""


def test_analyze_prints_the_note_for_pooled_runs_of_other_rules(tmp_path):
    runs = []
    for sides in (6, 20):
        exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair"), overrides={"sides": sides}),),
                         games=20, seed=3, shard_size=10)
        runs.append(run_experiment(exp, str(tmp_path / f"d{sides}"), workers=0).uri)
    res = CliRunner().invoke(app, ["analyze", *runs, "--by", "strategy", "--table", "strategies"])
    assert res.exit_code == 0, res.output
    assert "note: the tables pool games played under other rules, which --by does not tell apart: sides 6 in" in res.output
    res = CliRunner().invoke(app, ["analyze", *runs, "--by", "strategy", "--by", "rule_sides", "--table", "strategies"])
    assert "other rules" not in res.output


def test_runs_of_two_games_kept_apart_by_game_need_no_note_and_pooled_name_the_knobs_one_lacks():
    polar = mf.new_manifest(Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("random", "random")),),
                                       games=2, seed=3, shard_size=2), "p", "0.22.0", "")
    assert mixed_rules_note([manifest(), polar], ["t", "p"], ["game"]) == ""
    assert "sides 6 in t, unset in p" in mixed_rules_note([manifest(), polar], ["t", "p"], ["strategy"])


def test_a_sweeps_cells_split_by_cell_need_no_note_and_pooled_by_strategy_are_named():
    exp = Experiment(game="toy", variant="standard", games=4, seed=3, shard_size=2,
                     cells=tuple(Cell(matchup=("loaded", "fair"), overrides={"sides": n}) for n in (6, 20)))
    sweep = mf.new_manifest(exp, "sweep", "0.22.0", "")
    assert mixed_rules_note([sweep], ["sweep"], ["cell"]) == ""
    assert mixed_rules_note([sweep], ["sweep"], ["cell_label", "strategy"]) == ""
    assert "sides 6 in sweep, 20 in sweep" in mixed_rules_note([sweep], ["sweep"], ["strategy"])
