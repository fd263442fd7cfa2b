"""``polsim report``: write one self-contained HTML page of balance measures and plots."""

from typing import Annotated, Optional

import typer


def register(app: typer.Typer) -> None:
    from pipelines.cli import ByOpt, WhereOpt, err_console, fail
    from pipelines.render import print_line

    @app.command()
    def report(
        runs: Annotated[list[str], typer.Argument(help="Run folders or URIs; several runs are compared side by side.")],
        out: Annotated[str, typer.Option("--out", "-o", help="HTML file to write (local path or URI).")] = "report.html",
        by: ByOpt = [],
        where: WhereOpt = [],
        title: Annotated[Optional[str], typer.Option("--title", help="Page title.")] = None,
    ) -> None:
        """Self-contained HTML report (opens offline): headline table, win-rate, score, length and fault plots.

        Example: polsim report runs/polar-polar-9-1a2b3c4d5e runs/polar-polar-11-0f9e8d7c6b --out report.html
        """
        from pipelines.report import write_report
        from rules.base import UsageError

        try:
            path = write_report(runs, out, by=by, where=where, title=title)
        except UsageError as exc:
            fail(str(exc))
        print_line(err_console, f"report written → {path}")
