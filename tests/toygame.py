"""A toy game for pipeline tests: each player scores a seeded die roll.

Registered as ``toy`` by the tests that import it (never by the package), so
the pipeline can be tested without depending on a real game's speed. The
``crash`` strategy raises on every ``every``-th game index, to check failure
isolation. The ``signal`` strategy plays fair but, on game ``at``, sends its
own process the signal named by ``POLSIM_TOY_SIGNAL`` (when set): a stop
request arriving in the middle of a shard played in-process.
"""

from __future__ import annotations

import os
import signal
import time

import pyarrow as pa
from pydantic import Field

from rules.base import GameDef, GameSpec, RulesBase, StrategyDef, StrategyParams, register_game
from rules.seeds import stream


class ToyRules(RulesBase):
    sides: int = Field(6, ge=2)
    rounds: int = Field(3, ge=1)


class Fair(StrategyParams):
    pass


class Loaded(StrategyParams):
    bonus: int = Field(1, ge=0)


class Crash(StrategyParams):
    every: int = Field(3, ge=1)


class Signal(StrategyParams):
    at: int = Field(0, ge=0)


class Sleepy(StrategyParams):
    ms: float = Field(20.0, ge=0)


def _roll(spec: GameSpec, seat: int, rnd: int) -> int:
    strat = spec.seats[seat]
    params = dict(strat.params)
    if strat.name == "crash" and spec.index % int(params.get("every", 3)) == 0:
        raise RuntimeError(f"crash strategy failed on game {spec.index}")
    if strat.name == "signal" and spec.index == int(params.get("at", 0)) and os.environ.get("POLSIM_TOY_SIGNAL"):
        os.kill(os.getpid(), getattr(signal, os.environ["POLSIM_TOY_SIGNAL"]))
    if strat.name == "sleepy":
        if os.environ.get("POLSIM_TOY_PIDFILE"):
            with open(os.environ["POLSIM_TOY_PIDFILE"], "a") as f:
                f.write(f"{os.getpid()}\n")
        time.sleep(float(params.get("ms", 20.0)) / 1000 / spec.rules.rounds)
    roll = int(stream(spec.seed, f"seat{seat}-round{rnd}").integers(1, spec.rules.sides + 1))
    return roll + (int(params.get("bonus", 1)) if strat.name == "loaded" else 0)


def play_batch(specs: list[GameSpec]) -> tuple[pa.Table, pa.Table]:
    games, turns = [], []
    for spec in specs:
        totals = [0.0, 0.0]
        for rnd in range(spec.rules.rounds):
            for seat in (0, 1):
                totals[seat] += _roll(spec, seat, rnd)
                turns.append({"game_index": spec.index, "turn": 2 * rnd + seat, "player": seat,
                              "score_0": totals[0], "score_1": totals[1]})
        winner = -1 if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
        games.append({"game_index": spec.index, "winner": winner, "score_0": totals[0], "score_1": totals[1],
                      "end_reason": "rounds_done", "n_turns": 2 * spec.rules.rounds, "status": "ok", "error": None})
    schema = pa.schema([("game_index", pa.int64()), ("winner", pa.int8()), ("score_0", pa.float64()),
                        ("score_1", pa.float64()), ("end_reason", pa.string()), ("n_turns", pa.int32()),
                        ("status", pa.string()), ("error", pa.string())])
    turn_schema = pa.schema([("game_index", pa.int64()), ("turn", pa.int32()), ("player", pa.int8()),
                             ("score_0", pa.float64()), ("score_1", pa.float64())])
    return pa.Table.from_pylist(games, schema), pa.Table.from_pylist(turns, turn_schema)


TOY = register_game(GameDef(
    name="toy",
    description="dice for pipeline tests",
    rules_model=ToyRules,
    variants=lambda: {"standard": ToyRules(), "d20": ToyRules(sides=20)},
    strategies={
        "fair": StrategyDef("fair", "rolls", Fair, lambda p: None),
        "loaded": StrategyDef("loaded", "adds a bonus", Loaded, lambda p: None),
        "crash": StrategyDef("crash", "raises on some games", Crash, lambda p: None),
        "sleepy": StrategyDef("sleepy", "fair, but takes ms per game", Sleepy, lambda p: None),
        "signal": StrategyDef("signal", "fair, but signals its own process on game `at`", Signal, lambda p: None),
    },
    play_batch=play_batch,
))
