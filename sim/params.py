"""PhysicsParams: every physical constant of the core, with defaults.

Units SI (m, kg, s, T). Disc = plastic shell (radius ``radius``, thickness
``thickness``, mass ``mass``, inertia of a solid cylinder) with an axially
magnetised cylinder magnet at its centre along the face normal (black face =
North). ``pack()`` flattens the numbers the numba kernels read into one
float64 array; the index of each field is ``IDX[name]``.

Choice of defaults (published facts: "roughly Othello size but much
heavier", box 920 g, circle 45 cm, leaners teeter at about 45 degrees):
shell 30 mm x 6 mm, 10 g (53 discs = 530 g of a 920 g box); magnet
26 mm x 4 mm at the centre; contacts and damping chosen for stability at
dt = 0.1 ms (see sim.integrate).

Calibration (CALIBRATION below; tests/test_physics_calibration.py checks it);
the choice of rolling damping: DAMPING below; of the sleep time: SLEEP below;
of the shorter sleep time of flat islands: FLAT_SLEEP below.
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

CALIBRATION = """
Target: the nominal leaner (sim.balance.nominal_intent at tilt 45 deg: the
base distance where magnetic and gravity torques about the base point
balance) settles hovering near 45 deg, touching only the mat, for >= 3 s.

Finding: with the charge-model kernel (sim.magnetics) the cushion torque of
a same-colour host, as a fraction of gravity's, peaks at a base distance of
about 1.6 diameters and falls with tilt. With the first guess (shell 32 x 6,
12 g, ferrite 25 x 4 at Br 0.39 T) it peaks at 0.53 at 45 deg: no balance
above ~33 deg. The torque ratio scales with Br^2 / mass; shell radius and
magnet radius change the levers.

Tuned: shell radius 16 -> 15 mm, mass 12 -> 10 g, magnet radius 12.5 ->
13 mm, Br 0.39 -> 0.48 T (peak ratio at 45 deg: 1.24, so the balance lies on
the falling side of the peak and is stable in tilt). Br 0.48 T is above
sintered ferrite (<= 0.45 T): read it as an effective strength (e.g. bonded
NdFeB); a ferrite disc of this size cannot hold a 45 deg leaner in this
model (max ~40 deg at Br 0.42 T, 10 g).

Measured (default params, lone host, azimuth 0): base distance 55.8 mm,
released at 45.0 deg, settles at 45.8 deg (asleep after 0.25 s); with
sleeping off it holds 45.8 deg for 3 s, touching only the mat.
"""
DAMPING = """
Rolling damping (drag on the spin of a body touching the mat: the felt mat
soaks up a disc's rocking and rolling). 8/s (physics 0.2.0) left a leaner
released 3 mm / 6 deg off its balance swinging on the cushion for ~2.7 s
simulated, and 2 of 52 mid-game placements (recorded from a cautious game)
ran out of the 4 s step budget. At 30/s the same leaner is still within
1 s, the 52 placements need 8 300 steps on average instead of 12 000
(CPU 441 -> 245 ms each), none runs out of budget and 19 instead of 15 end
leaning. Equilibria (calibration, balance points) do not depend on it.
It drags on each body's own spin, so a tilted tower rolling on its bottom
rim is slowed by its bottom disc alone (~0.6/s in an episode looked at,
session 14). Scaling it with the mat's load on the body (a tower's bottom
disc carries the tower) was measured there and not adopted. Load over weight
as it is: 455 placements replayed from six standard games took 8 % less CPU
on one set of 125 and 3 % more on the other 330 (median placement 124
against 101 ms). Never below the disc's own weight (a leaner keeps its
calibrated drag): 49 % and 28 % less CPU on the same replays, but in 24
standard games (cautious vs aggressive, seed 11) the games ended by a red
touch fell from 12 to 3 (9 pairs changed one way, none the other: paired
p = 0.004) for the same physics steps (13.0 M against 12.8 M). How often a
cascade reaches the red disc hangs on how the felt damps rolling discs, and
no measurement of real felt decides between the two, so the calibrated
drag stays.

