"""Strategies' decision logic on hand-made views (no physics run)."""

import math

import numpy as np
import pytest

from rules.base import StrategySpec
from rules.polarity import GAME
from rules.polarity.model import PolarityRules
from rules.polarity.physics import Geometry
from rules.polarity.resolve import Resolution
from rules.polarity.scenes import B, W, disc
from rules.polarity.state import FaultGroup, Table
from rules.polarity.view import Convert, Place, View

RED = disc(0, 0, 0, B, red=True)


def make(text):
    spec = StrategySpec.parse(text)
    sdef = GAME.strategy(spec)
    return sdef.make(sdef.validate(spec))


def view_of(bodies, seat=0, rules=None, **kw):
    return View(seat, bodies, Table(stacks=[20, 20]), rules or PolarityRules(), Geometry(), **kw)


def side(place, host):
    return math.cos(place.azimuth), math.sin(place.azimuth)


def test_every_strategy_plays_only_on_its_own_hosts():
    bodies = [RED, disc(1, 100, 0, W), disc(2, -100, 0, W), disc(3, 0, 100, B), disc(4, 0, -100, B)]
    for name in GAME.strategies:
        for seed in range(5):
            act = make(name).act(view_of(bodies, 0), np.random.default_rng(seed))
            assert isinstance(act, Place) and act.host in (1, 2), name


def test_cautious_leans_away_from_the_neighbour_and_the_red_disc():
    # White's host at +100 mm; Black's disc close on its -x side (toward red): go outward (+x)
    bodies = [RED, disc(1, 100, 0, W), disc(3, 55, 0, B)]
    act = make("cautious:n_azimuths=32").act(view_of(bodies), np.random.default_rng(0))
    assert math.cos(act.azimuth) > 0.9


def test_cautious_setup_spot_is_far_from_other_discs():
    bodies = [RED, disc(1, 100, 0, W), disc(3, -100, 0, B)]
    v = view_of(bodies)

    def nearest(s):
        return min(math.hypot(s[0] - b.x, s[1] - b.y) for b in bodies)

    spot = make("cautious").setup_spot(v, np.random.default_rng(1))
    rand = [make("random").setup_spot(v, np.random.default_rng(s)) for s in range(20)]
    assert nearest(spot) > np.median([nearest(s) for s in rand])
    assert v.legal_spot(*spot, margin=0.004)  # with room for the hand's noise (R3)


def margins(v, place):
    from rules.polarity.strategies import margins_of

    return margins_of(v, place)


def test_aggressive_plays_toward_red_and_the_opponent():
    bodies = [RED, disc(1, 140, 0, W), disc(3, 140, 120, B), disc(4, -150, 0, W)]
    v = view_of(bodies)
    act = make("aggressive").act(v, np.random.default_rng(0))
    cautious = make("cautious").act(v, np.random.default_rng(0))
    assert min(margins(v, act)) < min(margins(v, cautious))
    assert margins(v, act)[1] >= 10e-3 and margins(v, act)[0] >= 0.0  # outside every reach


def test_aggressive_keeps_red_margin_mm_from_the_red_disc():
    # a host 110 mm from red: most directions put the leaner inside the red disc's reach
    bodies = [RED, disc(1, 110, 0, W), disc(3, -150, 0, B)]
    v = view_of(bodies)
    for margin in (5, 20):
        for seed in range(6):
            act = make(f"aggressive:red_margin_mm={margin}").act(v, np.random.default_rng(seed))
            assert margins(v, act)[1] >= margin * 1e-3, (margin, seed)


