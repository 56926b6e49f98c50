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
