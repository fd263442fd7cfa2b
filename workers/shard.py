"""Play one shard of a run and write it: the whole of what a Ray task does.

``play_shard`` rebuilds the shard's games from the experiment alone (seeds
come from the run seed and the seed index, never from the shard), asks the
game to play them, adds the identifying columns every row carries, and
writes ``turns`` then ``games`` atomically (``games`` marks the shard done;
a run with ``turns`` off writes ``games`` alone).
It returns a small summary; tables never travel back to the driver.

The games travel as arrays (``spec.GameColumns``): a game whose ``play_batch``
module also offers ``play_columns(index, seeds, group, groups, record)`` (Polar) is
played from them with no Python object per game; other games get the same
range as ``GameSpec`` objects. Identity columns are built once per (rules,
seats) group and spread by index (dictionary arrays for repeated strings),
so a shard's cost beyond playing is essentially Parquet encoding.

A batch that raises is replayed one game at a time, so one failing game is
recorded as ``status='error'`` with its message and the others keep their
results.

``warm_up`` readies a fresh worker (imports, numba cache loads, or its part
of a cold compile: sim.warm) before its first shard, so start-up is measured
apart from games. ``ShardSummary``
carries wall and CPU seconds inside the play call and for the whole task,
and the Parquet writing time.

Each table is written with the (encoding, codec) per column of
``parquet_layout``: the game's ``PARQUET_LAYOUT`` (Polar's turns) and
``GAMES_LAYOUT``; storage's default (dictionary + LZ4) for the rest.
"""

from __future__ import annotations

import resource
import sys
import time
import traceback
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import version

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.spec import Experiment, GameColumns, game_columns
from pipelines.storage import SHARD_NAME, locate, write_table_atomic
from rules.base import GameDef, GameSpec, get_game


@dataclass(frozen=True)
class ShardSummary:
    shard: int
    games: int
    failed: int
    seconds_playing: float  # inside the game's play call (numba core and its Arrow tables)
    seconds_total: float  # the whole task: specs, playing, identity columns, Parquet, writes
    node: str = ""
    max_rss_mb: float = 0.0
    seconds_writing: float = 0.0  # Parquet encoding and the atomic writes
    cpu_playing: float = 0.0  # CPU seconds of this process inside the play call
    cpu_total: float = 0.0  # CPU seconds of this process for the whole task


@lru_cache(maxsize=1)
def package_version() -> str:
    return version("polsim")


def _error_table(game_def: GameDef, spec: GameSpec, message: str) -> pa.Table:
    return pa.table(
        {
            "game_index": pa.array([spec.index], pa.int64()),
            "winner": pa.array([None], pa.int8()),
            "score_0": pa.array([None], pa.float64()),
            "score_1": pa.array([None], pa.float64()),
            "end_reason": pa.array(["error"], pa.string()),
            "n_turns": pa.array([0], pa.int32()),
            "status": pa.array(["error"], pa.string()),
            "error": pa.array([message], pa.string()),
        }
    )


def _play_isolated(game_def: GameDef, specs: list[GameSpec]) -> tuple[pa.Table, pa.Table]:
    """Play games one by one so an exception costs only its own game."""
    games, turns = [], []
    for spec in specs:
        try:
            g, t = game_def.play_batch([spec])
        except Exception as exc:  # noqa: BLE001 - recorded in the row, never lost
            last = traceback.format_exception_only(type(exc), exc)[-1].strip()
            g, t = _error_table(game_def, spec, last), None
        games.append(g)
        if t is not None:
            turns.append(t)
    games_t = pa.concat_tables(games, promote_options="permissive")
    turns_t = pa.concat_tables(turns, promote_options="permissive") if turns else pa.table({})
    return games_t, turns_t


def play(game_def: GameDef, specs: list[GameSpec]) -> tuple[pa.Table, pa.Table]:
    try:
        games, turns = game_def.play_batch(specs)
    except Exception:  # noqa: BLE001 - isolate the failing game(s)
        return _play_isolated(game_def, specs)
    if games.num_rows != len(specs):
        raise RuntimeError(f"{game_def.name}.play_batch returned {games.num_rows} rows for {len(specs)} games")
    return games, turns


