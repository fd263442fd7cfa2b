"""``polsim report``: one self-contained HTML page of balance measures and plots.

``build_html(data)`` turns a ``report_data.ReportData`` into the page;
``write_report(uris, out, by, where, title)`` opens the runs, gathers,
builds and writes it atomically, returning the path.

The page (``templates/report.html``) has no external resource: plots are
inline SVG (``plots``), styles and the self-check script are inline, and a
Content-Security-Policy forbids any load but ``data:``. Order: headline
table first, then one section per measure group, each plot in a
``<figure class="plot" data-plot="NAME">`` whose caption says what a
designer should read from it. Sections whose columns the runs lack are
left out.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from importlib.metadata import version
from importlib.resources import files
from string import Template

from pipelines import measures_polarity, plots
from pipelines.fastscan import open_for_analysis
from pipelines.display import readable
from pipelines.report_data import ReportData, gather
from pipelines.storage import check_output_file, locate, write_bytes_atomic


FAULT_NAMES = {**measures_polarity.FAULT_NAMES, "any": "any fault"}


@dataclass
class Section:
    id: str
    title: str
    intro: str = ""
    parts: list[str] = field(default_factory=list)

    def plot(self, name: str, svg: str | None, caption: str) -> None:
        if svg is None:  # nothing to draw (e.g. no decided game in any group)
            return
        self.parts.append(f'<figure class="plot" data-plot="{name}">{svg}<figcaption>{caption}</figcaption></figure>')

    def table(self, title: str, rows: list[dict]) -> None:
        if rows:
            self.parts.append(f"<h3>{html.escape(title)}</h3>{html_table(readable(rows))}")

    def html(self) -> str:
        intro = f"<p>{self.intro}</p>" if self.intro else ""
        return f'<section id="{self.id}"><h2>{html.escape(self.title)}</h2>{intro}{"".join(self.parts)}</section>'


def html_table(rows: list[dict]) -> str:
    cols = list(dict.fromkeys(k for r in rows for k in r))
    text = {c: all(isinstance(r.get(c), str) or r.get(c) is None for r in rows) for c in cols}

    def cell(tag: str, col: str, value) -> str:
        cls = ' class="text"' if text[col] else ""
        shown = "—" if value is None else (f"{value:.4g}" if isinstance(value, float) else str(value))
        return f"<{tag}{cls}>{html.escape(shown)}</{tag}>"

    head = "".join(cell("th", c, c.replace("_", " ")) for c in cols)
    body = "".join("<tr>" + "".join(cell("td", c, r.get(c)) for c in cols) + "</tr>" for r in rows)
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _part(key: str, value) -> str:
    """One key of a group as plot text: a seat or a knob by name ("seat 0", "komi 100.5"), else the value."""
    if key == "seat":
        return f"seat {value}"
    if key.startswith("rule_"):  # a sweep's knobs: the values alone ("0.0 · 5") said nothing
        shown = f"{value:g}" if isinstance(value, float) else value
        return f"{key.removeprefix('rule_')} {shown}"
    return str(value)


def seat_note(games: str) -> str:
    """What seat 0 is in the report's game(s) (``GameDef.seat_note``; ``games`` as ReportData.game)."""
    from rules.base import UsageError, get_game

    try:
        notes = {name: get_game(name).seat_note for name in games.split(", ")}
    except UsageError:
        return "seat 0 moves first"
    return "; ".join(f"{name}: {note}" for name, note in notes.items()) if len(notes) > 1 else next(iter(notes.values()))


def label(row: dict, keys: list[str], default: str = "all games") -> str:
    """The row's group as plot text; a key named twice (``strategy`` by ``--by strategy``) is shown once."""
    return " · ".join(_part(k, row.get(k)) for k in dict.fromkeys(keys)) or default


def _interval_plot(rows: list[dict], keys: list[str], stem: str, xlabel: str, ref, percent=True) -> str | None:
    est = f"{stem}_rate" if f"{stem}_rate" in rows[0] else stem
    usable = [r for r in rows if r.get(est) is not None and r.get(f"{stem}_lo") is not None]
    if not usable:
        return None
    return plots.intervals([label(r, keys) for r in usable], [r[est] for r in usable],
                           [r[f"{stem}_lo"] for r in usable], [r[f"{stem}_hi"] for r in usable],
                           xlabel, ref, percent)


def _series(rows: list[dict], keys: list[str]) -> dict[str, list[tuple[float, float, int]]]:
    out: dict[str, list] = {}
    for r in rows:
        out.setdefault(label(r, keys), []).append((r["lo"], r["hi"], r["count"]))
    return out


