"""The contract of sim.api as the rules engine uses it."""

import numpy as np
import pytest

from rules.polarity.physics import physics_restores
from sim.api import (BodyState, Intent, PhysicsParams, World, balance_intent, lay_flat, nominal_intent,
                     place_leaner, place_tower, sweep)


def test_api_world_copy_is_independent_of_the_original():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    look_ahead = w.copy()
    place_leaner(look_ahead, nominal_intent(look_ahead, host, 0.0))
    assert len(look_ahead.bodies()) == 2 and len(w.bodies()) == 1


def test_api_world_copy_shares_no_state_with_the_original():
    """A look-ahead that moves the copy's discs leaves the original's where they were."""
    w = World.new()
    w.add_flat(0.0, 0.0, 1)
    w.add_flat(0.06, 0.0, -1)
    snapshot = w.copy()
    look_ahead = w.copy()
    sweep(look_ahead, (-0.03, 0.0, 0.003), (0.09, 0.0, 0.003))      # pushes both discs along
    assert not np.array_equal(look_ahead.pos, w.pos)
    for name, value in vars(snapshot).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(getattr(w, name), value, err_msg=name)


def test_api_bodies_report_colour_owner_red_and_towers():
    w = World.new()
    red = w.add_flat(0.0, 0.0, -1, red=True)
    mine = w.add_flat(0.1, 0.0, 1, owner=1)
    tower = w.add_tower(3, -0.1, 0.0, -1, owner=0)
    infos = {b.id: b for b in w.bodies()}
    assert infos[red].red and infos[red].up == -1
    assert infos[mine].owner == 1 and infos[mine].state == BodyState.FLAT and infos[mine].tower == -1
    assert [infos[i].state for i in tower] == [BodyState.STACKED] * 3
    assert {infos[i].tower for i in tower} == {tower[0]}
    assert w.contacts() == [(tower[0], tower[1]), (tower[1], tower[2])]


def test_api_removed_bodies_leave_the_world_and_keep_their_ids():
    w = World.new()
    a, b = w.add_flat(0.0, 0.0, 1), w.add_flat(0.1, 0.0, 1)
    w.remove([a])
    assert [x.id for x in w.bodies()] == [b]
    assert w.add_flat(0.0, 0.1, -1) == 2


def test_api_a_discarded_last_body_leaves_no_trace_and_what_follows_is_the_same():
    """R5's retry: the disc of a failed try is discarded, not left as a dead row
    (a dead row per try made every later episode dearer); the next episode plays
    to the bit as it would have beside the dead row."""
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    w.add_flat(0.04, 0.0, -1)
    intent = nominal_intent(w, host, 0.0)
    before = w.copy()
    place_leaner(w, Intent(host, 0.0, 0.030, intent.tilt, intent.up))   # snaps onto its host
    w.disc_partner[host, :3] = len(before)               # as if the host's rim had pressed into it
    kept, dead = w.copy(), w.copy()
    touched = kept.disc_partner == len(before)
    kept.discard_last(len(before))
    dead.remove([len(before)])
    assert len(kept) == len(before)
    assert np.array_equal(kept.pos, dead.pos[:-1]) and np.array_equal(kept.quat, dead.quat[:-1])
    assert (kept.disc_partner[touched[:-1]] == -1).all() and not (kept.disc_partner == len(before)).any()
    ep_kept, ep_dead = place_leaner(kept, intent), place_leaner(dead, intent)
    assert ep_kept.steps == ep_dead.steps and ep_kept.action == len(before)
    live = dead.live.astype(bool)
    assert np.array_equal(kept.pos, dead.pos[live]) and np.array_equal(kept.quat, dead.quat[live])
    with pytest.raises(ValueError, match="not the last"):
        kept.discard_last(host)


def test_api_place_tower_keeps_ids_bottom_first_and_reports_colour_changes():
    w = World.new()
    a, b = w.add_flat(0.0, 0.0, 1), w.add_flat(0.06, 0.0, -1)
    ep = place_tower(w, [a, b], -0.1, 0.05, -1)
    assert ep.ok and ep.flipped == [a]
    infos = {x.id: x for x in ep.final}
    assert infos[a].z < infos[b].z and infos[a].tower == infos[b].tower == a
    assert (a, b) in ep.final_contacts and (a, b) not in ep.new_contacts


def test_api_leaner_events_name_the_action_disc_and_its_host():
    w = World.new()
    host = w.add_flat(0.0, 0.0, -1, owner=0)
    ep = place_leaner(w, nominal_intent(w, host, 1.0), owner=0)
    leaner = w.body(ep.action)
    assert ep.ok and leaner.state == BodyState.LEANING and leaner.leaning_on == host
    assert leaner.up == -1 and leaner.owner == 0
    assert ep.moved_diameters[host] < 0.01 and not ep.new_contacts


