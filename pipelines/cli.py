"""The ``polsim`` command: thin wrappers over the library.

Each command parses its options, calls one library function, and turns a
``UsageError`` into a one-line message and exit code 2. Shared options are
defined once below.
"""

from __future__ import annotations

import os
from typing import Annotated, Optional

import typer
from rich.console import Console

from pipelines import catalog
from pipelines.executors import ShardFailed
from pipelines.progress import games_progress
from pipelines.render import Format, print_line, print_tables
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment, make_experiment, parse_sets, seat_balance_note, split_strategies
from rules.base import StrategySpec, UsageError, did_you_mean, get_game
from rules.seeds import SEEDING, SEEDINGS


def _flags_show_no_value_type() -> None:
    """typer's rich help prints a value type beside every option, flags too
    (``--quiet <bool>``, ``--help <bool>``), as if they took a value
    (``--quiet true`` fails); a flag gets none, as in click's plain help."""
    from typer.core import TyperOption

    value_type = getattr(TyperOption, "display_type_rich", None)
    if value_type is None:  # another typer: its help as it comes (test_help_shows_no_value_for_flags says)
        return

    def display_type_rich(self, ctx):
        return None if self.is_flag else value_type(self, ctx)

    TyperOption.display_type_rich = display_type_rich


_flags_show_no_value_type()


def _usage_errors_in_one_line() -> None:
    """click's own usage errors (an unknown option or command, a value that is not a number)
    in one line, as polsim's are: ``error: No such option: --bogus; see polsim simulate --help``.
    typer prints them in a five-line box under the usage."""
    from typer import rich_utils

    if not hasattr(rich_utils, "rich_format_error"):  # another typer: its errors as they come
        return

    def one_line(exc) -> None:
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare `polsim`: its help is printed
            return
        ctx = getattr(exc, "ctx", None)
        see = f"; see {ctx.command_path} --help" if ctx is not None else ""
        message = " ".join(exc.format_message().split()).removesuffix(".")
        print_line(err_console, ("error:", "bold red"), f" {message}{see}")

    rich_utils.rich_format_error = one_line

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="polsim: seeded batch simulation of Polarity and Polar, with analysis.",
)
out_console = Console()
err_console = Console(stderr=True)
_usage_errors_in_one_line()

DEFAULT_GAME = "polarity"

GameOpt = Annotated[str, typer.Option("--game", "-g", help="Game to play (see `polsim variants`).")]
VariantOpt = Annotated[Optional[str], typer.Option("--variant", "-v", help="Named variant; default: the game's standard.")]
SetOpt = Annotated[list[str], typer.Option("--set", help="Override a knob: key=value (repeatable).")]
GamesOpt = Annotated[int, typer.Option("--games", "-n", help="Games to play (per cell).")]
MaybeGamesOpt = Annotated[Optional[int], typer.Option(
    "--games", "-n", help="Games to play (per cell); default: the game's (polarity 24, polar 1000).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Run seed; game i's seed derives from (seed, i).")]


def _same_seeds_opt(group: str):
    return Annotated[int, typer.Option("--seed", help=f"Run seed; the j-th game of each {group} uses (seed, j), "
                                                      f"so every {group} plays the same seeds.")]


CellSeedOpt = _same_seeds_opt("cell")
PairingSeedOpt = _same_seeds_opt("pairing")
OutOpt = Annotated[str, typer.Option("--out", "-o", help="Folder or URI (s3://bucket/prefix) that holds runs.")]
WorkersOpt = Annotated[
    Optional[int], typer.Option("--workers", "-w", help="Local Ray workers (default: one per core; 0 = no Ray).")
]
AddressOpt = Annotated[Optional[str], typer.Option("--address", help="Join an existing Ray cluster ('auto' or host:port).")]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="table, json or csv.")]
RunIdOpt = Annotated[Optional[str], typer.Option("--run-id", help="Name of the run folder (default: derived from the spec).")]
ResumeOpt = Annotated[bool, typer.Option("--resume", help="Finish an interrupted run, skipping finished shards.")]
OverwriteOpt = Annotated[bool, typer.Option("--overwrite", help="Replace an existing run of the same name.")]
ShardSizeOpt = Annotated[Optional[int], typer.Option("--shard-size", help="Games per Ray task (does not change results).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or summary.")]
SeedingOpt = Annotated[int, typer.Option(
    "--seeding", help="How game seeds derive from --seed: 2, since polsim 0.31.0; 1 plays the games of a run made "
                      "before it (to pair with it), whose run seeds shared a game or two.")]
