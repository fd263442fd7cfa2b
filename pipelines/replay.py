"""Replay one stored game from its run's spec and seed, and check it reproduces.

``replay(run_uri, game_index) -> Replay``:

1. read the run's manifest and rebuild game ``game_index``'s ``GameSpec``
   from the experiment alone (``spec.game_specs``: seed, rules, seats);
2. read the stored ``games`` row and ``turns`` rows of the game from the one
   shard that holds it (the manifest's shard list says which);
3. play that one game with the game's ``play_batch([spec])`` (through
   ``workers.shard.play``, as a worker does) and add the identity columns a
   worker adds;
4. compare every column of the stored row but ``run_id`` with the replayed
   row, and every stored turns row column by column (exact equality: the
   games are deterministic, so any difference is a reproducibility failure;
   a column only one side has, e.g. one dropped from a shard, is one too).
   One exception: a run made before a knob existed has no ``rule_<knob>``
   column and a ``variant_hash`` made without it. A new knob's default plays
   as the code before it did (docs/RULES.md), so such a column, replayed at
   the knob's default, is not compared, and the hash is checked as it was
   made, without those knobs (``Replay.predates`` names them).
   A run made under an earlier physics version (its rows' ``physics_version``)
   is replayed as that version played, where the game knows knobs that restore
   it (``GameDef.physics_restores``, for the knobs the run predates: Polarity's
   ``frame_turn=false`` plays physics 0.13.1, and so on back to 0.6.0); its
   ``physics_version`` column is then not compared (``Replay.restored``).
   A knob whose default changed since the package that made the run is played
   at its default then, unless the run's variant file or cell set it
   (``GameDef.defaults_then``: Polarity's ``empty_stack_scoring`` was
   ``after_resolution`` before polsim 0.22.0; ``Replay.defaults_then``).
   A run made by another polsim package has its ``package_version`` column
   compared with nothing: the version that made it is not an outcome of the
   game, every other value is (``Replay.made_by`` names it).

``frames(rep)`` asks the game for the position after each turn: the game's
``GameDef.trace(spec) -> list[dict]``; the frame formats are described in
``rules/polar/trace.py`` and ``rules/polarity/trace.py``.

Bad input (no such run, game index out of range, game not stored yet) is a
``UsageError``; a game that replays differently is *not* an exception: its
``Replay.differences`` list says which columns differ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq

from pipelines import manifest as mf
from pipelines.dataset import unreadable_shard
from pipelines.spec import defaults_then
from pipelines.storage import SHARD_NAME, exists, locate
from rules.base import GameDef, GameSpec, RulesBase, UsageError, get_game, knob_text
from workers.shard import package_version, play_games

NOT_COMPARED = {"run_id"}
MAX_LISTED = 12


@dataclass(frozen=True)
class Difference:
    """One value that replayed differently: ``column`` is a games column or
    ``turns[seq].column`` (``turns.rows`` for a different number of rows)."""

    column: str
    stored: Any
    replayed: Any

    def __str__(self) -> str:
        return f"{self.column}: stored {self.stored!r}, replayed {self.replayed!r}"


@dataclass
class Replay:
    run_uri: str
    run_id: str
    game: str
    game_index: int
    spec: GameSpec
    cell_label: str
    stored: dict
    replayed: dict
    stored_turns: list[dict]
    replayed_turns: list[dict]
    differences: list[Difference] = field(default_factory=list)
    turns_stored: bool = True       # False: a --no-turns run; only its games row is compared
    predates: list[str] = field(default_factory=list)  # knobs added after the run was made (step 4)
    restored: dict[str, Any] = field(default_factory=dict)  # knobs that play the run's older physics (step 3)
    defaults_then: dict[str, Any] = field(default_factory=dict)  # knobs at the default of the package that made it
    made_by: str | None = None      # the polsim package that made the run, when it is not this one (step 4)

    @property
    def reproduced(self) -> bool:
        return not self.differences

    @property
    def command(self) -> str:
        return replay_command(self.run_uri, self.game_index)

    def summary(self) -> str:
        s = self.stored
        return (f"game {self.game_index} of {self.run_id} ({self.game}, {self.cell_label}, seed {self.spec.seed}): "
                f"winner {s.get('winner')}, scores {score_text(s.get('score_0'))} – {score_text(s.get('score_1'))}, "
                f"end {s.get('end_reason')}, {s.get('n_turns')} turns"
                + ("" if self.turns_stored else " (the run stored no turns: its games row compared)")
                + self._predates_note())

    def _predates_note(self) -> str:
        notes = []
        if self.made_by:
            notes.append(f"made by polsim {self.made_by}, replayed by {self.replayed.get('package_version')}")
        if self.restored:
            notes.append(f"made with physics {self.stored.get('physics_version')}: replayed with {_values(self.restored)}, "
                         "which plays it")
        if self.defaults_then:
            plural = "s" if len(self.defaults_then) > 1 else ""
            notes.append(f"replayed with {_values(self.defaults_then)}, the default{plural} of polsim {self.made_by}")
        at_default = [k for k in self.predates if k not in self.restored and k not in self.defaults_then]
        if at_default:
            notes.append(f"the run predates {_knobs(at_default)}: played at the default")
        return "".join(f" ({note})" for note in notes)

    def failure_message(self) -> str:
        """The loud message for a game that did not reproduce."""
        listed = "; ".join(str(d) for d in self.differences[:MAX_LISTED])
        more = len(self.differences) - MAX_LISTED
        made = [f"by polsim {self.made_by}"] if self.made_by else []
        if self.restored or any(d.column == "physics_version" for d in self.differences):
            made.append(f"with physics {self.stored.get('physics_version')}"
                        + (" (replayed with the knobs that restore it)" if self.restored else ""))
        note = (f" (the run was made {' and '.join(made)})" if made else
                " (same package and physics versions: the code changed without a version bump, or the game "
                "is not deterministic)")
        return (f"REPRODUCIBILITY FAILURE: game {self.game_index} of {self.run_id} replayed differently from its "
                f"stored row in {len(self.differences)} values{note}: {listed}" + (f"; and {more} more" if more > 0 else ""))


def _values(knobs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={knob_text(v)}" for k, v in knobs.items())


def score_text(value: Any) -> str:
    """A stored score as the replay page writes it (17, -12.5); a failed game has none."""
    return "none" if value is None else f"{value:g}"


def _knobs(names: list[str]) -> str:
    return ("knob " if len(names) == 1 else "knobs ") + ", ".join(names)


def replay_command(run_uri: str, game_index: int) -> str:
    return f"polsim replay {run_uri} --game {game_index}"


def point_at_games(tables: dict[str, list[dict]], uri_of: dict[str, str]) -> dict[str, list[dict]]:
    """Replace each row's ``example_run``/``example_game`` with the command that replays it."""
    for rows in tables.values():
        for row in rows:
            if "example_game" in row and "example_run" in row:
                run, game = row.pop("example_run"), row.pop("example_game")
                row["replay"] = replay_command(uri_of.get(run, run), game) if game is not None else None
    return tables


