"""benchmarks/bench_compile.py sums numba's nested compile events into whole and own seconds."""

import importlib
from pathlib import Path

import pytest


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return importlib.import_module("bench_compile")


def test_a_callee_compiled_inside_its_caller_counts_once_in_the_total_and_apart_in_own_seconds(bench):
    events = [("run", True, 0.0), ("step", True, 1.0), ("step", False, 3.0),
              ("kick", True, 4.0), ("kick", False, 5.0), ("run", False, 10.0),
              ("scan", True, 11.0), ("scan", False, 12.5)]
    total, own, count = bench.compile_seconds(events)
    assert total == 11.5
    assert own == {"run": 7.0, "step": 2.0, "kick": 1.0, "scan": 1.5}
    assert count == {"run": 1, "step": 1, "kick": 1, "scan": 1}


def test_a_function_compiled_twice_adds_both_compiles(bench):
    events = [("pair", True, 0.0), ("pair", False, 2.0), ("pair", True, 3.0), ("pair", False, 4.0)]
    total, own, count = bench.compile_seconds(events)
    assert (total, own, count) == (3.0, {"pair": 3.0}, {"pair": 2})


def test_events_out_of_order_or_unfinished_are_refused(bench):
    with pytest.raises(ValueError, match="out of order"):
        bench.compile_seconds([("a", True, 0.0), ("b", True, 1.0), ("a", False, 2.0)])
    with pytest.raises(ValueError, match="never ended"):
        bench.compile_seconds([("a", True, 0.0)])


def test_the_benchmark_plays_make_runs_experiment(bench):
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    run_line = next(line for line in makefile.splitlines() if "polsim simulate" in line)
    spec = bench.MAKE_RUN_SPEC
    cell = spec["cells"][0]
    for flag in (f"--game {spec['game']}", f"--variant {spec['variant']}", f"--games {spec['games']}",
                 f"--seed {spec['seed']}", f"--strategies {','.join(cell['matchup'])}",
                 *(f"--set {k}={v}" for k, v in cell["overrides"].items())):
        assert flag in run_line, flag
