"""Where runs live: a local folder or object storage, through ``pyarrow.fs``.

A run is ``<out>/<run_id>/`` holding ``manifest.json``, ``games/shard-NNNNN.parquet``
and ``turns/shard-NNNNN.parquet``. Every file is written whole or not at all:
on a local disk to a temporary name in the same folder, flushed to the disk
(fsync), then renamed into place; on object storage a single PUT is already
atomic (a reader sees the old object or the new one, never half), so it is
written straight to its key.

A shard is finished when its ``games`` file exists: the worker writes
``turns`` first and ``games`` last, so ``games`` is the commit marker.
"""

from __future__ import annotations

import errno
import io
import json
import os
import tempfile
import uuid
from collections.abc import Mapping
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

SHARD_NAME = "shard-{:05d}.parquet"


@dataclass(frozen=True)
class Location:
    """A folder on some filesystem: ``fs`` plus a path inside it."""

    fs: pafs.FileSystem
    path: str
    uri: str

    @property
    def is_local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def child(self, *parts: str) -> "Location":
        """``parts`` inside this folder; a URI's query (``?endpoint_override=…``) stays at its end."""
        path = "/".join([self.path.rstrip("/"), *parts])
        base, query = _split_query(self.uri) if not self.is_local else (self.uri, "")
        return Location(self.fs, path, "/".join([base.rstrip("/"), *parts]) + query)

    def parent(self) -> "Location":
        base, query = _split_query(self.uri) if not self.is_local else (self.uri, "")
        return Location(self.fs, self.path.rsplit("/", 1)[0] or "/", base.rstrip("/").rsplit("/", 1)[0] + query)


def _split_query(uri: str) -> tuple[str, str]:
    """``s3://b/p?x=1`` -> (``s3://b/p``, ``?x=1``)."""
    base, sep, query = uri.partition("?")
    return base, sep + query


def locate(uri: str) -> Location:
    """Resolve a folder given as a local path or a URI (``s3://bucket/prefix``);
    an unknown scheme or an unreachable store is a ``UsageError`` naming the URI."""
    from rules.base import UsageError

    if "://" not in uri:
        path = os.path.abspath(os.path.expanduser(uri))
        return Location(pafs.LocalFileSystem(), path, path)
    try:
        fs, path = pafs.FileSystem.from_uri(uri)
    except pa.ArrowInvalid as exc:
        reason = " ".join(str(exc).split())
        if reason.startswith("Unrecognized filesystem type"):
            reason = f"unknown URI scheme {uri.split('://', 1)[0]!r}"
        raise UsageError(f"{uri}: {reason}; give a local path or s3://bucket/prefix") from None
    except OSError as exc:
        raise UsageError(f"cannot reach {uri}: {' '.join(str(exc).split())}; check the bucket name, "
                         "the endpoint and the credentials (AWS_* environment variables)") from None
    base, query = _split_query(uri)
    return Location(fs, path.rstrip("/"), base.rstrip("/") + query)


def exists(loc: Location) -> bool:
    return loc.fs.get_file_info(loc.path).type != pafs.FileType.NotFound


def write_bytes_atomic(loc: Location, data: bytes) -> None:
    """Write ``data`` to ``loc`` so that a reader never sees a partial file."""
    parent = loc.path.rsplit("/", 1)[0]
    if loc.is_local:
        loc.fs.create_dir(parent, recursive=True)
        tmp = f"{parent}/{TEMP_PREFIX}{uuid.uuid4().hex}"
        try:
            with open(tmp, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())  # on disk before the name is: a crash never leaves an empty shard
            os.replace(tmp, loc.path)
        finally:
            if os.path.lexists(tmp):
                os.remove(tmp)
    else:
        with loc.fs.open_output_stream(loc.path) as out:
            out.write(data)


STATISTICS = ("game_index", "turn", "cell", "seed_index")  # columns queries filter or join on
DEFAULT_LAYOUT = ("DICTIONARY", "lz4")  # (encoding, codec) of a column a layout does not name
# rows the Parquet writer encodes per call (pyarrow's default 1,024): fewer,
# longer calls cost ~5 % less CPU on a Polar turns shard, same bytes
WRITE_BATCH_ROWS = 65_536
ENCODINGS = ("DICTIONARY", "PLAIN", "DELTA_BINARY_PACKED", "BYTE_STREAM_SPLIT")


