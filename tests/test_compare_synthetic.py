"""The compare verdict on synthetic paired results where the truth is known:
an injected shift is flagged, a change that alters nothing is not (seeded, so
rates are reproducible); and the paired-difference interval behind it."""

import gc

import numpy as np
import pytest

from pipelines.compare import Paired, _end_reason_test, changed_games, focus_seats, verdict
from pipelines.stats.paired_proportion import corrected_phi, difference
from pipelines.stats.proportion import difference as independent_difference

OUTCOMES = np.array([0, 1, 2])  # focus side: loss, draw, win


def _draw(rng, n, win, draw=0.1):
    return rng.choice(OUTCOMES, size=n, p=[1 - win - draw, draw, win])


def synthetic(rng, n=5000, win_a=0.45, shift=0.0, redrawn=0.5, draw=0.1):
    """Baseline focus outcomes with win rate ``win_a``; the candidate keeps a
    game's outcome with probability 1 - ``redrawn`` and otherwise redraws it
    from win rate ``win_a + shift / redrawn`` — a marginal shift of ``shift``."""
    seed_index = np.arange(n)
    self_play = np.zeros(n, dtype=bool)
    focus = focus_seats(seed_index, self_play)
    out_a = _draw(rng, n, win_a, draw)
    fresh = _draw(rng, n, win_a + shift / redrawn, draw)
    out_b = np.where(rng.random(n) < redrawn, fresh, out_a)

    def winner(outcome):
        return np.where(outcome == 1, -1, np.where(outcome == 2, focus, 1 - focus))

    score_a = rng.normal(20, 5, n)
    score_b = np.where(out_b == out_a, score_a, rng.normal(20, 5, n))
    turns_a = rng.integers(20, 40, n)
    turns_b = np.where(out_b == out_a, turns_a, rng.integers(20, 40, n))
    reasons = np.array(["stack_empty", "red_touched", "red_moved"], dtype=object)
    end_a = reasons[rng.choice(3, n, p=[0.8, 0.15, 0.05])]
    end_b = np.where(out_b == out_a, end_a, reasons[rng.choice(3, n, p=[0.8, 0.15, 0.05])])
    return Paired(cell=np.zeros(n, dtype=np.int64), seed_index=seed_index, game_index=seed_index,
                  focus_seat=focus, self_play=self_play, winner_a=winner(out_a), winner_b=winner(out_b),
                  score_a=score_a, score_b=score_b, turns_a=turns_a, turns_b=turns_b, end_a=end_a, end_b=end_b)


def test_injected_five_point_win_rate_shift_at_5000_games_is_flagged():
    for seed in range(10):
        v = verdict(synthetic(np.random.default_rng(seed), shift=0.05))
        outcome = v.rows[0]
        assert v.significant and outcome.significant, seed
        assert outcome.low < 0.05 < outcome.high and outcome.low > 0


def test_change_that_alters_nothing_has_false_positive_rate_at_most_5_percent():
    gc.freeze()  # statsmodels' multipletests runs gc.collect() on every call; keep that cheap here
    try:
        flagged = [verdict(synthetic(np.random.default_rng(1000 + s), n=1000)).significant for s in range(300)]
    finally:
        gc.unfreeze()
    assert np.mean(flagged) <= 0.05


def test_identical_results_give_p_one_and_no_changed_games():
    p = synthetic(np.random.default_rng(7), n=500, redrawn=1e-9)
    same = Paired(**{**{k: v for k, v in p.__dict__.items()}, "winner_b": p.winner_a, "score_b": p.score_a,
                     "turns_b": p.turns_a, "end_b": p.end_a})
    v = verdict(same)
    assert not v.significant and v.changed == 0
    assert all(r.pvalue == 1.0 for r in v.rows)
    assert changed_games(same, "runs/x") == []


def test_three_games_that_all_flipped_are_not_a_significant_change():
    """Too few seeds to decide: the score test of n games that all moved alike is
    the exact sign test (p = 1/4 for three), not a t-test with p = 0."""
    n = 3
    idx, self_play = np.arange(n), np.zeros(n, bool)
    focus = focus_seats(idx, self_play)
    p = Paired(cell=np.zeros(n, np.int64), seed_index=idx, game_index=idx, focus_seat=focus, self_play=self_play,
               winner_a=1 - focus, winner_b=focus.copy(), score_a=np.zeros(n), score_b=np.zeros(n),
               turns_a=np.full(n, 10), turns_b=np.full(n, 10),
               end_a=np.array(["x"] * n, dtype=object), end_b=np.array(["x"] * n, dtype=object))
    assert not verdict(p).significant


def test_first_player_test_appears_only_when_a_cell_is_not_self_play():
    p = synthetic(np.random.default_rng(3), n=300)
    assert "first player wins" in [r.test for r in verdict(p).rows]
    selfplay = Paired(**{**p.__dict__, "self_play": np.ones(p.n, dtype=bool), "focus_seat": np.zeros(p.n, dtype=np.int64)})
    assert "first player wins" not in [r.test for r in verdict(selfplay).rows]


