"""Polar's strategies: pydantic parameter models and their numba codes.

A ``StrategyDef.make(params)`` returns a ``SeatCode`` (kind code and a
``float64[N_PARAMS]`` vector) that ``play_batch`` hands to the numba core;
``policies.py`` and ``mcts.py`` are the kernels those codes select.

- ``random``: uniform over legal moves; random opening and colour.
- ``greedy``: the move with the best immediate score margin for itself, ties
  at random; ``epsilon``: probability of a random move instead. Opening: a
  random pair, with or without swap (every opening scores 0-0, so all pairs
  tie on the margin); as chooser it takes Black (the tempo: both colours
  stand at 0 and Black moves next, with a move that scores at once).
  Greedy games show a *centre rule* (``polsim analyze --table openings``):
  the colour whose stone is nearer the centre wins more, unless both stones
  are on the edge, where it and Black's tempo nearly cancel.
  ``opening=edge``: as proposer, a pair along the edge (with swap the white
  stone nearer the centre; without swap, the proposer being Black, the black
  one). ``choose=centre``: as chooser, the colour whose stone is nearer the
  centre.
- ``mcts``: UCT with ``playouts`` iterations per decision, exploration ``c``,
  ``playout`` policy ``random`` or ``greedy`` (epsilon-greedy with
  ``playout_epsilon``). Opening: of 4 random pairs (each searched with
  playouts/4), with swap the one whose searched value for Black is nearest
  1/2 (the chooser will take the better colour), without swap (the proposer
  is Black) the one with the highest value for Black; as chooser the colour
  its search rates better.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import Field

from rules.base import StrategyDef, StrategyParams, StrategySpec
from rules.polar import policies as pol


@dataclass(frozen=True)
class SeatCode:
    """What the numba core needs to know of a seat's strategy."""

    kind: int
    params: tuple[float, ...]

    def vector(self) -> np.ndarray:
        out = np.zeros(pol.N_PARAMS, np.float64)
        out[: len(self.params)] = self.params
        return out


class RandomParams(StrategyParams):
    pass


class GreedyParams(StrategyParams):
    epsilon: float = Field(0.0, ge=0.0, le=1.0, description="probability of a random move")
    opening: Literal["random", "edge"] = Field(
        "random", description="as proposer: a random pair, or a pair along the edge with the chooser's "
        "best colour unclear (with swap the white stone nearer the centre; without, the black one)")
    choose: Literal["black", "centre"] = Field(
        "black", description="as chooser: Black (the tempo), or the colour whose stone is nearer the centre")


class MctsParams(StrategyParams):
    playouts: int = Field(200, ge=1, le=100_000, description="search iterations per decision")
    c: float = Field(0.7, ge=0.0, le=10.0, description="UCT exploration constant")
    playout: Literal["random", "greedy"] = Field("random", description="playout policy")
    playout_epsilon: float = Field(
        0.2, ge=0.0, le=1.0, description="random-move probability in greedy playouts"
    )


def _make_random(_: RandomParams) -> SeatCode:
    return SeatCode(pol.RANDOM, ())


def _make_greedy(p: GreedyParams) -> SeatCode:
    opening = pol.OPENING_EDGE if p.opening == "edge" else pol.OPENING_RANDOM
    choose = pol.CHOOSE_CENTRE if p.choose == "centre" else pol.CHOOSE_BLACK
    return SeatCode(pol.GREEDY, (p.epsilon, float(opening), float(choose)))


def _make_mcts(p: MctsParams) -> SeatCode:
    policy = pol.PLAYOUT_GREEDY if p.playout == "greedy" else pol.PLAYOUT_RANDOM
    return SeatCode(pol.MCTS, (float(p.playouts), p.c, float(policy), p.playout_epsilon))


SECONDS_PER_PLAYOUT = 0.5e-3  # one seat's share of an MCTS 9x9 game per playout of its parameter (2026-12-03,
# mcts:playouts=200 self-play on one core: 3,000 games in 8 min, 0.16 s a game; 800 in 3 min, 0.23 s)
CHEAP_SEAT_SECONDS = 2e-5  # random and greedy: ~40,000 games a second a core


def seat_seconds(spec: StrategySpec) -> float:
    """Rough CPU seconds of one seat's play over a 9x9 game, to size shards (``GameDef.shard_size_for``)."""
    if spec.name == "mcts":
        return STRATEGIES["mcts"].validate(spec).playouts * SECONDS_PER_PLAYOUT
    return CHEAP_SEAT_SECONDS


STRATEGIES: dict[str, StrategyDef] = {
    "random": StrategyDef("random", "uniform over legal moves", RandomParams, _make_random),
    "greedy": StrategyDef(
        "greedy", "best immediate score margin, ties at random", GreedyParams, _make_greedy
    ),
    "mcts": StrategyDef(
        "mcts", "Monte Carlo tree search (UCT) with random or epsilon-greedy playouts", MctsParams, _make_mcts
    ),
}
