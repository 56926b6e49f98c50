"""How each invocation of a run ended, and what a check's runs add up to per drive.

A run result lists every invocation a platform delivered to one of the user's handlers
(``RunResult.invocations``): the kind of event it delivered (the drive's kind: ``queue``,
``http``, ``sqs``; a produced message on a consumed queue is a ``queue`` one), how the call
ended, the first uncaught error when it threw, and how many of its messages the platform
dead-lettered when it was done with them. ``OutcomeCounts`` adds these up over a check's
exploration runs, per drive kind; the engine reads them to refuse a pass over a handler that
never worked (``handler_never_succeeded``), and every verdict carries them.

Outcomes, each its own count:

- ``returned``: the handler returned (or its promise resolved) normally;
- ``threw``: it raised or rejected with an error of its own;
- ``crashed``: an injected fault killed it (crash_before, crash_after), or the user's code
  ended its own process (``process.exit`` in a Worker, ``os._exit`` in a handler, an AWS
  handler out of memory, Lambda's ``Runtime.OutOfMemory``), which the platform takes as the
  invocation's crash: that call (or ``MemoryError``) is then its ``error``;
- ``timed_out``: the platform stopped it at its configured time limit (Lambda's timeout,
  a Worker's CPU limit).

An invocation stopped by the run ending UNSUPPORTED is not listed: the run has no outcome.
Where the platform leaves messages undone, ``dead_lettered`` counts the ones the invocation's
end sent to a dead-letter queue (or dropped after the last retry), and ``retried_all`` says
that a handler which returned normally still asked for every message it got to come again
(``retry()`` on each, a ``batchItemFailures`` entry for each): it returned, but did not work.
A queue invocation that delivered a batch of more than one message lists their ids
(``messages``, in batch order; the invocation is named after the first), so the shrinker can
remove a message from inside a batch and keep the batch's faults.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

import attrs

from eutaxy.core.plain_data import str_tuple

__all__ = [
    "CRASHED",
    "OUTCOMES",
    "RETURNED",
    "THREW",
    "TIMED_OUT",
    "FirstError",
    "InvocationOutcome",
    "OutcomeCounts",
    "UncaughtError",
    "scrub_addresses",
]

RETURNED = "returned"
THREW = "threw"
CRASHED = "crashed"
TIMED_OUT = "timed_out"
OUTCOMES = (RETURNED, THREW, CRASHED, TIMED_OUT)

#: An error message longer than this is cut: it is one line of a report.
MESSAGE_CHARS_MAX = 300

#: A memory address in a repr (``<object at 0x7f3a...>``) differs from process to process.
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def scrub_addresses(text: str) -> str:
    """``text`` with memory addresses replaced by ``0x…``, so two runs of one plan print the same."""
    return _ADDRESS.sub("0x…", text)


@attrs.frozen(kw_only=True)
class UncaughtError:
    """The error an invocation's handler threw and did not catch."""

    #: The error's class name (``TypeError``, ``KeyError``).
    name: str
    #: Its message, on one line, at most MESSAGE_CHARS_MAX characters.
    message: str
    #: Where it was thrown, in the user's own source (``src/index.ts:12``, ``handler.py:7``):
    #: the innermost frame of the user's code; None when no frame is the user's.
    at: str | None = None

    def __attrs_post_init__(self) -> None:
        assert "\n" not in self.message, self.message
        assert len(self.message) <= MESSAGE_CHARS_MAX + 1, len(self.message)

    @classmethod
    def of(cls, name: str, message: str, at: str | None) -> "UncaughtError":
        """Built from what a runtime reported: the message made one scrubbed line, cut to size."""
        line = " ".join(scrub_addresses(str(message)).split())
        if len(line) > MESSAGE_CHARS_MAX:
            line = line[:MESSAGE_CHARS_MAX] + "…"
        return cls(name=str(name) or "Error", message=line, at=at or None)

    def text(self) -> str:
        """``TypeError: boom (at src/index.ts:12)``."""
        head = f"{self.name}: {self.message}" if self.message else self.name
        return head + (f" (at {self.at})" if self.at else "")

    def to_data(self) -> dict[str, Any]:
        return {"name": self.name, "message": self.message, **({"at": self.at} if self.at else {})}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "UncaughtError":
        return cls.of(str(data.get("name") or "Error"), str(data.get("message") or ""), data.get("at"))


