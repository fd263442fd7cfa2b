"""Runs on object storage: an S3-compatible server (moto) on loopback
receives the shards and manifest; analyze and --resume work against it."""

from __future__ import annotations

import json
import os
import uuid

import pyarrow.fs as pafs
import pytest
from typer.testing import CliRunner

import tests.toygame  # noqa: F401  registers "toy"
from pipelines.cli import app
from pipelines.storage import locate

runner = CliRunner()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def s3(monkeypatch):
    boto3 = pytest.importorskip("boto3")
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "polsim-test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "polsim-test")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://{host}:{port}")
    monkeypatch.setenv("POLSIM_GAME_MODULES", "tests.toygame")
    monkeypatch.setenv("PYTHONPATH", ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    bucket = f"polsim-{uuid.uuid4().hex[:12]}"  # moto keeps state per process
    boto3.client("s3").create_bucket(Bucket=bucket)
    yield f"s3://{bucket}/runs"
    server.stop()


def simulate(out, *extra):
    return runner.invoke(app, ["simulate", "--game", "toy", "--strategies", "loaded,fair", "--games", "30",
                               "--seed", "5", "--shard-size", "7", "--out", out, "--run-id", "r1", "--quiet", *extra])


def in_uri(s3, monkeypatch):
    """The same place, its endpoint given in the URI (the documented form) instead of the environment."""
    endpoint = os.environ["AWS_ENDPOINT_URL"].removeprefix("http://")
    monkeypatch.delenv("AWS_ENDPOINT_URL")
    return f"{s3}?endpoint_override={endpoint}&scheme=http"


def objects(s3):
    """Every key in the bucket, folder markers too (pyarrow's listing shows a marker as a folder)."""
    import boto3

    bucket = locate(s3).path.split("/", 1)[0]
    return sorted(o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket=bucket).get("Contents", []))


def test_shards_and_manifest_land_in_object_storage_and_analyze_reads_them(s3, monkeypatch):
    """On Ray workers, with the endpoint in the URI's query (it stays after every path joined to it)."""
    s3 = in_uri(s3, monkeypatch)
    res = simulate(s3, "--workers", "1")
    assert res.exit_code == 0, res.output
    run = locate(s3).child("r1")
    assert run.uri == s3.replace("/runs?", "/runs/r1?")
    names = {i.path.split("r1/", 1)[1] for i in run.fs.get_file_info(pafs.FileSelector(run.path, recursive=True))
             if i.type == pafs.FileType.File}
    assert "manifest.json" in names
    assert {f"games/shard-{k:05d}.parquet" for k in range(5)} <= names
    out = runner.invoke(app, ["analyze", run.uri, "--format", "json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["strategies"]
    assert sum(r["games"] for r in rows) == 60  # 30 games seen from both seats


def test_resume_against_object_storage_refills_missing_shards_and_a_refused_run_writes_nothing(s3):
    assert simulate(s3, "--workers", "0").exit_code == 0
    run = locate(s3 + "/r1")
    run.fs.delete_file(run.child("games", "shard-00002.parquet").path)
    again = simulate(s3, "--workers", "0", "--resume")
    assert again.exit_code == 0, again.output
    assert run.fs.get_file_info(run.child("games", "shard-00002.parquet").path).type == pafs.FileType.File
    manifest = json.loads(run.fs.open_input_stream(run.child("manifest.json").path).read())
    assert manifest["status"] == "complete" and manifest["games_done"] == 30
    blocker = locate(s3.replace("/runs", "/other")).child("r1")  # a file where the run folder would go
    with blocker.fs.open_output_stream(blocker.path) as f:
        f.write(b"not a run")
    before = objects(s3)
    refused = simulate(s3.replace("/runs", "/other"), "--workers", "0")
    assert refused.exit_code == 2 and "is a file, not a run folder" in refused.output
    assert objects(s3) == before  # not even a folder marker
    nobucket = simulate(s3.replace("polsim-", "nosuch-"), "--workers", "0")
    assert nobucket.exit_code == 2 and "does not exist; check the bucket name" in " ".join(nobucket.output.split())
