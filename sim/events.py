"""The value types of the contract (re-exported by sim.api): what goes in
(Intent) and what comes out (BodyInfo, BodyState, Episode)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class BodyState(str, Enum):
    FLAT = "flat"          # lying on the mat (a foundation, or a fallen leaner)
    LEANING = "leaning"    # rim on the mat, tilted, touching no disc
    STACKED = "stacked"    # face to face on or under another disc (a tower)
    RESTING = "resting"    # tilted and touching another disc (snapped leaner)
    IN_HAND = "in_hand"    # stuck to the held Action Disc when it was released
    OUT = "out"            # centre outside the play circle


@dataclass(frozen=True)
class Intent:
    """Where the hand brings the Action Disc before letting go."""

    host: int               # body id of the foundation or tower it leans on
    azimuth: float          # direction from the host centre to the leaner, radians
    base_distance: float    # host centre to the leaner's lowest rim point, metres
    tilt: float             # angle between the leaner's face and the mat, radians
    up: int                 # colour shown: +1 black, -1 white


@dataclass(frozen=True)
class BodyInfo:
    id: int
    red: bool
    x: float
    y: float
    z: float
    up: int                 # colour shown now (sign of the face normal's z)
    tilt: float             # radians between face and mat
    state: BodyState
    tower: int              # id of the bottom disc of its stack, or -1
    leaning_on: int         # tilted: nearest disc under its upper rim, or -1
    owner: int = -1         # whatever the caller stored with the body (add_flat owner=)


@dataclass
class Episode:
    """What an episode returns: the events of RULES.md R6, R12, R14-R16."""

    status: str                                   # settled | step_budget | nan | energy
    steps: int
    sim_time: float
    action: int = -1                              # id of the Action Disc (place_leaner, lay_flat)
    new_contacts: list[tuple[int, int]] = field(default_factory=list)  # at any instant
    fallen: list[int] = field(default_factory=list)          # leaners that ended flat
    flipped: list[int] = field(default_factory=list)         # colour shown changed
    moved_diameters: dict[int, float] = field(default_factory=dict)  # max displacement
    out_of_bounds: list[int] = field(default_factory=list)
    red_contacts: list[int] = field(default_factory=list)    # bodies that touched red
    red_displacement: float = 0.0                            # in red radii
    in_hand: list[int] = field(default_factory=list)         # stuck to the held disc
    final: list[BodyInfo] = field(default_factory=list)
    final_contacts: list[tuple[int, int]] = field(default_factory=list)
    body_steps: int = 0                                      # sum over steps of awake bodies (cost)

    @property
    def ok(self) -> bool:
        return self.status == "settled"
