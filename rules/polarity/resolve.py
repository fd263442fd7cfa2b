"""Fault resolution: pure functions from one physics ``Episode`` to rule events.

Nothing here touches the world. The inputs are the bodies before the episode
(``before``: id -> ``BodyInfo``), the disc pairs touching before it, the
episode, who moved and what the move was; the output is a ``Resolution``:

- ``faults``: the R6 reaction kinds seen, a subset of ``a``-``e``
  (a new contact, b a leaner fell flat, c a disc snapped onto the held disc,
  d a foundation or tower moved more than ``fault_move_diameters``,
  e a disc left the circle; r the red disc moved more than
  ``fault_move_diameters`` of its own in this episode, a reaction like d;
  the engine adds s, a disc separated from a tower being placed in a
  capture: ``engine.separated``);
- ``red_touched`` (R14) and ``red_moved`` (R15: ``red_off_dot``, measured
  from the dot, so pushes add up over turns; with ``red_moved_loses`` it
  ends the game, and the move is a fault; with R15 off it is not a fault by
  itself, or a red disc nudged off its dot turns earlier would make every
  later move a fault: only r, a push in this move, is);
- ``returned``: discs that go to the mover's stack (R8 in hand, R9 out);
- ``groups``: new fault groups for the opponent to capture (R10, R11, R12);
- ``action``: what became of the action disc (``placed`` leaning, ``flat``
  fell with no reaction so the hand retries (R5), ``fault``, ``in_hand``).

``expected`` names the bodies whose motion *is* the move (the action disc,
the leaner being converted, the discs of a tower being placed): their own
motion is not a reaction, and contacts among them are not new.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from sim import detmath as dm
from sim.api import BodyInfo, BodyState, Episode

from rules.polarity.physics import Geometry
from rules.polarity.state import FaultGroup, Table, colour

Pair = frozenset

MOUNTED = (BodyState.FLAT, BodyState.STACKED)
LEANERS = (BodyState.LEANING, BodyState.RESTING)


@dataclass
class Resolution:
    faults: list[str] = field(default_factory=list)
    red_touched: bool = False
    red_moved: bool = False
    returned: list[int] = field(default_factory=list)
    groups: list[FaultGroup] = field(default_factory=list)
    action: str = ""
    red_toucher: str = ""  # who touched the red disc: action | leaner | foundation | "" (none)
    red_moved_loses: bool = True  # R15 in force: the red disc off its dot makes the move a fault

    @property
    def fault(self) -> bool:
        return bool(self.faults) or self.red_touched or (self.red_moved and self.red_moved_loses)


def pairs(contacts: Iterable[tuple[int, int]]) -> set[frozenset]:
    return {Pair(c) for c in contacts if c[0] != c[1]}


def new_contact_pairs(ep: Episode, before_contacts: set[frozenset], expected: set[int]) -> set[frozenset]:
    """Pairs that came to touch during the episode, except those inside the move itself."""
    seen = pairs(ep.new_contacts) | pairs(ep.final_contacts)
    return {p for p in seen - before_contacts if not p <= expected}


def fault_kinds(
    ep: Episode,
    before: dict[int, BodyInfo],
    before_contacts: set[frozenset],
    expected: set[int],
    move_limit: float,
    action: int = -1,
) -> list[str]:
    """The R6 reactions (a-e) in an episode; ``action`` is the released Action Disc, if any."""
    kinds = []
    if new_contact_pairs(ep, before_contacts, expected):
        kinds.append("a")
    if any(i not in expected and i in before and before[i].state in LEANERS for i in ep.fallen):
        kinds.append("b")
    if ep.in_hand:
        kinds.append("c")
    if any(
        d > move_limit and i not in expected and i in before and before[i].state in MOUNTED and not before[i].red
        for i, d in ep.moved_diameters.items()
    ):
        kinds.append("d")
    if any(i != action and not (i in before and before[i].red) for i in ep.out_of_bounds):
        kinds.append("e")
    return kinds


def components(ids: Iterable[int], links: Iterable[frozenset]) -> list[set[int]]:
    """Connected components of the contact graph over ``ids`` (union-find)."""
    parent = {i: i for i in ids}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for p in links:
        a, b = tuple(p)
        if a in parent and b in parent:
            parent[find(a)] = find(b)
    groups: dict[int, set[int]] = {}
    for i in parent:
        groups.setdefault(find(i), set()).add(i)
    return sorted(groups.values(), key=min)


def tower_pieces(table: Table, final: dict[int, BodyInfo], removed: set[int]) -> list[list[int]]:
    """After an episode, each tower's discs still stacked together (bottom to top):
    its largest piece, or [] when none is left. R13 reads a tower as 2+ discs, so a
    tower knocked apart into single discs is gone (its discs lie on the mat as any
    other); a one-disc tower (a captured single disc, R12) stays while its disc
    does. Discs returned to a stack (``removed``) or out of the circle are not in it."""
    out = []
    for t in table.towers:
        pieces: dict[int, list[int]] = {}
        for i in t.ids:
            if i in final and i not in removed and final[i].state != BodyState.OUT:
                key = final[i].tower if final[i].tower >= 0 else i
                pieces.setdefault(key, []).append(i)
        best = max(pieces.values(), key=len, default=[])
        if len(best) < 2 and len(t.ids) > 1:
            best = []
        out.append(sorted(best, key=lambda i: final[i].z))
    return out


def fault_groups(
    ep: Episode,
    before: dict[int, BodyInfo],
    before_contacts: set[frozenset],
    expected: set[int],
    table: Table,
    mover: int,
    tower_steal: bool,
    removed: set[int],
    keep: set[int] = frozenset(),
) -> list[FaultGroup]:
    """R10-R12: groups snapped together on the mat, and flipped opponent leaners.

    ``keep`` are discs the mover has just captured (a tower being placed): they
    stay the mover's even if a fault touches them. The move's own discs
    (``expected``: a captured group turned to the captor's colour) are never
    R12's flipped leaners; those of a capture that come apart are
    ``engine.separated``'s.
    """
    final = {b.id: b for b in ep.final if not b.red and b.id not in removed}
    links = {p for p in pairs(ep.final_contacts) if p <= final.keys()}
    new = new_contact_pairs(ep, before_contacts, expected) & links
    new_nodes = {i for p in new for i in p}
    # R11 keeps only discs still in a tower after this move: one knocked off and
    # snapped onto another disc is in the group like any other
    captured = {i for piece in tower_pieces(table, final, removed) for i in piece}
    groups = []
    for comp in components(final, links):
        if len(comp) < 2 or not comp & new_nodes:
            continue
        ids = comp - set(keep)
        if not tower_steal:
            ids -= captured
        if ids:
            groups.append(FaultGroup(captor=1 - mover, ids=tuple(sorted(ids))))
    # the move's own discs are not R12's, nor a tower's (tilted, they read as leaners): a
    # tower turned over is R13's, its controller the colour now on top
    grouped = {i for g in groups for i in g.ids} | set(expected) | set(keep) | table.tower_ids()
    for i in sorted(set(ep.fallen) & set(ep.flipped)):
        b0, b1 = before.get(i), final.get(i)
        if b0 is None or b1 is None or i in grouped or b0.state not in LEANERS:
            continue
        if b0.up == colour(1 - mover) and b1.up == colour(mover):
            groups.append(FaultGroup(captor=1 - mover, ids=(i,), flipped_leaner=True))
    return groups


def action_outcome(ep: Episode, res: Resolution, action: int) -> str:
    """What became of the Action Disc ``action`` of a ``place_leaner`` episode. A move
    that is a fault only by touching or moving the red disc (R14/R15 off as ends) is a
    fault too: its disc is no R5 retry, and out of the circle it is R9's."""
    if action in ep.in_hand or "c" in res.faults:
        return "in_hand"
    if res.fault:
        return "fault"
    state = next((b.state for b in ep.final if b.id == action), BodyState.OUT)
    return "placed" if state == BodyState.LEANING else "flat"


def red_toucher(red_contacts, before: dict[int, BodyInfo], action: int) -> str:
    """Which kind of disc touched the red one (R14 diagnostics): the Action Disc itself
    (or the new disc of the move), a leaner, or a flat disc or tower."""
    kinds = []
    for i in red_contacts:
        b = before.get(i)
        if i == action or b is None:
            kinds.append("action")
        elif b.state in LEANERS:
            kinds.append("leaner")
        elif not b.red:
            kinds.append("foundation")
    return min(kinds, key=["action", "leaner", "foundation"].index) if kinds else "other"


def red_off_dot(ep: Episode, before: dict[int, BodyInfo], red_radius: float, dot=(0.0, 0.0)) -> bool:
    """R15: the red disc uncovered the centre dot ``dot`` (its place at setup): its
    centre ended more than one red radius from the dot, or moved further during
    the episode than one radius plus where it started from the dot (then it was
    off at some instant). Measured from the dot, not from where the episode
    began, so small pushes over several turns add up."""
    for b in ep.final:
        if not b.red:
            continue
        start = before.get(b.id)
        offset = dm.hypot(start.x - dot[0], start.y - dot[1]) if start else 0.0
        if (dm.hypot(b.x - dot[0], b.y - dot[1]) > red_radius
                or ep.red_displacement * red_radius > red_radius + offset):
            return True
    return False


def resolve(
    ep: Episode,
    before: dict[int, BodyInfo],
    before_contacts: set[frozenset],
    table: Table,
    mover: int,
    expected: set[int],
    move_limit: float = 1.0,
    tower_steal: bool = False,
    keep: set[int] = frozenset(),
    action: int = -1,
    red_radius: float = Geometry.red_radius,
    red_moved_loses: bool = True,
) -> Resolution:
    """Every rule event of one episode, for the move ``mover`` just made.
    ``action``: the Action Disc released by a ``place_leaner`` episode (else -1)."""
    faults = fault_kinds(ep, before, before_contacts, expected, move_limit, action)
    if ep.red_displacement / 2.0 > move_limit:  # red radii -> red diameters
        faults.append("r")
    res = Resolution(
        faults=faults,
        red_touched=bool(ep.red_contacts),
        red_moved=red_off_dot(ep, before, red_radius),
        red_moved_loses=red_moved_loses,
    )
    if action >= 0:
        res.action = action_outcome(ep, res, action)
    in_hand = set(ep.in_hand) | ({action} if res.action == "in_hand" else set())
    out = set(ep.out_of_bounds) - ({action} if res.action == "flat" else set())
    red = {i for i, b in before.items() if b.red}
    res.returned = sorted((in_hand | out) - red)
    if ep.red_contacts:
        res.red_toucher = red_toucher(ep.red_contacts, before, action)
    if res.fault:
        res.groups = fault_groups(
            ep, before, before_contacts, expected, table, mover, tower_steal, set(res.returned), keep
        )
    return res
