"""Print named tables of dict rows as rich tables, JSON or CSV.

A short table too wide for the terminal (``TURN_ROWS`` rows at most: the
balance measures, one row of eleven; never a cross table, ``_matrix``,
which turned would read transposed) is shown turned, one line a column
and a column a row, so each name and value reads whole on its line instead
of being folded into slivers. A longer table keeps its shape while it fits
with its values wrapped between words; one that would have to break words
(compare's verdict at 80 columns: "mcnemar-c" over "hi2-cc") is shown as
records, a line a column and a block a row, like psql's expanded display.
Values are never cut ('98…'); only one longer than the whole line folds.

In a rich table a command to copy (``COMMAND_COLUMNS``: ``replay``) would be
wrapped or cut to the column's width; the table shows a reference (``[1]``)
and the commands follow it whole, one a line, never wrapped by rich.

Text that came from outside (a path, a strategy's name, an error's
message) is printed as given: rich would read ``runs[old]`` as markup and
drop ``[old]``. ``print_line`` prints such a line, whole and unwrapped;
table cells are ``Text``, never markup.

JSON is strict (RFC 8259): a number that is not finite (an Elo difference
of a 0 % or 100 % score is -inf / +inf, an undefined ratio NaN) is written
as ``null``, never as ``Infinity`` or ``NaN``, which JSON parsers reject.
"""

from __future__ import annotations

import csv
import io
import json
import math
from enum import Enum

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


COMMAND_COLUMNS = ("replay",)
TURN_ROWS = 4  # a table of at most this many rows that does not fit the terminal is shown turned
RATES = ("win_rate", "win_lo", "win_hi", "score_rate", "score_lo", "score_hi", "share")