TurnsOpt = Annotated[bool, typer.Option(
    "--turns/--no-turns", help="Write the turns table (a row per turn); --no-turns: the games rows alone, "
                               "for large sweeps (replay still shows every turn).")]
ByOpt = Annotated[list[str], typer.Option("--by", help="Also group by this column (repeatable).")]
WhereOpt = Annotated[list[str], typer.Option("--where", help="Filter column=value or column!=value (repeatable; != keeps empty cells; value null matches them).")]


def fail(message: str, code: int = 2) -> None:
    print_line(err_console, ("error:", "bold red"), f" {message}")
    raise typer.Exit(code)


def fail_shard(exc: ShardFailed, what: str, code: int) -> None:
    """A shard's task failed: one line, and how to finish the run once the cause is fixed."""
    fail(f"{exc}; finished shards are kept: fix the cause, then finish the {what} with the same command "
         "and --resume", code=code)


MAX_WORKERS_PER_CPU = 4


def check_execution(shard_size: Optional[int], workers: Optional[int]) -> None:
    if shard_size is not None and shard_size <= 0:
        raise UsageError(f"--shard-size must be at least 1 (got {shard_size})")
    if workers is not None and workers < 0:
        raise UsageError(f"--workers must be 0 or more (got {workers})")
    most = MAX_WORKERS_PER_CPU * (os.cpu_count() or 1)
    if workers is not None and workers > most:  # 100,000 workers: Ray forked until the machine ground to a halt
        raise UsageError(f"--workers {workers} is more than {MAX_WORKERS_PER_CPU} per CPU of this machine "
                         f"({os.cpu_count()}): use at most {most} (games are CPU-bound; the default is one per "
                         "core), or --address to run on a cluster")


def run_with_progress(exp: Experiment, out: str, quiet: bool, what: str = "run", **kwargs):
    """Run ``exp`` with a progress bar; an interrupted run exits 130 with how to finish it."""
    try:
        with games_progress(exp.total_games, quiet, err_console) as advance:
            result = run_experiment(exp, out, on_progress=advance,
                                    on_note=lambda note: print_line(err_console, f"note: {note}"), **kwargs)
    except ShardFailed as exc:
        fail_shard(exc, what, code=1)
    if result.status != "complete":
        if result.games_done == result.games_total:  # stopped while Ray stopped: nothing is left to play
            print_line(err_console, f"{what} {result.run_id} interrupted after its last game: all "
                                    f"{result.games_total} games kept; it is complete")
        else:
            how = "with --resume instead of --overwrite" if kwargs.get("overwrite") else "and --resume"
            print_line(err_console, f"{what} {result.run_id} interrupted: {result.games_done}/{result.games_total} "
                                    f"games kept; finish it with the same command {how}")
        raise typer.Exit(130)
    return result


def as_asked(exp: Experiment, turns: bool, seeding: int) -> Experiment:
    """``exp`` writing turns or not, with the seeding asked for (``rules.seeds``)."""
    if seeding not in SEEDINGS:
        raise UsageError(f"--seeding must be {' or '.join(map(str, SEEDINGS))} (got {seeding}); leave it out "
                         "unless the run must play the games of a run made before polsim 0.31.0 (--seeding 1)")
    return exp.model_copy(update={"turns": turns, "seeding": seeding})


def build_experiment(game: str, variant: Optional[str], strategies: list[str], sets: list[str],
                     games: int, seed: int, shard_size: Optional[int]) -> Experiment:
    game_def = get_game(game)
    if len(strategies) != 2:
        raise UsageError(f"--strategies takes two strategies, A,B (got {len(strategies)}); use `polsim strategies`")
    matchup = tuple(str(StrategySpec.parse(s)) for s in strategies)
    overrides = {}
    for key, values in parse_sets(sets).items():
        if len(values) != 1:
            raise UsageError(f"--set {key} has several values; `polsim sweep` runs grids")
        overrides[key] = values[0]
    size = shard_size or game_def.shard_size_for([matchup])
    return make_experiment(game_def, variant, (Cell(overrides=overrides, matchup=matchup),), games, seed, size)


def game_defaults(game: str, strategies: Optional[str], games: Optional[int]) -> tuple[list[str], int]:
    """The strategies and game count to play: as given, else the game's defaults."""
    game_def = get_game(game)
    return (split_strategies(game_def.default_strategies if strategies is None else strategies),
            game_def.default_games if games is None else games)


