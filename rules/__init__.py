"""Games on top of the cores. Importing this package registers every game."""

from sim.cachedir import configure as _configure_cache

_configure_cache()

from rules import polar as _polar  # noqa: E402,F401  registers "polar"
from rules import polarity as _polarity  # noqa: E402,F401  registers "polarity"
