"""Seeds depend on (run seed, index) and (game seed, purpose) alone."""

from __future__ import annotations

import numpy as np
import pytest

from pipelines import manifest as mf
from pipelines.spec import Cell, Experiment
from rules.seeds import game_seed, game_seeds, mix64, stream, stream_seed


def test_game_seed_is_a_pure_function_of_run_seed_and_index():
    assert game_seed(7, 3) == game_seed(7, 3)
    assert game_seed(7, 3) != game_seed(7, 4) != game_seed(8, 3)


@pytest.mark.parametrize("seeding", [1, 2])
def test_game_seeds_vectorised_equals_scalar(seeding):
    idx = np.arange(0, 5000, 7)
    for run_seed in (0, 123, 2**64 - 1):
        assert game_seeds(run_seed, idx, seeding).tolist() == [game_seed(run_seed, int(i), seeding) for i in idx]


def test_no_two_runs_share_a_game_seed():
    """200 run seeds of 1,000 games each: 200,000 distinct seeds (seeding 2)."""
    seeds = np.concatenate([game_seeds(s, np.arange(1000)) for s in range(200)])
    assert len(np.unique(seeds)) == len(seeds)


def test_seeding_1_gave_run_seed_s_game_i_the_seed_of_run_seed_i_plus_1_game_s_minus_1():
    """Why seeding 2 exists: XOR made the derivation symmetric, so run seeds 20 and 22 shared a game,
    and game s - 1 of every run seed s had one seed."""
    assert game_seed(20, 21, seeding=1) == game_seed(22, 19, seeding=1)
    assert len({game_seed(s, s - 1, seeding=1) for s in range(1, 50)}) == 1
    assert game_seed(20, 21) != game_seed(22, 19) and len({game_seed(s, s - 1) for s in range(1, 50)}) == 49


def test_a_spec_that_names_no_seeding_is_seeding_1_and_keeps_its_run_id():
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("fair", "fair")),), games=4, seed=9,
                     shard_size=4, seeding=1)
    spec = exp.model_dump(mode="json")
    del spec["seeding"]
    read = mf.experiment_of({"spec": spec, "run_id": "r"})
    assert read.seeding == 1 and read.default_run_id() == exp.default_run_id()
    assert "seeding" not in exp.identity() and exp.model_copy(update={"seeding": 2}).identity()["seeding"] == 2


def test_an_unknown_seeding_is_refused():
    with pytest.raises(ValueError, match="seeding"):
        game_seed(1, 0, seeding=3)
    with pytest.raises(ValueError, match="seeding 3 is not one this polsim knows"):
        Experiment(game="toy", variant="standard", cells=(Cell(matchup=("fair", "fair")),), games=4, seed=9,
                   shard_size=4, seeding=3)


def test_seeds_fit_signed_int64_and_do_not_collide():
    seeds = game_seeds(1, np.arange(200_000))
    assert seeds.min() >= 0 and len(np.unique(seeds)) == len(seeds)


def test_streams_of_different_purposes_are_independent():
    s = game_seed(5, 0)
    a, b = stream(s, "seat0").random(1000), stream(s, "seat1").random(1000)
    assert abs(np.corrcoef(a, b)[0, 1]) < 0.1
    assert stream_seed(s, "seat0") != stream_seed(s, "seat1")
    assert stream(s, "seat0").random() == stream(s, "seat0").random()


def test_mix64_is_a_bijection_on_a_sample():
    xs = list(range(10_000))
    assert len({mix64(x) for x in xs}) == len(xs)


def test_negative_seed_is_refused():
    with pytest.raises(ValueError):
        game_seed(-1, 0)
