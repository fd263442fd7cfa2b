"""Show a replayed game: one self-contained HTML page, or a PNG of one turn.

``page_data(rep, frames)`` gathers what both views draw: the game, run,
seats, the reproducibility check and the frames (one per turns row, formats
in ``rules/<game>/trace.py``).

``build_html(data)`` fills ``replay_templates/replay.html``: the data is
embedded as JSON and drawn as inline SVG by the page's own small script (a
turn slider, play/pause, a side panel); nothing is loaded from the network
(the Content-Security-Policy forbids it). ``#turn=K`` in the URL opens turn
K. The page records its own script errors in ``#page-errors`` and sets
``body[data-checked]``; the board sets ``data-drawn`` to the number of discs
or stones it drew, for tests.

``write_png(data, index, path)`` draws frame ``index`` with matplotlib (no
browser): the same board, a title with the turn and the scores.
``frame_index(frames, turn)`` is the last frame of a turn.
"""

from __future__ import annotations

import html
import json
import math
import re
from importlib.resources import files

from pipelines.replay import Replay, score_text
from pipelines.storage import locate, write_bytes_atomic
from rules.base import UsageError

TEMPLATE = "replay_templates/replay.html"


def page_data(rep: Replay, frames: list[dict]) -> dict:
    return {
        "game": rep.game, "run_id": rep.run_id, "run_uri": rep.run_uri, "game_index": rep.game_index,
        "seed": str(rep.spec.seed), "variant": rep.spec.variant, "cell": rep.cell_label,
        "seats": [str(s) for s in rep.spec.seats], "command": rep.command,
        "stored": {k: rep.stored.get(k) for k in ("winner", "score_0", "score_1", "end_reason", "n_turns", "status", "error")},
        "komi": getattr(rep.spec.rules, "komi", 0.0),  # Polar P7: added to White's total, not to the scores
        "reproduced": rep.reproduced, "differences": [str(d) for d in rep.differences], "frames": frames,
    }


def frame_index(frames: list[dict], turn: int | None) -> int:
    """The last frame of ``turn`` (the last frame of the game when None)."""
    if not frames:
        raise UsageError("the game recorded no turns: nothing to draw")
    if turn is None:
        return len(frames) - 1
    found = [i for i, f in enumerate(frames) if f["turn"] == turn]
    if not found:
        raise UsageError(f"--turn {turn} is out of range: the game has turns {frames[0]['turn']}..{frames[-1]['turn']}")
    return found[-1]


def _header(data: dict) -> str:
    s = data["stored"]
    komi = f" (komi {data['komi']:g} for White)" if data.get("komi") else ""
    meta = (f'<p class="meta">run <code>{html.escape(data["run_id"])}</code> · game {data["game_index"]} · '
            f'seed {data["seed"]} · variant {html.escape(data["variant"])} · {html.escape(data["cell"])}</p>'
            f'<p class="meta">seat 0: {html.escape(data["seats"][0])} · seat 1: {html.escape(data["seats"][1])} · '
            f'stored result: winner {s["winner"]}, scores {score_text(s["score_0"])} – {score_text(s["score_1"])}{komi}, '
            f'end {html.escape(str(s["end_reason"]))}, {s["n_turns"]} turns · '
            f'<code>{html.escape(data["command"])}</code></p>')
    if data["reproduced"]:
        check = '<div id="check" class="ok">Reproduced: the replay equals the stored row and turns.</div>'
    else:
        items = "".join(f"<li>{html.escape(d)}</li>" for d in data["differences"][:30])
        check = (f'<div id="check" class="fail">REPRODUCIBILITY FAILURE: the replay differs from the stored game '
                 f'in {len(data["differences"])} values (the board shows the replay)<ul>{items}</ul></div>')
    return meta + check


