"""Where numba keeps compiled code: one folder per user and per version.

``configure()`` points numba's on-disk cache at
``$POLSIM_CACHE_DIR`` or ``~/.cache/polsim/<polsim>-py<X.Y>-numba<N>-<src>/``
(a temporary folder when home is not writable, as on some cluster workers),
so a worker compiles each core once and versions never read each other's
machine code. It runs when ``sim`` or ``rules`` is imported, before any
jitted function is defined.

``<src>`` is a digest of the source of ``sim`` and ``rules``. Numba checks
only the stamp of the file that defines a cached function, not of the files
whose functions it calls (a kernel in ``sim/magnetics.py`` inlined into
``sim/integrate.py``): without the digest an edited kernel could keep
serving stale machine code, silently. Any source change starts a fresh cache.

Old folders are removed (``prune``): each process marks its own folder used
(its mtime) and then deletes the sibling version folders that are unused
for ``STALE_DAYS``, or that are not among the ``KEEP_RECENT`` most recently
used and unused for ``GRACE_S`` (a folder is ~100-200 MB, and every upgrade,
or every edit of ``sim`` or ``rules`` while developing, starts one). The
process that picks the folder marks it when it starts (a driver; the Ray
workers it starts inherit its ``NUMBA_CACHE_DIR`` and mark nothing), so a
folder is only taken from a run started over an hour ago while three newer
versions started since (a developer's edits), or over two weeks ago; its
compiled code is already loaded, so that run goes on. Only folders
named like ``<polsim>-py<X.Y>-numba<N>-<src>`` are touched; anything else
under the base folder stays.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
import time

STALE_DAYS = 14
KEEP_RECENT = 4
GRACE_S = 3600.0
TAG = re.compile(r"^[^/]+-py\d+\.\d+-numba[^/-]+-[0-9a-f]{12}$")


def _version_tag() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        polsim = version("polsim")
    except PackageNotFoundError:
        polsim = "dev"
    try:
        numba = version("numba")
    except PackageNotFoundError:
        numba = "none"
    return f"{polsim}-py{sys.version_info.major}.{sys.version_info.minor}-numba{numba}-{_source_digest()}"


def _source_digest() -> str:
    """Digest of every .py file of the numba-using packages (a few ms)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.sha256()
    for package in ("sim", "rules"):
        for folder, dirs, files in sorted(os.walk(os.path.join(root, package))):
            dirs.sort()
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(folder, name)
                digest.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()[:12]


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, f".probe-{os.getpid()}")
        with open(probe, "w"):
            pass
        os.remove(probe)
        return True
    except OSError:
        return False


def prune(base: str, own: str, now: float | None = None) -> list[str]:
    """Mark ``base/own`` used and delete its stale siblings (see the module
    docstring); returns the names deleted. Never raises: a folder another
    process deletes first, or one it cannot, is skipped."""
    now = time.time() if now is None else now
    try:
        os.utime(os.path.join(base, own), (now, now))
        used = []
        for name in os.listdir(base):
            if name != own and TAG.match(name):
                try:
                    used.append((os.stat(os.path.join(base, name)).st_mtime, name))
                except OSError:
                    continue
    except OSError:
        return []
    used.sort(reverse=True)
    gone = []
    for rank, (mtime, name) in enumerate(used):
        idle = now - mtime
        if idle > STALE_DAYS * 86400 or (rank >= KEEP_RECENT - 1 and idle > GRACE_S):
            shutil.rmtree(os.path.join(base, name), ignore_errors=True)
            gone.append(name)
    return gone


def cache_dir() -> str:
    base = os.environ.get("POLSIM_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "polsim")
    tag = _version_tag()
    path = os.path.join(base, tag, "numba")
    if not _writable(path):
        base = os.path.join(tempfile.gettempdir(), f"polsim-{os.getuid()}")
        path = os.path.join(base, tag, "numba")
        os.makedirs(path, exist_ok=True)
    prune(base, tag)
    return path


def configure() -> str:
    """Set numba's cache folder (an explicit NUMBA_CACHE_DIR wins) and return it."""
    path = os.environ.get("NUMBA_CACHE_DIR") or cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = path
    if "numba" in sys.modules:
        from numba.core import config

        config.CACHE_DIR = path
    return path
