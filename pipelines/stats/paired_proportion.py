"""Difference of two proportions measured on the same units (paired data).

Input: a paired ``[2, 2]`` table, ``table[a, b]`` = number of units with
outcome a under condition A and b under condition B (1 = success, e.g. the
focus side won). Proportions p_A = (t[1,0] + t[1,1]) / n and p_B = (t[0,1] +
t[1,1]) / n; the difference reported is p_B - p_A = (t[0,1] - t[1,0]) / n.

``difference(table, level)``: Newcombe's hybrid score interval for paired
data without continuity correction (Newcombe 1998, "Improved confidence
intervals for the difference between binomial proportions based on paired
data", Stat Med 17:2635, method 10). With Wilson intervals (l_A, u_A),
(l_B, u_B) of the two marginal proportions and φ Newcombe's corrected phi
coefficient of the table — with D = t[0,0] t[1,1] - t[0,1] t[1,0] and M the
product of the four margins, φ = (D - n/2) / sqrt(M) when D > n/2, 0 when
0 <= D <= n/2, D / sqrt(M) when D < 0, and 0 when a margin is empty —

    low  = θ - sqrt((p_B - l_B)² - 2φ (p_B - l_B)(u_A - p_A) + (u_A - p_A)²)
    high = θ + sqrt((u_B - p_B)² - 2φ (u_B - p_B)(p_A - l_A) + (p_A - l_A)²)

Pairing enters through φ: positively correlated outcomes (the usual case for
the same seeds under two conditions) narrow the interval compared with the
independent-samples Newcombe interval of ``proportion.difference``.
"""

from __future__ import annotations

import math

import numpy as np

from .interval import Interval, check_level
from .proportion import wilson


def _paired_table(table: "np.ndarray | list") -> np.ndarray:
    t = np.asarray(table)
    if t.shape != (2, 2) or not np.issubdtype(t.dtype, np.integer) or np.any(t < 0):
        raise ValueError("a paired table is a [2, 2] array of non-negative integer counts")
    if t.sum() == 0:
        raise ValueError("the table is empty")
    return t.astype(np.int64)


def corrected_phi(table: "np.ndarray | list") -> float:
    """Newcombe's continuity-corrected phi of a ``[2, 2]`` table (see above)."""
    t = _paired_table(table)
    margins = np.array([t[0].sum(), t[1].sum(), t[:, 0].sum(), t[:, 1].sum()], dtype=float)
    if margins.min() == 0:
        return 0.0
    det = float(t[0, 0] * t[1, 1] - t[0, 1] * t[1, 0])
    half_n = t.sum() / 2
    corrected = det - half_n if det > half_n else (0.0 if det >= 0 else det)
    return corrected / math.sqrt(float(np.prod(margins)))


def difference(table: "np.ndarray | list", level: float = 0.95) -> Interval:
    """p_B - p_A of a paired ``[2, 2]`` table with Newcombe's method-10 interval."""
    t = _paired_table(table)
    level = check_level(level)
    n = int(t.sum())
    k_a, k_b = int(t[1].sum()), int(t[:, 1].sum())
    a, b = wilson(k_a, n, level), wilson(k_b, n, level)
    p_a, p_b = k_a / n, k_b / n
    theta = p_b - p_a
    r = corrected_phi(t)
    below = math.sqrt(max((p_b - b.low) ** 2 - 2 * r * (p_b - b.low) * (a.high - p_a) + (a.high - p_a) ** 2, 0.0))
    above = math.sqrt(max((b.high - p_b) ** 2 - 2 * r * (b.high - p_b) * (p_a - a.low) + (p_a - a.low) ** 2, 0.0))
    return Interval(theta, max(theta - below, -1.0), min(theta + above, 1.0), level)
