"""Sequential probability ratio tests in the fishtest style.

Outcomes are multinomial: category i has a per-game score ``scores[i]`` in
[0, 1] — trinomial (loss, draw, win) = (0, 1/2, 1), or pentanomial for game
pairs (pair score / 2) = (0, 1/4, 1/2, 3/4, 1); see ``tally``. ``counts`` has
shape ``[..., k]`` (any leading batch shape, e.g. ``[n_experiments,
n_checkpoints, k]``); every kernel is vectorised over the leading axes.

Pieces, each a separate function:

1. ``mle_with_mean(freqs, scores, s)`` — the maximum-likelihood multinomial
   with mean score s, given observed frequencies p̂: p_i = p̂_i / (1 + λ
   (a_i - s)), with λ the root of Σ p̂_i (a_i - s) / (1 + λ (a_i - s)) = 0
   (Lagrange multiplier; Van den Bergh, "Support of the MLE of a
   multinomial distribution with a mean constraint",
   hardy.uhasselt.be/Fishtest/support_MLE_multinomial.pdf). The left side
   is strictly decreasing in λ on the interval where every 1 + λ (a_i - s)
   > 0, so λ is found by vectorised Newton steps safeguarded by bisection.
2. ``llr(counts, scores, s0, s1)`` — generalized log-likelihood ratio of
   H1: mean score = s1 against H0: mean score = s0, the nuisance parameters
   (draw rate, pair correlation) profiled out by the MLE of step 1:
   LLR = N Σ p̂_i log(p_i(s1) / p_i(s0)). This is the GSPRT (Li, Liu & Ying
   2014, "Generalized sequential probability ratio test for separate
   families of hypotheses", Sequential Analysis 33:539), as fishtest uses it
   for H0: score <= s0 vs H1: score >= s1. Empty categories are given a
   pseudo-count of ``REGULARIZE`` so the MLE exists from the first game.
   ``llr_normal`` is the normal approximation N (s1 - s0)(2 ŝ - s0 - s1) /
   (2 σ̂²) (Van den Bergh, "Comments on normalized Elo"), for cross-checks.
3. ``wald_bounds(alpha, beta)`` — stop for H0 at LLR <= log(β / (1 - α)),
   for H1 at LLR >= log((1 - β) / α) (Wald 1945, Ann Math Stat 16:117). No
   overshoot correction: with results checked in batches the LLR overshoots
   the bound and the realised error rates are a little below α and β.
4. ``first_crossing(llr_path, lower, upper)`` — along the last axis of a
   path of LLR values, the first decision and where it happened.

State objects:

- ``SPRT(config).update(counts)`` — ``counts`` are *running totals* (a
  ``Tally``, ``Pentanomial`` or array), so a report applied twice changes
  nothing (fishtest habit); totals may never decrease. Returns 'H0', 'H1'
  or 'continue'; a decision is final.
- ``RegressionSPRT(config).update(counts)`` — the two-sided regression
  check "changed by at least δ" vs "no change" for paired runs (same seeds,
  conditions A and B). Per seed, d = s_B - s_A in {-1, -1/2, 0, 1/2, 1};
  the counts of d (``difference_counts`` builds them from a ``[3, 3]`` paired
  table) are a pentanomial in x = (d + 1) / 2, whose mean is 1/2 + Δ/2 when
  the score moved by Δ. Two one-sided GSPRTs on x share H0: x = 1/2 and
  have H1: x = 1/2 ± δ/2, each at level α/2 and power 1 - β. Combined as in
  Sobel & Wald (1949, Ann Math Stat 20:502): 'changed' as soon as either
  accepts its H1; 'unchanged' once both have accepted H0 (a side that has
  accepted H0 stops). Hence P(changed | Δ = 0) <= α and
  P(unchanged | |Δ| >= δ) <= β, up to Wald's approximation.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from .ratings import score_from_elo
from .tally import PENTANOMIAL_SCORES, TRINOMIAL_SCORES, Pentanomial, Tally

REGULARIZE = 1e-3  # pseudo-count for empty categories
_ROOT_STEPS = 200

Decision = Literal["H0", "H1", "continue"]
Verdict = Literal["changed", "unchanged", "continue"]
MODEL_SCORES = {"trinomial": TRINOMIAL_SCORES, "pentanomial": PENTANOMIAL_SCORES}


def _freqs(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(regularised frequencies [..., k], totals [...])."""
    counts = np.asarray(counts, dtype=float)
    if np.any(counts < 0):
        raise ValueError("counts must be non-negative")
    totals = counts.sum(axis=-1)
    padded = np.where(counts > 0, counts, REGULARIZE)
    return padded / padded.sum(axis=-1, keepdims=True), totals


def mle_with_mean(freqs: np.ndarray, scores: np.ndarray, s: "float | np.ndarray") -> np.ndarray:
    """Closest multinomial (max likelihood) to ``freqs`` with mean score ``s``.

    ``freqs`` [..., k], all > 0; ``scores`` [k] with min < s < max."""
    scores = np.asarray(scores, dtype=float)
    s = np.asarray(s, dtype=float)[..., None]
    if np.any(s <= scores.min()) or np.any(s >= scores.max()):
        raise ValueError("target score must lie strictly between the category scores")
    dev = np.broadcast_to(scores - s, freqs.shape)  # [..., k]
    lam = _multiplier(freqs, dev)
    return freqs / (1.0 + lam[..., None] * dev)