def test_aggressive_puts_a_captured_tower_red_margin_mm_beyond_the_red_discs_reach():
    """Before: capture spots were filtered by min_gap_mm alone and counted the group's
    own discs (still where they fell) as obstacles and as targets to aim at."""
    from rules.polarity import clearance

    group = FaultGroup(0, (7, 8))
    bodies = [RED, disc(1, 150, 0, W), disc(3, -150, 0, B), disc(7, 60, -40, B), disc(8, 75, -40, W)]
    v = view_of(bodies)
    others = [b for b in bodies if b.id not in group.ids]
    for margin in (10, 40):
        for seed in range(6):
            x, y = make(f"aggressive:red_margin_mm={margin}").capture_spot(v, group, np.random.default_rng(seed))
            red = clearance.spot_margin(others, x, y, red_gap=clearance.REACH_ATTRACT, size=2)[1]
            assert red > margin * 1e-3, (margin, seed, x, y)


def test_aggressive_setup_spot_keeps_red_margin_mm_from_the_red_disc():
    from rules.polarity import clearance

    bodies = [RED, disc(1, 150, 0, W), disc(3, -150, 0, B)]
    v = view_of(bodies)
    for seed in range(6):
        x, y = make("aggressive:red_margin_mm=30").setup_spot(v, np.random.default_rng(seed))
        assert clearance.spot_margin(bodies, x, y, red_gap=clearance.REACH_ATTRACT)[1] > 30e-3, (seed, x, y)


@pytest.mark.parametrize("name", ["random", "cautious", "aggressive", "capturer", "lookahead"])
def test_r14_every_strategy_avoids_leaning_within_the_red_discs_reach(name):
    bodies = [RED, disc(1, 100, 0, W), disc(2, 0, 100, W), disc(3, -150, 0, B)]
    v = view_of(bodies)
    for seed in range(8):
        act = make(name).act(v, np.random.default_rng(seed))
        assert margins(v, act)[1] >= 0.0, (name, seed)


def test_r14_a_negative_red_margin_lets_random_lean_into_the_red_reach():
    bodies = [RED, disc(1, 100, 0, W), disc(3, -150, 0, B)]
    v = view_of(bodies)
    red = [margins(v, make("random:red_margin_mm=-1000").act(v, np.random.default_rng(s)))[1] for s in range(30)]
    assert min(red) < 0.0


def test_cautious_leaner_stands_beyond_every_measured_reach_when_it_can():
    from rules.polarity import clearance

    bodies = [RED, disc(1, 150, 0, W), disc(3, 150, 100, B), disc(4, 60, -150, B)]
    v = view_of(bodies)
    act = make("cautious").act(v, np.random.default_rng(0))
    cx, cy = clearance.leaner_centre((0.150, 0.0), act.azimuth, act.base_distance)
    for b in bodies[2:]:
        assert math.hypot(cx - b.x, cy - b.y) >= clearance.REACH_ATTRACT
    assert math.hypot(cx, cy) >= clearance.REACH_ATTRACT + 20e-3  # red_margin_mm=20


def test_aggressive_setup_spot_is_nearer_the_red_disc_than_cautious():
    v = view_of([RED])
    agg = make("aggressive").setup_spot(v, np.random.default_rng(3))
    cau = make("cautious").setup_spot(v, np.random.default_rng(3))
    assert math.hypot(*agg) < math.hypot(*cau)


def test_converter_converts_its_leaners_until_it_has_enough_foundations():
    bodies = [RED, disc(1, 100, 0, W), disc(5, 120, 0, W, "leaning", leaning_on=1), disc(3, -100, 0, B)]
    act = make("converter:target_foundations=3").act(view_of(bodies), np.random.default_rng(0))
    assert isinstance(act, Convert) and act.leaner == 5
    assert math.cos(act.azimuth) < -0.9  # pressed down toward its host, colour kept
    enough = make("converter:target_foundations=1").act(view_of(bodies), np.random.default_rng(0))
    assert isinstance(enough, Place)
    no_conv = view_of(bodies, rules=PolarityRules(allow_conversion=False))
    assert isinstance(make("converter:target_foundations=3").act(no_conv, np.random.default_rng(0)), Place)


