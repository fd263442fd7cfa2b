"""How polsim's numba cores are compiled: ``kernel``, ``njit`` for their inner functions.

The physics step loop (sim/) and Polar's game core (rules/polar/) are kernels.

A kernel is cached on disk, keeps strict IEEE arithmetic (no fastmath: results
are bit-reproducible) and runs without numba's reference counting (NRT): it
reads and writes the arrays it is given (row views of them too) and
allocates, copies into a slice or returns no array.

Why: with NRT on, every non-inlined call increments and decrements the
reference count of each array argument (an atomic ``lock incq``/``lock decq``
on the array's MemInfo, twice per argument per call), and the step loop's
kernels take ten to thirty arrays and run per pair and per contact point.
perf over a standard game (cautious vs aggressive, game seed 11): 41 % of
the game's CPU samples sat in ``NRT_incref``/``NRT_decref``; with the kernels
compiled without NRT the same game, bit for bit, took 5.1 instead of 7.8 CPU s.
Polar's core (random vs random, 9x9, turns recorded) spent 55 % in them:
34,500 -> 61,000 games a CPU second, the same games.

A function that needs NRT (it allocates, fills a slice or returns a slice)
and is called from a kernel must say ``_nrt=True``: numba otherwise compiles
a callee with its caller's setting, and refuses ("NRT required but not
enabled") when it meets the slice.
"""

from numba import njit


def kernel(fn=None, **options):
    """``@kernel`` or ``@kernel(inline="always")``: see the module docstring."""
    jit = njit(cache=True, fastmath=False, _nrt=False, **options)
    return jit if fn is None else jit(fn)
