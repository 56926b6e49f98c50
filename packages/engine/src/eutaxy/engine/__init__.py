"""eutaxy.engine: exploration (seeded, replay, exhaustive with sleep sets), shrinking, the
module-state check and the check API; plus the in-process run loop for Python platforms.

The public surface is the check API; the modules (``seeded``, ``exhaustive``, ``shrink``,
``replay``, ``module_state``) are importable for tests and tools that drive one part.
"""

from eutaxy.engine.check import check_scenario, default_seed, replay_scenario

__all__ = ["check_scenario", "default_seed", "replay_scenario"]
