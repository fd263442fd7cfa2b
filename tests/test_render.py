"""Terminal tables: what a narrow terminal shows of them."""

from __future__ import annotations

import io

from rich.console import Console

from pipelines.render import TURN_ROWS, Format, print_tables


def column(text: str, k: int) -> str:
    """The k-th column's cells of a rendered table body, joined (a wrapped value back in one piece)."""
    return "".join(line.split("│")[k + 1].strip() for line in text.splitlines() if line.startswith("│"))


def render(tables: dict, width: int = 80) -> str:
    buf = io.StringIO()
    print_tables(tables, Format.table, Console(file=buf, width=width, color_system=None))
    return buf.getvalue()


def body_lines(text: str) -> list[list[str]]:
    """Each body line's cells, stripped."""
    return [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│")]


BALANCE = {"games": 384, "finished": 384, "seat0_wins": 164, "seat1_wins": 211, "draws": 9, "safety_limited": 1,
           "balance": "87.8 % [78.1, 97.6]", "first_player_adv": "-6.1 % [-10.9, -1.2]",
           "completion": "97.7 % [95.6, 98.8]", "draw": "2.3 % [1.2, 4.4]", "safety_limit": "0.3 % [0.0, 1.5]"}


def test_a_long_table_too_wide_for_the_terminal_wraps_values_between_words_and_cuts_none():
    """Before: at 80 columns a long value showed as 'po…' or '98…'."""
    row = {"variant": "polar 9 groupscore with a long name", "cell": "size=9 swap=false score_n=group",
           "games": 123456789, "note": " ".join(["xxxx"] * 6), "more": " ".join(["yyyy"] * 6)}
    rows = [row] * (TURN_ROWS + 1)
    text = render({"length": rows})
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    cells = [column(text, k).replace(" ", "") for k in range(5)]
    assert cells == ["".join([str(v).replace(" ", "")] * len(rows)) for v in row.values()]


def test_a_long_table_that_would_break_words_reads_as_records_a_line_a_column():
    """Before: compare's verdict at 80 columns folded words into slivers ('mcnemar-c', 'hi2-cc')."""
    rows = [{"test": f"outcome {n}", "method": "mcnemar-chi2-cc", "effect": "win rate -7.3 pts [-10.8, -3.7]",
             "statistic": 14.6, "p": 0.000134, "p_holm": 0.000537, "significant": "YES", "note": "x" * 30}
            for n in range(TURN_ROWS + 1)]
    text = render({"verdict": rows})
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert body_lines(text) == [[k, str(v)] for row in rows for k, v in row.items()]


def test_a_one_row_table_too_wide_for_the_terminal_reads_one_line_a_column():
    """Before: the eleven balance measures at 80 columns were folded into slivers ('first_pl', 'ayer_adv')."""
    text = render({"balance": [BALANCE]})
    assert body_lines(text) == [[k, str(v)] for k, v in BALANCE.items()]
    assert max(len(line) for line in text.splitlines()) <= 80


def test_a_short_wide_table_turned_is_headed_by_the_cells_that_tell_its_rows_apart():
    rows = [{"strategy": s, "seat": seat, **{k: v for k, v in BALANCE.items() if k != "games"}}
            for s in ("aggressive", "cautious") for seat in (0, 1)]
    text = render({"strategy_seat": rows}, width=160)
    header = next(line for line in text.splitlines() if line.startswith("┃"))
    assert [h.strip() for h in header.split("┃")[1:-1]] == [
        "", "strategy aggressive, seat 0", "strategy aggressive, seat 1",
        "strategy cautious, seat 0", "strategy cautious, seat 1"]
    assert [line[0] for line in body_lines(text)] == list(rows[0])[2:]


def test_a_table_that_fits_the_terminal_keeps_its_shape():
    text = render({"balance": [BALANCE]}, width=250)
    header = next(line for line in text.splitlines() if line.startswith("┃"))
    assert [h.strip() for h in header.split("┃")[1:-1]] == list(BALANCE)
    assert body_lines(text) == [[str(v) for v in BALANCE.values()]]


def test_rows_alike_turned_keep_every_value():
    text = render({"balance": [BALANCE, BALANCE]})
    header = next(line for line in text.splitlines() if line.startswith("┃"))
    assert [h.strip() for h in header.split("┃")[1:-1]] == ["", "row 1", "row 2"]
    assert body_lines(text) == [[k, str(v), str(v)] for k, v in BALANCE.items()]


def test_a_bracketed_value_shows_as_given_not_as_markup():
    """Before: a run folder ``runs[old]`` showed as ``runs`` (rich read ``[old]`` as a style)."""
    row = {"run": "runs[old]", "note": "[bold]kept[/bold]", "games": 12}
    assert body_lines(render({"runs": [row]}, width=200)) == [["runs[old]", "[bold]kept[/bold]", "12"]]
    wide = {**row, "detail": "d" * 30, "also": "e" * 20}
    turned = render({"runs": [wide, {**wide, "run": "runs[new]"}]}, width=80)  # labelled by run, a column a row
    assert "┃ run runs[old]" in turned and "┃ run runs[new]" in turned
    assert body_lines(turned)[0] == ["note", "[bold]kept[/bold]", "[bold]kept[/bold]"]
    wider = {**row, "detail": "d" * 60}  # turned, two such columns would break it: records
    records = render({"runs": [wider, {**wider, "run": "runs[new]"}]}, width=80)
    assert body_lines(records)[:2] == [["run", "runs[old]"], ["note", "[bold]kept[/bold]"]]


def test_whole_and_half_points_show_exactly_and_no_number_in_e_notation():
    """Before: a komi of 100.5 showed as 100 and 999.7 as 1e+03 (three significant figures; a helper's audit)."""
    row = {"komi": 100.5, "fair": -840.5, "mean": 999.7, "sd": 2.345, "big": 123456.25, "p": 1.5e-7}
    assert body_lines(render({"komi": [row, row, row, row, row]}, width=200))[0] == [
        "100.5", "-840.5", "1000", "2.35", "123456", "1.5e-07"]


def test_a_turned_table_squeezed_to_the_terminal_breaks_no_word():
    """Before: rich shrank the widest columns first and broke words that fitted: 'safety_limite' over 'd',
    'first_player_' over 'adv', in a sweep's four cells at 80 columns."""
    rows = [{"rule_komi": komi, "rule_size": size, **{k: v for k, v in BALANCE.items()}}
            for komi in (0, 100.5) for size in (5, 7)]
    text = render({"balance": rows})
    assert max(len(line) for line in text.splitlines()) <= 80
    labels = [line[0] for line in body_lines(text) if line[0]]
    assert labels == list(BALANCE)
    words = {w for row in rows for v in row.values() for w in str(v).split()}
    cells = {w for line in body_lines(text) for cell in line[1:] for w in cell.split()}
    assert cells <= words  # every word in a cell is a whole word of some value


def test_a_cross_table_too_wide_is_never_turned_so_each_row_keeps_its_strategys_scores():
    """Before: a tournament's three-strategy cross table at 80 columns was turned: row 'random', column
    'strategy greedy' showed greedy's 61.3 % against random, read as random's (a transposed matrix)."""
    names = ["random", "greedy", "greedy:epsilon=0.2"]
    cell = {("random", "greedy"): "38.8 % (77-1-122)", ("greedy", "random"): "61.3 % (122-1-77)"}
    rows = [{"strategy": a, **{b: cell.get((a, b), "—" if a == b else "50.0 % (50-0-50) and some more words")
                               for b in names}} for a in names]
    text = render({"cross_table": rows})
    header = next(line for line in text.splitlines() if line.startswith("┃"))
    assert [h.strip() for h in header.split("┃")[1:-1]][0] == "strategy"
    random_row = " ".join(" ".join(c) for c in body_lines(text)[:2])
    assert random_row.startswith("random") and "38.8 %" in random_row and "61.3 %" not in random_row
