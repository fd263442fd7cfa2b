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
