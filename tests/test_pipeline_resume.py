"""What --resume may finish: the same experiment, made by the same versions, in the same shards."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app

runner = CliRunner()


def simulate(out, *extra):
    return runner.invoke(app, ["simulate", "--game", "toy", "--strategies", "loaded,fair", "--games", "12",
                               "--seed", "4", "--out", str(out), "--run-id", "r", "--workers", "0", "--quiet", *extra])


def flat(text):
    return " ".join(text.split())


@pytest.mark.parametrize("field, name", [
    (("package_version",), "polsim"),
    (("physics_version",), "physics"),
    (("environment", "packages", "numpy"), "numpy"),
])
def test_resume_refuses_a_run_made_by_other_versions_and_writes_nothing(tmp_path, field, name):
    assert simulate(tmp_path, "--shard-size", "4").exit_code == 0
    run = tmp_path / "r"
    (run / "games" / "shard-00002.parquet").unlink()
    manifest = json.loads((run / "manifest.json").read_text())
    node = manifest
    for key in field[:-1]:
        node = node[key]
    now = node[field[-1]]
    node[field[-1]] = "0.0.1-old"
    (run / "manifest.json").write_text(json.dumps(manifest))
    before = sorted(p.relative_to(run) for p in run.rglob("*"))

    res = simulate(tmp_path, "--shard-size", "4", "--resume")
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1
    line = flat(res.output)
    assert line.startswith("error: run r was made with")
    assert f"{name} 0.0.1-old" in line and f"this is {name} {now or '(none)'}" in line
    assert "another --run-id" in line and "--overwrite" in line
    assert json.loads((run / "manifest.json").read_text()) == manifest  # not rewritten with today's versions
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before  # nothing played


def test_resume_without_shard_size_takes_the_stored_one(tmp_path):
    assert simulate(tmp_path, "--shard-size", "5").exit_code == 0
    (tmp_path / "r" / "games" / "shard-00001.parquet").unlink()
    again = simulate(tmp_path, "--resume")
    assert again.exit_code == 0, again.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["spec"]["shard_size"] == 5 and (manifest["status"], manifest["games_done"]) == ("complete", 12)
    assert sorted(p.name for p in (tmp_path / "r" / "games").iterdir()) == [f"shard-0000{i}.parquet" for i in range(3)]
    other = simulate(tmp_path, "--shard-size", "4", "--resume")
    assert other.exit_code == 2 and "used --shard-size 5" in flat(other.output)


@pytest.mark.parametrize("command", [["sweep", "--set", "sides=4,6", "-s", "fair,loaded"],
                                     ["tournament", "-s", "fair,loaded,loaded:bonus=2"]])
def test_sweep_and_tournament_resume_without_shard_size_take_the_stored_one(tmp_path, command):
    args = [*command, "--game", "toy", "--games", "6", "--out", str(tmp_path), "--run-id", "r",
            "--workers", "0", "--quiet"]
    assert runner.invoke(app, [*args, "--shard-size", "2"]).exit_code == 0
    (tmp_path / "r" / "games" / "shard-00001.parquet").unlink()
    again = runner.invoke(app, [*args, "--resume"])
    assert again.exit_code == 0, again.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["spec"]["shard_size"] == 2 and manifest["status"] == "complete"


def test_resuming_a_finished_run_starts_no_executor(tmp_path, monkeypatch):
    import pipelines.runner

    assert simulate(tmp_path).exit_code == 0

    def no_executor(workers, address):
        raise AssertionError("nothing to play, yet an executor (Ray) was started")

    monkeypatch.setattr(pipelines.runner, "make_executor", no_executor)
    again = simulate(tmp_path, "--resume", "--workers", "2")
    assert again.exit_code == 0, again.output


def test_resume_refuses_a_damaged_finished_shard_before_writing_anything(tmp_path):
    """A resume reads its finished shards' failures: a damaged one is named, not a traceback."""
    assert simulate(tmp_path, "--shard-size", "4").exit_code == 0
    (tmp_path / "r" / "games" / "shard-00001.parquet").write_bytes(b"not parquet")
    manifest = (tmp_path / "r" / "manifest.json").read_bytes()
    res = simulate(tmp_path, "--resume")
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1
    assert "shard-00001.parquet" in res.output and "finish the run with --resume" in res.output
    assert (tmp_path / "r" / "manifest.json").read_bytes() == manifest