def _multiplier(freqs: np.ndarray, dev: np.ndarray) -> np.ndarray:
    """Root λ of Σ p̂ dev / (1 + λ dev) = 0: Newton steps from λ = 0, kept
    inside a shrinking bracket (bisection when a step leaves it)."""
    lo = -1.0 / dev.max(axis=-1)
    hi = -1.0 / dev.min(axis=-1)
    lam = np.zeros(freqs.shape[:-1])
    for _ in range(_ROOT_STEPS):
        ratio = dev / (1.0 + lam[..., None] * dev)
        value = (freqs * ratio).sum(axis=-1)
        slope = -(freqs * ratio**2).sum(axis=-1)
        lo = np.where(value > 0, lam, lo)
        hi = np.where(value > 0, hi, lam)
        newton = lam - value / slope
        inside = (newton >= lo) & (newton <= hi) & (1.0 + newton[..., None] * dev > 0).all(axis=-1)
        new = np.where(inside, newton, 0.5 * (lo + hi))
        if np.all(np.abs(new - lam) <= 1e-14 * (1.0 + np.abs(lam))):
            return new
        lam = new
    return lam


def llr(counts: np.ndarray, scores: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """Generalized LLR of mean score s1 vs s0 for counts [..., k] -> [...]."""
    freqs, totals = _freqs(counts)
    p0 = mle_with_mean(freqs, scores, s0)
    p1 = mle_with_mean(freqs, scores, s1)
    return totals * (freqs * np.log(p1 / p0)).sum(axis=-1)


def llr_normal(counts: np.ndarray, scores: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """Normal approximation of ``llr``: N (s1-s0)(2ŝ-s0-s1) / (2σ̂²)."""
    freqs, totals = _freqs(counts)
    mean = (freqs * scores).sum(axis=-1)
    var = (freqs * (scores - mean[..., None]) ** 2).sum(axis=-1)
    return totals * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 below lower, H1 above upper."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError("need 0 < alpha, beta and alpha + beta < 1")
    return float(np.log(beta / (1 - alpha))), float(np.log((1 - beta) / alpha))


def first_crossing(llr_path: np.ndarray, lower: float, upper: float) -> tuple[np.ndarray, np.ndarray]:
    """First bound crossing along the last axis of ``llr_path`` [..., T].

    Returns (decision [...]: +1 H1, -1 H0, 0 none; index [...] of the
    crossing, T when none)."""
    crossed = (llr_path >= upper) | (llr_path <= lower)
    any_cross = crossed.any(axis=-1)
    index = np.where(any_cross, crossed.argmax(axis=-1), llr_path.shape[-1])
    at = np.take_along_axis(llr_path, np.minimum(index, llr_path.shape[-1] - 1)[..., None], -1)[..., 0]
    decision = np.where(any_cross, np.where(at >= upper, 1, -1), 0)
    return decision, index


class SPRTConfig(BaseModel):
    """H0: score <= s0 vs H1: score >= s1 (scores per game, in (0, 1))."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    s0: float
    s1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Literal["trinomial", "pentanomial"] = "trinomial"

    @classmethod
    def from_elo(cls, elo0: float, elo1: float, **kwargs: object) -> "SPRTConfig":
        """Hypotheses stated as logistic Elo differences (fishtest habit)."""
        return cls(s0=score_from_elo(elo0), s1=score_from_elo(elo1), **kwargs)

    @model_validator(mode="after")
    def _check(self) -> "SPRTConfig":
        if not 0 < self.s0 < self.s1 < 1:
            raise ValueError("need 0 < s0 < s1 < 1")
        wald_bounds(self.alpha, self.beta)
        return self


def _as_counts(counts: "Tally | Pentanomial | np.ndarray", model: str) -> np.ndarray:
    if isinstance(counts, Tally):
        if model != "trinomial":
            raise ValueError("a Tally feeds a trinomial SPRT")
        return Tally(counts.wins, counts.draws, counts.losses, counts.games).trinomial()
    if isinstance(counts, Pentanomial):
        if model != "pentanomial":
            raise ValueError("a Pentanomial feeds a pentanomial SPRT")
        return Pentanomial(counts.counts).pentanomial()
    arr = np.asarray(counts)
    if arr.shape != MODEL_SCORES[model].shape or np.any(arr < 0) or np.any(arr != np.rint(arr)):
        raise ValueError(f"{model} counts are {MODEL_SCORES[model].size} non-negative integers")
    return arr.astype(float)


class SPRT:
    """A running GSPRT; feed it running totals with ``update``."""

    def __init__(self, config: SPRTConfig) -> None:
        self.config = config
        self.scores = MODEL_SCORES[config.model]
        self.lower, self.upper = wald_bounds(config.alpha, config.beta)
        self.counts = np.zeros_like(self.scores)
        self.llr = 0.0
        self.decision: Decision = "continue"

    def update(self, counts: "Tally | Pentanomial | np.ndarray") -> Decision:
        """Set the running totals and return the (final once reached) decision."""
        new = _as_counts(counts, self.config.model)
        if np.any(new < self.counts):
            raise ValueError("running totals may not decrease")
        if self.decision != "continue":
            return self.decision
        self.counts = new
        self.llr = float(llr(new, self.scores, self.config.s0, self.config.s1))
        if self.llr >= self.upper:
            self.decision = "H1"
        elif self.llr <= self.lower:
            self.decision = "H0"
        return self.decision


def difference_counts(table: "np.ndarray | list") -> np.ndarray:
    """Counts of d = s_B - s_A = -1, -1/2, 0, 1/2, 1 from a paired ``[3, 3]``
    (loss, draw, win) table ``[a, b]`` — a pentanomial in (d + 1) / 2."""
    t = np.asarray(table)
    if t.shape != (3, 3) or not np.issubdtype(t.dtype, np.integer) or np.any(t < 0):
        raise ValueError("a paired outcome table is a [3, 3] array of non-negative counts")
    index = 2 + np.arange(3)[None, :] - np.arange(3)[:, None]  # 2 (d + 1)
    return np.bincount(index.ravel(), weights=t.ravel(), minlength=5)


class RegressionConfig(BaseModel):
    """Detect a change of the score rate of at least ``delta`` either way."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    delta: float
    alpha: float = 0.05
    beta: float = 0.05

    @model_validator(mode="after")
    def _check(self) -> "RegressionConfig":
        if not 0 < self.delta < 1:
            raise ValueError("delta (smallest change that matters) must be in (0, 1)")
        wald_bounds(self.alpha / 2, self.beta)
        return self


class RegressionSPRT:
    """Two one-sided GSPRTs on paired score differences (Sobel–Wald)."""

    def __init__(self, config: RegressionConfig) -> None:
        self.config = config
        half = config.delta / 2
        self.up = SPRT(SPRTConfig(s0=0.5, s1=0.5 + half, alpha=config.alpha / 2,
                                  beta=config.beta, model="pentanomial"))
        self.down = _MirroredSPRT(SPRTConfig(s0=0.5, s1=0.5 + half, alpha=config.alpha / 2,
                                             beta=config.beta, model="pentanomial"))
        self.verdict: Verdict = "continue"
        self.direction = 0  # +1 score went up under B, -1 down, 0 unknown

    def update(self, counts: np.ndarray) -> Verdict:
        """``counts``: running totals of d = -1, -1/2, 0, 1/2, 1 (5 numbers)."""
        up, down = self.up.update(counts), self.down.update(counts)
        if self.verdict != "continue":
            return self.verdict
        if "H1" in (up, down):
            self.verdict = "changed"
            self.direction = 1 if up == "H1" else -1
        elif up == down == "H0":
            self.verdict = "unchanged"
        return self.verdict


class _MirroredSPRT(SPRT):
    """The upper-side test applied to the mirrored counts: tests x <= 1/2
    vs x <= 1/2 - δ/2 by reversing the categories (x -> 1 - x)."""

    def update(self, counts: "Tally | Pentanomial | np.ndarray") -> Decision:
        return super().update(np.asarray(counts)[::-1])


def regression_llr_paths(counts_path: np.ndarray, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """LLR paths (up, down) of the two sides for running totals
    ``counts_path`` [..., T, 5] of d — the vectorised core of
    ``RegressionSPRT`` for simulation."""
    s1 = 0.5 + delta / 2
    up = llr(counts_path, PENTANOMIAL_SCORES, 0.5, s1)
    down = llr(counts_path[..., ::-1], PENTANOMIAL_SCORES, 0.5, s1)
    return up, down


def regression_verdicts(counts_path: np.ndarray, config: RegressionConfig) -> np.ndarray:
    """Verdict per path for running totals [..., T, 5]: +1 changed (up),
    -1 changed (down), 2 unchanged, 0 undecided at the end of the path.
    Same rule as ``RegressionSPRT`` applied at each checkpoint."""
    lower, upper = wald_bounds(config.alpha / 2, config.beta)
    up, down = regression_llr_paths(counts_path, config.delta)
    up_dec, up_at = first_crossing(up, lower, upper)
    down_dec, down_at = first_crossing(down, lower, upper)
    t_end = up.shape[-1]
    up_h1 = np.where(up_dec == 1, up_at, t_end + 1)
    down_h1 = np.where(down_dec == 1, down_at, t_end + 1)
    both_h0 = np.where((up_dec == -1) & (down_dec == -1), np.maximum(up_at, down_at), t_end + 1)
    first_h1 = np.minimum(up_h1, down_h1)
    verdict = np.zeros(up.shape[:-1], dtype=int)
    verdict = np.where(both_h0 < first_h1, 2, verdict)
    verdict = np.where((first_h1 <= t_end) & (first_h1 < both_h0),
                       np.where(up_h1 <= down_h1, 1, -1), verdict)
    return verdict
