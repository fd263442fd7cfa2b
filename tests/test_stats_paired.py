"""Paired tests, Mann–Whitney and Holm: hand values, and error
rates on seeded simulated paired experiments (same seeds, conditions A/B)."""

import numpy as np
import pytest
from scipy.stats import binom, chi2
from statsmodels.stats.multitest import multipletests

from pipelines.stats.paired import (holm, mann_whitney, mcnemar,
                                    paired_score_difference, score_differences, sign_flip_pvalue,
                                    stuart_maxwell)

LOSS, DRAW, WIN = 0, 1, 2
N_NULL = 400
ALPHA = 0.05
# Largest false-positive rate a correct 5 % test shows in 400 runs, bar 1 in 1000.
FPR_CEILING = binom.ppf(0.999, N_NULL, ALPHA) / N_NULL


def _outcome(u, p_win, p_draw):
    return np.where(u < p_win, WIN, np.where(u < p_win + p_draw, DRAW, LOSS))


def paired_tables(seed, n_experiments, n_pairs, a_probs, b_probs, rho=0.5):
    """[n_experiments, 3, 3] paired (loss, draw, win) tables. Each seed's
    games under A and B share their random draw with probability rho."""
    rng = np.random.default_rng(seed)
    shape = (n_experiments, n_pairs)
    u = rng.random(shape)
    v = np.where(rng.random(shape) < rho, u, rng.random(shape))
    a, b = _outcome(u, *a_probs), _outcome(v, *b_probs)
    cell = np.arange(n_experiments)[:, None] * 9 + a * 3 + b
    return np.bincount(cell.ravel(), minlength=n_experiments * 9).reshape(n_experiments, 3, 3)


def win_tables(tables):
    """Collapse (loss, draw, win) to (not win, win) on both axes -> [.., 2, 2]."""
    t = np.stack([tables[:, :2].sum(1), tables[:, 2]], axis=1)
    return np.stack([t[..., :2].sum(-1), t[..., 2]], axis=-1)


BASE = (0.45, 0.10)  # win, draw probabilities under A
SHIFTED = (0.50, 0.10)  # a 5-point win-rate shift under B (from losses)


def test_mcnemar_exact_matches_the_binomial_hand_value_for_few_discordant_pairs():
    res = mcnemar(np.array([[10, 3], [8, 20]]))
    # 2 P(X <= 3), X ~ Bin(11, 1/2) = 2 (1 + 11 + 55 + 165) / 2048
    assert res.method == "mcnemar-exact"
    assert res.pvalue == pytest.approx(464 / 2048)


def test_mcnemar_many_discordant_pairs_uses_continuity_corrected_chi_square():
    res = mcnemar(np.array([[100, 30], [80, 200]]))
    assert res.method == "mcnemar-chi2-cc"
    assert res.statistic == pytest.approx((abs(30 - 80) - 1) ** 2 / 110)
    assert res.effect == pytest.approx((30 - 80) / 410)  # rows A, columns B: B wins 30 - 80 fewer


def test_mcnemar_without_discordant_pairs_finds_nothing():
    assert mcnemar(np.array([[40, 0], [0, 60]])).pvalue == 1.0


def test_five_point_win_rate_shift_at_5000_paired_games_is_flagged():
    tables = paired_tables(1, 50, 5000, BASE, SHIFTED)
    mc = [mcnemar(t).pvalue for t in win_tables(tables)]
    sd = [paired_score_difference(t)[0] for t in tables]
    sm = [stuart_maxwell(t).pvalue for t in tables]
    assert max(mc) < ALPHA and max(r.pvalue for r in sd) < ALPHA and max(sm) < ALPHA
    assert all(r.effect > 0 for r in sd)  # B scores more


def test_paired_tests_hold_their_false_positive_rate_when_nothing_changed():
    tables = paired_tables(2, N_NULL, 5000, BASE, BASE)
    fpr_mc = np.mean([mcnemar(t).pvalue < ALPHA for t in win_tables(tables)])
    fpr_sd = np.mean([paired_score_difference(t)[0].pvalue < ALPHA for t in tables])
    fpr_sm = np.mean([stuart_maxwell(t).pvalue < ALPHA for t in tables])
    assert max(fpr_mc, fpr_sd, fpr_sm) <= FPR_CEILING


def test_paired_score_difference_interval_covers_the_true_shift():
    tables = paired_tables(3, 400, 2000, BASE, SHIFTED)
    covered = np.mean([paired_score_difference(t)[1].contains(0.05) for t in tables])
    assert covered >= 0.93


