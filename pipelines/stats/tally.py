"""Tallies: counted results that carry their own invariants.

Two kinds of count, both immutable and validated when made (fishtest habit:
a result is checked where it is made and again where it is read, so every
statistics function that accepts counts rebuilds or re-checks a tally):

- ``Tally(wins, draws, losses, games)`` — single games from one side's point
  of view; ``wins + draws + losses == games``, all non-negative integers.
  Score rate = (wins + draws / 2) / games.
- ``Pentanomial(counts)`` — paired games (same seed, seats swapped, or the
  same seed under two conditions): ``counts[k]`` is the number of pairs whose
  summed score is ``k / 2`` for k = 0..4 (0 = two losses, 2 = two draws or a
  win and a loss, 4 = two wins). Per-game score of a pair = k / 4.

``trinomial`` / ``pentanomial`` return the counts as a float array in the
order of ``TRINOMIAL_SCORES`` / ``PENTANOMIAL_SCORES`` (per-game score of
each category, in [0, 1]), the input of ``sprt``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TRINOMIAL_SCORES = np.array([0.0, 0.5, 1.0])  # loss, draw, win
PENTANOMIAL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # pair score / 2


def _check_count(name: str, value: object) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer count, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    return int(value)


@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses of one side over ``games`` games."""

    wins: int
    draws: int
    losses: int
    games: int

    def __post_init__(self) -> None:
        for name in ("wins", "draws", "losses", "games"):
            object.__setattr__(self, name, _check_count(name, getattr(self, name)))
        if self.wins + self.draws + self.losses != self.games:
            raise ValueError(
                f"wins + draws + losses = {self.wins + self.draws + self.losses} "
                f"but games = {self.games}"
            )

    @classmethod
    def of(cls, wins: int, draws: int, losses: int) -> "Tally":
        """A tally whose game count is the sum of its parts."""
        return cls(wins, draws, losses, int(wins) + int(draws) + int(losses))

    @classmethod
    def from_winners(cls, winners: np.ndarray, side: int) -> "Tally":
        """Tally of seat ``side`` (0 or 1) from a ``winner`` column: seat
        index of the winner, -1 for a draw. Failed games (null winners) must
        be filtered out first; any other value is refused."""
        w = np.asarray(winners)
        if side not in (0, 1):
            raise ValueError(f"side must be seat 0 or 1, got {side}")
        if w.ndim != 1 or not np.isin(w, (-1, 0, 1)).all():
            raise ValueError("winners must be a 1-D array of 0, 1 or -1 (draw)")
        return cls.of(int((w == side).sum()), int((w == -1).sum()), int((w == 1 - side).sum()))

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    @property
    def score(self) -> float:
        """Score rate in [0, 1] (draws as half wins); needs games > 0."""
        if self.games == 0:
            raise ValueError("score rate of an empty tally is undefined")
        return self.points / self.games

    def flipped(self) -> "Tally":
        """The same games from the opponent's point of view."""
        return Tally(self.losses, self.draws, self.wins, self.games)

    def trinomial(self) -> np.ndarray:
        """Counts ordered as ``TRINOMIAL_SCORES``: [losses, draws, wins]."""
        return np.array([self.losses, self.draws, self.wins], dtype=float)

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(self.wins + other.wins, self.draws + other.draws,
                     self.losses + other.losses, self.games + other.games)


@dataclass(frozen=True)
class Pentanomial:
    """Counts of game pairs by summed pair score 0, 1/2, 1, 3/2, 2."""

    counts: tuple[int, int, int, int, int]

    def __post_init__(self) -> None:
        counts = tuple(self.counts)
        if len(counts) != 5:
            raise ValueError(f"a pentanomial has 5 counts, got {len(counts)}")
        checked = tuple(_check_count(f"counts[{i}]", c) for i, c in enumerate(counts))
        object.__setattr__(self, "counts", checked)

    @classmethod
    def from_pair_scores(cls, pair_scores: np.ndarray) -> "Pentanomial":
        """From per-pair summed scores (values in {0, 0.5, 1, 1.5, 2})."""
        halves = np.asarray(pair_scores, dtype=float) * 2
        index = np.rint(halves).astype(int)
        if np.any(np.abs(halves - index) > 1e-9) or np.any((index < 0) | (index > 4)):
            raise ValueError("pair scores must be multiples of 1/2 in [0, 2]")
        return cls(tuple(int(c) for c in np.bincount(index, minlength=5)))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """Per-game score rate in [0, 1]; needs pairs > 0."""
        if self.pairs == 0:
            raise ValueError("score rate of an empty pentanomial is undefined")
        return float(np.dot(self.counts, PENTANOMIAL_SCORES) / self.pairs)

    def pentanomial(self) -> np.ndarray:
        """Counts ordered as ``PENTANOMIAL_SCORES``."""
        return np.array(self.counts, dtype=float)

    def __add__(self, other: "Pentanomial") -> "Pentanomial":
        return Pentanomial(tuple(a + b for a, b in zip(self.counts, other.counts)))


def as_tally(value: "Tally | tuple[int, int, int]") -> Tally:
    """Read a tally (re-checking it) from a ``Tally`` or ``(wins, draws, losses)``."""
    if isinstance(value, Tally):
        return Tally(value.wins, value.draws, value.losses, value.games)
    wins, draws, losses = value
    return Tally.of(wins, draws, losses)
