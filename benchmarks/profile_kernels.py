"""Where the core's CPU goes inside its compiled code: perf samples, each named
after the numba function it fell in.

    .venv/bin/python benchmarks/profile_kernels.py --games 2
    .venv/bin/python benchmarks/profile_kernels.py --games 2 --seed 12 --rounds 2 --top 30 --json out.json
    .venv/bin/python benchmarks/profile_kernels.py --games 3 --seed 11 --rounds 5 --clean
    .venv/bin/python benchmarks/profile_kernels.py --games 3 --seed 11 --rounds 3 --clean --lines 40

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
``sim/jit.py``).

``--lines N`` also names the N source lines that hold the most samples. The
core is then compiled with ``NUMBA_DEBUGINFO=1`` and ``addr2line`` reads each
sample's line from the object code's line table (``sample_lines``). Numba
inlines ``inline="always"`` helpers before LLVM sees them, and its line table
then gives the helper's line number under the caller's file; ``Sources``
finds the file again among the caller and the helpers it inlines (every
candidate is shown when more than one has code on that line). Debug info
also changes the code a little (numba leaves ``min``/``max`` as calls, ~3 %
of a clean placement's samples): the function shares of a ``--lines`` run
are its own build's, close to but not those of the plain one.

Needs ``perf`` (Debian: linux-perf) and ``nm`` (binutils; ``--lines`` also
``addr2line`` and ``objdump``) on PATH, and a ``kernel.perf_event_paranoid``
that lets a user sample its own processes (2 or less). A benchmark's
companion, not a target.
"""

from __future__ import annotations

import argparse
import ast
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
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

NEEDS = {"perf": "install linux-perf (Debian) or your distribution's perf",
         "nm": "install binutils"}
NEEDS_LINES = {"addr2line": "install binutils", "objdump": "install binutils"}
ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "rules")          # the compiled core's source folders


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

    def __init__(self, ranges: list[tuple[int, int, str]], objects: dict[int, tuple[str, int]] | None = None):
        self.ranges = sorted(set(ranges))
        self.starts = [r[0] for r in self.ranges]
        self.objects = objects or {}        # a range's start -> (its object file, its offset there)

    def find(self, address: int) -> tuple[int, int, str] | None:
        k = bisect.bisect_right(self.starts, address) - 1
        if k >= 0 and address < self.ranges[k][1]:
            return self.ranges[k]
        return None

    def name(self, address: int) -> str | None:
        found = self.find(address)
        return found[2] if found else None


def numba_ranges(keep: str | None = None) -> Ranges:
    """Address ranges of every function of every numba library compiled in this
    process. ``keep``: a folder to leave each library's object code in; the
    ranges then also say which file and offset each function starts at
    (``Ranges.objects``, for ``sample_lines``)."""
    import gc

    from numba.core.registry import CPUDispatcher

    ranges, objects, seen = [], {}, set()
    with tempfile.TemporaryDirectory() as tmp:
        folder = keep or tmp
        for obj in gc.get_objects():
            if not issubclass(type(obj), CPUDispatcher):    # not isinstance: a dead weakproxy raises
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
                path = os.path.join(folder, f"{len(seen)}.o")
                Path(path).write_bytes(code)
                listing = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True).stdout
                functions = nm_functions(listing)
                placed = locate(functions, library.get_pointer_to_function, cres.fndesc.llvm_func_name)
                ranges += placed
                offset_of = {name: offset for offset, _, name in functions}
                for start, _, name in placed:
                    objects[start] = (path, offset_of[name])
    return Ranges(ranges, objects)


def script_samples(perf_script: str) -> list[tuple[int, str]]:
    """(ip, perf's symbol) of every ``perf script -F ip,sym`` line ("<hex ip> <symbol>")."""
    out = []
    for line in perf_script.splitlines():
        fields = line.split(None, 1)
        if not fields:
            continue
        try:
            ip = int(fields[0], 16)
        except ValueError:
            continue
        out.append((ip, fields[1].strip() if len(fields) > 1 else "[unknown]"))
    return out


