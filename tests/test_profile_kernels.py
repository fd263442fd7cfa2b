"""benchmarks/profile_kernels.py names perf's samples after numba's functions."""

import importlib
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
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


def test_addr2line_output_gives_each_address_its_innermost_frame_and_line(kernels):
    text = ("0x0000000000000010\n_ZN3sim1fB2v1E\n/repo/sim/a.py:12\n_ZN3sim1gB2v2E\n/repo/sim/b.py:40\n"
            "0x0000000000000024\n_ZN3sim1fB2v1E\n/repo/sim/a.py:13 (discriminator 2)\n"
            "0x0000000000000030\n_ZN3sim1fB2v1E\n??:0\n0x0000000000000031\n??\n??:?\n")
    assert kernels.parse_addr2line(text) == {0x10: ("_ZN3sim1fB2v1E", 12), 0x24: ("_ZN3sim1fB2v1E", 13),
                                              0x30: ("_ZN3sim1fB2v1E", 0), 0x31: ("??", None)}


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_line_is_found_in_the_inline_helpers_the_function_imports_and_not_elsewhere(kernels, tmp_path):
    _write(tmp_path / "pkg" / "__init__.py", "")
    _write(tmp_path / "pkg" / "helpers.py", (
        "from numba import njit\n"                    # 1
        "\n"                                          # 2
        "@njit(inline='always')\n"                    # 3
        "def near(x):\n"                              # 4
        "    '''a docstring'''\n"                     # 5
        "    y = x + 1\n"                             # 6
        "    # a comment\n"                           # 7
        "    return deeper(y)\n"                      # 8
        "\n"                                          # 9
        "@njit(inline='always')\n"                    # 10
        "def deeper(y):\n"                            # 11
        "    return y * 2\n"                          # 12
        "\n"                                          # 13
        "@njit\n"                                     # 14
        "def called(z):\n"                            # 15
        "    return z - 1\n"))                        # 16
    _write(tmp_path / "pkg" / "main.py", (
        "from pkg.helpers import near, called\n"      # 1
        "\n"                                          # 2
        "\n"                                          # 3
        "def run(a,\n"                                # 4
        "        b):\n"                               # 5
        "    c = near(a)\n"                           # 6
        "    d = called(b)\n"                         # 7
        "    return c + d\n"                          # 8
        "\n"                                          # 9
        "\n"                                          # 10
        "\n"                                          # 11
        "def unused(y):\n"                            # 12
        "    return y\n"))                            # 13
    sources = kernels.Sources(tmp_path, ("pkg",))
    assert sources.show("pkg.main.run", 7) == ("pkg/main.py:7", "d = called(b)")   # not the helper's comment
    assert sources.candidates("pkg.main.run", 6) == ["pkg/helpers.py:6", "pkg/main.py:6"]
    assert sources.candidates("pkg.main.run", 4) == ["pkg/main.py:4"]        # its own signature: its prologue
    assert sources.candidates("pkg.main.run", 12) == ["pkg/helpers.py:12"]   # inlined twice over
    assert sources.show("pkg.main.run", 8) == ("pkg/helpers.py:8 | pkg/main.py:8", "return deeper(y) | return c + d")
    assert sources.candidates("pkg.main.run", 5) == ["pkg/main.py:5"]        # not the helper's docstring
    assert sources.candidates("pkg.main.run", 16) == []                      # ``called`` is a call, not inlined
    assert sources.candidates("pkg.main.run", 13) == []                      # nothing inlines ``unused``
    assert sources.candidates("pkg.helpers.deeper", 11) == ["pkg/helpers.py:11"]
    assert sources.show("pkg.main.run", 16) == ("line 16", "")
    assert sources.show("pkg.main.run", None) == ("(no line)", "")


@pytest.mark.skipif(any(shutil.which(tool) is None for tool in ("nm", "addr2line", "objdump")),
                    reason="binutils (nm, addr2line, objdump) is not installed")
def test_samples_in_a_function_compiled_with_debug_info_are_named_after_its_source_lines(kernels, tmp_path):
    import inspect

    @njit(cache=False, debug=True)
    def triple_sum(xs):
        total = 0.0
        for x in xs:
            total += 3.0 * x
        return total

    assert triple_sum(np.ones(4)) == 12.0
    cres = next(iter(triple_sum.overloads.values()))
    start = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    ranges = kernels.numba_ranges(keep=str(tmp_path))
    found = ranges.find(start)
    assert found is not None and found[0] in ranges.objects
    counts = kernels.sample_lines(list(range(found[0], found[1])), ranges)
    first = inspect.getsourcelines(triple_sum.py_func)[1]
    lines = {line for (function, line), _ in counts.items() if function.endswith("triple_sum") and line}
    assert lines and all(first <= line <= first + 5 for line in lines)
    assert first + 4 in lines                                   # the loop's body
    assert sum(counts.values()) == found[1] - found[0]


def test_a_negative_line_count_is_a_usage_error(kernels, capsys):
    with pytest.raises(SystemExit) as stop:
        kernels.main(["--lines", "-1"])
    assert stop.value.code == 2
    assert "--lines: 0 or more" in capsys.readouterr().err
