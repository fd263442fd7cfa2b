"""``polsim compare B1 C1 B2 C2``: one comparison played on several run seeds,
pooled into one verdict (``pipelines.compare_pool``); pairs that are not one
comparison are refused saying which, and an odd count of runs is a usage error."""

import json
import os

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.compare import Paired, compare_runs, focus_seats
from pipelines.compare_pool import agreement_line, compare_pairs, pair_changes, pairs_agree
from pipelines.stats.homogeneity import Homogeneity
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


def test_each_pooled_pair_shows_the_change_that_pair_compared_alone_finds(tmp_path):
    pairs = [(run(tmp_path, f"b{s}", seed=s, games=120), run(tmp_path, f"c{s}", seed=s, games=120, sides=12))
             for s in (3, 4, 5)]
    pooled = compare_pairs(pairs)
    assert [c.seed for c in pooled.pairs] == [3, 4, 5] and [c.pair for c in pooled.pairs] == [1, 2, 3]
    for change, (baseline, candidate) in zip(pooled.pairs, pairs):
        alone = compare_runs(baseline, candidate)
        outcome = alone.verdict.rows[0]
        assert (change.estimate, change.low, change.high, change.p) == (outcome.estimate, outcome.low,
                                                                        outcome.high, outcome.pvalue)
        table = alone.paired.win_table()
        assert change.games == alone.paired.n and change.wins == (table[1].sum(), table[:, 1].sum())
    assert sum(c.wins[1] - c.wins[0] for c in pooled.pairs) / pooled.paired.n == \
        pytest.approx(pooled.verdict.rows[0].estimate)
    assert pooled.agreement is not None and pooled.agreement.p > 0.01  # one die change on three seeds
    assert pooled.same_code


def _pooled_games(gained_lost: list[tuple[int, int]], unchanged: int = 60) -> Paired:
    """Paired games of pooled pairs in which the focus side gained a win in ``gained`` games and lost
    one in ``lost`` (per pair), the rest unchanged wins and losses."""
    parts = []
    for pair, (gained, lost) in enumerate(gained_lost):
        a = [0] * gained + [1] * lost + [1, 0] * (unchanged // 2)   # focus side won (1) or lost (0)
        b = [1] * gained + [0] * lost + [1, 0] * (unchanged // 2)
        parts.append((pair, np.array(a), np.array(b)))
    pair = np.concatenate([np.full(len(a), i) for i, a, _ in parts])
    won_a, won_b = (np.concatenate([x[k] for x in parts]) for k in (1, 2))
    n = len(pair)
    idx, self_play = np.arange(n), np.zeros(n, bool)
    focus = focus_seats(idx, self_play)
    return Paired(cell=np.zeros(n, np.int64), seed_index=idx, game_index=idx, focus_seat=focus,
                  self_play=self_play, winner_a=np.where(won_a == 1, focus, 1 - focus),
                  winner_b=np.where(won_b == 1, focus, 1 - focus), score_a=won_a.astype(float),
                  score_b=won_b.astype(float), turns_a=np.full(n, 10), turns_b=np.full(n, 10),
                  end_a=np.array(["x"] * n, dtype=object), end_b=np.array(["x"] * n, dtype=object), pair=pair)


def test_pairs_whose_changes_go_opposite_ways_are_found_to_disagree():
    p = _pooled_games([(20, 2), (2, 20)])
    assert pairs_agree(p).p < 1e-4
    first, second = pair_changes(p, [20, 21])
    assert first.low > 0 and second.high < 0 and (first.seed, second.seed) == (20, 21)


def test_disagreeing_pairs_of_one_code_read_as_a_rare_swing_and_of_other_code_as_maybe_real():
    low, high = Homogeneity(0.001, "chi-square"), Homogeneity(0.2, "chi-square")
    assert "rare swing of chance" in agreement_line(low, 0.05, same_code=True)
    assert "may change the effect itself" in agreement_line(low, 0.05, same_code=False)
    assert agreement_line(high, 0.05, same_code=True).startswith("pairs agree")
    assert agreement_line(high, 0.5, same_code=True).startswith("pairs DISAGREE")  # against the verdict's α
    assert "too few games" in agreement_line(None, 0.05, same_code=True)


def test_pairs_with_the_same_change_agree():
    p = _pooled_games([(20, 2), (21, 2), (19, 3)])
    assert pairs_agree(p).p > 0.5
    assert [c.wins for c in pair_changes(p, [1, 2, 3])] == [(32, 50), (32, 51), (33, 49)]


def test_pairs_whose_changed_games_all_go_one_way_agree():
    agreement = pairs_agree(_pooled_games([(5, 0), (9, 0), (0, 0)]))
    assert agreement.p == 1.0 and agreement.method == "every changed game the same way"


def test_no_game_changed_winner_in_two_pairs_leaves_agreement_untested():
    assert pairs_agree(_pooled_games([(0, 0), (5, 1)])) is None


def test_the_cli_shows_each_pair_and_whether_the_pairs_agree(tmp_path):
    runs = [run(tmp_path, f"{side}{s}", seed=s, games=40, **({"sides": 12} if side == "c" else {}))
            for s in (3, 4) for side in "bc"]
    res = runner.invoke(app, ["compare", *runs, "--show", "0"])
    assert "by pair" in res.stdout and ("pairs agree" in res.stdout or "pairs DISAGREE" in res.stdout), res.output
    res = runner.invoke(app, ["compare", *runs, "--show", "0", "--format", "json"])
    doc = json.loads(res.stdout)
    assert [(r["pair"], r["seed"], r["paired_games"]) for r in doc["by_pair"]] == [(1, 3, 40), (2, 4, 40)]
    assert all(r["low"] <= r["estimate"] <= r["high"] and 0 <= r["p_alone"] <= 1 for r in doc["by_pair"])
    assert len(doc["pairs_agree"]) == 1 and doc["pairs_agree"][0]["agree"] == (doc["pairs_agree"][0]["p"] >= 0.05)
    assert "pairs " in res.stderr  # the agreement line, beside the verdict line
    one = runner.invoke(app, ["compare", *runs[:2], "--format", "json"])  # two runs: nothing about pairs
    assert "by_pair" not in json.loads(one.stdout) and "pairs agree" not in one.stderr
