"""May a stored run be resumed with this experiment, by this polsim?

A resume plays the missing shards of a stored run into the same folder, so
the games already there and the new ones must come from the same experiment
and the same code — results of two versions must never mix in one run:

- the same experiment (``Experiment.identity``: everything but the shard
  size), also whether it writes turns (a run's shards all have them or none);
- the same polsim, physics and result-package versions (the manifest's
  ``package_version``, ``physics_version`` and ``environment.packages``;
  a version the stored manifest does not record is not compared);
- the same shard size (shard numbers are ranges of games): the stored one
  unless ``--shard-size`` was given, and a different one given is refused.

Each refusal is one line naming both sides and what to do instead.
"""

from __future__ import annotations

from pipelines import manifest as mf
from pipelines.spec import Experiment
from rules.base import UsageError


def check_versions(run_id: str, stored: dict, current: dict[str, str | None]) -> None:
    """Refuse to resume a run made with other versions than ``current`` (``mf.code_versions``)."""
    made = mf.versions(stored)
    differ = [name for name in current if name in made and made[name] != current[name]]
    if differ:
        then = ", ".join(f"{name} {made[name] or '(none)'}" for name in differ)
        now = ", ".join(f"{name} {current[name] or '(none)'}" for name in differ)
        raise UsageError(f"run {run_id} was made with {then}, this is {now}: results of two versions must not "
                         "mix in one run; start a new run with another --run-id, or replace it with --overwrite")


def resumable(run_id: str, stored: dict, exp: Experiment, current: dict[str, str | None],
              shard_size_given: bool = True) -> Experiment:
    """``exp`` as it resumes the stored run (with the stored shard size unless one
    was given); a ``UsageError`` if it may not resume it."""
    made = mf.experiment_of(stored)
    if made.turns != exp.turns:
        was, now = ("--turns", "--no-turns") if made.turns else ("--no-turns", "--turns")
        raise UsageError(f"run {run_id} was made with {was}: resume it with {was} too (not {now}), "
                         "or use --overwrite or another --run-id")
    if made.identity() != exp.identity():
        raise UsageError(f"run {run_id} was made with a different spec; use --overwrite or another --run-id")
    check_versions(run_id, stored, current)
    if made.shard_size != exp.shard_size:
        if shard_size_given:
            raise UsageError(f"run {run_id} used --shard-size {made.shard_size}; resume with the same, "
                             "or leave --shard-size out")
        exp = exp.model_copy(update={"shard_size": made.shard_size})
    return exp