def test_api_red_disc_moved_is_reported_in_red_radii():
    w = World.new()
    w.add_flat(0.0, 0.0, 1, red=True)
    ep = lay_flat(w, 0.034, 0.0, 1)
    red_now = w.body(0)
    assert abs(ep.red_displacement - np.hypot(red_now.x, red_now.y) / w.params.radius) < 0.05


def test_api_sweeping_fingertip_knocks_a_flat_disc_out_of_the_circle():
    w = World.new(PhysicsParams(approach_speed=0.4))
    d = w.add_flat(0.2, 0.0, 1)
    ep = sweep(w, (0.17, 0.0, 0.003), (0.26, 0.0, 0.003), pusher_radius=0.005)
    assert d in ep.out_of_bounds and ep.moved_diameters[d] > 0.5


def test_api_nothing_raises_for_a_pose_inside_another_disc():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    ep = place_leaner(w, Intent(host, 0.0, 0.005, 0.2, 1))
    assert ep.status in {"settled", "step_budget", "nan", "energy"}


def test_episode_stops_at_the_first_red_touch_when_the_world_asks_for_it():
    """A disc laid 36 mm from the red disc, showing the attracting colour, snaps onto it; with
    ``stop_on_red_contact`` the run ends at that touch (the caller's rules end the game there)."""
    def lay(stop: bool):
        w = World.new()
        w.add_flat(0.0, 0.0, 1, red=True)
        w.stop_on_red_contact = stop
        return lay_flat(w, 0.036, 0.0, -1)
    full, stopped = lay(False), lay(True)
    assert full.status == "settled" and full.red_contacts == [full.action]
    assert stopped.status == "red_contact" and stopped.red_contacts == [stopped.action]
    assert stopped.steps < full.steps
    assert World.new().copy().stop_on_red_contact is False


def test_api_worlds_share_one_field_table_and_field_table_false_keeps_the_closed_form():
    w = World.new()
    assert w.copy().field is w.field and w.field[6].shape[0] > 0
    exact = World.new(PhysicsParams(field_table=False))
    assert exact.field[6].shape[0] == 0          # every lookup takes the closed form
    host, exact_host = w.add_flat(0.0, 0.0, 1), exact.add_flat(0.0, 0.0, 1)
    tabled, closed = nominal_intent(w, host, 0.0), nominal_intent(exact, exact_host, 0.0)
    assert tabled.base_distance != closed.base_distance            # really another path
    assert abs(tabled.base_distance - closed.base_distance) < 1e-4  # the same balance point


def test_balance_intent_tells_a_host_nothing_balances_on():
    lone = World.new()
    host = lone.add_flat(0.0, 0.0, 1)
    intent, balanced = balance_intent(lone, host, 0.0)
    assert balanced and intent == nominal_intent(lone, host, 0.0)
    for height in (4, 6):  # a tall tower's cushion lifts harder than gravity lays down, at every distance
        w = World.new()
        tower = w.add_tower(height, 0.0, 0.0, 1)
        intent, balanced = balance_intent(w, tower[0], 0.0)
        assert not balanced and intent == nominal_intent(w, tower[0], 0.0)
    ep = place_leaner(w, intent)
    assert next(b for b in ep.final if b.id == ep.action).state != BodyState.LEANING


def test_balance_intent_fails_a_leaner_a_tower_to_one_side_turns_over():
    """Balanced in tilt facing its host, but a five-disc tower to one side turns it about
    its base point until it rises and falls: the turn test (sim.balance.turned_balance)
    tells, on either side."""
    for side in (1.0, -1.0):
        w = World.new()
        host = w.add_flat(0.0, 0.0, 1)
        w.add_tower(5, 0.06, side * 0.11, 1)
        intent, balanced = balance_intent(w, host, 0.0)
        assert not balanced and intent == nominal_intent(w, host, 0.0)
    from sim.balance import _tilt_balance

    assert _tilt_balance(w, host, 0.0, None, np.pi / 4)[1]  # it does balance in tilt
    ep = place_leaner(w, intent)
    assert next(b for b in ep.final if b.id == ep.action).state == BodyState.FLAT


