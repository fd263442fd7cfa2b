"""GSPRT kernels, the SPRT state and the two-sided regression SPRT: hand
values, and stopping times and error rates on seeded simulated tests."""

import numpy as np
import pytest
from scipy.stats import binom

from pipelines.stats.sprt import (PENTANOMIAL_SCORES, SPRT, TRINOMIAL_SCORES, RegressionConfig,
                                  RegressionSPRT, SPRTConfig, difference_counts, first_crossing,
                                  llr, llr_normal, mle_with_mean, regression_verdicts, wald_bounds)
from pipelines.stats.tally import Pentanomial, Tally

N_RUNS = 400


def ceiling(rate, runs=N_RUNS):
    """Largest error rate a test with true rate ``rate`` shows, bar 1 in 1000."""
    return binom.ppf(0.999, runs, rate) / runs


def trinomial_probs(score, draw_rate):
    """(loss, draw, win) probabilities with the given mean score."""
    return np.array([1 - score - draw_rate / 2, draw_rate, score - draw_rate / 2])


def pentanomial_probs(score, draw_rate, seat_bias):
    """Pair-score probabilities of two independent games, one per seat;
    seat 0 scores ``seat_bias`` more than seat 1."""
    first = trinomial_probs(score + seat_bias, draw_rate)
    second = trinomial_probs(score - seat_bias, draw_rate)
    return np.convolve(first, second)


