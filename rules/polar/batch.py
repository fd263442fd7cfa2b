"""``play_batch``: unpack game specs, play them in one numba call, return Arrow tables.

games (one row per spec, in order):

==================  =======  =====================================================
game_index          int64    ``spec.index``
winner              int8     seat 0 or 1, -1 for a draw (P7)
score_0, score_1    float64  the seats' final scores
end_reason          string   ``both_passed`` (``turn_limit`` is a guard, never seen)
n_turns             int32    rows in ``turns`` for the game: the opening + moves + passes
status, error       string   ``ok`` and null
colour_0            string   colour seat 0 played: ``black`` / ``white``
opening_a           int32    point of the black opening stone (p = y * size + x)
opening_b           int32    point of the white opening stone
chooser_colour      string   colour seat 1 took (``white`` when swap is off)
n_passes            int32    forced passes (P5), the two final ones included
n_groups            int32    groups on the final board
n_scoring_groups    int32    groups that score (P6)
black_score         float64
white_score         float64
==================  =======  =====================================================

turns (one row per turn, turn 0 = the opening):

==================  =======  =====================================================
game_index          int64
turn                int32    0 = opening by seat 0, then 1, 2, ... (moves and passes)
player              int8     seat that acted
score_0, score_1    float64  running seat scores after the turn
colour              string   colour of the stone placed (``black``/``white``); for a
                             pass the passer's colour; for turn 0 ``black``
point               int32    point played, -1 for a pass; turn 0: the black stone
point2              int32    turn 0: the white opening stone; else -1
x, y                int16    column and row of ``point`` (-1 for a pass)
n_legal             int32    legal moves the mover had (0 on a pass); turn 0: the
                             number of possible openings (ordered adjacent pairs)
==================  =======  =====================================================
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rules.base import GameSpec, RulesBase, StrategySpec, UsageError
from rules.polar.core import SCORE_MODES
from rules.polar.engine import END_REASONS, max_turns, play_games
from rules.polar.model import PolarRules
from rules.polar.policies import N_PARAMS
from rules.polar.strategies import STRATEGIES, SeatCode
from rules.seeds import stream_seed

COLOURS = pa.array(["black", "white"])
_GAME_TYPES = (
    np.int8, np.float64, np.float64, np.int8, np.int32, np.int8, np.int32, np.int32, np.int8,
    np.int32, np.int32, np.int32, np.float64, np.float64,
)  # fmt: skip
_TURN_TYPES = (
    np.int64, np.int32, np.int8, np.float64, np.float64, np.int8, np.int32, np.int32,
    np.int16, np.int16, np.int32,
)  # fmt: skip


def seat_code(spec: StrategySpec) -> SeatCode:
    if spec.name not in STRATEGIES:
        known = ", ".join(sorted(STRATEGIES))
        raise UsageError(f"unknown strategy {spec.name!r} for polar; choose one of: {known}")
    strategy = STRATEGIES[spec.name]
    return strategy.make(strategy.validate(spec))


def pack_specs(specs: list[GameSpec]) -> dict[str, np.ndarray]:
    """The numba core's inputs for these specs (rules and strategies validated once each)."""
    n = len(specs)
    rules_of: dict[RulesBase, PolarRules] = {}
    code_of: dict[StrategySpec, SeatCode] = {}
    sizes = np.zeros(n, np.int32)
    swaps = np.zeros(n, np.bool_)
    modes = np.zeros(n, np.int32)
    kinds = np.zeros((n, 2), np.int8)
    params = np.zeros((n, 2, N_PARAMS), np.float64)
    seeds = np.zeros((n, 2), np.int64)
    for g, spec in enumerate(specs):
        if spec.rules not in rules_of:
            rules_of[spec.rules] = PolarRules.model_validate(spec.rules.model_dump())
        rules = rules_of[spec.rules]
        sizes[g], swaps[g], modes[g] = rules.size, rules.swap, SCORE_MODES[rules.score_n]
        for seat in range(2):
            if spec.seats[seat] not in code_of:
                code_of[spec.seats[seat]] = seat_code(spec.seats[seat])
            code = code_of[spec.seats[seat]]
            kinds[g, seat] = code.kind
            params[g, seat] = code.vector()
            seeds[g, seat] = stream_seed(spec.seed, f"seat{seat}")
    return {"sizes": sizes, "swaps": swaps, "modes": modes, "kinds": kinds, "params": params, "seeds": seeds}


def run_core(packed: dict[str, np.ndarray], record: bool = True):
    """Allocate the outputs, play the batch; return (games arrays, turns arrays trimmed)."""
    n = packed["sizes"].shape[0]
    rows = int(sum(max_turns(int(s)) for s in packed["sizes"])) if record else 0
    games = tuple(np.zeros(n, t) for t in _GAME_TYPES)
    turns = tuple(np.zeros(rows, t) for t in _TURN_TYPES)
    used = play_games(
        packed["sizes"], packed["swaps"], packed["modes"], packed["kinds"], packed["params"],
        packed["seeds"], record, games, turns,
    )  # fmt: skip
    return games, tuple(a[:used] for a in turns)


def _colour(codes: np.ndarray) -> pa.Array:
    return pc.take(COLOURS, pa.array(codes.astype(np.int32)))


def games_table(index: np.ndarray, g) -> pa.Table:
    winner, s0, s1, end, n_turns, col0, a, b, chooser, passes, groups, scoring, black, white = g
    n = len(index)
    return pa.table(
        {
            "game_index": pa.array(index, pa.int64()),
            "winner": pa.array(winner, pa.int8()),
            "score_0": pa.array(s0, pa.float64()),
            "score_1": pa.array(s1, pa.float64()),
            "end_reason": pc.take(pa.array(END_REASONS), pa.array(end.astype(np.int32))),
            "n_turns": pa.array(n_turns, pa.int32()),
            "status": pa.array(["ok"] * n, pa.string()),
            "error": pa.nulls(n, pa.string()),
            "colour_0": _colour(col0),
            "opening_a": pa.array(a, pa.int32()),
            "opening_b": pa.array(b, pa.int32()),
            "chooser_colour": _colour(chooser),
            "n_passes": pa.array(passes, pa.int32()),
            "n_groups": pa.array(groups, pa.int32()),
            "n_scoring_groups": pa.array(scoring, pa.int32()),
            "black_score": pa.array(black, pa.float64()),
            "white_score": pa.array(white, pa.float64()),
        }
    )


def turns_table(index: np.ndarray, t) -> pa.Table:
    pos, turn, player, s0, s1, colour, point, point2, x, y, n_legal = t
    return pa.table(
        {
            "game_index": pa.array(index[pos], pa.int64()),
            "turn": pa.array(turn, pa.int32()),
            "player": pa.array(player, pa.int8()),
            "score_0": pa.array(s0, pa.float64()),
            "score_1": pa.array(s1, pa.float64()),
            "colour": _colour(colour),
            "point": pa.array(point, pa.int32()),
            "point2": pa.array(point2, pa.int32()),
            "x": pa.array(x, pa.int16()),
            "y": pa.array(y, pa.int16()),
            "n_legal": pa.array(n_legal, pa.int32()),
        }
    )


def play_batch(specs: list[GameSpec]) -> tuple[pa.Table, pa.Table]:
    """Play the specs (one jitted call) and return the ``games`` and ``turns`` tables."""
    index = np.array([s.index for s in specs], np.int64)
    games, turns = run_core(pack_specs(specs))
    return games_table(index, games), turns_table(index, turns)
