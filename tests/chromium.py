"""Headless Chromium for page tests: find or install it, dump a page's DOM, screenshot it.

``find_chromium()`` returns the path of ``/usr/bin/chromium`` (or ``chromium``
on PATH), installing Debian's package with apt-get when it is missing and
we are root (CI starts from a fresh machine); it returns None when that is
impossible. The ``chromium`` pytest fixture skips in that case.

``dump_dom(chromium, url, tmp)`` loads ``url`` (a ``file://`` URL may carry
a ``#hash``) with scripts run and returns the serialised DOM;
``screenshot(chromium, url, png, tmp)`` writes a PNG. Both run a fresh
profile in ``tmp`` with networking and background services off. Pages are
expected to record their own script errors into the DOM (a self-check
script), because ``--dump-dom`` does not report the console.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]  # fmt: skip
TIMEOUT_S = 60


def find_chromium() -> str | None:
    found = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return None
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run("apt-get update -qq && apt-get install -y -qq chromium", shell=True, env=env,
                   capture_output=True, text=True, timeout=900)
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def chromium() -> str:
    found = find_chromium()
    if found is None:
        pytest.skip("chromium is not installed and cannot be (needs apt-get and root)")
    return found


def _run(chromium: str, args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    profile = Path(tmp) / "chromium-profile"
    return subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000", *args],
                          capture_output=True, text=True, timeout=TIMEOUT_S)


def dump_dom(chromium: str, url: str, tmp: Path) -> str:
    done = _run(chromium, ["--dump-dom", url], tmp)
    if done.returncode != 0 or "<html" not in done.stdout:
        raise RuntimeError(f"chromium could not open {url}: {done.stderr.strip()[-500:]}")
    return done.stdout


def screenshot(chromium: str, url: str, png: Path, tmp: Path, size: str = "1200,900") -> Path:
    done = _run(chromium, [f"--screenshot={png}", f"--window-size={size}", url], tmp)
    if done.returncode != 0 or not Path(png).exists():
        raise RuntimeError(f"chromium could not screenshot {url}: {done.stderr.strip()[-500:]}")
    return Path(png)


def file_url(path: Path, fragment: str = "") -> str:
    return Path(path).resolve().as_uri() + (f"#{fragment}" if fragment else "")