_STRING_DICT = pa.dictionary(pa.int8(), pa.string())
NO_TURNS = pa.table({})  # a run with ``turns`` off: no turns shard is written


# (encoding, codec) of the games columns every game has whose values are
# unique (index, seed index, seed): on a 5,000-game shard delta-packed
# indices take ~0.2 kB (dictionary: 28 kB) and encode 3x faster; random
# 64-bit seeds gain nothing from a dictionary
GAMES_LAYOUT = {
    "game_index": ("DELTA_BINARY_PACKED", "lz4"),
    "seed_index": ("DELTA_BINARY_PACKED", "lz4"),
    "game_seed": ("PLAIN", "lz4"),
}


def parquet_layout(game_def: GameDef, table: str) -> dict:
    """The (encoding, codec) per column of ``table``: the game's own choice
    (its ``play_batch`` module's ``PARQUET_LAYOUT``), and for ``games`` the
    ``GAMES_LAYOUT``; other columns: storage's default."""
    layouts = getattr(sys.modules.get(game_def.play_batch.__module__), "PARQUET_LAYOUT", {})
    base = GAMES_LAYOUT if table == "games" else {}
    return {**base, **layouts.get(table, {})}


def _constant(value: str, n: int) -> pa.Array:
    """``n`` copies of one string as a dictionary array (stored as plain strings)."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int8)), pa.array([value], pa.string()))


def _identity_columns(exp: Experiment, run_id: str, cols: GameColumns, physics: str) -> dict:
    """The columns every games row carries, built per (rules, seats) group and
    spread by numpy indexing: no Python work per game."""
    n = len(cols)
    group = pa.array(cols.group.astype(np.int32))
    per_group = [(rules.variant_hash(), exp.cells[c].label(), str(seats[0]), str(seats[1]), rules.model_dump(mode="json"))
                 for c, rules, seats in cols.groups]

    def by_group(k: int) -> pa.Array:
        return pa.DictionaryArray.from_arrays(group, pa.array([g[k] for g in per_group], pa.string()))

    out = {
        "run_id": _constant(run_id, n),
        "game": _constant(exp.game, n),
        "variant": _constant(exp.variant, n),
        "variant_hash": by_group(0),
        "cell": pa.array(cols.cell, pa.int32()),
        "cell_label": by_group(1),
        "seed_index": pa.array(cols.seed_index, pa.int64()),
        "game_seed": pa.array(cols.seeds, pa.int64()),
        "strategy_0": by_group(2),
        "strategy_1": by_group(3),
        "package_version": _constant(package_version(), n),
        "physics_version": _constant(physics, n),
    }
    for knob in per_group[0][4]:
        out[f"rule_{knob}"] = pc.take(pa.array([g[4][knob] for g in per_group]), group)
    return out


def _with_identity(games: pa.Table, identity: dict) -> pa.Table:
    """Identity columns first; a column the game already wrote keeps the game's values."""
    index = games["game_index"].to_numpy()
    out = games if bool(np.all(index[1:] > index[:-1])) else games.sort_by("game_index")
    position = 0
    for name, column in identity.items():
        if name in out.column_names:
            continue
        out = out.add_column(position, name, column)
        position += 1
    return out


@dataclass(frozen=True)
class Played:
    """Games ``first .. first+count-1`` of a run, as they are written."""

    games: pa.Table
    turns: pa.Table
    columns: GameColumns
    seconds_playing: float
    cpu_playing: float = 0.0

    @property
    def cells(self) -> list[int]:
        return self.columns.cell.tolist()

    @property
    def specs(self) -> list[GameSpec]:
        return self.columns.specs()


