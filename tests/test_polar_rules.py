"""Polar rules P1-P7 on hand-made positions, through the kernels play_batch uses.

Positions are drawn with X = black, O = white, . = empty; (x, y) with y the row.
"""

import pytest
from typer.testing import CliRunner

from pipelines.cli import app
from rules.base import UsageError, get_game
from rules.polar.core import triangular
from rules.polar.model import PolarRules
from rules.polar.position import Board

# A 5x5 position reached in a random game: Black has no legal move, White has.
BLACK_STUCK = [
    "X.O.X",
    "O..XX",
    ".X.OO",
    "O.X.O",
    ".OX.O",
]
# The end of that game: neither colour has a legal move; 10-10.
BOTH_STUCK = [
    "X.O.X",
    "O..XX",
    ".X.OO",
    "OXX.O",
    "OOX.O",
]


def test_p1_board_side_must_be_odd_and_at_least_five():
    polar = get_game("polar")
    with pytest.raises(UsageError, match="odd"):
        polar.with_overrides(polar.variant("polar-9"), {"size": 10})
    with pytest.raises(UsageError, match="size"):
        polar.with_overrides(polar.variant("polar-9"), {"size": 3})
    assert polar.with_overrides(polar.variant("polar-9"), {"size": 7}).size == 7


def test_p1_board_side_is_at_most_255_so_every_score_fits_in_int32():
    polar = get_game("polar")
    with pytest.raises(UsageError, match="size.*255"):
        polar.with_overrides(polar.variant("polar-9"), {"size": 257})
    assert polar.with_overrides(polar.variant("polar-9"), {"size": 255}).size == 255
    # The largest score there is: one group covering the 255x255 board, all black
    # but one stone, under score_n = group: T(255**2), just below 2**31.
    board = Board(255, score_n="group")
    board.setup(0, "white")
    for p in range(1, 255 * 255):
        board.setup(p, "black")
    assert board.score() == (triangular(255 * 255), 0)
    assert triangular(255 * 255) < 2**31 <= triangular(257 * 257)


def test_p1_board_side_257_is_a_one_line_usage_error_from_the_cli(tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["simulate", "--game", "polar", "--set", "size=257", "--strategies",
                                   "random,random", "--games", "2", "--out", str(out), "--workers", "0", "--quiet"])
    assert res.exit_code == 2, res.output
    assert "bad value for knob size" in res.output and "255" in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_p1_named_variants_exist_with_their_knobs():
    found = get_game("polar").variants()
    assert found["polar-9"] == PolarRules()
    assert [found[f"polar-{s}"].size for s in (9, 11, 13)] == [9, 11, 13]
    assert found["polar-9-noswap"].swap is False
    assert found["polar-9-groupscore"].score_n == "group"
    assert found["polar-9-komi"] == PolarRules(swap=False, komi=7.5)
    assert get_game("polar").default_variant == "polar-9"


def test_p4_lone_stone_is_legal_for_both_colours():
    board = Board(5)
    assert board.is_legal((2, 2), "black") and board.is_legal((2, 2), "white")
    assert len(board.legal_moves("black")) == 25


def test_p4_stone_joining_three_sections_is_illegal():
    board = Board.from_rows(["XO...", ".....", ".....", ".....", "....."])
    assert not board.is_legal((2, 0), "black")  # X O X: a second black section
    assert board.is_legal((2, 0), "white")  # joins the white section


def test_p4_stone_between_two_groups_of_its_opponent_is_illegal():
    board = Board.from_rows(["X.X..", ".....", ".....", ".....", "....."])
    assert not board.is_legal((1, 0), "white")  # X O X
    assert board.is_legal((1, 0), "black")  # one black section


def test_p4_merging_two_two_colour_groups_through_one_colour_is_illegal():
    board = Board.from_rows(["XO.OX", ".....", ".....", ".....", "....."])
    # White at (2,0) joins both white sections, but the two black ones stay apart.
    assert not board.is_legal((2, 0), "white")
    assert not board.is_legal((2, 0), "black")


def test_p4_legal_merge_of_a_two_colour_group_and_a_one_colour_group():
    board = Board.from_rows(["XO.O.", ".....", ".....", ".....", "....."])
    assert board.is_legal((2, 0), "white")
    board = Board.from_rows(["XO.O.", ".....", ".....", ".....", "....."], to_move="white")
    board.play((2, 0))
    assert board.score() == (0, triangular(3))  # X OOO: white holds the larger section


def test_p4_stone_touching_a_group_only_through_its_own_section_is_legal():
    board = Board.from_rows(["XO...", "X....", ".....", ".....", "....."])
    assert board.is_legal((0, 2), "black")
    assert not board.is_legal((0, 2), "white")  # touches only the black section: third section
    assert board.is_legal((1, 1), "white")  # touches black (0,1) and white (1,0): still two


