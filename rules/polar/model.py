"""Polar's rules model (every knob of RULES.md P1-P7) and its named variants.

Knobs: ``size`` (P1, odd side from 5 to 255), ``swap`` (P2: the other seat
chooses a colour; false = fixed colours, the proposer is Black), ``score_n``
(P6: the n of T(n) = n(n+1)/2 for a scoring group: ``majority`` = size of the
larger section, ``group`` = size of the whole group, ``difference`` = larger
minus smaller), ``komi`` (P7: points added to White's total before the totals
are compared, a multiple of one half; not in the source, a balance knob). The variants live in ``variants/polar.toml``.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib.resources import files
from typing import Literal

from pydantic import Field, field_validator

from rules.base import RulesBase


class PolarRules(RulesBase):
    """The knobs of one Polar rule set."""

    # le=255: scores live in int32 (core.py) and the largest is T(size**2) for a
    # board-wide group; T(255**2) = 2,114,157,825 fits below 2**31, T(257**2)
    # does not. (MCTS's node cap, 2,000,000 nodes, would make it pass with legal
    # moves from size 1415 on, since a root needs size**2 children.)
    size: int = Field(9, ge=5, le=255, description="P1: side of the square board (odd, 5 to 255)")
    swap: bool = Field(True, description="P2: the non-proposer chooses a colour")
    score_n: Literal["majority", "group", "difference"] = Field(
        "majority", description="P6: n of T(n) for a scoring group"
    )
    # |komi| <= 1e6 keeps twice the komi in the core's int32 (core.M_KOMI2).
    komi: float = Field(
        0.0, ge=-1e6, le=1e6, multiple_of=0.5,
        description="P7: points added to White's total before comparing (a multiple of 0.5; x.5 rules out draws)",
    )

    @field_validator("size")
    @classmethod
    def _odd(cls, size: int) -> int:
        if size % 2 == 0:
            raise ValueError(f"board side must be odd, got {size}")
        return size


@cache
def _variant_table() -> dict[str, dict]:
    text = files("rules.polar").joinpath("variants/polar.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def variants() -> dict[str, PolarRules]:
    """Named variants: polar-9, polar-11, polar-13, polar-9-noswap, polar-9-groupscore, polar-9-komi."""
    return {name: PolarRules(**{k: v for k, v in knobs.items() if k != "description"})
            for name, knobs in _variant_table().items()}


def variant_descriptions() -> dict[str, str]:
    """Name -> the one-line description of each named variant."""
    return {name: knobs.get("description", "") for name, knobs in _variant_table().items()}
