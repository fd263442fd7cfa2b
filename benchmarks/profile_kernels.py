"""Where the core's CPU goes inside its compiled code: perf samples, each named
after the numba function it fell in.

    .venv/bin/python benchmarks/profile_kernels.py --games 2
    .venv/bin/python benchmarks/profile_kernels.py --games 2 --seed 12 --rounds 2 --top 30 --json out.json
    .venv/bin/python benchmarks/profile_kernels.py --games 3 --seed 11 --rounds 5 --clean

``profile_polarity.py`` says which episodes a game's CPU goes to; this says
which compiled functions of the core it goes to while those episodes run
(the step loop, the magnetic kernel, the contacts...). perf alone cannot
say: numba's code lives in memory the JIT wrote, which has no symbols.

1. ``NUMBA_CACHE_DIR`` points at a new temporary folder before numba is
   imported: a function loaded from the compile cache keeps no object code to
   read its symbols from, so the core is compiled afresh (a minute or two);
2. the episodes of ``--games`` standard games are recorded
   (``replay_episodes.record``);
3. ``perf record`` samples this process while every episode (``--clean``:
   only the clean placements, ``clean_only``)
   is replayed ``--rounds`` times;
4. each numba library's object code is listed with ``nm``, and placed where
   the JIT loaded it by its ``cpython.`` entry wrapper, a symbol no other
   library defines, whose address the JIT engine gives (``locate``): every
   function of the library, callees linked into it included, gets its
   address range;
5. every sample is counted in the function whose range holds it (numba's
   specialisations of one function summed, ``demangle``); samples outside
   numba's code keep perf's own name (the interpreter, numpy, libc).

A function LLVM inlined counts in its caller (``inline="always"`` helpers,
``sim/jit.py``). Needs ``perf`` (Debian: linux-perf) and ``nm`` (binutils)
on PATH, and a ``kernel.perf_event_paranoid`` that lets a user sample its
own processes (2 or less). A benchmark's companion, not a target.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

NEEDS = {"perf": "install linux-perf (Debian) or your distribution's perf",
         "nm": "install binutils"}


def demangle(symbol: str) -> str:
    """``_ZN3sim9magnetics13_sampled_pairB4v519B40...E...`` -> ``sim.magnetics._sampled_pair``:
    the dotted path of a numba symbol (its specialisation and argument types dropped);
    entry wrappers keep their prefix (``cpython.sim.integrate.run``); anything else as is."""
    prefix = ""
    if symbol.startswith("cfunc."):
        prefix, symbol = "cfunc.", symbol[len("cfunc."):]
    if not symbol.startswith("_ZN"):
        return prefix + symbol
    parts, k = [], 3
    while k < len(symbol) and symbol[k].isdigit():
        digits = re.match(r"\d+", symbol[k:]).group()
        k += len(digits)
        parts.append(symbol[k:k + int(digits)])
        k += int(digits)
    return prefix + ".".join(parts) if parts else prefix + symbol


def nm_functions(nm_output: str) -> list[tuple[int, int, str]]:
    """(offset, size, name) of every function ``nm -S --defined-only`` lists (types t, T)."""
    out = []
    for line in nm_output.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in ("t", "T"):
            out.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    return out


def locate(functions: list[tuple[int, int, str]], address_of, entry: str = "") -> list[tuple[int, int, str]]:
    """(start, end, name) in memory of one library's functions, placed by its
    ``cpython.`` wrapper (``address_of(name)``: where the JIT loaded that symbol, 0 if
    nowhere), or for a library compiled only to be called from compiled code (no
    wrapper) by its ``entry`` function; [] if neither is there."""
    anchor = next(((offset, name) for offset, _, name in functions if name.startswith("_ZN7cpython")), None)
    if anchor is None:
        anchor = next(((offset, name) for offset, _, name in functions if name == entry), None)
    if anchor is None:
        return []
    base = address_of(anchor[1])
    if not base:
        return []
    shift = base - anchor[0]
    return [(shift + offset, shift + offset + size, name) for offset, size, name in functions if size > 0]


class Ranges:
    """Which function an address falls in (ranges that do not overlap)."""

    def __init__(self, ranges: list[tuple[int, int, str]]):
        self.ranges = sorted(set(ranges))
        self.starts = [r[0] for r in self.ranges]

    def name(self, address: int) -> str | None:
        k = bisect.bisect_right(self.starts, address) - 1
        if k >= 0 and address < self.ranges[k][1]:
            return self.ranges[k][2]
        return None


def numba_ranges() -> Ranges:
    """Address ranges of every function of every numba library compiled in this process."""
    import gc

    from numba.core.registry import CPUDispatcher

    ranges, seen = [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for obj in gc.get_objects():
            if not isinstance(obj, CPUDispatcher):
                continue
            for cres in obj.overloads.values():
                library = cres.library
                if id(library) in seen:
                    continue
                seen.add(id(library))
                try:
                    code = library._get_compiled_object()  # no public handle on a library's object code
                except Exception:  # noqa: BLE001 - loaded from a cache: nothing to name
                    continue
                path = os.path.join(tmp, f"{len(seen)}.o")
                Path(path).write_bytes(code)
                listing = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True).stdout
                ranges += locate(nm_functions(listing), library.get_pointer_to_function, cres.fndesc.llvm_func_name)
    return Ranges(ranges)


def count_samples(perf_script: str, ranges: Ranges) -> Counter:
    """Samples per function from ``perf script -F ip,sym`` lines ("<hex ip> <symbol>")."""
    counts = Counter()
    for line in perf_script.splitlines():
        fields = line.split(None, 1)
        if not fields:
            continue
        try:
            ip = int(fields[0], 16)
        except ValueError:
            continue
        name = ranges.name(ip)
        counts[demangle(name) if name else (fields[1].strip() if len(fields) > 1 else "[unknown]")] += 1
    return counts


def table(counts: Counter, top: int) -> dict:
    """Shares of all samples and of numba's (``sim.``/``rules.`` functions), largest first."""
    total = sum(counts.values())
    compiled = sum(c for name, c in counts.items() if name.startswith(("sim.", "rules.")))
    rows = [{"function": name, "samples": c, "share": round(c / total, 4),
             "share_of_compiled": round(c / compiled, 4) if name.startswith(("sim.", "rules.")) and compiled else None}
            for name, c in counts.most_common(top)]
    return {"samples": total, "compiled_share": round(compiled / total, 4) if total else 0.0, "functions": rows}


