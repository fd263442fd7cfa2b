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
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile


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


def cache_dir() -> str:
    base = os.environ.get("POLSIM_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "polsim")
    path = os.path.join(base, _version_tag(), "numba")
    if not _writable(path):
        path = os.path.join(tempfile.gettempdir(), f"polsim-{os.getuid()}", _version_tag(), "numba")
        os.makedirs(path, exist_ok=True)
    return path


def configure() -> str:
    """Set numba's cache folder (an explicit NUMBA_CACHE_DIR wins) and return it."""
    path = os.environ.get("NUMBA_CACHE_DIR") or cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = path
    if "numba" in sys.modules:
        from numba.core import config

        config.CACHE_DIR = path
    return path
