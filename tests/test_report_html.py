"""The HTML report: self-contained, and in headless Chromium free of errors
with every plot drawn.

The page records its own script errors, ``console.error`` calls and blocked
loads into the DOM and marks each ``figure.plot`` with ``data-drawn``; the
test reads the DOM Chromium dumps after load (``--dump-dom``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest
from typer.testing import CliRunner

from pipelines.cli import app
from pipelines.dataset import open_runs
from pipelines.plots import share_above
from pipelines.report import build_html, write_report
from pipelines.report_data import gather
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment
from tests.test_analyze_measures import polarity_rows, write_run

runner = CliRunner()

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
POLAR_PLOTS = {"win-strategy", "win-seat", "win-strategy-seat", "scores", "margins", "length", "decided",
               "colours", "komi", "swap", "openings", "passes"}
COMPARISON_PLOTS = {"compare-balance", "compare-first-player", "compare-length"}


@pytest.fixture(scope="session")
def chromium():
    """Debian's chromium; installed here when missing (CI starts from a fresh machine)."""
    found = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if found:
        return found
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip("chromium is not installed and cannot be: needs apt-get and root")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    done = subprocess.run("apt-get update -qq && apt-get install -y -qq chromium", shell=True, env=env,
                          capture_output=True, text=True, timeout=1200)
    if done.returncode != 0 or not shutil.which("chromium"):
        pytest.skip(f"installing chromium failed: {done.stderr.strip()[-300:]}")
    return shutil.which("chromium")


class PageState(HTMLParser):
    """What the page's self-check left in the DOM."""

    def __init__(self):
        super().__init__()
        self.checked = None
        self.drawn: dict[str, str] = {}
        self.errors = ""
        self._in_errors = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.checked = a.get("data-checked")
        if tag == "figure" and "data-plot" in a:
            self.drawn[a["data-plot"]] = a.get("data-drawn")
        self._in_errors = tag == "pre" and a.get("id") == "page-errors"

    def handle_endtag(self, tag):
        self._in_errors = False

    def handle_data(self, data):
        if self._in_errors:
            self.errors += data


def open_in_chromium(chromium, page: str, tmp_path) -> PageState:
    profile = tmp_path / "chromium-profile"
    done = subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=10000",
                           "--dump-dom", f"file://{page}"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    state = PageState()
    state.feed(done.stdout)
    return state


def polar(tmp, variant="polar-9", games=60, seed=5):
    exp = Experiment(game="polar", variant=variant, cells=(Cell(matchup=("greedy", "random")),),
                     games=games, seed=seed, shard_size=30)
    return run_experiment(exp, str(tmp), workers=0).uri


@pytest.fixture(scope="module")
def polar_runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    return polar(tmp), polar(tmp, "polar-9-noswap")


def test_polar_report_opens_offline_without_errors_and_draws_every_plot(chromium, polar_runs, tmp_path):
    page = write_report([polar_runs[0]], str(tmp_path / "report.html"))
    state = open_in_chromium(chromium, page, tmp_path)
    assert state.checked == "clean", state.errors
    assert set(state.drawn) == POLAR_PLOTS
    assert all(v == "yes" for v in state.drawn.values()), state.drawn


def test_two_variants_are_compared_side_by_side(chromium, polar_runs, tmp_path):
    page = write_report(list(polar_runs), str(tmp_path / "compare.html"))
    state = open_in_chromium(chromium, page, tmp_path)
    assert state.checked == "clean", state.errors
    assert COMPARISON_PLOTS | POLAR_PLOTS <= set(state.drawn)
    assert all(v == "yes" for v in state.drawn.values()), state.drawn
    text = open(page).read()
    assert text.count("polar-9-noswap") >= 3 and "Comparison: variant" in text


def test_polarity_report_shows_fault_kinds_and_red_orientation(chromium, tmp_path):
    games, turns = polarity_rows()
    run = write_run(tmp_path / "runs", games, turns)
    page = write_report([run], str(tmp_path / "polarity.html"))
    state = open_in_chromium(chromium, page, tmp_path)
    assert state.checked == "clean", state.errors
    assert {"faults", "red-colour", "red-losses", "captures", "win-seat"} <= set(state.drawn)
    assert "swap" not in state.drawn and "passes" not in state.drawn
    assert all(v == "yes" for v in state.drawn.values()), state.drawn
    assert "s · a disc comes apart from a capture" in open(page).read()      # every fault kind is named


def test_page_self_check_reports_script_errors_and_blocked_loads(chromium, polar_runs, tmp_path):
    page = write_report([polar_runs[0]], str(tmp_path / "report.html"))
    text = open(page).read()
    broken = text.replace("</body>", '<img src="https://example.invalid/x.png"><script>console.error("boom");'
                                      "no_such_function();</script></body>")
    bad = tmp_path / "broken.html"
    bad.write_text(broken)
    state = open_in_chromium(chromium, str(bad), tmp_path)
    assert state.checked == "errors"
    assert "boom" in state.errors and "no_such_function" in state.errors
    assert "example.invalid" in state.errors


def test_report_is_one_file_with_no_external_resource(polar_runs, tmp_path):
    con, manifests = open_runs([polar_runs[0]])
    text = build_html(gather(con, manifests))
    assert "<link" not in text and "@import" not in text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text)
    assert not re.search(r"url\(\s*['\"]?https?:", text)
    assert text.index('id="headline"') < text.index('id="outcome"') < text.index('id="scores"')
    figures = re.findall(r'<figure class="plot" data-plot="([a-z-]+)"><svg', text)
    assert set(figures) == POLAR_PLOTS
    assert all(re.search(rf'data-plot="{f}">.*?<figcaption><b>', text, re.S) for f in figures)


