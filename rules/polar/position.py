"""``Board``: a Python handle on one Polar position, over the batch's own kernels.

For tests and notebooks: set up a position, ask what is legal, play, score.
Every method calls the numba functions of ``core.py`` / ``engine.py`` that
``play_batch`` uses; nothing here re-implements a rule.

Points are ``p = y * size + x`` or ``(x, y)``; colours ``"black"``/``"white"``
(or ``BLACK``/``WHITE``). ``setup`` places stones without the P4 check and in
any order, so a hand-made position may be written row by row; the caller
makes sure the finished position is one Polar allows.
"""

from __future__ import annotations

import numpy as np

from rules.polar import core
from rules.polar.engine import choose_colour, choose_move, propose
from rules.polar.mcts import new_tree, tree_capacity
from rules.polar.policies import MCTS
from rules.polar.rng import seed_stream
from rules.polar.strategies import SeatCode

COLOURS = {"black": core.BLACK, "white": core.WHITE, core.BLACK: core.BLACK, core.WHITE: core.WHITE}
_SYMBOLS = {"X": core.BLACK, "O": core.WHITE, ".": core.EMPTY}


class Board:
    def __init__(self, size: int = 9, score_n: str = "majority", komi: float = 0.0):
        self.size = size
        self.n = size * size
        self.nbr = core.neighbour_table(size)
        self.st = core.new_state(self.n, core.SCORE_MODES[score_n])
        core.set_komi(self.st, core.half_points(komi))
        self._tmp = np.zeros(8, np.int32)

    @classmethod
    def from_rows(cls, rows: list[str], score_n: str = "majority", to_move: str = "black",
                  komi: float = 0.0) -> "Board":
        """A position drawn as rows of ``X`` (black), ``O`` (white), ``.`` (empty), top row y = 0."""
        board = cls(len(rows), score_n, komi)
        for y, row in enumerate(rows):
            for x, ch in enumerate(row.replace(" ", "")):
                if _SYMBOLS[ch] != core.EMPTY:
                    board.setup((x, y), _SYMBOLS[ch])
        board.st[6 * board.n + core.M_TO_MOVE] = COLOURS[to_move]
        return board

    def point(self, where) -> int:
        if isinstance(where, tuple):
            x, y = where
            return y * self.size + x
        return int(where)

    def setup(self, where, colour) -> None:
        p = self.point(where)
        if self.st[p] != core.EMPTY:
            raise ValueError(f"point {where} already holds a stone; set each point up once")
        core.place(self.st, self.n, self.nbr, p, COLOURS[colour], self._tmp)

    def is_legal(self, where, colour) -> bool:
        p = self.point(where)
        if self.st[p] != core.EMPTY:
            return False
        return bool(core.is_legal(self.st, self.n, self.nbr, p, COLOURS[colour]))

    def legal_moves(self, colour=None) -> list[int]:
        c = self.to_move if colour is None else COLOURS[colour]
        out = np.zeros(self.n, np.int32)
        k = core.legal_moves(self.st, self.n, self.nbr, c, out)
        return sorted(int(p) for p in out[:k])

    def n_legal(self, colour=None) -> int:
        c = self.to_move if colour is None else COLOURS[colour]
        return int(core.count_legal(self.st, self.n, self.nbr, c))

    @property
    def to_move(self) -> int:
        return int(self.st[6 * self.n + core.M_TO_MOVE])

    @property
    def game_over(self) -> bool:
        return bool(core.game_over(self.st, self.n))

    def play(self, where=None) -> None:
        """The colour to move plays ``where``, or passes when ``where`` is None (P3, P5)."""
        if where is None:
            if self.n_legal() > 0:
                raise ValueError("a player may pass only without a legal move (P5)")
            core.play(self.st, self.n, self.nbr, -1, self._tmp)
            return
        p = self.point(where)
        if not self.is_legal(p, self.to_move):
            raise ValueError(f"illegal move at {p} (P4)")
        core.play(self.st, self.n, self.nbr, p, self._tmp)

    def score(self) -> tuple[int, int]:
        """Running (black, white) scores (P6)."""
        m = 6 * self.n
        return int(self.st[m + core.M_SCORE_B]), int(self.st[m + core.M_SCORE_W])

    def winner(self) -> str | None:
        """P7, White's total being its score plus the komi; None for a draw."""
        w = core.winner_colour(self.st, self.n)
        return None if w < 0 else ("black", "white")[w]

    def groups(self) -> tuple[int, int]:
        """(groups, scoring groups)."""
        g, s = core.group_tally(self.st, self.n)
        return int(g), int(s)

    def colours(self) -> np.ndarray:
        """``int32[size, size]`` colours, -1 empty, indexed [y, x]."""
        return self.st[: self.n].reshape(self.size, self.size).copy()

    def _scratch(self, code: SeatCode, params: np.ndarray) -> tuple:
        return (
            new_tree(tree_capacity(int(params[0]), self.n) if code.kind == MCTS else 1),
            np.empty_like(self.st),
            self._tmp,
            np.empty(self.n, np.int32),
        )

    def choose(self, code: SeatCode, seed: int) -> int:
        """The point (or -1 for a pass) the strategy picks here, with a stream seeded ``seed``."""
        params = code.vector()
        work = self.st.copy()
        return int(choose_move(work, self.n, self.nbr, code.kind, params, _stream(seed), self._scratch(code, params)))

    def opening(self) -> tuple[int, int]:
        """(black point, white point) when the board holds one stone of each colour, else (-1, -1)."""
        colours = self.st[: self.n]
        black, white = np.flatnonzero(colours == core.BLACK), np.flatnonzero(colours == core.WHITE)
        return (int(black[0]), int(white[0])) if len(black) == len(white) == 1 else (-1, -1)

    def choose_colour(self, code: SeatCode, seed: int) -> str:
        """The colour the strategy takes as chooser (P2) when this is the opening it is shown."""
        params = code.vector()
        work = self.st.copy()
        a, b = self.opening()
        c = choose_colour(self.size, a, b, work, self.n, self.nbr, code.kind, params, _stream(seed),
                          self._scratch(code, params))
        return ("black", "white")[int(c)]

    @classmethod
    def propose(cls, size: int, code: SeatCode, seed: int, swap: bool = True, score_n: str = "majority",
                komi: float = 0.0):
        """The opening (black point, white point) the strategy proposes (P2) on an empty board."""
        board = cls(size, score_n, komi)
        params = code.vector()
        a, b = propose(size, swap, board.st, board.n, board.nbr, core.SCORE_MODES[score_n], code.kind, params,
                       _stream(seed), board._scratch(code, params))
        return int(a), int(b)


def _stream(seed: int) -> np.ndarray:
    rng = np.zeros(4, np.uint64)
    seed_stream(rng, seed)
    return rng
