"""``polsim compare B1 C1 B2 C2``: one comparison played on several run seeds,
pooled into one verdict (``pipelines.compare_pool``); pairs that are not one
comparison are refused saying which, and an odd count of runs is a usage error."""

import os

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.compare import compare_runs
from pipelines.compare_pool import compare_pairs
from tests.test_compare_runs import one_line_error, run

runner = CliRunner()


def test_one_comparison_on_two_seeds_is_one_verdict_on_the_games_of_both(tmp_path):
    b3, c3 = run(tmp_path, "b3", seed=3), run(tmp_path, "c3", seed=3, sides=12)
    b4, c4 = run(tmp_path, "b4", seed=4), run(tmp_path, "c4", seed=4, sides=12)
    pooled = compare_pairs([(b3, c3), (b4, c4)])
    alone = [compare_runs(b3, c3), compare_runs(b4, c4)]
    p = pooled.paired
    assert p.n == 600 and np.bincount(p.pair).tolist() == [300, 300]
    assert (p.outcome_table() == sum(a.paired.outcome_table() for a in alone)).all()
    assert pooled.verdict.changed == sum(a.verdict.changed for a in alone)
    assert pooled.verdict.significant and pooled.verdict.rows[0].estimate < 0  # a bigger die dilutes the bonus
    assert pooled.verdict.notes[:2] == ("pooled 2 pairs of runs, run seeds 3, 4: one verdict on the games of all",
                                        "rules changed: sides 6 → 12")
    for number, candidate in enumerate((c3, c4), start=1):  # each changed game names its pair and replays there
        games = pq.ParquetDataset(os.path.join(candidate, "games")).read().to_pandas().set_index("game_index")
        rows = [r for r in pooled.changed if r["pair"] == number]
        assert rows and all(r["replay"].startswith(f"polsim replay {candidate} ") for r in rows)
        assert all(games.loc[r["game"], "seed_index"] == r["seed_index"] for r in rows)
    assert "pair" not in alone[0].changed[0]  # two runs: the table as before


def test_pooling_narrows_the_interval_of_an_effect_one_seed_leaves_open(tmp_path):
    kw = dict(games=60, matchup=("loaded", "fair"))
    pairs = [(run(tmp_path, f"b{s}", seed=s, **kw), run(tmp_path, f"c{s}", seed=s, sides=12, **kw)) for s in (3, 4, 5)]
    one = compare_runs(*pairs[0]).verdict.rows[0]
    pooled = compare_pairs(pairs).verdict.rows[0]
    assert pooled.high - pooled.low < 0.7 * (one.high - one.low)


def test_the_cli_pools_pairs_and_says_so(tmp_path):
    runs = [run(tmp_path, f"{side}{s}", seed=s, games=40, **({"sides": 12} if side == "c" else {}))
            for s in (3, 4) for side in "bc"]
    res = runner.invoke(app, ["compare", *runs, "--show", "0"])
    assert res.exit_code in (0, 1), res.output
    assert "note: pooled 2 pairs of runs, run seeds 3, 4" in res.stderr
    assert "of 80 paired games changed winner" in res.stdout


def test_a_variant_file_and_the_same_knob_set_pool_as_one_comparison(tmp_path):
    b3, c3 = run(tmp_path, "b3", seed=3, games=40), run(tmp_path, "c3", seed=3, games=40, variant="d20")
    b4, c4 = run(tmp_path, "b4", seed=4, games=40), run(tmp_path, "c4", seed=4, games=40, sides=20)
    notes = compare_pairs([(b3, c3), (b4, c4)]).verdict.notes
    assert "pair 1 (seed 3): variant standard → d20: rules changed: sides 6 → 20" in notes
    assert "pair 2 (seed 4): rules changed: sides 6 → 20" in notes


