"""Experiment specs: what a run plays, validated before anything is written.

A run is a grid of *cells*. Each cell is one rule set (the variant plus knob
overrides) and one matchup (two strategies); every cell plays the same
``games`` seeds, so cells can be compared game by game:

- ``simulate``: one cell;
- ``sweep``: one cell per combination of knob values;
- ``tournament``: one cell per pairing of strategies.

Global game number ``g`` belongs to cell ``g // games`` and plays seed index
``j = g % games``: its seed is ``game_seed(run_seed, j, seeding)`` and strategy A of
the cell's matchup sits in seat 0 when ``j`` is even, seat 1 when odd, so
each strategy plays each seat in half the games.

Shards cut the global game range into pieces of ``shard_size``; neither the
shard size nor the worker count enters a game's seed or the run's identity.

``game_columns`` gives a range of games as numpy arrays (seeds computed in
one vectorised call, one (rules, seats) group per cell and seat order):
a worker builds no Python object per game unless the game lacks a columnar
``play_columns``; ``game_specs`` is the same range as ``GameSpec`` objects.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rules.base import GameDef, GameSpec, RulesBase, StrategySpec, UsageError, get_game
from rules.seeds import SEEDING, SEEDINGS, game_seeds


class Cell(BaseModel):
    """One rule set and one matchup."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    overrides: dict[str, Any] = Field(default_factory=dict)
    matchup: tuple[str, str]

    def label(self) -> str:
        knobs = ",".join(f"{k}={v}" for k, v in sorted(self.overrides.items()))
        return f"{self.matchup[0]} vs {self.matchup[1]}" + (f" [{knobs}]" if knobs else "")


MAX_SEED = 2**64 - 1  # game seeds mix the run seed as 64 bits: a larger seed would wrap onto a smaller one
MAX_GAMES = 10**9  # per run (games x cells): far beyond any study, and the plan still fits in memory
MAX_SHARDS = 10**6  # per run: the manifest lists every shard