def test_p4_illegal_move_is_refused():
    board = Board.from_rows(["XO...", ".....", ".....", ".....", "....."])
    with pytest.raises(ValueError, match="P4"):
        board.play((2, 0))


def test_p5_pass_is_refused_while_a_legal_move_exists():
    board = Board(5)
    with pytest.raises(ValueError, match="P5"):
        board.play(None)


def test_p5_forced_pass_then_play_again_when_a_move_appears():
    board = Board.from_rows(BLACK_STUCK, to_move="black")
    assert board.legal_moves("black") == []
    assert board.n_legal("white") > 0
    board.play(None)  # black must pass
    assert not board.game_over
    assert board.to_move == 1
    board.play((0, 4))  # white's move gives black a legal point again
    assert board.legal_moves("black") == [16]
    board.play(16)
    assert not board.game_over


def test_p5_game_ends_when_both_must_pass_in_succession():
    board = Board.from_rows(BOTH_STUCK, to_move="white")
    assert board.n_legal("black") == 0 and board.n_legal("white") == 0
    board.play(None)
    assert not board.game_over
    board.play(None)
    assert board.game_over


def test_p6_single_section_group_scores_zero():
    board = Board.from_rows(["XXXXX", ".....", "OOO..", ".....", "....."])
    assert board.score() == (0, 0)
    assert board.groups() == (2, 0)


def test_p6_group_of_two_equal_sections_scores_zero():
    board = Board.from_rows(["XXOO.", ".....", ".....", ".....", "....."])
    assert board.score() == (0, 0)


@pytest.mark.parametrize(
    ("score_n", "expected_n"),
    [("majority", 3), ("group", 5), ("difference", 1)],
)
def test_p6_score_n_reading_of_the_larger_section(score_n, expected_n):
    board = Board.from_rows(["XXXOO", ".....", ".....", ".....", "....."], score_n=score_n)
    assert board.score() == (triangular(expected_n), 0)


def test_p6_designer_triangular_numbers():
    assert [triangular(n) for n in range(1, 8)] == [1, 3, 6, 10, 15, 21, 28]


def test_p6_each_group_scores_for_the_holder_of_its_larger_section():
    board = Board.from_rows(["XXXOO", ".....", "OOOOX", ".....", "XO..."])
    # T(3) for black from row 0, T(4) for white from row 2, the XO pair scores 0
    assert board.score() == (6, 10)
    assert board.groups() == (3, 2)


def test_p6_running_score_follows_a_majority_that_changes_hands():
    board = Board.from_rows(["XXO..", ".....", ".....", ".....", "....."], to_move="white")
    assert board.score() == (3, 0)
    board.play((3, 0))
    assert board.score() == (0, 0)  # 2-2
    board.play((0, 1))  # black grows its section
    assert board.score() == (6, 0)
    board.play((4, 0))
    assert board.score() == (0, 0)  # 3-3
    board.play((4, 4))  # black elsewhere: a lone stone scores nothing
    board.play((2, 1))
    assert board.score() == (0, 10)  # white 4 against black 3


def test_p7_equal_totals_are_a_draw_and_higher_total_wins():
    assert Board.from_rows(BOTH_STUCK).winner() is None
    assert Board.from_rows(BOTH_STUCK).score() == (10, 10)
    assert Board.from_rows(["XXXOO", ".....", ".....", ".....", "....."]).winner() == "black"


def test_p7_komi_is_added_to_whites_total():
    rows = ["XXXOO", ".....", ".....", ".....", "....."]  # black 6, white 0
    assert Board.from_rows(rows).score() == (6, 0)
    got = {komi: Board.from_rows(rows, komi=komi).winner() for komi in (-2.0, 0.0, 5.5, 6.0, 6.5)}
    assert got == {-2.0: "black", 0.0: "black", 5.5: "black", 6.0: None, 6.5: "white"}
    assert Board.from_rows(BOTH_STUCK, komi=0.5).winner() == "white"
    assert Board.from_rows(BOTH_STUCK, komi=-0.5).winner() == "black"


@pytest.mark.parametrize("komi", [0.25, 1e7, -1e7])
def test_p7_komi_must_be_a_half_point_multiple_within_bounds(komi):
    with pytest.raises(ValueError, match="komi"):
        PolarRules(komi=komi)


def test_p7_a_bad_komi_on_the_command_line_is_a_one_line_usage_error(tmp_path):
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["simulate", "--game", "polar", "--set", "komi=0.3", "--games", "2",
                                   "--out", str(out), "--workers", "0", "--quiet"])
    assert res.exit_code == 2, res.output
    assert "bad value for knob komi" in res.output and "multiple of 0.5" in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not out.exists() or not any(out.iterdir())


def test_setting_up_a_point_twice_is_refused_not_a_silently_broken_position():
    board = Board(5)
    board.setup((1, 0), "white")
    with pytest.raises(ValueError, match="already holds a stone"):
        board.setup((1, 0), "black")
    assert board.score() == (0, 0) and board.n_legal("black") == 24