@attrs.frozen(kw_only=True)
class InvocationOutcome:
    """How one invocation ended (an entry of ``RunResult.invocations``)."""

    #: The invocation's id, as its effects carry it (``msg-1#2``).
    invocation: str
    #: The kind of event delivered, as the drive names it (``queue``, ``http``, ``sqs``).
    drive: str
    outcome: str = attrs.field(validator=attrs.validators.in_(OUTCOMES))
    #: The last effect point the invocation opened before it ended (None: it opened none),
    #: so a report can show the error under that point of the trace.
    ordinal: int | None = None
    #: The uncaught error when ``outcome`` is ``threw`` (always); when it is ``crashed``, the
    #: user's own exit that crashed it (``process.exit``, ``os._exit``), never an injected fault.
    error: UncaughtError | None = None
    #: Messages the invocation's end dead-lettered.
    dead_lettered: int = 0
    #: It returned, but asked for every message it was given to be delivered again.
    retried_all: bool = False
    #: The ids of the messages it was given, in batch order, when a batch held more than one
    #: (empty otherwise: the invocation's own event is its only message).
    messages: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)

    @property
    def succeeded(self) -> bool:
        """The handler returned normally and took at least one message (or had none to give back)."""
        return self.outcome == RETURNED and not self.retried_all

    @property
    def own_failure(self) -> bool:
        """The user's code failed it: it threw, timed out, or ended its own process (an exit, out of
        memory; a crash with an error). A report shows how such a call ended; an injected crash
        is a fault the trace already marks."""
        return self.outcome in (THREW, TIMED_OUT) or (self.outcome == CRASHED and self.error is not None)

    def __attrs_post_init__(self) -> None:
        assert (self.error is not None) == (self.outcome == THREW) or self.outcome == CRASHED, self
        assert not self.retried_all or self.outcome == RETURNED, self
        assert self.dead_lettered >= 0, self.dead_lettered
        assert self.ordinal is None or self.ordinal >= 0, self.ordinal
        assert len(self.messages) != 1, "a batch of one lists no messages"

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"invocation": self.invocation, "drive": self.drive, "outcome": self.outcome}
        if self.ordinal is not None:
            data["ordinal"] = self.ordinal
        if self.error is not None:
            data["error"] = self.error.to_data()
        if self.dead_lettered:
            data["deadLettered"] = self.dead_lettered
        if self.retried_all:
            data["retriedAll"] = True
        if self.messages:
            data["messages"] = list(self.messages)
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "InvocationOutcome":
        error = data.get("error")
        ordinal = data.get("ordinal")
        return cls(
            invocation=str(data["invocation"]),
            drive=str(data["drive"]),
            outcome=str(data["outcome"]),
            ordinal=None if ordinal is None else int(ordinal),
            error=None if error is None else UncaughtError.from_data(error),
            dead_lettered=int(data.get("deadLettered") or 0),
            retried_all=bool(data.get("retriedAll")),
            messages=tuple(data.get("messages") or ()),
        )


@attrs.frozen(kw_only=True)
class FirstError:
    """The first uncaught error of a drive's handler over a check's runs, and where it happened."""

    invocation: str
    #: The exploration run it happened in (0-based, in exploration order).
    run: int
    error: UncaughtError


@attrs.frozen(kw_only=True)
class OutcomeCounts:
    """One drive's invocations over a check's exploration runs, counted by how they ended.

    ``succeeded_fault_free``: some invocation returned normally, without asking for all its
    messages again, in a run with no injected fault. Without it a pass would rest on a
    handler that never worked.
    """

    drive: str
    returned: int = 0
    threw: int = 0
    crashed: int = 0
    timed_out: int = 0
    #: Of ``returned``, those that asked for every message they got to come again.
    retried_all: int = 0
    #: Of ``crashed``, those the user's own code ended (``process.exit``, ``os._exit``, an AWS handler out of
    #: memory), not a fault.
    exited: int = attrs.field(default=0, metadata={"omit_if_default": True})
    dead_lettered: int = 0
    succeeded_fault_free: bool = False
    #: Invocations in runs with no injected fault (the runs ``succeeded_fault_free`` is about).
    fault_free_invocations: int = 0
    #: Left out of a verdict's data while None (``omit_if_default``, as ``verdicts.OMIT_IF_DEFAULT``).
    first_error: FirstError | None = attrs.field(default=None, metadata={"omit_if_default": True})

    @property
    def invocations(self) -> int:
        return self.returned + self.threw + self.crashed + self.timed_out

    def add(self, run: int, outcomes: Iterable[InvocationOutcome], *, fault_free: bool) -> "OutcomeCounts":
        """These counts with one run's invocations of this drive added."""
        counts = {name: getattr(self, name) for name in OUTCOMES}
        dead_lettered = self.dead_lettered
        retried_all = self.retried_all
        exited = self.exited
        first_error = self.first_error
        succeeded = self.succeeded_fault_free
        fault_free_invocations = self.fault_free_invocations
        for one in outcomes:
            if one.drive != self.drive:
                continue
            counts[one.outcome] += 1
            dead_lettered += one.dead_lettered
            retried_all += one.retried_all
            exited += one.outcome == CRASHED and one.error is not None
            if fault_free:
                fault_free_invocations += 1
                succeeded = succeeded or one.succeeded
            if first_error is None and one.error is not None:
                first_error = FirstError(invocation=one.invocation, run=run, error=one.error)
        return attrs.evolve(
            self,
            **counts,
            dead_lettered=dead_lettered,
            retried_all=retried_all,
            exited=exited,
            succeeded_fault_free=succeeded,
            fault_free_invocations=fault_free_invocations,
            first_error=first_error,
        )
