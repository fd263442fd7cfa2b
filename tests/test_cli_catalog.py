"""`polsim variants` and `polsim strategies` list what exists."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pipelines.cli import app
from rules.base import all_games

runner = CliRunner()


def test_variants_lists_every_named_variant_and_knob_of_every_game():
    out = runner.invoke(app, ["variants", "--format", "json"])
    assert out.exit_code == 0, out.output
    tables = json.loads(out.output)
    listed = {(r["game"], r["variant"]) for r in tables["variants"]}
    knobs = {(r["game"], r["knob"]) for r in tables["knobs (--set key=value)"]}
    for name, game in all_games().items():
        assert {(name, v) for v in game.variants()} <= listed
        assert {(name, k) for k in game.rules_model.model_fields} <= knobs
    defaults = [r for r in tables["variants"] if r["default"] == "yes"]
    assert {r["game"] for r in defaults} == set(all_games())


def test_variants_says_what_every_polar_and_polarity_variant_and_knob_means():
    """Before: the 18 Polarity knobs had a blank meaning and no variant's description was shown."""
    tables = json.loads(runner.invoke(app, ["variants", "--format", "json"]).output)
    real = [r for r in tables["variants"] if r["game"] in ("polar", "polarity")]
    assert len(real) >= 11 and all(r["description"] for r in real), real
    knobs = [r for r in tables["knobs (--set key=value)"] if r["game"] in ("polar", "polarity")]
    assert all(r["meaning"] for r in knobs), [r["knob"] for r in knobs if not r["meaning"]]


def test_strategies_lists_parameters_with_defaults():
    out = runner.invoke(app, ["strategies", "--game", "polar", "--format", "json"])
    assert out.exit_code == 0, out.output
    rows = {r["strategy"]: r for r in json.loads(out.output)["strategies"]}
    assert {"random", "greedy", "mcts"} <= set(rows)
    assert "playouts=" in rows["mcts"]["parameters"]


def test_listing_an_unknown_game_is_a_usage_error():
    out = runner.invoke(app, ["strategies", "--game", "chess"])
    assert out.exit_code == 2 and "unknown game 'chess'" in out.output