def headline(data: ReportData) -> Section:
    sec = Section("headline", "Headline")
    keys = data.keys
    length = {label(r, keys): r for r in data.tables.get("length", [])}
    decided = {label(r, keys): r for r in data.tables.get("decisiveness", [])}
    rows = []
    for b in data.tables.get("balance", []):
        name = label(b, keys)
        row = {k: b[k] for k in keys}
        row.update(games=b["games"], balance=b["balance"], balance_lo=b["balance_lo"], balance_hi=b["balance_hi"])
        for stem in ("first_player_adv", "draw", "completion", "safety_limit"):
            row.update({f"{stem}_{s}": b[f"{stem}_{s}"] for s in ("rate", "lo", "hi")})
        if name in length:
            row.update(mean_turns=length[name]["mean"], mean_turns_lo=length[name]["mean_lo"],
                       mean_turns_hi=length[name]["mean_hi"])
        if name in decided:
            row.update({f"decided_early_{s}": decided[name][f"early_{s}"] for s in ("rate", "lo", "hi")})
        rows.append(row)
    sec.intro = ("Balance = 1 − |score rate of seat 0 − score rate of seat 1| (draws as half wins; 1 is perfectly "
                 "balanced). First-player advantage = seat 0's score rate − ½. Completion = share of games with a "
                 "winner; safety limit = share stopped by a turn or step cap, or stalled (both players giving up).")
    sec.parts.append(html_table(readable(rows)))
    sec.table("Strategies", data.tables.get("strategies", []))
    return sec


def outcome(data: ReportData) -> Section:
    sec = Section("outcome", "Outcomes: strategies and seats")
    t, keys = data.tables, data.seat_keys
    if t.get("strategies"):
        sec.plot("win-strategy", _interval_plot(t["strategies"], ["strategy", *keys], "win", "win rate", 0.5),
                 "<b>Win rate per strategy</b> with 95 % intervals. A strategy whose bar lies wholly right of the "
                 "dashed 50 % line beats its opponents in this run; overlapping bars are not yet told apart.")
    if t.get("seats"):
        sec.plot("win-seat", _interval_plot(t["seats"], ["seat", *keys], "win", "win rate", 0.5),
                 f"<b>Win rate per seat</b> ({seat_note(data.game)}). Bars that miss 50 % on the same side show a "
                 "seat advantage the rules may need to correct.")
    if t.get("strategy_seat"):
        sec.plot("win-strategy-seat", _interval_plot(t["strategy_seat"], ["strategy", "seat", *keys], "win",
                                                     "win rate", 0.5),
                 "<b>Win rate per strategy and seat.</b> If a strategy's two rows differ a lot, the seat matters "
                 "more for that style of play.")
    sec.table("Seats", t.get("seats", []))
    sec.table("Strategy × seat", t.get("strategy_seat", []))
    return sec


def scores(data: ReportData) -> Section:
    sec = Section("scores", "Scores and margins")
    h = data.hists
    if h.get("scores"):
        sec.plot("scores", plots.histograms(_series(h["scores"], ["seat", *data.seat_keys]), "final score"),
                 "<b>Final score per seat</b> (with White's komi, where the runs have one, as the winner is "
                 "read). Shifted curves mean one seat scores more; a long right tail means occasional runaway games.")
    if h.get("margin"):
        sec.plot("margins", plots.histograms(_series(h["margin"], data.keys), "score of seat 0 − score of seat 1"),
                 "<b>Score margin</b> from seat 0's side (with White's komi, where the runs have one). Mass at 0 is drawish; a centre away from 0 is a seat "
                 "edge; a wide spread means lopsided games.")
    sec.table("Margins |score 0 − score 1|", data.tables.get("margins", []))
    return sec


def length(data: ReportData) -> Section:
    sec = Section("length", "Game length and decisiveness")
    h = data.hists
    if h.get("length"):
        sec.plot("length", plots.histograms(_series(h["length"], data.keys), "turns of play per game"),
                 "<b>Turns of play per game</b> (a Polarity game's foundation placements left out). A narrow peak is a predictable play time; a bump at the right end can "
                 "be games running into the safety limit.")
    if h.get("decided"):
        sec.plot("decided", plots.histograms(_series(h["decided"], data.keys),
                                             "share of the game played when the winner took a lead it kept"),
                 "<b>Decisiveness.</b> Mass near 0: the winner leads from the start and the rest is played out; "
                 "mass near 1: games stay open until the end (comebacks or sudden ends).")
    sec.table("Length (turns)", data.tables.get("length", []))
    sec.table("Decisiveness", data.tables.get("decisiveness", []))
    sec.table("End reasons", data.tables.get("end_reasons", []))
    sec.table("Failures", data.tables.get("failures", []))
    return sec


