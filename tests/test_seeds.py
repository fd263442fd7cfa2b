"""Seeds depend on (run seed, index) and (game seed, purpose) alone."""

from __future__ import annotations

import numpy as np
import pytest

from rules.seeds import game_seed, game_seeds, mix64, stream, stream_seed


def test_game_seed_is_a_pure_function_of_run_seed_and_index():
    assert game_seed(7, 3) == game_seed(7, 3)
    assert game_seed(7, 3) != game_seed(7, 4) != game_seed(8, 3)


def test_game_seeds_vectorised_equals_scalar():
    idx = np.arange(0, 5000, 7)
    assert game_seeds(123, idx).tolist() == [game_seed(123, int(i)) for i in idx]


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
