"""``polsim compare BASELINE CANDIDATE [BASELINE CANDIDATE …]``: did the candidate change outcomes?

More than one pair pools one comparison played on several run seeds into one
verdict (``pipelines.compare_pool``), shows each pair's own change beside it
and says whether the pairs agree (not part of the verdict's family or exit code).

Exit 0: no significant change; 1: significant change (Holm-corrected family
at ``--alpha``); 2: bad input or runs that cannot be paired.
"""

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from pipelines.render import Format, print_line, print_tables
from rules.base import UsageError

if TYPE_CHECKING:  # the statistics load when a command runs, not when the CLI starts
    from pipelines.compare import Verdict
    from pipelines.compare_pool import PooledComparison

AlphaOpt = Annotated[float, typer.Option("--alpha", help="Family-wise error rate of the verdict (Holm); the effect intervals stay 95 % each, not adjusted.")]
ShowOpt = Annotated[int, typer.Option("--show", help="List at most this many changed games.")]


def check_show(show: int) -> None:
    if show < 0:
        raise UsageError(f"--show must be 0 or more (got {show})")


def print_verdict(verdict: "Verdict", changed: list[dict], fmt: Format, show: int, out: Console, err: Console,
                  extra: dict[str, list[dict]] | None = None, pooled: "PooledComparison | None" = None) -> None:
    """The verdict table, each pooled pair's own change, the changed games (at most ``show``), ``extra``
    tables, whether the pooled pairs agree, and the one-line verdict (on ``err`` with JSON and CSV, whose
    stdout holds only the tables)."""
    for note in verdict.notes:
        print_line(err, f"note: {note}")
    shown = changed[: max(show, 0)]
    numbers = fmt is not Format.table  # a script gets the totals and the effects as numbers too
    tables = {"summary": [verdict.summary(len(shown))]} if numbers else {}
    tables["verdict"] = verdict.table(numbers)
    if pooled:
        tables["by_pair"] = pooled.pair_rows(numbers)
        if numbers:
            tables["pairs_agree"] = pooled.agreement_rows(verdict.alpha)
    print_tables({**tables, "changed_games": shown, **(extra or {})}, fmt, out)
    say = err if numbers else out
    if len(changed) > len(shown):
        print_line(say, f"… and {len(changed) - len(shown)} more changed games (--show to list more)")
    if pooled:
        from pipelines.compare_pool import agreement_line

        print_line(say, agreement_line(pooled.agreement, verdict.alpha, pooled.same_code))
    word = ("CHANGED", "bold red") if verdict.significant else ("no significant change", "bold green")
    print_line(say, word, f": {verdict.changed} of {verdict.n} paired games changed winner; "
                          f"family-wise α = {verdict.alpha} (Holm)")


def register(app: typer.Typer) -> None:
    from pipelines import cli

    @app.command()
    def compare(
        runs: Annotated[list[str], typer.Argument(
            metavar="baseline candidate",
            help="Baseline run folder or URI, then its candidate (same game, seeds and strategies; the "
                 "variant, knobs and strategy parameters may differ). More pairs, the same comparison on "
                 "other run seeds, are pooled into one verdict.")],
        alpha: AlphaOpt = 0.05,
        show: ShowOpt = 20,
        fmt: cli.FormatOpt = Format.table,
    ) -> None:
        """Pair runs game by game and test whether outcomes changed (exit 0 same, 1 changed, 2 bad input).

        Example: polsim compare runs/polar-polar-9-1a2b3c4d5e runs/candidate/polar-polar-9-1a2b3c4d5e

        Two seeds pooled: polsim compare runs/standard-20 runs/three-20 runs/standard-21 runs/three-21
        """
        from pipelines.compare_pool import PooledComparison, compare_pairs, pairs_of

        try:
            check_show(show)
            result = compare_pairs(pairs_of(runs), alpha)
        except UsageError as exc:
            cli.fail(str(exc))
        print_verdict(result.verdict, result.changed, fmt, show, cli.out_console, cli.err_console,
                      pooled=result if isinstance(result, PooledComparison) else None)
        raise typer.Exit(1 if result.verdict.significant else 0)
