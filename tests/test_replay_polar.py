"""Replays of Polar games: they equal their stored rows, their traces agree with
the stored tables (P4, P6), and the page draws the stones the turns table has
on the board, with no script errors, offline."""

from __future__ import annotations

import json
import os
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.dataset import open_runs
from pipelines.replay import frames, replay
from pipelines.replay_page import build_html, frame_index, page_data, write_html
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment
from rules.base import get_game
from tests.chromium import chromium, dump_dom, file_url  # noqa: F401  (fixture)


@pytest.fixture(scope="module")
def polar_run(tmp_path_factory):
    """Two cells (swap on and off) of six seeded games each."""
    exp = Experiment(
        game="polar", variant="polar-9",
        cells=(Cell(matchup=("random", "greedy")), Cell(matchup=("greedy", "random"), overrides={"swap": False})),
        games=6, seed=11, shard_size=4,
    )
    return run_experiment(exp, str(tmp_path_factory.mktemp("runs")), workers=0).uri


def stored_turns(uri: str, game: int) -> list[dict]:
    con, _ = open_runs([uri])
    cur = con.execute("SELECT * FROM turns WHERE game_index = ? ORDER BY turn", [game])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def stones_on_board(turns: list[dict], turn: int) -> int:
    """What the turns table says: two opening stones, then one per move that is not a pass."""
    return sum(2 if t["turn"] == 0 else int(t["point"] >= 0) for t in turns if t["turn"] <= turn)


def test_every_polar_game_of_a_sample_replays_to_its_stored_row_and_turns(polar_run):
    for game in range(12):
        rep = replay(polar_run, game)
        assert rep.reproduced, rep.failure_message()
        assert rep.stored["game_index"] == game and len(rep.stored_turns) == rep.stored["n_turns"]
        assert rep.replayed["score_0"] == rep.stored["score_0"] and rep.replayed["cell"] == game // 6


def test_polar_trace_final_board_scores_and_groups_match_the_stored_row(polar_run):
    for game in (0, 7):
        rep = replay(polar_run, game)
        fr = frames(rep)
        assert len(fr) == len(rep.stored_turns)
        last, row = fr[-1], rep.stored
        assert len(last["groups"]) == row["n_groups"]
        assert sum(1 for g in last["groups"] if sum(g["points"])) == row["n_scoring_groups"]
        assert sum(g["points"][0] for g in last["groups"]) == row["black_score"]
        assert sum(g["points"][1] for g in last["groups"]) == row["white_score"]
        assert last["scores"] == [row["score_0"], row["score_1"]]


def test_polar_trace_groups_partition_the_stones_into_at_most_two_sections(polar_run):
    rep = replay(polar_run, 3)
    for f in frames(rep):
        cells = [tuple(c) for g in f["groups"] for c in g["cells"]]
        assert sorted(cells) == sorted((x, y) for x, y, _ in f["stones"])
        for g in f["groups"]:  # P4: a group is one section, or one black and one white section
            assert g["black"] + g["white"] == len(g["cells"])
            colours = {c for x, y, c in f["stones"] if [x, y] in g["cells"]}
            assert (g["black"] > 0) == (0 in colours) and (g["white"] > 0) == (1 in colours)


def test_stones_in_each_frame_follow_the_turns_table(polar_run):
    rep = replay(polar_run, 5)
    turns = stored_turns(polar_run, 5)
    for f in frames(rep):
        assert len(f["stones"]) == stones_on_board(turns, f["turn"])


def test_page_embeds_everything_and_loads_nothing(polar_run):
    rep = replay(polar_run, 2)
    page = build_html(page_data(rep, frames(rep)))
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "</script" not in page.split('id="replay-data">', 1)[1].split("</script>", 1)[0]


def test_page_shows_a_run_named_like_a_placeholder_as_named(tmp_path):
    """Before: the page's placeholders were filled one after another, so a run named 'r__DATA__'
    had the game's JSON pasted into its title, and one named 'r__GAME__' read 'rpolar'."""
    exp = Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("greedy", "random")),),
                     games=1, seed=3, shard_size=1)
    for run_id in ("r__DATA__", "r__GAME__"):
        rep = replay(run_experiment(exp, str(tmp_path), run_id=run_id, workers=0).uri, 0)
        page = build_html(page_data(rep, frames(rep)))
        assert f"<title>Polar game 0 of {run_id}</title>" in page
        assert page.count('id="replay-data"') == 1


