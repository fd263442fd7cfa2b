"""Polarity (Douglas Seaton, 1986): the magnetic dexterity game, on the ``sim`` core.

Modules, one job each:
- ``model``: ``PolarityRules`` (every knob of docs/RULES.md R1-R19) and the TOML variants;
- ``state``: stacks, captured towers, pending fault groups; seats and colours;
- ``resolve``: pure fault resolution of one physics ``Episode`` (R6-R12, R14-R15);
- ``ends``: sudden ends (R14-R17), the red disc's orientation (R1) and the winner (R18);
- ``view``: what a strategy sees and the actions it may answer;
- ``clearance``: the measured reaches of the core that strategies keep;
- ``strategies``: the scripted strategies and their parameter models;
- ``engine``: one full game (setup, turns, sudden ends, scoring);
- ``records``: the ``games``/``turns`` Arrow tables and ``play_batch``;
- ``trace``: the positions after each turn, for replays;
- ``scenes``: hand-made bodies and episodes for tests and examples;
- ``physics``: the door to the core's verbs and parameters (``sim.api``);
  other modules read only its data types (``BodyInfo``, ``BodyState``, ``Episode``) and
  ``sim.detmath``'s bit-exact functions.

Importing this package registers the game ``polarity``.
"""

from rules.base import GameDef, register_game
from rules.polarity.model import PolarityRules, defaults_then, load_variants, variant_descriptions
from rules.polarity.physics import compile_aside, compile_path, physics_restores, physics_version
from rules.polarity.records import play_batch
from rules.polarity.strategies import STRATEGIES
from rules.polarity.trace import trace

GAME = register_game(
    GameDef(
        name="polarity",
        description="Polarity: float magnetic discs as leaners off your own foundations; faults feed your opponent's towers",
        rules_model=PolarityRules,
        variants=load_variants,
        strategies=STRATEGIES,
        play_batch=play_batch,
        physics_version=physics_version,
        physics_restores=physics_restores,
        warm_parts=(compile_path, compile_aside),
        defaults_then=defaults_then,
        default_variant="standard",
        trace=trace,
        shard_size=2,  # a standard game costs seconds to a minute of CPU: small tasks balance the workers
        default_strategies="cautious,aggressive",
        default_games=24,  # median ~30 CPU s a standard game (physics 0.7.0): minutes on two cores
        variant_descriptions=variant_descriptions,
        seat_note="seat 0 plays White and moves first",
    )
)
