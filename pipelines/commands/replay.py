"""``polsim replay RUN --game N``: re-play one stored game, check it, show it.

Exit codes: 0 the game reproduced; 1 a reproducibility failure (the replayed
game differs from its stored row or turns: every differing column is listed);
2 bad input (no such run, game index or turn out of range), one line. The
page and the image are written in both of the first two cases.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from rules.base import UsageError


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        run: Annotated[str, typer.Argument(help="Run folder or URI.")],
        game: Annotated[int, typer.Option("--game", "-n", help="Global game index in the run (games.game_index).")],
        out: Annotated[Optional[str], typer.Option("--out", "-o", help="Write the game as one self-contained HTML page.")] = None,
        png: Annotated[Optional[str], typer.Option("--png", help="Write a still image of one turn (see --turn).")] = None,
        turn: Annotated[Optional[int], typer.Option("--turn", help="Turn drawn by --png (default: the last).")] = None,
    ) -> None:
        """Re-simulate one game from its run's spec and seed, check it equals the stored row, and show it (exit 0 reproduced, 1 differs, 2 bad input).

        Example: polsim replay runs/polar-polar-9-1a2b3c4d5e --game 17 --out game17.html --png game17.png --turn 30
        """
        from pipelines.cli import err_console, fail, out_console
        from pipelines.render import print_line
        from pipelines.replay import frames, replay as replay_game
        from pipelines.replay_page import frame_index, page_data, write_html, write_png
        from pipelines.storage import check_output_file

        try:
            if turn is not None and not png:
                raise UsageError(f"--turn {turn} picks the turn --png draws; add --png FILE, or drop --turn "
                                 "(the --out page shows every turn)")
            for path, option in ((out, "--out"), (png, "--png")):
                if path:
                    check_output_file(path, option)
            rep = replay_game(run, game)
            data = None
            if out or png:
                data = page_data(rep, frames(rep))
            if png:
                index = frame_index(data["frames"], turn)
            if out:
                print_line(out_console, f"wrote {write_html(data, out)}")
            if png:
                print_line(out_console, f"wrote {write_png(data, index, png)} (turn {data['frames'][index]['turn']})")
        except UsageError as exc:
            fail(str(exc))
        if not rep.reproduced:
            print_line(err_console, (rep.failure_message(), "bold red"))
            raise typer.Exit(1)
        print_line(out_console, f"reproduced: {rep.summary()}")
