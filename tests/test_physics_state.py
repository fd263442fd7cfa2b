"""Reading a world (sim.state): ``classify`` is compiled; it must read every
body as the plain reading of the module docstring does, to the bit (a body's
tilt and state decide R6, R12 and R15), and the states mean what they say."""

import numpy as np
import pytest

from sim import detmath as dm
from sim.api import BodyState, Intent, World, nominal_intent, place_leaner, place_tower
from sim.bodies import normal_of, quat_to_matrix
from sim.contacts import FACE_UP
from sim.events import BodyInfo
from sim.params import PhysicsParams
from sim.scenes import free_azimuth, midgame_world
from sim.state import FLAT_TILT, classify


def plain_reading(world, cur) -> list[BodyInfo]:
    """The module docstring's reading in plain Python (detmath for acos and hypot)."""
    p = world.params
    a, h = p.radius, p.thickness
    live = [int(i) for i in np.nonzero(world.live)[0]]
    normals = {i: normal_of(world.quat[i]) for i in live}
    tilt = {i: dm.acos(min(1.0, abs(float(n[2])))) for i, n in normals.items()}
    flat = [i for i in live if tilt[i] < FLAT_TILT]
    stacked_with = {i: [j for j in flat if j != i and cur[i, j]
                        and dm.hypot(*(world.pos[i, :2] - world.pos[j, :2])) < a
                        and abs(world.pos[i, 2] - world.pos[j, 2]) > 0.5 * h] for i in flat}
    infos = []
    for i in live:
        x, y, z = (float(v) for v in world.pos[i])
        tower, leaning_on = -1, -1
        d = dm.hypot(x, y)
        nr = (float(normals[i][0]) * x + float(normals[i][1]) * y) / d if d > 0 else 0.0
        half_width = a * np.sqrt(max(0.0, 1.0 - nr * nr)) + 0.5 * h * abs(nr)
        if d - (half_width if p.out_entirely else 0.0) > p.circle_radius:
            state = BodyState.OUT
        elif i in stacked_with:
            state = BodyState.STACKED if stacked_with[i] else BodyState.FLAT
            if stacked_with[i]:
                seen, todo = {i}, [i]
                while todo:
                    new = [j for j in stacked_with[todo.pop()] if j not in seen]
                    seen.update(new)
                    todo += new
                tower = min(seen, key=lambda k: (world.pos[k, 2], k))
        else:
            state = BodyState.RESTING if cur[i].any() else BodyState.LEANING
            n = normals[i]
            rise = np.array([0.0, 0.0, 1.0]) - n[2] * n
            norm = dm.norm(rise)
            if norm >= 1e-9:
                top = world.pos[i] + a * rise / norm
                best_d = 4 * a
                for j in live:
                    if j != i and world.pos[j, 2] <= top[2]:
                        d = dm.hypot(*(world.pos[j, :2] - top[:2]))
                        if d < best_d:
                            leaning_on, best_d = j, d
        infos.append(BodyInfo(i, bool(world.red[i]), x, y, z, 1 if normals[i][2] >= 0 else -1, tilt[i],
                              state, tower, leaning_on, int(world.owner[i])))
    return infos


def _world(seed: int, snapped: bool):
    """A mid-game world, or the same after a snap fault on a crowded host (discs
    tilted against others, fallen leaners, towers)."""
    w = midgame_world(seed, n_flat=14, n_leaners=5, towers=(3, 2, 2))
    if snapped:
        host = next(int(i) for i in np.nonzero(w.live)[0] if not w.red[i])
        place_leaner(w, Intent(host, free_azimuth(w, host), 0.030, np.radians(45.0), 1))
    return w


@pytest.mark.parametrize("snapped", [False, True], ids=["mid_game", "after_a_snap_fault"])
@pytest.mark.parametrize("seed", range(4))
def test_classify_reads_every_body_as_the_plain_reading_does_to_the_bit(seed, snapped):
    world = _world(seed, snapped)
    got = classify(world)
    assert got == plain_reading(world, world.touching())
    assert {b.state for b in got} >= {BodyState.FLAT, BodyState.LEANING, BodyState.STACKED}


