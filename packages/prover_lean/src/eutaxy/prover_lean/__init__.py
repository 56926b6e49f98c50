"""eutaxy.prover_lean: SpecIR to Lean 4, run over a process boundary.

:func:`emit.emit_module` writes a module's records, functions and claims as
Lean 4 (the vocabulary in ``constructs.json``); the engine behind ``--prover
lean`` runs the pinned Lean on that file with one tactic script per theorem,
or the proofs supplied beside the spec file, and maps Lean's diagnostics back
to the properties.
"""

from . import toolchain
from .emit import Emission, Unsupported, emit_module
from .engine import ASSUMPTIONS, DEADLINE_S_DEFAULT, NAME, LeanProver, ModuleGoals
from .toolchain import INSTALL_COMMAND, LEAN_VERSION, find_lean

__all__ = ["ASSUMPTIONS", "DEADLINE_S_DEFAULT", "Emission", "INSTALL_COMMAND", "LEAN_VERSION", "LeanProver",
           "ModuleGoals", "NAME", "Unsupported", "emit_module", "find_lean", "toolchain"]
