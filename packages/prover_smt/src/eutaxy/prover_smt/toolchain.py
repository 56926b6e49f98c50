"""Finding the pinned Z3: the ``z3-solver`` wheel importable here, else the one in Eutaxy's cache.

``eutaxy prover install smt`` puts the pinned wheel, checked by SHA-256, under
``<cache>/toolchains/smt/<version>/site`` (``EUTAXY_CACHE_DIR``, else
``$XDG_CACHE_HOME/eutaxy``, else ``~/.cache/eutaxy``); an install by hand
(``pip install z3-solver==<version>``) serves too. Nothing is downloaded during
a check: a missing or different Z3 is UNKNOWN (unavailable) naming the command.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Optional, Union

from eutaxy.prover.toolchains import InstallError, ReleaseFile, cache_dir, install_dir, install_release, installed

#: The pinned release: the wheel's version and the version string Z3 itself reports.
Z3_WHEEL_VERSION = "5.4.1.0"
Z3_VERSION = "5.4.1"
#: The wheel's SHA-256 per platform tag, as WORKSPACE.bazel pins it for the repository's own tests.
Z3_WHEEL_SHA256 = {
    "manylinux_2_27_x86_64": "e680ce083683abca5d07c3e55c2f620ff9a29cb91c548eeeea27ae29e8060522",
}
INSTALL_COMMAND = "eutaxy prover install smt"


def cached_site() -> Path:
    """Where ``eutaxy prover install smt`` unpacks the pinned wheel (the marker's folder when installed)."""
    marker = installed("smt", Z3_WHEEL_VERSION)
    if marker is not None:
        return Path(marker["location"])
    return install_dir("smt", Z3_WHEEL_VERSION) / "site"


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


def status() -> dict[str, Any]:
    """What the engine would use: installed or not, the version, where, and from where (cache or environment).

    ``prover_status`` and ``eutaxy prover install smt`` both answer from this, so they agree.
    """
    z3 = load_z3()
    if isinstance(z3, str):
        return {"installed": False, "why": z3, "install": INSTALL_COMMAND}
    location = Path(str(z3.__file__)).resolve().parent
    in_cache = cache_dir().resolve() in location.parents
    return {"installed": True, "version": z3.get_version_string(), "location": str(location),
            "source": "cache" if in_cache else "environment"}


def platform_tag() -> Optional[str]:
    """The wheel's platform tag for this machine, when the pin knows one."""
    import platform

    if sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64"):
        return "manylinux_2_27_x86_64"
    return None


def install(source: Optional[str] = None) -> dict[str, Any]:
    """Put the pinned z3-solver wheel, checked by SHA-256, under :func:`cached_site`.

    The Z3 the engine already finds (the cache, or the environment's z3-solver of the pinned
    version) is reported and nothing is fetched. ``source`` is a directory or index URL
    holding the same file name (a mirror or an offline copy); by default pip's own
    configuration decides where it comes from. A wrong checksum deletes the download and
    installs nothing. Returns what was done.
    """
    import subprocess
    import tempfile

    global _LOADED
    found = status()
    if found["installed"]:
        return {"engine": "smt", "version": Z3_WHEEL_VERSION, "already": True, "location": found["location"],
                "source": found["source"]}
    tag = platform_tag()
    digest = Z3_WHEEL_SHA256.get(tag or "")
    if digest is None:
        raise InstallError(f"no pinned z3-solver {Z3_WHEEL_VERSION} wheel for this platform "
                           f"({sys.platform}); the pin covers {', '.join(sorted(Z3_WHEEL_SHA256))}")
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", tmp,
                   "--platform", str(tag), f"z3-solver=={Z3_WHEEL_VERSION}"]
        if source:
            command += ["--no-index", "--find-links", source] if Path(source).is_dir() else ["--index-url", source]
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        wheels = list(Path(tmp).glob("*.whl"))
        if done.returncode != 0 or len(wheels) != 1:
            raise InstallError(f"pip download z3-solver=={Z3_WHEEL_VERSION} failed: {done.stderr.strip()[-800:]}")
        release = ReleaseFile(platform=str(tag), file=wheels[0].name, url=f"pip download z3-solver=={Z3_WHEEL_VERSION}",
                              sha256=digest, size=None)
        result = install_release("smt", Z3_WHEEL_VERSION, release, tmp, subfolder="site")
    _LOADED = None  # the next lookup finds what was just installed
    return {**result, "source": source or release.url}
