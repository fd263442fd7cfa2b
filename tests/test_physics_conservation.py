"""Newton's third law to rounding; energy drift < 1 % over one simulated
second with friction and damping off: a magnetic pair in free flight, a disc
clattering on the mat and a disc dropped on another (contacts ring at
omega dt ~ 0.3: sim.integrate, Sub-steps), and the loop work; over 0.2 s a
leaner the magnets snap onto its host or onto a tower (sim.contacts, Skirt).
Over a whole second the snap still drifts 0.7-1.9 %: a strict xfail."""

from functools import lru_cache

import numpy as np
import pytest
from scipy.integrate import quad

from sim.api import PhysicsParams, World, settle
from sim.bodies import normal_of, quat_to_matrix
from sim.contacts import NO_FEATURE, cylinder_sdf_entered
from sim.episodes import leaner_pose
from sim.balance import world_rotations
from sim.forces import magnetic_all, new_cache
from sim.contact_forces import pair_contacts, world_points
from sim.magnetics import pair_force_torque_py

CONSERVATIVE = dict(friction=False, damping=False, sleep=False)


def _random_world(rng, n=6):
    w = World.new()
    for _ in range(n):
        v = rng.normal(size=3)
        w.add_body(rng.uniform(-0.05, 0.05, 3) + [0, 0, 0.1], v / np.linalg.norm(v), awake=True)
    return w


def _axes(w):
    return np.array([normal_of(q) for q in w.quat])


def test_newton_third_law_magnetic_forces_and_torques_balance_to_rounding():
    rng = np.random.default_rng(3)
    w = _random_world(rng)
    p = w.params
    force, torque = np.zeros((len(w), 3)), np.zeros((len(w), 3))
    magnetic_all(w.pos, _axes(w), world_rotations(w), w.br, w.live, w.awake, p.magnet_radius, p.magnet_thickness,
                 w.field, p.far_cutoff, force, torque, *new_cache(len(w)), 0.0, 0.0)
    scale = np.abs(force).max()
    assert scale > 1e-3
    assert np.abs(force.sum(axis=0)).max() < 1e-12 * scale * len(w)
    angular = (torque + np.cross(w.pos, force)).sum(axis=0)
    assert np.abs(angular).max() < 1e-12 * scale * len(w)


def test_newton_third_law_holds_for_split_far_pairs_served_from_the_cache():
    """Split far pairs (``far_dipole``) serve held remainder + dipole term of the
    moment; both parts balance, so the served sums do too."""
    from sim.forces import BODY_KEY, WORLD_SPLIT

    w = World.new()
    for k in range(5):
        t = 2 * np.pi * k / 5
        w.add_body((0.045 * np.cos(t), 0.045 * np.sin(t), 0.1 + 0.01 * k), (np.sin(t), 0.2, 1.0), awake=True)
    p = w.params
    cache = new_cache(len(w))
    args = (w.br, w.live, w.awake, p.magnet_radius, p.magnet_thickness, w.field, p.far_cutoff)
    magnetic_all(w.pos, _axes(w), world_rotations(w), *args, np.zeros((5, 3)), np.zeros((5, 3)), *cache,
                 p.reuse_pos, p.reuse_axis, -1, p.reuse_far, p.reuse_rel, p.far_dipole)
    # the five diagonals (86 mm) and the side from the lowest to the highest disc (66 mm) split;
    # the other four sides (53 mm, under reuse_far) are near pairs
    assert (cache[2] == WORLD_SPLIT).sum() == 6 and (cache[2] == BODY_KEY).sum() == 4
    w.pos[:, 0] += np.linspace(0.0, 4e-5, 5)                   # moved within their tolerance: served, not recomputed
    force, torque = np.zeros((5, 3)), np.zeros((5, 3))
    magnetic_all(w.pos, _axes(w), world_rotations(w), *args, force, torque, *cache,
                 p.reuse_pos, p.reuse_axis, -1, p.reuse_far, p.reuse_rel, p.far_dipole)
    scale = np.abs(force).max()
    assert np.abs(force.sum(axis=0)).max() < 1e-12 * scale * len(w)
    angular = (torque + np.cross(w.pos, force)).sum(axis=0)
    assert np.abs(angular).max() < 1e-12 * scale * len(w)


