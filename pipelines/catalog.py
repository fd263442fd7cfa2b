"""What exists: games' variants (with the knobs they set) and strategies
(with their parameters and defaults), as rows for ``polsim variants`` and
``polsim strategies``."""

from __future__ import annotations

from rules.base import GameDef, all_games, get_game


def games(only: str | None = None) -> dict[str, GameDef]:
    """Every registered game, or just ``only`` (a usage error if unknown)."""
    return {only: get_game(only)} if only else all_games()


def variant_rows(found: dict[str, GameDef]) -> list[dict]:
    rows = []
    for name, game in sorted(found.items()):
        defaults = game.rules_model().model_dump(mode="json")
        for variant, rules in sorted(game.variants().items()):
            changed = {k: v for k, v in rules.model_dump(mode="json").items() if v != defaults.get(k)}
            rows.append({"game": name, "variant": variant,
                         "default": "yes" if variant == game.default_variant else "",
                         "knobs": ", ".join(f"{k}={v}" for k, v in changed.items()) or "(defaults)",
                         "description": game.variant_descriptions().get(variant, ""),
                         "hash": rules.variant_hash()})
    return rows


def knob_rows(found: dict[str, GameDef]) -> list[dict]:
    """Every knob of every game: its default and what it means (``--set key=value``)."""
    rows = []
    for name, game in sorted(found.items()):
        defaults = game.rules_model().model_dump(mode="json")
        for knob, field in game.rules_model.model_fields.items():
            rows.append({"game": name, "knob": knob, "default": str(defaults[knob]),
                         "meaning": field.description or ""})
    return rows


def strategy_rows(found: dict[str, GameDef]) -> list[dict]:
    rows = []
    for name, game in sorted(found.items()):
        for strategy, sdef in sorted(game.strategies.items()):
            params = ", ".join(f"{k}={f.default}" for k, f in sdef.params_model.model_fields.items())
            rows.append({"game": name, "strategy": strategy, "parameters": params or "(none)",
                         "description": sdef.description})
    return rows
