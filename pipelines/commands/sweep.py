"""``polsim sweep``: run every combination of knob values on the same seeds
as one run, then print a balance table per cell and name the most balanced."""

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from pipelines.render import Format, print_line, print_tables
from rules.base import UsageError
from rules.seeds import SEEDING

if TYPE_CHECKING:
    from pipelines.sweep import SweepReport


def _interval(value, low, high, scale=1.0, fmt="{:+.1f}") -> str:
    if value is None:
        return "—"
    return f"{fmt.format(scale * value)} [{fmt.format(scale * low)}, {fmt.format(scale * high)}]"


def display_rows(report: "SweepReport") -> list[dict]:
    """The per-cell table as shown in a terminal (intervals as one column)."""
    out = []
    for r in report.cells:
        out.append({
            "cell": r["cell"], "knobs": r["knobs"], "games": r["games"],
            "seat 0 / draw / seat 1": f"{r['seat0_wins']} / {r['draws']} / {r['seat1_wins']}",
            "first-player adv (pts)": _interval(r.get("first_player_adv"), r.get("fpa_lo"), r.get("fpa_hi"), 100),
            "balance": _interval(r.get("balance"), r.get("balance_lo"), r.get("balance_hi"), fmt="{:.3f}"),
            "gap to best": _interval(r.get("gap_to_best"), r.get("gap_lo"), r.get("gap_hi"), fmt="{:.3f}"),
            "draws": f"{100 * r['draw_share']:.1f} %" if r["draw_share"] is not None else "—",
            "mean turns": r["mean_turns"], "failed": r["failed"],
        })
    return out


def register(app: typer.Typer) -> None:
    from pipelines import cli

    @app.command()
    def sweep(
        game: cli.GameOpt = cli.DEFAULT_GAME,
        variant: cli.VariantOpt = None,
        sets: cli.SetOpt = [],
        strategies: Annotated[Optional[str], typer.Option(
            "--strategies", "-s", help="Two strategies A,B (each plays each seat in half the games); default: the game's.")] = None,
        games: cli.MaybeGamesOpt = None,
        seed: cli.CellSeedOpt = 0,
        out: cli.OutOpt = "runs",
        run_id: cli.RunIdOpt = None,
        resume: cli.ResumeOpt = False,
        overwrite: cli.OverwriteOpt = False,
        workers: cli.WorkersOpt = None,
        address: cli.AddressOpt = None,
        shard_size: cli.ShardSizeOpt = None,
        turns: cli.TurnsOpt = True,
        seeding: cli.SeedingOpt = SEEDING,
        fmt: cli.FormatOpt = Format.table,
        quiet: cli.QuietOpt = False,
    ) -> None:
        """Play every combination of --set values on the same seeds; balance table per cell, most balanced named.

        Example: polsim sweep --game polarity --set stack_size=8 --set foundations=3,5,7 --set red_sudden_death=true,false --games 200
        """
        from pipelines.sweep import sweep_experiment, sweep_report

        try:
            cli.check_execution(shard_size, workers)
            matchup, games = cli.game_defaults(game, strategies, games)
            exp = cli.as_asked(sweep_experiment(game, variant, matchup, sets, games, seed, shard_size), turns, seeding)
            result = cli.run_with_progress(exp, out, quiet, "sweep", run_id=run_id, resume=resume,
                                           overwrite=overwrite, workers=workers, address=address,
                                           shard_size_given=shard_size is not None)
            report = sweep_report(result.uri)
        except UsageError as exc:
            cli.fail(str(exc))
        for note in report.notes:
            print_line(cli.err_console, f"note: {note}")
        if fmt is Format.table:
            print_tables({"balance_by_cell": display_rows(report)}, fmt, cli.out_console)
            print_line(cli.out_console, report.conclusion())
            print_line(cli.err_console, f"run {result.run_id} → {result.uri}")
        else:
            print_tables({"cells": report.cells, "conclusion": [{"best_cell": report.best, "ties": report.ties,
                                                                 "text": report.conclusion()}]}, fmt, cli.out_console)
        cli.exit_if_games_failed(result)