def test_a_strategy_without_hosts_converts_a_leaner_or_passes():
    bodies = [RED, disc(5, 120, 0, W, "leaning"), disc(3, -100, 0, B)]
    for name in ("random", "cautious", "aggressive", "capturer"):
        assert isinstance(make(name).act(view_of(bodies), np.random.default_rng(0)), Convert)
    assert make("cautious").act(view_of([RED, disc(3, -100, 0, B)]), np.random.default_rng(0)) is None


def test_capturer_keeps_captured_towers_near_its_own_discs():
    bodies = [RED, disc(1, 150, 0, W), disc(2, 150, 40, W), disc(3, -150, 0, B)]
    v = view_of(bodies)
    spot = make("capturer:home_mm=40").capture_spot(v, FaultGroup(0, (9,)), np.random.default_rng(0))
    assert math.hypot(spot[0] - 0.150, spot[1] - 0.020) < 0.09


def test_lookahead_picks_the_candidate_whose_trials_go_best():
    bodies = [RED, disc(1, 100, 0, W), disc(2, -100, 0, W), disc(3, 0, 150, B)]
    calls = []

    def trial(place, rng, p):
        calls.append(place)
        ok = place.host == 2  # only host 2 works in this scene
        return Resolution(action="placed" if ok else "fault", faults=[] if ok else ["a"])

    act = make("lookahead:budget=8:samples=2").act(view_of(bodies, trial=trial), np.random.default_rng(0))
    assert act.host == 2
    assert len(calls) <= 8 and {c.host for c in calls} == {1, 2}


def test_lookahead_budget_caps_the_physics_trials():
    bodies = [RED] + [disc(i, 100 * math.cos(i), 100 * math.sin(i), W) for i in range(1, 6)] + [disc(9, 0, 190, B)]
    calls = []

    def trial(place, rng, p):
        calls.append(place)
        return Resolution(action="placed")

    make("lookahead:budget=5:samples=1").act(view_of(bodies, trial=trial), np.random.default_rng(0))
    assert len(calls) == 5


def test_lookahead_refuses_more_samples_than_its_budget():
    """Before: budget=1 ran 2 episodes (the default samples), budget=3:samples=5 ran 5."""
    from rules.base import UsageError

    with pytest.raises(UsageError, match=r"samples \(5\) must not exceed budget \(3\)"):
        make("lookahead:budget=3:samples=5")


@pytest.mark.parametrize("rules, red_is_a_loss", [(PolarityRules(), True),
                                                  (PolarityRules(red_sudden_death=False, red_moved_loses=False), False)])
def test_r14_lookahead_values_a_red_touch_as_a_loss_only_where_it_ends_the_game(rules, red_is_a_loss):
    from rules.polarity.strategies import LOSS, trial_value

    touch = Resolution(faults=["r"], red_touched=True, action="fault")
    knocked = Resolution(faults=["a"], returned=[4], action="fault")
    assert (trial_value(touch, rules) == LOSS) is red_is_a_loss
    if not red_is_a_loss:  # an ordinary fault, no worse than one that loses a disc
        assert trial_value(touch, rules) > trial_value(knocked, rules)
    assert trial_value(None, rules) == LOSS


@pytest.mark.parametrize("name", sorted(GAME.strategies))
def test_strategies_are_deterministic_for_their_stream(name):
    bodies = [RED, disc(1, 100, 0, W), disc(2, -90, 30, W), disc(3, 0, 100, B)]
    a = make(name).act(view_of(bodies), np.random.default_rng(7))
    b = make(name).act(view_of(bodies), np.random.default_rng(7))
    assert a == b


def test_cautious_does_not_lean_out_over_the_circles_edge():
    bodies = [RED, disc(1, 180, 0, W), disc(3, -150, 0, B)]
    act = make("cautious:n_azimuths=32").act(view_of(bodies), np.random.default_rng(0))
    assert math.cos(act.azimuth) < 0.5  # not outward, where the leaner would leave the circle


