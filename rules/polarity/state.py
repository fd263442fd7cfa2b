"""Game bookkeeping the physics does not hold: stacks, towers, fault groups.

The physics world knows where every disc is and which face is up; the rules
need three more things, kept here as plain data:

- ``stacks[seat]``: discs left in each player's unplayed stack;
- ``towers``: captured towers, each a controller seat (the colour its top disc
  shows, R13) and its disc ids
  (R10-R13; a one-disc tower is a captured single disc, R12);
- ``pending``: fault groups waiting to be captured, each tagged with the
  seat that must capture it at the start of its next turn (R10, R12).

Seats: 0 is White (moves first, white face up = ``up -1``), 1 is Black
(``up +1``). Scores (R18) are tower discs minus discs left in the stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field

WHITE, BLACK = 0, 1


def colour(seat: int) -> int:
    """The ``up`` value of a seat's colour: White -1 (South up), Black +1."""
    return -1 if seat == WHITE else 1


def seat_of(up: int) -> int:
    """The seat whose colour an ``up`` value shows."""
    return WHITE if up < 0 else BLACK


@dataclass
class Tower:
    controller: int
    ids: list[int]


@dataclass(frozen=True)
class FaultGroup:
    captor: int
    ids: tuple[int, ...]
    flipped_leaner: bool = False  # R12: an opponent's leaner flipped to the faulter's colour


@dataclass
class Table:
    """Stacks, captured towers and pending fault groups of one game."""

    stacks: list[int]
    towers: list[Tower] = field(default_factory=list)
    pending: list[FaultGroup] = field(default_factory=list)

    def tower_of(self, body: int) -> Tower | None:
        return next((t for t in self.towers if body in t.ids), None)

    def tower_ids(self) -> set[int]:
        return {i for t in self.towers for i in t.ids}

    def towers_of(self, seat: int) -> list[Tower]:
        return [t for t in self.towers if t.controller == seat]

    def tower_discs(self, seat: int, single_scores: bool = True) -> int:
        return sum(len(t.ids) for t in self.towers_of(seat) if single_scores or len(t.ids) > 1)

    def score(self, seat: int, single_scores: bool = True, stack: int | None = None) -> float:
        """R18: discs in your towers minus discs left in your stack (``stack``, when given, instead of the
        table's: the stack an R17 end scores, ``Game.scored_stacks``)."""
        return float(self.tower_discs(seat, single_scores) - (self.stacks[seat] if stack is None else stack))
