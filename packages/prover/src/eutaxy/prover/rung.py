"""What one rung found about one property, before the ladder folds the rungs together."""

from __future__ import annotations

from typing import Any, Optional

import attrs

from eutaxy.core.verdicts import SpecVerdict


@attrs.frozen(kw_only=True)
class RungResult:
    """A rung's verdict plus what the ladder needs beside it.

    ``malformed`` is set when the property could not be evaluated as a property
    (a ``when`` or ``ensures`` that returned something other than a boolean, or
    one that could not be evaluated on any input): it keeps the folded verdict
    UNKNOWN (unsupported) whatever the other rung found.
    """

    verdict: SpecVerdict
    malformed: bool = False
    #: Distinct assignments evaluated (inside the claim or not).
    evaluated: int = 0
    #: Draws made, duplicates included (edges count as draws).
    draws: int = 0
    edges: int = 0
    #: Distinct inputs inside the claim the rung aimed at (TESTED's stop count; 0 when it has none).
    target: int = 0
    #: Every input of the domain was evaluated, so fewer than ``target`` inside is all there is.
    whole_domain: bool = False
    #: The first assignments evaluated (encoded, in order), when asked for (``--show-inputs``).
    inputs: tuple = ()
    #: The input an evaluation gave no answer on (``{args, assignment, outcome}``), when one did not.
    stopped: Optional[dict] = None

    def to_data(self) -> dict[str, Any]:
        data = self.verdict.to_data()
        data["evaluated"] = self.evaluated
        data["draws"] = self.draws
        data["edges"] = self.edges
        if self.malformed:
            data["malformed"] = True
        if self.stopped is not None:
            data["stopped"] = self.stopped
        return data
