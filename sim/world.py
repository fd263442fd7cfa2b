"""World: the bodies of one game on the mat, as hot numpy arrays.

Per body (index = body id, ids are never reused; a removed body keeps its
row with ``live = 0``, except the last one added when it is discarded without
a trace, ``discard_last``):

    pos [n, 3], quat [n, 4], vel [n, 3], omega [n, 3]     hot, see sim.bodies
    live [n] uint8 (on the mat), awake [n] uint8, still [n] s below sleep speeds
    red [n] bool, br [n] T (remanence), owner [n] int (caller's tag)
    mat_spring, disc_spring [n, 3N, 3], disc_partner [n, 3N]  friction state
    disc_feature [n, 3N] int8  surface each point entered its partner by (sim.contacts)
    fref [n, 6]  magnetic force and torque when the body fell asleep

``field`` is the magnets' field table (sim.magnetics_table), built once per
process and shared by every world and copy.

Towers are separate bodies stacked face to face (their fields add, so a
tower pulls harder); nothing is merged. Bodies created outside an episode
(``add_flat``, ``add_tower``) are placed at rest and asleep. ``copy()`` is a
handful of small array copies (~40 us for 53 discs).
"""

from __future__ import annotations

import numpy as np

from sim.bodies import quat_from_normal, rim_points
from sim.events import BodyInfo
from sim.magnetics_table import field_table, no_table
from sim.params import PhysicsParams
from sim.state import TOUCH_TOL, classify, pairs_of, touching_matrix

STATE_ARRAYS = ("pos", "quat", "vel", "omega", "live", "awake", "still", "red", "br",
                "owner", "mat_spring", "disc_spring", "disc_partner", "disc_feature", "fref")