def test_r14_a_leaner_that_would_drag_a_disc_into_the_red_disc_has_no_red_margin():
    from rules.polarity import clearance

    host = disc(1, 160, 0, W)
    alone = clearance.margins([RED, host], host, math.pi, W, 0.225)
    near_red = clearance.margins([RED, host, disc(3, 70, 0, B)], host, math.pi, W, 0.225)
    assert alone[1] > 0.02  # the leaner's centre is 112 mm from red, beyond its 78 mm reach
    assert near_red[0] < 0 and near_red[1] < 0  # it would snap onto a disc 70 mm from red


def test_r10_r14_cautious_puts_a_captured_tower_away_from_leaners_and_the_red_disc():
    from rules.polarity import clearance

    bodies = [RED, disc(1, 150, 0, W), disc(5, 100, 30, B, "leaning"), disc(3, -150, 0, B), disc(8, 0, -150, B),
              disc(9, 0, 170, W)]
    v = view_of(bodies)
    group = FaultGroup(0, (8,))
    for seed in range(5):
        x, y = make("cautious").capture_spot(v, group, np.random.default_rng(seed))
        others = [b for b in bodies if b.id != 8]
        disc_margin, red_margin = clearance.spot_margin(others, x, y, red_gap=clearance.REACH_ATTRACT)
        assert math.hypot(x - 0.100, y - 0.030) > clearance.REACH_LEANER  # not pulling the leaner over
        assert disc_margin > 0 and red_margin > 0, (seed, x, y)


def _tower(first_id, x_mm, y_mm, n, up):
    return [disc(first_id + k, x_mm, y_mm, up, "stacked", tower=first_id, z_mm=3.0 + 6.0 * k) for k in range(n)]


def test_r10_spot_margin_keeps_a_tower_beyond_the_reach_of_a_larger_one():
    """Measured on the core: a 2-disc tower set down up to 65 mm from an 8-disc tower
    snaps or moves it (clearance docstring); the larger stack sets the reach."""
    from rules.polarity import clearance

    big = _tower(10, 0, 0, 8, B)
    reach = clearance.FOUNDATION_GAP * 8 ** 0.25
    for size in (1, 2, 4):
        assert clearance.spot_margin(big, 0.065, 0.0, size=size)[0] < 0
        assert clearance.spot_margin(big, reach - 0.001, 0.0, size=size)[0] < 0
        assert clearance.spot_margin(big, reach + 0.001, 0.0, size=size)[0] > 0
    lone = [disc(10, 0, 0, B)]
    assert clearance.spot_margin(lone, 0.065, 0.0, size=2)[0] > 0   # one disc reaches 50 mm x 2^(1/4)


def core_that_balances_nowhere_on(*hosts, calls=None):
    """A ``View.nominal`` like the engine's: the lone-host distance, and no balance off ``hosts``."""
    def nominal(host, azimuth, tilt):
        if calls is not None:
            calls.append(host)
        return 0.056, tilt, host not in hosts
    return nominal


@pytest.mark.parametrize("name", ["random", "cautious", "aggressive", "converter", "capturer"])
def test_r4_strategies_aim_at_the_base_distance_and_tilt_the_core_balanced_at(name):
    # the core found its balance 10 degrees steeper than asked: the leaner is aimed there
    bodies = [RED, disc(1, 60, 120, W), disc(2, -150, -40, W), disc(3, 150, 100, B)]
    steeper = lambda host, azimuth, tilt: (0.031, tilt + math.radians(10.0), True)  # noqa: E731
    act = make(name).act(view_of(bodies, nominal=steeper), np.random.default_rng(0))
    assert isinstance(act, Place) and act.base_distance == 0.031
    assert act.tilt == pytest.approx(math.radians(55.0))


