"""benchmarks/profile_kernels.py names perf's samples after numba's functions."""

import importlib
import shutil
from collections import Counter
from pathlib import Path

import pytest
from numba import njit


@pytest.fixture
def kernels(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return importlib.import_module("profile_kernels")


def test_numba_symbols_demangle_to_their_dotted_path(kernels):
    assert kernels.demangle("_ZN3sim9magnetics13_sampled_pairB4v519B40c8tJTIeFIjxB2E8UniTupleIdLi3EE") == \
        "sim.magnetics._sampled_pair"
    assert kernels.demangle("_ZN7cpython3sim9integrate3runB4v800B38c8tE5ArrayIdLi2E") == "cpython.sim.integrate.run"
    assert kernels.demangle("cfunc._ZN3sim9integrate3runB4v800E") == "cfunc.sim.integrate.run"
    assert kernels.demangle("__memset_avx512_unaligned_erms") == "__memset_avx512_unaligned_erms"


def test_a_library_is_placed_by_its_python_wrapper_and_else_by_its_entry(kernels):
    listing = ("0000000000000000 0000000000000100 T _ZN3sim1fB2v1E\n"
               "0000000000000100 0000000000000040 t _ZN3sim1gB2v2E\n"
               "0000000000000140 0000000000000020 T _ZN7cpython3sim1fB2v1E\n"
               "0000000000000160 r .const.data\n"
               "00000000000001a0 0000000000000010 r .const.more\n")
    functions = kernels.nm_functions(listing)
    assert [name for _, _, name in functions] == ["_ZN3sim1fB2v1E", "_ZN3sim1gB2v2E", "_ZN7cpython3sim1fB2v1E"]
    placed = kernels.locate(functions, {"_ZN7cpython3sim1fB2v1E": 0x7000_0140}.get)
    assert placed[0] == (0x7000_0000, 0x7000_0100, "_ZN3sim1fB2v1E")
    ranges = kernels.Ranges(placed)
    assert ranges.name(0x7000_0120) == "_ZN3sim1gB2v2E"
    assert ranges.name(0x7000_0150) == "_ZN7cpython3sim1fB2v1E"
    assert ranges.name(0x7000_0160) is None and ranges.name(0x6fff_ffff) is None
    no_wrapper = functions[:2]
    assert kernels.locate(no_wrapper, {"_ZN3sim1gB2v2E": 0x9000_0100}.get, entry="_ZN3sim1gB2v2E")[0][0] == 0x9000_0000
    assert kernels.locate(no_wrapper, {}.get, entry="_ZN3sim1gB2v2E") == []
    assert kernels.locate(no_wrapper, {}.get) == []


def test_samples_are_counted_in_the_function_that_holds_them_and_outside_by_perf_s_name(kernels):
    ranges = kernels.Ranges([(0x1000, 0x1100, "_ZN3sim5steps4loopB2v1E"), (0x1100, 0x1180, "_ZN5rules5polar4coreE")])
    script = "1010 [unknown]\n10ff [unknown]\n1100 [unknown]\n7f00 _PyEval_EvalFrameDefault\n\nnot-an-ip x\n"
    counts = kernels.count_samples(script, ranges)
    assert counts == Counter({"sim.steps.loop": 2, "rules.polar.core": 1, "_PyEval_EvalFrameDefault": 1})
    out = kernels.table(counts, top=2)
    assert out["samples"] == 4 and out["compiled_share"] == 0.75
    assert [(r["function"], r["share"], r["share_of_compiled"]) for r in out["functions"]] == \
        [("sim.steps.loop", 0.5, round(2 / 3, 4)), ("rules.polar.core", 0.25, round(1 / 3, 4))]


def test_clean_placements_are_the_recorded_placements_bench_physics_calls_clean(kernels):
    from bench_physics import is_clean
    from replay_episodes import record

    from rules.base import GameSpec, StrategySpec
    from rules.polarity.model import PolarityRules
    from rules.polarity.physics import core
    from rules.seeds import game_seed

    rules = PolarityRules(stack_size=6, foundations=2, max_attempts=4)
    seats = (StrategySpec.parse("cautious"), StrategySpec.parse("random"))
    episodes = record([GameSpec(0, game_seed(5, 0), "standard", rules, seats)])
    clean = kernels.clean_only(episodes)
    base = core()
    verdicts = [e[0] == "place_leaner" and is_clean(base.place_leaner(e[1].copy(), *e[2], **e[3])) for e in episodes]
    assert [id(e) for e in clean] == [id(e) for e, ok in zip(episodes, verdicts) if ok]
    assert 0 < len(clean) < len(episodes)


@pytest.mark.skipif(shutil.which("nm") is None, reason="nm (binutils) is not installed")
def test_a_function_compiled_in_this_process_is_found_at_the_address_the_jit_gave_it(kernels):
    @njit(cache=False)
    def add_one(x):
        return x + 1

    assert add_one(1) == 2
    cres = next(iter(add_one.overloads.values()))
    address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    name = kernels.numba_ranges().name(address)
    assert name is not None and kernels.demangle(name).endswith("add_one")


@pytest.mark.parametrize("args", [["--rounds", "0"], ["--games", "0"], ["--top", "0"]])
def test_counts_below_one_are_a_usage_error(kernels, args, capsys):
    with pytest.raises(SystemExit) as stop:
        kernels.main(args)
    assert stop.value.code == 2
    assert "at least 1" in capsys.readouterr().err


def test_a_missing_perf_is_a_usage_error_that_says_what_to_install(kernels, monkeypatch, capsys):
    monkeypatch.setattr(kernels.shutil, "which", lambda tool: None if tool == "perf" else "/usr/bin/" + tool)
    with pytest.raises(SystemExit) as stop:
        kernels.main([])
    assert stop.value.code == 2
    assert "perf not found on PATH: install linux-perf" in capsys.readouterr().err
