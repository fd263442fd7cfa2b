"""Histograms and spread of a measure (pipelines.distribution)."""

from __future__ import annotations

import duckdb
import pytest

from pipelines.distribution import histogram
from pipelines.scope import Scope


def scope_over(values) -> Scope:
    con = duckdb.connect()
    con.execute("CREATE TABLE v AS SELECT unnest(?) AS x", [list(values)])
    return Scope(con, (), "TRUE", (), frozenset(), frozenset(), frozenset())


def test_histogram_of_real_values_has_the_bins_asked_for_the_maximum_in_the_last():
    rows = histogram(scope_over([0.5, 0.9, 1.2, 1.3, 2.0]), "x", "v", "", bins=4)
    assert len(rows) <= 4 and sum(r["count"] for r in rows) == 5
    assert rows[-1]["hi"] == pytest.approx(2.0) and rows[0]["lo"] == 0.5


def test_histogram_of_whole_numbers_gives_each_value_its_own_bin_when_few():
    rows = histogram(scope_over([3, 4, 4, 6]), "x", "v", "", bins=40)
    assert [(r["lo"], r["count"]) for r in rows] == [(3, 1), (4, 2), (6, 1)]