def _whole_grid_intent(w, host, azimuth, tilt=np.pi / 4, fit=False, hold=False):
    """(``nominal_intent``'s choice read from every tilt's grid scanned whole, how):
    the outermost stable crossing at tilts 0, -2.5, +2.5, ... 15 degrees off
    (``outermost``), then any stable crossing in that order (``inner``), else the
    first tilt's strongest support (``fallback``); with ``fit``, of the poses a
    leaner fits at (``sim.fit.intent_fits``) only; with ``hold``, of those that
    leave the discs near them in place (``sim.disturb``: one ``Disturbance`` serves
    every pose, as fresh ones do: tests/test_physics_disturb.py) only."""
    from sim.balance import WORK, new_scan, scan_down, world_axes
    from sim.disturb import HOLD_AIM, Disturbance
    from sim.fit import intent_fits

    p, axis = w.params, world_axes(w)
    up = 1 if axis[host, 2] >= 0 else -1
    top = max(w.pos[i, 2] for i in np.nonzero(w.live)[0]
              if np.hypot(*(w.pos[i, :2] - w.pos[host, :2])) < p.radius) + 0.5 * p.thickness
    scans = []
    for d in (0.0, -2.5, 2.5, -5.0, 5.0, -7.5, 7.5, -10.0, 10.0, -12.5, 12.5, -15.0, 15.0):
        t = tilt + np.radians(d)
        grid, torques, xs, stable, state = new_scan(w.P, float(top), float(t))
        scan_down(w.pos, axis, w.br, w.live, host, float(azimuth), float(t), up, float(p.chamfer), w.P, w.field,
                  grid, torques, xs, stable, state, False, np.zeros(WORK))
        assert state[0] == 0                                  # every grid point's torque
        scans.append((t, grid, torques, list(zip(xs[:state[1]], stable[:state[1]]))))
    disturbance = Disturbance(w)

    def fits(intent):
        return (not fit or intent_fits(w, intent)) and (not hold or disturbance(intent) < HOLD_AIM)
    for how in ("outermost", "inner"):
        for t, _, _, crossings in scans:
            for bd, ok in crossings[:1] if how == "outermost" else crossings:
                intent = Intent(host, azimuth, float(bd), t, up)
                if ok and fits(intent):
                    return intent, how
    t, grid, torques, _ = scans[0]
    support = sorted(range(len(grid)), key=lambda k: (-torques[k], k))
    first = next((k for k in support if fits(Intent(host, azimuth, float(grid[k]), t, up))), support[0])
    return Intent(host, azimuth, float(grid[first]), t, up), "fallback"


def test_nominal_intent_scans_only_as_far_as_it_needs_and_chooses_as_whole_grids_do():
    from sim.scenes import midgame_world

    w = midgame_world(5, n_flat=16, n_leaners=6, towers=(4, 3, 2))
    ways, skipped, held = [], 0, 0
    for host in [int(i) for i in np.nonzero(w.live)[0] if not w.red[i]][:12]:
        for azimuth in (0.0, 2.1, 4.2):
            for fit, hold in ((True, False), (False, False), (True, True)):
                expected, how = _whole_grid_intent(w, host, azimuth, fit=fit, hold=hold)
                assert nominal_intent(w, host, azimuth, fit=fit, hold=hold) == expected, (host, azimuth, fit, how)
                ways.append(how)
            skipped += nominal_intent(w, host, azimuth, fit=True) != nominal_intent(w, host, azimuth)
            held += nominal_intent(w, host, azimuth, fit=True, hold=True) != nominal_intent(w, host, azimuth, fit=True)
    assert set(ways) == {"outermost", "inner", "fallback"}   # every way of choosing met
    assert skipped > 0 and held > 0                          # and poses that do not fit or hold passed over


def test_nominal_intent_on_a_disc_taken_off_the_mat_names_it():
    w = World.new()
    host = w.add_flat(0.0, 0.0, 1)
    w.add_flat(0.06, 0.0, 1)
    w.remove([host])
    with pytest.raises(ValueError, match=f"host {host} is not on the mat"):
        nominal_intent(w, host, 0.0)


def test_midgame_world_floats_its_leaners_only_on_foundations_still_on_the_mat(monkeypatch):
    """Seed 5 with towers, played as physics 0.13.1 (the knobs that restore it; later
    physics' worlds go another way): an early leaner's episode carries a later
    leaner's host off the mat (stuck to the hand); the builder goes on to the next
    single foundation instead of asking a balance of a disc that is gone."""
    import sim.scenes as scenes

    hosts = []

    def recording(world, intent, **kw):
        assert world.live[intent.host]
        hosts.append(intent.host)
        return place_leaner(world, intent, **kw)

    monkeypatch.setattr(scenes, "place_leaner", recording)
    older = PhysicsParams(**physics_restores("0.13.1"))
    w = scenes.midgame_world(5, n_flat=16, n_leaners=6, towers=(4, 3, 2), params=older)
    assert len(hosts) == 6 and not w.live[15] and 15 not in hosts and hosts[-1] == 16
