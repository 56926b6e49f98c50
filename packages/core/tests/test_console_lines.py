"""Console lines: the RunResult and the verdicts carry them as plain data, read back exactly,
and a line that does not fit is refused at the edge naming its field."""

from __future__ import annotations

import pytest

from eutaxy.core.console_lines import ConsoleLine
from eutaxy.core.protocol import ProtocolError, RunResult

LINE = {"invocation": "msg-1#1", "ordinal": 0, "time": 1767225600001, "level": "error", "text": "insert failed"}


def test_a_result_carries_console_lines_only_when_there_are_some():
    """A result without lines reads and writes as before; one with lines keeps them in order."""
    plain = {"protocol": 1, "effects": [], "eligible": 0, "decisions": [], "end": {"kind": "completed"}}
    assert plain == RunResult.from_data(plain).to_data()
    outside = {"invocation": None, "ordinal": None, "time": 1767225600000, "level": "capped", "text": "3 more"}
    logged = dict(plain, console=[LINE, outside])
    result = RunResult.from_data(logged)
    assert (ConsoleLine(**LINE), ConsoleLine(**outside)) == result.console
    assert logged == result.to_data()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"level": "trace"}, "level must be one of"),
        ({"ordinal": -1}, "ordinal must be"),
        ({"ordinal": True}, "ordinal must be"),
        ({"time": "now"}, "time must be an integer"),
        ({"text": 3}, "text must be a string"),
        ({"invocation": 7}, "invocation must be a string or null"),
        ({"invocation": None}, "an ordinal without an invocation"),
    ],
)
def test_a_line_that_does_not_fit_is_a_protocol_error(change, message):
    data = {"protocol": 1, "effects": [], "eligible": 0, "decisions": [], "end": {"kind": "completed"},
            "console": [dict(LINE, **change)]}
    with pytest.raises(ProtocolError, match=message):
        RunResult.from_data(data)
