"""Polarity positions turn by turn, for replays: ``trace(spec) -> list[frame]``.

A frame is what is on the mat after one row of the ``turns`` table (one
action: a setup disc, a capture, a leaner placement or a conversion), in
``seq`` order. ``frame`` builds one from the engine's bookkeeping at that
moment: the row, the world's bodies, the ``Table`` and the last episode.

The engine (``engine.Game``) has no observer hook yet. The hook this module
wants is one keyword argument::

    Game(spec, sim=None, observer: Callable[[dict, list[BodyInfo], Table, Episode | None], None] | None = None)

called at the end of ``Game.record`` with ``(row, self.bodies(), self.table,
episode)`` where ``episode`` is the ``Episode`` that produced the row (None
for a capture declared in place). Until it exists, ``TracingGame`` gets the
same calls by overriding ``record`` and ``episode``; it changes no decision,
no draw and no world state, so a trace plays the stored game exactly.

Frame (plain JSON-able dict; lengths in millimetres, angles in degrees):

==================  =========================================================
``turn``, ``seq``   the turns row; ``player`` seat (0 White, 1 Black)
``phase``           setup | capture | place | convert; ``outcome`` as stored
``intent``          {host, azimuth, base_distance, tilt} intended and
                    ``noisy`` after hand noise (place/convert), or null
``spot``            [x, y] of a setup disc / captured tower (intended), or null
``attempts``, ``fault_kinds`` (list of R6 a-e, and s), ``captured_discs``,
``returned_to_stack``, ``red_touched``, ``scores`` [2], ``stacks`` [2],
``discs_on_mat``    copied from the row
``bodies``          [{id, x, y, z, up, tilt, state, tower, leaning_on, red}]
                    every body on the mat (up: +1 black/bar, -1 white/dot)
``towers``          [{controller, ids (bottom first)}]
``pending``         [{captor, ids}]: fault groups waiting to be captured
``reacted``         on a fault row: ids of discs that reacted in the episode
                    (R6: new contact, fell, flipped, moved, out, in hand), the
                    action disc excluded; empty on a row without a fault
``action``          id of the disc the move handled (-1 if none)
``circle_radius``, ``disc_radius``: the mat's geometry
==================  =========================================================
"""

from __future__ import annotations

import math

from sim.api import BodyInfo, Episode

from rules.base import GameSpec
from rules.polarity.engine import Game
from rules.polarity.state import Table

MM = 1e3
DEG = 180 / math.pi
MOVED_DIAMETERS = 0.05  # a disc that moved more than this is drawn as having reacted


def _mm(v: float) -> float:
    return round(v * MM, 2)


def _deg(v: float) -> float:
    return round(v * DEG, 2)


def body_json(b: BodyInfo) -> dict:
    return {"id": b.id, "x": _mm(b.x), "y": _mm(b.y), "z": _mm(b.z), "up": int(b.up), "tilt": _deg(b.tilt),
            "state": b.state.value, "tower": b.tower, "leaning_on": b.leaning_on, "red": bool(b.red)}


def reacted(ep: Episode | None) -> list[int]:
    """Discs that reacted in ``ep`` (its action disc excluded)."""
    if ep is None:
        return []
    ids = {i for pair in ep.new_contacts for i in pair}
    ids |= set(ep.fallen) | set(ep.flipped) | set(ep.out_of_bounds) | set(ep.in_hand)
    ids |= {i for i, d in ep.moved_diameters.items() if d > MOVED_DIAMETERS}
    return sorted(ids - {ep.action})


def _faulted(row: dict) -> bool:
    return bool(row.get("fault_kinds")) or bool(row.get("red_touched")) or row.get("outcome") == "fault"


def _intent(row: dict) -> dict | None:
    if row.get("azimuth") is None:
        return None
    keys = ("azimuth", "base_distance", "tilt")
    out = {"host": row.get("host")}
    for k in keys:
        v = row.get(k)
        out[k] = None if v is None else (_deg(v) if k != "base_distance" else _mm(v))
    noisy = {k: row.get(f"{k}_noisy") for k in keys}
    out["noisy"] = {k: None if v is None else (_deg(v) if k != "base_distance" else _mm(v)) for k, v in noisy.items()}
    return out


def frame(row: dict, bodies: list[BodyInfo], table: Table, ep: Episode | None, geo) -> dict:
    """The mat after the action recorded in ``row``."""
    spot = [_mm(row["x"]), _mm(row["y"])] if row.get("x") is not None else None
    return {
        "turn": row["turn"], "seq": row.get("seq"), "player": row["player"], "phase": row["phase"],
        "outcome": row["outcome"], "intent": _intent(row), "spot": spot, "attempts": row.get("attempts"),
        "fault_kinds": [k for k in (row.get("fault_kinds") or "").split(",") if k],
        "captured_discs": row.get("captured_discs"), "returned_to_stack": row.get("returned_to_stack"),
        "red_touched": bool(row.get("red_touched")), "discs_on_mat": row.get("discs_on_mat"),
        "scores": [row["score_0"], row["score_1"]], "stacks": [row["stack_0"], row["stack_1"]],
        "bodies": [body_json(b) for b in sorted(bodies, key=lambda b: (b.z, b.id))],
        "towers": [{"controller": t.controller, "ids": list(t.ids)} for t in table.towers],
        "pending": [{"captor": g.captor, "ids": list(g.ids)} for g in table.pending],
        "reacted": reacted(ep) if _faulted(row) else [], "action": ep.action if ep is not None else -1,
        "circle_radius": _mm(geo.circle_radius), "disc_radius": _mm(geo.disc_radius),
    }


class TracingGame(Game):
    """``Game`` with the observer hook the module note asks for, from outside."""

    def __init__(self, spec: GameSpec, sim=None, observer=None):
        super().__init__(spec, sim)
        self.observer = observer
        self.last_episode: Episode | None = None

    def episode(self, fn, *args, **kw):
        before, contacts, ep = super().episode(fn, *args, **kw)
        self.last_episode = ep
        return before, contacts, ep

    def record(self, seat, phase, outcome, res=None, **cols) -> None:
        super().record(seat, phase, outcome, res, **cols)
        row = dict(self.rows[-1], seq=len(self.rows) - 1)
        if self.observer is not None:
            self.observer(row, self.bodies(), self.table, self.last_episode)
        self.last_episode = None


class TraceError(RuntimeError):
    """A frame could not be built (a bug here, not a failure of the game)."""


def trace(spec: GameSpec, sim=None) -> list[dict]:
    """Play ``spec`` and return the mat after every turns row (see the module note).
    A game that fails part-way returns the frames up to the failure."""
    frames: list[dict] = []
    game = TracingGame(spec, sim)

    def observe(row, bodies, table, ep) -> None:
        try:
            frames.append(frame(row, bodies, table, ep, game.geo))
        except Exception as exc:
            raise TraceError(f"frame of turns row {row.get('seq')}: {exc}") from exc

    game.observer = observe
    try:
        game.play()
    except TraceError:
        raise
    except Exception:  # noqa: BLE001 - the stored row records the failure; show what came before it
        pass
    return frames
