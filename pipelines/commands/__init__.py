"""Further ``polsim`` commands, one module each.

Every module here defines ``register(app: typer.Typer) -> None`` that adds
its command(s); ``pipelines.cli`` calls them all, in name order. A command
stays thin: parse, call one library function, turn ``UsageError`` into
``pipelines.cli.fail`` (one line, exit 2).
"""

from __future__ import annotations

import importlib
import pkgutil

import typer


def register_all(app: typer.Typer) -> None:
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        module.register(app)