def test_page_names_the_komi_that_decided_the_winner(tmp_path):
    exp = Experiment(game="polar", variant="polar-9-komi", cells=(Cell(matchup=("greedy", "random")),),
                     games=2, seed=3, shard_size=2)
    rep = replay(run_experiment(exp, str(tmp_path), workers=0).uri, 1)
    assert rep.reproduced
    assert "(komi 7.5 for White)" in build_html(page_data(rep, frames(rep)))
    plain = replay(run_experiment(exp.model_copy(update={"variant": "polar-9-noswap"}), str(tmp_path), workers=0).uri, 1)
    header = re.search(r'<p class="meta">seat 0:.*?</p>', build_html(page_data(plain, frames(plain))), re.S).group(0)
    assert "stored result" in header and "(komi" not in header


def test_the_game_over_line_names_the_komi_that_decided_the_winner(chromium, tmp_path):
    """Before: "Game over: both_passed; winner seat 1; scores 55 – 3", the winner the lower score
    with the komi said only in the header (a helper's chromium audit)."""
    exp = Experiment(game="polar", variant="polar-9-komi", cells=(Cell(matchup=("greedy", "random")),),
                     games=2, seed=3, shard_size=2)
    rep = replay(run_experiment(exp, str(tmp_path / "runs"), workers=0).uri, 1)
    page = tmp_path / "game.html"
    write_html(page_data(rep, frames(rep)), str(page))
    dom = dump_dom(chromium, file_url(page), tmp_path)  # the last turn: the game is over
    end = re.search(r'<p class="end">.*?</p>', dom, re.S).group(0)
    assert "(komi 7.5 for White)" in end, end


@pytest.mark.parametrize("turn", [0, 9, 30])
def test_polar_page_at_a_turn_draws_the_stones_the_turns_table_has_on_the_board(chromium, polar_run, tmp_path, turn):
    rep = replay(polar_run, 1)
    data = page_data(rep, frames(rep))
    page = tmp_path / "game.html"
    write_html(data, str(page))
    dom = dump_dom(chromium, file_url(page, f"turn={turn}"), tmp_path)
    assert 'data-checked="clean"' in dom, re.search(r'<pre id="page-errors".*?</pre>', dom, re.S).group(0)
    board = re.search(r'<svg id="board"[^>]*>', dom).group(0)
    expected_turn = data["frames"][frame_index(data["frames"], turn)]["turn"]
    assert f'data-turn="{expected_turn}"' in board
    drawn = int(re.search(r'data-drawn="(\d+)"', board).group(1))
    assert drawn == stones_on_board(stored_turns(polar_run, 1), turn)
    assert len(re.findall(r'class="stone"', dom)) == drawn
    slider = re.search(r'<input id="slider"[^>]*>', dom).group(0)
    assert f'max="{len(data["frames"]) - 1}"' in slider


def test_page_self_check_reports_a_script_error(chromium, polar_run, tmp_path):
    rep = replay(polar_run, 1)
    page = build_html(page_data(rep, frames(rep))).replace("function show(index) {", "function show(index) { undefinedCall();")
    path = tmp_path / "broken.html"
    path.write_text(page)
    dom = dump_dom(chromium, file_url(path), tmp_path)
    assert 'data-checked="errors"' in dom and "undefinedCall" in dom


def komi_run(overrides=None, shard_size=4) -> Experiment:
    return Experiment(game="polar", variant="polar-9", games=4, seed=5, shard_size=shard_size,
                      cells=(Cell(matchup=("greedy", "random"), overrides=overrides or {}),))


def as_before_the_komi(uri, shards=(0,)):
    """Rewrite these games shards as code from before the komi knob stored them: no rule_komi
    column, the variant hash made without it."""
    old_hash = get_game("polar").variant("polar-9").variant_hash(without=["komi"])
    for number in shards:
        shard = os.path.join(uri, "games", f"shard-{number:05d}.parquet")
        table = pq.read_table(shard)
        table = table.drop_columns(["rule_komi"]).set_column(
            table.schema.get_field_index("variant_hash"), "variant_hash", pa.array([old_hash] * table.num_rows))
        pq.write_table(table, shard)
    return uri


def made_before_the_komi(tmp_path, overrides=None):
    return as_before_the_komi(run_experiment(komi_run(overrides), str(tmp_path), workers=0).uri)


def test_a_run_made_before_a_knob_replays_with_the_knob_at_its_default(tmp_path):
    rep = replay(made_before_the_komi(tmp_path), 2)
    assert rep.reproduced, rep.failure_message()
    assert rep.predates == ["komi"] and "predates knob komi" in rep.summary()


