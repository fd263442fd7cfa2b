"""Small hand-made scenes: bodies and episodes written by hand, in millimetres.

For tests and debugging of the rules without running the core: ``disc``
builds a ``BodyInfo``, ``episode`` an ``Episode`` whose ``final`` bodies are
the scene after the move. Colours: ``W`` (-1, White's) and ``B`` (+1, Black's).
"""

from __future__ import annotations

import math

from sim.api import BodyInfo, BodyState, Episode

W, B = -1, 1
MM = 1e-3


def disc(id: int, x_mm: float, y_mm: float, up: int, state: str = "flat", *, red: bool = False,
         tower: int = -1, z_mm: float = 3.0, leaning_on: int = -1) -> BodyInfo:
    st = BodyState(state)
    tilt = math.pi / 4 if st in (BodyState.LEANING, BodyState.RESTING) else 0.0
    return BodyInfo(id, red, x_mm * MM, y_mm * MM, z_mm * MM, up, tilt, st, tower, leaning_on)


def moved(body: BodyInfo, **changes) -> BodyInfo:
    """A copy of ``body`` with fields changed (``state`` may be a string)."""
    fields = {**body.__dict__, **changes}
    fields["state"] = BodyState(fields["state"])
    return BodyInfo(**fields)


def episode(final: list[BodyInfo], **events) -> Episode:
    ep = Episode(status=events.pop("status", "settled"), steps=events.pop("steps", 100),
                 sim_time=events.pop("sim_time", 0.5), final=list(final))
    for k, v in events.items():
        setattr(ep, k, v)
    return ep
