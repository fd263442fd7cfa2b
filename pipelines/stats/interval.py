"""``Interval``: an estimate with its confidence interval, the common return
type of the statistics modules. ``low <= estimate <= high`` is checked when
made; ``level`` is the two-sided confidence level (0.95 = 95 %)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    level: float

    def __post_init__(self) -> None:
        if not 0.0 < self.level < 1.0:
            raise ValueError(f"confidence level must be in (0, 1), got {self.level}")
        if any(math.isnan(v) for v in (self.estimate, self.low, self.high)):
            raise ValueError(f"interval has NaN: {self}")
        if not self.low - 1e-12 <= self.estimate <= self.high + 1e-12:
            raise ValueError(f"estimate outside its interval: {self}")

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def check_level(level: float) -> float:
    """Validate a two-sided confidence level and return it."""
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")
    return float(level)


def z_of(level: float) -> float:
    """Two-sided normal quantile: 1.959964 for level 0.95."""
    return float(norm.ppf(0.5 + check_level(level) / 2))