@app.command()
def simulate(
    game: GameOpt = DEFAULT_GAME,
    variant: VariantOpt = None,
    strategies: Annotated[Optional[str], typer.Option(
        "--strategies", "-s",
        help="Two strategies A,B; each plays each seat in half the games. Default: the game's "
             "(polarity cautious,aggressive; polar random,random).")] = None,
    games: MaybeGamesOpt = None,
    seed: SeedOpt = 0,
    out: OutOpt = "runs",
    sets: SetOpt = [],
    run_id: RunIdOpt = None,
    resume: ResumeOpt = False,
    overwrite: OverwriteOpt = False,
    workers: WorkersOpt = None,
    address: AddressOpt = None,
    shard_size: ShardSizeOpt = None,
    turns: TurnsOpt = True,
    seeding: SeedingOpt = SEEDING,
    quiet: QuietOpt = False,
) -> None:
    """Play seeded games over Ray workers and write them as Parquet.

    Example: polsim simulate --game polar --variant polar-9 --strategies random,greedy --games 2000 --seed 7 --out runs/
    """
    try:
        check_execution(shard_size, workers)
        matchup, games = game_defaults(game, strategies, games)
        exp = as_asked(build_experiment(game, variant, matchup, sets, games, seed, shard_size), turns, seeding)
        result = run_with_progress(exp, out, quiet, run_id=run_id, resume=resume, overwrite=overwrite,
                                   workers=workers, address=address, shard_size_given=shard_size is not None)
    except UsageError as exc:
        fail(str(exc))
    note = seat_balance_note(exp)
    if note and not quiet:
        print_line(err_console, f"note: {note}")
    _report_run(result, get_game(exp.game).seat_note, quiet)


def _headline(rows: list[dict], key: str) -> list[dict]:
    """The few columns a run's summary shows; `polsim analyze` has the rest."""
    return [{key: r[key], "games": r["games"], "W-D-L": f"{r['wins']}-{r['draws']}-{r['losses']}",
             "win_rate": r["win_rate"], "win_lo": r["win_lo"], "win_hi": r["win_hi"],
             "mean_margin": r["mean_margin"]} for r in rows]


def _report_run(result, seat_note: str, quiet: bool) -> None:
    from pipelines import analyze as analysis
    from pipelines.dataset import open_runs
    from pipelines.display import readable_tables
    from pipelines.replay import point_at_games

    if not quiet:
        print_line(err_console,
                   f"run {result.run_id}: {result.games_done} games in {result.seconds:.1f} s → {result.uri}")
        try:
            con, manifests = open_runs([result.uri])
            tables = analysis.summarize(con)
            con.close()
        except (KeyboardInterrupt, Exception) as exc:  # Ctrl-C in a query comes back as duckdb's or arrow's error
            if not isinstance(exc, KeyboardInterrupt) and "interrupt" not in str(exc).lower():
                raise
            print_line(err_console, f"the run is complete; its summary was interrupted: polsim analyze {result.uri}")
            raise typer.Exit(130) from None
        ends = point_at_games({"end reasons": tables["end_reasons"], "failures": tables["failures"]},
                              {result.run_id: result.uri})
        print_tables({"strategies": _headline(tables["strategies"], "strategy"),
                      f"seats ({seat_note})": _headline(tables["seats"], "seat"),
                      **readable_tables(ends)}, Format.table, out_console)
        if note := analysis.self_play_note(analysis.matchups_of(manifests)):
            print_line(err_console, f"note: {note}")
    exit_if_games_failed(result)


def exit_if_games_failed(result) -> None:
    """After a run's output: exit 3, saying how many, when some of its games failed (status 'error')."""
    if result.games_failed:
        print_line(err_console, (f"{result.games_failed} of {result.games_done} games failed", "bold yellow"),
                   f" (status 'error'); see `polsim analyze {result.uri} --table failures`")
        raise typer.Exit(3)


def grouping_notes(keys: list[str], by: list[str], runs: int, cells: list[str], matchups: int) -> list[str]:
    """What keeps runs and a run's cells apart when ``--by`` did not say (``analysis.default_keys``), and
    what is pooled."""
    if by:
        return []
    notes = []
    run_keys = [k for k in keys if k not in cells]
    if run_keys:
        why = "each run has its own" if run_keys == ["variant"] else "their variants do not tell them apart"
        notes.append(f"{runs} runs given: grouped by {run_keys[0]} ({why}), so they are kept apart; "
                     "--by sets another grouping")
    if cells:
        notes.append(f"the run's cells set {', '.join(cells)} differently (a sweep): grouped by "
                     f"{'them' if len(cells) > 1 else 'it'}, so no table pools different rules; --by sets another grouping")
    if matchups > 1:
        notes.append(f"the run's cells play {matchups} matchups (a tournament): the tables pool them; "
                     "--by cell splits them, and `polsim tournament` rates the strategies")
    return notes


