"""``polsim regress`` replays a baseline's seeds with the code as it is now:
the same code is found unchanged, a large change is found changed long
before the game limit, golden physics scenes gate it, bad input exits 2."""

import dataclasses
import json
import os
import sys
import types

import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.compare import compare_runs
from pipelines.regress import (GoldenSceneChanged, RegressConfig, candidate_experiment, golden_check, regress,
                               seed_order_batches)
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment
from rules import base

runner = CliRunner()


def baseline(tmp_path, game="toy", variant="standard", games=2000, matchup=("loaded", "fair"), shard_size=100,
             cells=None, workers=0, **over):
    cells = cells or (Cell(matchup=matchup, overrides=over),)
    exp = Experiment(game=game, variant=variant, cells=cells, games=games, seed=5, shard_size=shard_size)
    return run_experiment(exp, str(tmp_path / "base"), workers=workers).uri


def test_same_code_against_itself_is_unchanged_after_the_first_batch(tmp_path):
    base = baseline(tmp_path)
    res = regress(base, str(tmp_path / "cand"), config=RegressConfig(batch_games=100), workers=0)
    assert res.decision == "unchanged" and res.pairs == 100 and len(res.looks) == 1
    assert not res.verdict.significant and res.verdict.changed == 0


def test_large_change_is_flagged_well_before_the_game_limit(tmp_path):
    base = baseline(tmp_path)
    res = regress(base, str(tmp_path / "cand"), overrides={"sides": 20},
                  config=RegressConfig(batch_games=100), workers=0)
    assert res.decision == "changed" and res.direction == -1  # the loaded bonus matters less on a d20
    assert res.games_played <= 500 < 2000
    assert res.verdict.significant


def test_small_change_below_delta_is_not_called_changed(tmp_path):
    base = baseline(tmp_path, matchup=("fair", "fair"))
    res = regress(base, str(tmp_path / "cand"), overrides={"sides": 7},
                  config=RegressConfig(batch_games=200, delta=0.1), workers=0)
    assert res.decision in ("unchanged", "undecided")  # fair vs fair: a bigger die moves no win rate


def test_change_the_sprt_calls_unchanged_is_still_flagged_by_the_verdict_table(tmp_path):
    """fair vs fair on a d20 instead of a d6: nobody wins more often, but every score moves."""
    base = baseline(tmp_path, games=400, matchup=("fair", "fair"))
    res = regress(base, str(tmp_path / "cand"), overrides={"sides": 20},
                  config=RegressConfig(batch_games=200, delta=0.1), workers=0)
    assert res.decision in ("unchanged", "undecided") and res.verdict.significant and res.flagged
    cli = runner.invoke(app, ["regress", base, "--out", str(tmp_path / "cli"), "--workers", "0", "--set", "sides=20",
                              "--delta", "0.1", "--batch", "200"])
    assert cli.exit_code == 1 and "flagged as changed" in cli.output, cli.output


def test_regress_candidate_is_an_ordinary_run_that_compare_accepts(tmp_path):
    base = baseline(tmp_path, games=600)
    res = regress(base, str(tmp_path / "cand"), overrides={"sides": 20},
                  config=RegressConfig(batch_games=100), workers=0)
    manifest = json.loads(open(os.path.join(res.uri, "manifest.json")).read())
    assert manifest["status"] == "incomplete" and manifest["regress"]["decision"] == "changed"
    assert manifest["spec"]["cells"][0]["overrides"] == {"sides": 20}
    again = compare_runs(base, res.uri)
    assert again.verdict.n == res.pairs and again.verdict.significant


def test_batches_follow_seed_order_across_cells_and_stop_at_the_limit():
    exp = Experiment(game="toy", variant="standard", games=100, seed=1, shard_size=25,
                     cells=(Cell(matchup=("fair", "fair")), Cell(matchup=("loaded", "fair"))))
    already, batches = seed_order_batches(exp, done={0}, batch_games=50, max_games=150)
    firsts = [[s[1] for s in b] for b in batches]
    assert already == 25  # shard 0 (seeds 0-24 of cell 0) is done and counts towards the limit
    assert firsts == [[100, 25], [125, 50], [150]]