def test_paired_score_difference_mean_is_the_hand_computed_score_change():
    # rows: outcome under A (loss, draw, win); columns: under B
    table = np.array([[10, 2, 4], [1, 5, 0], [0, 3, 20]])
    res, ci = paired_score_difference(table)
    d = (2 * 0.5 + 4 * 1 - 1 * 0.5 - 3 * 0.5) / 45
    assert res.effect == pytest.approx(d) and ci.estimate == pytest.approx(d)


def test_mcnemar_effect_is_positive_when_b_wins_more():
    assert mcnemar(np.array([[10, 8], [3, 20]])).effect == pytest.approx(5 / 41)


def test_paired_score_difference_when_every_seed_moved_alike_is_the_exact_sign_test():
    """No variance, so no t-test: three seeds that all turned loss -> win are p = 1/4
    (two-sided sign test), not p = 0; six are 1/32."""
    three, ci = paired_score_difference(np.array([[0, 0, 3], [0, 0, 0], [0, 0, 0]]))
    assert (three.method, three.pvalue, three.effect) == ("sign-exact", pytest.approx(0.25), 1.0)
    assert ci.high == 1.0 and ci.low < 0  # three seeds cannot pin the shift down
    assert paired_score_difference(np.array([[0, 0, 6], [0, 0, 0], [0, 0, 0]]))[0].pvalue == pytest.approx(1 / 32)
    same, ci = paired_score_difference(np.array([[4, 0, 0], [0, 3, 0], [0, 0, 5]]))
    assert same.pvalue == 1.0 and ci.low < 0 < ci.high


def test_paired_score_difference_interval_stays_within_the_possible_shifts():
    _, ci = paired_score_difference(np.array([[1, 0, 1], [0, 0, 0], [0, 0, 0]]))
    assert -1.0 <= ci.low <= ci.high <= 1.0


def test_draws_turning_into_equal_wins_and_losses_move_the_mix_but_not_the_score():
    tables = paired_tables(4, 200, 5000, (0.35, 0.30), (0.45, 0.10), rho=0.0)
    sm_power = np.mean([stuart_maxwell(t).pvalue < ALPHA for t in tables])
    score_rejections = np.mean([paired_score_difference(t)[0].pvalue < ALPHA for t in tables])
    assert sm_power >= 0.95
    assert score_rejections <= binom.ppf(0.999, 200, ALPHA) / 200


def test_stuart_maxwell_on_two_categories_is_mcnemar_without_correction():
    res = stuart_maxwell(np.array([[10, 5], [3, 20]]))
    assert res.statistic == pytest.approx((5 - 3) ** 2 / 8) and res.df == 1


def test_stuart_maxwell_on_two_categories_with_few_discordant_seeds_is_mcnemars_exact_test():
    for table in ([[10, 5], [3, 20]], [[10, 3], [0, 20]], [[4, 11], [2, 9]]):
        res = stuart_maxwell(np.array(table))
        assert res.method == "stuart-maxwell-exact" and res.pvalue == pytest.approx(mcnemar(table).pvalue)
    assert stuart_maxwell(np.array([[10, 3], [0, 20]])).pvalue == pytest.approx(0.25)  # chi-square: 0.083


def swapped_tables(table):
    """Every table made by swapping any subset of the discordant seeds' (a, b) to (b, a)."""
    seeds = [(a, b) for a in range(len(table)) for b in range(len(table)) if a != b for _ in range(table[a][b])]
    for mask in range(2 ** len(seeds)):
        t = np.diag(np.diag(table)).astype(np.int64)
        for n, (a, b) in enumerate(seeds):
            t[(b, a) if mask >> n & 1 else (a, b)] += 1
        yield t


@pytest.mark.parametrize("table", [[[10, 2, 3], [1, 5, 2], [4, 0, 20]], [[30, 0, 4], [3, 2, 0], [0, 1, 25]],
                                   [[5, 6, 1], [0, 9, 2], [1, 0, 7]]])
def test_stuart_maxwell_exact_p_is_the_share_of_swapped_discordant_seeds_with_a_statistic_as_large(table):
    observed = stuart_maxwell(np.array(table), exact_below=0).statistic
    statistics = [stuart_maxwell(t, exact_below=0).statistic for t in swapped_tables(table)]
    brute_force = np.mean([s >= observed * (1 - 1e-9) for s in statistics])
    res = stuart_maxwell(np.array(table))
    assert res.method == "stuart-maxwell-exact" and res.statistic == pytest.approx(observed)
    assert res.pvalue == pytest.approx(brute_force)


def size_given_the_discordant_seeds(m01, m02, m12, exact_below=25):
    """P(p < 5 %) when nothing changed: each pair of categories splits its m seeds Binomial(m, 1/2)."""
    size = 0.0
    for x01 in range(m01 + 1):
        for x02 in range(m02 + 1):
            for x12 in range(m12 + 1):
                t = np.array([[9, x01, x02], [m01 - x01, 9, x12], [m02 - x02, m12 - x12, 9]])
                if stuart_maxwell(t, exact_below).pvalue < ALPHA:
                    size += binom.pmf(x01, m01, 0.5) * binom.pmf(x02, m02, 0.5) * binom.pmf(x12, m12, 0.5)
    return size


