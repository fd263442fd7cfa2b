"""Polar (Dieter Stein): a grid placement game, RULES.md P1-P7.

Modules, from the bottom up: ``rng`` (per-seat streams), ``core`` (the board
array and its kernels: legality, placing, scoring), ``legal_count`` (legal
moves per colour kept move by move, for recorded turns), ``policies`` (random
and greedy moves, openings), ``mcts`` (UCT search), ``engine`` (game and batch
loops), ``batch`` (``play_batch``: specs in, Arrow tables out), ``model``
(rules knobs and variants), ``strategies`` (parameter models), ``position``
(a small Python ``Board`` over the same kernels, for tests and notebooks).
"""

from __future__ import annotations

from rules.base import GameDef, register_game
from rules.polar.batch import play_batch
from rules.polar.model import PolarRules, variant_descriptions, variants
from rules.polar.strategies import STRATEGIES, seat_seconds
from rules.polar.trace import trace

GAME = register_game(
    GameDef(
        name="polar",
        description="Polar (Dieter Stein): place stones; no group of more than two sections",
        rules_model=PolarRules,
        variants=variants,
        variant_descriptions=variant_descriptions,
        strategies=STRATEGIES,
        play_batch=play_batch,
        default_variant="polar-9",
        seat_note="seat 0 proposes the opening",
        trace=trace,
        shard_size=5000,  # ~0.15 s of games per task: Parquet costs less per game than at 2000, and 100,000 games still make 20 tasks
        grid_shard_size=500,  # a sweep cell of a few thousand games still makes several tasks
        seat_seconds=seat_seconds,  # MCTS games are ~10,000 times dearer: their shards hold ~5 s of play instead
    )
)
