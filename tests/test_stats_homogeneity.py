"""``same_mix``: one outcome mix across groups, with an exact-enough p-value
for sparse tables (Monte Carlo over tables with the same margins)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chi2_contingency, hypergeom

from pipelines.stats import homogeneity
from pipelines.stats.homogeneity import same_mix


def exact_p_two_by_two(table) -> float:
    """P(chi-square statistic >= the observed one) over every table with the same margins."""
    (a, b), (c, d) = table
    rows, first_col, n = a + b, a + c, a + b + c + d

    def statistic(x):
        return chi2_contingency([[x, rows - x], [first_col - x, n - rows - first_col + x]], correction=False).statistic

    support = range(max(0, rows + first_col - n), min(rows, first_col) + 1)
    observed = statistic(a)
    law = hypergeom(n, first_col, rows)
    return sum(law.pmf(x) for x in support if statistic(x) >= observed * (1 - 1e-12))


@pytest.mark.parametrize("table", [[[9, 3], [60, 0]], [[4, 1], [2, 6]], [[30, 2], [25, 0]]])
def test_a_sparse_two_by_two_table_gets_the_exact_p_of_its_statistic(table):
    mix = same_mix(table)
    exact = exact_p_two_by_two(table)
    assert mix.method.startswith("monte carlo")
    tables = homogeneity.MONTE_CARLO_TABLES
    assert abs(mix.p - exact) < 4 * math.sqrt(exact * (1 - exact) / tables) + 1 / tables


def test_the_asymptotic_p_of_a_sparse_table_is_far_off_and_not_used():
    table = [[9, 3], [60, 0]]
    assert chi2_contingency(table, correction=False).pvalue < exact_p_two_by_two(table) / 20
    assert same_mix(table).p > exact_p_two_by_two(table) / 2


def test_a_table_whose_expected_counts_are_all_five_or_more_gets_the_chi_square_p():
    table = [[50, 10, 40], [45, 12, 43], [60, 5, 35]]
    mix = same_mix(table)
    assert mix.method == "chi-square" and mix.p == chi2_contingency(table, correction=False).pvalue


def test_the_same_table_always_gets_the_same_p():
    table = [[3, 0, 5], [6, 1, 1], [2, 0, 7]]
    assert same_mix(table) == same_mix(np.array(table))


def test_outcomes_no_group_has_and_empty_groups_are_left_out():
    assert same_mix([[20, 0, 20], [20, 0, 20], [0, 0, 0]]) == same_mix([[20, 20], [20, 20]])
    assert same_mix([[5, 0, 0], [7, 0, 0]]) is None and same_mix([[5, 1, 3]]) is None


def test_negative_counts_are_refused():
    with pytest.raises(ValueError, match="non-negative counts"):
        same_mix([[3, -1], [2, 2]])


def test_sparse_groups_of_one_mix_are_called_different_about_5_percent_of_the_time(monkeypatch):
    monkeypatch.setattr(homogeneity, "MONTE_CARLO_TABLES", 499)
    rng = np.random.default_rng(7)
    tables = [rng.multinomial(8, [0.45, 0.03, 0.52], size=20) for _ in range(300)]
    rejected = sum(same_mix(t).p <= 0.05 for t in tables)
    assert all(same_mix(t).method.startswith("monte carlo") for t in tables[:5])
    sigma = math.sqrt(0.05 * 0.95 / len(tables))
    assert 0.05 - 3 * sigma <= rejected / len(tables) <= 0.05 + 3 * sigma


def test_sparse_groups_of_different_mixes_are_found_different():
    rng = np.random.default_rng(8)
    table = np.vstack([rng.multinomial(8, [0.2, 0.03, 0.77], size=10), rng.multinomial(8, [0.8, 0.03, 0.17], size=10)])
    mix = same_mix(table)
    assert mix.method.startswith("monte carlo") and mix.p < 0.001