def polarity(data: ReportData) -> Section | None:
    t, keys = data.tables, data.keys
    if not any(t.get(n) for n in ("faults", "red_colour", "seat_ends", "attempts")):
        return None
    sec = Section("polarity", "Polarity: faults, captures, towers and the red disc")
    order = list(FAULT_NAMES)
    place = sorted((r for r in t.get("faults", []) if r["phase"] == "place"),
                   key=lambda r: order.index(r["kind"]) if r["kind"] in order else len(order))
    place = [{**r, "kind": FAULT_NAMES.get(r["kind"], r["kind"])} for r in place]
    if place:
        sec.plot("faults", _interval_plot(place, ["kind", *keys], "fault", "fault rate per placement", None),
                 "<b>Fault rate per placement by kind</b> (R6: a discs come to touch, b a leaner falls, c a disc "
                 "snaps to the hand, d a foundation or tower moves, e a disc leaves the circle; r the red disc moved, s a "
                 "disc separated from a capture; any: a placement with at least one). The largest "
                 "kinds are the ones a physics or rule change moves most.")
    if t.get("red_colour"):
        sec.plot("red-colour", _interval_plot(t["red_colour"], ["red_orientation", "colour", *data.seat_keys], "win",
                                              "win rate", 0.5),
                 "<b>Win rate by red orientation and colour.</b> If one colour wins more under one orientation, "
                 "the red disc's set-up favours that colour.")
    if t.get("red_losses"):
        sec.plot("red-losses", _interval_plot(t["red_losses"], ["red_orientation", "colour", *data.seat_keys],
                                              "lost_to_red", "share of games lost to the red disc", None),
                 "<b>Games lost to the red disc (R14, R15) by red orientation and colour.</b> The colour whose "
                 "discs the red disc pulls in loses more of its games this way.")
    if data.hists.get("captures"):
        sec.plot("captures", plots.histograms(_series(data.hists["captures"], keys), "discs per capture",
                                              "share of captures"),
                 "<b>Size of captures.</b> Big captures are big swings in tower count.")
    sec.table("Faults per action by kind", t.get("faults", []))
    sec.table("Attempts per placement", t.get("attempts", []))
    sec.table("Conversions per game", t.get("conversions", []))
    sec.table("Discs per capture", t.get("captures", []))
    sec.table("Per seat at the end (stacks, towers, faults…)", t.get("seat_ends", []))
    sec.table("Red orientation × colour", t.get("red_colour", []))
    sec.table("Losses to the red disc", t.get("red_losses", []))
    sec.table("Foundations: distance from the red disc (mm, a seat's mean per game)", t.get("foundations", []))
    return sec


MAX_OPENING_ROWS = 130  # one plot row per opening class and group: 9x9 has 40 classes, 11x11 60


def polar(data: ReportData) -> Section | None:
    t, keys = data.tables, data.keys
    if not any(t.get(n) for n in ("swap", "passes", "colours", "komi", "opening_balance")):
        return None
    sec = Section("polar", "Polar: colours, komi, swap rule, openings and passes")
    if t.get("colours"):
        sec.plot("colours", _interval_plot(t["colours"], ["colour", *data.seat_keys], "win", "win rate", 0.5),
                 "<b>Win rate per colour.</b> With the swap rule a fair opening leaves both colours near 50 %.")
    if data.hists.get("black_margin"):
        sec.plot("komi", plots.above(_series(data.hists["black_margin"], keys), "komi for White (points)",
                                     "Black's wins"),
                 "<b>Komi</b> (P7): at each point k, the share of games Black leads on the board by k or more, "
                 "that is Black's wins if White were given a komi of k − ½. Where the curve crosses 50 % "
                 "is the fair komi (the komi table gives it exactly). Exact for random and greedy players, who "
                 "play the same moves whatever the komi; a searching player (MCTS) plays for a larger lead "
                 "against a komi, so there it is a first estimate.")
    if t.get("swap"):
        sec.plot("swap", _interval_plot(t["swap"], ["proposer", "chooser", "pick", *keys], "chooser_win",
                                        "chooser's win rate", 0.5),
                 "<b>Swap rule:</b> seat 0 proposes the opening, seat 1 picks a colour. The chooser's win rate per "
                 "pick shows whether the proposer leaves a fair choice (both near 50 %) or the chooser profits.")
    if t.get("openings") and len(t["openings"]) <= MAX_OPENING_ROWS:
        sec.plot("openings", _interval_plot(t["openings"], ["opening", "size", *keys], "black_score",
                                            "Black's score rate", 0.5),
                 "<b>Openings</b> (P2), from White's best to Black's: Black's score rate (a draw half a win) per "
                 "opening class, an opening and its images under the board's rotations and reflections. With "
                 "the swap rule a proposer who knows these would offer one near 50 %.")
    if data.hists.get("passes"):
        sec.plot("passes", plots.histograms(_series(data.hists["passes"], keys), "forced passes per game"),
                 "<b>Forced passes</b> (the two final passes included). Many passes mean players run out of "
                 "legal moves early.")
    sec.table("Colours", t.get("colours", []))
    sec.table("Komi (P7): Black's lead on the board, and the komi for White that would even the wins "
              "(exact for random and greedy players; a first estimate where a seat searches with the komi)",
              t.get("komi", []))
    sec.table("Swap: who proposes, what the chooser picks", t.get("swap", []))
    sec.table("Passes per game", t.get("passes", []))
    sec.table("Openings: how many favour each colour", t.get("opening_balance", []))
    sec.table("Openings, class by class (B(row,col)-W(row,col) from the corner nearest the black stone)",
              t.get("openings", []))
    return sec