@app.command()
def analyze(
    runs: Annotated[list[str], typer.Argument(
        help="Run folders or URIs; several are kept apart (by variant, else run_id), and a sweep's cells "
             "by the knobs they set, unless --by is given.")],
    by: ByOpt = [],
    where: WhereOpt = [],
    fmt: FormatOpt = Format.table,
    table: Annotated[list[str], typer.Option(
        "--table", help="Print only this table (repeatable: these tables, in the order given).")] = [],
    measures: Annotated[list[str], typer.Option(
        "--measures", "-m",
        help="Measure group (repeatable): outcome, length, decisiveness, ends, polar, polarity; default all.")] = [],
) -> None:
    """Balance measures with 95 % intervals: outcomes per strategy and seat, balance, length, decisiveness, game-specific.

    Example: polsim analyze runs/polar-polar-9-1a2b3c4d5e --by variant --measures outcome --format json
    """
    from pipelines import analyze as analysis
    from pipelines.dataset import copies_note, run_labels, shared_run_id_note, stored_notes
    from pipelines.display import readable_tables
    from pipelines.fastscan import open_for_analysis
    from pipelines.pooling import mixed_rules_note
    from pipelines.replay import point_at_games

    try:
        con, manifests = open_for_analysis(runs)
        keys = analysis.default_keys(manifests, by)
        tables = analysis.measure(con, by=keys, where=where, groups=measures or None, asked=table)
        notes = [*grouping_notes(keys, by, len(runs), analysis.cell_keys(manifests),
                                 analysis.pooled_matchups(manifests)),
                 shared_run_id_note(runs, manifests), *stored_notes(con, runs, manifests), copies_note(con),
                 analysis.left_out_note(tables), analysis.self_play_note(analysis.matchups_of(manifests)),
                 mixed_rules_note(manifests, run_labels(runs, manifests), by, where)]
        tables = point_at_games(tables, dict(zip(run_labels(runs, manifests), runs)))
        if table:
            unknown = [t for t in table if t not in tables]
            if unknown:
                offered = [t for t in [*tables, *analysis.on_request_offered(tables)] if t not in unknown]
                if unknown[0] in analysis.TABLES:
                    raise UsageError(f"--table {unknown[0]!r} has nothing to show for these runs: it reads columns "
                                     f"they do not have (another game's table, or turns not recorded); "
                                     f"choose from: {', '.join(offered)}")
                raise UsageError(f"unknown --table {unknown[0]!r}{did_you_mean(unknown[0], offered)}; "
                                 f"choose from: {', '.join(offered)}")
            tables = {t: tables[t] for t in table}
    except UsageError as exc:
        fail(str(exc))
    for note in notes:
        if note:
            print_line(err_console, f"note: {note}")
    print_tables(readable_tables(tables) if fmt is Format.table else tables, fmt, out_console)


OnlyGameOpt = Annotated[Optional[str], typer.Option("--game", "-g", help="Only this game.")]


@app.command()
def variants(game: OnlyGameOpt = None, fmt: FormatOpt = Format.table) -> None:
    """List every game's named variants with the knobs they set, and every knob.

    Example: polsim variants --game polar
    """
    try:
        found = catalog.games(game)
    except UsageError as exc:
        fail(str(exc))
    print_tables({"variants": catalog.variant_rows(found), "knobs (--set key=value)": catalog.knob_rows(found)},
                 fmt, out_console)


@app.command()
def strategies(game: OnlyGameOpt = None, fmt: FormatOpt = Format.table) -> None:
    """List every game's strategies with their parameters and defaults.

    Example: polsim strategies --game polar
    """
    try:
        rows = catalog.strategy_rows(catalog.games(game))
    except UsageError as exc:
        fail(str(exc))
    print_tables({"strategies": rows}, fmt, out_console)


@app.command()
def selfcheck() -> None:
    """Play three reference placements, a short game and two captures; check this machine gives the recorded bits.

    Exit 0: runs made here reproduce anywhere else that passes; 1: this machine plays other games.

    Example: polsim selfcheck
    """
    from pipelines.selfcheck import check

    result = check()
    if not result.matches:
        fail(result.message(), code=1)
    print_line(out_console, result.message())


def _register_more() -> None:
    from pipelines.commands import register_all

    register_all(app)


_register_more()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