@pytest.mark.parametrize("damage", ["truncated", "deleted"])
def test_resume_refuses_a_finished_shard_whose_turns_file_is_damaged_or_missing(tmp_path, damage):
    """Before: the resume called the run complete with that shard's turns gone (a helper's audit)."""
    assert simulate(tmp_path, "--shard-size", "4").exit_code == 0
    turns = tmp_path / "r" / "turns" / "shard-00002.parquet"
    if damage == "deleted":
        turns.unlink()
    else:
        turns.write_bytes(turns.read_bytes()[: turns.stat().st_size // 2])
    manifest = (tmp_path / "r" / "manifest.json").read_bytes()
    res = simulate(tmp_path, "--resume")
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1
    assert "turns/shard-00002.parquet" in flat(res.output) and "finish the run with --resume" in flat(res.output)
    assert (tmp_path / "r" / "manifest.json").read_bytes() == manifest
    (tmp_path / "r" / "games" / "shard-00002.parquet").unlink()  # as the message says
    if damage == "truncated":
        turns.unlink()
    assert simulate(tmp_path, "--resume").exit_code == 0 and turns.exists()


def test_a_shard_whose_task_fails_is_one_line_keeps_finished_shards_and_resumes(tmp_path, monkeypatch):
    """Before: a worker-side failure (a store refusing a write, say) ended the run with a traceback."""
    import pipelines.executors

    real = pipelines.executors.play_shard

    def store_refuses_shard_1(*args):
        if args[2] == 1:
            raise OSError("When uploading part for key 'runs/r/games/shard-00001.parquet': AccessDenied\nmore")
        return real(*args)

    monkeypatch.setattr(pipelines.executors, "play_shard", store_refuses_shard_1)
    failed = simulate(tmp_path, "--shard-size", "5")
    assert failed.exit_code == 1
    lines = failed.output.strip().splitlines()
    assert len(lines) == 1 and "shard 1 failed: OSError: When uploading part" in lines[0], failed.output
    assert "--resume" in lines[0]
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert (manifest["status"], manifest["games_done"]) == ("incomplete", 5)
    monkeypatch.setattr(pipelines.executors, "play_shard", real)
    again = simulate(tmp_path, "--resume")
    assert again.exit_code == 0, again.output
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["status"] == "complete"


def test_a_ray_task_error_names_the_shard_and_its_cause_in_one_line():
    from ray.exceptions import RayTaskError

    from pipelines.executors import shard_failed

    cause = PermissionError("bucket 'runs' refused the write\nTraceback ...")
    err = RayTaskError("play_shard", "Traceback (most recent call last): ...", cause)
    assert str(shard_failed(7, err)) == (
        "shard 7 failed: PermissionError: bucket 'runs' refused the write")


def test_resume_with_a_changed_option_says_it_starts_another_run_and_names_the_first(tmp_path):
    """Under the default run id a changed spec is another run: --resume finds nothing to
    finish, says so, names the run of the same game, variant and seed, then plays the new one."""
    base = ["simulate", "--game", "toy", "--strategies", "loaded,fair", "--games", "6", "--seed", "4",
            "--workers", "0", "--out", str(tmp_path)]
    first = runner.invoke(app, base)
    assert first.exit_code == 0, first.output
    (made,) = [p.name for p in tmp_path.iterdir()]
    changed = runner.invoke(app, base + ["--no-turns", "--resume"])
    assert changed.exit_code == 0, changed.output
    text = flat(changed.output)
    assert "there is no run" in text and "to resume: it starts from the first game" in text
    assert f"holds {made} of the same game, variant and seed" in text
    assert len(list(tmp_path.iterdir())) == 2
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{not json")            # another folder's damage
    again = runner.invoke(app, base + ["--seed", "5", "--resume"])
    assert again.exit_code == 0 and "to resume: it starts from the first game" in flat(again.output)
    same = runner.invoke(app, base + ["--resume"])
    assert same.exit_code == 0 and "note:" not in same.output           # a run to finish: no note
    alone = runner.invoke(app, base[:-1] + [str(tmp_path / "empty"), "--resume"])
    assert alone.exit_code == 0 and "to resume: it starts from the first game" in flat(alone.output)
    assert "holds" not in flat(alone.output)
