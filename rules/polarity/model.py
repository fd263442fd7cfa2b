"""The Polarity rules model and its named variants.

``PolarityRules`` holds every knob of RULES.md (R1-R19) as a flat field, so
``--set knob=value`` reaches each one, plus flat physics overrides
(``magnet_strength`` scales the magnets' remanence Br). Named variants are
TOML files in ``variants/`` holding a ``description`` and only the knobs that
differ from the defaults; ``load_variants`` validates each with the model.

``unsettled`` (R19: "the physics runs until every disc is at rest, or the
step budget ends") says what an episode that is still moving when the budget
ends does to the game. ``freeze`` (default) reads the world as it is then:
the moving bodies are stopped where they are (speeds zeroed, put to sleep),
the turn is resolved from that state like any other and recorded
(``turns.unsettled``, ``games.unsettled_episodes``). ``end_game`` ends the
whole game with ``step_budget`` and no winner. Freeze is the default because
a budget overrun is a numerical event, not play: on the table every disc
comes to rest within a second or two, and what the core cannot settle is
almost always a leaner still rocking on its cushion or a disc creeping under
a weak pull, both tiny motions; stopping them changes the position by far
less than the hand's noise, while ending the game throws away everything
played so far and biases the end-reason mix toward crowded (late) worlds.
``end_game`` remains for studying the core itself.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from rules.base import RulesBase, UsageError

VARIANTS_DIR = Path(__file__).parent / "variants"


class PolarityRules(RulesBase):
    """Every knob of RULES.md for Polarity; defaults are the rulebook's reading."""

    red_orientation: Literal["random", "bar", "dot"] = "random"  # R1
    foundations: int = Field(5, ge=1, le=12)  # R3, per player
    stack_size: int = Field(26, ge=1, le=26)  # discs per player at the start
    setup_retries: int = Field(20, ge=0)  # R3
    max_attempts: int = Field(10, ge=1)  # R5
    fault_move_diameters: float = Field(1.0, gt=0)  # R6 (d)
    allow_conversion: bool = True  # R7
    tower_steal: bool = False  # R11
    single_disc_tower_scores: bool = True  # R12
    red_sudden_death: bool = True  # R14
    red_moved_loses: bool = True  # R15
    no_colour_loses: bool = True  # R16
    end_when: Literal["stack_empty", "both_stacks_empty"] = "stack_empty"  # R17
    settle_budget_s: float = Field(4.0, gt=0)  # R19, simulated seconds per episode
    unsettled: Literal["freeze", "end_game"] = "freeze"  # R19, an episode not at rest within the budget
    max_turns: int = Field(400, ge=1)  # safety cap -> end reason turn_limit
    magnet_strength: float = Field(1.0, gt=0)  # physics: scale on Br
    contact_substeps: int | None = Field(None, ge=1)  # physics: None = the core's (sim.integrate, Sub-steps); 1 = physics 0.6.0's single steps, ~1.4x cheaper a game

    @model_validator(mode="after")
    def _a_disc_left_after_setup(self) -> "PolarityRules":
        # R3 lays the foundations from the stack; R17 is judged only after a placement,
        # so a stack that setup empties would leave a game no one can move in
        if self.stack_size <= self.foundations:
            raise ValueError(f"stack_size ({self.stack_size}) must be greater than foundations "
                             f"({self.foundations}): each player needs a disc left after setup")
        return self


def _read_variant(path: Path) -> PolarityRules:
    data = tomllib.loads(path.read_text())
    data.pop("description", None)
    try:
        return PolarityRules(**data)
    except Exception as exc:  # pydantic ValidationError, with the file named
        raise UsageError(f"variant file {path.name}: {exc}") from None


def variant_descriptions() -> dict[str, str]:
    """Name -> one-line description of every variant file."""
    return {
        p.stem: tomllib.loads(p.read_text()).get("description", "")
        for p in sorted(VARIANTS_DIR.glob("*.toml"))
    }


@lru_cache(maxsize=1)
def _variants() -> tuple[tuple[str, PolarityRules], ...]:
    return tuple((p.stem, _read_variant(p)) for p in sorted(VARIANTS_DIR.glob("*.toml")))


def load_variants() -> dict[str, PolarityRules]:
    """Name -> validated rules of every variant file (``standard`` is all defaults)."""
    return dict(_variants())