def test_a_note_of_one_pair_names_its_pair(tmp_path):
    b3, c3 = run(tmp_path, "b3", seed=3), run(tmp_path, "c3", seed=3, sides=12)
    b4, c4 = run(tmp_path, "b4", seed=4), run(tmp_path, "c4", seed=4, sides=12)
    os.remove(os.path.join(c4, "games", "shard-00002.parquet"))
    result = compare_pairs([(b3, c3), (b4, c4)])
    assert result.verdict.n == 500
    assert "pair 2 (seed 4): candidate has 200 of 300 games (incomplete); compared on the games both have" in \
        result.verdict.notes


@pytest.mark.parametrize("second, words", [
    (dict(seed=3), ("pairs 1 and 2 both play run seed 3", "count twice")),
    (dict(seed=4, sides=20), ("pair 2's candidate is not pair 1's on another seed", "cell 0's rules sides 12 → 20")),
    (dict(seed=4, sides=12, matchup=("loaded:bonus=2", "fair")),
     ("pair 2's candidate", "cell 0 plays loaded:bonus=2 vs fair against loaded vs fair")),
    (dict(seed=4, sides=12, both=dict(rounds=5)), ("pair 2's baseline", "rounds 3 → 5")),
])
def test_pairs_that_are_not_one_comparison_on_other_seeds_are_refused_saying_which(tmp_path, second, words):
    first = (run(tmp_path, "b1", games=20), run(tmp_path, "c1", games=20, sides=12))
    both = second.pop("both", {})
    baseline = run(tmp_path, "b2", games=20, seed=second["seed"], matchup=("loaded", "fair"), **both)
    candidate = run(tmp_path, "c2", games=20, **{**both, **second})
    one_line_error(runner.invoke(app, ["compare", *first, baseline, candidate]), *words)


def test_a_pair_that_cannot_be_paired_is_named_in_the_error(tmp_path):
    first = (run(tmp_path, "b1", games=20), run(tmp_path, "c1", games=20, sides=12))
    second = (run(tmp_path, "b2", games=20, seed=4), run(tmp_path, "c2", games=20, seed=5, sides=12))
    one_line_error(runner.invoke(app, ["compare", *first, *second]), "pair 2 (", "different seeds")


def test_an_odd_count_of_runs_is_a_usage_error(tmp_path):
    a, b, c = (run(tmp_path, name, games=20, seed=s) for name, s in (("a", 3), ("b", 3), ("c", 4)))
    one_line_error(runner.invoke(app, ["compare", a, b, c]), "in pairs", "got 3 runs")
    one_line_error(runner.invoke(app, ["compare", a]), "in pairs", "got 1 run:")


def test_a_run_in_two_pairs_is_refused(tmp_path):
    a, b, c = (run(tmp_path, name, games=20, seed=s) for name, s in (("a", 3), ("b", 3), ("c", 4)))
    one_line_error(runner.invoke(app, ["compare", a, b, a, c]), "is given twice")


def test_the_games_two_run_seeds_share_under_seeding_1_are_counted_once(tmp_path):
    """Before polsim 0.31.0 run seed 1's games 0 and 2 were run seed 3's games 2 and 0, in the same seats."""
    from pipelines.runner import run_experiment
    from pipelines.spec import Cell, Experiment

    def old(name, seed, **over):
        exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair"), overrides=over),),
                         games=10, seed=seed, shard_size=10, seeding=1)
        return run_experiment(exp, str(tmp_path / name), workers=0).uri

    pairs = [(old(f"b{s}", s), old(f"c{s}", s, sides=12)) for s in (1, 3)]
    pooled = compare_pairs(pairs)
    assert pooled.paired.n == 18 and np.bincount(pooled.paired.pair).tolist() == [10, 8]
    assert pooled.verdict.notes[1].startswith("2 paired games that two pairs both hold are counted once")
    today = [(run(tmp_path, f"nb{s}", seed=s, games=10), run(tmp_path, f"nc{s}", seed=s, games=10, sides=12))
             for s in (1, 3)]
    assert compare_pairs(today).paired.n == 20