def same(a: Any, b: Any) -> bool:
    """Exact equality, with NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


ABSENT = "<absent>"


def row_differences(stored: dict, replayed: dict, prefix: str = "", skip=()) -> list[Difference]:
    """Every column whose values differ, a column only one side has included (its other side ``ABSENT``)."""
    out = []
    for k in dict.fromkeys([*stored, *replayed]):
        a, b = stored.get(k, ABSENT), replayed.get(k, ABSENT)
        if k not in NOT_COMPARED and k not in skip and (k not in stored or k not in replayed or not same(a, b)):
            out.append(Difference(prefix + k, a, b))
    return out


def turns_differences(stored: list[dict], replayed: list[dict]) -> list[Difference]:
    out = []
    if len(stored) != len(replayed):
        out.append(Difference("turns.rows", len(stored), len(replayed)))
    for i, (s, r) in enumerate(zip(stored, replayed)):
        out += row_differences(s, r, prefix=f"turns[{i}].")
    return out


def _turn_key(row: dict) -> tuple:
    return (row.get("turn", 0), row.get("seq", 0))


def _shard_of(manifest: dict, game_index: int) -> int:
    for number, first, count in manifest.get("shards", []):
        if first <= game_index < first + count:
            return number
    raise UsageError(f"game {game_index} is in no shard of run {manifest['run_id']}")


def _read_rows(loc, game_index: int) -> list[dict]:
    try:
        table = pq.read_table(loc.path, filesystem=loc.fs, filters=[("game_index", "=", game_index)])
    except (pa.ArrowException, OSError) as exc:
        raise unreadable_shard(loc.uri, exc) from None
    return table.to_pylist()


def _stored_rows(run, manifest: dict, game_index: int) -> tuple[dict, list[dict]]:
    """The game's stored games row and turns rows, read from its own shard."""
    name = SHARD_NAME.format(_shard_of(manifest, game_index))
    games_file, turns_file = run.child("games", name), run.child("turns", name)
    games = _read_rows(games_file, game_index) if exists(games_file) else []
    if not games:
        raise UsageError(f"game {game_index} of {run.uri} is not stored yet (shard {name} is missing); "
                         f"finish the run with simulate --resume")
    if mf.experiment_of(manifest).turns and games[0].get("status") == "ok" and not exists(turns_file):
        raise UsageError(f"{turns_file.uri} is missing, though game {game_index}'s games row is kept: delete "
                         f"{games_file.uri} and finish the run with simulate --resume")
    turns = _read_rows(turns_file, game_index) if exists(turns_file) else []
    return games[0], sorted(turns, key=_turn_key)


