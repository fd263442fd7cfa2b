"""Magnetic pair evaluations per second on one core, by distance class.

Poses are drawn from a seeded generator: random axes, centre offsets at a
magnet gap (edge-to-edge for side-by-side-like directions) in each class:
near (< 1 diameter apart at the surfaces, including the fine, medium and coarse
tiers), mid (1-4 diameters) and far (> 10 diameters, point dipoles).  Each
class is timed inside a numba loop after a warm-up, best of several repeats,
with the source field read from its table (what the physics uses) and in
closed form at every point (``field_table=False``).

Run: ``.venv/bin/python benchmarks/bench_magnetics.py``
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from sim.magnetics import pair_force_torque
from sim.magnetics_table import field_table, no_table

RADIUS = 0.0125
THICKNESS = 0.004
BR = 0.39
SEED = 20261129
N_POSES = 256

# centre distance ranges (m) per class; the magnets overlap below ~ 2·radius
# side by side and ~ thickness coaxially, so near poses are rejected when they
# would overlap (see _poses)
CLASSES = {
    "near_contact": (0.0005, 0.0015),   # magnet gap, fine tier
    "near_shell": (0.002, 0.007),       # magnet gap at shell contact: medium tier
    "near": (0.0005, 0.025),            # magnet gap below one diameter
    "mid": (0.025, 0.1),                # magnet gap 1-4 diameters
    "far": (0.25, 0.45),                # centre distance beyond 10 diameters
}


def _unit(rng, n):
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1)[:, None]


def _poses(kind, rng):
    """(ci, ni, cj, nj) arrays [N_POSES, 3]; the gap is the smaller of the kernel's
    two edge gaps (rim circles of one magnet to the faces of the other)."""
    from sim.edge_gap import edge_gap

    lo, hi = CLASSES[kind]
    ci = np.zeros((N_POSES, 3))
    ni = _unit(rng, N_POSES)
    nj = _unit(rng, N_POSES)
    cj = np.zeros((N_POSES, 3))
    for k in range(N_POSES):
        target = rng.uniform(lo, hi)
        direction = _unit(rng, 1)[0]
        if kind == "far":
            cj[k] = target * direction
            continue
        # walk out along the direction until the edge gap reaches the target gap
        dist = 2.0 * RADIUS + target
        for _ in range(60):
            cj[k] = dist * direction
            gap = min(edge_gap(ci[k], ni[k], cj[k], nj[k], RADIUS, 0.5 * THICKNESS),
                      edge_gap(cj[k], nj[k], ci[k], ni[k], RADIUS, 0.5 * THICKNESS))
            dist += target - gap
    return ci, ni, cj, nj


@njit  # not cached: numba does not see changes in the kernel's modules
def _run(ci, ni, cj, nj, repeats, table, out):
    total = 0.0
    for _ in range(repeats):
        for k in range(ci.shape[0]):
            pair_force_torque(ci[k], ni[k], cj[k], nj[k], 0.0125, 0.004, 0.39, 0.39, table, out)
            total += out[0]
    return total


def measure(repeats=5, min_seconds=0.3) -> dict:
    """Pair evaluations per second (and µs per pair) for each class, best of
    `repeats`; ``<class> closed form``: the same poses without the table."""
    rng = np.random.default_rng(SEED)
    out = np.empty(9)
    result = {}
    table = field_table(RADIUS, 0.5 * THICKNESS)
    runs = []
    for kind in CLASSES:
        poses = _poses(kind, rng)
        runs += [(kind, poses, table), (f"{kind} closed form", poses, no_table())]
    for kind, (ci, ni, cj, nj), table in runs:
        _run(ci, ni, cj, nj, 1, table, out)       # warm-up (compilation)
        loops = 1
        while True:
            t0 = time.process_time()
            _run(ci, ni, cj, nj, loops, table, out)
            if time.process_time() - t0 >= min_seconds / repeats:
                break
            loops *= 2
        best = np.inf
        for _ in range(repeats):
            t0 = time.process_time()
            _run(ci, ni, cj, nj, loops, table, out)
            best = min(best, (time.process_time() - t0) / (loops * N_POSES))
        result[kind] = {"pairs_per_second": 1.0 / best, "us_per_pair": best * 1e6}
    return result


if __name__ == "__main__":
    for kind, row in measure().items():
        print(f"{kind:25s} {row['pairs_per_second']:>12,.0f} pairs/s  {row['us_per_pair']:8.3f} µs/pair")
