"""Rows made readable for people: each estimate and its interval in one cell.

``readable(rows)`` merges every ``X_rate``/``X_lo``/``X_hi`` triple into a
column ``X`` shown as ``"62.1 % [60.0, 64.2]"`` (rates, in per cent) and
every ``X``/``X_lo``/``X_hi`` triple into ``"68.6 [68.3, 68.8]"`` (other
estimates: means, balance, margins). When the row has a column ``X`` of its
own beside ``X_rate`` (the swap table's ``pick``, a colour, and
``pick_rate``, how often it is picked), both are kept: the merged cell is
then named ``X_rate``. Other cells are left as they are, so JSON and CSV
keep the raw numbers and only tables and the report use this.
"""

from __future__ import annotations

PERCENT_STEMS = ("balance", "share")


def number(value, percent: bool = False, digits: int = 3) -> str:
    if value is None:
        return "—"
    if percent:
        return f"{100 * value:.1f}"
    if isinstance(value, int):
        return str(value)
    if abs(value) < 1e6 and (2 * value).is_integer():  # whole and half points (a komi) shown exactly
        return f"{value:,.1f}".removesuffix(".0")
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def interval_text(est, lo, hi, percent: bool) -> str:
    if est is None:
        return "—"
    unit = " %" if percent else ""
    if lo is None or hi is None:
        return f"{number(est, percent)}{unit}"
    return f"{number(est, percent)}{unit} [{number(lo, percent)}, {number(hi, percent)}]"


def _triples(row: dict) -> dict[str, tuple[str, str, str, bool]]:
    """Output column -> (estimate key, low key, high key, is a rate)."""
    found = {}
    for key in row:
        if key.endswith("_lo"):
            stem = key[:-3]
            if f"{stem}_hi" not in row:
                continue
            if f"{stem}_rate" in row:
                found[stem] = (f"{stem}_rate", key, f"{stem}_hi", True)
            elif stem in row:
                found[stem] = (stem, key, f"{stem}_hi", stem in PERCENT_STEMS)
    return found


def readable_row(row: dict) -> dict:
    triples = _triples(row)
    parts = {k for t in triples.values() for k in t[:3]}
    out = {}
    for key, value in row.items():
        stem = next((s for s, t in triples.items() if t[0] == key), None)
        if stem is not None:
            est, lo, hi, percent = triples[stem]
            out[stem if est == stem or stem not in row else est] = interval_text(row[est], row[lo], row[hi], percent)
        elif key not in parts:
            out[key] = value
    return out


def readable(rows: list[dict]) -> list[dict]:
    return [readable_row(r) for r in rows]


def readable_tables(tables: dict[str, list[dict]]) -> dict[str, list[dict]]:
    return {name: readable(rows) for name, rows in tables.items()}
