"""The scenario file's stem: its name without ``.sim.py``.

One rule, read in three places that must agree: the default seed of a check
(``eutaxy.engine.scenario.default_seed``), the regression test's file and function name
(``eutaxy.report.regression``), and the seed a platform's ``check``/``expect_holds`` use
when none is given. It lives in core because the report may import nothing else.
"""

from __future__ import annotations

import os
import posixpath

__all__ = ["SCENARIO_SUFFIXES", "scenario_stem"]

#: Scenario file suffixes dropped to get the stem, longest first (a scenario file is
#: Python; ``.py`` covers one not named ``*.sim.py``).
SCENARIO_SUFFIXES = (".sim.py", ".py")


def scenario_stem(scenario_path: str | os.PathLike[str]) -> str:
    """``/x/queue-duplicate-write.sim.py`` gives ``queue-duplicate-write``.

    Only the file's name counts, with ``/`` or ``\\`` as the separator. A suffix is dropped
    only when something is left, so the stem is never empty.
    """
    name = posixpath.basename(os.fspath(scenario_path).replace("\\", "/"))
    for suffix in SCENARIO_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name
