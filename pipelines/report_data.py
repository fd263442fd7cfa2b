"""Everything the report shows, gathered from duckdb in one place.

``gather(con, manifests, by, where)`` returns a ``ReportData``:

- ``seat_keys``: the grouping asked for (``by``; by default, for several
  runs, ``variant`` when each run has its own, else ``run_id``); the
  per-seat tables and plots (strategies, seats, colours, scores) use all of
  them;
- ``keys``: those of them that exist per game, which the headline, the
  comparison and every per-game table use (``seat``, ``strategy`` and
  ``opponent`` split only the per-seat tables, as in ``polsim analyze``);
- ``tables``: every measure table (``analyze.measure_scope``) for those keys;
- ``hists``: binned distributions for the plots, ``name -> rows`` of group
  keys, ``lo``, ``hi``, ``count`` (``distribution.histogram``): ``length``
  (turns of play per game), ``scores`` (final score per seat), ``margin`` (seat 0's
  score minus seat 1's; scores with White's komi, as the winner is read), ``decided`` (decided fraction), and when recorded
  ``passes`` and ``captures``; ``black_margin`` (Polar: Black's board lead,
  counted exactly in one-point bins, for the komi curve);
- ``runs``: one row per run from its manifest, ``run_id`` as the tables
  show it (``dataset.run_labels``: runs given together that share a run_id
  are told apart by folder; ``note`` then says so).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from pipelines import decisiveness as dec
from pipelines import measures_polar as polar
from pipelines import measures_polarity as polarity
from pipelines.analyze import ON_REQUEST, default_keys, measure_scope
from pipelines.dataset import copies_note, komi_sql, run_labels, shared_run_id_note, stored_notes
from pipelines.distribution import histogram
from pipelines.play_turns import play_turns_sql
from pipelines.scope import Scope


@dataclass
class ReportData:
    keys: list[str]
    tables: dict[str, list[dict]]
    hists: dict[str, list[dict]] = field(default_factory=dict)
    runs: list[dict] = field(default_factory=list)
    game: str = ""
    note: str | None = None
    seat_keys: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.seat_keys = list(dict.fromkeys([*self.keys, *self.seat_keys]))


def _hist_specs(scope: Scope) -> dict[str, tuple[str, str, str]]:
    """name -> (expression, rows, keys) for each distribution the runs support."""
    keys, ok_games = scope.keys_sql(), f"games WHERE status = 'ok' {scope.where_sql}"
    specs = {
        "length": (play_turns_sql(scope.games), ok_games, keys),
        "scores": ("score", f"seats WHERE status = 'ok' {scope.where_sql}", scope.keys_sql(["seat"], seat_level=True)),
        "margin": (f"score_0 + {komi_sql(scope.games, 0)} - score_1 - {komi_sql(scope.games, 1)}", ok_games, keys),
    }
    if dec.available(scope):
        specs["decided"] = ("decided_frac", f"({dec.per_game_sql(scope)})", keys)
    if scope.has("n_passes"):
        specs["passes"] = ("n_passes", ok_games, keys)
    if scope.has("phase", "captured_discs", view="turns"):
        specs["captures"] = ("captured_discs", polarity.turn_rows(scope, "capture", ["captured_discs"]), keys)
    return specs


def _run_row(m: dict, label: str) -> dict:
    spec = m.get("spec", {})
    cells = spec.get("cells", [])
    return {
        "run_id": label, "game": spec.get("game"), "variant": spec.get("variant"),
        "matchups": "; ".join(" vs ".join(c.get("matchup", [])) for c in cells),
        "knobs": "; ".join(dict.fromkeys(", ".join(f"{k}={v}" for k, v in (c.get("overrides") or {}).items())
                                         or "(variant's)" for c in cells)),
        "games": m.get("games_done"), "failed": m.get("games_failed"), "status": m.get("status"),
        "seed": spec.get("seed"), "package": m.get("package_version"), "physics": m.get("physics_version"),
    }


def gather(con: duckdb.DuckDBPyConnection, manifests: list[dict], by=(), where=(),
           uris: list[str] | None = None) -> ReportData:
    """The report of the runs opened in ``con``; ``uris``, as given to ``open_runs``, name runs that share a run_id."""
    keys = default_keys(manifests, by)
    scope = Scope.of(con, keys, where)
    labels = run_labels(uris, manifests) if uris else [m.get("run_id") for m in manifests]
    data = ReportData(keys=scope.game_keys(), tables=measure_scope(scope, asked=ON_REQUEST), seat_keys=keys,
                      runs=[_run_row(m, label) for m, label in zip(manifests, labels)],
                      note="; ".join(n for n in [shared_run_id_note(uris, manifests) if uris else None,
                                                 *stored_notes(con, uris or labels, manifests),
                                                 copies_note(con)] if n) or None)
    for name, (expr, rows, group) in _hist_specs(scope).items():
        bins = 20 if name == "decided" else 40
        data.hists[name] = histogram(scope, expr, rows, group, bins)
    if scope.has("black_score", "white_score", "status"):  # counted exactly: the komi curve needs every step
        data.hists["black_margin"] = [{**{k: r[k] for k in scope.game_keys()}, "lo": r["margin"],
                                       "hi": r["margin"] + 1, "count": r["games"]}
                                      for r in polar.black_margin_counts(scope)]
    data.game = ", ".join(sorted({r["game"] or "?" for r in data.runs}))
    return data
