"""Compile a game's kernels ahead of it, in two parts that run side by side.

With an empty compile cache the first Polarity game spends ~2 minutes in
numba before its first step (sim.jit, "Compile time"), and a run's workers
each compiled all of it at once (``make run``: two workers, the same
kernels, twice). Numba's cache is shared by the processes of one machine
and a compile looks there for each callee first, so two workers can split
the work instead: while one compiles the path every episode takes, the
other compiles what that path calls but does not build itself.

- ``compile_path``: lays a foundation in a small world, as a game's set-up
  does: the world's field table, the state checks, the magnetic pair kernel
  and the sleepers' references (``sim.forces.refresh_refs``), the episode
  loop (``sim.integrate.run``). The same Python calls as in a game, so the
  same signatures.
- ``compile_aside``: by signature, the step loop's kernels that need no
  magnetic field (contacts, the hand, compound bodies), then the ones that
  do but are off that path (the stacked discs' holds, the strategies'
  balance scans). The second group compiles the magnetic pair kernel again
  unless ``compile_path`` has cached it by then; measured, it still pays:
  without it the first games compile the scans themselves.

Each part is quick with a warm cache (it loads what it compiled before).
The signatures of ``ASIDE`` are written out by hand: one that drifts from
the step loop's call compiles a kernel no game uses and costs the time it
meant to save. ``tests/test_warm.py`` checks each against the signatures a
game compiles. ``benchmarks/bench_compile.py`` times the two parts side by
side.

Measured (session 58, ``python benchmarks/bench_compile.py``; MEASUREMENTS):
two processes on one empty cache, each playing ``make run``'s game 0, took
141.2 s; ``compile_path`` beside ``compile_aside`` took 93.8 and 66.7 s,
after which the same games compiled nothing (101.8 s in all); a later run,
on a slower spell: 147.3 s against 108.3 s. ``make run``
with an empty cache: 189 s before, 145 s after, one after the other;
128 s once the pair kernel's tiers compiled once each (sim.jit).
Giving ``compile_aside`` only the kernels that need no field (its first
group) saved nothing in two paired runs (139 s against 101-109 s with both
groups): the game then compiled the scans itself after its episodes. The
same split at the start of ``make test``'s two pytest workers did not make
the cold suite quicker (10 min 16 s against 9 min 36 s without, one run each),
so it is not used there.
"""

from __future__ import annotations

import numba
from numba import types

from sim import contact_forces, compound, holding
from sim import integrate as loop
from sim.balance import new_scan, scan_down, turned_balance
from sim.disturb import worst_ratio
from sim.episodes import lay_flat
from sim.fit import overlap
from sim.magnetics_table import no_table
from sim.world import World

f8, i8, b1 = types.float64, types.int64, types.boolean
F1, F2, F3 = (types.Array(types.float64, d, "C") for d in (1, 2, 3))
I1, I2 = (types.Array(types.int64, d, "C") for d in (1, 2))
U1, U2 = (types.Array(types.uint8, d, "C") for d in (1, 2))
S1, S2 = (types.Array(types.int8, d, "C") for d in (1, 2))
B1, B2 = (types.Array(types.boolean, d, "C") for d in (1, 2))
FIELD = numba.typeof(no_table())

# (kernel, the signature the step loop or a strategy calls it with), in compile order
NO_FIELD = (
    (loop.release_hand, (i8, U1, U1, F1, F2, F2, U2, U1, F2, b1, U1, U1, I1, U1)),
    (loop._contact_pair, (i8, i8, F2, F2, F2, U1, F2, F3, F3, I2, S2, B2, F1, i8, F2, F2, F1, F2, S1, F2,
                          U2, U2, U1, F1)),
    (contact_forces.pusher_contacts, (F1, F1, f8, i8, F2, F2, F2, F2, F1, F2, F2, F2)),
    (loop.hold_groups, (U1, U1, i8, I1, F2, F2, F2, F2, F2, F2, U1, F1, F2, F2, F2, F2, F3)),
    (loop.kick_groups, (I1, F2, F2, F2, F2, F2, F2, U1, F1, F2, F2, f8, F2, F3)),
    (compound.form_groups, (U1, U1, U1, i8, I1, F2, F2, F2, F2, F2, U2, F1, F2, F2, F2, F3, I1, F1, F2)),
)
FIELD_OFF_PATH = (
    (holding.stack_holds, (i8, F2, F2, F3, F1, U1, U1, F1, FIELD, F3, F3, U2, I1, F2, I1, i8)),
    (new_scan, (F1, f8, f8)),
    (scan_down, (F2, F2, F1, U1, i8, f8, f8, i8, f8, F1, FIELD, F1, F1, F1, B1, I1, b1, F1)),
    (overlap, (F2, F2, U1, F1, F1, f8, f8, f8)),
    (worst_ratio, (F2, F2, F1, U1, U1, F1, FIELD, F2, F1, f8, f8, F2, U1, I1, F2, F1)),
    (turned_balance, (F2, F2, F1, U1, i8, f8, f8, f8, i8, f8, F1, FIELD)),
)
ASIDE = NO_FIELD + FIELD_OFF_PATH


def compile_path() -> None:
    """Compile (or load) the kernels every episode runs: a red disc and one foundation laid."""
    world = World.new()
    world.add_flat(0.0, 0.0, 1, red=True)
    lay_flat(world, 0.1, 0.0, 1)


def compile_aside() -> None:
    """Compile (or load) ``ASIDE``'s kernels at their signatures."""
    for kernel, signature in ASIDE:
        kernel.compile(signature)