def parquet_options(table: pa.Table, layout: Mapping[str, tuple[str, str]] | None = None) -> dict:
    """``pq.write_table`` keyword arguments for ``table``: per column an
    (encoding, codec) from ``layout`` (``DEFAULT_LAYOUT`` for the others)."""
    layout = layout or {}
    chosen = {name: layout.get(name, DEFAULT_LAYOUT) for name in table.column_names}
    for name, (encoding, _) in chosen.items():
        if encoding not in ENCODINGS:
            raise ValueError(f"column {name!r}: unknown Parquet encoding {encoding!r}; choose one of {ENCODINGS}")
    plain = {name: enc for name, (enc, _) in chosen.items() if enc != "DICTIONARY"}
    stats = [name for name in STATISTICS if name in chosen]
    return {
        "compression": {name: codec for name, (_, codec) in chosen.items()},
        "use_dictionary": [name for name in chosen if name not in plain],
        "column_encoding": plain or None,
        "write_statistics": stats or False,
        "store_schema": False,
        "write_batch_size": WRITE_BATCH_ROWS,
    }


def write_table_atomic(loc: Location, table: pa.Table, layout: Mapping[str, tuple[str, str]] | None = None) -> None:
    """One Parquet file. Each column is written with the (encoding, codec) its
    ``layout`` names — a game that knows its data picks, per column of a big
    table, the cheapest encoding that keeps the file small (see
    ``rules/polar/batch.py``'s ``PARQUET_LAYOUT``) — and by default
    dictionary encoding and LZ4 (its encoding costs ~15 % less CPU than
    zstd's for ~20 % more bytes). ``store_schema=False``: the file holds only
    the Parquet schema, so a dictionary-array column (how workers build
    repeated strings cheaply) reads back as plain ``string`` like any other;
    min/max statistics only for the columns in ``STATISTICS`` (the others
    cost encoding time and no query prunes on them); ``WRITE_BATCH_ROWS``
    rows encoded per writer call."""
    buf = io.BytesIO()
    pq.write_table(table, buf, **parquet_options(table, layout))
    write_bytes_atomic(loc, buf.getvalue())


def read_json(loc: Location) -> dict:
    with loc.fs.open_input_stream(loc.path) as src:
        return json.loads(src.read().decode("utf-8"))


def write_json_atomic(loc: Location, payload: dict) -> None:
    write_bytes_atomic(loc, (json.dumps(payload, indent=2, sort_keys=True) + "\n").encode())


def list_shards(folder: Location) -> set[int]:
    """Shard numbers whose file is present in ``folder`` (``games`` or ``turns``)."""
    selector = pafs.FileSelector(folder.path, allow_not_found=True)
    found = set()
    for info in folder.fs.get_file_info(selector):
        name = info.base_name
        if name.startswith("shard-") and name.endswith(".parquet"):
            found.add(int(name[len("shard-") : -len(".parquet")]))
    return found


TEMP_PREFIX = ".tmp-"  # write_bytes_atomic's file before its rename


def remove_temps(folder: Location) -> int:
    """Delete the temporary files left in a local ``folder`` by writers killed before their rename (a worker
    SIGKILLed mid-write); call it only when no writer can be at work there. Returns how many."""
    if not folder.is_local or not os.path.isdir(folder.path):
        return 0
    stale = [e.path for e in os.scandir(folder.path) if e.name.startswith(TEMP_PREFIX) and e.is_file()]
    for path in stale:
        os.remove(path)
    return len(stale)


def delete_dir(loc: Location) -> None:
    if exists(loc):
        loc.fs.delete_dir(loc.path)


def check_writable(loc: Location) -> None:
    """Raise OSError if nothing can be written under ``loc``, writing nothing:
    on a local disk it probes the nearest folder that exists (creating no
    folder, leaving no file). On object storage it only checks that the store
    answers and the bucket exists — any write there would leave a trace (a
    deleted probe object leaves its folder's marker object behind) — so the
    first real write must turn a refusal into the caller's error."""
    if not loc.is_local:
        bucket = loc.path.split("/", 1)[0]
        if loc.fs.get_file_info(bucket).type == pafs.FileType.NotFound:
            raise FileNotFoundError(errno.ENOENT, f"bucket {bucket!r} does not exist", bucket)
        return
    base = loc.path
    while not os.path.lexists(base):
        base = os.path.dirname(base)
    if not os.path.isdir(base):
        raise NotADirectoryError(errno.ENOTDIR, "Not a directory", base)
    fd, probe = tempfile.mkstemp(prefix=".probe-", dir=base)
    os.close(fd)
    os.remove(probe)


def check_output_file(uri: str, option: str) -> None:
    """Raise ``UsageError`` (one line) unless a file can be written at ``uri``:
    not a folder, in a place that takes files. Writes nothing that stays."""
    from rules.base import UsageError

    loc = locate(uri)
    try:
        if loc.fs.get_file_info(loc.path).type == pafs.FileType.Directory:
            raise UsageError(f"{option} {uri} is a folder; give a file name inside it")
        if loc.is_local and os.path.lexists(loc.path) and not os.access(loc.path, os.W_OK):
            raise PermissionError(errno.EACCES, "Permission denied", loc.path)
        check_writable(loc.parent())
    except OSError as exc:
        reason = exc.strerror or " ".join(str(exc).split())
        raise UsageError(f"cannot write {option} {uri}: {reason}; choose a writable place") from None
