"""Polar's openings (P2): which opening pairs favour Black, which White.

An opening is the ordered pair (black point, white point) of adjacent
points; point ``p`` of a board of side ``n`` is row ``p // n``, column
``p % n``. The square board has eight symmetries (rotations and
reflections), which map openings onto equivalent ones: openings are
grouped by *class*, keyed by the smallest ``a * n² + b`` over the eight
images (``class_key_sql``). ``describe_class`` names a class by that image,
rows and columns counted from 1 at the corner nearest its black stone.

- ``openings`` (only on request: ``--table openings``; a row per class and
  board size): games, Black's wins and draws, Black's score rate (a draw
  half a win) with its 95 % interval, a two-sided sign test of Black's
  wins against White's (draws left out), Holm-corrected across the classes
  of a group, and ``favours``: black, white or neither at family-wise 5 %.
- ``opening_balance`` (a row per group and board size): how many classes
  favour each colour; Black's score rate in the least and most
  Black-favourable classes; the most even class; and a chi-square test of
  one outcome mix (Black win, draw, White win) across all classes: a small
  p says the opening matters for these players (``same_mix_p``; its p-value
  from random tables when the table is sparse, ``same_mix_method``:
  ``pipelines.stats.homogeneity``).

Both read the finished games of the ``games`` table (``opening_a``,
``opening_b``, ``colour_0``, ``rule_size``, ``winner``) and skip themselves
when a column is missing.
"""

from __future__ import annotations

from pipelines.balance_measures import put
from pipelines.scope import Scope
from pipelines.stats.homogeneity import same_mix
from pipelines.stats.paired import holm
from pipelines.stats.proportion import score_rate, sign_test_p
from pipelines.stats.tally import Tally

# (row, column) of a point's image under each symmetry of the n x n board, from its (y, x).
SYMMETRIES = (("y", "x"), ("x", "n - 1 - y"), ("n - 1 - y", "n - 1 - x"), ("n - 1 - x", "y"),
              ("y", "n - 1 - x"), ("n - 1 - y", "x"), ("x", "y"), ("n - 1 - x", "n - 1 - y"))
COLUMNS = ("opening_a", "opening_b", "colour_0", "rule_size", "winner", "status")
ALPHA = 0.05


def _image_sql(point: str, symmetry: tuple[str, str]) -> str:
    coords = {"y": f"({point} // n)", "x": f"({point} % n)"}
    row, col = ("(" + "".join(coords.get(ch, ch) for ch in part) + ")" for part in symmetry)
    return f"({row} * n + {col})"


def class_key_sql(a: str = "a", b: str = "b") -> str:
    """SQL of an opening's class key, over columns ``a``, ``b`` and the side ``n``."""
    images = (f"{_image_sql(a, s)} * n * n + {_image_sql(b, s)}" for s in SYMMETRIES)
    return f"list_min([{', '.join(images)}])"


def describe_class(key: int, n: int) -> str:
    """``B(row,col)-W(row,col)``, counted from 1 at the corner nearest the black stone."""
    (by, bx), (wy, wx) = (divmod(p, n) for p in divmod(key, n * n))
    return f"B({by + 1},{bx + 1})-W({wy + 1},{wx + 1})"


OPENINGS_SQL = """
WITH g AS (  -- counted per opening first: the class key is then computed once per opening, not per game
  SELECT {keys} rule_size AS n, opening_a AS a, opening_b AS b, count(*) AS games,
         count(*) FILTER (WHERE winner <> -1 AND (winner = 0) = (colour_0 = 'black')) AS black_wins,
         count(*) FILTER (WHERE winner = -1) AS draws
  FROM games
  WHERE status = 'ok' AND winner IS NOT NULL AND opening_a IS NOT NULL AND opening_b IS NOT NULL {where}
  GROUP BY ALL)
SELECT {keys} n AS size, {key} AS class_key, sum(games)::BIGINT AS games,
       sum(black_wins)::BIGINT AS black_wins, sum(draws)::BIGINT AS draws
FROM g GROUP BY ALL ORDER BY ALL
"""


def _class_rows(scope: Scope) -> list[dict]:
    if not scope.has(*COLUMNS):
        return []
    table = scope.materialize("openings", OPENINGS_SQL.format(keys=scope.keys_sql(), where=scope.where_sql,
                                                              key=class_key_sql()))
    rows = []
    for r in scope.rows(f"SELECT * FROM {table} ORDER BY ALL"):
        white_wins = r["games"] - r["black_wins"] - r["draws"]
        row = {k: r[k] for k in (*scope.game_keys(), "size")} | {
            "opening": describe_class(r["class_key"], r["size"]), "games": r["games"],
            "black_wins": r["black_wins"], "draws": r["draws"], "white_wins": white_wins}
        put(row, "black_score", score_rate(Tally(r["black_wins"], r["draws"], white_wins, r["games"])))
        row["class_key"] = r["class_key"]
        rows.append(row)
    p = sign_test_p([r["black_wins"] for r in rows], [r["black_wins"] + r["white_wins"] for r in rows])
    for row, p_value in zip(rows, p):
        row["p"] = float(p_value)
    return rows


def _groups(scope: Scope, rows: list[dict]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((*scope.group_of(row), row["size"]), []).append(row)
    return groups


def _judge(group: list[dict]) -> None:
    """Holm across the classes of one group; ``favours`` the colour a class
    significantly favours, or 'neither'."""
    result = holm([r["p"] for r in group], ALPHA)
    for row, p_holm, reject in zip(group, result.adjusted, result.reject):
        row["p_holm"] = float(p_holm)
        row["favours"] = ("black" if row["black_wins"] > row["white_wins"] else "white") if reject else "neither"


def openings(scope: Scope) -> list[dict]:
    """Per group and size, from White's best opening class to Black's."""
    rows = []
    for group in _groups(scope, _class_rows(scope)).values():
        _judge(group)
        rows += sorted(group, key=lambda r: (r["black_score_rate"], r["class_key"]))
    return rows


def opening_balance(scope: Scope) -> list[dict]:
    out = []
    for (*keys, size), group in _groups(scope, openings(scope)).items():
        favours = [r["favours"] for r in group]
        low, high = (min(group, key=lambda r: r["black_score_rate"]), max(group, key=lambda r: r["black_score_rate"]))
        even = min(group, key=lambda r: (abs(r["black_score_rate"] - 0.5), -r["games"]))
        mix = same_mix([[r["black_wins"], r["draws"], r["white_wins"]] for r in group])
        out.append({
            **dict(zip(scope.game_keys(), keys)), "size": size, "classes": len(group),
            "games": sum(r["games"] for r in group),
            "favour_black": favours.count("black"), "favour_white": favours.count("white"),
            "favour_neither": favours.count("neither"),
            "black_score_min": low["black_score_rate"], "least_black_opening": low["opening"],
            "black_score_max": high["black_score_rate"], "most_black_opening": high["opening"],
            "most_even_opening": even["opening"], "most_even_black_score": even["black_score_rate"],
            "most_even_games": even["games"], "same_mix_p": mix.p if mix else None,
            "same_mix_method": mix.method if mix else None,
        })
    return out
