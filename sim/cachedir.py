"""Where numba keeps compiled code: one folder per user and per version.

``configure()`` points numba's on-disk cache at
``$POLSIM_CACHE_DIR`` or ``~/.cache/polsim/<polsim>-py<X.Y>-numba<N>/`` (a
temporary folder when home is not writable, as on some cluster workers), so
a worker compiles each core once and versions never read each other's
machine code. It runs when ``sim`` or ``rules`` is imported, before any
jitted function is defined.
"""

from __future__ import annotations

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
    return f"{polsim}-py{sys.version_info.major}.{sys.version_info.minor}-numba{numba}"


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