def test_swap_table_in_the_report_names_each_colour_picked(polar_runs):
    con, manifests = open_runs([polar_runs[0]])
    text = build_html(gather(con, manifests))
    swap = text[text.index("<h3>Swap:"):].split("</table>")[0]
    assert "<td class=\"text\">black</td>" in swap and "<td class=\"text\">white</td>" in swap
    assert "pick rate</th>" in swap


def test_same_runs_give_the_same_page(polar_runs):
    con, manifests = open_runs([polar_runs[0]])
    assert build_html(gather(con, manifests)) == build_html(gather(con, manifests))


def test_report_command_writes_the_page_and_refuses_a_non_run(polar_runs, tmp_path):
    out = tmp_path / ("sub-" * 30) / "r[1].html"
    res = runner.invoke(app, ["report", polar_runs[0], "--out", str(out), "--title", "Polar 9 check"])
    assert res.exit_code == 0, res.output
    assert "<title>Polar 9 check</title>" in out.read_text()
    assert f"report written → {out}" in res.output.splitlines()          # whole, on one line
    bad = runner.invoke(app, ["report", str(tmp_path), "--out", str(tmp_path / "x.html")])
    assert bad.exit_code == 2 and "not a polsim run" in bad.output
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("key", ["strategy", "seat", "opponent"])
def test_report_by_a_seat_column_groups_the_per_seat_tables_only(polar_runs, tmp_path, key):
    out = tmp_path / f"by-{key}.html"
    res = runner.invoke(app, ["report", polar_runs[0], "--by", key, "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert f"per-seat tables grouped by {key}" in text
    headline = text[text.index('id="headline"'):text.index("<h3>Strategies")]
    assert headline.count("<tr>") == 2  # the header and one row of all games: a game has no seat to split by
    con, manifests = open_runs([polar_runs[0]])
    data = gather(con, manifests, by=[key])
    assert data.keys == [] and data.seat_keys == [key]
    assert all(key in r for r in data.tables["strategies"]) and "seat" in data.hists["scores"][0]
    assert len(data.tables["seats"]) == (2 if key == "seat" else 4)  # seat 0 and 1, split by strategy or opponent


def test_the_same_spec_run_into_two_folders_is_compared_not_pooled(tmp_path):
    base, cand = polar(tmp_path / "base", games=30), polar(tmp_path / "cand", games=30)  # one run_id: the spec's hash
    out = tmp_path / "same.html"
    res = runner.invoke(app, ["report", base, cand, "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text()
    assert 'id="comparison"' in text and "grouped by run_id" in text
    headline = text[text.index('id="headline"'):text.index("<h3>Strategies")]
    assert headline.count("<tr>") == 3 and ">base/polar-polar-9-" in headline and ">cand/polar-polar-9-" in headline
    assert "share the run_id" in text


def test_the_runs_table_names_the_knobs_each_run_set():
    """Before: a standard run and one with foundations=3 both read "standard" there, and nothing on the
    page told them apart (a helper's audit). Here komi=7.5 set on polar-9, against its defaults."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        plain = polar(os.path.join(tmp, "a"), games=10)
        exp = Experiment(game="polar", variant="polar-9", cells=(Cell(matchup=("greedy", "random"),
                         overrides={"komi": 7.5}),), games=10, seed=5, shard_size=30)
        komi = run_experiment(exp, os.path.join(tmp, "b"), workers=0).uri
        con, manifests = open_runs([plain, komi])
        runs = gather(con, manifests, uris=[plain, komi]).runs
    assert [r["knobs"] for r in runs] == ["(variant's)", "komi=7.5"]


def test_a_sweeps_groups_are_labelled_by_knob_name_and_value():
    """Before: a sweep's legends read "0.0 · 5" and "100.5 · 7" (a helper's audit)."""
    from pipelines.report import label

    keys = ["rule_komi", "rule_size", "seat"]
    assert label({"rule_komi": 100.5, "rule_size": 7, "seat": 1}, keys) == "komi 100.5 · size 7 · seat 1"
    assert label({"rule_komi": 0.0, "rule_size": 5, "seat": 0}, keys) == "komi 0 · size 5 · seat 0"
    assert label({"variant": "polar-9"}, ["variant"]) == "polar-9" and label({}, []) == "all games"


def test_komi_curve_is_the_share_of_games_black_leads_by_more_than_each_edge():
    bins = [(-20.0, -10.0, 1), (0.0, 10.0, 2), (10.0, 20.0, 1)]  # the empty bin at -10 .. 0 is filled in
    edges, shares = share_above(bins)
    assert edges == [-20.0, -10.0, 0.0, 10.0, 20.0]
    assert shares == [1.0, 0.75, 0.75, 0.25, 0.0]


def test_polar_report_draws_the_komi_curve_from_every_finished_game(polar_runs):
    con, manifests = open_runs(list(polar_runs))
    data = gather(con, manifests)
    counted = {}
    for row in data.hists["black_margin"]:
        counted[row["variant"]] = counted.get(row["variant"], 0) + row["count"]
    want = dict(con.execute("SELECT variant, count(*) FROM games WHERE status = 'ok' GROUP BY ALL").fetchall())
    assert counted == want and len(want) == 2
    assert 'data-plot="komi"' in build_html(data)


def test_a_folder_named_like_a_formula_is_drawn_as_text(tmp_path):
    """Before: matplotlib read the label 'r$\\bad$/polar-…' as mathtext and the report died on '\\bad'."""
    odd, plain = polar(tmp_path / "r$\\bad$", games=30), polar(tmp_path / "plain", games=30)
    out = tmp_path / "odd.html"
    res = runner.invoke(app, ["report", odd, plain, "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert ">r$\\bad$/polar-polar-9-" in out.read_text()
