"""Episodes: one physical action on a world, simulated until rest.

Every episode follows the same steps (``_episode``):
1. snapshot the world (restored if the run meets NaN or runaway energy),
   read the state of every body (for fallen / flipped) and, after the
   episode's own setup, which discs touch (so only *new* contacts count);
2. record each sleeper's magnetic force as its wake reference;
3. set up the action (new awake disc, held disc and its path, pusher path,
   a group lifted and re-placed as a tower, waking the sleepers it held up,
   ``wake_unsupported``, and the tilted ones whose magnetic pull it changed,
   ``wake_field_changed``);
4. run the njit loop (sim.integrate.run) to rest or the step budget;
5. turn the run's records into an Episode (sim.events).

Hand geometry (``leaner_pose``): with u the unit vector from the host centre
along ``azimuth``, the leaner's lowest rim point P (on its chamfered face
edge, see sim.bodies) lies on the mat at
``host_xy + base_distance u``; its face rises from P toward the host at
``tilt``; the shown face's normal is ``sin(tilt) u + cos(tilt) z``. The hand
starts ``approach_distance`` further out along u and ``approach_height``
higher, moves in a straight line at ``approach_speed``, holds still for
``hold_time`` and lets go. Whatever hangs on the held disc then (touching
it, not the mat; or touching it and tipped up off the flat though its rim
rests on the mat, ``lift_clinging``) is lifted away with it: ``in_hand``,
removed from the world.
"""

from __future__ import annotations

import numpy as np

from sim import detmath as dm
from sim.bodies import normal_of
from sim.events import BodyInfo, BodyState, Episode, Intent
from sim.fit import APPROACH_DISTANCE, APPROACH_HEIGHT, hand_start, leaner_pose  # noqa: F401  (leaner_pose: re-exported by sim.api)
from sim.balance import balance_intent, nominal_intent, world_rotations  # noqa: F401  (balance_intent, nominal_intent: re-exported by sim.api)
from sim.forces import refresh_refs
from sim.integrate import STATUS_NAMES, run
from sim.stacking import press_faces, rest_heights
from sim.state import FLAT_TILT, classify, pairs_of
from sim.world import World

NO_PATH_T = np.zeros(1)
NO_PATH_P = np.zeros((1, 3))
NO_IDS = np.zeros(0, np.int64)


def lay_flat(world: World, x: float, y: float, up: int, red: bool = False,
             owner: int = -1, drop: float = 2e-4) -> Episode:
    """Set a disc down flat (setup foundation) from ``drop`` m above the mat."""
    def setup(w: World) -> dict:
        i = w.add_body((x, y, 0.5 * w.params.thickness + drop), (0, 0, float(np.sign(up) or 1)),
                       red, owner, awake=True)
        return {"action": i}
    return _episode(world, setup)


def place_leaner(world: World, intent: Intent, owner: int = -1,
                 approach_distance: float = APPROACH_DISTANCE, approach_height: float = APPROACH_HEIGHT) -> Episode:
    """The hand brings a new disc to the intended pose and releases it."""
    def setup(w: World) -> dict:
        p = w.params
        centre, n_up, u = leaner_pose(w, intent.host, intent.azimuth, intent.base_distance,
                                      intent.tilt)
        start = hand_start(centre, u, approach_distance, approach_height)
        i = w.add_body(start, n_up * (1.0 if intent.up >= 0 else -1.0), False, owner, awake=True)
        t_move = dm.norm(start - centre) / p.approach_speed
        hand_t = np.array([0.0, max(t_move, p.dt), max(t_move, p.dt) + p.hold_time])
        hand_p = np.array([start, centre, centre])
        return {"action": i, "hand": i, "hand_t": hand_t, "hand_p": hand_p}
    return _episode(world, setup)


