"""eutaxy.prover_smt: SpecIR to Z3; models replayed on the real function.

:class:`SmtProver` is the ``smt`` engine behind ``--prover smt``: it encodes a
property's negation over the bodies the reader read (:mod:`.encode`), asks the
pinned Z3 within a resource limit, and replays every model on the real
function before it is called REFUTED.
"""

from .encode import Unsupported
from .engine import ASSUMPTIONS, NAME, RLIMIT_DEFAULT, SmtProver
from . import toolchain
from .toolchain import INSTALL_COMMAND, Z3_VERSION, Z3_WHEEL_VERSION, load_z3

__all__ = ["ASSUMPTIONS", "INSTALL_COMMAND", "NAME", "RLIMIT_DEFAULT", "SmtProver", "Unsupported", "Z3_VERSION",
           "Z3_WHEEL_VERSION", "load_z3", "toolchain"]
