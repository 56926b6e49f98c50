"""One Z3 call in a child process, under Z3's resource limit and a wall-clock deadline.

Z3's ``rlimit`` counts its own steps, so the same query gives the same answer on
every machine; but not every tactic checks it often (a ``%`` bit-blasts a
floating-point remainder and can run for minutes and gigabytes past the
limit), and while Z3 runs in this process's C code Python cannot run a signal
handler, so neither Ctrl-C nor SIGTERM would end the report. So the query is
asked in a forked child: the parent waits on a pipe with the deadline, and the
child is sent SIGTERM at the deadline and SIGKILL after :data:`GRACE_S`.
The parent's own signals interrupt the wait (the child is then killed and
reaped before the exception goes on), so ``eutaxy report`` ends promptly.

Only an :class:`Answer` whose ``cacheable`` is true is an answer of the engine
(unsat, a model, or Z3 reporting its step limit ran out, all of them functions
of the query and the limit; Z3 says "canceled" when the limit ran out inside a
sub-solver, and the step count it reports then tells the two apart). A killed, crashed or interrupted child is not one,
and is never cached.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import time
import traceback
from typing import Any, Callable, Optional

import attrs

#: Seconds between the SIGTERM sent at the deadline and the SIGKILL that follows when the child is still there.
GRACE_S = 1.0
#: What Z3's ``reason_unknown`` says when its resource limit ran out: the only unknown that is an answer.
RLIMIT_REASON = "max. resource limit exceeded"
#: What it says instead when the limit ran out inside a sub-solver (the floating-point bit-blasting does this):
#: the child has no other canceller, and its statistics' step count then has reached the limit.
CANCELED_REASON = "canceled"
#: The statistic holding the steps Z3 counted against ``rlimit``.
STEPS_STATISTIC = "rlimit count"
#: Bytes of one child's answer at most (a model's values; a bound on the read).
ANSWER_BYTES_MAX = 64 << 20

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"


@attrs.frozen(kw_only=True)
class Answer:
    """What one Z3 call gave: ``sat`` (with the model's arguments, encoded), ``unsat``, or ``unknown`` with why."""

    kind: str
    #: The model's value for each binder, in the spec ladder's encoding (``sat`` only).
    args: tuple[Any, ...] = ()
    #: Why there is no answer, a sentence naming the limit (``unknown`` only).
    why: str = ""
    #: True when the answer is the engine's (a function of the query and the step limit), so it may be cached.
    cacheable: bool = True

    def __attrs_post_init__(self) -> None:
        assert self.kind in (SAT, UNSAT, UNKNOWN), self.kind
        assert self.kind == UNKNOWN or self.cacheable, "a decision is always the engine's answer"


def solve(z3: Any, solver: Any, model_args: Callable[[Any], list[Any]], *, rlimit: int, deadline_s: float) -> Answer:
    """``solver.check()`` in a forked child, with ``model_args(model)`` read there on sat.

    The child gets SIGTERM at ``deadline_s`` and SIGKILL :data:`GRACE_S` later; a
    killed child is UNKNOWN naming the deadline, never cacheable. A KeyboardInterrupt
    (Ctrl-C, or the CLI's SIGTERM) in the parent kills and reaps the child first.
    """
    assert deadline_s > 0, deadline_s
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected; its answers are tested through the parent
        os.close(read_fd)
        _child(z3, solver, model_args, rlimit, write_fd)
    os.close(write_fd)
    status: Optional[int] = None
    try:
        data, timed_out = _read_until(read_fd, deadline_s)
        if timed_out:
            status = _stop(pid)
            return Answer(kind=UNKNOWN, cacheable=False,
                          why=f"the solver was stopped at its wall-clock deadline of {deadline_s:g} s "
                              f"before its step limit (rlimit {rlimit}) ran out")
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(read_fd)
        if status is None:
            _stop(pid)  # the parent was interrupted: the child goes first, then the exception
    return _answer(data, status, rlimit)


def _child(z3: Any, solver: Any, model_args: Callable[[Any], list[Any]], rlimit: int, write_fd: int) -> None:
    """Runs in the child: check, read the model, write one JSON answer, exit without Python's cleanup."""
    code = 0
    try:
        # The parent decides about signals; the child just ends on them (Z3's own Ctrl-C
        # handler would turn one into an "interrupted" unknown, which is no answer).
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_DFL)
        solver.set("rlimit", rlimit)
        result = solver.check()
        if result == z3.unsat:
            out: dict[str, Any] = {"kind": UNSAT}
        elif result == z3.sat:
            out = {"kind": SAT, "args": model_args(solver.model())}
        else:
            out = {"kind": UNKNOWN, "reason": solver.reason_unknown(), "steps": _steps(solver)}
        data = json.dumps(out).encode()
    except BaseException as error:  # noqa: BLE001 - anything in the child is reported to the parent as a crash
        data = json.dumps({"kind": "crashed", "reason": f"{type(error).__name__}: {error}",
                           "trace": traceback.format_exc()[-2000:]}).encode()
        code = 1
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view):]
    finally:
        os._exit(code)


def _steps(solver: Any) -> int:
    """The steps Z3 counted against the rlimit in this call (0 when its statistics do not say)."""
    statistics = solver.statistics()
    if STEPS_STATISTIC not in statistics.keys():
        return 0
    return int(statistics.get_key_value(STEPS_STATISTIC))


def _read_until(fd: int, deadline_s: float) -> tuple[bytes, bool]:
    """Everything the child writes until it closes the pipe: ``(data, False)``; ``(data, True)`` past the deadline."""
    deadline = time.monotonic() + deadline_s
    chunks: list[bytes] = []
    size = 0
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                return b"".join(chunks), True
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks), False
            size += len(chunk)
            if size > ANSWER_BYTES_MAX:
                return b"".join(chunks), True
            chunks.append(chunk)


def _stop(pid: int) -> int:
    """SIGTERM, then SIGKILL after :data:`GRACE_S`; the child is reaped either way. Its wait status."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return os.waitpid(pid, 0)[1]


def _answer(data: bytes, status: int, rlimit: int) -> Answer:
    """The child's answer from what it wrote and how it ended."""
    try:
        out = json.loads(data) if data else None
    except ValueError:
        out = None
    if not isinstance(out, dict) or out.get("kind") not in (SAT, UNSAT, UNKNOWN):
        if os.WIFSIGNALED(status):
            how = f"was killed by {signal.Signals(os.WTERMSIG(status)).name}"
        else:
            how = f"exited with status {os.waitstatus_to_exitcode(status)}"
        said = f": {out.get('reason')}" if isinstance(out, dict) and out.get("reason") else ""
        return Answer(kind=UNKNOWN, cacheable=False, why=f"the solver process {how} without an answer{said}")
    if out["kind"] == SAT:
        return Answer(kind=SAT, args=tuple(out["args"]))
    if out["kind"] == UNSAT:
        return Answer(kind=UNSAT)
    reason = str(out.get("reason", ""))
    steps = out.get("steps")
    if reason == RLIMIT_REASON or (reason == CANCELED_REASON and isinstance(steps, int) and steps >= rlimit):
        return Answer(kind=UNKNOWN, why=f"Z3's step limit ran out (rlimit {rlimit})")
    return Answer(kind=UNKNOWN, cacheable=False, why=f"Z3 gave up: {reason or 'no reason given'}")
