"""``play_batch``: unpack game specs, play them in one numba call, return Arrow tables.

``play_columns`` is the same for a worker that already holds the games as
arrays (``pipelines.spec.GameColumns``): no Python object per game, and the
string columns (colours, end reason, status) are dictionary arrays over their
few values, so nothing is copied or hashed per row before Parquet.

games (one row per spec, in order):

==================  =======  =====================================================
game_index          int64    ``spec.index``
winner              int8     seat 0 or 1, -1 for a draw (P7: White's total is
                             ``white_score`` plus the komi, column ``rule_komi``)
score_0, score_1    float64  the seats' final scores on the board (komi not added)
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
score_0, score_1    int32    running seat scores after the turn (scores are whole
                             numbers, P6; the games table keeps every game's float64)
colour              string   colour of the stone placed (``black``/``white``); for a
                             pass the passer's colour; for turn 0 ``black``
point               int32    point played, -1 for a pass; turn 0: the black stone
point2              int32    turn 0: the white opening stone; else -1
x, y                int16    column and row of ``point`` (-1 for a pass)
n_legal             int32    legal moves the mover had (0 on a pass); turn 0: the
                             number of possible openings (ordered adjacent pairs)
==================  =======  =====================================================

Every turns column is non-null (``TURNS_SCHEMA``); ``PARQUET_LAYOUT``
names how workers encode each turns column (see its note).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rules.base import GameSpec, RulesBase, StrategySpec, UsageError
from rules.polar.core import SCORE_MODES, half_points
from rules.polar.engine import END_REASONS, max_turns, play_games
from rules.polar.model import PolarRules
from rules.polar.policies import N_PARAMS
from rules.polar.strategies import STRATEGIES, SeatCode
from rules.polar.rng import stream_seeds
from rules.seeds import mix64, purpose_key

COLOURS = pa.array(["black", "white"])
END_REASON_VALUES = pa.array(END_REASONS)
STATUS_VALUES = pa.array(["ok"])
_GAME_TYPES = (
    np.int8, np.float64, np.float64, np.int8, np.int32, np.int8, np.int32, np.int32, np.int8,
    np.int32, np.int32, np.int32, np.float64, np.float64,
)  # fmt: skip
_TURN_TYPES = (
    np.int64, np.int32, np.int8, np.int32, np.int32, np.int8, np.int32, np.int32,
    np.int16, np.int16, np.int32,
)  # fmt: skip


def seat_code(spec: StrategySpec) -> SeatCode:
    if spec.name not in STRATEGIES:
        known = ", ".join(sorted(STRATEGIES))
        raise UsageError(f"unknown strategy {spec.name!r} for polar; choose one of: {known}")
    strategy = STRATEGIES[spec.name]
    return strategy.make(strategy.validate(spec))


def _matchup_codes(rules: RulesBase, seats: tuple[StrategySpec, StrategySpec], cache: dict) -> tuple:
    """(size, swap, mode, komi in half points, kinds, params) of one rules and seats combination."""
    if rules not in cache:
        cache[rules] = PolarRules.model_validate(rules.model_dump())
    polar = cache[rules]
    codes = []
    for seat in seats:
        if seat not in cache:
            cache[seat] = seat_code(seat)
        codes.append(cache[seat])
    return (
        polar.size, polar.swap, SCORE_MODES[polar.score_n], half_points(polar.komi),
        [c.kind for c in codes], np.stack([c.vector() for c in codes]),
    )  # fmt: skip


def pack_groups(seeds: np.ndarray, group: np.ndarray, groups) -> dict[str, np.ndarray]:
    """The numba core's inputs for games with these seeds, game ``i`` playing the
    rules and seats of ``groups[group[i]]`` (each group validated once; the
    per-game columns are filled by numpy indexing, not by a Python loop)."""
    cache: dict = {}
    codes = [_matchup_codes(rules, seats, cache) for rules, seats in groups]
    group = np.asarray(group, np.int64)
    seeds = np.asarray(seeds, np.int64)
    seat_seeds = [stream_seeds(seeds, np.uint64(mix64(purpose_key(f"seat{seat}")))) for seat in range(2)]
    return {
        "sizes": np.array([c[0] for c in codes], np.int32)[group],
        "swaps": np.array([c[1] for c in codes], np.bool_)[group],
        "modes": np.array([c[2] for c in codes], np.int32)[group],
        "komis2": np.array([c[3] for c in codes], np.int32)[group],
        "kinds": np.array([c[4] for c in codes], np.int8).reshape(-1, 2)[group],
        "params": np.array([c[5] for c in codes], np.float64).reshape(-1, 2, N_PARAMS)[group],
        "seeds": np.stack(seat_seeds, axis=1),
    }


def pack_specs(specs: list[GameSpec]) -> dict[str, np.ndarray]:
    """The numba core's inputs for these specs: games are grouped by the identity
    of their rules and seat objects (the specs of a run share them)."""
    n = len(specs)
    group_of: dict[tuple[int, int, int], int] = {}
    groups = []
    group = np.empty(n, np.int64)
    for g, spec in enumerate(specs):
        key = (id(spec.rules), id(spec.seats[0]), id(spec.seats[1]))
        slot = group_of.get(key)
        if slot is None:
            slot = group_of[key] = len(groups)
            groups.append((spec.rules, spec.seats))
        group[g] = slot
    return pack_groups(np.fromiter((s.seed for s in specs), np.int64, n), group, groups)


def run_core(packed: dict[str, np.ndarray], record: bool = True):
    """Allocate the outputs, play the batch; return (games arrays, turns arrays trimmed)."""
    n = packed["sizes"].shape[0]
    rows = int(max_turns(packed["sizes"].astype(np.int64)).sum()) if record else 0
    games = tuple(np.zeros(n, t) for t in _GAME_TYPES)
    turns = tuple(np.empty(rows, t) for t in _TURN_TYPES)  # rows past ``used`` are never read
    used = play_games(
        packed["sizes"], packed["swaps"], packed["modes"], packed["komis2"], packed["kinds"], packed["params"],
        packed["seeds"], record, games, turns,
    )  # fmt: skip
    return games, tuple(a[:used] for a in turns)


def _coded(values: pa.Array, codes: np.ndarray, dictionary: bool) -> pa.Array:
    """``values[codes]``: a dictionary array (no string copied per row) or plain strings."""
    indices = pa.array(codes.astype(np.int8, copy=False))
    if dictionary:
        return pa.DictionaryArray.from_arrays(indices, values)
    return pc.take(values, indices)


def games_table(index: np.ndarray, g, dictionary: bool = False) -> pa.Table:
    winner, s0, s1, end, n_turns, col0, a, b, chooser, passes, groups, scoring, black, white = g
    n = len(index)
    return pa.table(
        {
            "game_index": pa.array(index, pa.int64()),
            "winner": pa.array(winner, pa.int8()),
            "score_0": pa.array(s0, pa.float64()),
            "score_1": pa.array(s1, pa.float64()),
            "end_reason": _coded(END_REASON_VALUES, end, dictionary),
            "n_turns": pa.array(n_turns, pa.int32()),
            "status": _coded(STATUS_VALUES, np.zeros(n, np.int8), dictionary),
            "error": pa.nulls(n, pa.string()),
            "colour_0": _coded(COLOURS, col0, dictionary),
            "opening_a": pa.array(a, pa.int32()),
            "opening_b": pa.array(b, pa.int32()),
            "chooser_colour": _coded(COLOURS, chooser, dictionary),
            "n_passes": pa.array(passes, pa.int32()),
            "n_groups": pa.array(groups, pa.int32()),
            "n_scoring_groups": pa.array(scoring, pa.int32()),
            "black_score": pa.array(black, pa.float64()),
            "white_score": pa.array(white, pa.float64()),
        }
    )


# Every turns column is non-null (a pass is point -1, see above): Parquet then
# writes no definition levels, ~0.1 us a game per column. A run of another
# game, which lacks Polar's columns, still reads side by side with a Polar run
# (duckdb ``union_by_name`` and pyarrow datasets fill them with nulls).
TURNS_SCHEMA = pa.schema(
    [pa.field(name, type_, nullable=False) for name, type_ in (
        ("game_index", pa.int64()), ("turn", pa.int32()), ("player", pa.int8()), ("score_0", pa.int32()),
        ("score_1", pa.int32()), ("colour", pa.string()), ("point", pa.int32()), ("point2", pa.int32()),
        ("x", pa.int16()), ("y", pa.int16()), ("n_legal", pa.int32()),
    )]
)  # fmt: skip
# (encoding, codec) per column of the tables workers write (``pipelines.storage``;
# columns not named: dictionary + LZ4). Measured on a 5,000-game 9x9 random
# shard (279 k turn rows), encoding CPU per game and file size: dictionary +
# LZ4 everywhere, all nullable 5.3 us, 1.16 MB; this layout 3.2 us, 1.58 MB
# with only the five common columns non-null, and ~25 % less CPU again with
# every column non-null and byte-stream-split + LZ4 for point and n_legal
# (15 alternated runs on a slower spell: medians 5.56 -> 4.25 us, same
# bytes). Dictionary encoding hashes every value (~6 ns). Columns
# that repeat within a game (game_index, turn, player, point2) are about as
# small plain under LZ4 at a fifth of the cost; the high-entropy small
# integers x and y delta-packed with no codec cost less than dictionary +
# LZ4 for 18-37 % more bytes (LZ4 gains them almost nothing), and point and
# n_legal split into byte streams under LZ4 cost half of that for the same
# bytes. The running scores are whole numbers kept as int32: byte-stream-split
# + LZ4 encodes them in 0.17 us a game each and 29 bytes, where float64 took
# 0.40 us and 48 bytes (the whole turns file: 2.36 -> 1.81 us, 316 -> 278
# bytes a game; session 18).
_P, _DELTA, _SPLIT = "PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT"
PARQUET_LAYOUT = {
    "turns": {
        "game_index": (_P, "lz4"), "turn": (_P, "lz4"), "player": (_P, "lz4"), "point2": (_P, "lz4"),
        "score_0": (_SPLIT, "lz4"), "score_1": (_SPLIT, "lz4"),
        "point": (_SPLIT, "lz4"), "n_legal": (_SPLIT, "lz4"), "x": (_DELTA, "none"), "y": (_DELTA, "none"),
    },
}  # fmt: skip


def turns_table(index: np.ndarray, t, dictionary: bool = False) -> pa.Table:
    pos, turn, player, s0, s1, colour, point, point2, x, y, n_legal = t
    schema = TURNS_SCHEMA
    if dictionary:
        schema = schema.set(5, pa.field("colour", pa.dictionary(pa.int8(), pa.string()), nullable=False))
    return pa.Table.from_arrays(
        [
            pa.array(index[pos], pa.int64()),
            pa.array(turn, pa.int32()),
            pa.array(player, pa.int8()),
            pa.array(s0, pa.int32()),
            pa.array(s1, pa.int32()),
            _coded(COLOURS, colour, dictionary),
            pa.array(point, pa.int32()),
            pa.array(point2, pa.int32()),
            pa.array(x, pa.int16()),
            pa.array(y, pa.int16()),
            pa.array(n_legal, pa.int32()),
        ],
        schema=schema,
    )


def play_columns(index: np.ndarray, seeds: np.ndarray, group: np.ndarray, groups,
                 record: bool = True) -> tuple[pa.Table, pa.Table]:
    """The columnar entry point a worker uses: game ``i`` is number ``index[i]``
    with seed ``seeds[i]`` and plays ``groups[group[i]] = (rules, seats)``.
    Same games and values as ``play_batch``; string columns come as dictionary
    arrays (a Parquet file stores them as plain strings either way). With
    ``record`` off the core keeps no turns (the same games rows; turns: an
    empty table without columns)."""
    index = np.asarray(index, np.int64)
    games, turns = run_core(pack_groups(seeds, group, groups), record)
    turns_out = turns_table(index, turns, dictionary=True) if record else pa.table({})
    return games_table(index, games, dictionary=True), turns_out


def play_batch(specs: list[GameSpec]) -> tuple[pa.Table, pa.Table]:
    """Play the specs (one jitted call) and return the ``games`` and ``turns`` tables."""
    index = np.array([s.index for s in specs], np.int64)
    games, turns = run_core(pack_specs(specs))
    return games_table(index, games), turns_table(index, turns)
