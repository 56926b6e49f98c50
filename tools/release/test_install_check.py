"""The offline install check's own parts: the lock's pins, the wheel cache, the user's environment.

The check itself (a venv, pip install --no-index, eutaxy check on examples/orders)
runs in tools/test, outside Bazel (docs/ci.md says why); these tests pin down the
parts that decide what goes into its package folder and what environment it runs in.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

import install_check

ROOT = Path(__file__).absolute().parents[2]


def _lock(tmp_path, entries):
    lock = tmp_path / "requirements.lock"
    lock.write_text("# a lock\n" + "".join(
        f"{name}=={version} \\\n" + " \\\n".join(f"    --hash=sha256:{h}" for h in hashes) + "\n    # via -r requirements.in\n"
        for name, version, hashes in entries))
    return lock


def test_every_pin_of_the_real_lock_has_a_hash():
    pins = install_check.lock_pins(ROOT / "requirements.lock")
    assert len(pins) > 50
    assert [] == [name for name, (_, hashes) in pins.items() if not hashes]
    assert "26.1.0" == pins["attrs"][0]


def test_a_cached_wheel_with_the_locks_hash_is_used_and_nothing_is_fetched(tmp_path, monkeypatch):
    """The cache is matched by SHA-256, not by name; pip is never called when every pin is there."""
    cache = tmp_path / "cache"
    cache.mkdir()
    wheel = cache / "demo-1.0-py3-none-any.whl"
    wheel.write_bytes(b"a wheel")
    stale = cache / "demo-0.9-py3-none-any.whl"
    stale.write_bytes(b"an older wheel")
    lock = _lock(tmp_path, [("demo", "1.0", [hashlib.sha256(b"a wheel").hexdigest(), "0" * 64])])

    def no_pip(*args, **kwargs):
        raise AssertionError(f"pip was called: {args}")

    monkeypatch.setattr(subprocess, "run", no_pip)
    assert [wheel] == install_check.third_party_wheels(lock, cache, "python3")
    assert (cache / install_check.DIGESTS).is_file()
    # A second look reads the digests back; the files are not hashed again.
    monkeypatch.setattr(install_check, "_sha256", no_pip)
    assert [wheel] == install_check.third_party_wheels(lock, cache, "python3")


def test_a_changed_cached_file_is_hashed_again_and_refused(tmp_path, monkeypatch):
    """A file whose bytes changed since the digests were written no longer counts as the pin."""
    cache = tmp_path / "cache"
    cache.mkdir()
    wheel = cache / "demo-1.0-py3-none-any.whl"
    wheel.write_bytes(b"a wheel")
    lock = _lock(tmp_path, [("demo", "1.0", [hashlib.sha256(b"a wheel").hexdigest()])])
    install_check.third_party_wheels(lock, cache, "python3")
    wheel.write_bytes(b"a tampered wheel!")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, "", ""))
    with pytest.raises(install_check.CannotRun, match="demo==1.0: no file with one of the lock's hashes"):
        install_check.third_party_wheels(lock, cache, "python3")


def test_the_users_environment_has_nothing_of_this_checkout(monkeypatch):
    """No PYTHONPATH, no pip configuration or index, no runfiles or Node override; no user site."""
    monkeypatch.setenv("PYTHONPATH", "/work/main/packages/core/src")
    monkeypatch.setenv("PIP_INDEX_URL", "file:///somewhere")
    monkeypatch.setenv("EUTAXY_NODE_MODULES", "/x")
    monkeypatch.setenv("RUNFILES_DIR", "/y")
    env = install_check.clean_env()
    assert "PYTHONPATH" not in env and "PIP_INDEX_URL" not in env
    assert "EUTAXY_NODE_MODULES" not in env and "RUNFILES_DIR" not in env
    assert "/dev/null" == env["PIP_CONFIG_FILE"] and "1" == env["PYTHONNOUSERSITE"]
