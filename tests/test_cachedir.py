"""The numba cache folder is per user, per version and per source."""

from __future__ import annotations

import os

from sim import cachedir


def test_cache_folder_names_versions_and_source_digest(monkeypatch, tmp_path):
    monkeypatch.setenv("POLSIM_CACHE_DIR", str(tmp_path))
    path = cachedir.cache_dir()
    tag = os.path.basename(os.path.dirname(path))
    assert path.startswith(str(tmp_path)) and os.path.isdir(path)
    assert tag.startswith("0.") and "-py3." in tag and "-numba" in tag
    assert tag.endswith(cachedir._source_digest())


def test_source_digest_changes_with_any_core_source(monkeypatch, tmp_path):
    before = cachedir._source_digest()
    probe = os.path.join(os.path.dirname(cachedir.__file__), "_digest_probe_test.py")
    try:
        with open(probe, "w") as f:
            f.write("X = 1\n")
        assert cachedir._source_digest() != before
    finally:
        os.remove(probe)
    assert cachedir._source_digest() == before


def test_unwritable_home_falls_back_to_a_temporary_folder(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("POLSIM_CACHE_DIR", str(blocker / "sub"))
    monkeypatch.setattr(cachedir.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
    assert cachedir.cache_dir().startswith(str(tmp_path / "tmp"))


def _folders(base, ages_s, now):
    names = []
    for k, age in enumerate(ages_s):
        name = f"0.{k}.0-py3.11-numba0.61.0-{k:012x}"
        (base / name / "numba").mkdir(parents=True)
        os.utime(base / name, (now - age, now - age))
        names.append(name)
    return names


def test_prune_deletes_folders_unused_for_two_weeks_and_keeps_recent_ones(tmp_path):
    now = 2_000_000_000.0
    own, recent, old = _folders(tmp_path, [10 * 86400, 3600 * 5, 15 * 86400], now)
    (tmp_path / "notes").mkdir()  # not a cache folder: never touched
    assert cachedir.prune(str(tmp_path), own, now) == [old]
    assert sorted(os.listdir(tmp_path)) == sorted([own, recent, "notes"])
    assert os.stat(tmp_path / own).st_mtime == now  # marked used


def test_prune_keeps_the_most_recently_used_few_and_any_used_within_the_hour(tmp_path):
    now = 2_000_000_000.0
    ages = [0, 60, 120, 7200, 7300, 7400, 1800]
    names = _folders(tmp_path, ages, now)
    own = names[0]
    gone = cachedir.prune(str(tmp_path), own, now)
    # own + the 3 most recently used siblings stay (60 s, 120 s, 1800 s); of the
    # rest, those idle over an hour go
    assert sorted(gone) == sorted(names[3:6])
    assert sorted(os.listdir(tmp_path)) == sorted([names[0], names[1], names[2], names[6]])


def test_prune_spares_a_folder_in_use_even_beyond_the_recent_few(tmp_path):
    now = 2_000_000_000.0
    names = _folders(tmp_path, [0, 10, 20, 30, 40, 50], now)
    assert cachedir.prune(str(tmp_path), names[0], now) == []


def test_cache_dir_prunes_its_base_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("POLSIM_CACHE_DIR", str(tmp_path))
    (old,) = _folders(tmp_path, [30 * 86400], 1e9)  # used 30 days before 2001: long stale now
    path = cachedir.cache_dir()
    assert old not in os.listdir(tmp_path) and os.path.isdir(path)