class World:
    def __init__(self, params: PhysicsParams):
        self.params = params
        self.stop_on_red_contact = False     # episodes end at the first touch of a red disc
        self.P = params.pack()
        self.field = (field_table(params.magnet_radius, 0.5 * params.magnet_thickness)
                      if params.field_table else no_table())
        self.rim = rim_points(params.radius, params.thickness, params.rim_points, params.chamfer)
        npts = self.rim.shape[0]
        self.pos = np.zeros((0, 3))
        self.quat = np.zeros((0, 4))
        self.vel = np.zeros((0, 3))
        self.omega = np.zeros((0, 3))
        self.live = np.zeros(0, np.uint8)
        self.awake = np.zeros(0, np.uint8)
        self.still = np.zeros(0)
        self.red = np.zeros(0, np.bool_)
        self.br = np.zeros(0)
        self.owner = np.zeros(0, np.int64)
        self.mat_spring = np.zeros((0, npts, 3))
        self.disc_spring = np.zeros((0, npts, 3))
        self.disc_partner = np.zeros((0, npts), np.int64)
        self.disc_feature = np.zeros((0, npts), np.int8)
        self.fref = np.zeros((0, 6))

    @classmethod
    def new(cls, params: PhysicsParams | None = None) -> "World":
        return cls(params or PhysicsParams())

    # -- building -----------------------------------------------------------
    def add_body(self, pos, normal, red=False, owner=-1, awake=False) -> int:
        """A disc at pos whose black (North) face points along normal."""
        i = len(self.live)
        npts = self.rim.shape[0]
        self.pos = np.vstack([self.pos, np.asarray(pos, dtype=np.float64)[None]])
        self.quat = np.vstack([self.quat, quat_from_normal(normal)[None]])
        self.vel = np.vstack([self.vel, np.zeros((1, 3))])
        self.omega = np.vstack([self.omega, np.zeros((1, 3))])
        self.live = np.append(self.live, np.uint8(1))
        self.awake = np.append(self.awake, np.uint8(awake))
        self.still = np.append(self.still, 0.0)
        self.red = np.append(self.red, bool(red))
        self.br = np.append(self.br, self.params.br_red if red else self.params.br)
        self.owner = np.append(self.owner, np.int64(owner))
        self.mat_spring = np.concatenate([self.mat_spring, np.zeros((1, npts, 3))])
        self.disc_spring = np.concatenate([self.disc_spring, np.zeros((1, npts, 3))])
        self.disc_partner = np.concatenate([self.disc_partner, -np.ones((1, npts), np.int64)])
        self.disc_feature = np.concatenate([self.disc_feature, -np.ones((1, npts), np.int8)])
        self.fref = np.vstack([self.fref, np.zeros((1, 6))])
        return i

    def add_flat(self, x: float, y: float, up: int, red: bool = False, owner: int = -1) -> int:
        """A disc lying flat and at rest, colour ``up`` (+1 black, -1 white) up."""
        z = 0.5 * self.params.thickness
        return self.add_body((x, y, z), (0.0, 0.0, float(np.sign(up) or 1)), red, owner)

    def add_tower(self, n: int, x: float, y: float, up: int, owner: int = -1) -> list[int]:
        h = self.params.thickness
        return [self.add_body((x, y, h * (k + 0.5)), (0.0, 0.0, float(np.sign(up) or 1)),
                              False, owner) for k in range(n)]

    def remove(self, ids) -> None:
        """Take bodies off the mat; no point remembers touching them."""
        for i in ids:
            self.live[i] = 0
            self.awake[i] = 0
            self._forget(i)

    def _forget(self, i: int) -> None:
        """Other bodies' points that pressed into body i forget it (a body lifted or
        moved by the hand is not where they entered it)."""
        pressed = self.disc_partner == i
        self.disc_partner[pressed] = -1
        self.disc_feature[pressed] = -1

    def discard_last(self, i: int) -> None:
        """Delete body ``i``, the last one added, as if it had never been: its
        row goes and no point remembers touching it. For a disc taken back
        without a trace (R5: a leaner that fell flat and disturbed nothing is
        tried again with a new body). Removing it instead would leave a dead
        row per try, and every episode's work grows with the rows (a game of
        400 such turns ran 30 CPU minutes and 2 GB). The rows of the live
        bodies are untouched, so what follows is the same to the bit."""
        if i != len(self.live) - 1:
            raise ValueError(f"body {i} is not the last one added ({len(self.live) - 1})")
        for name in STATE_ARRAYS:
            setattr(self, name, getattr(self, name)[:i].copy())
        self._forget(i)

    def place(self, i: int, pos, normal, awake: bool = True) -> None:
        """Put body i (live again) at a new pose, at rest."""
        self.pos[i] = pos
        self.quat[i] = quat_from_normal(normal)
        self.vel[i] = 0.0
        self.omega[i] = 0.0
        self.live[i] = 1
        self.awake[i] = np.uint8(awake)
        self.still[i] = 0.0
        self.mat_spring[i] = 0.0
        self.disc_spring[i] = 0.0
        self.disc_partner[i] = -1
        self.disc_feature[i] = -1
        self._forget(i)

    def copy(self) -> "World":
        other = World.__new__(World)
        other.params, other.P, other.field, other.rim = self.params, self.P, self.field, self.rim
        other.stop_on_red_contact = self.stop_on_red_contact
        for name in STATE_ARRAYS:
            setattr(other, name, getattr(self, name).copy())
        return other

    def restore(self, other: "World") -> None:
        """Become a copy of ``other`` (used to undo a failed episode)."""
        for name in STATE_ARRAYS:
            setattr(self, name, getattr(other, name).copy())

    # -- reading ------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.live)

    def touching(self) -> np.ndarray:
        p = self.params
        return touching_matrix(self.pos, self.quat, self.live, self.rim, p.radius, p.thickness, TOUCH_TOL,
                               self.disc_partner, self.disc_feature, p.contact_skirt)

    def contacts(self) -> list[tuple[int, int]]:
        return pairs_of(self.touching())

    def bodies(self) -> list[BodyInfo]:
        return classify(self)

    def body(self, i: int) -> BodyInfo:
        return next(b for b in self.bodies() if b.id == i)