def test_a_missing_knob_column_with_another_hash_is_still_a_difference(tmp_path):
    uri = made_before_the_komi(tmp_path)
    shard = os.path.join(uri, "games", "shard-00000.parquet")
    table = pq.read_table(shard)
    table = table.set_column(table.schema.get_field_index("variant_hash"), "variant_hash",
                             pa.array(["not-the-hash"] * table.num_rows))
    pq.write_table(table, shard)
    rep = replay(uri, 2)
    assert [d.column for d in rep.differences] == ["variant_hash"]


def test_a_missing_knob_column_is_a_difference_when_the_run_did_not_play_its_default(tmp_path):
    rep = replay(made_before_the_komi(tmp_path, {"komi": 2.5}), 2)
    assert "rule_komi" in [d.column for d in rep.differences] and rep.predates == []


def test_a_run_made_before_a_knob_resumes_and_every_game_replays(tmp_path):
    """Two shards stored before the knob, two played by a resume today: the run reads as one
    and each game replays as reproduced."""
    exp = komi_run(shard_size=1)
    uri = as_before_the_komi(run_experiment(exp, str(tmp_path), workers=0).uri, shards=(0, 1))
    manifest_file = os.path.join(uri, "manifest.json")
    manifest = json.load(open(manifest_file))
    for number, _, _ in manifest["shards"][2:]:
        for kind in ("games", "turns"):
            os.remove(os.path.join(uri, kind, f"shard-{number:05d}.parquet"))
    manifest.update(shards=manifest["shards"][:2], status="incomplete", games_done=2)
    json.dump(manifest, open(manifest_file, "w"))
    run_experiment(exp, str(tmp_path), run_id=manifest["run_id"], resume=True, workers=0)
    con, _ = open_runs([uri])
    assert con.execute("SELECT count(*), count(rule_komi) FROM games").fetchone() == (4, 2)
    for game in range(4):
        rep = replay(uri, game)
        assert rep.reproduced, rep.failure_message()
        assert rep.predates == (["komi"] if game < 2 else [])


@pytest.mark.parametrize("cells", [
    {(0, 0)},                                                   # one stone
    {(0, 0), (1, 0), (2, 0)},                                   # a bar
    {(0, 0), (1, 0), (0, 1)},                                   # an L: one concave corner
    {(0, 0), (1, 0), (0, 1), (1, 1)},                           # a square
    {(0, 0), (0, 1), (1, 1), (2, 1), (2, 0)},                   # a U
    {(x, y) for x in range(3) for y in range(3)} - {(1, 1)},    # a ring: two loops
    {(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)},                   # a staircase: corners meet diagonally
])
def test_a_polar_groups_png_outline_is_closed_whatever_its_shape(cells):
    """The PNG's group outline (replay_page.outline_segments): every end of every edge
    meets exactly one other edge, so the outline has no gaps between cells."""
    from collections import Counter

    from pipelines.replay_page import outline_segments

    segments = outline_segments(cells)
    ends = Counter((round(x, 9), round(y, 9)) for segment in segments for x, y in segment)
    assert set(ends.values()) == {2}
    perimeter_edges = sum((x + dx, y + dy) not in cells for x, y in cells for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    assert len(segments) == perimeter_edges


def _row(turn, colour, point, point2=-1):
    return {"turn": turn, "player": 0, "colour": colour, "point": point, "point2": point2,
            "score_0": 0, "score_1": 0, "n_legal": 0}


@pytest.mark.parametrize("turns, message", [
    ([_row(0, "black", 0, 24), _row(1, "black", 12)], "not adjacent"),          # (0, 0) and (4, 4)
    ([_row(0, "black", 0, 1), _row(1, "white", 12)], "the other colour is to move"),
    ([_row(0, "black", 0, 1), _row(2, "white", 12), _row(3, "black", 18)], "without a gap"),
])
def test_a_corrupt_polar_move_list_raises_instead_of_drawing_a_wrong_board(turns, message):
    from rules.polar.model import PolarRules
    from rules.polar.trace import frames_from_turns

    with pytest.raises(ValueError, match=message):
        frames_from_turns(turns, PolarRules(size=5), "black")
    good = [_row(0, "black", 0, 1), _row(1, "black", 12), _row(2, "white", 18)]
    assert [len(f["stones"]) for f in frames_from_turns(good, PolarRules(size=5), "black")] == [2, 3, 4]
