"""Games that ``analyze --by`` pools though they were played under other rules.

Without ``--by`` the tables keep runs apart (by variant, else run id) and a
sweep's cells apart (by the knobs they set): ``analyze.default_keys``. A
``--by`` that does not tell two runs, or two cells, apart pools their games:
seeds 20 and 21 of one spec under ``--by variant`` is the point of it. The
same under other rules is not: a run of ``--set foundations=3`` beside a
standard one, a run of an older polsim whose default differed
(``spec.defaults_then``), or one made under an older physics.

``mixed_rules_note(manifests, labels, by, where)`` names what differs inside
a group of pooled games, with the ``--by`` key that keeps it apart; ``""``
when nothing does, or a ``--where`` names the knob. Each run's rules are
resolved per cell as it played them.
"""

from __future__ import annotations

from typing import Any

from pipelines import manifest as mf
from pipelines.spec import rules_as_played
from pipelines.where import split_condition
from rules.base import UsageError, get_game, knob_text

PHYSICS = "physics_version"
RUN_KEYS = ("game", "variant", "package_version", PHYSICS)  # --by keys a run has one value of
MAX_LISTED = 3


def played_under(manifest: dict) -> list[tuple[str, dict[str, Any]]]:
    """Each cell's label, and its knob values as the run played them with its physics version (``PHYSICS``)."""
    exp = mf.experiment_of(manifest)
    played = rules_as_played(get_game(exp.game), exp, manifest.get("package_version"))
    return [(cell.label(), {**rules.model_dump(mode="json"), PHYSICS: manifest.get(PHYSICS)})
            for cell, rules in zip(exp.cells, played)]


def rule_columns_as_played(manifest: dict) -> dict[str, Any]:
    """``rule_<knob>`` -> the value every cell of the run played the knob at, as its package's
    defaults then and the knobs that restore its physics left it: what a run written before the
    knob had a column played. ``{}`` when today's polsim cannot read the run's spec."""
    try:
        exp = mf.experiment_of(manifest)
        game = get_game(exp.game)
        restores = game.physics_restores(manifest.get(PHYSICS) or "")
        cells = [{**rules.model_dump(mode="json"), **restores}
                 for rules in rules_as_played(game, exp, manifest.get("package_version"))]
    except UsageError:
        return {}
    return {f"rule_{k}": v for k, v in cells[0].items() if v is not None and all(c.get(k) == v for c in cells)}


def _group_key(manifest: dict, cell: int, cell_label: str, rules: dict, by: list[str]) -> tuple:
    """What ``by`` says of the games of a run's ``cell``, as far as it is the same for all of them
    (a key such as ``strategy`` splits every cell alike, so it tells no cell from another)."""
    key = []
    for k in by:
        if k in ("game", "variant"):
            key.append(manifest.get("spec", {}).get(k))
        elif k in RUN_KEYS:
            key.append(manifest.get(k))
        elif k == "cell":
            key.append(cell)
        elif k == "cell_label":
            key.append(cell_label)
        elif k.startswith("rule_"):
            key.append(repr(rules.get(k.removeprefix("rule_"))))
    return tuple(key)


def mixed_rules_note(manifests: list[dict], labels: list[str], by: list[str], where: list[str] = ()) -> str:
    """The knobs (and physics) that differ between games the tables pool, and how to keep them apart."""
    if not by or "run_id" in by:
        return ""
    filtered = {split_condition(w)[0] for w in where}
    groups: dict[tuple, list[tuple[str, dict]]] = {}
    try:
        for label, manifest in zip(labels, manifests):
            for cell, (cell_label, rules) in enumerate(played_under(manifest)):
                groups.setdefault(_group_key(manifest, cell, cell_label, rules, by), []).append((label, rules))
    except UsageError:  # a variant or knob this polsim no longer has: nothing to tell
        return ""
    mixed: dict[str, dict[str, list[str]]] = {}
    for members in groups.values():
        for knob in dict.fromkeys(k for _, rules in members for k in rules):
            runs_by_value: dict[str, list[str]] = {}
            for label, rules in members:
                runs = runs_by_value.setdefault(knob_text(rules.get(knob, "unset")), [])
                if label not in runs:
                    runs.append(label)
            column = PHYSICS if knob == PHYSICS else f"rule_{knob}"
            if len(runs_by_value) > 1 and column not in filtered:
                mixed.setdefault(knob, runs_by_value)
    if not mixed:
        return ""
    listed = "; ".join(f"{'physics' if knob == PHYSICS else knob} "
                       + ", ".join(f"{value} in {' '.join(runs)}" for value, runs in runs_by_value.items())
                       for knob, runs_by_value in list(mixed.items())[:MAX_LISTED])
    more = f" (and {len(mixed) - MAX_LISTED} more knobs)" if len(mixed) > MAX_LISTED else ""
    keys = " or ".join(f"--by {PHYSICS if knob == PHYSICS else 'rule_' + knob}" for knob in list(mixed)[:MAX_LISTED])
    return (f"the tables pool games played under other rules, which --by does not tell apart: {listed}{more}; "
            f"add --by run_id or {keys} to keep them apart")
