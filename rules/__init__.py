"""Games on top of the cores: one subpackage per game (``rules.polar``,
``rules.polarity``), each registering itself when imported. The pipeline
finds games by name through ``rules.base.get_game``, which imports only the
game asked for (``all_games`` imports them all)."""

from sim.cachedir import configure as _configure_cache

_configure_cache()
