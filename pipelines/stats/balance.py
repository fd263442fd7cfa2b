"""Seat balance of a game: how far apart the seats' score rates are.

Inputs are counts over N games: ``seat_wins[j]`` games won by seat j
(shape ``[n_seats]``) and ``draws``, with ``sum(seat_wins) + draws == N``.
A draw scores 1/n_seats to every seat (one half for two seats), so seat j's
score rate is s_j = (seat_wins[j] + draws / n_seats) / N and the rates sum
to 1.

- ``balance``: B = 1 - (max_j s_j - min_j s_j), in [0, 1]; 1 = perfectly
  balanced. Interval, by design:
  * two seats: B = 1 - |2 s_0 - 1| is a function of s_0 alone. The interval
    is the image of the 95 % score-rate interval of seat 0
    (``proportion.score_rate``, the trinomial score interval) under that function; the
    image of a confidence set is a confidence set of at least the same level
    (no delta method, which fails at the kink s_0 = 1/2 — exactly where a
    balanced game sits). When the interval for s_0 contains 1/2 the upper
    bound is 1.
  * more seats: the same logic over all seats at once. A draw adds the same
    1/n_seats to every seat, so the gap max_j s_j - min_j s_j is the gap of
    the seats' win rates p_j. With Goodman's simultaneous intervals
    [l_j, u_j] for the win rates and the draw rate together (Goodman 1965,
    Technometrics 7:247; ``statsmodels ... multinomial_proportions_confint``)
    the interval is the image of that box: B from 1 - (max u - min l) to
    1 - max(0, max l - min u), which is 1 when every seat's interval meets
    every other's. (polsim before 0.24.0 bootstrapped percentiles here, which
    cover a perfectly balanced game almost never: 1 - gap of a resample is
    below 1 unless the gap is exactly 0. No game of polsim has more than two
    seats, so no figure it printed came from it.)
- ``first_player_advantage``: s_0 - 1/2 with the score-rate interval of
  seat 0 shifted by 1/2 (seat 0 moves first).
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.proportion import multinomial_proportions_confint

from .interval import Interval, check_level
from .proportion import score_rate
from .tally import Tally


def _counts(seat_wins: "np.ndarray | list[int]", draws: int) -> tuple[np.ndarray, int]:
    wins = np.asarray(seat_wins)
    if wins.ndim != 1 or wins.size < 2:
        raise ValueError("seat_wins needs one count per seat, at least two seats")
    if not np.issubdtype(wins.dtype, np.integer) or np.any(wins < 0) or int(draws) != draws or draws < 0:
        raise ValueError("seat wins and draws must be non-negative integer counts")
    if wins.sum() + draws == 0:
        raise ValueError("no games to measure balance on")
    return wins.astype(np.int64), int(draws)


def seat_scores(seat_wins: "np.ndarray | list[int]", draws: int) -> np.ndarray:
    """Score rate per seat, shape ``[n_seats]``, summing to 1."""
    wins, draws = _counts(seat_wins, draws)
    return (wins + draws / wins.size) / (wins.sum() + draws)


def _balance_of_scores(scores: np.ndarray) -> np.ndarray:
    return 1.0 - (scores.max(axis=-1) - scores.min(axis=-1))


def _two_seat_balance(wins: np.ndarray, draws: int, level: float) -> Interval:
    seat0 = score_rate(Tally.of(int(wins[0]), draws, int(wins[1])), level)

    def b(s: float) -> float:
        return 1.0 - abs(2.0 * s - 1.0)

    ends = (b(seat0.low), b(seat0.high))
    high = 1.0 if seat0.low <= 0.5 <= seat0.high else max(ends)
    return Interval(b(seat0.estimate), min(ends), high, level)


def _many_seat_balance(wins: np.ndarray, draws: int, level: float) -> Interval:
    counts = np.append(wins, draws)
    box = multinomial_proportions_confint(counts, alpha=1.0 - level, method="goodman")[: wins.size]
    low, high = box[:, 0], box[:, 1]
    estimate = float(_balance_of_scores(seat_scores(wins, draws)))
    worst = 1.0 - (high.max() - low.min())
    best = 1.0 - max(0.0, low.max() - high.min())
    return Interval(estimate, max(0.0, min(worst, estimate)), min(1.0, max(best, estimate)), level)


def balance(seat_wins: "np.ndarray | list[int]", draws: int, level: float = 0.95) -> Interval:
    """Balance score 1 - (largest gap between seat score rates) with interval.

    Two seats: exact transform of seat 0's score-rate interval. More seats:
    the image of Goodman's simultaneous intervals of the win rates."""
    wins, draws = _counts(seat_wins, draws)
    level = check_level(level)
    if wins.size == 2:
        return _two_seat_balance(wins, draws, level)
    return _many_seat_balance(wins, draws, level)


def first_player_advantage(seat0_wins: int, draws: int, seat1_wins: int,
                           level: float = 0.95) -> Interval:
    """Seat 0's score rate minus 1/2, with its interval (positive = seat 0 ahead)."""
    seat0 = score_rate(Tally.of(seat0_wins, draws, seat1_wins), level)
    return Interval(seat0.estimate - 0.5, seat0.low - 0.5, seat0.high - 0.5, level)
