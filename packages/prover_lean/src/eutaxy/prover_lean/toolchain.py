"""Finding the pinned Lean: Eutaxy's cache first, then elan's toolchains, then a bare ``lean`` on the PATH.

The engine is pinned to one release (:data:`LEAN_VERSION`). ``eutaxy prover
install lean`` puts it under ``<cache>/toolchains/lean/<version>`` beside a
marker file (:mod:`eutaxy.prover.toolchains`); elan serves only when it
already has that release; a ``lean`` on the PATH only when it reports exactly
that version. Nothing is downloaded during a check: no toolchain found is
UNKNOWN (unavailable) naming :data:`INSTALL_COMMAND`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional, Union

import attrs

from eutaxy.prover.toolchains import (InstallError, ReleaseFile, cache_dir, install_release, installed,
                                      platform_key, release_table)

#: The pinned release (leanToolchain): what every answer of the engine names.
LEAN_VERSION = "4.30.0"
#: The upstream release files of the pinned release, per platform (URL, SHA-256, size).
RELEASES = Path(__file__).resolve().parent / "releases.json"
INSTALL_COMMAND = "eutaxy prover install lean"
#: elan's name for the pinned release's folder under ``$ELAN_HOME/toolchains``.
ELAN_TOOLCHAIN = f"leanprover--lean4---v{LEAN_VERSION}"
#: ``lean --version`` answers in well under a second; past this it is not a working Lean.
VERSION_TIMEOUT_S = 30

_VERSION = re.compile(r"\bversion (\d+\.\d+\.\d+(?:-[0-9A-Za-z.]+)?)")


@attrs.frozen
class FoundLean:
    """A Lean of the pinned version: the executable, and where it was found (cache, elan or PATH)."""

    lean: Path
    version: str
    source: str


def toolchain_dir() -> Path:
    """Where ``eutaxy prover install lean`` unpacks the pinned release."""
    return cache_dir() / "toolchains" / "lean" / LEAN_VERSION


def _executable(bin_dir: Path) -> Path:
    return bin_dir / ("lean.exe" if sys.platform == "win32" else "lean")


def candidates() -> list[tuple[str, Path]]:
    """Where a Lean may be, in the order the engine looks."""
    out: list[tuple[str, Path]] = []
    marker = installed("lean", LEAN_VERSION)
    if marker is not None:
        out.append(("cache", _executable(Path(marker["location"]) / "bin")))
    elan_home = Path(os.environ.get("ELAN_HOME") or Path.home() / ".elan")
    out.append(("elan", _executable(elan_home / "toolchains" / ELAN_TOOLCHAIN / "bin")))
    on_path = shutil.which("lean")
    if on_path:
        out.append(("PATH", Path(on_path)))
    return out


def version_of(lean: Path) -> Optional[str]:
    """The version ``lean --version`` reports, or None when it does not run or says none."""
    try:
        done = subprocess.run([str(lean), "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    found = _VERSION.search(done.stdout)
    return found.group(1) if done.returncode == 0 and found else None


def find_lean() -> Union[FoundLean, str]:
    """The pinned Lean, or a sentence saying why none serves here, with the install command."""
    seen = []
    for source, lean in candidates():
        if not lean.is_file():
            continue
        version = version_of(lean)
        if version == LEAN_VERSION:
            return FoundLean(lean=lean, version=version, source=source)
        seen.append(f"{lean} ({source}) reports {version or 'no version'}")
    looked = f"{toolchain_dir()}, elan's {ELAN_TOOLCHAIN} and the PATH"
    found = f"; found {'; '.join(seen)}" if seen else ""
    return f"Lean {LEAN_VERSION} is not installed (looked in {looked}{found}); run `{INSTALL_COMMAND}`"


def status() -> dict[str, Any]:
    """What the engine would use: installed or not, the version, the executable, where it was found.

    ``prover_status`` and ``eutaxy prover install lean`` both answer from this, so they agree.
    """
    found = find_lean()
    if isinstance(found, str):
        return {"installed": False, "why": found, "install": INSTALL_COMMAND}
    return {"installed": True, "version": found.version, "location": str(found.lean), "source": found.source}


def release_files() -> dict[str, ReleaseFile]:
    """The table of upstream release files, by platform; it must name the pinned release."""
    name, version, files = release_table(RELEASES)
    assert (name, version) == ("lean", LEAN_VERSION), f"releases.json pins {name} {version}, the engine {LEAN_VERSION}"
    return files


def install(source: Optional[str] = None, platform: Optional[str] = None) -> dict[str, Any]:
    """``eutaxy prover install lean``: the pinned release for this platform, checked by SHA-256, in the cache.

    A Lean the engine already finds (the cache, elan, the PATH) is reported and nothing is fetched.

    Raises:
        InstallError: no file for this platform, none with a verified digest, a failed download,
            a wrong digest, or an archive entry that would escape the toolchain folder.
    """
    found = status()
    if found["installed"]:
        return {"engine": "lean", "version": found["version"], "already": True, "location": found["location"],
                "source": found["source"]}
    key = platform or platform_key()
    files = release_files()
    release = files.get(key or "")
    if release is None:
        raise InstallError(f"no Lean {LEAN_VERSION} release file for this platform ({key or 'unknown'}); "
                           f"the table covers {', '.join(sorted(files))}")
    done = install_release("lean", LEAN_VERSION, release, source)
    # Named as the engine and prover_status name it: the executable.
    return {**done, "location": str(_executable(Path(done["location"]) / "bin"))}
