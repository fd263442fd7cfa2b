"""sim.detmath: elementary functions from + - * / and sqrt alone, so games
come out the same on every machine (see the module docstring)."""

from __future__ import annotations

import math
import os
import platform
import re
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest
from scipy import stats

from sim import detmath as dm
from sim.version import PHYSICS_VERSION

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNG = np.random.default_rng(20261201)


def worst_ulps(ours, reference, args) -> float:
    return max(abs(ours(*a) - reference(*a)) / math.ulp(abs(reference(*a))) for a in args)


@pytest.mark.parametrize("name, reference, args, ulps", [
    ("sin", math.sin, [(x,) for x in RNG.uniform(-60, 60, 5000) if abs(math.sin(x)) > 1e-3], 2),
    ("cos", math.cos, [(x,) for x in RNG.uniform(-60, 60, 5000) if abs(math.cos(x)) > 1e-3], 2),
    ("tan", math.tan, [(x,) for x in RNG.uniform(-1.5, 1.5, 5000)], 3),
    ("exp", math.exp, [(x,) for x in np.r_[RNG.uniform(-700, 700, 5000), RNG.uniform(-1, 1, 2000)]], 2),
    ("log", math.log, [(x,) for x in np.r_[np.exp(RNG.uniform(-700, 700, 5000)), RNG.uniform(0.5, 2, 2000)]
                       if abs(math.log(x)) > 1e-3], 3),
    ("atan2", math.atan2, list(zip(RNG.uniform(-10, 10, 5000), RNG.uniform(-10, 10, 5000))), 6),
    ("acos", math.acos, [(x,) for x in RNG.uniform(-1, 1, 5000)], 8),
    ("pow", math.pow, list(zip(RNG.uniform(1e-6, 10, 5000), RNG.uniform(-2, 2, 5000))), 32),
    ("sinh", math.sinh, [(x,) for x in np.r_[RNG.uniform(-10, 10, 5000), RNG.uniform(-0.6, 0.6, 2000)]], 3),
    ("asinh", math.asinh, [(x,) for x in RNG.uniform(0.5, 1000, 5000)], 4),
])  # fmt: skip
def test_elementary_functions_agree_with_the_c_library_to_a_few_ulps(name, reference, args, ulps):
    assert worst_ulps(getattr(dm, name), reference, args) <= ulps


def test_sincos_quadrants_and_small_angles_are_exact_where_the_c_library_is():
    for x in (0.0, 1e-300, 1e-9, -1e-9, 0.5 * math.pi, math.pi, -math.pi, 1.5 * math.pi, 100.0):
        s, c = dm.sincos(x)
        assert abs(s - math.sin(x)) <= 2 * math.ulp(max(abs(math.sin(x)), 1e-300)) + 1e-300
        assert abs(c - math.cos(x)) <= 2 * math.ulp(abs(math.cos(x)))
    assert dm.sincos(0.0) == (0.0, 1.0)


@pytest.mark.parametrize("y, x", [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (1.0, 0.0), (-1.0, 0.0),
                                  (0.0, -1.0), (-0.0, -1.0), (1.0, 1.0), (-1.0, -1.0), (1e-300, -1.0)])
def test_atan2_signs_and_axes_match_the_c_library(y, x):
    ours, theirs = dm.atan2(y, x), math.atan2(y, x)
    assert abs(ours - theirs) <= 2 * math.ulp(abs(theirs)) if theirs else ours == theirs
    assert math.copysign(1.0, ours) == math.copysign(1.0, theirs)


def test_exp_and_log_edges():
    assert dm.exp(0.0) == 1.0 and dm.exp(800.0) == math.inf and dm.exp(-800.0) == 0.0
    assert dm.log(1.0) == 0.0 and dm.log(0.0) == -math.inf and math.isnan(dm.log(-1.0))
    assert dm.pow(2.0, 0.0) == 1.0 and dm.pow(4.0, 0.5) == 2.0


@pytest.mark.parametrize("n", [1, 2, 3, 8, 12, 32])
def test_gauss_legendre_matches_numpy_and_integrates_polynomials_exactly(n):
    nodes, weights = dm.gauss_legendre(n)
    ref_nodes, ref_weights = np.polynomial.legendre.leggauss(n)
    assert np.abs(nodes - ref_nodes).max() <= 4e-16 and np.abs(weights - ref_weights).max() <= 2e-15
    for degree in range(2 * n):  # exact up to degree 2n - 1
        exact = 0.0 if degree % 2 else 2.0 / (degree + 1)
        assert abs(float(np.sum(weights * nodes**degree)) - exact) <= 1e-14


def test_normals_are_standard_normal_and_use_two_uniforms_a_pair():
    z = dm.normals(np.random.default_rng(7), 100_000)
    assert stats.kstest(z, "norm").pvalue > 0.01
    assert abs(z.mean()) < 0.01 and abs(z.std() - 1.0) < 0.01
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    assert len(dm.normals(rng_a, 3)) == 3 and isinstance(dm.normals(rng_a), float)
    rng_b.random(6)
    assert rng_a.random() == rng_b.random()


