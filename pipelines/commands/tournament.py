"""``polsim tournament``: a round robin among named strategies, both seats,
the same seeds for every pairing; cross-table and Elo-scale ratings.

``polsim ratings RUN…``: the same tables from finished runs, pooled: a
tournament played on several run seeds, or simulate runs of other matchups
under one rule set."""

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from pipelines.render import Format, print_line, print_tables
from pipelines.spec import parse_sets
from rules.base import UsageError
from rules.seeds import SEEDING

if TYPE_CHECKING:
    from pipelines.tournament import TournamentReport


def fixed_knobs(sets: list[str]) -> dict:
    knobs = {}
    for key, values in parse_sets(sets).items():
        if len(values) != 1:
            raise UsageError(f"--set {key} has several values; a tournament plays one rule set (use `polsim sweep`)")
        knobs[key] = values[0]
    return knobs


def _elo(value: float, low: float, high: float) -> str:
    return f"{value:+.0f} [{low:+.0f}, {high:+.0f}]"


def display(report: "TournamentReport") -> dict[str, list[dict]]:
    ratings = [{"rank": r["rank"], "strategy": r["strategy"], "elo": _elo(r["elo"], r["elo_lo"], r["elo_hi"]),
                "games": r["games"], "score": f"{100 * r['score_rate']:.1f} %" if r["score_rate"] is not None else "—"}
               for r in report.table]
    pairs = [{"pairing": f"{p['strategy']} vs {p['opponent']}", "games": p["games"],
              "W-D-L": f"{p['wins']}-{p['draws']}-{p['losses']}",
              "score": f"{100 * p['score_rate']:.1f} % [{100 * p['score_lo']:.1f}, {100 * p['score_hi']:.1f}]",
              "elo diff": _elo(p["elo_diff"], p["elo_lo"], p["elo_hi"])} for p in report.pairs]
    tables = {"cross_table": report.cross, "pairings": pairs, "ratings": ratings}
    if report.by_run:
        wide = {r["strategy"]: {"strategy": r["strategy"], "pooled": _elo(r["elo"], r["elo_lo"], r["elo_hi"])}
                for r in report.table}
        for r in report.by_run:
            wide[r["strategy"]][r["label"]] = _elo(r["elo"], r["elo_lo"], r["elo_hi"])
        labels = list(dict.fromkeys(r["label"] for r in sorted(report.by_run, key=lambda r: r["run"])))
        tables["by_run"] = [{"strategy": s, "pooled": row["pooled"], **{k: row.get(k, "—") for k in labels}}
                            for s, row in wide.items()]
    return tables


def print_report(report: "TournamentReport", fmt: Format, out, err) -> None:
    """Notes on ``err``; the three tables on ``out``, readable for a table, as numbers otherwise."""
    for note in report.notes:
        print_line(err, f"note: {note}")
    if fmt is Format.table:
        print_tables(display(report), fmt, out)
    else:
        by_run = {"by_run": report.by_run} if report.by_run else {}
        print_tables({"cross_table": report.cross, "pairings": report.pairs, "ratings": report.table, **by_run},
                     fmt, out)


def register(app: typer.Typer) -> None:
    from pipelines import cli

    @app.command()
    def tournament(
        strategies: Annotated[str, typer.Option("--strategies", "-s", help="Two or more strategies, comma-separated, each name[:key=value...].")],
        game: cli.GameOpt = cli.DEFAULT_GAME,
        variant: cli.VariantOpt = None,
        sets: cli.SetOpt = [],
        games: Annotated[Optional[int], typer.Option(
            "--games", "-n", help="Games per pairing (each strategy plays each seat in half); default: the game's.")] = None,
        seed: cli.PairingSeedOpt = 0,
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
        """Round robin among strategies on the same seeds; cross-table and Bradley-Terry (Elo) ratings with intervals.

        Example: polsim tournament --game polar --variant polar-9 -s random,greedy,mcts:playouts=100 --games 500

        The same round robin with another --seed adds games: `polsim ratings RUN RUN` rates both runs together.
        """
        from pipelines.tournament import tournament_experiment, tournament_report

        try:
            cli.check_execution(shard_size, workers)
            _, games = cli.game_defaults(game, strategies, games)
            exp = cli.as_asked(tournament_experiment(game, variant, cli.split_strategies(strategies), fixed_knobs(sets),
                                                     games, seed, shard_size), turns, seeding)
            result = cli.run_with_progress(exp, out, quiet, "tournament", run_id=run_id, resume=resume,
                                           overwrite=overwrite, workers=workers, address=address,
                                           shard_size_given=shard_size is not None)
            report = tournament_report(result.uri)
        except UsageError as exc:
            cli.fail(str(exc))
        print_report(report, fmt, cli.out_console, cli.err_console)
        if fmt is Format.table:
            print_line(cli.err_console, f"run {result.run_id} → {result.uri}")
        cli.exit_if_games_failed(result)

    @app.command()
    def ratings(
        runs: Annotated[list[str], typer.Argument(
            metavar="run...",
            help="Run folders or URIs of one game and one rule set: a tournament on several run seeds, or "
                 "simulate runs of other matchups. Every game counts once; failed and self-play games are "
                 "left out.")],
        fmt: cli.FormatOpt = Format.table,
    ) -> None:
        """Rate the strategies of finished runs together: cross-table and Bradley-Terry (Elo) ratings with intervals.

        Example: polsim ratings runs/tour-20/polarity-standard-1a2b3c4d5e runs/tour-21/polarity-standard-6f7a8b9c0d

        (one round robin played with --seed 20 and --seed 21, rated together; by_run shows each seed's ratings)
        """
        from pipelines.tournament import rate_runs

        try:
            report = rate_runs(runs)
        except UsageError as exc:
            cli.fail(str(exc))
        print_report(report, fmt, cli.out_console, cli.err_console)