def _json_for_script(data: dict) -> str:
    """JSON that cannot close its ``<script>`` element."""
    return json.dumps(data, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")


def build_html(data: dict) -> str:
    template = files("pipelines").joinpath(TEMPLATE).read_text(encoding="utf-8")
    title = f"{data['game'].capitalize()} game {data['game_index']} of {data['run_id']}"
    selfcheck = files("pipelines").joinpath("templates/selfcheck.js").read_text(encoding="utf-8")
    parts = {"SELFCHECK": selfcheck, "TITLE": html.escape(title), "GAME": html.escape(data["game"]),
             "HEADER": _header(data), "DATA": _json_for_script(data)}
    # one pass: a run named 'r__DATA__' keeps its name, not the JSON pasted into it
    return re.sub(r"__(SELFCHECK|TITLE|GAME|HEADER|DATA)__", lambda m: parts[m.group(1)], template)


def write_html(data: dict, out: str) -> str:
    loc = locate(out)
    write_bytes_atomic(loc, build_html(data).encode("utf-8"))
    return loc.uri


# -- still image ---------------------------------------------------------------
def outline_segments(cells: set[tuple[int, int]], inset: float = 0.45) -> list[tuple[tuple, tuple]]:
    """The closed outline of a group of grid cells, ``inset`` from each outer edge's
    cell centre line: a cell's side with no group cell beyond it is an edge, and
    each end of it reaches the neighbouring edge - across the gap to the next
    cell's same side (a straight run), to the inset corner where the group turns
    in (a concave corner), or stops at the cell's own corner (a convex one)."""
    segments = []
    for x, y in cells:
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if (x + dx, y + dy) in cells:
                continue
            tx, ty = abs(dy), abs(dx)                        # along the edge
            ends = []
            for s in (-1, 1):
                beside = (x + s * tx, y + s * ty)
                if beside not in cells:
                    reach = inset                                  # convex corner
                elif (beside[0] + dx, beside[1] + dy) in cells:
                    reach = 1.0 - inset                            # concave: meets the turned edge
                else:
                    reach = 0.5                                    # straight: meets the next cell's
                ends.append((x + dx * inset + s * reach * tx, y + dy * inset + s * reach * ty))
            segments.append((ends[0], ends[1]))
    return segments


def _draw_polar(ax, f: dict) -> None:
    from matplotlib.patches import Circle

    n = f["size"]
    ax.set_facecolor("#e9c98b")
    for i in range(n):
        ax.plot([i, i], [0, n - 1], color="#6d5230", lw=0.8, zorder=1)
        ax.plot([0, n - 1], [i, i], color="#6d5230", lw=0.8, zorder=1)
    for g in f["groups"]:
        colour = "#1565c0" if g["points"][0] else ("#ef6c00" if g["points"][1] else "#7b6a58")
        for (x1, y1), (x2, y2) in outline_segments({tuple(c) for c in g["cells"]}):
            ax.plot([x1, x2], [y1, y2], color=colour, lw=2, zorder=2)
        x0, y0 = g["cells"][0]
        label = f"{g['black']}/{g['white']}" + (f" = {sum(g['points'])}" if sum(g["points"]) else "")
        ax.text(x0 - 0.45, y0 - 0.3, label, fontsize=6, color=colour, zorder=4)
    for x, y, c in f["stones"]:
        ax.add_patch(Circle((x, y), 0.4, facecolor="#111" if c == 0 else "#fff", edgecolor="#333", lw=0.6, zorder=3))
    for m in (f["move"], f["move2"]):
        if m:
            ax.add_patch(Circle(tuple(m), 0.12, color="#e53935", zorder=5))
    ax.set_xlim(-0.8, n - 0.2)
    ax.set_ylim(n - 0.2, -0.8)


def _draw_polarity(ax, f: dict) -> None:
    from matplotlib.patches import Circle, Ellipse, Rectangle

    a, big = f["disc_radius"], f["circle_radius"]
    ax.add_patch(Circle((0, 0), big, facecolor="#2e7d5b", edgecolor="#1b4d37", zorder=0))
    by_id = {b["id"]: b for b in f["bodies"]}
    reacted = set(f["reacted"])
    level: dict[int, int] = {}
    for b in f["bodies"]:
        if b["state"] in ("out", "in_hand"):
            continue
        edge = ("#ff9800", 2.2) if b["id"] in reacted else (("#42a5f5", 1.6) if b["id"] == f["action"] else ("#777", 0.6))
        if b["red"]:
            ax.add_patch(Circle((b["x"], b["y"]), a, facecolor="#c62828", edgecolor=edge[0], lw=edge[1], zorder=2))
            if b["up"] > 0:
                ax.add_patch(Rectangle((b["x"] - 0.6 * a, b["y"] - 0.15 * a), 1.2 * a, 0.3 * a, color="#fff", zorder=3))
            else:
                ax.add_patch(Circle((b["x"], b["y"]), 0.22 * a, color="#fff", zorder=3))
            continue
        fill = "#111" if b["up"] > 0 else "#fafafa"
        if b["state"] in ("leaning", "resting"):
            host = by_id.get(b["leaning_on"])
            angle = math.degrees(math.atan2(host["y"] - b["y"], host["x"] - b["x"])) if host else 0.0
            width = max(a * math.cos(math.radians(b["tilt"])), 1.5)
            ax.add_patch(Ellipse((b["x"], b["y"]), 2 * width, 2 * a, angle=angle, facecolor=fill,
                                 edgecolor=edge[0], lw=edge[1], zorder=4))
        else:
            k = level.get(b["tower"], 0) if b["tower"] >= 0 else 0
            if b["tower"] >= 0:
                level[b["tower"]] = k + 1
            ax.add_patch(Circle((b["x"] + 1.2 * k, b["y"] + 1.2 * k), a, facecolor=fill, edgecolor=edge[0],
                                lw=edge[1], zorder=2 + 0.01 * k))
    for g in f["pending"]:
        for i in g["ids"]:
            if i in by_id:
                ax.add_patch(Circle((by_id[i]["x"], by_id[i]["y"]), a + 3, fill=False, edgecolor="#8e24aa",
                                    lw=1.2, linestyle="--", zorder=5))
    for t in f["towers"]:
        bottom, top = by_id.get(t["ids"][0]), by_id.get(t["ids"][-1])
        if bottom and top:
            k = len(t["ids"]) - 1
            ax.text(bottom["x"] + 1.2 * k, bottom["y"] + 1.2 * k, str(len(t["ids"])), ha="center", va="center",
                    fontsize=9, fontweight="bold", color="#fff" if top["up"] > 0 else "#111", zorder=6)
    m = big + 10
    ax.set_xlim(-m, m)
    ax.set_ylim(-m, m)


def _title(data: dict, f: dict) -> str:
    head = f"{data['game'].capitalize()} game {data['game_index']} · turn {f['turn']}"
    if data["game"] == "polarity":
        head += f" · {f['phase']} {f['outcome']}" + (f" · fault {','.join(f['fault_kinds'])}" if f["fault_kinds"] else "")
    return head + f" · scores {f['scores'][0]:g} – {f['scores'][1]:g}"


def write_png(data: dict, index: int, out: str) -> str:
    """Draw frame ``index`` to a PNG at ``out`` (a local path or URI)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    f = data["frames"][index]
    fig, ax = plt.subplots(figsize=(6, 6.3), dpi=120)
    try:
        (_draw_polar if data["game"] == "polar" else _draw_polarity)(ax, f)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        ax.set_title(_title(data, f), fontsize=9)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    finally:
        plt.close(fig)
    loc = locate(out)
    write_bytes_atomic(loc, buf.getvalue())
    return loc.uri
