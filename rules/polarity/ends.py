"""Sudden ends and the winner: pure functions of the rules and the table.

``sudden_end`` checks, after every resolution, in this order of precedence:
R14 red touched, R15 red moved, R17 a stack emptied (even if the same
resolution refilled it), R16 a player with no colour showing. It returns
``(end_reason, loser, cause)`` or ``None``. ``winner`` applies R18.
"""

from __future__ import annotations

from rules.polarity.state import colour


def sudden_end(rules, seat: int, red_touched: bool, red_moved: bool, stacks, emptied: bool, shown: set[int]):
    """The end a resolution by ``seat`` triggers, or None. ``shown``: colours (``up``) visible on the mat."""
    if rules.red_sudden_death and red_touched:
        return "red_touched", seat, "R14"
    if rules.red_moved_loses and red_moved:
        return "red_moved", seat, "R15"
    if rules.end_when == "stack_empty" and (emptied or 0 in stacks):
        return "stack_empty", None, ""
    if rules.end_when == "both_stacks_empty" and list(stacks) == [0, 0]:
        return "stack_empty", None, ""
    if rules.no_colour_loses:
        lacking = [s for s in (0, 1) if colour(s) not in shown]
        if lacking:
            return "no_colour_on_mat", seat if seat in lacking else lacking[0], "R16"
    return None


def winner(scores, loser: int | None, reason: str) -> int | None:
    """R18: a sudden end's loser loses; else the higher score wins, equal is a draw (-1).
    A game cut by the physics step budget has no winner (None)."""
    if loser is not None:
        return 1 - loser
    if reason == "step_budget":
        return None
    return -1 if scores[0] == scores[1] else int(scores[1] > scores[0])


def red_orientation(choice: str, rng) -> str:
    """R1: the knob's value, or a fair coin from the ``red`` stream."""
    if choice != "random":
        return choice
    return "bar" if rng.random() < 0.5 else "dot"