def _served_near_pair(momentum: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A near pair (centres 20 mm apart, j tilted) computed ahead of its motion
    (``reuse_lead``), then served twice: at the pose of the moment (the step that
    computed it) and 1.5 um on (within ``reuse_pos``, no kernel call). Returns
    (c_j - c_i, the cache entry) for both, and how far the key lies ahead."""
    from sim.forces import BODY_KEY, _recompute_led, _reused

    p = PhysicsParams()
    table = World.new(p).field
    pos = np.array([[0.0, 0.0, 0.003], [0.02, 0.002, 0.006]])
    axis = np.array([[0.0, 0.0, 1.0], [0.3, 0.1, 0.95]])
    axis /= np.linalg.norm(axis, axis=1)[:, None]
    rot = np.array([np.eye(3), np.eye(3)])
    vel, omega = np.array([[0.0, 0.0, 0.0], [0.004, -0.003, 0.001]]), np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.2]])
    br = np.full(2, p.br)
    cache, key, valid = new_cache(2)
    d0 = pos[1] - pos[0]
    _recompute_led(0, 1, *d0, d0 @ d0, pos, axis, rot, vel, omega, br, p.magnet_radius, p.magnet_thickness,
                   table, cache, key, valid, p.reuse_pos, p.reuse_axis, p.reuse_far, p.reuse_rel, p.reuse_lead,
                   p.far_dipole, p.kernel_knobs(), momentum)
    assert valid[0, 1] == BODY_KEY
    computed = cache[0, 1].copy()
    d1 = d0 + np.array([1.5e-6, 0.0, 0.0])
    assert _reused(0, 1, *d1, d1 @ d1, axis, rot, cache, key, valid, p.reuse_pos, p.reuse_axis, p.reuse_far,
                   p.reuse_rel, br, p.magnet_radius, p.magnet_thickness, momentum)
    return [(d0, computed), (d1, cache[0, 1].copy())], np.linalg.norm(key[0, 1, :3] - d0)


def _angular_imbalance(d, result) -> float:
    """|T_on_i + T_on_j + d x F_on_j| of a pair result, over |F| x 1 m."""
    f, t_i, t_j = result[:3], result[3:6], result[6:]
    return np.linalg.norm(t_i + t_j + np.cross(d, f)) / np.linalg.norm(f)


def test_newton_third_law_holds_for_near_pairs_computed_ahead_and_served_from_the_cache():
    """``reuse_momentum``: a result computed ahead of the pair (``reuse_lead``) or
    reused a little way on is served where the pair is, with the torque on i
    re-derived there, so it keeps angular momentum to rounding: a pair turning as
    one piece does no work. Physics 0.15.0 (off) served the torque of the pose the
    result was computed at: off by (c_j - c_i - key) x F, a torque that did work
    whenever the pair turned (over a second of a frictionless snap, +0.9 % of the
    peak kinetic energy on average over eight releases)."""
    served, ahead = _served_near_pair(1.0)
    assert ahead > 0.5 * PhysicsParams().reuse_pos                   # computed away from where it is served
    for d, result in served:
        assert _angular_imbalance(d, result) < 1e-12
    old, _ = _served_near_pair(0.0)
    for (d, result), (_, before) in zip(old, served):
        assert _angular_imbalance(d, result) > 0.3 * ahead             # the lever arm the key lies off by
        assert np.array_equal(result[:3], before[:3]) and np.array_equal(result[6:], before[6:])


def test_newton_third_law_contact_forces_balance_to_rounding():
    w = World.new()
    a = w.add_body((0.0, 0.0, 0.05), (0.0, 0.0, 1.0), awake=True)
    b = w.add_body((0.012, 0.004, 0.0545), (0.3, 0.1, 1.0), awake=True)
    w.vel[b] = (0.01, -0.02, -0.05)
    w.omega[a] = (1.0, 0.0, 2.0)
    n, npts = len(w), w.rim.shape[0]
    rot, axis, wp = np.zeros((n, 3, 3)), np.zeros((n, 3)), np.zeros((n, npts, 3))
    for i in range(n):
        quat_to_matrix(w.quat[i], rot[i])
        axis[i] = rot[i][:, 2]
        world_points(w.pos, rot, w.rim, i, wp)
    force, torque = np.zeros((n, 3)), np.zeros((n, 3))
    hit = np.zeros((n, npts), np.bool_)
    touching = pair_contacts(a, b, w.pos, w.vel, w.omega, axis, wp, w.disc_spring,
                             w.disc_partner, w.disc_feature, hit, w.P, True, True, force, torque,
                             np.zeros(2 * npts), np.zeros((2 * npts, 3)), np.zeros(2 * npts, np.int8),
                             np.zeros((8, 3)), np.zeros(2))
    assert touching and np.abs(force).max() > 1e-3
    assert np.abs(force.sum(axis=0)).max() < 1e-12
    assert np.abs((torque + np.cross(w.pos, force)).sum(axis=0)).max() < 1e-14


def _kinetic(w):
    p = w.params
    ia, ip = p.inertia()
    e = 0.5 * p.mass * (w.vel ** 2).sum()
    for q, om in zip(w.quat, w.omega):
        n = normal_of(q)
        along = om @ n
        e += 0.5 * (ia * along ** 2 + ip * (om @ om - along ** 2))
    return e


def _pair_potential(w):
    """U of every magnetic pair: the integral of the force on the second disc from
    its position out to infinity (the first disc and both orientations frozen; the
    kernel is conservative)."""
    n = len(w)
    return sum(_one_pair_potential(w, i, j) for i in range(n) for j in range(i + 1, n))


def _one_pair_potential(w, i, j):
    p = w.params
    c0, c1 = w.pos[i], w.pos[j]
    n0, n1 = normal_of(w.quat[i]), normal_of(w.quat[j])
    u = (c1 - c0) / np.linalg.norm(c1 - c0)

    def f_along(s):
        f = pair_force_torque_py(c0, n0, c1 + s * u, n1, p.magnet_radius, p.magnet_thickness,
                                 p.br, p.br)[0]
        return float(f @ u)
    # the near tier's field is read from a table (piecewise bilinear): its
    # stretch of the ray, where the force has kinks that adaptive quadrature
    # cannot tell from roundoff, is summed by a composite Gauss rule on panels
    # much finer than the table's cells; the smooth far tiers by quad
    near = 2.0 * 2.0 * p.magnet_radius
    return _composite_gauss(f_along, 0.0, near) + quad(f_along, near, np.inf, limit=200, epsabs=1e-12)[0]


def _composite_gauss(f, a, b, panels=1000, order=4):
    x, wt = np.polynomial.legendre.leggauss(order)
    edges = np.linspace(a, b, panels + 1)
    half = 0.5 * np.diff(edges)
    return float(sum(h * sum(wk * f(m + h * xk) for xk, wk in zip(x, wt))
                     for m, h in zip(0.5 * (edges[1:] + edges[:-1]), half)))


def test_energy_drift_below_one_percent_magnetic_pair_in_free_flight():
    params = PhysicsParams(gravity=0.0, far_cutoff=100.0, settle_budget_s=0.1, **CONSERVATIVE)
    w = World.new(params)
    w.add_body((0.0, 0.0, 0.2), (0.0, 0.0, 1.0), awake=True)
    w.add_body((0.034, 0.006, 0.205), (0.0, 0.0, 1.0), awake=True)   # repel, twist, never touch
    e0 = _kinetic(w) + _pair_potential(w)
    worst = 0.0
    for _ in range(10):
        settle(w)
        worst = max(worst, abs(_kinetic(w) + _pair_potential(w) - e0))
    assert _kinetic(w) > 0.5 * abs(e0)        # the pair really flew apart
    assert np.abs(w.omega).max() > 0.1         # and turned
    assert worst < 0.01 * abs(e0)


def _far_pair_tumbling(**params) -> tuple[float, float]:
    """Two discs 75 mm apart in free flight, both tumbling, friction and damping
    off, over 1 s: (worst |energy - start|, the pair potential at the start)."""
    w = World.new(PhysicsParams(gravity=0.0, settle_budget_s=0.1, **CONSERVATIVE, **params))
    a = w.add_body((0.0, 0.0, 0.2), (0.0, 0.0, 1.0), awake=True)
    b = w.add_body((0.075, 0.01, 0.2), (0.0, 0.0, 1.0), awake=True)
    w.omega[a], w.omega[b] = (0.0, 3.0, 0.5), (2.0, 0.0, 0.0)
    e0 = _kinetic(w) + _pair_potential(w)
    worst = 0.0
    for _ in range(10):
        settle(w)
        worst = max(worst, abs(_kinetic(w) + _pair_potential(w) - e0))
    return worst, abs(e0)


def test_energy_drift_of_a_tumbling_far_pair_with_split_results_is_below_a_tenth_of_a_percent():
    """A far pair's held result gains or loses energy as the pair turns under it;
    with only the part beyond the dipole term held (physics 0.12) the drift is
    below 0.1 % of the energy, under half of what holding the whole result
    (``far_dipole=0``, physics 0.11.0) lets through."""
    split, e0 = _far_pair_tumbling()
    held, _ = _far_pair_tumbling(far_dipole=0.0)
    assert split < 1e-3 * e0 and split < 0.5 * held


def _rim_points(w, i):
    rot = np.zeros((3, 3))
    quat_to_matrix(w.quat[i], rot)
    return w.pos[i] + w.rim @ rot.T


def _contact_potential(k, depths, p):
    """K/2 (sum d^p)^(2/p) over the penetrating points (sim.contact_forces)."""
    depths = np.asarray(depths)
    return 0.5 * k * (depths[depths > 0] ** p.contact_norm).sum() ** (2.0 / p.contact_norm)


def _mat_potential(w, i=0):
    return _contact_potential(w.params.k_contact, -_rim_points(w, i)[:, 2], w.params)


def _disc_potential(w, i, j):
    """One contact as the core counts it: i's rim points inside j and j's inside i,
    each as deep as the surface it entered by says (past that surface's edge, its
    skirt: sim.contacts), a point not yet labelled through the nearest surface."""
    p, normal = w.params, np.zeros(3)
    depths = []
    for b, o in ((i, j), (j, i)):
        axis = normal_of(w.quat[o])
        for k, q in enumerate(_rim_points(w, b)):
            known = int(w.disc_feature[b, k]) if w.disc_partner[b, k] == o else NO_FEATURE
            depths.append(-cylinder_sdf_entered(*(q - w.pos[o]), axis, p.radius, 0.5 * p.thickness, known, normal,
                                                p.contact_skirt)[0])
    return _contact_potential(p.k_disc, depths, p)


def _total_energy(w) -> float:
    """Kinetic + gravity + every contact's penalty potential (sim.contact_forces)."""
    p, n = w.params, len(w)
    e = _kinetic(w) + p.mass * p.gravity * (w.pos[:, 2] - 0.5 * p.thickness).sum()
    e += sum(_mat_potential(w, i) for i in range(n))
    return e + sum(_disc_potential(w, i, j) for i in range(n) for j in range(i + 1, n))


def _one_second(w) -> tuple[float, list[float], int]:
    """Simulate 1 s (``settle_budget_s`` = 5 ms), sampling every 5 ms:
    (initial energy, samples, samples with a body on the mat's spring)."""
    e0 = _total_energy(w)
    samples, landings = [], 0
    for _ in range(200):
        settle(w)
        samples.append(_total_energy(w))
        landings += any(_mat_potential(w, i) > 0 for i in range(len(w)))
    return e0, samples, landings


def _bouncing_disc_energies(extra_height: float) -> tuple[float, list[float], int]:
    """A disc dropped flat from 1 mm (+ ``extra_height``) clatters on the mat
    for 1 s (penalty contact: the spring energy counts)."""
    params = PhysicsParams(settle_budget_s=0.005, **CONSERVATIVE)
    w = World.new(params)
    w.add_body((0.0, 0.0, 0.5 * params.thickness + 0.001 + extra_height), (0.0, 0.0, 1.0), awake=True)
    return _one_second(w)


@lru_cache(maxsize=1)
def _eight_drops() -> list[tuple[float, list[float], int]]:
    """Eight drops 0.1 um apart: chaos makes each another trajectory."""
    return [_bouncing_disc_energies(k * 1e-7) for k in range(8)]


def test_energy_of_a_disc_bouncing_on_the_mat_stays_within_one_percent_at_every_sample():
    for e0, samples, landings in _eight_drops():
        assert landings >= 5
        assert max(abs(e - e0) for e in samples) < 0.01 * e0


def test_energy_drift_below_one_percent_disc_bouncing_on_the_mat():
    """Drift = change of the mean energy from the first to the last 0.1 s
    (the step's velocities lag half a step, so single samples scatter during
    impacts), for each of the eight drops (physics 0.6.0, without sub-steps:
    -3.7 % .. +1.4 %; 0.7.0: within 0.40 %)."""
    drifts = [(np.mean(samples[-20:]) - np.mean(samples[:20])) / e0 for e0, samples, _ in _eight_drops()]
    assert max(abs(d) for d in drifts) < 0.01, [round(100 * d, 2) for d in drifts]


def _disc_dropped_on_a_disc(shift: float) -> tuple[float, list[float], int]:
    """A disc tilted 25 deg dropped from 2 mm onto a disc lying on the mat
    (magnets off: the contacts alone), for 1 s."""
    p = PhysicsParams(settle_budget_s=0.005, br=0.0, **CONSERVATIVE)
    w = World.new(p)
    hh, tilt = 0.5 * p.thickness, np.radians(25.0)
    w.add_body((0.0, 0.0, hh), (0.0, 0.0, 1.0), awake=True)
    w.add_body((0.004 + shift, 0.0, 3 * hh + 0.002 + p.radius * np.sin(tilt)),
               (np.sin(tilt), 0.0, np.cos(tilt)), awake=True)
    return _one_second(w)


def test_energy_drift_below_one_percent_disc_dropped_on_a_disc():
    """Four drops 0.1 um apart, every sample (physics 0.6.0, without
    sub-steps: drift up to +1.8 %, samples up to 2.7 % off; 0.7.0: within
    0.24 %)."""
    for k in range(4):
        e0, samples, _ = _disc_dropped_on_a_disc(k * 1e-7)
        assert max(abs(e - e0) for e in samples) < 0.01 * e0, k


@lru_cache(maxsize=8)
def _snap_world(shift: float = 0.0, **params) -> World:
    """A leaner 36 mm (+ ``shift``) from a same-colour host (well inside its snap
    distance), about to be pulled onto it, friction and damping off."""
    p = PhysicsParams(settle_budget_s=0.005, **CONSERVATIVE, **params)
    w = World.new(p)
    host = w.add_body((0.0, 0.0, 0.5 * p.thickness), (0.0, 0.0, 1.0), awake=True)
    centre, normal, _ = leaner_pose(w, host, 0.0, 0.036, np.radians(45.0))
    w.add_body(centre + np.array([shift, 0.0, 1e-4]), normal, awake=True)
    return w


def _leaner_snap(seconds: float = 0.2, shift: float = 0.0, **params) -> tuple[float, float]:
    """The snap of ``_snap_world`` for ``seconds``: (worst |total energy - start|,
    magnetic pair potential included; the largest kinetic energy), sampled every 5 ms."""
    worst, kinetic, _ = _watch_energy(_snap_world(shift, **params), round(seconds / 0.005))
    assert kinetic > 0.005                       # it did snap
    return worst, kinetic


def _watch_energy(w, samples: int = 40) -> tuple[float, float, float]:
    """Simulate ``samples`` settle budgets (5 ms each in these tests): (worst |total
    energy - start|, every magnetic pair's potential included; the largest kinetic
    energy; the total energy at the end less at the start)."""
    e0 = _total_energy(w) + _pair_potential(w)
    worst, kinetic, drift = 0.0, 0.0, 0.0
    for _ in range(samples):
        settle(w)
        drift = _total_energy(w) + _pair_potential(w) - e0
        worst = max(worst, abs(drift))
        kinetic = max(kinetic, _kinetic(w))
    return worst, kinetic, drift


def test_energy_drift_below_one_percent_leaner_snapping_onto_its_host():
    """The game's own fault: over 0.2 s the total energy stays within 1 % of the
    largest kinetic energy the magnets release (physics 0.18.0: 0.2 %; 0.17.0: 0.2 %; 0.16.0: 0.8 %;
    0.15.0: 0.6 %; 0.14.0: 0.5 %; 0.13: 0.3 %; one chaotic trajectory each)."""
    worst, kinetic = _leaner_snap()
    assert worst < 0.01 * kinetic


@pytest.mark.xfail(strict=True, reason="issue 3's bar over a full second at the default step: 0.4-2.1 % "
                                       "(physics 0.18.0 to 0.22.0); at half the step 0.2-0.7 % (the next test)")
def test_energy_drift_below_one_percent_over_one_second_of_a_leaner_snapping_onto_its_host():
    """The snap watched for a whole second, four releases 0.1 mm apart (it passes only
    if all four do: one lucky release is not the bar met). With friction
    and damping off the leaner never rests: it skids and bounces on its host and the
    mat, hundreds of impacts. The trajectory is chaotic, so one release's figure moves
    with any rounding. Sixteen releases 0.1 mm apart (worst |E - E_0| over the peak
    kinetic energy; final drift):
    - physics 0.18.0: 0.39-2.05 %, median 0.95 %; final drift -0.20 % on average;
      0.19.0 the same to the bit (its flat islands' short sleep: these tests sleep nobody),
      and 0.22.0 too (session 49: the sixteen figures equal those with 0.20.0's
      physics restored; no compound body forms here and nobody sleeps).
      Session 34: the error is the contacts' sub-step length, about as its square
      (a contact sub-step of 50 us, dt 0.05 ms with 1 sub-step: median 2.31 %; 33 us,
      the default: 0.95 %; 25 us, dt 0.05 ms with 2: 0.46 %; 17 us, with 3: 0.22 %); at the default step
      more contact sub-steps cut the median (4: 0.55 %) but not the tail (4 of 16
      over 1 %) unless every step is sub-stepped (0.26-0.77 %): the steps taken
      whole between fast contacts matter too. So the bar costs the step: at half
      of it ~1.7x the CPU of replayed episodes (the ``fine-step`` variant);
    - physics 0.17.0: 0.38-2.12 %, median 1.05 %; final drift +0.5 % on average;
      at half the step (dt 0.05 ms) 0.17-1.40 %, median 0.64 %, drift +0.56 %; at a
      quarter 0.19-1.08 %, median 0.55 %, drift +0.55 %: with the spurious force
      gone, the step shrinks the random walk, and what is left is a steady gain
      that does not shrink with it. It was the lead (``reuse_lead``): a pair
      moving a tolerance or more a step is never served twice, so its led
      result was just the force 0.9 of a tolerance ahead along its motion, every
      step. At half the step with no lead 0.10-0.60 %, drift +0.03 %; with the
      lead fitted to the poses a result serves (physics 0.18.0, the next
      test) 0.16-0.65 %, median 0.22 %, drift +0.13 %. At the default step without the lead:
      0.37-2.98 %, median 0.95 %, drift +0.67 % (with 6 contact sub-steps
      0.32-2.57 %, drift -0.5 %): the step's own error is the larger part there;
    - physics 0.16.0 (``converged_gap=False``): 0.67-1.93 %, median 1.07 %; final drift +0.1 % on average;
    - 0.15.0 (``reuse_momentum=False``): 0.61-2.94 %, median 1.34 %; final drift
      +1.0 % on average (Welch p = 0.03 against 0.16.0): a served result's torque
      pumped energy in (sim.forces, Momentum);
    - no magnetic result reused (``reuse_pos=0 reuse_axis=0``): 0.39-3.46 %, median
      0.88 %; final drift +0.0 % on average, -2.8 to +3.5 % (p = 0.8 against 0.16.0).
    Session 31 had read the reuse as what stands between the core and the bar from the
    first eight releases without it (0.39-0.98 %); the next eight (0.51-3.46 %) say
    otherwise: what is left is a random walk of about the same size with or without
    it, the contacts' hundreds of impacts (9 sub-steps for every moving contact:
    0.31-2.35 % over eight, session 31). With the step halved it shrinks (eight
    releases, median 0.44 %), but one of them lost 8.6 % in two steps with both
    discs in flight: a spurious 12-N force of the blends' work term where the edge
    gap was no smooth function of the pose (physics 0.17.0 converges the gap:
    ``test_the_edge_gap_slope_of_the_blend_work_term_is_a_gradient``;
    docs/MEASUREMENTS.md, physics 0.16.0 and 0.17.0)."""
    for shift in (0.0, 1e-4, 2e-4, 3e-4):
        worst, kinetic = _leaner_snap(1.0, shift)
        assert worst < 0.01 * kinetic, (shift, round(100 * worst / kinetic, 2))


def _final_drift(shift: float, **params) -> tuple[float, float]:
    """The one-second snap: (worst |E - E_0|, E(1 s) - E_0), as shares of the peak
    kinetic energy."""
    worst, kinetic, drift = _watch_energy(_snap_world(shift, **params), 200)
    return worst / kinetic, drift / kinetic


def test_energy_drift_below_one_percent_over_one_second_of_the_snap_at_half_the_step():
    """The same four releases at half the step (dt 0.05 ms, the ``fine-step`` variant): each keeps its energy
    within 1 % of the peak kinetic energy over the whole second (0.16-0.27 %,
    final drift +0.07 % on average; sixteen releases 0.16-0.65 %, median 0.22 %,
    drift +0.13 %; physics 0.18.0). The control, physics 0.17.0's lead
    (``fitted_lead=False``), gains more: +0.50 % on average here (sixteen:
    +0.56 %, worst up to 1.40 %; Welch p ~ 0.001 against 0.18.0's sixteen),
    because every step of a pair crossing two tolerances a step took its force
    0.9 of a tolerance ahead along its motion (sim.forces, Fitted lead). So what stands
    between the default core and issue 3's bar is the step's own error (the
    xfail above), not the magnetic kernel or its reuse."""
    fitted = [_final_drift(shift, dt=5e-5) for shift in (0.0, 1e-4, 2e-4, 3e-4)]
    full = [_final_drift(shift, dt=5e-5, fitted_lead=False) for shift in (0.0, 1e-4, 2e-4, 3e-4)]
    assert max(worst for worst, _ in fitted) < 0.01, fitted
    assert np.mean([drift for _, drift in full]) > np.mean([drift for _, drift in fitted]) + 0.002, (full, fitted)


@lru_cache(maxsize=2)
def _leaner_snap_onto_a_tower(**params) -> tuple[float, float]:
    """A leaner released 36 mm from the top of a three-disc tower, the tower's discs
    awake, friction and damping off, for 0.2 s: (worst |energy - start|, every
    pair's magnetic potential included; the largest kinetic energy)."""
    p = PhysicsParams(settle_budget_s=0.005, **CONSERVATIVE, **params)
    w = World.new(p)
    tower = w.add_tower(3, 0.0, 0.0, 1)
    w.awake[tower] = 1
    centre, normal, _ = leaner_pose(w, tower[-1], 0.3, 0.036, np.radians(45.0))
    w.add_body(centre + np.array([0.0, 0.0, 1e-4]), normal, awake=True)
    worst, kinetic, _ = _watch_energy(w)
    assert kinetic > 0.02                        # it did snap, and shook the tower
    return worst, kinetic


def test_energy_of_a_leaner_snapping_onto_a_tower_stays_within_two_percent():
    """Four discs, six magnetic pairs, many contacts at once: the skirt keeps the
    energy within 0.5 % of the peak kinetic energy (physics 0.18.0; 0.17.0: 1.3 %; 0.16.0: 0.8 %;
    0.15.0: 1.1 %; 0.14.0: 0.6 %; 0.13: 1.3 %, 1.2-1.9 % for three releases 0.1 mm
    apart; one chaotic trajectory each); physics 0.12.1 (``contact_skirt=0``)
    lost 120-137 % of it."""
    worst, kinetic = _leaner_snap_onto_a_tower()
    lost, _ = _leaner_snap_onto_a_tower(contact_skirt=0.0)
    assert worst < 0.02 * kinetic and lost > kinetic


def test_without_the_skirt_the_snap_loses_its_energy_where_points_leave_by_another_surface():
    """Physics 0.12.1 (``contact_skirt=0``): a point that left its host by another
    surface than it entered by was dropped with its spring's energy; over 0.2 s the
    snap lost as much as the magnets had released (worst 0.021 J, peak kinetic
    0.019 J), nearly all of it at the moments points left (sim.contacts, Skirt)."""
    lost, kinetic = _leaner_snap(contact_skirt=0.0)
    kept, _ = _leaner_snap()
    assert lost > 0.5 * kinetic and kept < 0.02 * lost


def _speeds_beside_a_tall_tower(**params) -> list[float]:
    """A disc lying 3.4 deg off flat, 78 mm from a 12-disc tower of the other
    colour up (a pose a standard game left one in), sleeping off: its speed
    (m/s) every 0.5 s for 4 s."""
    w = World.new(PhysicsParams(sleep=False, settle_budget_s=0.5, **params))
    w.add_tower(12, 0.0777, 0.0, -1)
    tilt = np.radians(3.4)
    disc = w.add_body((0.0, 0.0, 0.0038), (-np.sin(tilt), 0.0, np.cos(tilt)), awake=True)
    speeds = []
    for _ in range(8):
        settle(w)
        speeds.append(float(np.linalg.norm(w.vel[disc])))
    return speeds


@pytest.mark.parametrize("params", [{}, {"reuse_rel": 0.0}], ids=["split_far_pairs", "far_pairs_computed_every_step"])
def test_a_disc_tilted_beside_a_tall_tower_comes_to_rest(params):
    """Under physics 0.11.0 (``far_dipole=0``) the disc rocked on its rim at up
    to ~1.3 mm/s for as long as it was simulated: its far pairs' held results
    fed the rocking (sim.forces, Lead and Split). With the dipole term of the
    moment and only the rest held it rests as with nothing held at all: below
    0.01 mm/s from 3.5 s on. The second in which the rocking dies moves with the
    tower's first jiggle: six tilts 0.01 deg apart, under physics 0.15.0 and
    0.16.0 alike, leave 2e-6 to 1.2e-4 m/s at some sample from 2 s on, and at
    most 3e-6 m/s from 3.5 s on (session 32)."""
    assert max(_speeds_beside_a_tall_tower(**params)[6:]) < 1e-5
