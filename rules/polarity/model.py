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

from rules.base import RulesBase, UsageError, before_version

VARIANTS_DIR = Path(__file__).parent / "variants"


class PolarityRules(RulesBase):
    """Every knob of RULES.md for Polarity; defaults are the rulebook's reading, except
    where the rulebook is silent: ``unsettled`` (see the module docstring) and the safety
    cap ``max_turns``."""

    red_orientation: Literal["random", "bar", "dot"] = Field(
        "random", description="R1: the red disc's face up: bar, dot, or drawn per game")
    foundations: int = Field(5, ge=1, le=12, description="R3: foundations each player lays at setup")
    foundation_order: Literal["white_first", "alternate"] = Field(
        "white_first", description="R3: White lays all its foundations, then Black (the rulebook); or they "
        "alternate, White first")
    foundation_red_gap_mm: float = Field(
        0.0, ge=0, le=120, description="R3: a foundation's rim at least this far from the red disc's rim, mm "
        "(0: the rulebook, touching no disc; at most 120, so the rest of the circle holds the foundations)")
    edge_gap_mm: float = Field(
        0.0, ge=0, le=60, description="R3, R10: a foundation's rim, and a captured tower's, at least this far "
        "inside the circle's edge, mm (0: anywhere inside the circle, the rulebook; polsim before 0.23.0 kept "
        "15, a disc radius, by a slip in its spot test)")
    stack_size: int = Field(26, ge=1, le=26, description="discs per player at the start (more than foundations)")
    setup_retries: int = Field(20, ge=0, description="R3: tries for a foundation spot that makes no disc react")
    max_attempts: int = Field(10, ge=1, description="R5: tries to float the Action Disc before giving up")
    fault_move_diameters: float = Field(1.0, gt=0, description="R6(d): a disc moving further than this many diameters is a fault")
    allow_conversion: bool = Field(True, description="R7: a player may push their own leaner flat instead of placing")
    tower_steal: bool = Field(False, description="R11: discs of captured towers in a fault group change hands too")
    single_disc_tower_scores: bool = Field(True, description="R12: a captured single disc scores as a one-disc tower")
    red_sudden_death: bool = Field(True, description="R14: touching the red disc loses at once")
    red_moved_loses: bool = Field(True, description="R15: moving the red disc off its centre dot loses at once")
    no_colour_loses: bool = Field(True, description="R16: a player with no disc showing their colour loses")
    end_when: Literal["stack_empty", "both_stacks_empty"] = Field(
        "stack_empty", description="R17: the game ends when one stack, or both, is empty")
    empty_stack_scoring: Literal["when_emptied", "after_resolution"] = Field(
        "when_emptied", description="R17/R18: a stack the last disc emptied is scored empty, the game being over when "
        "it emptied ('proceed to scoring immediately'), or with the discs that move's fault returned to it (R8, R9), "
        "as polsim before 0.22.0 scored it")
    settle_budget_s: float = Field(4.0, gt=0, description="R19: simulated seconds an episode may take to come to rest")
    unsettled: Literal["freeze", "end_game"] = Field(
        "freeze", description="R19: an episode not at rest within the budget is frozen and read, or ends the game (step_budget)")
    max_turns: int = Field(400, ge=1, description="safety cap on turns; the game ends as turn_limit")
    stall_rounds: int = Field(
        5, ge=0, description="R5: the game ends as stalled, scored as at R17, once both players have given up on each of their last this many turns (0: play on to max_turns)")
    stall_failed_conversions: bool = Field(
        True, description="R5/R7: a conversion that leaves the leaner up with no fault changes nothing on the mat either, and counts toward stall_rounds as a give-up does; false = polsim 0.31.0 and before, under which a player who kept failing to convert, facing one who kept giving up, played on to max_turns")
    magnet_strength: float = Field(1.0, gt=0, description="physics: scale on the magnets' remanence Br")
    contact_substeps: int | None = Field(
        None, ge=1, description="physics: sub-steps of a contact step; unset = the core's 3; 1 = physics 0.6.0 (~1.4x cheaper)")
    dt: float | None = Field(
        None, gt=0.0, le=2e-4, description="physics: the core's fixed step, s; unset = the core's 1e-4; 5e-5 (the fine-step variant) keeps a frictionless snap's energy within 1 % over a second at ~1.7x the CPU")
    flat_sleep_time: float | None = Field(
        None, gt=0.0, le=0.08, description="physics: how long an island of discs lying flat stays still before it sleeps, s; unset = the core's 0.02; 0.08 (every island's sleep time) = physics 0.18.0 (replayed episodes ~8 % dearer on average)")
    tower_hold: bool = Field(
        True, description="physics: a sleeping tower friction holds stays asleep as a whole; false = physics 0.7.0's wake check (~2x dearer)")
    tower_at_rest: bool = Field(
        True, description="physics: a captured tower is set down whole, each disc at its rest height; false = physics 0.8.0's discs let go 0.2 mm apart (a clean capture ~5-12x dearer)")
    compound: bool = Field(
        True, description="physics: a stack of awake discs held face to face moves as one rigid body; false = physics 0.9.0 (cascades dearer)")
    reuse_lead: float | None = Field(
        None, ge=0.0, lt=1.0, description="physics: how far ahead along a magnetic pair's motion its reused result is computed, as a share of the reuse tolerance; unset = the core's 0.9; 0 = physics 0.10.0 (episodes ~3-18 % dearer)")
    far_dipole: float | None = Field(
        None, ge=0.0, description="physics: magnetic pairs 6 cm apart up to this many metres get their dipole term every step and hold only the rest of their result; unset = the core's 0.12; 0 = physics 0.11.0 (~4 % cheaper)")
    contact_skirt: float | None = Field(
        None, ge=0.0, description="physics: a rim point pressed into a disc stays pushed out through the surface it entered by, bent away past its edge on a quarter circle of this radius (m), until it is out; unset = the core's 0.003; 0 = physics 0.12.1 (a snap's impacts lose energy)")
    frame_turn: bool = Field(
        True, description="physics: the magnetic kernel adds the work of its sampling frame turning with the pose (conservative within a rule, no torque about a disc's own axis); false = physics 0.13.1")
    blend_work: bool = Field(
        True, description="physics: the magnetic kernel's blends between sampling rules and tiers add the work of their weight changing with the pose (conservative across them); false = physics 0.14.0")
    reuse_momentum: bool = Field(
        True, description="physics: a magnetic pair result reused from another pose is served with the torque that keeps angular momentum at the pose of the moment (a pair turning as one piece does no work); false = physics 0.15.0")
    fitted_lead: bool = Field(
        True, description="physics: a magnetic pair that crosses its reuse tolerance within a step is computed half a step ahead, or where it is, not a fixed share of a tolerance ahead of every step (which fed energy in); false = physics 0.17.0")
    lift_clinging: bool = Field(
        True, description="physics, R6(c)/R8: a disc that tipped up onto the Action Disc in hand goes up with it though its rim still rests on the mat; false (with out_entirely=false, red_stays=false) = physics 0.19.0, which let go of the Action Disc onto it")
    out_entirely: bool = Field(
        True, description="physics, R6(e): a disc is out of bounds when all of it lies beyond the circle, seen from above; false (with lift_clinging=false, red_stays=false) = physics 0.19.0, by its centre")
    red_stays: bool = Field(
        True, description="physics: the red disc is never lifted away with the Action Disc in hand; pulled off, it falls where it hung; false (with lift_clinging=false, out_entirely=false) = physics 0.19.0, where it left the game (2 of seed 20's 384 no-red-death games)")
    compound_labels: bool = Field(
        True, description="physics: a stack moving as one rigid body remembers which face each of its discs pressed into the next through, so a tall tower of strong magnets (pressed past the 0.8 mm chamfer) is pushed apart face to face when it breaks up; false = physics 0.20.0, which forgot, so such a tower woken later could collapse into itself (runaway energy)")
    hold_bottom_face: bool = Field(
        True, description="physics: the wake check's hold test of a sleeping flat disc or tower takes each tipping torque about the face the disc rests on, whichever colour is up; false = physics 0.21.0, which took it about the white face: the top face of a white-up disc, so a white-up sleeper's tipping torque was off (a lone disc's up to 12 % low, a tower's up to 31 % high) and it slept on, or was woken, where a black-up one was not")
    wake_vacated: bool = Field(
        True, description="physics: a capture that lifts discs off the mat wakes each disc not lying flat that leaned on or touched them, so a leaner whose host is carried off falls (a fault of the capture, R10); false = physics 0.22.0, where it hung in the air, asleep, with nothing under it")
    wake_field: bool = Field(
        True, description="physics: a capture wakes each leaner whose magnetic pull the lifted discs changed past the wake threshold, as a move nearby would; false = physics 0.23.0, where one whose cushion they were part of kept the pose the old field held it in")
    aim_tilt: bool = Field(
        True, description="strategies: a leaner is aimed at the tilt the core balanced it at as well as its base distance (the core tries 45 deg, then up to 15 deg either side); false = polsim 0.25.0 and before, which aimed at 45 deg with the distance found at the other tilt (8 % of the balance calls of three standard games, often into a tower's top)")
    aim_fit: bool = Field(
        True, description="strategies: the core's balancing pose is one the hand can bring a disc to, it and its approach clear of every disc (sim.fit); false = polsim 0.25.0 and before, which could aim into a disc (a flat disc under the pose, a tower's top)")
    aim_hold: bool = Field(
        True, description="strategies: the core's balancing pose leaves the discs near it in place, each flat disc and tower held by friction with margin at the pose and on the hand's approach (sim.disturb); false = polsim 0.26.0 and before, which aimed at a 2- or 3-disc tower's only balance, close in, where the top disc jumps into the hand (12 tries of 12 on a lone tower)")
    aim_push: bool = Field(
        True, description="strategies: a leaner with no disc under its upper rim (under physics 0.22.0, one whose host a capture carried off) is pressed flat toward the side it leans to, as one on a host is pressed toward its host; false = polsim 0.31.0 and before, which pressed it toward the nearest disc, however it leaned, and could miss it at every try")
    converged_gap: bool = Field(
        True, description="physics: the magnetic kernel picks and blends its sampling rules by an edge gap between converged nearest points, whose gradient the blends' work term takes from them (no spurious force where three projection rounds fell short); false = physics 0.16.0")

    @model_validator(mode="after")
    def _a_disc_left_after_setup(self) -> "PolarityRules":
        # R3 lays the foundations from the stack; R17 is judged only after a placement,
        # so a stack that setup empties would leave a game no one can move in
        if self.stack_size <= self.foundations:
            raise ValueError(f"stack_size ({self.stack_size}) must be greater than foundations "
                             f"({self.foundations}): each player needs a disc left after setup")
        return self

    @model_validator(mode="after")
    def _room_for_the_foundations(self) -> "PolarityRules":
        # the ring between the red disc's gap and the edge's stays 60 mm or more wide
        if self.foundation_red_gap_mm + self.edge_gap_mm > 120:
            raise ValueError(f"foundation_red_gap_mm ({self.foundation_red_gap_mm:g}) plus edge_gap_mm "
                             f"({self.edge_gap_mm:g}) is more than 120 mm: leave the foundations a ring of "
                             "60 mm or more")
        return self


# Each knob whose default changed: (the polsim version that changed it, knob, its default
# before), newest first. A run made by an earlier polsim played the default before
# wherever its variant file and cell left the knob unset (replays restore it).
DEFAULTS_BEFORE = (
    ((0, 32, 0), "aim_push", False),
    ((0, 32, 0), "stall_failed_conversions", False),
    ((0, 27, 0), "aim_hold", False),
    ((0, 26, 0), "aim_tilt", False),
    ((0, 26, 0), "aim_fit", False),
    ((0, 23, 0), "edge_gap_mm", 15.0),
    ((0, 22, 0), "empty_stack_scoring", "after_resolution"),
)


def defaults_then(package_version: str) -> dict:
    """The knobs whose default changed after polsim ``package_version``, at their default then."""
    return before_version(DEFAULTS_BEFORE, package_version)


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
