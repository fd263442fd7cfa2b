"""Seeds: one run seed, one seed per game, one stream per purpose.

Game *i* of a run derives its seed from ``(run_seed, i)`` alone, so its
outcome never depends on shard size, worker count or scheduling. Within a
game every purpose (setup, each seat's decisions, each seat's hand noise, the
red flip, ...) draws from its own stream, derived from ``(game_seed,
purpose)``: a change that makes one stream draw more numbers leaves every
other stream untouched, which is what lets two runs be compared game by game.

Derivation (seeding 2, polsim 0.31.0 on): the SplitMix64 generator
(Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014) started at ``mix(run_seed)``: game *i*'s seed is its (i+1)-th
output, ``mix(mix(run_seed) + i * GOLDEN)``, where ``mix(x)`` adds the odd
increment ``GOLDEN`` and applies the SplitMix64 finaliser (a bijection of
64-bit integers). Game *i* of run seed a and game *j* of run seed b share a
seed only if ``mix(a) - mix(b) = (j - i) * GOLDEN`` mod 2^64 (or their seeds
differ in the top bit alone, which the 63-bit mask drops): chance level,
some 2^-63 per pair of games. A purpose's seed is
``mix(game_seed ^ mix(crc32(purpose)))``. It costs well under a microsecond
(numpy's SeedSequence costs ~17 µs, which capped the fastest games), and the
vectorised ``game_seeds`` gives a whole batch at once with the same values.

Seeding 1 (every run before polsim 0.31.0, whose specs name no seeding) was
``mix(mix(run_seed) ^ mix(i + 1))``. XOR is symmetric, so run seed ``s``'s
game ``i`` was run seed ``i + 1``'s game ``s - 1``: any two run seeds a, b
>= 1 shared one game seed, and game ``s - 1`` of every run seed ``s`` >= 1
had the same seed, ``mix(0)``. It stays, so that those runs replay, resume
and regress as they were played.

Seeds are non-negative 63-bit integers so they fit a signed Parquet int64.
"""

from __future__ import annotations

import zlib

import numpy as np

_MASK64 = (1 << 64) - 1
_MASK63 = (1 << 63) - 1


def mix64(x: int) -> int:
    """The SplitMix64 finaliser: a bijection of 64-bit integers."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def _mix64_array(x: np.ndarray) -> np.ndarray:
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


SEEDING = 2  # today's derivation; 1 is the one runs made before polsim 0.31.0 used
SEEDING_1_SHARES = ("in runs made before polsim 0.31.0 two run seeds share game seeds (seed a's game b-1 is seed "
                    "b's game a-1, and game s-1 of every seed s has one seed)")  # for notes that count copies
SEEDINGS = (1, 2)
GOLDEN = 0x9E3779B97F4A7C15  # SplitMix64's increment (odd)


def _check(run_seed: int, index: int, seeding: int) -> None:
    if run_seed < 0 or index < 0:
        raise ValueError("run seed and game index must be non-negative")
    if seeding not in SEEDINGS:
        raise ValueError(f"seeding must be one of {SEEDINGS}, got {seeding}")


def game_seed(run_seed: int, index: int, seeding: int = SEEDING) -> int:
    """The seed of game ``index`` of a run seeded ``run_seed``."""
    _check(run_seed, index, seeding)
    start = mix64(run_seed & _MASK64)
    if seeding == 1:
        return mix64(start ^ mix64(index + 1)) & _MASK63
    return mix64((start + index * GOLDEN) & _MASK64) & _MASK63


def game_seeds(run_seed: int, indices: np.ndarray, seeding: int = SEEDING) -> np.ndarray:
    """``game_seed`` for many indices at once (int64 array, same values)."""
    indices = np.asarray(indices, dtype=np.int64)
    _check(run_seed, int(indices.min()) if indices.size else 0, seeding)
    start = np.uint64(mix64(run_seed & _MASK64))
    with np.errstate(over="ignore"):
        if seeding == 1:
            mixed = _mix64_array(start ^ _mix64_array(indices.astype(np.uint64) + np.uint64(1)))
        else:
            mixed = _mix64_array(start + indices.astype(np.uint64) * np.uint64(GOLDEN))
    return (mixed & np.uint64(_MASK63)).astype(np.int64)


def purpose_key(purpose: str) -> int:
    """A stable 32-bit key for a stream's purpose name."""
    return zlib.crc32(purpose.encode("utf-8"))


def stream_seed(seed: int, purpose: str) -> int:
    """A 63-bit seed for one purpose's stream within a game."""
    return mix64((seed & _MASK64) ^ mix64(purpose_key(purpose))) & _MASK63


def stream(seed: int, purpose: str) -> np.random.Generator:
    """The numpy generator for one purpose's stream within a game."""
    return np.random.Generator(np.random.PCG64(stream_seed(seed, purpose)))