@pytest.mark.parametrize("m", [(4, 0, 0), (5, 0, 0), (9, 0, 0), (0, 6, 0), (3, 2, 4), (5, 1, 2), (8, 0, 7)])
def test_stuart_maxwell_with_few_discordant_seeds_calls_a_change_at_most_5_percent_of_the_time(m):
    assert size_given_the_discordant_seeds(*m) <= ALPHA


def test_the_chi_square_stuart_maxwell_calls_four_seeds_moving_one_way_a_change():
    assert size_given_the_discordant_seeds(4, 0, 0, exact_below=0) == pytest.approx(1 / 8)


def test_stuart_maxwell_p_of_a_large_change_is_tiny_not_zero():
    """Before: statsmodels' 1 - cdf printed p = 0 for an outcome mix that moved a lot (a helper's audit)."""
    res = stuart_maxwell(np.array([[300, 10, 150], [5, 40, 20], [10, 5, 400]]))
    assert 0.0 < res.pvalue < 1e-20
    assert res.pvalue == pytest.approx(chi2.sf(res.statistic, 2), rel=1e-9)


def test_stuart_maxwell_drops_a_category_that_never_changes():
    with_silent_draws = np.array([[10, 0, 5], [0, 20, 0], [3, 0, 7]])
    assert stuart_maxwell(with_silent_draws) == stuart_maxwell(np.array([[10, 5], [3, 7]]))
    assert stuart_maxwell(np.diag([3, 4, 5])).pvalue == 1.0


def test_mann_whitney_effect_is_the_rank_biserial_of_all_pairs():
    x, y = np.array([1.0, 2, 3, 4]), np.array([3.0, 4, 5, 6, 7])
    res = mann_whitney(x, y)
    wins = sum((a > b) + 0.5 * (a == b) for a in x for b in y)
    assert res.statistic == pytest.approx(wins)
    assert res.effect == pytest.approx(2 * wins / 20 - 1)
    assert mann_whitney(y + 10, x).effect == 1.0


def test_mann_whitney_flags_a_shift_in_game_length_and_not_an_identical_distribution():
    rng = np.random.default_rng(5)
    base = rng.poisson(60, size=800)
    assert mann_whitney(rng.poisson(63, size=800), base).pvalue < 1e-3
    nulls = [mann_whitney(rng.poisson(60, 200), rng.poisson(60, 200)).pvalue for _ in range(N_NULL)]
    assert np.mean(np.array(nulls) < ALPHA) <= FPR_CEILING


def test_holm_matches_hand_computed_step_down_values():
    res = holm([0.01, 0.04, 0.03, 0.2])
    # sorted: 0.01*4, 0.03*3, max(0.04*2, 0.09), 0.2*1
    assert res.adjusted == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert res.reject.tolist() == [True, False, False, False]


def test_holm_matches_statsmodels_on_random_p_values():
    p = np.random.default_rng(6).random(25) ** 3
    reject, adjusted, _, _ = multipletests(p, alpha=0.1, method="holm")
    res = holm(p, alpha=0.1)
    assert res.adjusted == pytest.approx(adjusted) and (res.reject == reject).all()


@pytest.mark.parametrize("bad", [[], [0.5, 1.2], [-0.1], [np.nan]])
def test_holm_rejects_impossible_p_values(bad):
    with pytest.raises(ValueError):
        holm(bad)


@pytest.mark.parametrize("table", [np.array([[1, 2], [3, -1]]), np.array([[1.5, 2], [3, 1]]),
                                   np.zeros((2, 2), int), np.ones((3, 3), int)])
def test_mcnemar_rejects_tables_that_are_not_2x2_counts(table):
    with pytest.raises(ValueError):
        mcnemar(table)


def test_few_seeds_are_judged_by_the_exact_sign_flip_test_not_the_t_test():
    # four seeds loss -> win and one draw -> win: weaker evidence than five loss -> win,
    # and the exact test says so (p = 1/16 both); a t-test gave 0.0008
    weaker, _ = paired_score_difference(np.array([[0, 0, 4], [0, 0, 1], [0, 0, 0]]))
    stronger, ci = paired_score_difference(np.array([[0, 0, 5], [0, 0, 0], [0, 0, 0]]))
    assert weaker.method == "sign-flip-exact" and weaker.pvalue == pytest.approx(1 / 16)
    assert stronger.pvalue == pytest.approx(1 / 16)
    assert ci.contains(0.0)  # the interval agrees with p > 0.05 at five seeds