@pytest.mark.parametrize("name", ["cautious", "aggressive", "converter", "capturer"])
def test_r5_strategies_pass_over_a_host_no_leaner_balances_on(name):
    # whichever host the strategy would play, if nothing balances off it (a leaner there
    # is flung over at every try, like off a tall tower) it plays the other one
    bodies = [RED, disc(1, 60, 120, W), disc(2, -150, -40, W), disc(3, 150, 100, B), disc(4, 100, 160, B)]
    for seed in range(3):
        first = make(name).act(view_of(bodies), np.random.default_rng(seed)).host
        no_balance = view_of(bodies, nominal=core_that_balances_nowhere_on(first))
        act = make(name).act(no_balance, np.random.default_rng(seed))
        assert isinstance(act, Place) and act.host == 3 - first and act.balanced, (name, seed)
        blind = make(f"{name}:skip_unbalanced=false").act(no_balance, np.random.default_rng(seed))
        assert blind.host == first and not blind.balanced, (name, seed)


def test_r5_a_strategy_plays_an_unbalanced_leaner_when_nothing_balances_within_its_tries():
    bodies = [RED, disc(1, 60, 120, W), disc(2, -150, -40, W), disc(3, 150, 100, B)]
    calls = []
    v = view_of(bodies, nominal=core_that_balances_nowhere_on(1, 2, calls=calls))
    act = make("cautious").act(v, np.random.default_rng(0))
    assert isinstance(act, Place) and not act.balanced and act.host in (1, 2)
    assert calls.count(1) == 2 and calls.count(2) == 2  # two directions a host, then passed over


@pytest.mark.parametrize("name", ["cautious", "aggressive", "capturer", "lookahead:budget=6:samples=1"])
def test_r7_convert_when_stuck_converts_its_leaner_instead_of_throwing_when_nothing_balances(name):
    # every host balances nothing (a throw would fall at each of R5's tries and give the
    # turn up); pushing its own leaner flat makes a new foundation instead
    bodies = [RED, disc(1, 60, 120, W), disc(2, -150, -40, W), disc(5, 60, 180, W, "leaning", leaning_on=1),
              disc(3, 150, 100, B), disc(6, 150, 160, B, "leaning", leaning_on=3)]
    trial = lambda place, rng, p: Resolution(action="placed")  # noqa: E731
    v = view_of(bodies, trial=trial, nominal=core_that_balances_nowhere_on(1, 2))
    act = make(f"{name}:convert_when_stuck=true").act(v, np.random.default_rng(0))
    assert isinstance(act, Convert) and act.leaner == 5
    throw = make(name).act(v, np.random.default_rng(0))  # the default throws (R5, then gave_up)
    assert isinstance(throw, Place) and not throw.balanced and throw.host in (1, 2)
    balanced = view_of(bodies, trial=trial, nominal=core_that_balances_nowhere_on(2))
    act = make(f"{name}:convert_when_stuck=true").act(balanced, np.random.default_rng(0))
    assert isinstance(act, Place) and act.balanced  # not stuck: it leans


def test_r5_lookahead_spends_no_trial_on_a_leaner_that_balances_nowhere():
    bodies = [RED] + [disc(i, 100 * math.cos(i), 100 * math.sin(i), W) for i in range(1, 6)] + [disc(9, 0, 190, B)]
    tried = {}
    for skip in ("true", "false"):
        calls = tried[skip] = []

        def trial(place, rng, p, calls=calls):
            calls.append(place)
            return Resolution(action="placed")

        v = view_of(bodies, trial=trial, nominal=core_that_balances_nowhere_on(1, 2))
        make(f"lookahead:budget=6:samples=1:skip_unbalanced={skip}").act(v, np.random.default_rng(0))
    assert len(tried["true"]) == 6 and all(c.balanced and c.host not in (1, 2) for c in tried["true"])
    assert {c.host for c in tried["false"]} & {1, 2}  # without it, trials went to hosts 1 and 2