def test_candidate_applies_overrides_to_every_cell_and_keeps_seeds():
    exp = Experiment(game="toy", variant="standard", games=10, seed=1, shard_size=5,
                     cells=(Cell(matchup=("fair", "fair"), overrides={"rounds": 2}), Cell(matchup=("loaded", "fair"))))
    cand = candidate_experiment(exp, {"sides": 8})
    assert [c.overrides for c in cand.cells] == [{"rounds": 2, "sides": 8}, {"sides": 8}]
    assert (cand.seed, cand.games, cand.variant) == (exp.seed, exp.games, exp.variant)


def test_polar_rule_change_is_flagged_and_same_code_is_not(tmp_path):
    base = baseline(tmp_path, game="polar", variant="polar-9", games=1000, matchup=("greedy", "random"),
                    shard_size=100)
    same = runner.invoke(app, ["regress", base, "--out", str(tmp_path / "c1"), "--workers", "0", "--batch", "100"])
    assert same.exit_code == 0, same.output
    assert "SPRT decision: unchanged" in same.stdout
    changed = runner.invoke(app, ["regress", base, "--out", str(tmp_path / "c2"), "--workers", "0",
                                  "--batch", "100", "--set", "score_n=difference"])
    assert changed.exit_code == 1, changed.output
    assert "SPRT decision: changed" in changed.stdout
    manifest = json.loads(next((tmp_path / "c2").glob("*/manifest.json")).read_text())
    assert manifest["regress"]["decision"] == "changed" and manifest["games_done"] < 1000


# --- golden physics scenes ---------------------------------------------------


@pytest.fixture
def toy_with_physics(monkeypatch):
    monkeypatch.setitem(base._GAMES, "toy", dataclasses.replace(base._GAMES["toy"], physics_version=lambda: "t-1"))


def _fake_golden(monkeypatch, changed=()):
    module = types.ModuleType("sim.golden")
    module.SCENES = ["two_discs", "lone_flat", "domino"]
    module.differences = lambda name: ["fallen: recorded [], now [3]"] if name in changed else []
    monkeypatch.setitem(sys.modules, "sim.golden", module)


def test_changed_golden_scene_fails_fast_with_exit_1_before_any_game(tmp_path, monkeypatch, toy_with_physics):
    base_uri = baseline(tmp_path, games=100)
    _fake_golden(monkeypatch, changed=("lone_flat",))
    res = runner.invoke(app, ["regress", base_uri, "--out", str(tmp_path / "cand"), "--workers", "0"])
    assert res.exit_code == 1 and "golden physics scene 'lone_flat' changed: fallen" in res.stderr
    assert not os.path.exists(tmp_path / "cand")


def test_unchanged_golden_scenes_are_noted(monkeypatch, toy_with_physics):
    _fake_golden(monkeypatch)
    assert golden_check("toy") == "golden scenes: all 3 unchanged"
    _fake_golden(monkeypatch, changed=("domino",))
    with pytest.raises(GoldenSceneChanged, match="domino"):
        golden_check("toy")


def test_game_without_physics_skips_golden_scenes():
    assert "skipped" in golden_check("toy")


# --- bad input ---------------------------------------------------------------


@pytest.mark.parametrize("args, word", [
    (["--set", "sides=1"], "bad value for knob sides"),
    (["--set", "colour=blue"], "unknown knob 'colour'"),
    (["--set", "sides=8,10"], "several values"),
    (["--set", "sides"], "not key=value"),
    (["--delta", "0"], "delta"),
    (["--alpha", "1.5"], "alpha"),
    (["--batch", "0"], "batch_games"),
])
def test_bad_options_are_one_line_errors_with_exit_2(tmp_path, args, word):
    base_uri = baseline(tmp_path, games=20, shard_size=10)
    res = runner.invoke(app, ["regress", base_uri, "--out", str(tmp_path / "cand"), "--workers", "0", *args])
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert "\n" not in err and word in err, err


def test_missing_baseline_is_a_one_line_error(tmp_path):
    res = runner.invoke(app, ["regress", str(tmp_path / "nope"), "--out", str(tmp_path / "cand")])
    assert res.exit_code == 2 and "there is no folder" in res.stderr