def _cell(key: str, value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        if key in RATES:
            return f"{100 * value:.1f} %"
        if abs(value) < 1e6 and (2 * value).is_integer():  # whole and half points (a komi of 100.5) exactly
            return f"{value:.1f}".removesuffix(".0")
        return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"  # never 1e+03 for 999.7
    return str(value)


def _merge_intervals(row: dict) -> dict:
    """Show ``win_rate [lo, hi]`` as one column in tables."""
    out = {}
    for key, value in row.items():
        for stem in ("win", "score"):
            if key == f"{stem}_rate" and f"{stem}_lo" in row:
                value = f"{_cell(key, value)} [{100 * row[f'{stem}_lo']:.1f}, {100 * row[f'{stem}_hi']:.1f}]"
        if key.endswith(("_lo", "_hi")) and key[:-3] + "_rate" in row:
            continue
        out[key] = value
    return out


def _commands_below(rows: list[dict]) -> tuple[list[dict], list[str]]:
    """``rows`` with each command cell replaced by a reference ``[n]``, and the lines ``[n] command``."""
    lines: list[str] = []
    out = []
    for row in rows:
        row = dict(row)
        for key in COMMAND_COLUMNS:
            if isinstance(row.get(key), str):
                lines.append(f"[{len(lines) + 1}] {row[key]}")
                row[key] = f"[{len(lines)}]"
        out.append(row)
    return out, lines


def finite(value):
    """``value`` with every float that is not finite (inf, -inf, NaN), however deep, as None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def print_line(console: Console, *parts: str | tuple[str, str]) -> None:
    """One line of plain text or ``(text, style)`` parts, as given: no markup read in it, nothing
    highlighted, never wrapped (a long path stays whole, to copy)."""
    console.print(Text.assemble(*parts), highlight=False, soft_wrap=True)


def _text(key: str, value) -> Text:
    return Text(value if isinstance(value, str) else _cell(key, value))


def _titled(name: str) -> Table:
    return Table(title=name.replace("_", " "), title_justify="left")


def _table(name: str, rows: list[dict], shown: list[dict]) -> Table:
    table = _titled(name)
    for key in shown[0]:
        table.add_column(key, justify="right" if not isinstance(rows[0].get(key), str) else "left",
                         overflow="fold")  # a narrow terminal wraps a value, never cuts it to '98…'
    for row in shown:
        table.add_row(*(_text(k, v) for k, v in row.items()))
    return table


def _width(console: Console, table: Table) -> Measurement:
    """``table``'s width range: minimum with values wrapped between words, maximum with none wrapped."""
    return Measurement.get(console, console.options.update(max_width=10**6), table)


def _plain(cell) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _fit_between_words(table: Table, width: int) -> bool:
    """Give ``table``'s columns widths that wrap values only between words within ``width``: each column
    its longest word, and the room left shared in proportion to what each needs to show its longest line
    whole. False (widths untouched) when even the longest words do not fit. Rich's own squeezing shrinks
    the widest columns first and breaks their words ('safety_limite' over 'd') even where they fit."""
    texts = [[_plain(c.header), *map(_plain, c._cells)] for c in table.columns]
    lines = [max(len(line) for t in col for line in t.splitlines() or [""]) for col in texts]
    words = [max((len(w) for t in col for w in t.split()), default=0) for col in texts]
    room = width - 3 * len(texts) - 1  # a border and a space either side of each column, the last border
    if sum(words) > room:
        return False
    spare, wants = room - sum(words), [ln - w for ln, w in zip(lines, words)]
    shares = [spare * want // max(sum(wants), 1) for want in wants]
    for column, word, line, share in zip(table.columns, words, lines, shares):
        column.width = min(line, word + share)
    return True


def _labels(shown: list[dict]) -> list[str]:
    """The fewest leading columns that tell the rows apart (none for one row; none if only every column would)."""
    keys = list(shown[0])
    for n in range(len(keys)):
        if len({tuple(str(r[k]) for k in keys[:n]) for r in shown}) == len(shown):
            return keys[:n]
    return []


def _matrix(shown: list[dict]) -> bool:
    """Whether ``shown`` is a cross table: its rows are named by its other columns (tournament's row
    strategy against each column strategy). Turned, it would read transposed, each score the other way."""
    first, *others = shown[0]
    return {str(r[first]) for r in shown} <= set(others)


def _turned(name: str, shown: list[dict]) -> Table:
    """``shown`` turned: a line a column, a column a row, headed by the cells that tell the rows apart."""
    table = _titled(name)
    labels = _labels(shown)
    table.add_column("", overflow="fold")
    for n, row in enumerate(shown, 1):
        head = ", ".join(f"{k} {_text(k, row[k])}" for k in labels)
        table.add_column(Text(head or ("value" if len(shown) == 1 else f"row {n}")), overflow="fold")
    for key in shown[0]:
        if key not in labels:
            table.add_row(key, *(_text(key, row[key]) for row in shown))
    return table


def _records(name: str, shown: list[dict]) -> Table:
    """``shown`` as records: a line a column (its name, its value), the rows one block each."""
    table = _titled(name)
    table.show_header = False
    table.add_column("", style="bold", no_wrap=True)
    table.add_column("", overflow="fold")
    for row in shown:
        for key, value in row.items():
            table.add_row(key, _text(key, value))
        table.add_section()
    return table


def print_tables(tables: dict[str, list[dict]], fmt: Format, console: Console | None = None) -> None:
    console = console or Console()
    if fmt is Format.json:
        console.print_json(json.dumps(finite(tables), default=str, allow_nan=False), allow_nan=False)
        return
    if fmt is Format.csv:
        buf = io.StringIO()
        for name, rows in tables.items():
            if not rows:
                continue
            fields = ["table", *rows[0].keys()]
            writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
            writer.writeheader()
            for row in rows:
                writer.writerow({"table": name, **row})
        console.file.write(buf.getvalue())
        return
    for name, rows in tables.items():
        if not rows:
            continue
        shown, commands = _commands_below([_merge_intervals(r) for r in rows])
        table = _table(name, rows, shown)
        if _width(console, table).maximum > console.width:
            if len(shown) <= TURN_ROWS and not _matrix(shown):
                table = _turned(name, shown)
            if _width(console, table).maximum > console.width and not _fit_between_words(table, console.width):
                table = _records(name, shown)
        console.print(table)
        for line in commands:
            print_line(console, line)
