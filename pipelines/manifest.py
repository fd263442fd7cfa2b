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

import pyarrow.fs as pafs
from pydantic import ValidationError

from pipelines.spec import Experiment
from pipelines.storage import Location, exists, read_json, write_json_atomic
from rules.base import UsageError, get_game

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


CODE = ("polsim", "physics")  # the code's own versions, first in ``versions``


def code_versions(package_version: str, physics_version: str) -> dict[str, str | None]:
    """The versions this process's results depend on, by name: ``CODE``, then the result packages."""
    return {"polsim": package_version, "physics": physics_version, **environment()["packages"]}


def versions(manifest: dict) -> dict[str, str | None]:
    """The versions a stored run's results depend on, as ``code_versions`` names them
    (a manifest that records no packages gives only ``CODE``)."""
    env = manifest.get("environment")
    packages = env.get("packages") if isinstance(env, dict) else None
    return {"polsim": manifest.get("package_version"), "physics": manifest.get("physics_version"),
            **(packages if isinstance(packages, dict) else {})}


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
    """The run's manifest, checked: a ``UsageError`` (one line) when it is not one this polsim can use."""
    where = run.child(MANIFEST)
    try:
        found = exists(where)
    except OSError as exc:  # a store that does not answer (object storage): not a traceback
        raise UsageError(f"cannot reach {run.uri}: {' '.join(str(exc).split())}; check the bucket name, "
                         "the endpoint and the credentials (AWS_* environment variables)") from None
    if not found:
        if run.fs.get_file_info(run.path).type == pafs.FileType.NotFound:
            raise UsageError(f"there is no folder {run.uri}; give the folder of one run (simulate prints it)")
        raise UsageError(f"{run.uri} is not a polsim run (no {MANIFEST}); {_runs_inside(run)}")
    try:
        manifest = read_json(where)
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise UsageError(f"{MANIFEST} in {run.uri} is not valid JSON: {exc}; re-run it or delete the folder") from None
    except OSError as exc:
        raise UsageError(f"cannot read {MANIFEST} in {run.uri}: {exc}") from None
    check(run, manifest)
    return manifest


def _runs_inside(folder: Location, shown: int = 3) -> str:
    """What to give instead of ``folder``: the runs it holds (``simulate --out`` makes one
    folder per run inside it), or the folder of one run."""
    try:
        infos = folder.fs.get_file_info(pafs.FileSelector(folder.path, allow_not_found=True))
    except OSError:
        infos = []
    runs = sorted(info.base_name for info in infos if info.type == pafs.FileType.Directory
                  and exists(folder.child(info.base_name, MANIFEST)))
    if not runs:
        return "give the folder of one run"
    named = ", ".join(folder.child(name).uri for name in runs[:shown])
    more = f" and {len(runs) - shown} more" if len(runs) > shown else ""
    return f"it holds {len(runs)} run{'s' if len(runs) > 1 else ''} ({named}{more}): give one of them"


def check(run: Location, manifest: object) -> None:
    """Raise ``UsageError`` unless ``manifest`` is a format-1 manifest of a game this polsim knows."""
    bad = f"{MANIFEST} in {run.uri}"
    fix = "re-run it or delete the folder"
    if not isinstance(manifest, dict):
        raise UsageError(f"{bad} is not a JSON object; {fix}")
    if manifest.get("format") != FORMAT_VERSION:
        raise UsageError(f"{bad} has format {manifest.get('format')!r}, this polsim reads format {FORMAT_VERSION}; "
                         "read it with the polsim that made it, or re-run it")
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        raise UsageError(f"{bad} has no spec; {fix}")
    if not isinstance(manifest.get("run_id"), str):
        raise UsageError(f"{bad} has no run_id; {fix}")
    try:
        get_game(str(spec.get("game")))
    except UsageError as exc:
        raise UsageError(f"{bad} plays a game this polsim does not know: {exc}") from None


def save(run: Location, manifest: dict) -> None:
    manifest["updated"] = now()
    write_json_atomic(run.child(MANIFEST), manifest)


def experiment_of(manifest: dict) -> Experiment:
    """The run's experiment; a spec that is not one is a ``UsageError``."""
    try:
        spec = manifest["spec"]
        return Experiment.model_validate({"seeding": 1, **spec} if isinstance(spec, dict) else spec)  # 1: named none
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "spec"
        raise UsageError(f"{MANIFEST} of run {manifest.get('run_id')} has a bad spec ({where}: {err['msg']}); "
                         "re-run it or delete the folder") from None