def count_samples(perf_script: str, ranges: Ranges) -> Counter:
    """Samples per function: numba's by ``ranges``, the others by perf's name."""
    counts = Counter()
    for ip, symbol in script_samples(perf_script):
        name = ranges.name(ip)
        counts[demangle(name) if name else symbol] += 1
    return counts


def code_section(path: str) -> str:
    """The section an object file's code is in: numba's x86-64 code uses the large
    code model (``.ltext``), elsewhere ``.text``."""
    headers = subprocess.run(["objdump", "-h", path], capture_output=True, text=True).stdout
    return ".ltext" if re.search(r"^\s*\d+\s+\.ltext\s+0*[1-9a-f]", headers, re.M) else ".text"


def parse_addr2line(text: str) -> dict[int, tuple[str, int | None]]:
    """``addr2line -a -f -i`` output -> {offset: (symbol, line)} of each address's
    first frame, the innermost (``?`` lines are None)."""
    out: dict[int, tuple[str, int | None]] = {}
    rows, current, k = text.splitlines(), None, 0
    while k < len(rows):
        if rows[k].startswith("0x"):
            current, k = int(rows[k], 16), k + 1
            continue
        if current is not None and current not in out and k + 1 < len(rows):
            number = rows[k + 1].split(" ")[0].rpartition(":")[2]   # "file:12 (discriminator 2)"
            out[current] = (rows[k], int(number) if number.isdigit() else None)
        k += 2
    return out


@dataclass(frozen=True)
class Def:
    path: str                  # relative to the repository
    start: int                 # its def line
    body: int                  # its body's first line
    end: int
    doc: tuple[int, int]       # its docstring's lines, (0, 0) if none
    inline: bool               # decorated with inline="always"
    calls: frozenset           # the bare names it calls


def _inline_always(node: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Call) and any(k.arg == "inline" and getattr(k.value, "value", None) == "always"
                                               for k in d.keywords) for d in node.decorator_list)


def _docstring(node: ast.FunctionDef) -> tuple[int, int]:
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.lineno, first.end_lineno
    return 0, 0


class Sources:
    """Where a sampled line can come from. Numba inlines an ``inline="always"``
    helper into its caller before LLVM compiles it, and the line table then
    keeps the caller's file with the helper's line number: the line is looked
    for in the compiled function's own source and in every such helper it
    inlines, transitively (a bare name called is followed to the function it
    names in that module: its own or one it imports with ``from ... import``)."""

    def __init__(self, root: Path = ROOT, packages: tuple[str, ...] = PACKAGES):
        self.defs: dict[tuple[str, str], Def] = {}         # (path, name) -> its definition
        self.names: dict[str, dict[str, str]] = {}         # path -> {name used there: path defining it}
        self.text: dict[str, list[str]] = {}
        for package in packages:
            for path in sorted((root / package).rglob("*.py")):
                rel = path.relative_to(root).as_posix()
                source = path.read_text()
                self.text[rel] = source.splitlines()
                tree = ast.parse(source)
                names = self.names[rel] = {}
                for node in tree.body:
                    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                        for alias in node.names:
                            names[alias.asname or alias.name] = node.module.replace(".", "/") + ".py"
                for node in ast.walk(tree):
                    if isinstance(node, ast.FunctionDef):
                        names.setdefault(node.name, rel)
                        calls = frozenset(c.func.id for c in ast.walk(node)
                                          if isinstance(c, ast.Call) and isinstance(c.func, ast.Name))
                        self.defs.setdefault((rel, node.name), Def(rel, node.lineno, node.body[0].lineno, node.end_lineno,
                                                                   _docstring(node),
                                                                   _inline_always(node), calls))

    def _is_code(self, d: Def, line: int, own: bool) -> bool:
        """Line ``line`` is code of ``d``: its body's (its signature's too if ``own``,
        the compiled function itself, whose prologue the signature's lines name)."""
        first = d.start if own else d.body
        if not (first <= line <= d.end) or d.doc[0] <= line <= d.doc[1]:
            return False
        text = self.text[d.path][line - 1].strip()
        return bool(text) and not text.startswith("#")

    def candidates(self, function: str, line: int) -> list[str]:
        """``path:line`` of every place line ``line`` of compiled ``function``
        (dotted, as ``demangle`` gives it) can be: its own, or an inlined helper's."""
        module, _, name = function.rpartition(".")
        root = (module.replace(".", "/") + ".py", name)
        todo = [root]
        seen, found = set(), set()
        while todo:
            where = todo.pop()
            d = self.defs.get(where)
            if d is None or where in seen:
                continue
            seen.add(where)
            if self._is_code(d, line, where == root):
                found.add(f"{d.path}:{line}")
            for callee in d.calls:
                target = (self.names[d.path].get(callee), callee)
                if target in self.defs and self.defs[target].inline:
                    todo.append(target)
        return sorted(found)

    def show(self, function: str, line: int | None) -> tuple[str, str]:
        """(where, the source text there) of a sample's line; each candidate's if it is not one."""
        if line is None:
            return "(no line)", ""
        where = self.candidates(function, line)
        if not where:
            return f"line {line}", ""
        texts = [self.text[w.rpartition(":")[0]][line - 1].strip() for w in where]
        return " | ".join(where), " | ".join(texts)


