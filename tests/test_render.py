"""Terminal tables: what a narrow terminal shows of them."""

from __future__ import annotations

import io

from rich.console import Console

from pipelines.render import Format, print_tables


def column(text: str, k: int) -> str:
    """The k-th column's cells of a rendered table body, joined (a wrapped value back in one piece)."""
    return "".join(line.split("│")[k + 1].strip() for line in text.splitlines() if line.startswith("│"))


def test_a_table_too_wide_for_the_terminal_wraps_values_and_cuts_none():
    """Before: at 80 columns a long value showed as 'po…' or '98…'."""
    row = {"variant": "polar-9-groupscore-with-a-long-name", "cell": "size=9,swap=false,score_n=group",
           "games": 123456789, "note": "x" * 30, "more": "y" * 30}
    buf = io.StringIO()
    print_tables({"length": [row]}, Format.table, Console(file=buf, width=80, color_system=None))
    text = buf.getvalue()
    assert "…" not in text
    assert [column(text, k) for k in range(5)] == [str(v) for v in row.values()]