def clean_only(episodes) -> list:
    """The recorded placements that are clean by ``bench_physics.is_clean`` (settled
    leaning, nothing else disturbed: issue 3's typical placement, the definition its
    clean-placement figures use), each replayed once on a copy to read its episode."""
    from bench_physics import is_clean

    from rules.polarity.physics import core

    base = core()
    return [e for e in episodes
            if e[0] == "place_leaner" and is_clean(base.place_leaner(e[1].copy(), *e[2], **e[3]))]


def sample(episodes, rounds: int, data: str) -> None:
    """Replay the episodes ``rounds`` times under ``perf record``."""
    from rules.polarity.physics import core

    base = core()
    perf = subprocess.Popen(["perf", "record", "-F", "1999", "-p", str(os.getpid()), "-o", data],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)                                    # perf attaches
    if perf.poll() is not None:
        said = (perf.stderr.read().decode().strip().splitlines() or ["no message"])[-1]
        raise SystemExit(f"error: perf record failed ({said}); check kernel.perf_event_paranoid (2 or less)")
    for _ in range(rounds):
        for verb, world, args, kw, _played in episodes:
            getattr(base, verb)(world.copy(), *args, **kw)
    perf.send_signal(signal.SIGINT)
    perf.wait()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--strategies", default="cautious,aggressive", metavar="A,B")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--variant", default="standard")
    ap.add_argument("--rounds", type=int, default=1, metavar="N", help="replay every episode N times under perf")
    ap.add_argument("--top", type=int, default=25, metavar="N", help="functions shown")
    ap.add_argument("--clean", action="store_true",
                    help="only clean placements (bench_physics.is_clean: settled leaning, nothing disturbed)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if args.games < 1 or args.rounds < 1 or args.top < 1:
        ap.error("--games, --rounds and --top: at least 1")
    for tool, how in NEEDS.items():
        if shutil.which(tool) is None:
            ap.error(f"{tool} not found on PATH: {how}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba")  # compiled afresh: object code to name
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_polarity import specs
        from replay_episodes import record

        a, b = args.strategies.split(",")
        episodes = record(specs(a, b, args.games, args.seed, args.variant))
        if args.clean:
            episodes = clean_only(episodes)
            if not episodes:
                raise SystemExit("error: no clean placement in these games; play more (--games) or another --seed")
        data = os.path.join(tmp, "perf.data")
        sample(episodes, args.rounds, data)
        script = subprocess.run(["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True).stdout
        counts = count_samples(script, numba_ranges())
        out = {"episodes": len(episodes), "rounds": args.rounds, **table(counts, args.top)}
    print(f"{out['episodes']} episodes x {out['rounds']}: {out['samples']} samples, "
          f"{100 * out['compiled_share']:.1f} % in the compiled core")
    for row in out["functions"]:
        of_compiled = f"{100 * row['share_of_compiled']:6.1f}" if row["share_of_compiled"] is not None else "      "
        print(f"{100 * row['share']:6.1f} %  {of_compiled}  {row['function']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