def replay(run_uri: str, game_index: int) -> Replay:
    """Re-play game ``game_index`` of the run at ``run_uri`` and compare it with its stored rows."""
    run = locate(run_uri)
    manifest = mf.load(run)
    exp = mf.experiment_of(manifest)
    if not 0 <= game_index < exp.total_games:
        raise UsageError(f"--game {game_index} is out of range: run {manifest['run_id']} has games "
                         f"0..{exp.total_games - 1}")
    stored, stored_turns = _stored_rows(run, manifest, game_index)
    game_def = get_game(exp.game)
    restore = restoring_knobs(game_def, stored)
    then = defaults_then(game_def, exp, stored.get("package_version"))
    # turns on: the page shows every turn, also of a run that stored none
    played = play_games(exp.model_copy(update={"turns": True}), manifest["run_id"], game_index, 1,
                        {**then, **restore})
    (cell,), (spec,) = played.cells, played.specs
    replayed = played.games.to_pylist()[0]
    replayed_turns = sorted((t for t in played.turns.to_pylist() if t.get("game_index") == game_index),
                            key=_turn_key)
    rep = Replay(run_uri, manifest["run_id"], exp.game, game_index, spec, exp.cells[cell].label(),
                 stored, replayed, stored_turns, replayed_turns, turns_stored=exp.turns)
    rep.restored, rep.defaults_then = restore, then
    rep.predates = knobs_the_run_predates(stored, replayed, spec.rules, {**then, **restore})
    skip = {f"rule_{k}" for k in rep.predates}
    if rep.predates and stored.get("variant_hash") == spec.rules.variant_hash(without=rep.predates):
        skip.add("variant_hash")
    if restore and set(restore) <= set(rep.predates):
        skip.add("physics_version")     # played as that version, by the knobs that restore it
    if stored.get("package_version") not in (None, package_version()):
        rep.made_by = stored["package_version"]
        skip.add("package_version")
    rep.differences = row_differences(stored, replayed, skip=skip)
    if exp.turns:
        rep.differences += turns_differences(stored_turns, replayed_turns)
    return rep


def restoring_knobs(game_def: GameDef, stored: dict) -> dict[str, Any]:
    """Knobs the stored game's run predates (no ``rule_`` column) that the game says play
    the physics version its row records (``GameDef.physics_restores``); ``{}`` when that
    is this code's physics."""
    made = stored.get("physics_version")
    if not made or made == game_def.physics_version():
        return {}
    return {k: v for k, v in game_def.physics_restores(made).items() if f"rule_{k}" not in stored}


def knobs_the_run_predates(stored: dict, replayed: dict, rules: RulesBase, restore: dict | None = None) -> list[str]:
    """Knobs with a ``rule_`` column only the replay has, replayed at the knob's default
    or at the value that plays the run's physics (``restore``)."""
    fields = type(rules).model_fields
    restore = restore or {}
    found = []
    for col, value in replayed.items():
        knob = col.removeprefix("rule_")
        if col == knob or col in stored or knob not in fields:
            continue
        if same(value, restore[knob]) if knob in restore else same(value, fields[knob].default):
            found.append(knob)
    return found


def trace_function(game_def: GameDef) -> Callable[[GameSpec], list[dict]]:
    """The game's ``trace(spec)``: the positions after each turn."""
    if game_def.trace is None:
        raise UsageError(f"{game_def.name} has no trace(spec): it cannot be shown turn by turn")
    return game_def.trace


def frames(rep: Replay) -> list[dict]:
    """The position after every turns row of the replayed game."""
    return trace_function(get_game(rep.game))(rep.spec)
