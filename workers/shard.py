"""Play one shard of a run and write it: the whole of what a Ray task does.

``play_shard`` rebuilds the shard's game specs from the experiment alone
(seeds come from the run seed and the seed index, never from the shard), asks
the game to play them, adds the identifying columns every row carries, and
writes ``turns`` then ``games`` atomically (``games`` marks the shard done).
It returns a small summary; tables never travel back to the driver.

A batch that raises is replayed one game at a time, so one failing game is
recorded as ``status='error'`` with its message and the others keep their
results.
"""

from __future__ import annotations

import resource
import time
import traceback
from dataclasses import dataclass
from importlib.metadata import version

import pyarrow as pa
import pyarrow.compute as pc

from pipelines.spec import Experiment, game_specs
from pipelines.storage import SHARD_NAME, locate, write_table_atomic
from rules.base import GameDef, GameSpec, get_game


@dataclass(frozen=True)
class ShardSummary:
    shard: int
    games: int
    failed: int
    seconds_playing: float
    seconds_total: float
    node: str = ""
    max_rss_mb: float = 0.0


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


def _identity_columns(exp: Experiment, run_id: str, cells: list[int], specs: list[GameSpec], physics: str):
    n = len(specs)
    by_cell = {}
    for c, spec in zip(cells, specs):
        if c not in by_cell:
            by_cell[c] = (spec.rules.variant_hash(), exp.cells[c].label(), spec.rules.model_dump(mode="json"))
    def constant(value: str) -> pa.Array:
        return pa.repeat(pa.scalar(value, pa.string()), n)

    cols = {
        "run_id": constant(run_id),
        "game": constant(exp.game),
        "variant": constant(exp.variant),
        "variant_hash": pa.array([by_cell[c][0] for c in cells], pa.string()),
        "cell": pa.array(cells, pa.int32()),
        "cell_label": pa.array([by_cell[c][1] for c in cells], pa.string()),
        "seed_index": pa.array([s.index % exp.games for s in specs], pa.int64()),
        "game_seed": pa.array([s.seed for s in specs], pa.int64()),
        "strategy_0": pa.array([str(s.seats[0]) for s in specs], pa.string()),
        "strategy_1": pa.array([str(s.seats[1]) for s in specs], pa.string()),
        "package_version": constant(package_version()),
        "physics_version": constant(physics),
    }
    for knob in by_cell[cells[0]][2]:
        cols[f"rule_{knob}"] = pa.array([by_cell[c][2][knob] for c in cells])
    return cols


def _with_identity(games: pa.Table, identity: dict) -> pa.Table:
    """Identity columns first; a column the game already wrote keeps the game's values."""
    out = games.sort_by("game_index")
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
    cells: list[int]
    specs: list[GameSpec]
    seconds_playing: float


def play_games(exp: Experiment, run_id: str, first: int, count: int) -> Played:
    """Play global games ``first .. first+count-1`` and add every identifying column."""
    game_def = get_game(exp.game)
    pairs = game_specs(exp, first, count)
    cells = [c for c, _ in pairs]
    specs = [s for _, s in pairs]
    t_play = time.perf_counter()
    games, turns = play(game_def, specs)
    seconds_playing = time.perf_counter() - t_play
    games = _with_identity(games, _identity_columns(exp, run_id, cells, specs, game_def.physics_version()))
    if turns.num_columns:
        turns = turns.add_column(0, "run_id", pa.repeat(pa.scalar(run_id, pa.string()), turns.num_rows))
    return Played(games, turns, cells, specs, seconds_playing)


def play_shard(exp_json: str, run_id: str, shard: int, first: int, count: int, run_uri: str) -> ShardSummary:
    """Play global games ``first .. first+count-1`` and write shard ``shard`` of the run."""
    t0 = time.perf_counter()
    played = play_games(Experiment.model_validate_json(exp_json), run_id, first, count)
    games, turns, seconds_playing = played.games, played.turns, played.seconds_playing
    run = locate(run_uri)
    name = SHARD_NAME.format(shard)
    if turns.num_columns:
        write_table_atomic(run.child("turns", name), turns)
    write_table_atomic(run.child("games", name), games)
    failed = games.num_rows - pc.sum(pc.equal(games["status"], "ok")).as_py()
    return ShardSummary(shard, games.num_rows, failed, seconds_playing, time.perf_counter() - t0, _node_id(),
                        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def _node_id() -> str:
    """The Ray node that played the shard ('' outside Ray)."""
    import sys

    if "ray" not in sys.modules:
        return ""
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else ""
