"""Which Python package serves a scenario's platform.

The CLI picks the package by ``scenario["platform"]``: ``cloudflare`` is
``eutaxy.cloudflare``, ``aws`` is ``eutaxy.aws``. Packages are imported only when a
scenario asks for them, so ``eutaxy --help`` works with none installed.

Two documented hooks map a name to another module, for a third-party platform or a test
double: ``register_platform(name, module)`` in-process, and the environment variable
``EUTAXY_PLATFORM_MODULES`` (``name=module[,name=module...]``) across a process boundary.
A registered name wins over the environment, which wins over the default.
"""

from __future__ import annotations

import importlib
import os
import re
from types import ModuleType

from eutaxy.core.errors import SettingError, UserError

__all__ = ["ENVIRONMENT_VARIABLE", "import_platform", "platform_module_name", "register_platform"]

ENVIRONMENT_VARIABLE = "EUTAXY_PLATFORM_MODULES"

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")

#: Names registered in this process with ``register_platform``.
_registered: dict[str, str] = {}


def register_platform(name: str, module: str) -> None:
    """Serve platform ``name`` from ``module`` (which provides ``create_platform`` and friends)."""
    if not _NAME.match(name):
        raise ValueError(f"platform name {name!r} must be lower-case letters, digits and _")
    if not _MODULE.match(module):
        raise ValueError(f"{module!r} is not a module name")
    _registered[name] = module


def unregister_platform(name: str) -> None:
    """Undo ``register_platform`` (tests use it to leave no trace)."""
    _registered.pop(name, None)


def platform_module_name(name: str) -> str:
    """The module serving platform ``name``.

    Raises:
        UserError: the name cannot be a platform name, or the environment mapping is malformed.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise UserError(f"scenario platform {name!r} is not a platform name such as 'cloudflare' or 'aws'")
    if name in _registered:
        return _registered[name]
    mapping = _environment_mapping()
    return mapping.get(name, f"eutaxy.{name}")


def import_platform(name: str) -> ModuleType:
    """Import the package serving platform ``name``.

    Raises:
        UserError: the package is not installed.
    """
    module_name = platform_module_name(name)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            hint = f" (install eutaxy-{name.replace('_', '-')})" if module_name == f"eutaxy.{name}" else ""
            raise UserError(f"the scenario's platform is {name!r}, but {module_name} is not installed{hint}") from None
        raise


def _environment_mapping() -> dict[str, str]:
    text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    mapping: dict[str, str] = {}
    if not text:
        return mapping
    for entry in text.split(","):
        name, equals, module = (part.strip() for part in entry.partition("="))
        if not equals or not _NAME.match(name) or not _MODULE.match(module):
            raise SettingError(f"{ENVIRONMENT_VARIABLE}: {entry!r} is not name=module (e.g. cloudflare=eutaxy.cloudflare)")
        mapping[name] = module
    return mapping