def push_flat(world: World, leaner_id: int, azimuth: float | None = None,
              pusher_radius: float = 0.004) -> Episode:
    """Conversion: a kinematic frictionless sphere (a fingertip) presses the
    leaner's raised face down. It starts just off the face, at the leaner's
    centre, and moves in a straight line to just above where the leaner
    would lie flat after pivoting on its base toward ``azimuth`` (default:
    the side it leans to), so it lies down with its colour kept. (Pushed
    sideways, a leaner rolls on its rim like a wheel instead.)"""
    def setup(w: World) -> dict:
        p = w.params
        n, horiz = _raised_face(w, leaner_id)
        rise = np.array([0.0, 0.0, 1.0]) - n[2] * n
        rise = rise / dm.norm(rise) if dm.norm(rise) > 1e-9 else np.zeros(3)
        inward = -horiz if azimuth is None else np.array([dm.cos(azimuth), dm.sin(azimuth), 0.0])
        centre = w.pos[leaner_id]
        base = centre - (p.radius - p.chamfer) * rise - 0.5 * p.thickness * n
        start = centre + (0.5 * p.thickness + pusher_radius + 2e-3) * n
        end = base + p.radius * inward
        end[2] = p.thickness + pusher_radius + 1e-3
        t_move = dm.norm(end - start) / p.approach_speed
        return {"push_r": pusher_radius, "push_t": np.array([0.0, t_move]),
                "push_p": np.array([start, end])}
    return _episode(world, setup)


def lean_azimuth(world: World, leaner_id: int) -> float:
    """The side a tilted disc leans to, as an azimuth on the mat: where its raised face
    looks down to, the way ``push_flat`` presses it by default (radians in [0, 2 pi))."""
    _, horiz = _raised_face(world, leaner_id)
    return dm.atan2(-horiz[1], -horiz[0]) % (2 * np.pi)


