"""``manifest.json``: what a run is, which code made it, how far it got.

Written atomically at the start (``status: running``), after an interruption
(``incomplete``) and at the end (``complete``). The shard files are the
truth about what is done; the manifest records the plan and the outcome.
"""

from __future__ import annotations

import datetime as dt
import platform
import sys
from importlib.metadata import PackageNotFoundError, version

from pipelines.spec import Experiment
from pipelines.storage import Location, exists, read_json, write_json_atomic
from rules.base import UsageError

MANIFEST = "manifest.json"
FORMAT_VERSION = 1
# the packages whose versions can change a result's bits (README, "Same seed, same result")
RESULT_PACKAGES = ("numpy", "numba", "llvmlite", "pyarrow", "ray")


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def environment() -> dict:
    """Where the driver ran: interpreter, machine, and the versions of the
    packages that compute or store results (a run made elsewhere with other
    versions may differ; ``polsim selfcheck`` says whether a machine plays the
    reference games)."""
    packages = {}
    for name in RESULT_PACKAGES:
        try:
            packages[name] = version(name)
        except PackageNotFoundError:
            packages[name] = None
    return {"python": platform.python_version(), "implementation": sys.implementation.name,
            "system": platform.system(), "machine": platform.machine(), "packages": packages}


def new_manifest(exp: Experiment, run_id: str, package_version: str, physics_version: str) -> dict:
    return {
        "format": FORMAT_VERSION,
        "run_id": run_id,
        "status": "running",
        "spec": exp.model_dump(mode="json"),
        "spec_hash": exp.spec_hash(),
        "package_version": package_version,
        "physics_version": physics_version,
        "environment": environment(),
        "created": now(),
        "updated": now(),
        "games_total": exp.total_games,
        "shards": [list(s) for s in exp.shards()],
        "games_done": 0,
        "games_failed": 0,
    }


def load(run: Location) -> dict:
    where = run.child(MANIFEST)
    if not exists(where):
        raise UsageError(f"{run.uri} is not a polsim run (no {MANIFEST}); give the folder of one run")
    return read_json(where)


def save(run: Location, manifest: dict) -> None:
    manifest["updated"] = now()
    write_json_atomic(run.child(MANIFEST), manifest)


def experiment_of(manifest: dict) -> Experiment:
    return Experiment.model_validate(manifest["spec"])
