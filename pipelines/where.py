"""``--where column=value`` / ``column!=value`` filters as SQL with parameters.

A value matches what the user is shown (by ``--by``, ``polsim variants`` or
a JSON dump), whatever the column's type:

- a ``BOOLEAN`` column takes ``true`` / ``false`` in any case (``False`` as
  a table prints it, ``false`` as JSON does);
- a numeric column compares as a number (``score_0=198`` matches the
  stored 198.0, ``n_turns=71.0`` the stored 71);
- any other column compares its text (``CAST(col AS VARCHAR)``).

``!=`` keeps the games whose cell is empty (SQL's ``IS DISTINCT FROM``):
``loser_cause!=R14`` keeps the drawn and stack_empty games, which have no
loser, instead of dropping them as ``<>`` would. ``null`` (or ``—``, as a
table prints an empty cell) matches empty cells: ``loser_cause=null``,
``winner!=null``.

A value that cannot be of its column's type is a ``UsageError`` naming the
type. Values only ever reach duckdb as parameters (``?``), never as SQL
text; column names are checked against the known columns and quoted.
"""

from __future__ import annotations

import re

from rules.base import UsageError

BOOLEANS = {"true": True, "false": False}
NULLS = {"null", "none", "—"}
NUMERIC = re.compile(r"(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|REAL|DECIMAL(\(.*\))?)")


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def typed(item: str, col: str, kind: str, value: str) -> tuple[str, object]:
    """The SQL operand for ``col`` and the parameter that ``value`` becomes, by the column's duckdb type."""
    if kind == "BOOLEAN":
        if value.lower() not in BOOLEANS:
            raise UsageError(f"--where {item!r}: {col} is true or false (got {value!r})")
        return quote(col), BOOLEANS[value.lower()]
    if NUMERIC.fullmatch(kind):
        try:
            return quote(col), _number(value)
        except ValueError:
            raise UsageError(f"--where {item!r}: {col} is a number (got {value!r})") from None
    return f"CAST({quote(col)} AS VARCHAR)", value


def split_condition(item: str) -> tuple[str, str, str, bool]:
    """``col=value`` or ``col!=value`` as (column, operator, value, whether it has the operator)."""
    op = "!=" if "!=" in item else "="
    col, sep, value = item.partition(op)
    return col.strip(), op, value, bool(sep)


def parse_where(items: list[str], types: dict[str, str]) -> tuple[str, list]:
    """``col=value`` / ``col!=value`` filters into SQL with parameters; ``types``
    maps each column that may be filtered to its duckdb type."""
    clauses, params = [], []
    for item in items:
        col, op, value, sep = split_condition(item)
        if not sep or not col:
            raise UsageError(f"--where {item!r} is not column=value or column!=value")
        if col not in types:
            raise UsageError(f"--where: unknown column {col!r}; columns: {', '.join(types)}")
        value = value.strip()
        if value.lower() in NULLS:
            clauses.append(f"{quote(col)} IS {'NOT ' if op == '!=' else ''}NULL")
            continue
        operand, param = typed(item, col, types[col], value)
        clauses.append(f"{operand} {'IS DISTINCT FROM' if op == '!=' else '='} ?")
        params.append(param)
    return "".join(f" AND {c}" for c in clauses), params
