"""``polsim regress BASELINE``: replay a baseline's seeds with the code as it
is now and stop as soon as an SPRT decides.

Exit 0: no change; 1: changed — the SPRT on the score rate said so, or the
verdict table on the pairs played found a significant change (whatever the
SPRT said), or a golden physics scene changed; 2: bad input; 3: undecided —
the game limit (``--max-games`` or the baseline's seeds) came before the
SPRT decided and the verdict table found nothing: not evidence of "no
change" (raise the limit, or accept a larger ``--delta``).

``--alpha`` bounds each of the two ways to say "changed" (the SPRT, and the
Holm-corrected verdict table read after it stopped), so a run with nothing
changed is flagged with probability at most about 2 alpha.
"""

from typing import Annotated, Optional

import typer

from pipelines.commands.compare import ShowOpt, check_show, print_verdict
from pipelines.render import Format, print_line
from pipelines.spec import parse_sets
from rules.base import UsageError


def single_values(sets: list[str]) -> dict:
    overrides = {}
    for key, values in parse_sets(sets).items():
        if len(values) != 1:
            raise UsageError(f"--set {key} has several values; regress models one change (use `polsim sweep` for grids)")
        overrides[key] = values[0]
    return overrides


def register(app: typer.Typer) -> None:
    from pipelines import cli

    @app.command("regress")
    def regress_cmd(
        baseline: Annotated[str, typer.Argument(help="Baseline run folder or URI whose seeds are replayed.")],
        out: cli.OutOpt = "runs",
        sets: cli.SetOpt = [],
        delta: Annotated[float, typer.Option("--delta", help="Smallest score-rate change that matters (0.05 = 5 points).")] = 0.05,
        alpha: Annotated[float, typer.Option("--alpha", help="Probability of the SPRT (and, apart, of the verdict table) saying 'changed' when nothing changed; together at most ~2 alpha.")] = 0.05,
        beta: Annotated[float, typer.Option("--beta", help="Probability of saying 'unchanged' when it changed by delta.")] = 0.05,
        batch: Annotated[int, typer.Option("--batch", help="Games between two looks of the SPRT, rounded up to whole shards of the baseline.")] = 200,
        max_games: Annotated[Optional[int], typer.Option("--max-games", help="Game limit (default: every baseline seed).")] = None,
        run_id: Annotated[Optional[str], typer.Option("--run-id", help="Candidate run folder name (default: <baseline>-regress…).")] = None,
        resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted regress run.")] = False,
        overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing candidate run.")] = False,
        workers: cli.WorkersOpt = None,
        address: cli.AddressOpt = None,
        show: ShowOpt = 20,
        fmt: cli.FormatOpt = Format.table,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No per-batch progress lines.")] = False,
    ) -> None:
        """Replay a baseline run's seeds with today's code; stop when an SPRT decides (exit 0 same, 1 changed, 2 bad input, 3 undecided).

        Example: polsim regress runs/polarity-standard-1a2b3c4d5e --set magnet_strength=1.1 --delta 0.05 --out runs/
        """

        from pipelines.executors import ShardFailed
        from pipelines.regress import GoldenSceneChanged, make_config, regress

        def progress(look) -> None:
            if not quiet:
                print_line(cli.err_console, f"batch {look.batch}: {look.pairs} paired games, LLR up {look.llr_up:+.2f} "
                                            f"down {look.llr_down:+.2f} → {look.decision}")

        try:
            if workers is not None and workers < 0:
                raise UsageError(f"--workers must be 0 or more (got {workers})")
            check_show(show)
            config = make_config(delta=delta, alpha=alpha, beta=beta, batch_games=batch, max_games=max_games)
            result = regress(baseline, out, overrides=single_values(sets), config=config, run_id=run_id,
                             resume=resume, overwrite=overwrite, workers=workers, address=address, on_look=progress)
        except UsageError as exc:
            cli.fail(str(exc))
        except GoldenSceneChanged as exc:
            cli.fail(str(exc), code=1)
        except ShardFailed as exc:  # no decision, as when the games run out (exit 3), never 1 ('changed')
            cli.fail_shard(exc, "regress", code=3)
        for note in result.notes:
            print_line(cli.err_console, f"note: {note}")
        if result.verdict is None:
            raise typer.Exit(130)
        lower, upper = result.bounds
        sprt = {"decision": result.decision, "direction": result.direction, "flagged": result.flagged,
                "pairs": result.pairs, "games_played": result.games_played, "delta": config.delta,
                "alpha": config.alpha, "beta": config.beta, "llr_lower": lower, "llr_upper": upper, "run": result.uri}
        print_verdict(result.verdict, result.changed, fmt, show, cli.out_console, cli.err_console,
                      None if fmt is Format.table else {"sprt": [sprt]})
        say = cli.out_console if fmt is Format.table else cli.err_console  # JSON and CSV: stdout holds only the tables
        way = {1: " (candidate scores higher)", -1: " (candidate scores lower)"}.get(result.direction, "")
        print_line(say, "SPRT decision: ", (result.decision, "bold"),
                   f"{way} after {result.pairs} paired games ({result.games_played} played, δ = {config.delta}, "
                   f"α = {config.alpha}, β = {config.beta}, LLR bounds {lower:.2f} / {upper:.2f}) → {result.uri}")
        if result.interrupted:
            raise typer.Exit(130)
        if result.decision != "changed" and result.verdict.significant:
            print_line(say, f"SPRT {result.decision} on the score rate, but the verdict table finds a "
                            "significant change: flagged as changed")
        if result.flagged:
            raise typer.Exit(1)
        if result.decision == "undecided":
            print_line(cli.err_console, "undecided: the game limit came before the SPRT decided; raise --max-games "
                                        "or accept a larger --delta")
            raise typer.Exit(3)
        raise typer.Exit(0)

