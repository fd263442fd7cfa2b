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

No kernel is passed as a first-class function value, so none needs numba's
C-callable wrapper (``no_cfunc_wrapper``; ~2 % of a cold compile, one
paired run).

Compile time: a cold compile of the kernels one standard game uses took
170-178 s in one process (session 57, numba 0.68.1; ``make run`` compiles
them in both workers at once). Under cProfile, numba's IR inlining of
``inline="always"`` calls was 40 % of the magnetic pair kernel's compile
(each inlined call copies the callee's IR and runs its passes again at every
call site, nested helpers once per site of their caller). Dropping every
``inline="always"`` compiled a game's kernels in 107 s but made the near
pair kernel and a lone placement 25-35 % slower (two runs each; a standard
game's replayed placements 3 and 33 % on average): LLVM does not inline
the larger helpers, and the per-point and per-pair ones were inlined for
measured gains (sim.integrate, Cost). Dropping it from the 3-vector helpers
alone (sim.magnetics_vec), which LLVM inlines anyway (``_dipole_pair``'s
optimised IR calls none of them): 174 -> 152 s, bit for bit, near pairs a
CPU second 192,000 against 199,000 (best of three runs each, alternating;
one build ranged 152,000-199,000 on this machine). A whole game's compile
after that, under cProfile: LLVM's optimisation and code generation ~30 %
(a callee's IR is linked into, and compiled again with, each caller),
lowering to LLVM IR ~17 %, IR inlining ~14 %, the CPython and C wrappers
~8 %, typing and numba's other passes the rest. ``NUMBA_OPT`` 1 or 2 did
not compile faster. Session 58: the near and multipole tiers' kernels
compile once each (``sim.magnetics._pair_work`` passes a run-time False, not
an omitted flag whose literal type was a second specialisation: the pair
kernel 27.9 -> 23.5 s side by side), and a run's first two workers split a
cold compile between them (``sim.warm``).
"""

from numba import njit


def kernel(fn=None, **options):
    """``@kernel`` or ``@kernel(inline="always")``: see the module docstring."""
    jit = njit(cache=True, fastmath=False, _nrt=False, no_cfunc_wrapper=True, **options)
    return jit if fn is None else jit(fn)