def comparison(data: ReportData) -> Section | None:
    keys, b = data.keys, data.tables.get("balance", [])
    if not keys or len(b) < 2:
        return None
    sec = Section("comparison", "Comparison: " + ", ".join(keys))
    sec.intro = "One row per " + " · ".join(keys) + ": the same measures side by side."
    sec.plot("compare-balance", _interval_plot(b, keys, "balance", "balance score", 1.0),
             "<b>Balance per group.</b> Closer to 100 % is fairer between the seats; non-overlapping bars are a "
             "real difference between the variants or runs.")
    sec.plot("compare-first-player", _interval_plot(b, keys, "first_player_adv", "first-player advantage", 0.0),
             "<b>First-player advantage per group</b> (seat 0's score rate − ½). Left of 0: the second player is "
             "ahead.")
    if data.tables.get("length"):
        sec.plot("compare-length", _interval_plot(data.tables["length"], keys, "mean", "mean turns of play per game",
                                                  None, percent=False),
                 "<b>Mean game length per group</b> with its 95 % interval.")
    return sec


def runs_section(data: ReportData) -> Section:
    sec = Section("runs", "Runs", html.escape(data.note[0].upper() + data.note[1:] + ".") if data.note else "")
    sec.parts.append(html_table(data.runs))
    return sec


def grouping(data: ReportData) -> str:
    """How the page is grouped, for its subtitle; seat-level keys group only the per-seat tables."""
    seat_only = [k for k in data.seat_keys if k not in data.keys]
    text = f", grouped by {', '.join(data.keys)}" if data.keys else ""
    if seat_only:
        text += (" (per-seat tables also by " if data.keys else ", per-seat tables grouped by ") + ", ".join(seat_only)
        text += ")" if data.keys else ""
    return text


def build_html(data: ReportData, title: str | None = None) -> str:
    sections = [s for s in (headline(data), comparison(data), outcome(data), scores(data), length(data),
                            polarity(data), polar(data), runs_section(data)) if s is not None]
    nav = "".join(f'<a href="#{s.id}">{html.escape(s.title.split(":")[0])}</a>' for s in sections)
    games = sum(b["games"] for b in data.tables.get("balance", []))
    title = title or f"polsim balance report — {data.game}"
    subtitle = f"{len(data.runs)} run(s), {games:,} games" + grouping(data)
    page = Template(files("pipelines").joinpath("templates/report.html").read_text(encoding="utf-8"))
    selfcheck = files("pipelines").joinpath("templates/selfcheck.js").read_text(encoding="utf-8")
    return page.substitute(title=html.escape(title), subtitle=html.escape(subtitle), nav=nav, selfcheck=selfcheck,
                           body="\n".join(s.html() for s in sections), version=html.escape(version("polsim")))


def write_report(uris: list[str], out: str, by=(), where=(), title: str | None = None) -> str:
    check_output_file(out, "--out")
    con, manifests = open_for_analysis(uris)
    page = build_html(gather(con, manifests, by, where, uris), title)
    target = locate(out)
    write_bytes_atomic(target, page.encode("utf-8"))
    return target.uri if not target.is_local else os.path.abspath(target.path)
