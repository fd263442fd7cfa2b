"""Polar's openings (P2) in ``polsim analyze``: classes under the board's
eight symmetries, Black's score per class, and which classes favour a colour."""

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

from pipelines.analyze import measure
from pipelines.cli import app
from pipelines.dataset import open_runs
from pipelines.measures_openings import class_key_sql, describe_class, opening_balance, openings
from pipelines.scope import Scope
from pipelines.stats.proportion import sign_test_p
from tests.test_analyze_measures import polar_run  # noqa: F401  (fixture: 80 games, greedy vs random)

runner = CliRunner()


def adjacent_ordered_pairs(n):
    pairs = []
    for y in range(n):
        for x in range(n):
            p = y * n + x
            if x + 1 < n:
                pairs += [(p, p + 1), (p + 1, p)]
            if y + 1 < n:
                pairs += [(p, p + n), (p + n, p)]
    return pairs


def symmetry_images(n):
    """For each of the 8 symmetries, an array mapping a point to its image (numpy's rotations and transpose)."""
    idx = np.arange(n * n).reshape(n, n)
    images = []
    for grid in [np.rot90(idx, k) for k in range(4)] + [np.rot90(idx.T, k) for k in range(4)]:
        image = np.empty(n * n, dtype=np.int64)
        image[grid.ravel()] = np.arange(n * n)
        images.append(image)
    return images


def sql_keys(n, pairs):
    con = duckdb.connect()
    con.register("t", pa.table({"a": [a for a, _ in pairs], "b": [b for _, b in pairs], "n": [n] * len(pairs)}))
    return [k for (k,) in con.execute(f"SELECT {class_key_sql()} FROM t").fetchall()]


@pytest.mark.parametrize("n", [5, 9, 11])
def test_p2_opening_classes_are_the_orbits_of_the_square_boards_eight_symmetries(n):
    pairs = adjacent_ordered_pairs(n)
    images = symmetry_images(n)
    orbit = {(a, b): frozenset((int(im[a]), int(im[b])) for im in images) for a, b in pairs}
    keys = dict(zip(pairs, sql_keys(n, pairs)))
    for pair in pairs:
        assert keys[pair] == min(a * n * n + b for a, b in orbit[pair])
    assert len(set(keys.values())) == len(set(orbit.values()))
    half = (n + 1) // 2
    for key in set(keys.values()):
        label = describe_class(key, n)
        by, bx = (int(v) for v in label[2:label.index(")")].split(","))
        assert 1 <= by <= half and 1 <= bx <= half, label  # counted from the corner nearest the black stone


def test_p2_the_colours_matter_an_opening_and_its_colour_swap_are_other_classes():
    assert describe_class(sql_keys(9, [(0, 1)])[0], 9) == "B(1,1)-W(1,2)"
    assert describe_class(sql_keys(9, [(1, 0)])[0], 9) == "B(1,2)-W(1,1)"
    assert sql_keys(9, [(0, 1)]) == sql_keys(9, [(80, 79)]) == sql_keys(9, [(72, 63)])


def test_the_vectorised_sign_test_is_scipys_binomtest():
    wins, decided = np.array([0, 3, 9, 50, 61, 0, 600, 1]), np.array([0, 3, 12, 100, 100, 5, 1100, 1])
    expected = [binomtest(int(k), int(n)).pvalue if n else 1.0 for k, n in zip(wins, decided)]
    assert sign_test_p(wins, decided) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def scope_of(rows):
    con = duckdb.connect()
    con.register("t", pa.Table.from_pylist(rows))
    con.execute("CREATE VIEW games AS SELECT * FROM t")
    con.execute("CREATE VIEW seats AS SELECT * FROM t")
    return Scope.of(con)


def game(a, b, colour_0, winner, size=9, status="ok"):
    return dict(opening_a=a, opening_b=b, colour_0=colour_0, rule_size=size, winner=winner, status=status)


