"""Every golden text report's shrunk trace names the user's line beside each effect its code made.

Each case's gate holds its report against ``<name>.report.txt`` (planted.py); this reads them
all and checks what every one must show (issue 33): a source column (``worker.ts:23``,
``handler.py:20``, ``worker/index.ts:26`` through a build's source map) beside every effect
point and Core decision in the trace, no ordinal twice within one invocation, and the line
of every uncaught error the report shows (``(at worker.ts:29)``).

Some effects have no call site in the user's code by nature, since the platform makes them:
the response an HTTP or RPC drive receives and the caller giving up (``Http:* response``,
``Rpc:* response``, ``gave_up``, a cron tick's ``gave_up``), a Durable Object alarm the
platform calls (``DO:* alarm``), the scenario's WebSocket client opening, sending and
receiving frames (``WebSocket:*``), a decision the platform takes when the handler returns
without one (an implicit Queue or SQS ``ack``, ``retry`` or ``delete``: its arguments end with
``implicit`` true), and a Lambda's captured output (``Lambda:* output``). They show no
source. The Workflows engine's records of a step, a sleep or a wait are the engine's points,
but each shows the line of the Worker's ``step.do``/``step.sleep``/``step.waitForEvent`` call
that led to it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent
GOLDEN = sorted(CORPUS.rglob("*.report.txt"))

#: An effect point's line: its ordinal, target and op (``#1 D1:DB run``), or its end (``end of #0``).
POINT = re.compile(r"(?P<end>end of )?#(?P<ordinal>\d+) (?P<target>[A-Za-z0-9]+:\S*) (?P<op>\S+)(?P<rest>.*)$")
#: A Core decision's line (no ordinal: a call into a specs module).
DECISION = re.compile(r"(?P<target>Core:\S+) (?P<op>\S+) decision")
#: A source column: a file and its line.
SOURCE = re.compile(r"^[^\s:]+\.[A-Za-z]+:\d+$")
#: The platform's own effect points, by the target's kind and the op.
PLATFORM_MADE = {("Http", "response"), ("Http", "gave_up"), ("Rpc", "response"), ("Rpc", "gave_up"),
                 ("Cron", "gave_up"), ("DO", "alarm"), ("Lambda", "output")}
#: Implicit decisions: the platform's when the arguments end with ``implicit`` (true).
IMPLICIT = {("Queue", "ack"), ("Queue", "retry"), ("SQS", "delete"), ("SQS", "retry")}


def trace_lines(text: str) -> list[str]:
    """The shrunk trace's lines (a VIOLATED report's; none in another's)."""
    lines = text.splitlines()
    starts = [index for index, line in enumerate(lines) if line.startswith("Shrunk trace")]
    if not starts:
        return []
    body = []
    for line in lines[starts[0] + 1:]:
        if not line.strip():
            break
        body.append(line)
    return body


def platform_made(kind: str, op: str, rest: str) -> bool:
    if kind == "WebSocket" or (kind, op) in PLATFORM_MADE:
        return True
    return (kind, op) in IMPLICIT and rest.partition("  -> ")[0].rstrip().endswith(" true")


def test_the_corpus_has_its_golden_reports():
    assert len(GOLDEN) >= 40, GOLDEN
    assert sum(bool(trace_lines(path.read_text())) for path in GOLDEN) >= 20


@pytest.mark.parametrize("path", GOLDEN, ids=[str(path.relative_to(CORPUS)) for path in GOLDEN])
def test_each_effect_of_the_users_code_shows_its_line_and_no_ordinal_repeats(path: Path):
    missing: list[str] = []
    seen: dict[str, set[int]] = {}
    invocation = None
    for line in trace_lines(path.read_text()):
        if line.strip().startswith(("!!", "console.", "(")):
            continue  # a fault, a thrown error or a console line under a point; the trace's footnote
        point = POINT.search(line)
        decision = DECISION.search(line) if point is None else None
        found = point or decision
        if found is None:
            continue
        head = line[: found.start()].split()
        source = head.pop() if head and SOURCE.match(head[-1]) else None
        if head:
            invocation = head[0]
        kind = found["target"].partition(":")[0]
        if point is not None and not point["end"]:
            ordinals = seen.setdefault(str(invocation), set())
            assert int(point["ordinal"]) not in ordinals, f"{path.name}: #{point['ordinal']} twice in {invocation}: {line.strip()}"
            ordinals.add(int(point["ordinal"]))
        if point is not None and (point["end"] or platform_made(kind, point["op"], point["rest"])):
            continue
        if source is None:
            missing.append(line.strip())
    assert not missing, f"{path.name}: effects of the user's code with no source line:\n" + "\n".join(missing)


#: Where a report shows a handler's uncaught error: in the trace, the headline's count, the Invocations section.
ERROR_LINE = re.compile(r"!! threw |\(the first: |first error \(")


@pytest.mark.parametrize("path", GOLDEN, ids=[str(path.relative_to(CORPUS)) for path in GOLDEN])
def test_each_uncaught_error_shown_names_its_line(path: Path):
    shown = [line.strip() for line in path.read_text().splitlines() if ERROR_LINE.search(line)]
    assert all(re.search(r"\(at [^\s()]+:\d+\)", line) for line in shown), shown


def test_the_corpus_shows_uncaught_errors():
    assert sum(1 for path in GOLDEN for line in path.read_text().splitlines() if ERROR_LINE.search(line)) >= 20
