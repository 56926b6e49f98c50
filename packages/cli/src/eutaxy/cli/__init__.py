"""eutaxy.cli: the ``eutaxy`` command (entry point ``eutaxy.cli.main:main``).

``register_platform`` lets a third-party platform package (or a test double) serve a
scenario's ``platform`` name; see ``eutaxy.cli.platforms``.
"""

from eutaxy.cli.main import VERSION, main
from eutaxy.cli.platforms import register_platform, unregister_platform

__all__ = ["VERSION", "main", "register_platform", "unregister_platform"]