Hand speed stays 0.15 m/s: at 0.25 m/s the 52 placements took 186 instead
of 221 ms, but a held disc swept over an opposite disc no longer lifts it
(phenomenon 7): the hand's speed is part of the game's faults.
"""
SLEEP = """
Sleep time stays 0.08 s although shorter would be cheaper. On 335 episodes
recorded from cautious vs aggressive games (physics 0.4.1), sleep_time 0.04 s
cut CPU by 13 % and 0.02 s by 33 % (no episode out of budget instead of 6).
But a swinging leaner slows at each end of its swing, within the rest ball
for tens of ms: at 0.02 s, 18 of 51 lone-host releases around the balance
froze 4-9 deg away from where they rest with sleeping off (0.08 s: 2 of 51,
both at a 50-51 mm base, where the swing stalls for longer), and the
recorded episodes changed outcome 2-3 times as often as under a rounding-
level change (35 and 28 of 335 against 13). The check:
tests/test_physics_contacts.py, test_sleeping_does_not_change_where_a_
released_leaner_comes_to_rest. A longer step does not pay either: 193
episodes recorded from other games ran 2.4 (dt 0.15 ms) and 3.5 (0.2 ms)
times the body steps of dt 0.1 ms, 53 of them out of budget, 3 blown up
at 0.2 ms.
"""
FLAT_SLEEP = """
An island whose every body lies flat (face within 10 deg of level: discs on
the mat, towers, a disc on a disc) sleeps after ``flat_sleep_time``, 0.02 s,
of stillness instead of ``sleep_time`` (physics 0.19.0; 0.08 s plays
0.18.0). What the 0.08 s is for, a leaner passing the ends of its swing, a
flat disc does not do: it rests on its face, and one that starts to tip or
slide leaves the rest ball within the shorter time. A host tipping under a
disc held beside it (hold test off) tips at the same bases with 0.02 s,
0.04 s and with sleeping off (tests/test_physics_sleeping.py). What it saves:
a host the approaching leaner's field wakes (its static tipping ratio over
``hold_margin``, sim.holding) jitters by ~0.01 mm and stayed awake 0.08 s a
wake. Measured (session 35, 2026-12-05): the built mid-game scene's
clearest-host placement 6.0 -> 5.0 ms CPU (3,383 -> 2,947 body steps), its
crowded host 84 -> 78 ms, its snap fault 97 -> 82 ms; the episodes of
standard games (cautious vs aggressive) replayed under both
(benchmarks/replay_episodes.py, games 6 from seed 11 and 8 from seed 12,
played once under each physics, 364-735 episodes a set): CPU -9 %, +2 %
(beside other work), -12 %, -2 %; body steps -10 %, -5 %, -15 %, -10 %;
2.6-5.5 % of the episodes end another way (a rounding-level change: ~4 %);
two more sets, 8 games from seeds 13 and 14 under 0.19.0 (``--rounds 3``):
CPU -8 %, -16 %, body steps -15 %, -19 %.
The spread is the cascades': an episode that ends the same can take twice
or half the steps under either. Measured and left: 0.01 s (-8 %, body steps
-11 %, 3.8 % changed) and 0.04 s (-2 %) on the first set; the short sleep for
single flat discs only (islands of one): -2 % and -4 %.
"""
CALIBRATED_TILT_DEG = 45.8
CALIBRATED_BASE_DISTANCE = 0.0558


class PhysicsParams(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # disc and magnet
    radius: float = Field(0.015, description="shell radius a, m")
    thickness: float = Field(0.006, description="shell thickness h, m")
    mass: float = Field(0.010, description="disc mass, kg")
    magnet_radius: float = Field(0.013, description="magnet radius, m")
    magnet_thickness: float = Field(0.004, description="magnet thickness, m")
    br: float = Field(0.48, description="remanence of the black/white discs, T (calibrated)")
    br_red: float = Field(0.48, description="remanence of the red disc, T")
    circle_radius: float = Field(0.225, description="play circle radius, m")
    gravity: float = Field(9.81, description="m/s^2")

    # contacts (penalty springs per sample point, Cundall-Strack friction)
    rim_points: int = Field(24, description="samples per rim circle (three circles per disc)")
    chamfer: float = Field(8e-4, description="face rims drawn in by this (rounded edge), m")
    k_contact: float = Field(10000.0, description="stiffness of a body on the mat, N/m")
    k_disc: float = Field(20000.0, description="stiffness of a disc-disc contact, N/m")
    contact_norm: float = Field(8.0, description="p of the contact potential K/2 (sum d^p)^(2/p)")
    contact_damping: float = Field(0.3, description="damping ratio of a contact")
    k_tangent_ratio: float = Field(0.3, description="tangential / normal stiffness")
    mu_static_mat: float = Field(0.8, description="cloth on plastic, static")
    mu_kinetic_mat: float = Field(0.6, description="cloth on plastic, kinetic")
    mu_static_disc: float = Field(0.4, description="plastic on plastic, static")
    mu_kinetic_disc: float = Field(0.3, description="plastic on plastic, kinetic")
    friction: bool = Field(True, description="False: frictionless (energy test)")

    # damping (cloth): linear and angular drag always, rolling when on the mat
    linear_damping: float = Field(0.5, description="1/s")
    angular_damping: float = Field(0.5, description="1/s")
    rolling_damping: float = Field(30.0, description="1/s, on the mat only (felt; see DAMPING)")
    damping: bool = Field(True, description="False: no drag and no contact damping")

    # time stepping, sleeping, limits
    dt: float = Field(1e-4, description="fixed step, s")
    contact_substeps: int = Field(3, ge=1, description="a step in which some contact point moves faster than contact_substep_speed against its surface is taken in this many equal sub-steps (1: off, physics 0.6.0; sim.integrate, Sub-steps)")
    contact_substep_speed: float = Field(0.01, ge=0.0, description="speed of a contact point against its surface (or of a point about to reach one) above which a step is sub-stepped, m/s")
    sleep_speed: float = Field(0.003, description="m/s")
    sleep_spin: float = Field(0.3, description="rad/s")
    sleep_time: float = Field(0.08, description="s below both thresholds (or within rest_ball) to sleep")
    flat_sleep_time: float = Field(0.02, gt=0.0, description="s still to sleep for an island whose every body lies flat, face within 10 deg of level (FLAT_SLEEP; 0.08: physics 0.18.0)")
    rest_ball: float = Field(1e-4, description="a body whose pose stays this close (m, rim shift) to where it was counts as still (0: off)")
    sleep: bool = Field(True, description="False: nobody ever sleeps")
    wake_force: float = Field(0.03, description="wake when magnetic force changed by this x m g")
    wake_radius: float = Field(0.1, description="sleepers this close to an awake body are checked, m")
    hold_margin: float = Field(0.5, description="a flat sleeper stays asleep while friction holds it with this margin (0: off)")
    tower_hold: bool = Field(True, description="a sleeping tower's disc is held as its tower, not alone (sim.holding; False: physics 0.7.0)")
    hold_bottom_face: bool = Field(True, description="a tower's hold test takes each torque about the face a disc rests on, whichever colour is up (sim.holding); False: about its white face, which is the top face of a white-up disc, physics 0.21.0")
    tower_at_rest: bool = Field(True, description="place_tower sets a captured stack down whole, each disc at its rest height (sim.stacking); False: dropped 0.2 mm apart, physics 0.8.0")
    compound: bool = Field(True, description="move a stack of awake discs held face to face as one rigid body (sim.compound)")
    compound_margin: float = Field(0.7, gt=0.0, le=1.0, description="a compound body's cut holds while its contact carries below this share of what friction and its face can")
    compound_speed: float = Field(0.01, ge=0.0, description="discs join a compound below this relative speed, m/s")
    compound_spin: float = Field(1.0, ge=0.0, description="... and below this relative spin, rad/s")
    compound_labels: bool = Field(True, description="a compound body's members keep the entered surface (sim.contacts) of each point pressing into a fellow member while their contact is not evaluated, so a stack pressed deeper than the chamfer is still pushed apart face to face when the body dissolves (sim.integrate, compute_forces); False: forgotten, physics 0.20.0")
    coast: bool = Field(True, description="skip the steps of the hand phase that cannot change anything (sim.integrate)")
    wake_check_every: int = Field(10, description="steps between magnetic wake checks")
    field_table: bool = Field(True, description="read a source magnet's near field from its table (sim.magnetics_table); False: closed form at every point")
    far_cutoff: float = Field(0.20, description="magnetic pairs beyond this centre distance are ignored, m")
    reuse_pos: float = Field(2e-6, description="magnetic pair result reused below this relative move, m")
    reuse_axis: float = Field(1e-4, description="... and below this change of each axis (unit vectors)")
    reuse_far: float = Field(0.06, description="pairs at least this far apart reuse by relative tolerance, m")
    reuse_rel: float = Field(0.0025, description="far pairs: reused below this move / distance (axes: twice it, rad)")
    reuse_lead: float = Field(0.9, ge=0.0, lt=1.0, description="a pair result is computed this share of its reuse tolerance ahead, along the pair's motion (0: at the pose of the moment, physics 0.10.0)")
    far_dipole: float = Field(0.12, ge=0.0, description="far pairs closer than this (m) get their dipole term every step and hold only the rest of their result (sim.forces, Split; 0: off, physics 0.11.0)")
    contact_skirt: float = Field(0.003, ge=0.0, description="a rim point inside a disc stays pushed out through the surface it entered by until it is out of that surface bent away past its edge on a quarter circle of this radius, m (sim.contacts, Skirt; 0: dropped at the edge, physics 0.12.1)")
    frame_turn: bool = Field(True, description="the magnetic kernel adds the work of its sampling frame turning with the pose, so a pair is conservative within a rule and no torque spins a disc about its axis (sim.magnetics, Conservation; False: physics 0.13.1)")
    blend_work: bool = Field(True, description="the magnetic kernel's blends between sampling rules and tiers add the work of their weight changing with the pose, so a pair is conservative across them too (sim.magnetics, Conservation; False: physics 0.14.0)")
    reuse_momentum: bool = Field(True, description="a magnetic pair result reused, or computed ahead (reuse_lead), is served with the torque on its first disc re-derived at the pose of the moment, so it keeps angular momentum to rounding and a pair turning as one piece does no work (sim.forces, Momentum; False: physics 0.15.0)")
    fitted_lead: bool = Field(True, description="a pair that moves its reuse tolerance or more in a step is led half a step (under two tolerances a step: the key midway between the two poses it serves) or not at all, instead of reuse_lead of a tolerance ahead of every step's pose (sim.forces, Fitted lead; False: physics 0.17.0)")
    converged_gap: bool = Field(True, description="the magnetic kernel's edge gap (which picks and blends its sampling rules) is the distance between converged nearest points of a magnet's rims and the other's faces, its gradient taken from them, so the blends' work term is a gradient (sim.magnetics; False: three projection rounds and central differences, physics 0.16.0)")
    settle_budget_s: float = Field(4.0, description="simulated seconds before step_budget")
    max_speed: float = Field(10.0, description="speed above which energy runs away, m/s")

    # the hand
    approach_speed: float = Field(0.15, description="hand speed along the approach, m/s")
    hold_time: float = Field(0.03, description="held still at the pose before release, s")
    red_stays: bool = Field(True, description="the red disc is never lifted away with the held disc: pulled off, it falls where it hung (R8 sends discs to a stack; the red disc has none); False: physics 0.19.0, where it left the game (no-red-death games only: in others its first touch ends the episode)")
    lift_clinging: bool = Field(True, description="at release, a disc touching the held disc that does not lie flat goes up with it though its rim rests on the mat (it snapped up onto it: R6(c), R8; sim.integrate.release_hand); False: only discs touching no mat, physics 0.19.0")

    wake_vacated: bool = Field(True, description="an episode's setup that lifts bodies off the mat or moves them (a capture) wakes each sleeper not lying flat that leaned on or touched them, so a leaner whose host is carried off falls (sim.episodes.wake_unsupported); False: physics 0.22.0, where it could hang in the air, asleep, with nothing under it")
    wake_field: bool = Field(True, description="an episode's setup that lifts bodies off the mat or moves them (a capture) wakes each tilted sleeper whose magnetic force or torque it changed by more than the wake threshold (sim.episodes.wake_field_changed), as the integrator's wake check would near an awake body; False: physics 0.23.0, where a leaner whose cushion the captured discs were part of kept its pose")

    # reading the world
    out_entirely: bool = Field(True, description="a disc is out of bounds when all of it lies beyond the play circle, seen from above (R6(e); sim.state); False: when its centre does, physics 0.19.0")

    def pack(self) -> np.ndarray:
        return np.array([float(getattr(self, name)) for name in PACKED], dtype=np.float64)

    def kernel_knobs(self) -> tuple[float, ...]:
        """The magnetic kernel's physics-version knobs as its ``knobs`` tuple
        (sim.magnetics.KERNEL_KNOBS; ``kernel_knobs(P)`` from the packed form)."""
        return tuple(float(getattr(self, name)) for name in KERNEL_KNOB_NAMES)

    def inertia(self) -> tuple[float, float]:
        """(about the axis, about a diameter) of a solid cylinder."""
        a, h, m = self.radius, self.thickness, self.mass
        return 0.5 * m * a * a, m * (3 * a * a + h * h) / 12.0


PACKED = [
    "radius", "thickness", "mass", "magnet_radius", "magnet_thickness", "br", "br_red",
    "circle_radius", "gravity", "rim_points", "k_contact", "contact_damping",
    "k_tangent_ratio", "k_disc", "contact_norm", "mu_static_mat", "mu_kinetic_mat", "mu_static_disc",
    "mu_kinetic_disc", "friction", "linear_damping", "angular_damping",
    "rolling_damping", "damping", "dt", "sleep_speed", "sleep_spin", "sleep_time",
    "sleep", "wake_force", "wake_check_every", "wake_radius", "far_cutoff", "max_speed", "hold_time", "reuse_pos", "reuse_axis",
    "reuse_far", "reuse_rel", "reuse_lead", "hold_margin", "coast", "rest_ball", "contact_substeps", "contact_substep_speed",
    "tower_hold", "compound", "compound_margin", "compound_speed", "compound_spin", "chamfer", "far_dipole",
    "contact_skirt", "frame_turn", "blend_work", "reuse_momentum", "converged_gap", "fitted_lead",
    "flat_sleep_time", "lift_clinging", "out_entirely", "compound_labels", "hold_bottom_face",
]
IDX = {name: i for i, name in enumerate(PACKED)}
KERNEL_KNOB_NAMES = ("frame_turn", "blend_work", "converged_gap")       # the order of sim.magnetics.KERNEL_KNOBS
