"""Bad input on the command line: one line naming the problem and what to do,
exit code 2, and nothing written (README, "Bad input")."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.runner import run_experiment
from pipelines.spec import Cell, Experiment

runner = CliRunner()


def files_under(root) -> set[str]:
    return {os.path.relpath(os.path.join(d, n), root) for d, dirs, names in os.walk(root) for n in dirs + names}


def refused(tmp_path, args: list[str], message: str) -> str:
    """Run ``polsim args``; assert exit 2, one line holding ``message``, nothing written under tmp_path."""
    before = files_under(tmp_path)
    res = runner.invoke(app, args)
    lines = res.output.strip().splitlines()
    assert res.exit_code == 2, res.output
    assert len(lines) == 1, res.output
    assert message in lines[0], res.output
    assert files_under(tmp_path) == before
    return lines[0]


def simulate(tmp_path, *extra: str, out: str | None = None) -> list[str]:
    return ["simulate", "--game", "toy", "--strategies", "fair,loaded", "--games", "4",
            "--out", out or str(tmp_path / "runs"), "--workers", "0", "--quiet", *extra]


def toy_run(tmp_path, games=6, seed=3, shard_size=2, folder="runs"):
    exp = Experiment(game="toy", variant="standard", cells=(Cell(matchup=("loaded", "fair")),),
                     games=games, seed=seed, shard_size=shard_size)
    return run_experiment(exp, str(tmp_path / folder), workers=0)


# -- 1. seeds ---------------------------------------------------------------------
@pytest.mark.parametrize("seed", [str(2**64), str(10**30)])
def test_simulate_rejects_a_seed_beyond_64_bits(tmp_path, seed):
    refused(tmp_path, simulate(tmp_path, "--seed", seed), "--seed must be 0..18446744073709551615")


def test_simulate_accepts_the_largest_64_bit_seed(tmp_path):
    res = runner.invoke(app, simulate(tmp_path, "--seed", str(2**64 - 1)))
    assert res.exit_code == 0, res.output


def test_sweep_and_tournament_reject_a_seed_beyond_64_bits(tmp_path):
    refused(tmp_path, ["sweep", "--game", "toy", "--set", "sides=4,6", "--games", "2", "--seed", str(2**64),
                       "--out", str(tmp_path / "runs"), "--workers", "0", "--quiet"], "--seed must be 0..")
    refused(tmp_path, ["tournament", "--game", "toy", "-s", "fair,loaded", "--games", "2", "--seed", str(2**64),
                       "--out", str(tmp_path / "runs"), "--workers", "0", "--quiet"], "--seed must be 0..")


# -- 5. run size ------------------------------------------------------------------
def test_simulate_rejects_more_games_than_a_run_can_hold(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--games", str(10**21)), "--games must be 1..1,000,000,000")


def test_simulate_rejects_a_run_of_more_shards_than_a_manifest_can_list(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--games", str(10**8), "--shard-size", "2"), "pass --shard-size 100 or more")


def test_tournament_counts_every_pairing_against_the_run_limit(tmp_path):
    refused(tmp_path, ["tournament", "--game", "toy", "-s", "fair,loaded,loaded:bonus=2", "--games", str(10**9),
                       "--out", str(tmp_path / "runs"), "--workers", "0", "--quiet"], "more than 1,000,000,000 per run")


# -- 2. corrupt runs --------------------------------------------------------------
def manifest_path(run_uri):
    return os.path.join(run_uri, "manifest.json")


CORRUPT_MANIFESTS = [
    ('{"format": 1, "run_id": ', "is not valid JSON"),
    ("", "is not valid JSON"),
    ("[1, 2]", "is not a JSON object"),
    ('{"format": 99, "run_id": "x", "shards": [], "spec": {}}', "has format 99, this polsim reads format 1"),
    ('{"format": 1, "run_id": "x", "shards": []}', "has no spec"),
]


def corrupt_manifest(run_uri, text):
    with open(manifest_path(run_uri), "w") as f:
        f.write(text)


def every_reader(run_uri, other_uri, tmp_path) -> list[list[str]]:
    return [["analyze", run_uri], ["compare", run_uri, other_uri], ["compare", other_uri, run_uri],
            ["regress", run_uri, "--out", str(tmp_path / "regress"), "--workers", "0", "-q"],
            ["replay", run_uri, "--game", "0"], ["report", run_uri, "--out", str(tmp_path / "r.html")]]


@pytest.mark.parametrize("text, message", CORRUPT_MANIFESTS)
def test_every_command_refuses_a_run_whose_manifest_is_corrupt(tmp_path, text, message):
    bad, good = toy_run(tmp_path), toy_run(tmp_path, folder="other")
    corrupt_manifest(bad.uri, text)
    for args in every_reader(bad.uri, good.uri, tmp_path):
        line = refused(tmp_path, args, message)
        assert "Traceback" not in line


def test_a_manifest_of_an_unknown_game_is_refused(tmp_path):
    run = toy_run(tmp_path)
    with open(manifest_path(run.uri)) as f:
        text = f.read().replace('"game": "toy"', '"game": "chess"')
    corrupt_manifest(run.uri, text)
    refused(tmp_path, ["analyze", run.uri], "plays a game this polsim does not know: unknown game 'chess'")


def test_every_command_refuses_a_run_with_a_garbage_parquet_shard(tmp_path):
    bad, good = toy_run(tmp_path), toy_run(tmp_path, folder="other")
    shard = os.path.join(bad.uri, "games", "shard-00000.parquet")
    with open(shard, "wb") as f:
        f.write(b"not parquet at all")
    for args in every_reader(bad.uri, good.uri, tmp_path):
        refused(tmp_path, args, f"{shard} is not a readable Parquet file")


def test_analyze_and_report_refuse_a_shard_whose_data_is_damaged_behind_a_good_footer(tmp_path):
    run = toy_run(tmp_path, games=40, shard_size=20)
    shard = os.path.join(run.uri, "turns", "shard-00000.parquet")
    data = bytearray(open(shard, "rb").read())
    data[4: len(data) // 2] = b"Z" * (len(data) // 2 - 4)      # pages garbled, footer intact
    open(shard, "wb").write(bytes(data))
    refused(tmp_path, ["analyze", run.uri], "a shard of the run cannot be read")
    refused(tmp_path, ["report", run.uri, "--out", str(tmp_path / "r.html")], "a shard of the run cannot be read")


def test_regress_refuses_a_baseline_with_no_finished_games_before_playing(tmp_path):
    import shutil

    run = toy_run(tmp_path)
    shutil.rmtree(os.path.join(run.uri, "games"))
    refused(tmp_path, ["regress", run.uri, "--out", str(tmp_path / "regress"), "--workers", "0", "-q"],
            "has no finished games yet")


# -- 3. half-written runs -----------------------------------------------------------
@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
def test_simulate_rejects_a_knob_that_is_not_finite(tmp_path, value):
    refused(tmp_path, ["simulate", "--game", "polarity", "--set", f"magnet_strength={value}", "--games", "2",
                       "--out", str(tmp_path / "runs"), "--workers", "0", "--quiet"],
            "bad value for knob magnet_strength: Input should be a finite number")


@pytest.mark.parametrize("knobs", [["--set", "stack_size=3", "--set", "foundations=3"],
                                   ["--variant", "seven-foundations", "--set", "stack_size=7"]])
def test_r3_a_stack_that_setup_would_empty_is_refused(tmp_path, knobs):
    """Before: setup emptied both stacks (then drove them negative) and the game
    loop skipped both seats forever, never reaching its turn cap."""
    refused(tmp_path, ["simulate", "--game", "polarity", *knobs, "--games", "2",
                       "--out", str(tmp_path / "runs"), "--workers", "0", "--quiet"],
            "must be greater than foundations")


def test_simulate_rejects_a_strategy_parameter_that_is_not_finite(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--strategies", "sleepy:ms=inf,fair"), "bad parameter ms")


def test_simulate_refuses_an_unreachable_address_before_writing_anything(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--address", "127.0.0.1:1"), "cannot reach a Ray cluster at --address 127.0.0.1:1")


def test_simulate_refuses_an_address_that_is_not_host_and_port(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--address", "nonsense"), "is not 'auto' or host:port")


def test_simulate_with_address_auto_and_no_cluster_fails_before_writing_anything(tmp_path, monkeypatch):
    import ray._private.services as services

    def no_cluster(address):
        raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect to.")

    monkeypatch.setattr(services, "canonicalize_bootstrap_address_or_die", no_cluster)
    refused(tmp_path, simulate(tmp_path, "--address", "auto"), "--address auto found no Ray cluster")


def test_an_address_that_does_not_answer_fails_within_the_timeout(tmp_path, monkeypatch):
    import socket
    import time

    from pipelines import executors

    def blackhole(address, timeout):
        time.sleep(timeout)
        raise socket.timeout("timed out")

    monkeypatch.setattr(executors, "ADDRESS_TIMEOUT_S", 0.2)
    monkeypatch.setattr(socket, "create_connection", blackhole)
    t0 = time.perf_counter()
    refused(tmp_path, simulate(tmp_path, "--address", "10.255.255.1:6379"), "cannot reach a Ray cluster")
    assert time.perf_counter() - t0 < 5


# -- 4. run ids -----------------------------------------------------------------------
@pytest.mark.parametrize("run_id", ["", " ", ".", "..", "a/b", "../escape", "/abs", "a\\b"])
def test_simulate_and_regress_reject_a_run_id_that_is_not_a_folder_name(tmp_path, run_id):
    refused(tmp_path, simulate(tmp_path, "--run-id", run_id), "is not a folder name")
    base = toy_run(tmp_path, folder="base")
    refused(tmp_path, ["regress", base.uri, "--out", str(tmp_path / "runs"), "--run-id", run_id, "--workers", "0", "-q"],
            "is not a folder name")


def test_simulate_refuses_an_existing_folder_that_is_not_a_run_unless_overwrite(tmp_path):
    mine = tmp_path / "runs" / "mine"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("keep me")
    refused(tmp_path, simulate(tmp_path, "--run-id", "mine"), "exists and is not a polsim run")
    assert runner.invoke(app, simulate(tmp_path, "--run-id", "mine", "--overwrite")).exit_code == 0
    assert (mine / "manifest.json").exists() and not (mine / "notes.txt").exists()


def test_simulate_refuses_a_run_id_that_is_a_file(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "afile").write_text("x")
    refused(tmp_path, simulate(tmp_path, "--run-id", "afile"), "is a file, not a run folder")


def test_simulate_leaves_no_out_folder_behind_when_refused(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--run-id", ".."), "is not a folder name")
    assert not (tmp_path / "runs").exists()


# -- 6. output files ---------------------------------------------------------------
def test_replay_checks_every_output_path_before_writing_any(tmp_path):
    run = toy_run(tmp_path)
    refused(tmp_path, ["replay", run.uri, "--game", "0", "--out", str(tmp_path / "ok.html"), "--png", "/proc/x.png"],
            "cannot write --png /proc/x.png")
    refused(tmp_path, ["replay", run.uri, "--game", "0", "--out", str(tmp_path)], f"--out {tmp_path} is a folder")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    refused(tmp_path, ["replay", run.uri, "--game", "0", "--png", str(blocker / "g.png")], "cannot write --png")


def test_report_refuses_a_folder_or_an_unwritable_place_as_out(tmp_path):
    run = toy_run(tmp_path)
    refused(tmp_path, ["report", run.uri, "--out", str(tmp_path)], "is a folder; give a file name inside it")
    refused(tmp_path, ["report", run.uri, "--out", "/proc/report.html"], "cannot write --out /proc/report.html")


# -- 7. URIs -------------------------------------------------------------------------
def test_every_command_names_a_uri_of_unknown_scheme(tmp_path):
    run = toy_run(tmp_path)
    refused(tmp_path, simulate(tmp_path, out="foo://bar"),
            "foo://bar: unknown URI scheme 'foo'; give a local path or s3://bucket/prefix")
    refused(tmp_path, ["analyze", "foo://bar/run"], "unknown URI scheme 'foo'")
    refused(tmp_path, ["report", run.uri, "--out", "foo://bar/r.html"], "unknown URI scheme 'foo'")
    refused(tmp_path, ["replay", run.uri, "--game", "0", "--png", "foo://bar/g.png"], "unknown URI scheme 'foo'")


def test_simulate_to_an_unreachable_object_store_names_it_and_what_to_check(tmp_path):
    uri = "s3://bucket/runs?endpoint_override=127.0.0.1:1&scheme=http&region=us-east-1"
    line = refused(tmp_path, simulate(tmp_path, out=uri), f"cannot write to --out {uri}")
    assert "check the bucket name, the endpoint and the credentials" in line


def test_every_reading_command_names_an_unreachable_object_store_and_what_to_check(tmp_path):
    """Before: analyze, compare, replay, regress and report printed an OSError traceback (exit 1)."""
    run = toy_run(tmp_path)
    uri = "s3://bucket/runs/r?endpoint_override=127.0.0.1:1&scheme=http&region=us-east-1"
    for args in (["analyze", uri], ["compare", run.uri, uri]):  # each ~6 s of the S3 client's retries; the
        line = refused(tmp_path, args, f"cannot reach {uri}")    # other commands read runs the same way
        assert "check the bucket name, the endpoint and the credentials" in line
    page = "s3://bucket/r.html?endpoint_override=127.0.0.1:1&scheme=http&region=us-east-1"
    refused(tmp_path, ["report", run.uri, "--out", page], f"cannot write --out {page}")


@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_out_is_refused(tmp_path, monkeypatch, out):
    """Before: '' wrote the run into the current folder, ' ' made a folder named ' ' (an operator's trials)."""
    monkeypatch.chdir(tmp_path)
    refused(tmp_path, ["simulate", "--game", "toy", "--strategies", "fair,loaded", "--games", "4", "--out", out,
                       "--workers", "0", "-q"], "--out is empty; give a folder (such as runs) or s3://bucket/prefix")


def test_more_workers_than_four_a_cpu_are_refused(tmp_path):
    """Before: --workers 100000 had Ray fork until the machine ground to a halt (an operator's trials)."""
    too_many = 4 * (os.cpu_count() or 1) + 1
    refused(tmp_path, simulate(tmp_path)[:-3] + ["--workers", str(too_many), "--quiet"],
            f"--workers {too_many} is more than 4 per CPU of this machine")


# -- 8. several runs -------------------------------------------------------------------
def test_analyze_and_report_refuse_runs_of_different_games(tmp_path):
    toy = toy_run(tmp_path)
    polar = tmp_path / "polar"
    assert runner.invoke(app, ["simulate", "--game", "polar", "--games", "2", "--out", str(polar),
                               "--run-id", "p", "--workers", "0", "-q"]).exit_code == 0
    message = "runs play different games (polar, toy): analyze one game at a time"
    refused(tmp_path, ["analyze", toy.uri, str(polar / "p")], message)
    refused(tmp_path, ["report", toy.uri, str(polar / "p"), "--out", str(tmp_path / "r.html")], message)
    apart = runner.invoke(app, ["analyze", toy.uri, str(polar / "p"), "--by", "game", "--format", "json"])
    assert apart.exit_code == 0, apart.output  # kept apart, each game's measures stay its own


def test_analyze_and_report_refuse_the_same_run_twice(tmp_path):
    run = toy_run(tmp_path)
    refused(tmp_path, ["analyze", run.uri, run.uri], "is given twice: its games would count twice")
    refused(tmp_path, ["analyze", run.uri, run.uri + "/"], "is given twice")
    refused(tmp_path, ["report", run.uri, run.uri, "--out", str(tmp_path / "r.html")], "is given twice")


# -- 9. filters that match nothing -------------------------------------------------------
def test_analyze_and_report_say_when_where_matches_no_game(tmp_path):
    run = toy_run(tmp_path)
    refused(tmp_path, ["analyze", run.uri, "--where", "variant=nosuch"], "no games match --where variant=nosuch")
    refused(tmp_path, ["report", run.uri, "--where", "variant=nosuch", "--out", str(tmp_path / "r.html")],
            "no games match --where variant=nosuch")
    ok = runner.invoke(app, ["analyze", run.uri, "--where", "variant=standard", "--format", "json"])
    assert ok.exit_code == 0, ok.output


# -- 10. no progress line before an error ---------------------------------------------------
@pytest.mark.parametrize("extra, message", [
    (["--run-id", ".."], "is not a folder name"),
    (["--address", "127.0.0.1:1"], "cannot reach a Ray cluster"),
    (["--set", "sides=1"], "bad value for knob sides"),
])
def test_simulate_without_quiet_shows_only_the_error_line(tmp_path, extra, message):
    args = [a for a in simulate(tmp_path, *extra) if a != "--quiet"]
    refused(tmp_path, args, message)


# -- 11. repeated and empty items ------------------------------------------------------------
def sweep(tmp_path, *extra: str) -> list[str]:
    return ["sweep", "--game", "toy", "--strategies", "fair,loaded", "--games", "2",
            "--out", str(tmp_path / "runs"), "--workers", "0", "--quiet", *extra]


def test_simulate_and_sweep_reject_a_knob_given_twice(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--set", "sides=5", "--set", "sides=7"), "--set sides is given twice")
    refused(tmp_path, sweep(tmp_path, "--set", "sides=4,5", "--set", "sides=7"), "--set sides is given twice")


def test_simulate_rejects_a_strategy_parameter_given_twice(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--strategies", "loaded:bonus=1:bonus=2,fair"),
            "strategy parameter 'bonus' is given twice")


@pytest.mark.parametrize("value, message", [
    ("fair,,loaded", "has an empty item"),
    ("fair,loaded,", "has an empty item"),
    ("", "--strategies is empty"),
    (" , ", "--strategies is empty"),
])
def test_simulate_and_tournament_reject_empty_strategy_items(tmp_path, value, message):
    refused(tmp_path, simulate(tmp_path, "--strategies", value), message)
    refused(tmp_path, ["tournament", "--game", "toy", "-s", value, "--games", "2", "--out", str(tmp_path / "runs"),
                       "--workers", "0", "-q"], message)


def test_simulate_sweep_and_tournament_reject_an_empty_variant(tmp_path):
    refused(tmp_path, simulate(tmp_path, "--variant", ""), "unknown variant ''")
    refused(tmp_path, sweep(tmp_path, "--variant", "", "--set", "sides=4,6"), "unknown variant ''")
    refused(tmp_path, ["tournament", "--game", "toy", "-s", "fair,loaded", "--variant", "", "--games", "2",
                       "--out", str(tmp_path / "runs"), "--workers", "0", "-q"], "unknown variant ''")


def test_sweep_rejects_an_empty_value_in_a_list(tmp_path):
    refused(tmp_path, sweep(tmp_path, "--set", "sides=4,6,"), "has an empty value")


# -- 12. --show ----------------------------------------------------------------------------------
def test_compare_and_regress_reject_a_negative_show(tmp_path):
    run = toy_run(tmp_path)
    refused(tmp_path, ["compare", run.uri, run.uri, "--show", "-1"], "--show must be 0 or more (got -1)")
    refused(tmp_path, ["regress", run.uri, "--out", str(tmp_path / "regress"), "--show", "-1", "--workers", "0", "-q"],
            "--show must be 0 or more (got -1)")


@pytest.mark.parametrize("args, message", [
    (["simulate", "--bogus"], "error: No such option: --bogus"),
    (["simulate", "--games", "abc"], "error: Invalid value for '--games' / '-n'"),
    (["nosuch"], "error: No such command 'nosuch'"),
    (["replay"], "error: Missing argument 'run'"),
])
def test_clicks_own_usage_errors_are_one_line_naming_the_help(args, message):
    """Errors click finds before a command runs are one line too (typer boxed them under the usage)."""
    res = runner.invoke(app, args, prog_name="polsim")
    assert res.exit_code == 2, res.output
    command = "polsim" if args == ["nosuch"] else f"polsim {args[0]}"
    (line,) = res.output.strip().splitlines()
    assert line.startswith(message) and line.endswith(f"; see {command} --help"), line


def test_a_bare_polsim_prints_its_help_not_an_error():
    res = runner.invoke(app, [])
    assert "error:" not in res.output and "simulate" in res.output and "Usage" in res.output