def _raised_face(w: World, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Body ``i``'s face normal that looks up, and its horizontal part as a unit vector
    (pointing away from the side the disc leans to; +x for a disc lying flat)."""
    n = normal_of(w.quat[i])
    if n[2] < 0:
        n = -n                                  # the face that looks up
    horiz = np.array([n[0], n[1], 0.0])
    if dm.norm(horiz) < 1e-9:
        horiz = np.array([1.0, 0.0, 0.0])
    horiz /= dm.norm(horiz)
    return n, horiz


def sweep(world: World, start, end, pusher_radius: float = 0.004) -> Episode:
    """A kinematic frictionless sphere moves in a straight line from ``start``
    to ``end`` (points [3], m) at ``approach_speed``, then is withdrawn."""
    def setup(w: World) -> dict:
        a, b = np.asarray(start, dtype=np.float64), np.asarray(end, dtype=np.float64)
        t_move = dm.norm(b - a) / w.params.approach_speed
        return {"push_r": pusher_radius, "push_t": np.array([0.0, t_move]),
                "push_p": np.array([a, b])}
    return _episode(world, setup)


def place_tower(world: World, ids: list[int], x: float, y: float, up: int,
                gap: float = 2e-4) -> Episode:
    """Capture: lift the bodies ``ids`` off the mat and stack them at (x, y),
    colour ``up``, ids[0] at the bottom, and let go. The stack is set down whole,
    each disc at rest at its static height (``sim.stacking``); with
    ``params.tower_at_rest`` off each disc is let go ``gap`` above the one below
    (physics 0.8.0). The ids are kept."""
    def setup(w: World) -> dict:
        stack, h = list(ids), w.params.thickness
        w.remove(stack)
        at_rest = w.params.tower_at_rest
        heights = (rest_heights(w.params, w.field, w.br[stack], up) if at_rest
                   else [h * (k + 0.5) + gap * (k + 1) for k in range(len(stack))])
        for i, z in zip(stack, heights):
            w.place(i, (x, y, z), (0, 0, float(np.sign(up) or 1)))
        if at_rest:
            press_faces(w, stack, up)
        return {"placed": stack}
    return _episode(world, setup, vacates=True)


def settle(world: World) -> Episode:
    """Wake every body and simulate to rest (e.g. a world built by hand)."""
    def setup(w: World) -> dict:
        w.awake[:] = w.live
        w.still[:] = 0.0
        return {}
    return _episode(world, setup, refresh=False)


def _episode(world: World, setup, refresh: bool = True, vacates: bool = False) -> Episode:
    """Run one episode (the module note's steps); ``vacates``: the setup lifts or moves
    bodies that others may rest on (``wake_unsupported``)."""
    p = world.params
    snapshot = world.copy()
    before = {b.id: b for b in classify(world)}
    if refresh:
        sleepers_pull(world, world.fref)
    wake = vacates and p.wake_vacated
    supports = world.touching() if wake else None
    spec = setup(world)
    if wake:
        wake_unsupported(world, before, supports, spec.get("placed", ()))
    if vacates and p.wake_field:
        wake_field_changed(world, before)
    initial = world.touching()
    for i in spec.get("placed", ()):            # a placed tower's own discs: not new
        for j in spec.get("placed", ()):
            initial[i, j] = 1
    n = len(world)
    touched = np.zeros((n, n), np.uint8)
    maxdisp = np.zeros(n)
    in_hand = np.zeros(n, np.uint8)
    hand = spec.get("hand", -1)
    hand_t = spec.get("hand_t", NO_PATH_T)
    run_time = (hand_t[-1] if hand >= 0 else 0.0) + spec.get("push_t", NO_PATH_T)[-1]
    max_steps = int(round((run_time + p.settle_budget_s) / p.dt))
    code, steps, body_steps = run(world.pos, world.quat, world.vel, world.omega, world.live, world.awake,
                      world.still, world.br, world.mat_spring, world.disc_spring,
                      world.disc_partner, world.disc_feature, world.fref, world.P, world.field, world.rim, hand, hand_t,
                      spec.get("hand_p", NO_PATH_P), spec.get("push_r", 0.0),
                      spec.get("push_t", NO_PATH_T), spec.get("push_p", NO_PATH_P),
                      max_steps, touched, maxdisp, in_hand, _stop_red(world), _stays(world))
    status = STATUS_NAMES[code]
    action = spec.get("action", -1)
    if status in ("nan", "energy"):
        world.restore(snapshot)
        return Episode(status, int(steps), steps * p.dt, action, final=classify(world),
                       final_contacts=world.contacts(), body_steps=int(body_steps))
    ep = _report(world, status, int(steps), action, before, initial, touched, maxdisp, in_hand)
    ep.body_steps = int(body_steps)
    return ep


def sleepers_pull(world: World, out: np.ndarray) -> np.ndarray:
    """Fill ``out`` [n, 6] with the magnetic force and torque on every live sleeper
    (``sim.forces.refresh_refs``: the wake check's references); returns ``out``."""
    p = world.params
    rot = world_rotations(world)
    refresh_refs(world.pos, np.ascontiguousarray(rot[:, :, 2]), rot, world.br, world.live, world.awake,
                 p.magnet_radius, p.magnet_thickness, world.field, p.far_cutoff, out, p.kernel_knobs())
    return out


def wake_unsupported(world: World, before: dict[int, BodyInfo], touching: np.ndarray, moved=()) -> list[int]:
    """Wake every sleeper an episode's setup took its support from: one not lying flat
    that leaned on, or touched, a body the setup lifted off the mat or moved (a captured
    group, ``place_tower``). The wake check (sim.integrate) runs only near awake bodies,
    so a leaner whose host was carried off across the mat would otherwise hang in the
    air, asleep, where its host held it (``params.wake_vacated``; physics 0.22.0 left
    it). Returns the ids woken."""
    vacated = {i for i in before if not world.live[i]} | {int(i) for i in moved if i in before}
    woken = []
    for i, b in before.items():
        if i in vacated or not world.live[i] or world.awake[i] or b.state == BodyState.FLAT:
            continue
        if b.leaning_on in vacated or any(touching[i, j] for j in vacated):
            world.awake[i] = 1
            world.still[i] = 0.0
            woken.append(i)
    return woken


def wake_field_changed(world: World, before: dict[int, BodyInfo]) -> list[int]:
    """Wake every tilted sleeper (leaning or resting) whose magnetic force or torque
    an episode's setup changed past the wake threshold: the integrator's own test
    (sim.integrate, step 5; ``wake_force``), which it runs only near awake bodies. A
    capture lifts discs away from where nothing else is awake, so a leaner whose
    cushion they were part of kept the pose the old field held it in
    (``params.wake_field``; physics 0.23.0 left it). The references are the ones
    ``_episode`` recorded before the setup. Flat discs and towers are left to the
    integrator's hold tests. Returns the ids woken."""
    p = world.params
    after = sleepers_pull(world, np.zeros_like(world.fref))
    threshold = p.wake_force * p.mass * p.gravity
    tilted = (BodyState.LEANING, BodyState.RESTING)
    woken = []
    for i, b in before.items():
        if b.state not in tilted or not world.live[i] or world.awake[i]:
            continue
        force = dm.norm(after[i, :3] - world.fref[i, :3])
        torque = dm.norm(after[i, 3:] - world.fref[i, 3:])
        if force > threshold or torque > threshold * p.radius:
            world.awake[i] = 1
            world.still[i] = 0.0
            woken.append(i)
    return woken


def _stop_red(world: World) -> np.ndarray:
    """Ids of the red discs whose first touch ends the run (``World.stop_on_red_contact``)."""
    if not world.stop_on_red_contact:
        return NO_IDS
    return np.nonzero(world.red & (world.live > 0))[0].astype(np.int64)


def _stays(world: World) -> np.ndarray:
    """[n] 1 for the bodies the hand never lifts away: the red disc (``red_stays``)."""
    if not world.params.red_stays:
        return np.zeros(len(world.live), np.uint8)
    return world.red.astype(np.uint8)


def _report(world, status, steps, action, before, initial, touched, maxdisp, in_hand) -> Episode:
    p = world.params
    cur = world.touching()
    final = classify(world, cur)
    now = {b.id: b for b in final}
    hand_ids = [int(i) for i in np.nonzero(in_hand)[0]]
    if hand_ids:
        for i in hand_ids + [action]:
            final.append(_in_hand_info(world, i))
    new = pairs_of(touched & (1 - initial))
    tilted = (BodyState.LEANING, BodyState.RESTING)
    fallen = [i for i, b in before.items() if b.state in tilted and i in now
              and now[i].tilt < FLAT_TILT]
    flipped = [i for i, b in before.items() if i in now and now[i].up != b.up]
    red = [int(i) for i in np.nonzero(world.red)[0]]
    red_contacts = sorted({int(j) for r in red for j in np.nonzero(touched[r])[0]})
    red_disp = max((float(maxdisp[r]) / p.radius for r in red), default=0.0)
    return Episode(
        status=status, steps=steps, sim_time=steps * p.dt, action=action,
        new_contacts=new, fallen=fallen, flipped=flipped,
        moved_diameters={int(i): float(maxdisp[i]) / (2 * p.radius) for i in before
                         if maxdisp[i] > 0},
        out_of_bounds=[b.id for b in final if b.state == BodyState.OUT],
        red_contacts=red_contacts, red_displacement=red_disp, in_hand=hand_ids,
        final=final, final_contacts=pairs_of(cur))


def _in_hand_info(world, i) -> BodyInfo:
    n = normal_of(world.quat[i])
    x, y, z = (float(v) for v in world.pos[i])
    return BodyInfo(int(i), bool(world.red[i]), x, y, z, 1 if n[2] >= 0 else -1,
                    dm.acos(min(1.0, abs(float(n[2])))), BodyState.IN_HAND, -1, -1,
                    int(world.owner[i]))