class Experiment(BaseModel):
    """Everything that decides a run's results, and two things that do not: how
    it is cut into shards and whether it writes the ``turns`` table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game: str
    variant: str
    cells: tuple[Cell, ...]
    games: int = Field(gt=0, le=MAX_GAMES, description="games per cell")
    seed: int = Field(ge=0, le=MAX_SEED)
    shard_size: int = Field(gt=0, description="games per Ray task; does not change results")
    turns: bool = Field(True, description="write the turns table (a row per turn); False: the games table alone "
                                          "(the same games rows; a Polar game ~25 % less task CPU, ~6 % of the bytes)")
    seeding: int = Field(SEEDING, description="how game seeds derive from the run seed (rules.seeds): 2 since "
                                              "polsim 0.31.0; 1 in the specs of earlier runs, which name none")

    @field_validator("seeding")
    @classmethod
    def _known_seeding(cls, seeding):
        if seeding not in SEEDINGS:
            raise ValueError(f"seeding {seeding} is not one this polsim knows ({', '.join(map(str, SEEDINGS))})")
        return seeding

    @field_validator("cells")
    @classmethod
    def _some_cells(cls, cells):
        if not cells:
            raise ValueError("an experiment needs at least one cell")
        return cells

    @model_validator(mode="after")
    def _bounded(self) -> "Experiment":
        if self.total_games > MAX_GAMES:
            raise ValueError(f"{self.total_games:,} games in all ({self.games:,} x {len(self.cells)} cells) "
                             f"is more than {MAX_GAMES:,} per run; lower --games or split the study into several runs")
        shards = -(-self.total_games // self.shard_size)
        if shards > MAX_SHARDS:
            raise ValueError(f"{self.total_games:,} games in shards of {self.shard_size} make {shards:,} shards, "
                             f"more than {MAX_SHARDS:,} per run; pass --shard-size "
                             f"{-(-self.total_games // MAX_SHARDS)} or more")
        return self

    @property
    def total_games(self) -> int:
        return self.games * len(self.cells)

    def identity(self) -> dict:
        """What a run holds: everything but the shard size, ``turns`` only
        when off (runs that write turns, as all did before the option, keep
        their ids) and ``seeding`` only when not 1 (runs made before it keep
        theirs)."""
        exclude = {"shard_size"} | ({"turns"} if self.turns else set()) | ({"seeding"} if self.seeding == 1 else set())
        return self.model_dump(mode="json", exclude=exclude)

    def spec_hash(self) -> str:
        canonical = json.dumps(self.identity(), sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()[:10]

    def default_run_id(self) -> str:
        return f"{self.game}-{self.variant}-{self.spec_hash()}"

    def shards(self) -> list[tuple[int, int, int]]:
        """(shard number, first global game, number of games) for every shard."""
        out = []
        for number, first in enumerate(range(0, self.total_games, self.shard_size)):
            out.append((number, first, min(self.shard_size, self.total_games - first)))
        return out


_OPTION_OF = {"seed": "--seed", "games": "--games", "shard_size": "--shard-size"}


def make_experiment(game: GameDef, variant: str | None, cells: tuple[Cell, ...], games: int, seed: int,
                    shard_size: int) -> Experiment:
    """The experiment of ``game`` (``variant`` None: its default) as the commands
    build it, with a bad field a ``UsageError`` naming its option."""
    if games <= 0:
        raise UsageError(f"--games must be at least 1 (got {games})")
    if seed < 0:
        raise UsageError(f"--seed must be non-negative (got {seed})")
    fields = dict(game=game.name, variant=game.default_variant if variant is None else variant, cells=cells,
                  games=games, seed=seed, shard_size=shard_size)
    try:
        return Experiment(**fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else ""
        if field == "seed":
            raise UsageError(f"--seed must be 0..{MAX_SEED} (2^64-1) (got {seed}); choose a smaller seed") from None
        if field == "games":
            raise UsageError(f"--games must be 1..{MAX_GAMES:,} per run (got {games}); "
                             "split the study into several runs") from None
        message = err["msg"].removeprefix("Value error, ")
        where = _OPTION_OF.get(field, field)
        raise UsageError(f"{where}: {message}" if where else message) from None


def grid_shard_size(game: GameDef, shard_size: int | None, cells: tuple[Cell, ...]) -> int:
    """Games per shard of a sweep or tournament: as given, else the game's ``grid_shard_size``,
    fewer for dear strategies (``GameDef.shard_size_for``)."""
    return shard_size or game.shard_size_for([c.matchup for c in cells], game.grid_shard_size)


def resolve_cell_rules(game: GameDef, exp: Experiment, cell: Cell, restore: dict[str, Any] | None = None) -> RulesBase:
    """A cell's rules: its variant with its overrides (and under them ``restore``: knobs a
    replay sets to play a run made under an earlier physics, ``GameDef.physics_restores``,
    or by an earlier package, ``defaults_then``)."""
    return game.with_overrides(game.variant(exp.variant), {**(restore or {}), **cell.overrides})


def rules_as_played(game: GameDef, exp: Experiment, made_by: str | None) -> list[RulesBase]:
    """Each cell's rules as polsim ``made_by`` played the run of ``exp`` (``defaults_then``)."""
    then = defaults_then(game, exp, made_by)
    return [resolve_cell_rules(game, exp, cell, then) for cell in exp.cells]


def defaults_then(game: GameDef, exp: Experiment, made_by: str | None) -> dict[str, Any]:
    """The knobs whose default changed since polsim ``made_by`` made the run of ``exp``, at
    their default then (``GameDef.defaults_then``; ``{}`` for this package or an unknown
    one), but those the run's variant file sets: its cells' overrides go over these."""
    if not made_by:
        return {}
    set_by_variant = game.variant(exp.variant).model_fields_set
    return {k: v for k, v in game.defaults_then(made_by).items() if k not in set_by_variant}


@dataclass(frozen=True)
class GameColumns:
    """Global games ``first .. first+count-1`` as arrays (no per-game Python objects).

    ``group[i]`` numbers the (rules, seats) combination game ``i`` plays:
    ``2 * (cell - first cell) + (seed index % 2)``, so ``groups[group[i]]`` is
    ``(cell, rules, (seat 0, seat 1))``; a cell's odd seed indices swap seats.
    """

    index: np.ndarray  # int64, global game number
    cell: np.ndarray  # int32
    seed_index: np.ndarray  # int64, j = index % games
    seeds: np.ndarray  # int64, game_seed(run seed, j, seeding)
    group: np.ndarray  # int64, into ``groups``
    groups: tuple[tuple[int, RulesBase, tuple[StrategySpec, StrategySpec]], ...]
    variant: str

    def __len__(self) -> int:
        return int(self.index.shape[0])

    def specs(self) -> list[GameSpec]:
        """The same games as ``GameSpec`` objects (for games without a columnar path)."""
        groups = self.groups
        return [
            GameSpec(int(g), int(s), self.variant, groups[k][1], groups[k][2])
            for g, s, k in zip(self.index.tolist(), self.seeds.tolist(), self.group.tolist())
        ]