def sample_lines(ips: list[int], ranges: Ranges) -> Counter:
    """Samples per (compiled function, source line) at the instruction pointers
    ``ips``, read with ``addr2line`` from the object code ``numba_ranges(keep=...)``
    left (compiled with debug info; functions without it count with line None)."""
    in_object: dict[str, list[int]] = defaultdict(list)
    for ip in ips:
        found = ranges.find(ip)
        if found and found[0] in ranges.objects:
            path, offset = ranges.objects[found[0]]
            in_object[path].append(offset + ip - found[0])
    counts = Counter()
    for path, offsets in in_object.items():
        unique = sorted(set(offsets))
        listing = subprocess.run(["addr2line", "-e", path, "-j", code_section(path), "-a", "-f", "-i",
                                  *map(hex, unique)], capture_output=True, text=True).stdout
        where = parse_addr2line(listing)
        for offset in offsets:
            symbol, line = where.get(offset, ("?", None))
            counts[(demangle(symbol), line)] += 1
    return counts


def line_table(counts: Counter, total: int, top: int, sources: Sources) -> list[dict]:
    """The ``top`` lines of ``sample_lines``' counts, each with its share of all
    ``total`` samples and where ``sources`` places it."""
    rows = []
    for (function, line), c in counts.most_common(top):
        where, text = sources.show(function, line)
        rows.append({"function": function, "line": line, "where": where, "source": text,
                     "samples": c, "share": round(c / total, 4)})
    return rows


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
    ap.add_argument("--lines", type=int, default=0, metavar="N",
                    help="also the N source lines with the most samples (compiles with NUMBA_DEBUGINFO=1)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if args.games < 1 or args.rounds < 1 or args.top < 1 or args.lines < 0:
        ap.error("--games, --rounds and --top: at least 1; --lines: 0 or more")
    for tool, how in {**NEEDS, **(NEEDS_LINES if args.lines else {})}.items():
        if shutil.which(tool) is None:
            ap.error(f"{tool} not found on PATH: {how}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(tmp, "numba")  # compiled afresh: object code to name
        if args.lines:
            os.environ["NUMBA_DEBUGINFO"] = "1"                     # before numba compiles anything
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
        ranges = numba_ranges(keep=tmp)
        counts = count_samples(script, ranges)
        out = {"episodes": len(episodes), "rounds": args.rounds, **table(counts, args.top)}
        if args.lines:
            ips = [ip for ip, _ in script_samples(script)]
            out["lines"] = line_table(sample_lines(ips, ranges), out["samples"], args.lines, Sources())
    print(f"{out['episodes']} episodes x {out['rounds']}: {out['samples']} samples, "
          f"{100 * out['compiled_share']:.1f} % in the compiled core")
    for row in out["functions"]:
        of_compiled = f"{100 * row['share_of_compiled']:6.1f}" if row["share_of_compiled"] is not None else "      "
        print(f"{100 * row['share']:6.1f} %  {of_compiled}  {row['function']}")
    if out.get("lines"):
        print("source lines (a debug-info build: see the module docstring)")
    for row in out.get("lines", []):
        print(f"{100 * row['share']:6.1f} %  {row['function']:34s} {row['where']}  {row['source'][:60]}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
