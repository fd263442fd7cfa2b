"""Polar positions turn by turn, for replays: ``trace(spec) -> list[frame]``.

``trace`` plays the one game with ``play_batch`` and rebuilds the board after
every row of its ``turns`` table by replaying the recorded moves on a
``position.Board``. ``frames_from_turns`` does the rebuilding from any list
of turn rows and checks them as it goes, so a corrupt move list raises
``ValueError`` instead of drawing a wrong board: turns run 0, 1, 2, ...
without a gap, the opening's two stones are orthogonally adjacent (P2), each
row's colour is the colour to move, and each move is legal or a pass is
forced (the kernels' own checks, P4, P5).

A frame (plain JSON-able dict), one per turns row, in turn order:

=============  ==============================================================
``turn``       int, 0 = the opening (both stones), then moves and passes
``player``     seat that acted (0 proposes the opening)
``colour``     colour that moved: ``black`` / ``white``
``move``       ``[x, y]`` of the stone placed; ``null`` for a pass; for turn
               0 the black opening stone (``move2``: the white one)
``scores``     ``[seat 0, seat 1]`` running scores (P6)
``size``       board side; ``seat_colours``: colour of seat 0 and of seat 1
``stones``     ``[[x, y, c], ...]`` every stone, c = 0 black, 1 white
``groups``     ``[{"cells": [[x, y], ...], "black": b, "white": w,
               "points": [black points, white points]}]``: each group, its
               two section sizes and what it scores now (P4, P6)
``n_legal``    legal moves the mover had (as recorded)
=============  ==============================================================
"""

from __future__ import annotations

from rules.base import GameSpec
from rules.polar import core
from rules.polar.batch import play_batch
from rules.polar.model import PolarRules
from rules.polar.position import COLOURS, Board


def groups_of(board: Board) -> list[dict]:
    """Every group on the board, read from the kernels' union-find and counts."""
    n, st = board.n, board.st
    mode = int(st[6 * n + core.M_MODE])
    cells: dict[int, list[list[int]]] = {}
    for p in range(n):
        if st[p] != core.EMPTY:
            cells.setdefault(int(core.find(st, n, p)), []).append([p % board.size, p // board.size])
    out = []
    for root, members in sorted(cells.items()):
        b, w = int(st[2 * n + root]), int(st[3 * n + root])
        pb, pw = core.group_score(b, w, mode)
        out.append({"cells": members, "black": b, "white": w, "points": [int(pb), int(pw)]})
    return out


def stones_of(board: Board) -> list[list[int]]:
    colours = board.colours()
    return [[x, y, int(colours[y, x])] for y in range(board.size) for x in range(board.size) if colours[y, x] >= 0]


def _xy(point: int, size: int) -> list[int] | None:
    return None if point < 0 else [point % size, point // size]


def frames_from_turns(turns: list[dict], rules: PolarRules, colour_0: str) -> list[dict]:
    """The board after each turn row (rows of one game, any order)."""
    size = rules.size
    board = Board(size, rules.score_n, rules.komi)
    seat_colours = [colour_0, "white" if colour_0 == "black" else "black"]
    frames = []
    rows = sorted(turns, key=lambda r: r["turn"])
    if [r["turn"] for r in rows] != list(range(len(rows))):
        raise ValueError(f"turn rows run {[r['turn'] for r in rows][:8]}…, not 0, 1, 2, … without a gap: "
                         "pass every row of one game")
    for row in rows:
        if row["turn"] == 0:
            (x1, y1), (x2, y2) = _xy(row["point"], size), _xy(row["point2"], size)
            if abs(x1 - x2) + abs(y1 - y2) != 1:
                raise ValueError(f"the opening's stones ({x1}, {y1}) and ({x2}, {y2}) are not adjacent (P2)")
            board.setup(row["point"], "black")
            board.setup(row["point2"], "white")
        else:
            if COLOURS.get(row["colour"]) != board.to_move:
                raise ValueError(f"turn {row['turn']} is {row['colour']}'s, but the other colour is to move")
            board.play(None if row["point"] < 0 else row["point"])
        frames.append({
            "turn": row["turn"], "player": row["player"], "colour": row["colour"],
            "move": _xy(row["point"], size), "move2": _xy(row["point2"], size) if row["turn"] == 0 else None,
            "scores": [row["score_0"], row["score_1"]], "size": size, "seat_colours": seat_colours,
            "stones": stones_of(board), "groups": groups_of(board), "n_legal": row["n_legal"],
        })
    return frames


def trace(spec: GameSpec) -> list[dict]:
    """Play ``spec`` and return the position after every turn (see the module note)."""
    games, turns = play_batch([spec])
    rules = PolarRules.model_validate(spec.rules.model_dump())
    return frames_from_turns(turns.to_pylist(), rules, games["colour_0"][0].as_py())