def running_totals(seed, probs, runs, checkpoints, step):
    """[runs, checkpoints, k] running totals, ``step`` outcomes per checkpoint."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(step, probs, size=(runs, checkpoints)).cumsum(axis=1)


def sprt_decisions(totals, config):
    lower, upper = wald_bounds(config.alpha, config.beta)
    scores = TRINOMIAL_SCORES if config.model == "trinomial" else PENTANOMIAL_SCORES
    return first_crossing(llr(totals, scores, config.s0, config.s1), lower, upper)


def test_wald_bounds_are_log_beta_over_one_minus_alpha_and_back():
    assert wald_bounds(0.05, 0.05) == pytest.approx((-np.log(19), np.log(19)))
    assert wald_bounds(0.05, 0.1) == pytest.approx((np.log(0.1 / 0.95), np.log(0.9 / 0.05)))
    with pytest.raises(ValueError):
        wald_bounds(0.6, 0.5)


def test_constrained_mle_has_the_requested_mean_and_is_the_data_when_it_already_does():
    freqs = np.array([0.1, 0.15, 0.3, 0.25, 0.2])
    for s in (0.3, 0.5, 0.58, 0.8):
        p = mle_with_mean(freqs, PENTANOMIAL_SCORES, s)
        assert p.sum() == pytest.approx(1) and p @ PENTANOMIAL_SCORES == pytest.approx(s)
        assert (p > 0).all()
    own_mean = freqs @ PENTANOMIAL_SCORES
    assert mle_with_mean(freqs, PENTANOMIAL_SCORES, own_mean) == pytest.approx(freqs)


def test_trinomial_llr_without_draws_is_walds_binomial_llr():
    wins, losses, s0, s1 = 530, 470, 0.5, 0.53
    expected = wins * np.log(s1 / s0) + losses * np.log((1 - s1) / (1 - s0))
    got = llr(np.array([losses, 0, wins]), TRINOMIAL_SCORES, s0, s1)
    assert got == pytest.approx(expected, abs=0.02)


def test_llr_agrees_with_its_normal_approximation_for_close_hypotheses():
    for counts, scores in ((np.array([300.0, 400, 330]), TRINOMIAL_SCORES),
                           (np.array([100.0, 300, 400, 320, 110]), PENTANOMIAL_SCORES)):
        exact = llr(counts, scores, 0.5, 0.51)
        assert exact == pytest.approx(llr_normal(counts, scores, 0.5, 0.51), rel=0.01)


def test_llr_is_vectorised_over_leading_axes():
    counts = np.array([[[3, 4, 5], [30, 40, 50]], [[5, 4, 3], [0, 0, 0]]])
    batch = llr(counts, TRINOMIAL_SCORES, 0.45, 0.55)
    assert batch.shape == (2, 2)
    assert batch[0, 1] == pytest.approx(llr(counts[0, 1], TRINOMIAL_SCORES, 0.45, 0.55))
    assert batch[1, 1] == 0.0  # no games, no evidence


def test_sprt_with_a_large_true_difference_stops_well_before_the_game_limit():
    config = SPRTConfig(s0=0.5, s1=0.53)
    totals = running_totals(1, trinomial_probs(0.6, 0.3), 100, 400, 25)  # limit 10,000 games
    decision, at = sprt_decisions(totals, config)
    assert (decision == 1).all()
    assert (at + 1).max() * 25 <= 1000


def test_trinomial_sprt_error_rates_are_about_alpha_and_beta():
    config = SPRTConfig(s0=0.5, s1=0.53, alpha=0.05, beta=0.1)
    under_h0 = sprt_decisions(running_totals(2, trinomial_probs(0.5, 0.3), N_RUNS, 400, 25), config)[0]
    under_h1 = sprt_decisions(running_totals(3, trinomial_probs(0.53, 0.3), N_RUNS, 400, 25), config)[0]
    assert (under_h0 == 0).mean() < 0.02 and (under_h1 == 0).mean() < 0.02
    assert (under_h0 == 1).mean() <= ceiling(0.05)
    assert (under_h1 == -1).mean() <= ceiling(0.1)
    assert (under_h0 == -1).mean() >= 0.85 and (under_h1 == 1).mean() >= 0.8


def test_pentanomial_sprt_error_rates_are_about_alpha_and_beta():
    config = SPRTConfig(s0=0.5, s1=0.53, model="pentanomial")
    under_h0 = sprt_decisions(running_totals(4, pentanomial_probs(0.5, 0.3, 0.15), N_RUNS, 200, 25), config)[0]
    under_h1 = sprt_decisions(running_totals(5, pentanomial_probs(0.53, 0.3, 0.15), N_RUNS, 200, 25), config)[0]
    assert (under_h0 == 1).mean() <= ceiling(0.05)
    assert (under_h1 == -1).mean() <= ceiling(0.05)
    assert (under_h0 == -1).mean() >= 0.9 and (under_h1 == 1).mean() >= 0.9


def test_sprt_state_takes_running_totals_so_a_repeated_report_changes_nothing():
    sprt = SPRT(SPRTConfig(s0=0.5, s1=0.53))
    assert sprt.update(Tally.of(330, 400, 300)) == "continue"
    first = sprt.llr
    assert sprt.update(Tally.of(330, 400, 300)) == "continue" and sprt.llr == first
    with pytest.raises(ValueError, match="decrease"):
        sprt.update(Tally.of(320, 400, 300))


def test_sprt_state_decision_is_final_once_reached():
    sprt = SPRT(SPRTConfig(s0=0.5, s1=0.55))
    assert sprt.update(Tally.of(700, 0, 300)) == "H1"
    assert sprt.update(Tally.of(700, 0, 3000)) == "H1"


def test_sprt_state_agrees_with_the_vectorised_path():
    config = SPRTConfig(s0=0.5, s1=0.53, model="pentanomial")
    totals = running_totals(6, pentanomial_probs(0.52, 0.3, 0.1), 5, 200, 25)
    decision, at = sprt_decisions(totals, config)
    for path, want, when in zip(totals, decision, at):
        sprt = SPRT(config)
        states = [sprt.update(Pentanomial(tuple(int(c) for c in row))) for row in path]
        expected = {1: "H1", -1: "H0", 0: "continue"}[int(want)]
        assert states[-1] == expected
        if want != 0:
            assert states.index(expected) == when


def test_sprt_state_refuses_counts_of_the_wrong_model():
    with pytest.raises(ValueError):
        SPRT(SPRTConfig(s0=0.5, s1=0.53, model="pentanomial")).update(Tally.of(1, 2, 3))
    with pytest.raises(ValueError):
        SPRT(SPRTConfig(s0=0.5, s1=0.53)).update(np.array([1, 2, 3, 4, 5]))
    with pytest.raises(ValueError):
        SPRTConfig(s0=0.55, s1=0.5)


# --- the two-sided regression SPRT on paired runs (same seeds, A vs B) -----

def paired_difference_totals(seed, runs, pairs, b_shift, rho=0.5, step=50,
                             p_win=0.45, p_draw=0.1):
    """Running totals [runs, pairs / step, 5] of d = s_B - s_A per seed; under
    B the win rate is ``b_shift`` higher (taken from losses). A seed's two
    games share their random draw with probability rho."""
    rng = np.random.default_rng(seed)
    u = rng.random((runs, pairs))
    v = np.where(rng.random((runs, pairs)) < rho, u, rng.random((runs, pairs)))

    def outcome(x, win):  # 0 loss, 1 draw, 2 win
        return np.where(x < win, 2, np.where(x < win + p_draw, 1, 0))

    d_index = 2 + outcome(v, p_win + b_shift) - outcome(u, p_win)
    onehot = d_index[..., None] == np.arange(5)
    return onehot.reshape(runs, pairs // step, step, 5).sum(axis=2).cumsum(axis=1)


def test_difference_counts_bin_paired_outcomes_by_score_change():
    table = np.array([[10, 2, 4], [1, 5, 0], [0, 3, 20]])  # [A, B] (loss, draw, win)
    # d = -1: A win B loss; -1/2: A draw B loss, A win B draw; 0: diagonal; ...
    assert difference_counts(table).tolist() == [0, 1 + 3, 35, 2 + 0, 4]


def test_regression_sprt_flags_a_five_point_shift_within_5000_paired_games():
    totals = paired_difference_totals(7, 100, 5000, b_shift=0.05)
    verdict = regression_verdicts(totals, RegressionConfig(delta=0.03))
    assert (verdict == 1).mean() >= 0.95  # 'changed', upwards
    assert (verdict == -1).sum() == 0


def test_regression_sprt_flags_a_drop_as_a_change_downwards():
    totals = paired_difference_totals(8, 100, 5000, b_shift=-0.05)
    verdict = regression_verdicts(totals, RegressionConfig(delta=0.03))
    assert (verdict == -1).mean() >= 0.95


def test_regression_sprt_rarely_calls_an_unchanged_physics_changed():
    config = RegressionConfig(delta=0.03, alpha=0.05, beta=0.05)
    verdict = regression_verdicts(paired_difference_totals(9, N_RUNS, 5000, 0.0), config)
    assert np.isin(verdict, (1, -1)).mean() <= ceiling(0.05)
    assert (verdict == 2).mean() >= 0.9  # and usually concludes 'unchanged'


def test_regression_sprt_misses_a_change_of_exactly_delta_at_most_about_beta():
    config = RegressionConfig(delta=0.05, alpha=0.05, beta=0.1)
    verdict = regression_verdicts(paired_difference_totals(10, N_RUNS, 5000, 0.05), config)
    assert (verdict == 2).mean() <= ceiling(0.1)
    assert (verdict == 1).mean() >= 0.85


def test_regression_sprt_state_agrees_with_the_vectorised_verdicts():
    config = RegressionConfig(delta=0.04)
    totals = paired_difference_totals(11, 8, 3000, b_shift=0.02, step=100)
    verdicts = regression_verdicts(totals, config)
    names = {1: "changed", -1: "changed", 2: "unchanged", 0: "continue"}
    for path, want in zip(totals, verdicts):
        test = RegressionSPRT(config)
        states = [test.update(row) for row in path]
        assert states[-1] == names[int(want)]
        if want in (1, -1):
            assert test.direction == want


def test_sprt_hypotheses_can_be_stated_in_elo():
    config = SPRTConfig.from_elo(0, 400 * np.log10(0.55 / 0.45), model="pentanomial")
    assert (config.s0, config.s1) == pytest.approx((0.5, 0.55))
    assert config.model == "pentanomial"
