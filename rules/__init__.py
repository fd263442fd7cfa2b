"""Games on top of the cores. Importing this package registers every game."""

from rules import polar as _polar  # noqa: F401  registers "polar"
