"""Per-seat random streams inside numba: xoshiro256** seeded by splitmix64.

A stream's state is a ``uint64[4]`` array owned by one seat of one game; it
is seeded from ``rules.seeds.stream_seed(game_seed, "seat0" | "seat1")`` and
never shared, so a game's draws do not depend on the other games of a batch.
Numba's global ``np.random`` is never used. ``stream_seeds`` derives the
stream seeds of a whole batch at once, with the values of ``stream_seed``.

Sources: splitmix64 and xoshiro256** as published by Blackman and Vigna
(https://prng.di.unimi.it/), written here from the description.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.jit import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53
_MASK63 = np.uint64((1 << 63) - 1)


@kernel
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@kernel(inline="always")
def _finalise(z):
    """The splitmix64 output function (a bijection of 64-bit integers)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@kernel
def seed_stream(state, seed):
    """Fill ``state`` (uint64[4]) from a 63-bit seed with splitmix64."""
    x = np.uint64(seed)
    for i in range(4):
        x = x + _GOLDEN
        state[i] = _finalise(x)


@njit(cache=True)
def stream_seeds(game_seeds, purpose_mix):
    """``rules.seeds.stream_seed(seed, purpose)`` of every game seed at once.

    ``purpose_mix`` is ``rules.seeds.mix64(rules.seeds.purpose_key(purpose))`` as a uint64;
    each result is ``mix64(seed ^ purpose_mix)`` kept to 63 bits (``mix64`` is
    one splitmix64 step). int64 in, int64 out.
    """
    out = np.empty(game_seeds.shape[0], np.int64)
    key = np.uint64(purpose_mix)
    for g in range(game_seeds.shape[0]):
        out[g] = np.int64(_finalise((np.uint64(game_seeds[g]) ^ key) + _GOLDEN) & _MASK63)
    return out


@kernel
def next_u64(s):
    """The next 64-bit output of xoshiro256**; advances ``s`` in place."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@kernel
def uniform(s):
    """A float in [0, 1) with 53 random bits."""
    return float(next_u64(s) >> np.uint64(11)) * _TO_UNIT


@kernel
def below(s, n):
    """An int in [0, n) (n >= 1)."""
    k = int(uniform(s) * n)
    return k if k < n else n - 1
