"""The game interface: what every game offers the pipeline, and nothing more.

A game is one module (or package) under ``rules/`` that builds a ``GameDef``
and calls ``register_game`` on import. The pipeline looks games up by name
and knows only this:

- ``rules_model``: a pydantic model holding every knob of RULES.md for the
  game (frozen, ``extra="forbid"``), and ``variants()``: named rule sets;
- ``strategies``: a registry of ``StrategyDef`` (name, pydantic parameter
  model, one-line description);
- ``play_batch(specs)``: play these ``GameSpec`` and return two Arrow tables,
  ``games`` (exactly one row per spec, in order) and ``turns`` (one row per
  turn or move).

Columns every game's tables must carry (the worker adds the identifying
columns: run id, seed, game, variant, variant hash, strategies, versions,
``rule_*`` knob values):

games: ``game_index`` int64, ``winner`` int8 (seat 0 or 1, -1 for a draw,
null when the game failed), ``score_0`` / ``score_1`` float64, ``end_reason``
string, ``n_turns`` int32, ``status`` string (``ok`` or ``error``),
``error`` string (null when ok). Seat 0 moves first (White in Polarity, the
proposer in Polar).

turns: ``game_index`` int64, ``turn`` int32 (0-based), ``player`` int8 (seat),
``score_0`` / ``score_1`` float64 (running scores after the turn).

A game that fails (a strategy raises, the physics does not settle) must still
produce its row, with ``status="error"`` and the message; ``play_batch`` may
also raise, in which case the worker replays the batch one game at a time to
isolate the failure.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, ValidationError


class UsageError(ValueError):
    """Bad user input: the message names the problem and what to do."""


class RulesBase(BaseModel):
    """Base of every game's rules model: frozen, unknown knobs and non-finite numbers rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    def variant_hash(self, without=()) -> str:
        """A short stable hash of every knob value (but the knobs named in ``without``: what the
        hash was before they existed, for runs made before them)."""
        canonical = json.dumps(self.model_dump(mode="json", exclude=set(without)), sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]


class StrategyParams(BaseModel):
    """Base of every strategy's parameter model: unknown parameters and non-finite numbers rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


def did_you_mean(name: str, choices) -> str:
    """' (did you mean X?)' for the choice nearest a misspelt ``name``, else ''."""
    import difflib

    near = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.75)
    return f" (did you mean {near[0]}?)" if near else ""


def knob_text(value: Any) -> str:
    """A knob's value as ``--set`` takes it: ``true``, ``15``, ``0.5``, ``when_emptied``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return repr(value).removesuffix(".0")
    return str(value)


def before_version(changes, version: str) -> dict[str, Any]:
    """The knob values ``changes`` ((version that changed it, knob, value before), newest
    first) restore for something made by ``version`` ("0.19.0"): every knob a later version
    changed, at its value before; ``{}`` for a ``version`` that is not a version number."""
    try:
        made = tuple(int(part) for part in version.split("."))
    except ValueError:
        return {}
    found: dict[str, Any] = {}
    for since, knob, value in changes:
        if made < since:
            found[knob] = value  # a knob changed twice: the older change, listed later, wins
    return found


@dataclass(frozen=True)
class StrategySpec:
    """A strategy named with its parameters, as written on the command line:
    ``name`` or ``name:key=value:key=value`` (e.g. ``cautious:noise_mm=1.5``)."""

    name: str
    params: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> "StrategySpec":
        parts = [p.strip() for p in text.strip().split(":")]
        if not parts[0]:
            raise UsageError(f"empty strategy name in {text!r}; write name or name:key=value")
        params = []
        for part in parts[1:]:
            key, sep, value = part.partition("=")
            if not sep or not key.strip():
                raise UsageError(f"strategy parameter {part!r} in {text!r} is not key=value")
            if key.strip() in dict(params):
                raise UsageError(f"strategy parameter {key.strip()!r} is given twice in {text!r}; give it once")
            params.append((key.strip(), value.strip()))
        return cls(parts[0], tuple(sorted(params)))

    def __str__(self) -> str:
        return ":".join([self.name] + [f"{k}={v}" for k, v in self.params])


@dataclass(frozen=True)
class StrategyDef:
    """A registered strategy: its parameter model and how to build it."""

    name: str
    description: str
    params_model: type[StrategyParams]
    make: Callable[[StrategyParams], Any]

    def validate(self, spec: StrategySpec) -> StrategyParams:
        try:
            return self.params_model(**dict(spec.params))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"])
            if not where:  # a check across parameters
                raise UsageError(f"strategy {spec}: bad parameters: {err['msg'].removeprefix('Value error, ')}") from None
            known = ", ".join(self.params_model.model_fields) or "none"
            if err["type"] == "extra_forbidden":
                raise UsageError(f"strategy {spec}: unknown parameter {where}"
                                 f"{did_you_mean(where, self.params_model.model_fields)}; parameters: {known}") from None
            raise UsageError(
                f"strategy {spec}: bad parameter {where}: {err['msg']} (parameters: {known})"
            ) from None


@dataclass(frozen=True)
class GameSpec:
    """One game to play: its index in the run, its seed, its rules and seats."""

    index: int
    seed: int
    variant: str
    rules: RulesBase
    seats: tuple[StrategySpec, StrategySpec]


