"""Seeds: one run seed, one seed per game, one stream per purpose.

Game *i* of a run derives its seed from ``(run_seed, i)`` alone, so its
outcome never depends on shard size, worker count or scheduling. Within a
game every purpose (setup, each seat's decisions, each seat's hand noise, the
red flip, ...) draws from its own stream, derived from ``(game_seed,
purpose)``: a change that makes one stream draw more numbers leaves every
other stream untouched, which is what lets two runs be compared game by game.

Seeds are non-negative 63-bit integers so they fit a signed Parquet int64.
"""

from __future__ import annotations

import zlib

import numpy as np

_MASK63 = (1 << 63) - 1


def _to_int63(words: np.ndarray) -> int:
    return ((int(words[0]) << 32) | int(words[1])) & _MASK63


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``run_seed``."""
    if run_seed < 0 or index < 0:
        raise ValueError("run seed and game index must be non-negative")
    return _to_int63(np.random.SeedSequence([run_seed, index]).generate_state(2, np.uint32))


def purpose_key(purpose: str) -> int:
    """A stable 32-bit key for a stream's purpose name."""
    return zlib.crc32(purpose.encode("utf-8"))


def stream_seed(seed: int, purpose: str) -> int:
    """A 63-bit seed for one purpose's stream within a game."""
    return _to_int63(np.random.SeedSequence([seed, purpose_key(purpose)]).generate_state(2, np.uint32))


def stream(seed: int, purpose: str) -> np.random.Generator:
    """The numpy generator for one purpose's stream within a game."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, purpose_key(purpose)])))