@pytest.mark.slow
def test_polarity_magnet_strength_change_is_flagged_by_compare_and_regress(tmp_path):
    """Real Polarity runs on the physics core: the golden scenes plus up to 300 short games (8 discs a
    player, 3 foundations: ~2 s of CPU a game), ~5 minutes on two cores, hence slow (`make test-slow`).
    A 50 % stronger magnet must be found changed; the same code must not."""
    import rules.polarity  # noqa: F401  registers "polarity"

    base_uri = baseline(tmp_path, game="polarity", variant="standard", games=100, matchup=("cautious", "random"),
                        shard_size=10, workers=2, stack_size=8, foundations=3)
    cfg = RegressConfig(batch_games=20, delta=0.2)
    res = regress(base_uri, str(tmp_path / "cand"), overrides={"magnet_strength": 1.5}, config=cfg)
    assert res.flagged
    assert compare_runs(base_uri, res.uri).verdict.significant
    same = regress(base_uri, str(tmp_path / "same"), config=cfg)
    assert not same.flagged and same.decision != "changed" and same.verdict.changed == 0


def test_resumed_regress_looks_at_the_games_already_played_first(tmp_path):
    base = baseline(tmp_path)
    cfg = RegressConfig(batch_games=100)
    first = regress(base, str(tmp_path / "cand"), overrides={"sides": 20}, config=cfg, workers=0)
    again = regress(base, str(tmp_path / "cand"), overrides={"sides": 20}, config=cfg, workers=0, resume=True)
    assert again.decision == first.decision == "changed"
    assert again.games_played == first.games_played and [lk.batch for lk in again.looks] == [0]


def test_game_limit_stops_an_undecided_regress(tmp_path):
    base = baseline(tmp_path, matchup=("fair", "fair"))
    res = regress(base, str(tmp_path / "cand"), overrides={"sides": 7},
                  config=RegressConfig(batch_games=100, max_games=200, delta=0.01), workers=0)
    assert res.decision == "undecided" and res.games_played == 200 and res.status == "incomplete"


def test_undecided_regress_exits_3_not_0(tmp_path):
    """Running out of games before the SPRT decides is not evidence of no change
    (here nothing changed, but 200 games cannot rule out a 1-point shift)."""
    base = baseline(tmp_path, matchup=("fair", "fair"))
    res = runner.invoke(app, ["regress", base, "--out", str(tmp_path / "cand"), "--workers", "0",
                              "--batch", "100", "--max-games", "200", "--delta", "0.01"])
    assert res.exit_code == 3, res.output
    assert "undecided" in res.output


def test_a_sigterm_while_regress_stops_ray_is_an_interruption_not_a_kill(tmp_path, monkeypatch):
    """Before: regress stopped its executor outside its signal handler, so a SIGTERM
    then took the default action (here a stand-in that raises) mid-close."""
    import signal

    import pipelines.regress
    from tests.test_pipeline_faults import SignalledExecutor

    class Killed(Exception):
        pass

    def killed(*_):
        raise Killed

    base = baseline(tmp_path, games=200)
    monkeypatch.setattr(pipelines.regress, "make_executor", lambda workers, address: SignalledExecutor("close", "SIGTERM"))
    default = signal.signal(signal.SIGTERM, killed)
    try:
        res = runner.invoke(app, ["regress", base, "--out", str(tmp_path / "cand"), "--workers", "0", "--batch", "100"])
    finally:
        signal.signal(signal.SIGTERM, default)
    assert res.exit_code == 130, res.output
    assert not isinstance(res.exception, Killed)


def test_a_failing_shard_task_ends_regress_undecided_in_one_line_not_changed(tmp_path, monkeypatch):
    """Exit 1 means 'changed' to a CI job: a worker-side failure is no decision (3)."""
    import pipelines.executors

    def store_refuses(*args):
        raise OSError("AccessDenied")

    base = baseline(tmp_path, games=200)
    monkeypatch.setattr(pipelines.executors, "play_shard", store_refuses)
    res = runner.invoke(app, ["regress", base, "--out", str(tmp_path / "cand"), "--workers", "0", "--batch", "100"])
    assert res.exit_code == 3, res.output
    lines = res.output.strip().splitlines()
    assert "shard 0 failed: OSError: AccessDenied" in lines[-1] and "--resume" in lines[-1], res.output

