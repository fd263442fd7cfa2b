"""The magnetic core: numba rigid-body physics of magnetic discs. Knows no game rules."""

from sim.cachedir import configure as _configure_cache

_configure_cache()