def test_norm_and_hypot_are_plain_sums_of_squares():
    v = np.array([3e-3, -4e-3, 12e-3])
    assert dm.norm(v) == math.sqrt(3e-3 * 3e-3 + 4e-3 * 4e-3 + 12e-3 * 12e-3)
    assert dm.hypot(3.0, 4.0) == 5.0


# One placement next to a crowd and one short Polarity game, fingerprinted bit
# for bit (every pose, every turn and game column).
FINGERPRINT = """
import glob, hashlib, sys, tempfile
import numpy as np
import pyarrow.parquet as pq
from sim.api import World, nominal_intent, place_leaner
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

digest = hashlib.sha256()
w = World.new()
hosts = [w.add_flat(0.08 * k - 0.08, 0.02 * (k % 2), 1) for k in range(3)]
for k, host in enumerate(hosts):
    place_leaner(w, nominal_intent(w, host, 0.7 + 2.0 * k))
digest.update(np.ascontiguousarray(w.pos).tobytes() + np.ascontiguousarray(w.quat).tobytes())
exp = Experiment(game="polarity", variant="standard", seed=5, games=1, shard_size=1,
                 cells=(Cell(matchup=("cautious", "random"), overrides={"stack_size": 6, "foundations": 3}),))
with tempfile.TemporaryDirectory() as out:
    run_experiment(exp, out, workers=0)
    for table in ("games", "turns"):
        t = pq.read_table(glob.glob(f"{out}/*/{table}/*.parquet")[0])
        for name in sorted(set(t.column_names) - {"package_version", "physics_version"}):
            digest.update(name.encode() + repr(t[name].to_pylist()).encode())
print(digest.hexdigest())
"""


def _fingerprint(**env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", FINGERPRINT], cwd=ROOT, env={**os.environ, **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(proc: subprocess.Popen) -> str:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    return out.strip()


@lru_cache(maxsize=1)
def _default_fingerprint() -> str:
    return _result(_fingerprint())


def _numpy_simd_levels() -> list[str]:
    from numpy._core import _multiarray_umath as umath  # numpy is pinned; its dispatch table

    return [f for f in umath.__cpu_dispatch__ if umath.__cpu_features__.get(f)]


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="switches glibc's CPU-specific code off")
def test_games_do_not_depend_on_the_c_librarys_or_numpys_cpu_specific_code():
    """The same placements and game, bit for bit, with glibc's FMA/AVX2 builds of
    sin, cos, exp, log... switched off (what a machine without FMA runs) and with
    numpy's SIMD dispatch switched off (AVX-512 machines run other array sin/cos)."""
    runs = {"glibc_no_fma": _fingerprint(GLIBC_TUNABLES="glibc.cpu.hwcaps=-AVX2,-FMA")}
    levels = _numpy_simd_levels()
    if levels:
        runs["numpy_baseline"] = _fingerprint(NPY_DISABLE_CPU_FEATURES=" ".join(levels))
    prints = {"default": _default_fingerprint(), **{name: _result(proc) for name, proc in runs.items()}}
    assert len(set(prints.values())) == 1, prints


# What FINGERPRINT prints with this physics, recorded on an x86-64 AMD EPYC
# (AVX2, FMA, no AVX-512), Debian glibc 2.36, 2026-12-01. Every machine that
# runs the suite must print the same. Outcomes change with the physics
# version: then re-record with `.venv/bin/python tests/test_detmath.py`.
REFERENCE = {"physics_version": "0.6.0",
             "fingerprint": "145f92c931953ad850a549a350d05028d841ebebf3b1efca555968fe3f579bf1"}


def test_games_match_the_reference_fingerprint_of_this_physics_version():
    assert PHYSICS_VERSION == REFERENCE["physics_version"], "physics version changed: re-record REFERENCE"
    assert _default_fingerprint() == REFERENCE["fingerprint"]


C_LIBRARY_MATH = re.compile(
    r"\b(?:math|np|numpy)\.(?:sin|cos|tan|arcsin|arccos|arctan2?|asin|acos|atan2?|sinh|cosh|tanh|arcsinh|asinh|"
    r"exp|expm1|exp2|log|log1p|log2|log10|pow|power|hypot|cbrt)\(|\.normal\(|linalg\.norm\(|leggauss\("
)


def test_outcome_code_takes_its_elementary_functions_from_detmath():
    """sim/ and rules/ decide outcomes: a new math.cos or rng.normal there would
    make games depend on the machine again (the fingerprint test only sees the
    code paths it plays)."""
    offenders = []
    for package in ("sim", "rules"):
        for folder, _, files in os.walk(os.path.join(ROOT, package)):
            for name in files:
                path = os.path.join(folder, name)
                if not name.endswith(".py") or path.endswith(os.path.join("sim", "detmath.py")):
                    continue
                with open(path) as f:
                    for number, line in enumerate(f, 1):
                        code = line.split("#", 1)[0]
                        if C_LIBRARY_MATH.search(code):
                            offenders.append(f"{os.path.relpath(path, ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


if __name__ == "__main__":
    print(_default_fingerprint())
