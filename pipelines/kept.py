"""What a run keeps on disk: its finished shards.

The shard files are the truth about a run (a shard is finished when its
``games`` file exists).
"""

from __future__ import annotations

from pipelines.spec import Experiment
from pipelines.storage import Location, list_shards


def finished_shards(run: Location, exp: Experiment) -> set[int]:
    """The numbers of the shards of ``exp`` whose ``games`` file is in ``run``."""
    return list_shards(run.child("games")) & {number for number, _, _ in exp.shards()}