SHARD_SECONDS = 5.0  # play per shard that ``GameDef.shard_size_for`` aims at for dear strategies


@dataclass(frozen=True)
class GameDef:
    """What a game registers: the whole of what the pipeline may use."""

    name: str
    description: str
    rules_model: type[RulesBase]
    variants: Callable[[], dict[str, RulesBase]]
    strategies: dict[str, StrategyDef]
    play_batch: Callable[[list[GameSpec]], tuple[pa.Table, pa.Table]]
    physics_version: Callable[[], str] = field(default=lambda: "")
    default_variant: str = "standard"
    trace: Callable[[GameSpec], list[dict]] | None = None  # positions after each turn, for replays
    shard_size: int = 10  # games per Ray task: enough for a task to run for seconds
    grid_shard_size: int = 10  # the same in sweeps and tournaments, whose cells are each a few shards
    seat_seconds: Callable[[StrategySpec], float] | None = None  # rough CPU s of one seat's play in a game
    default_strategies: str = "random,random"  # what `simulate` plays when -s is not given
    default_games: int = 1000  # ... and how many games, when --games is not given
    variant_descriptions: Callable[[], dict[str, str]] = field(default=lambda: {})  # name -> one line
    seat_note: str = "seat 0 moves first"  # what seat 0 is, for seat tables' titles
    # physics version -> the knob values that play games as that version did (for replays of old runs)
    physics_restores: Callable[[str], dict[str, Any]] = field(default=lambda version: {})
    # polsim package version -> the knobs whose default changed since, at their default then
    defaults_then: Callable[[str], dict[str, Any]] = field(default=lambda version: {})
    # compile the game's cores ahead of its games, in parts run side by side: worker k of a run's
    # warm-up runs part k, when a run has two workers or more (sim.warm); each is quick with a warm cache
    warm_parts: tuple[Callable[[], None], ...] = ()

    def shard_size_for(self, matchups, default: int | None = None) -> int:
        """Games per shard for these matchups: ``default`` (else ``shard_size``), or fewer
        when ``seat_seconds`` says a game is dear, so that a shard holds about
        ``SHARD_SECONDS`` of play: every worker keeps busy to the end of a run (a
        few huge shards leave workers idle) and an interrupted shard loses little."""
        size = default or self.shard_size
        if self.seat_seconds is None:
            return size
        dearest = max(sum(self.seat_seconds(StrategySpec.parse(str(s))) for s in m) for m in matchups)
        return max(1, min(size, int(SHARD_SECONDS / dearest))) if dearest > 0 else size

    def strategy(self, spec: StrategySpec) -> StrategyDef:
        try:
            return self.strategies[spec.name]
        except KeyError:
            known = ", ".join(sorted(self.strategies))
            raise UsageError(
                f"unknown strategy {spec.name!r} for {self.name}; choose one of: {known}"
            ) from None

    def variant(self, name: str) -> RulesBase:
        found = self.variants()
        if name not in found:
            known = ", ".join(sorted(found))
            raise UsageError(f"unknown variant {name!r} for {self.name}; choose one of: {known}")
        return found[name]

    def with_overrides(self, rules: RulesBase, overrides: dict[str, Any]) -> RulesBase:
        """The rules with knobs replaced; unknown knobs and bad values are usage errors."""
        unknown = sorted(set(overrides) - set(self.rules_model.model_fields))
        if unknown:
            known = ", ".join(self.rules_model.model_fields)
            raise UsageError(f"unknown knob {unknown[0]!r} for {self.name}"
                             f"{did_you_mean(unknown[0], self.rules_model.model_fields)}; knobs: {known}")
        try:
            return self.rules_model(**{**rules.model_dump(), **overrides})
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"])
            if not where:  # a check across knobs
                raise UsageError(f"bad knobs: {err['msg'].removeprefix('Value error, ')}") from None
            raise UsageError(f"bad value for knob {where}: {err['msg']}") from None


_GAMES: dict[str, GameDef] = {}


def register_game(game: GameDef) -> GameDef:
    _GAMES[game.name] = game
    return game


def _load_games(name: str | None = None) -> None:
    """Import the game ``name`` (``rules.<name>``), or every game of the package
    when ``name`` is None, and any listed in ``POLSIM_GAME_MODULES``
    (comma-separated module names: games that live outside ``rules/``).
    Importing a game's module registers it; a worker that plays Polar never
    pays for importing the physics."""
    import importlib
    import importlib.util
    import os
    import pkgutil

    import rules

    for module in filter(None, os.environ.get("POLSIM_GAME_MODULES", "").split(",")):
        importlib.import_module(module.strip())
    if name is not None and name in _GAMES:
        return
    names = [name] if name is not None else [m.name for m in pkgutil.iter_modules(rules.__path__) if m.ispkg]
    for module in names:
        if module.isidentifier() and importlib.util.find_spec(f"rules.{module}") is not None:
            importlib.import_module(f"rules.{module}")


def get_game(name: str) -> GameDef:
    _load_games(name)
    try:
        return _GAMES[name]
    except KeyError:
        _load_games()
        known = ", ".join(sorted(_GAMES))
        raise UsageError(f"unknown game {name!r}; choose one of: {known}") from None


def all_games() -> dict[str, GameDef]:
    _load_games()
    return dict(_GAMES)