def test_openings_score_black_from_colour_0_and_pool_an_openings_images():
    rows = ([game(0, 1, "black", 0)] * 30 + [game(80, 79, "white", 1)] * 30  # one class: Black wins all 60
            + [game(1, 0, "black", 1)] * 29 + [game(1, 0, "white", 0)] * 29 + [game(1, 0, "black", -1)] * 2
            + [game(10, 11, "black", 0, status="error")] * 5)  # failed games are left out
    table = {r["opening"]: r for r in openings(scope_of(rows))}
    assert set(table) == {"B(1,1)-W(1,2)", "B(1,2)-W(1,1)"}
    black = table["B(1,1)-W(1,2)"]
    assert (black["games"], black["black_wins"], black["draws"], black["white_wins"]) == (60, 60, 0, 0)
    white = table["B(1,2)-W(1,1)"]
    assert (white["games"], white["black_wins"], white["draws"], white["white_wins"]) == (60, 0, 2, 58)
    assert white["black_score_rate"] == pytest.approx(1 / 60)
    assert [black["favours"], white["favours"]] == ["black", "white"]
    assert list(table) == ["B(1,2)-W(1,1)", "B(1,1)-W(1,2)"]  # from White's best class to Black's


def test_a_class_favours_a_colour_only_when_holm_across_the_classes_says_so():
    # 9 of 12 decided games is p = 0.146 alone; 60 of 60 is far below any correction
    rows = [game(0, 1, "black", 0)] * 9 + [game(0, 1, "black", 1)] * 3 + [game(1, 0, "black", 0)] * 60
    table = {r["opening"]: r for r in openings(scope_of(rows))}
    assert table["B(1,1)-W(1,2)"]["favours"] == "neither"
    assert table["B(1,1)-W(1,2)"]["p_holm"] >= table["B(1,1)-W(1,2)"]["p"]
    assert table["B(1,2)-W(1,1)"]["favours"] == "black"
    summary, = opening_balance(scope_of(rows))
    assert (summary["classes"], summary["favour_black"], summary["favour_white"], summary["favour_neither"]) == (2, 1, 0, 1)
    assert summary["most_even_opening"] == "B(1,1)-W(1,2)" and summary["black_score_max"] == 1.0
    assert summary["same_mix_p"] < 0.01  # 75 % against 100 %, 72 games; no draws, so no draw column
    # sparse (3 White wins in all): the p-value of the statistic's exact distribution, by random tables
    assert summary["same_mix_method"].startswith("monte carlo")
    assert summary["same_mix_p"] == pytest.approx(0.00369, abs=0.0015)


def test_the_same_mix_everywhere_is_not_called_an_opening_effect():
    rows = [game(a, b, "black", w) for a, b in [(0, 1), (1, 0), (4, 13)] for w in [0] * 20 + [1] * 20]
    summary, = opening_balance(scope_of(rows))
    assert summary["same_mix_p"] == pytest.approx(1.0) and summary["same_mix_method"] == "chi-square"
    assert summary["favour_neither"] == 3


def test_openings_of_a_real_run_count_every_game_once_by_its_opening_orbit(polar_run):
    games = pq.ParquetDataset(f"{polar_run}/games").read().to_pylist()
    images = symmetry_images(9)
    expected = {}
    for g in games:
        key = min(int(im[g["opening_a"]]) * 81 + int(im[g["opening_b"]]) for im in images)
        black_won = g["winner"] in (0, 1) and (g["winner"] == 0) == (g["colour_0"] == "black")
        wins, n = expected.get(key, (0, 0))
        expected[key] = (wins + black_won, n + 1)
    con, _ = open_runs([polar_run])
    table = measure(con, groups=["polar"], asked=["openings"])["openings"]
    assert {r["class_key"]: (r["black_wins"], r["games"]) for r in table} == expected
    assert sum(r["games"] for r in table) == len(games) == 80


def test_openings_table_is_printed_only_when_asked_for(polar_run):
    con, _ = open_runs([polar_run])
    tables = measure(con)
    assert "opening_balance" in tables and "openings" not in tables
    res = runner.invoke(app, ["analyze", polar_run, "--table", "openings", "--format", "csv"])
    assert res.exit_code == 0, res.output
    header = res.stdout.splitlines()[0].split(",")
    assert header[:3] == ["table", "size", "opening"] and "favours" in header
