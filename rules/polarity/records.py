"""Polarity's result tables and the batch entry point ``play_batch``.

``play_batch(specs) -> (games, turns)``: one ``games`` row per spec, in order,
and the ``turns`` rows of every game; a game that raises becomes a row with
``status="error"`` and the message; ``play_batch`` itself never raises for a
game's failure. Games are independent: a game's rows depend on its spec only.

games (one row per game)
    game_index int64; winner int8 (0 White, 1 Black, -1 draw, null: failed or
    ``step_budget``); score_0, score_1 float64 (R18: tower discs - stack);
    end_reason string (stack_empty | red_touched | red_moved |
    no_colour_on_mat | stalled | step_budget | turn_limit | physics_error, null for a
    strategy error); n_turns int32 (turns played, setup placements included);
    status string (ok | error); error string; loser int8 (seat that lost by a
    sudden end, else null); loser_cause string (R14 | R15 | R16 | null);
    red_orientation string (bar | dot); physics_version string;
    attempts_total int32 (leaner release attempts, both seats);
    physics_steps int64, sim_time float64 (simulated seconds, all episodes);
    unsettled_episodes int32 (episodes not at rest within the step budget and
    frozen, R19 ``unsettled=freeze``);
    per seat s in 0, 1: stack_s (discs left), towers_s (towers controlled),
    tower_discs_s (their scoring discs), faults_s (turns with an R6 fault),
    conversions_s, captures_s (discs captured), placements_s (leaners placed),
    gave_up_s (turns ending after max_attempts), attempts_s.

turns (one row per action; a turn with captures has several rows, same ``turn``)
    game_index int64; turn int32 (0-based; setup placements are turns
    0..2*foundations-1); seq int32 (row order within the game); player int8;
    phase string (setup | capture | place | convert); outcome string (placed |
    fault | gave_up | no_move | converted | convert_failed | captured);
    host int32 (host body id; the leaner for a conversion); azimuth,
    base_distance, tilt float64 (intended, radians and metres) and
    azimuth_noisy, base_distance_noisy, tilt_noisy (after hand noise); x, y,
    x_noisy, y_noisy float64 (spot of a setup disc or a captured tower);
    attempts int32; fault_kinds string (comma list of R6 a-e, r: the red disc moved, and s: a disc separated from a capture); red_touched
    bool; returned_to_stack int32 (R8, R9); fault_groups_made int32;
    captured_discs int32; stack_s, towers_s, tower_discs_s int32 and
    score_s float64 after the row; discs_on_mat int32; action_state string
    (place rows ending the turn: where the released Action Disc ended,
    leaning | resting (snapped onto a disc) | flat | stacked | in_hand | out);
    red_toucher string (R14 rows: action | leaner | foundation, the kind of
    disc that touched the red one; empty otherwise); unsettled int32 (bodies
    still moving when the row's episodes hit the step budget and frozen where
    they were, R19 ``unsettled=freeze``; 0 when every episode settled).
"""

from __future__ import annotations

import pyarrow as pa

from rules.base import GameSpec

SEATS = (0, 1)
PER_SEAT_GAME = ["stack", "towers", "tower_discs", "faults", "conversions", "captures", "placements", "gave_up", "attempts"]

GAMES = pa.schema(
    [
        ("game_index", pa.int64()), ("winner", pa.int8()), ("score_0", pa.float64()), ("score_1", pa.float64()),
        ("end_reason", pa.string()), ("n_turns", pa.int32()), ("status", pa.string()), ("error", pa.string()),
        ("loser", pa.int8()), ("loser_cause", pa.string()), ("red_orientation", pa.string()),
        ("physics_version", pa.string()), ("attempts_total", pa.int32()), ("physics_steps", pa.int64()),
        ("sim_time", pa.float64()), ("unsettled_episodes", pa.int32()),
    ]
    + [(f"{k}_{s}", pa.int32()) for k in PER_SEAT_GAME for s in SEATS]
)

TURNS = pa.schema(
    [
        ("game_index", pa.int64()), ("turn", pa.int32()), ("seq", pa.int32()), ("player", pa.int8()),
        ("phase", pa.string()), ("outcome", pa.string()), ("host", pa.int32()),
        ("azimuth", pa.float64()), ("base_distance", pa.float64()), ("tilt", pa.float64()),
        ("azimuth_noisy", pa.float64()), ("base_distance_noisy", pa.float64()), ("tilt_noisy", pa.float64()),
        ("x", pa.float64()), ("y", pa.float64()), ("x_noisy", pa.float64()), ("y_noisy", pa.float64()),
        ("attempts", pa.int32()), ("fault_kinds", pa.string()), ("red_touched", pa.bool_()),
        ("returned_to_stack", pa.int32()), ("fault_groups_made", pa.int32()), ("captured_discs", pa.int32()),
    ]
    + [(f"{k}_{s}", pa.int32()) for k in ("stack", "towers", "tower_discs") for s in SEATS]
    + [("score_0", pa.float64()), ("score_1", pa.float64()), ("discs_on_mat", pa.int32())]
    + [("action_state", pa.string()), ("red_toucher", pa.string()), ("unsettled", pa.int32())]
)


def table(rows: list[dict], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_pylist([{f.name: r.get(f.name) for f in schema} for r in rows], schema=schema)


def error_row(spec: GameSpec, exc: BaseException, partial: dict | None = None) -> dict:
    from rules.polarity.engine import PhysicsError

    row = dict(partial or {})
    row.update(
        game_index=spec.index, winner=None, status="error", error=f"{type(exc).__name__}: {exc}",
        end_reason="physics_error" if isinstance(exc, PhysicsError) else None,
    )
    return row


def play_one(spec: GameSpec, sim=None) -> tuple[dict, list[dict]]:
    """One game's row and turn rows; failures become an error row, never an exception."""
    from rules.polarity.engine import Game

    game = None
    try:
        game = Game(spec, sim)
        row, turns = game.play()
        row["game_index"] = spec.index
    except Exception as exc:  # a strategy or the physics failed: record it, go on
        partial = {"n_turns": game.turn, "red_orientation": game.red_orientation} if game else {}
        row, turns = error_row(spec, exc, partial), (game.rows if game else [])
    for seq, t in enumerate(turns):
        t["game_index"], t["seq"] = spec.index, seq
    return row, turns


def play_batch(specs: list[GameSpec], sim=None) -> tuple[pa.Table, pa.Table]:
    """Play every spec; ``games`` has exactly one row per spec, in order."""
    games, turns = [], []
    for spec in specs:
        row, rows = play_one(spec, sim)
        games.append(row)
        turns.extend(rows)
    return table(games, GAMES), table(turns, TURNS)
