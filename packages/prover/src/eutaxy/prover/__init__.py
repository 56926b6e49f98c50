"""eutaxy.prover: the spec ladder's sampling rungs and its aggregation.

The reader (``reader/reader.mjs``, on the pinned typescript compiler's API)
reads spec files into SpecIR; the evaluator (``reader/evaluator.mjs``)
evaluates properties on the assignments Python sends. Everything else is
Python: the CHECKED rung over recorded calls, the TESTED rung over drawn
inputs (edges, biased draws, steering, shrinking), the ladder's fold, and
``eutaxy report``'s engine. Node is handed in as a value (``toolchain=``, a
:class:`NodeToolchain`), never looked up here (see :mod:`eutaxy.prover.node`).
"""

from .checked import recorded_calls, run_checked
from .engine import ENGINE_KINDS, ModuleProofs, ProveInput, Prover, engine_answers
from .evaluator import Evaluator, LoadError, Outcome
from .ladder import aggregate, fold_engines, fold_sampling
from .node import NodeError, NodeToolchain, toolchain_at
from .reader import ReadError, read_spec, read_specs
from .rung import RungResult
from .spec_ladder import run_ladder
from .tested import MAX_INSIDE_DEFAULT, run_tested

#: Loaded on first use, so importing the package does not import ``report``
#: (the CLI treats a missing ``eutaxy.prover.report`` as "no ladder installed").
_REPORT_NAMES = frozenset({"find_spec_files", "render_text", "report_exit_code", "run_report"})


def __getattr__(name: str):
    if name in _REPORT_NAMES:
        from . import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ENGINE_KINDS", "MAX_INSIDE_DEFAULT", "Evaluator", "LoadError", "ModuleProofs", "NodeError", "NodeToolchain",
    "Outcome", "ProveInput", "Prover", "ReadError", "RungResult", "aggregate", "engine_answers", "find_spec_files",
    "fold_engines", "fold_sampling", "read_spec", "read_specs", "recorded_calls", "render_text", "report_exit_code",
    "run_checked", "run_ladder", "run_report", "run_tested", "toolchain_at",
]