def test_changed_games_list_each_winner_change_with_its_replay_command():
    p = synthetic(np.random.default_rng(5), n=200, shift=0.1)
    rows = changed_games(p, "runs/cand")
    assert len(rows) == int(np.sum(p.winner_a != p.winner_b)) > 0
    assert rows[0]["replay"] == f"polsim replay runs/cand --game {rows[0]['game']}"


def test_focus_side_is_strategy_a_seat_or_seat_0_in_self_play():
    idx = np.arange(6)
    assert focus_seats(idx, np.zeros(6, bool)).tolist() == [0, 1, 0, 1, 0, 1]
    assert focus_seats(idx, np.ones(6, bool)).tolist() == [0] * 6


# --- Newcombe's paired interval ----------------------------------------------


def _paired_tables(rng, n, p_a, p_b, rho, reps):
    """Correlated binary pairs via a shared uniform (Gaussian-copula-free construction)."""
    u = rng.random((reps, n))
    v = np.where(rng.random((reps, n)) < rho, u, rng.random((reps, n)))
    a, b = (u < p_a).astype(int), (v < p_b).astype(int)
    tables = np.zeros((reps, 2, 2), dtype=np.int64)
    for i in range(2):
        for j in range(2):
            tables[:, i, j] = np.sum((a == i) & (b == j), axis=1)
    return tables


@pytest.mark.parametrize("n, p_a, p_b, rho", [(200, 0.45, 0.5, 0.6), (100, 0.2, 0.3, 0.0), (400, 0.5, 0.5, 0.9)])
def test_paired_difference_interval_covers_the_true_difference_about_95_percent(n, p_a, p_b, rho):
    tables = _paired_tables(np.random.default_rng(11), n, p_a, p_b, rho, 2000)
    covered = np.mean([difference(t).contains(p_b - p_a) for t in tables])
    assert 0.93 <= covered <= 0.985


def test_paired_interval_is_narrower_than_independent_when_outcomes_correlate():
    table = np.array([[400, 30], [10, 560]])
    paired = difference(table)
    k_a, k_b, n = int(table[1].sum()), int(table[:, 1].sum()), int(table.sum())
    indep = independent_difference(k_b, n, k_a, n)
    assert paired.estimate == pytest.approx(indep.estimate) == pytest.approx(20 / 1000)
    assert paired.width < 0.6 * indep.width


def test_paired_interval_with_zero_phi_equals_newcombe_independent_interval():
    table = np.array([[25, 25], [25, 25]])
    assert corrected_phi(table) == 0.0
    k = int(table[1].sum())
    indep = independent_difference(k, 100, k, 100)
    assert (difference(table).low, difference(table).high) == pytest.approx((indep.low, indep.high))


def test_corrected_phi_shrinks_small_positive_association_to_zero():
    assert corrected_phi([[25, 25], [24, 26]]) == 0.0  # ad - bc = 50 <= n / 2
    assert corrected_phi([[40, 10], [10, 40]]) == pytest.approx((1500 - 50) / 2500)
    assert corrected_phi([[10, 40], [40, 10]]) == pytest.approx(-1500 / 2500)


def _end_reason_row(p: Paired):
    return next(r for r in verdict(p).rows if r.test == "end reasons")


def test_end_reasons_that_moved_one_way_in_paired_games_are_tested_paired():
    """24 games, the same winners; 9 that ended by a red touch end otherwise in
    the candidate and none the other way (what a damping change did to the
    standard games): exact McNemar, p = 2 / 2^9, where the unpaired table of
    12 against 3 red touches gave 0.02."""
    p = synthetic(np.random.default_rng(11), n=24, redrawn=1e-9)
    end_a = np.array(["red_touched"] * 12 + ["stack_empty"] * 12, dtype=object)
    end_b = end_a.copy()
    end_b[:9] = "stack_empty"
    row = _end_reason_row(Paired(**{**p.__dict__, "end_a": end_a, "end_b": end_b}))
    assert row.pvalue == pytest.approx(2 / 2 ** 9)
    assert row.effect.startswith("red_touched 12 → 3 (9 left it, 0 joined)")


def test_end_reasons_redrawn_from_the_same_mix_are_flagged_at_most_5_percent_of_the_time():
    """Three reasons, half the games' ends redrawn from the same mix: the row
    keeps the smallest of three p-values, so without its Bonferroni factor it
    would be flagged well above 5 % of the time. The row alone, 300 times (the
    whole verdict's Holm step runs a garbage collection each call)."""
    reasons = np.array(["stack_empty", "red_touched", "red_moved"], dtype=object)
    mix = [0.6, 0.3, 0.1]
    base = synthetic(np.random.default_rng(0), n=300, redrawn=1e-9)
    flagged = []
    for s in range(300):
        rng = np.random.default_rng(5000 + s)
        end_a = reasons[rng.choice(3, 300, p=mix)]
        end_b = np.where(rng.random(300) < 0.5, reasons[rng.choice(3, 300, p=mix)], end_a)
        flagged.append(_end_reason_test(Paired(**{**base.__dict__, "end_a": end_a, "end_b": end_b})).pvalue < 0.05)
    assert np.mean(flagged) <= 0.05
