"""One property up the whole ladder: CHECKED on recorded calls, TESTED on drawn inputs, then any engines."""

from __future__ import annotations

from typing import Optional, Sequence

from eutaxy.core.verdicts import SpecVerdict
from eutaxy.spec import Property, SpecModule

from .checked import run_checked
from .engine import Prover, engine_answers
from .evaluator import Evaluator
from .ladder import aggregate
from .rung import RungResult
from .tested import MAX_INSIDE_DEFAULT, run_tested


def run_ladder(module: SpecModule, prop: Property, evaluator: Evaluator, seed: str, *,
               calls: Optional[Sequence[dict]] = None, provers: Sequence[Prover] = (),
               max_inside: int = MAX_INSIDE_DEFAULT, show_inputs: int = 0) -> tuple[SpecVerdict, dict[str, RungResult]]:
    """The folded verdict for ``prop`` and the sampling rungs' results (``{"checked": ..., "tested": ...}``).

    CHECKED runs only when ``calls`` is given (a scenario's recorded
    ``Core:<function>`` decisions; ``eutaxy report`` has none). Engines run
    after both sampling rungs, in the order given.
    """
    rungs: dict[str, RungResult] = {}
    if calls is not None:
        rungs["checked"] = run_checked(prop, evaluator, calls)
    rungs["tested"] = run_tested(prop, evaluator, seed, max_inside=max_inside, show_inputs=show_inputs)

    def replay(name: str, args):
        return evaluator.evaluate_encoded(name, [list(args)])[0]

    answers = [engine_answers(p, module, [prop], replay)[prop.name] for p in provers]
    verdict = aggregate(prop.name, rungs.get("checked"), rungs["tested"], answers)
    if answers:
        rungs["engines"] = answers  # each engine's own answer, shown beside the fold (a CONFLICT shows both)
    return verdict, rungs
