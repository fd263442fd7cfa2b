"""A game's length in turns of play: ``n_turns`` less the turns that set the board up.

Polarity records its foundation placements (R1-R3) as its first
``2 x foundations`` turns (``rules/polarity/records.py``), so ``n_turns``
of a standard game holds 10 turns that are not play and of a
three-foundations game 6: counted in, three foundations looked 4 turns
shorter than it plays, and no game could be decided before turn 10. Every
length measure (``analyze``'s length and decisiveness, ``compare``'s game
length, ``sweep``'s mean turns, the report's histogram) reads
``play_turns_sql`` instead. Games without setup turns (Polar: its opening
stones are moves) count every turn.

``SETUP_TURNS`` maps a game to the SQL of its setup turns over a games row
(``{p}``: where a table alias goes) and the columns that SQL needs; a run
that lacks them counts none.
"""

from __future__ import annotations

SETUP_TURNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "polarity": ("2 * {p}rule_foundations", ("rule_foundations",)),
}


def _counted(columns) -> dict[str, tuple[str, tuple[str, ...]]]:
    """The ``SETUP_TURNS`` entries a view with ``columns`` can read (it names each game, and has their columns)."""
    return {game: entry for game, entry in SETUP_TURNS.items() if "game" in columns and set(entry[1]) <= set(columns)}


def setup_turns_sql(columns, prefix: str = "") -> str:
    """SQL of a games row's setup turns, over a view with ``columns`` (``prefix``: a table alias and dot)."""
    cases = [f"WHEN '{game}' THEN {sql.format(p=prefix)}" for game, (sql, _) in _counted(columns).items()]
    return f"coalesce(CASE {prefix}game {' '.join(cases)} ELSE 0 END, 0)" if cases else "0"


def setup_columns(columns) -> list[str]:
    """The games columns ``setup_turns_sql`` reads (none when it counts no setup turns)."""
    counted = _counted(columns)
    return ["game", *sorted({c for _, needs in counted.values() for c in needs})] if counted else []


def play_turns_sql(columns, prefix: str = "") -> str:
    """SQL of a games row's turns of play: ``n_turns`` less its setup turns, never below 0."""
    setup = setup_turns_sql(columns, prefix)
    return f"{prefix}n_turns" if setup == "0" else f"greatest({prefix}n_turns - {setup}, 0)"
