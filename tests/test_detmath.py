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
from numba import njit
from numba.extending import register_jitable
from scipy import stats
from typer.testing import CliRunner

from pipelines import selfcheck
from pipelines.cli import app
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
    ("power", math.pow, list(zip(RNG.uniform(1e-6, 10, 5000), RNG.uniform(-2, 2, 5000))), 32),
    ("sinh", math.sinh, [(x,) for x in np.r_[RNG.uniform(-10, 10, 5000), RNG.uniform(-0.6, 0.6, 2000)]], 3),
    ("asinh", math.asinh, [(x,) for x in RNG.uniform(0.5, 1000, 5000)], 4),
])  # fmt: skip
def test_elementary_functions_agree_with_the_c_library_to_a_few_ulps(name, reference, args, ulps):
    assert worst_ulps(getattr(dm, name), reference, args) <= ulps


def test_sincos_within_two_ulp_at_quadrant_boundaries_and_tiny_angles():
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
    assert dm.power(2.0, 0.0) == 1.0 and dm.power(4.0, 0.5) == 2.0


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


@register_jitable
def _values(x):
    s, c = dm.sincos(x)
    return (s, c, dm.tan(0.01 * x), dm.atan2(x, 0.7), dm.acos(x / 60.0), dm.exp(x), dm.log(abs(x) + 1e-3),
            dm.power(abs(x) + 1e-3, 0.37), dm.sinh(0.1 * x), dm.asinh(x), dm.atan(x))


@njit(cache=True)
def _compiled_values(xs):
    out = np.empty((xs.shape[0], 11))
    for i in range(xs.shape[0]):
        out[i] = _values(xs[i])
    return out


def test_compiled_and_python_calls_give_the_same_bits():
    xs = np.r_[RNG.uniform(-60, 60, 2000), RNG.uniform(-1e-3, 1e-3, 200), 0.0, -0.0]
    python = np.array([_values(x) for x in xs.tolist()])
    assert python.tobytes() == _compiled_values(xs).tobytes()


def test_norm_and_hypot_are_plain_sums_of_squares():
    v = np.array([3e-3, -4e-3, 12e-3])
    assert dm.norm(v) == math.sqrt(3e-3 * 3e-3 + 4e-3 * 4e-3 + 12e-3 * 12e-3)
    assert dm.hypot(3.0, 4.0) == 5.0


# pipelines.selfcheck's fingerprint: three leaner placements and a short
# Polarity game, every pose and every turn and game column, bit for bit.
FINGERPRINT = "from pipelines.selfcheck import fingerprint; print(fingerprint())"


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
    default = _default_fingerprint()  # first, alone: a cold compile cache is filled once, not three times
    runs = {"glibc_no_fma": _fingerprint(GLIBC_TUNABLES="glibc.cpu.hwcaps=-AVX2,-FMA")}
    levels = _numpy_simd_levels()
    if levels:
        runs["numpy_baseline"] = _fingerprint(NPY_DISABLE_CPU_FEATURES=" ".join(levels))
    prints = {"default": default, **{name: _result(proc) for name, proc in runs.items()}}
    assert len(set(prints.values())) == 1, prints


def test_games_match_the_reference_fingerprint_of_this_physics_version():
    """Every machine that runs the suite plays the games recorded on another."""
    result = selfcheck.SelfCheck(PHYSICS_VERSION, _default_fingerprint(), selfcheck.REFERENCE)
    assert result.comparable, result.message()
    assert result.matches, result.message()


def test_cli_selfcheck_passes_here_and_fails_with_exit_1_on_another_reference(monkeypatch):
    ok = CliRunner().invoke(app, ["selfcheck"])
    assert ok.exit_code == 0, ok.output
    assert "bit for bit" in ok.output
    monkeypatch.setattr(selfcheck, "REFERENCE", {**selfcheck.REFERENCE, "fingerprint": "0" * 64})
    bad = CliRunner().invoke(app, ["selfcheck"])
    assert bad.exit_code == 1
    assert "other games than the reference" in bad.output and "0000000000000000" in bad.output
    monkeypatch.undo()
    monkeypatch.setitem(selfcheck.CAPTURE_REFERENCE, PHYSICS_VERSION, "1" * 64)
    bad = CliRunner().invoke(app, ["selfcheck"])
    assert bad.exit_code == 1
    assert "other captures than the reference" in bad.output and "1111111111111111" in bad.output


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