def seat_balance_note(exp: Experiment) -> str | None:
    """A note when an odd ``games`` cannot give each strategy of a cell each seat in
    half the games (a cell's even seed indices put its first strategy in seat 0)."""
    uneven = [c for c in exp.cells if c.matchup[0] != c.matchup[1]]
    if exp.games % 2 == 0 or not uneven:
        return None
    first = uneven[0].matchup[0]
    return (f"{exp.games} games cannot split the seats evenly: {first} plays seat 0 in {exp.games // 2 + 1} "
            f"and seat 1 in {exp.games // 2} of them; an even --games balances the seats")


def game_columns(exp: Experiment, first: int, count: int, restore: dict[str, Any] | None = None) -> GameColumns:
    """Cells, seed indices, seeds and seat groups of global games ``first .. first+count-1``
    (``restore``: see ``resolve_cell_rules``)."""
    game = get_game(exp.game)
    index = np.arange(first, first + count, dtype=np.int64)
    cell, j = np.divmod(index, exp.games)
    first_cell = int(cell[0]) if count else 0
    groups = []
    for c in range(first_cell, int(cell[-1]) + 1 if count else first_cell):
        spec_cell = exp.cells[c]
        a, b = (StrategySpec.parse(s) for s in spec_cell.matchup)
        rules = resolve_cell_rules(game, exp, spec_cell, restore)
        groups += [(c, rules, (a, b)), (c, rules, (b, a))]
    return GameColumns(
        index=index,
        cell=cell.astype(np.int32),
        seed_index=j,
        seeds=game_seeds(exp.seed, j, exp.seeding) if count else np.empty(0, np.int64),
        group=2 * (cell - first_cell) + (j & 1),
        groups=tuple(groups),
        variant=exp.variant,
    )


def game_specs(exp: Experiment, first: int, count: int) -> list[tuple[int, GameSpec]]:
    """The (cell number, GameSpec) of global games ``first`` .. ``first + count - 1``."""
    cols = game_columns(exp, first, count)
    return list(zip(cols.cell.tolist(), cols.specs()))


def parse_knob_value(text: str) -> Any:
    """A ``--set`` value: bool, int, float or string, read the TOML way."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text.strip()


def parse_sets(items: list[str]) -> dict[str, list[Any]]:
    """``--set key=v1,v2`` items into {key: [values]} (a sweep takes several values);
    a knob given twice or an empty value is a ``UsageError``."""
    out: dict[str, list[Any]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise UsageError(f"--set {item!r} is not key=value (or key=v1,v2 for a sweep)")
        key = key.strip()
        if key in out:
            raise UsageError(f"--set {key} is given twice; give each knob once (several values: --set {key}=v1,v2)")
        parts = values.split(",")
        if any(not v.strip() for v in parts):
            raise UsageError(f"--set {item!r} has an empty value; remove the extra comma")
        out[key] = [parse_knob_value(v) for v in parts]
    return out


def split_strategies(text: str) -> list[str]:
    """``--strategies A,B,...`` into its items; an empty list or item is a ``UsageError``."""
    items = [p.strip() for p in text.split(",")]
    if not any(items):
        raise UsageError("--strategies is empty; name strategies, e.g. -s random,greedy (see `polsim strategies`)")
    if not all(items):
        raise UsageError(f"--strategies {text!r} has an empty item; remove the extra comma")
    return items


def validate(exp: Experiment) -> GameDef:
    """Check every name, knob and parameter before anything runs or is written."""
    game = get_game(exp.game)
    game.variant(exp.variant)
    for cell in exp.cells:
        resolve_cell_rules(game, exp, cell)
        for text in cell.matchup:
            spec = StrategySpec.parse(text)
            game.strategy(spec).validate(spec)
    return game