def test_sign_flip_pvalue_matches_brute_force_enumeration():
    import itertools

    table = np.array([[2, 1, 3], [1, 1, 2], [0, 1, 2]])
    values, counts = score_differences(table)
    d = np.repeat(values, counts)
    observed = abs(d.sum())
    flips = [abs(np.dot(signs, np.abs(d))) >= observed - 1e-12 for signs in itertools.product((-1, 1), repeat=d.size)]
    assert sign_flip_pvalue(values, counts) == pytest.approx(np.mean(flips))



def _table_with_moves(n, up_one=0, down_one=0, up_half=0, down_half=0):
    t = np.zeros((3, 3), np.int64)
    t[0, 2], t[2, 0], t[1, 2], t[2, 1] = up_one, down_one, up_half, down_half
    t[1, 1] = n - up_one - down_one - up_half - down_half
    return t


@pytest.mark.parametrize("n,up,exact", [(200, 4, 1 / 8), (201, 4, 1 / 8), (1000, 5, 1 / 16), (100_000, 4, 1 / 8)])
def test_score_test_stays_exact_when_few_of_many_seeds_moved(n, up, exact):
    # what decides the test's size is how many seeds moved; a t-test over 201 seeds, 4 of them
    # up by 1, gave p = 0.045 and could turn a compare verdict
    res, _ = paired_score_difference(_table_with_moves(n, up_one=up))
    assert res.method == "sign-flip-exact" and res.pvalue == pytest.approx(exact)


def test_sign_flip_pvalue_matches_the_full_null_distribution_of_many_moved_seeds():
    values = np.array([0.5, -0.5, 1.0, -1.0])
    counts = np.array([32, 25, 25, 18])  # 57 seeds moved by 1/2, 43 by 1: sum d = 10.5
    c1, c2 = 57, 43
    k1, k2 = np.arange(c1 + 1), np.arange(c2 + 1)
    half_points = (2 * k1 - c1)[:, None] + 2 * (2 * k2 - c2)[None, :]
    chance = binom.pmf(k1, c1, 0.5)[:, None] * binom.pmf(k2, c2, 0.5)[None, :]
    expected = chance[np.abs(half_points) >= 21].sum()
    assert 0.0 < expected < 0.5
    assert sign_flip_pvalue(values, counts) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("moved", range(1, 31))
def test_score_test_holds_its_size_whatever_number_of_seeds_moved(moved):
    # under no change each of the moved seeds (by 1, among 1000) went up or down with equal chance;
    # the chance of a rejection, summed exactly over how many went up, stays within alpha
    # (the t-test rejected 12.5 % of the time with 4 seeds moved, 6-8 % with many of 8-29)
    size = sum(binom.pmf(up, moved, 0.5) for up in range(moved + 1)
               if paired_score_difference(_table_with_moves(1000, up_one=up, down_one=moved - up))[0].pvalue <= ALPHA)
    assert size <= ALPHA


def test_mann_whitney_on_a_few_games_is_the_exact_permutation_test():
    # five games a run, every candidate length above every baseline one, with ties:
    # 2 of the C(10, 5) = 252 splits are as extreme
    baseline, candidate = [10, 11, 11, 12, 13], [14, 15, 15, 16, 20]
    res = mann_whitney(candidate, baseline)
    assert res.method == "mann-whitney-u-exact" and res.pvalue == pytest.approx(2 / 252)
    assert mann_whitney(np.arange(30), np.arange(30) + 0.5).method == "mann-whitney-u"


def test_mann_whitney_of_a_single_game_against_others_is_exact():
    # one candidate game longer than both baseline ones: 1 of the 3 splits is as extreme each way
    res = mann_whitney([3.0], [1.0, 2.0])
    assert res.method == "mann-whitney-u-exact" and res.pvalue == pytest.approx(2 / 3)


def test_mann_whitney_exact_p_is_scipys_permutation_test_on_tied_samples():
    from scipy.stats import permutation_test

    def u(x, y, axis=-1):
        diff = np.expand_dims(x, -1) - np.expand_dims(y, -2)
        return np.sum((diff > 0) + 0.5 * (diff == 0), axis=(-2, -1))

    rng = np.random.default_rng(5)
    for nx, ny in [(2, 2), (3, 6), (5, 5), (7, 4)]:
        x, y = rng.integers(0, 4, nx).astype(float), rng.integers(0, 4, ny).astype(float)
        ref = permutation_test((x, y), u, permutation_type="independent", alternative="two-sided",
                               n_resamples=np.inf, vectorized=True).pvalue
        assert mann_whitney(x, y).pvalue == pytest.approx(ref, rel=1e-12)