def test_a_leaner_leans_on_its_host_a_tower_names_its_bottom_disc_and_a_disc_beyond_the_circle_is_out():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    place_leaner(w, nominal_intent(w, host, 0.0))
    leaner = int(np.nonzero(w.live)[0][-1])
    group = [w.add_flat(0.1, 0.1 + 0.031 * k, 1) for k in range(3)]
    place_tower(w, group, -0.1, -0.05, 1)
    out = w.add_flat(0.0, w.params.circle_radius + w.params.radius + 0.001, -1)
    states = {b.id: b for b in classify(w)}
    assert states[leaner].state == BodyState.LEANING and states[leaner].leaning_on == host
    assert states[host].state == BodyState.FLAT and states[host].tower == -1
    bottom = min(group, key=lambda k: w.pos[k, 2])
    assert all(states[k].state == BodyState.STACKED and states[k].tower == bottom for k in group)
    assert states[out].state == BodyState.OUT and states[out].up == -1


@pytest.mark.parametrize("tilt_deg", [0.0, 45.0, 90.0])
def test_r6e_a_disc_is_out_when_all_of_it_is_beyond_the_circle_seen_from_above(tilt_deg):
    """Its nearest point to the mat's centre, by its half-width along the radius: the
    full radius flat, the half-thickness on edge facing the centre (R6(e))."""
    p = PhysicsParams()
    t = np.radians(tilt_deg)
    half_width = p.radius * np.cos(t) + 0.5 * p.thickness * np.sin(t)
    for margin, out in ((-0.0005, False), (0.0005, True)):
        pose = ((p.circle_radius + half_width + margin, 0.0, 0.02), (np.sin(t), 0.0, np.cos(t)))
        now, old = World.new(), World.new(PhysicsParams(out_entirely=False))
        now.add_body(*pose)
        old.add_body(*pose)
        assert (classify(now)[0].state == BodyState.OUT) == out
        assert classify(old)[0].state == BodyState.OUT       # physics 0.19.0: by its centre


def _disc_with_one_point_in_the_hosts_skirt(labelled: bool = True, **params):
    """A host lying flat and a disc standing on edge beside it, one of its rim points
    1 mm past the host's rim and 0.5 mm under its top face (the other points farther
    out), labelled (``labelled``) as having entered the host by its top face, as the
    core leaves a point that slid off the face: ``(world, host, disc, point)``."""
    w = World.new(PhysicsParams(**params))
    p = w.params
    host = w.add_flat(0.0, 0.0, 1)
    disc = w.add_body((0.0, 0.0, 0.1), (0.0, 1.0, 0.0))          # on edge, its faces across y
    rot = np.zeros((3, 3))
    quat_to_matrix(w.quat[disc], rot)
    ring = range(2 * p.rim_points, 3 * p.rim_points)              # the rim's middle circle
    point = min(ring, key=lambda k: float(np.dot(rot @ w.rim[k], (1.0, 0.0, 1.0))))   # the lowest, nearest the host
    target = np.array([p.radius + 0.001, 0.0, p.thickness - 0.0005])
    w.pos[disc] = target - rot @ w.rim[point]
    if labelled:
        w.disc_partner[disc, point], w.disc_feature[disc, point] = host, FACE_UP
    return w, host, disc, point


def test_a_point_resting_in_a_skirt_touches_as_the_core_pushes_it():
    """A rim point that entered the host by its top face and slid past the rim is
    still pushed out by the core (the face's skirt: sim.contacts), so the pair
    touches; the nearest surface alone reads it 1 mm apart, and so does a point that
    never entered, or the same point without a skirt (physics 0.12.1)."""
    w, host, disc, _ = _disc_with_one_point_in_the_hosts_skirt(labelled=False)
    assert not w.touching()[host, disc]                 # unlabelled: the nearest surface, 1 mm off
    w, host, disc, _ = _disc_with_one_point_in_the_hosts_skirt()
    assert w.touching()[host, disc] and w.contacts() == [(host, disc)]
    assert [b.state for b in w.bodies()] == [BodyState.FLAT, BodyState.RESTING]
    w, host, disc, _ = _disc_with_one_point_in_the_hosts_skirt(contact_skirt=0.0)
    assert not w.touching()[host, disc]


def test_a_disc_lifted_off_the_mat_is_forgotten_by_the_points_that_pressed_into_it():
    """A capture lifts discs (``remove``) and sets them down elsewhere (``place``):
    no point of another disc may still read them through the surface it once
    entered them by, or the skirt would push it from a disc that is no longer there."""
    w, host, disc, point = _disc_with_one_point_in_the_hosts_skirt()
    w.remove([host])
    assert (w.disc_partner != host).all() and w.disc_feature[disc, point] == -1

    w, host, disc, _ = _disc_with_one_point_in_the_hosts_skirt()
    w.place(host, (0.0, 0.0, 0.5 * w.params.thickness), (0.0, 0.0, 1.0), awake=False)   # set down where it was
    assert (w.disc_partner != host).all() and not w.touching()[host, disc]