def _play_columns(game_def: GameDef, cols: GameColumns, record: bool = True) -> tuple[pa.Table, pa.Table]:
    """The game's columnar ``play_columns`` when its ``play_batch`` module has one
    (Polar does; ``record=False``: it keeps no turns), else ``play`` on
    ``GameSpec`` objects. A columnar batch that raises is replayed through
    ``play``, which isolates the failing games."""
    columnar = getattr(sys.modules.get(game_def.play_batch.__module__), "play_columns", None)
    if columnar is not None:
        try:
            games, turns = columnar(cols.index, cols.seeds, cols.group, [(r, s) for _, r, s in cols.groups],
                                    record=record)
            if games.num_rows == len(cols):
                return games, turns
        except Exception:  # noqa: BLE001 - replayed game by game below
            pass
    return play(game_def, cols.specs())


def play_games(exp: Experiment, run_id: str, first: int, count: int, restore: dict | None = None) -> Played:
    """Play global games ``first .. first+count-1`` and add every identifying column
    (``restore``: knobs a replay sets to play an earlier physics, ``spec.resolve_cell_rules``)."""
    game_def = get_game(exp.game)
    cols = game_columns(exp, first, count, restore)
    t_play, c_play = time.perf_counter(), time.process_time()
    games, turns = _play_columns(game_def, cols, exp.turns)
    if not exp.turns:
        turns = NO_TURNS
    seconds_playing, cpu_playing = time.perf_counter() - t_play, time.process_time() - c_play
    games = _with_identity(games, _identity_columns(exp, run_id, cols, game_def.physics_version()))
    if turns.num_columns:
        turns = turns.add_column(0, pa.field("run_id", _STRING_DICT, nullable=False), _constant(run_id, turns.num_rows))
    return Played(games, turns, cols, seconds_playing, cpu_playing)


def play_shard(exp_json: str, run_id: str, shard: int, first: int, count: int, run_uri: str) -> ShardSummary:
    """Play global games ``first .. first+count-1`` and write shard ``shard`` of the run."""
    t0, c0 = time.perf_counter(), time.process_time()
    exp = Experiment.model_validate_json(exp_json)
    played = play_games(exp, run_id, first, count)
    games, turns, seconds_playing = played.games, played.turns, played.seconds_playing
    t_write = time.perf_counter()
    run = locate(run_uri)
    name = SHARD_NAME.format(shard)
    game_def = get_game(exp.game)
    if turns.num_columns:
        write_table_atomic(run.child("turns", name), turns, parquet_layout(game_def, "turns"))
    write_table_atomic(run.child("games", name), games, parquet_layout(game_def, "games"))
    t_end = time.perf_counter()
    failed = games.num_rows - pc.sum(pc.equal(games["status"], "ok")).as_py()
    return ShardSummary(shard, games.num_rows, failed, seconds_playing, t_end - t0, _node_id(),
                        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, t_end - t_write,
                        played.cpu_playing, time.process_time() - c0)


def warm_up(exp_json: str, part: int = 0, parts: int = 1) -> float:
    """Make a fresh worker ready for ``play_shard``, as worker ``part`` of
    ``parts`` warming up at once: import the game; for a game with a columnar
    ``play_columns`` (cheap games, Polar), play game 0 and throw it away so
    every numba kernel is loaded from the cache; for a game with
    ``warm_parts`` and two workers or more, run its part ``part`` (the parts
    compile side by side what each worker would otherwise compile whole).
    Returns the CPU seconds this process has used so far (Ray's worker boot
    included)."""
    exp = Experiment.model_validate_json(exp_json)
    game_def = get_game(exp.game)
    try:
        if hasattr(sys.modules.get(game_def.play_batch.__module__), "play_columns"):
            play_games(exp, "warm-up", 0, 1)
        elif parts > 1 and part < len(game_def.warm_parts):
            game_def.warm_parts[part]()
    except Exception:  # noqa: BLE001 - a warm-up only saves time: the shards meet and record any failure
        pass
    return time.process_time()


def _node_id() -> str:
    """The Ray node that played the shard ('' outside Ray)."""
    if "ray" not in sys.modules:
        return ""
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else ""
