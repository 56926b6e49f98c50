"""Finding the pinned Z3: the ``z3-solver`` wheel importable here, else the one in Eutaxy's cache.

``eutaxy prover install smt`` puts the pinned wheel, checked by SHA-256, under
``<cache>/toolchains/smt/<version>/site`` (``EUTAXY_CACHE_DIR``, else
``$XDG_CACHE_HOME/eutaxy``, else ``~/.cache/eutaxy``); an install by hand
(``pip install z3-solver==<version>``) serves too. Nothing is downloaded during
a check: a missing or different Z3 is UNKNOWN (unavailable) naming the command.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Optional, Union

#: The pinned release: the wheel's version and the version string Z3 itself reports.
Z3_WHEEL_VERSION = "5.4.1.0"
Z3_VERSION = "5.4.1"
#: The wheel's SHA-256 per platform tag, as WORKSPACE.bazel pins it for the repository's own tests.
Z3_WHEEL_SHA256 = {
    "manylinux_2_27_x86_64": "e680ce083683abca5d07c3e55c2f620ff9a29cb91c548eeeea27ae29e8060522",
}
INSTALL_COMMAND = "eutaxy prover install smt"


def cache_dir() -> Path:
    """Eutaxy's cache directory: ``EUTAXY_CACHE_DIR``, else the platform's user cache."""
    explicit = os.environ.get("EUTAXY_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "eutaxy"


def cached_site() -> Path:
    """Where ``eutaxy prover install smt`` unpacks the pinned wheel."""
    return cache_dir() / "toolchains" / "smt" / Z3_WHEEL_VERSION / "site"


_LOADED: Optional[Union[ModuleType, str]] = None


def load_z3() -> Union[ModuleType, str]:
    """The pinned z3 module, or a sentence saying why it cannot be used here (and the install command).

    The answer is kept for the process: the first call decides.
    """
    global _LOADED
    if _LOADED is None:
        _LOADED = _find()
    return _LOADED


def _find() -> Union[ModuleType, str]:
    site = cached_site()
    if (site / "z3").is_dir() and str(site) not in sys.path:
        sys.path.insert(0, str(site))
    try:
        z3 = importlib.import_module("z3")
    except ImportError as error:
        return f"Z3 {Z3_VERSION} is not installed ({error}); run `{INSTALL_COMMAND}`"
    version = z3.get_version_string()
    if version != Z3_VERSION:
        return f"Z3 {version} is installed, the engine is pinned to {Z3_VERSION}; run `{INSTALL_COMMAND}`"
    # Strings are sequences of 16-bit code units, as JavaScript's are. A global parameter,
    # set before any context is made.
    z3.set_param("encoding", "bmp")
    return z3


class InstallError(Exception):
    """The pinned Z3 could not be installed (no digest for this platform, a failed download, a wrong checksum)."""


def platform_tag() -> Optional[str]:
    """The wheel's platform tag for this machine, when the pin knows one."""
    import platform

    if sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64"):
        return "manylinux_2_27_x86_64"
    return None


def install(source: Optional[str] = None) -> dict:
    """Put the pinned z3-solver wheel, checked by SHA-256, under :func:`cached_site`.

    ``source`` is a directory or index URL holding the same file name (a mirror or an
    offline copy); by default pip's own configuration decides where it comes from. A
    wrong checksum deletes the download and installs nothing. Returns what was done.
    """
    import hashlib
    import shutil
    import subprocess
    import tempfile
    import zipfile

    site = cached_site()
    if (site / "z3").is_dir():
        return {"engine": "smt", "version": Z3_WHEEL_VERSION, "location": str(site), "already": True}
    tag = platform_tag()
    digest = Z3_WHEEL_SHA256.get(tag or "")
    if digest is None:
        raise InstallError(f"no pinned z3-solver {Z3_WHEEL_VERSION} wheel for this platform "
                           f"({sys.platform}); the pin covers {', '.join(sorted(Z3_WHEEL_SHA256))}")
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", tmp,
                   "--platform", tag, f"z3-solver=={Z3_WHEEL_VERSION}"]
        if source:
            command += ["--no-index", "--find-links", source] if Path(source).is_dir() else ["--index-url", source]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        wheels = list(Path(tmp).glob("*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            raise InstallError(f"pip download z3-solver=={Z3_WHEEL_VERSION} failed: {done.stderr.strip()[-800:]}")
        actual = hashlib.sha256(wheels[0].read_bytes()).hexdigest()
        if actual != digest:
            wheels[0].unlink()
            raise InstallError(f"SHA-256 mismatch for {wheels[0].name}: expected {digest}, got {actual}; "
                               "nothing was installed")
        staging = site.with_name(site.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            for member in wheel.namelist():
                if member.startswith("/") or ".." in Path(member).parts:
                    raise InstallError(f"the wheel holds an entry outside its folder: {member}")
            wheel.extractall(staging)
        (staging / "eutaxy-smt.json").write_text(
            f'{{"file": "{wheels[0].name}", "sha256": "{actual}"}}\n')
        staging.rename(site)
        return {"engine": "smt", "version": Z3_WHEEL_VERSION, "location": str(site), "already": False,
                "file": wheels[0].name, "sha256": actual}
