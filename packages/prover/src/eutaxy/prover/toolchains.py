"""Where the engines' pinned toolchains live in Eutaxy's cache, and the marker that says one is installed.

``eutaxy prover install <engine>`` unpacks a pinned release into
``<cache>/toolchains/<engine>/<version>/`` beside a marker file,
``eutaxy-toolchain.json``, naming the file it came from, its SHA-256 and the
folder inside that holds the toolchain. The marker is written last, so a
folder without one is an install that did not finish and is not used. Both
engines and the install command read installs through :func:`installed`, so
what ``prover_status`` reports and what ``prover install`` finds agree.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Optional

MARKER = "eutaxy-toolchain.json"


def cache_dir() -> Path:
    """Eutaxy's cache directory: ``EUTAXY_CACHE_DIR``, else the platform's user cache.

    ``$XDG_CACHE_HOME/eutaxy`` or ``~/.cache/eutaxy`` on Linux, ``~/Library/Caches/eutaxy``
    on macOS, ``%LOCALAPPDATA%\\eutaxy\\Cache`` on Windows.
    """
    explicit = os.environ.get("EUTAXY_CACHE_DIR")
    if explicit:
        return Path(explicit)
    import sys

    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "eutaxy"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "eutaxy" / "Cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "eutaxy"


def install_dir(name: str, version: str) -> Path:
    """``<cache>/toolchains/<name>/<version>``: where one pinned release is unpacked."""
    return cache_dir() / "toolchains" / name / version


def installed(name: str, version: str) -> Optional[dict[str, Any]]:
    """The marker of an installed toolchain (``file``, ``sha256``, ``location``: the folder holding it), or None."""
    folder = install_dir(name, version)
    try:
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or not isinstance(marker.get("root"), str):
        return None
    location = (folder / marker["root"]).resolve()
    if not location.is_dir() or folder.resolve() not in (location, *location.parents):
        return None
    return {**marker, "location": str(location)}


def write_marker(folder: Path, *, name: str, version: str, file: str, sha256: str, root: str,
                 source: str) -> None:
    """The marker, written last and atomically (a crash before it leaves no install)."""
    data = {"name": name, "version": version, "file": file, "sha256": sha256, "root": root, "source": source}
    tmp = folder / (MARKER + ".partial")
    tmp.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, folder / MARKER)
