"""The handler's own process: one the checker can kill, with its memory limited.

``create_platform`` gives the engine a ``HandlerProcess``. It starts a Python process that
runs ``AwsPlatform`` there (the handler's module, the local DynamoDB, the run loop with its
botocore boundary and virtual globals), sends it each plan over a pipe and reads back its
RunResult. A plan holds every decision the engine's follower makes (its forced prefix and
its policy), so a run needs nothing from the checker while it goes on, and its answer is
the one the checker's own process would have made, byte for byte.

The process is long-lived, as a warm Lambda container is: started with the platform (the
module imported once, the local DynamoDB started once) and kept across runs. It is killed,
and the next run starts a fresh one (a cold container), when:

- it gives no answer within its limit (``answer_limit_ms``): the run's own limit, plus the
  time the watchdog takes to call a handler blocked outside Python stuck, plus a grace for
  resetting and snapshotting the tables. A handler blocked on a socket or a thread's event,
  or one catching ``BaseException`` around a loop, is ended there: UNSUPPORTED
  ``handler_unresponsive``, naming the limit;
- a run in it ran out of memory. Its address space is limited (``RLIMIT_AS``,
  ``memory_limit_mb``: 4096 MiB, ``EUTAXY_HANDLER_MEMORY_MB`` sets another) while the
  handler's code runs (``handler_memory``: its module's import and each call), so a handler
  that allocates without end meets ``MemoryError`` in its own process, never the checker's.
  Out of the handler, that is the invocation's failure (``AwsPlatform``: Lambda's
  ``Runtime.OutOfMemory``), as is a thread the handler could not start for want of room
  (``thread_out_of_memory``), and the run goes on; the process answers, and the next run
  starts a fresh one, as Lambda starts a fresh environment. Eutaxy's own work in the process
  (a thread per handler call for the watchdog, resetting the tables, answering) has
  ``PLATFORM_RESERVE_MB`` beyond the limit, so memory the handler's module keeps does not
  fail it. Only when even that ran out is the run UNSUPPORTED ``out_of_memory``, naming the
  limit;
- it ended without an answer (a signal, a crash in native code): UNSUPPORTED
  ``handler_process_ended`` with its exit status.

Its stdout is the checker's stderr, so nothing the handler writes to file descriptor 1
reaches a ``--json`` report. It has a session of its own (Ctrl-C at the terminal is the
checker's to handle, which closes the platform and so the process), and on Linux it dies
with the checker (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any, Iterator, Mapping

import attrs

from eutaxy.core.errors import SettingError, UserError
from eutaxy.core.protocol import RunResult
from eutaxy.engine.runloop import STUCK_FLOOR_MS, STUCK_REAL_FACTOR, plan_data, run_limit_ms, unsupported_result
from eutaxy.engine.scenario_file import import_deadline_s

__all__ = [
    "MEMORY_ENV",
    "MEMORY_LIMIT_MB_DEFAULT",
    "HandlerProcess",
    "answer_limit_ms",
    "handler_limit_mb",
    "handler_memory",
    "memory_limit_mb",
    "process_sentence",
    "serve",
    "thread_out_of_memory",
]

#: The handler process's address space, in MiB, unless ``EUTAXY_HANDLER_MEMORY_MB`` says otherwise.
MEMORY_LIMIT_MB_DEFAULT = 4096
MEMORY_ENV = "EUTAXY_HANDLER_MEMORY_MB"
#: Below this the handler's process cannot even start: measured, it holds 50 MiB of address space
#: when the limit is applied, 120 MiB once boto3, moto and a handler's module are imported, 130 MiB
#: after a run.
MEMORY_LIMIT_MB_MIN = 512
#: Address space the handler's process has beyond the handler's limit, for Eutaxy's own work there:
#: each handler call's watchdog thread (an 8 MiB stack, a fresh one when the last call's thread has
#: not yet handed its back), resetting and snapshotting the tables, answering the checker.
PLATFORM_RESERVE_MB = 64
_MIB = 1024 * 1024
#: Time to start the process (Python, boto3, the local DynamoDB) beside the handler module's import deadline.
START_GRACE_S = 30.0
#: Time a run takes beside its handlers: resetting the tables before, snapshotting them after.
RESET_GRACE_MS = 10_000
#: How long ``close`` waits for the process to end by itself before killing it.
CLOSE_WAIT_S = 5.0

#: Causes of a run whose process was killed or lost.
HANDLER_UNRESPONSIVE = "handler_unresponsive"
OUT_OF_MEMORY = "out_of_memory"
HANDLER_PROCESS_ENDED = "handler_process_ended"
#: The exit status of a handler process that ran out of memory where it could not answer.
_MEMORY_EXIT = 86

#: Run in the new process: the checker's own sys.path, then ``serve``.
_BOOTSTRAP = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from eutaxy.aws.child import serve; serve(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))"
)


#: The handler's limit in bytes once ``serve`` applied it in this process; None in any other.
_handler_limit: int | None = None


def memory_limit_mb() -> int:
    """The handler process's address-space limit: ``EUTAXY_HANDLER_MEMORY_MB``, else the default."""
    given = os.environ.get(MEMORY_ENV)
    if given is None or given == "":
        return MEMORY_LIMIT_MB_DEFAULT
    try:
        value = int(given)
    except ValueError:
        value = -1
    if value < MEMORY_LIMIT_MB_MIN:
        raise SettingError(
            f"{MEMORY_ENV} is {given!r}; expected a whole number of MiB, at least {MEMORY_LIMIT_MB_MIN} "
            f"(the handler's process; default {MEMORY_LIMIT_MB_DEFAULT})"
        )
    return value


def answer_limit_ms(effect_hang_ms: int) -> int:
    """How long the checker waits for a run's answer before it kills the handler's process.

    The run's own limit (``run_limit_ms``), plus the time the watchdog takes to call a handler
    blocked outside Python stuck (STUCK_REAL_FACTOR times its threshold), plus RESET_GRACE_MS:
    past all of them nothing in the process can still end the run by itself.
    """
    return run_limit_ms(effect_hang_ms) + STUCK_REAL_FACTOR * max(STUCK_FLOOR_MS, effect_hang_ms) + RESET_GRACE_MS


def _platform_part(scenario: Mapping[str, Any]) -> dict[str, Any]:
    """What the platform reads of a scenario: all of it but the invariants and specs (code, not data)."""
    return {key: value for key, value in scenario.items() if key not in ("invariants", "specs")}


class _Lost(Exception):
    """The process gave no answer: it timed out (``timed_out``) or ended (its exit status)."""

    def __init__(self, timed_out: bool, status: int | None) -> None:
        super().__init__(f"timed_out={timed_out} status={status}")
        self.timed_out = timed_out
        self.status = status


@attrs.define(eq=False)
class HandlerProcess:
    """The Platform the engine gets for an AWS scenario: ``AwsPlatform`` in a process of its own."""

    scenario: dict[str, Any]
    memory_mb: int
    _description: dict[str, Any] = attrs.Factory(dict)
    _process: subprocess.Popen[bytes] | None = None
    _requests: Connection | None = None
    _answers: Connection | None = None
    #: A request was sent and its answer not read (an interruption left the pipe mid-answer).
    _pending: bool = False
    _closed: bool = False

    @classmethod
    def start(cls, scenario: Mapping[str, Any]) -> "HandlerProcess":
        process = cls(scenario=_platform_part(scenario), memory_mb=memory_limit_mb())
        process._spawn()
        return process

    # --- the Platform interface --------------------------------------------------------

    def run(self, plan: Any) -> RunResult:
        assert not self._closed, "run() after close()"
        data = plan_data(plan)
        if self._process is None:
            self._spawn()  # the last process was killed: a cold start
        hang_ms = ((data.get("scenario") or {}).get("bounds") or {}).get("effectHangMs")
        limit_ms = answer_limit_ms(hang_ms if isinstance(hang_ms, int) and not isinstance(hang_ms, bool) else STUCK_FLOOR_MS)
        try:
            answer = self._ask(("run", data), limit_ms / 1000)
        except _Lost as lost:
            return self._lost_run(lost, limit_ms)
        result = self._answered(answer)
        assert isinstance(result, RunResult), result
        if len(answer) > 2 and answer[2]:
            self._stop()  # the handler ran out of memory in this run: the next run starts a fresh process
        return result

    def describe(self) -> dict[str, Any]:
        return dict(self._description)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop()

    def __enter__(self) -> "HandlerProcess":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # --- the process -------------------------------------------------------------------

    def _spawn(self) -> None:
        to_child_read, to_child_write = os.pipe()
        from_child_read, from_child_write = os.pipe()
        try:
            self._process = subprocess.Popen(
                [
                    sys.executable, "-c", _BOOTSTRAP, json.dumps(sys.path),
                    str(to_child_read), str(from_child_write), str(self.memory_mb), str(os.getpid()),
                ],
                stdin=subprocess.DEVNULL,
                stdout=_stdout_for_child(),
                pass_fds=(to_child_read, from_child_write),
                start_new_session=True,
            )
        except BaseException:
            for fd in (to_child_write, from_child_read):
                os.close(fd)
            raise
        finally:
            os.close(to_child_read)
            os.close(from_child_write)
        self._requests = Connection(to_child_write, readable=False)
        self._answers = Connection(from_child_read, writable=False)
        limit_s = import_deadline_s() + START_GRACE_S
        try:
            answer = self._ask(("start", self.scenario), limit_s)
        except _Lost as lost:
            self._stop()
            path = (self.scenario.get("handler") or {}).get("path")
            if lost.timed_out:
                raise UserError(
                    f"the handler module {path} did not finish importing within {limit_s:.0f} s (the import deadline, "
                    f"{import_deadline_s():.0f} s, plus {START_GRACE_S:.0f} s to start the handler's process); "
                    "a loop at its top level?"
                ) from None
            raise UserError(
                f"the handler's process ended while importing {path} ({_status_text(lost.status)}); "
                f"{_ended_hint(lost.status, self.memory_mb)}"
            ) from None
        try:
            self._description = dict(self._answered(answer))
        except BaseException:
            self._stop()
            raise

    def _ask(self, request: tuple[Any, ...], limit_s: float) -> tuple[Any, ...]:
        """Send ``request`` and wait at most ``limit_s`` for the answer; ``_Lost`` if none came."""
        assert self._requests is not None and self._answers is not None and self._process is not None
        self._pending = True
        try:
            self._requests.send(request)
            if not self._answers.poll(limit_s):
                self._kill()
                raise _Lost(timed_out=True, status=None)
            answer = self._answers.recv()
        except (EOFError, OSError):
            status = self._reap()
            raise _Lost(timed_out=False, status=status) from None
        self._pending = False
        assert isinstance(answer, tuple), answer
        return answer

    def _answered(self, answer: tuple[Any, ...]) -> Any:
        """What an answer holds, or what it raises (the user's error, an interruption, Eutaxy's bug)."""
        kind = answer[0]
        if kind in ("started", "result"):
            return answer[1]
        if kind == "user_error":
            raise (SettingError if answer[3] else UserError)(answer[1], near=answer[2])
        if kind == "interrupt":
            raise KeyboardInterrupt()
        if kind == "out_of_memory":
            self._stop()
            if not self._description:  # while starting
                raise UserError(f"the handler's process could not start: {answer[1]}")
            return unsupported_result(OUT_OF_MEMORY, answer[1])
        assert kind == "bug", answer
        raise RuntimeError(f"the AWS handler's process failed (a bug in Eutaxy):\n{answer[1]}")

    def _lost_run(self, lost: _Lost, limit_ms: int) -> RunResult:
        """The run whose process gave no answer: killed at its limit, out of memory, or ended."""
        self._stop()
        if lost.timed_out:
            return unsupported_result(
                HANDLER_UNRESPONSIVE,
                f"the handler's process gave no answer within {limit_ms} ms of real time (the run's own limit, the "
                "watchdog's and the tables' reset), so Eutaxy killed it: a handler blocked outside Python (a socket, "
                "a thread's event, a lock) or one catching BaseException around a loop? The next run starts a "
                "fresh process",
            )
        if _out_of_memory(lost.status):
            return unsupported_result(OUT_OF_MEMORY, _memory_text(self.memory_mb))
        return unsupported_result(
            HANDLER_PROCESS_ENDED,
            f"the handler's process ended during the run without an answer ({_status_text(lost.status)}): a signal, "
            "or a crash in native code? The next run starts a fresh process",
        )

    def _kill(self) -> None:
        process = self._process
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL) if _own_group(process) else process.kill()

    def _reap(self) -> int | None:
        process = self._process
        if process is None:
            return None
        try:
            return process.wait(timeout=CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            self._kill()
            return process.wait()

    def _stop(self) -> None:
        """End the process (asked to close when it is idle, else killed) and close the pipes."""
        process, requests, answers = self._process, self._requests, self._answers
        self._process, self._requests, self._answers = None, None, None
        if process is not None and process.poll() is None:
            if not self._pending and requests is not None:
                try:
                    requests.send(("close",))
                    process.wait(timeout=CLOSE_WAIT_S)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL) if _own_group(process) else process.kill()
            process.wait()
        self._pending = False
        for connection in (requests, answers):
            if connection is not None:
                connection.close()


def _own_group(process: subprocess.Popen[bytes]) -> bool:
    """Whether the process still leads its own group (start_new_session), so its whole group can be killed."""
    try:
        return os.getpgid(process.pid) == process.pid
    except OSError:
        return False


def _stdout_for_child() -> int:
    """The checker's stderr, where a handler's writes to file descriptor 1 go; else nowhere."""
    try:
        return sys.__stderr__.fileno() if sys.__stderr__ is not None else subprocess.DEVNULL
    except (OSError, ValueError):
        return subprocess.DEVNULL


def _out_of_memory(status: int | None) -> bool:
    return status == _MEMORY_EXIT


def _status_text(status: int | None) -> str:
    if status is None:
        return "no exit status"
    if status == -signal.SIGKILL:
        return "killed by SIGKILL, which Eutaxy did not send: the kernel's out-of-memory killer, or another process"
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


def _ended_hint(status: int | None, memory_mb: int) -> str:
    if _out_of_memory(status):
        return _memory_text(memory_mb)
    return "os._exit or a signal at the module's top level, or a crash in native code? (what the process printed is above)"


def process_sentence(memory_mb: int) -> str:
    """Where the handler runs, as the verdict's first assumption says it."""
    return (
        f"The handler runs in a Python process of its own, its address space limited to {memory_mb} MiB (the "
        f"checker's limit, {MEMORY_ENV}; not the function's MemorySize), started once and kept across runs (a "
        "fresh one after it was killed or ran out of memory); module state persists across invocations as in a "
        "warm Lambda container, and the module-state check compares replays to catch it. A handler that runs out "
        "of that memory fails its invocation as Lambda's Runtime.OutOfMemory does (its messages come back as SQS "
        "redelivers them); the rest of that run keeps the module's state, where Lambda starts a fresh environment, "
        "and a MemoryError the handler catches itself is its own."
    )


def _memory_text(memory_mb: int) -> str:
    return (
        "the handler's process ran out of memory where no invocation could record it (importing the module, "
        "starting a handler call's watchdog thread, resetting or snapshotting the tables, answering the checker): "
        f"it is limited to {memory_mb} MiB of address space ({MEMORY_ENV} sets another); "
        "memory the handler's module keeps? The next run starts a fresh process"
    )


# --- the handler's process ---------------------------------------------------------------


def serve(requests_fd: int, answers_fd: int, memory_mb: int, parent: int) -> None:
    """The handler process's loop: start the platform, answer each run, until ``close`` or the checker's end."""
    _die_with(parent)
    _limit_memory(memory_mb)
    requests = Connection(requests_fd, writable=False)
    answers = Connection(answers_fd, readable=False)
    platform: Any = None
    while True:
        try:
            request = requests.recv()
        except (EOFError, OSError):
            break
        if request[0] == "close":
            break
        _platform_memory()
        answer = _answer(request, platform)
        if request[0] == "start" and answer[0] == "started":
            platform, answer = answer[2], answer[:2]
        try:
            answers.send(answer)
        except MemoryError:
            os._exit(_MEMORY_EXIT)
        if answer[0] == "out_of_memory":
            os._exit(_MEMORY_EXIT)
    if platform is not None:
        platform.close()
    # A thread the handler left running would keep the process; it has answered everything.
    os._exit(0)


def _answer(request: tuple[Any, ...], platform: Any) -> tuple[Any, ...]:
    from eutaxy.aws.platform import AwsPlatform

    try:
        if request[0] == "start":
            started = AwsPlatform.start(request[1])
            started.process = process_sentence(_limit_of_memory())
            return ("started", started.describe(), started)
        assert request[0] == "run" and platform is not None, request[0]
        result = platform.run(request[1])
        # The handler ran out of memory: the checker replaces this process before the next run.
        return ("result", result, platform.fresh_process)
    except UserError as error:
        return ("user_error", str(error), error.near, isinstance(error, SettingError))
    except MemoryError:
        return ("out_of_memory", _memory_text(_limit_of_memory()))
    except KeyboardInterrupt:
        return ("interrupt",)
    except BaseException as error:  # noqa: BLE001 - Eutaxy's own bug, told to the checker with its traceback
        if thread_out_of_memory(error, _soft_limit_mb()):  # a thread of Eutaxy's, past the reserve too
            return ("out_of_memory", _memory_text(_limit_of_memory()))
        return ("bug", traceback.format_exc())


def _limit_memory(memory_mb: int) -> None:
    """The process's address space: ``memory_mb`` for the handler's code, PLATFORM_RESERVE_MB more for Eutaxy's.

    The hard limit is the whole; ``handler_memory`` lowers the soft one to the handler's
    while its code runs. One malloc arena (``_one_malloc_arena``) keeps what a thread takes
    to its stack, so the reserve holds the threads Eutaxy starts.
    """
    import resource

    global _handler_limit
    limit, whole = memory_mb * _MIB, (memory_mb + PLATFORM_RESERVE_MB) * _MIB
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit, whole = min(limit, hard), min(whole, hard)
    resource.setrlimit(resource.RLIMIT_AS, (whole, whole))
    _handler_limit = limit
    _one_malloc_arena()


def _one_malloc_arena() -> None:
    """One malloc arena for the process (glibc's ``M_ARENA_MAX``).

    glibc gives a thread that allocates while others hold the arenas one of its own, 64 MiB
    of address space reserved at once and kept: a watchdog thread's would take the reserve.
    Where there is no glibc ``mallopt`` nothing changes.
    """
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    m_arena_max = -8
    try:
        ctypes.CDLL(None).mallopt(m_arena_max, 1)
    except (AttributeError, OSError):
        pass


@contextlib.contextmanager
def handler_memory() -> Iterator[None]:
    """Run the block as the handler's code: the process's address space limited to the handler's limit.

    Outside it, Eutaxy's own work has PLATFORM_RESERVE_MB more. Nothing changes in a process
    ``serve`` did not limit (the in-process ``AwsPlatform``).
    """
    if _handler_limit is None:
        yield
        return
    import resource

    _, whole = resource.getrlimit(resource.RLIMIT_AS)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (_handler_limit, whole))
        yield
    finally:
        _platform_memory()


def _platform_memory() -> None:
    """Give Eutaxy's work the whole address space (the hard limit) again: after a handler call, and
    before each request, should an interrupted call have left it lowered."""
    if _handler_limit is not None:
        import resource

        _, whole = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (whole, whole))


def handler_limit_mb() -> int | None:
    """The address space the handler's code may take, in MiB: the handler's limit in its own process,
    else this process's own limit; None when there is none."""
    if _handler_limit is not None:
        return _handler_limit // _MIB
    return _soft_limit_mb()


def _soft_limit_mb() -> int | None:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft == resource.RLIM_INFINITY else soft // _MIB


def thread_out_of_memory(error: BaseException, limit_mb: int | None) -> bool:
    """Whether ``error`` is a thread that could not start for want of address space under ``limit_mb``.

    CPython says only ``can't start new thread`` (the system's EAGAIN, which a limit on the
    number of threads gives too); it is out of memory when the process came within a thread's
    stack of the limit (its peak address space, so threads the handler ended before its error
    came out count). Without ``/proc`` (no Linux) it is not.
    """
    if limit_mb is None or not isinstance(error, RuntimeError) or str(error) != "can't start new thread":
        return False
    import resource
    import threading

    try:
        with open("/proc/self/status", encoding="utf-8", errors="replace") as status:
            peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmPeak:"))
    except (OSError, ValueError, IndexError, StopIteration):
        return False
    stack = threading.stack_size() or resource.getrlimit(resource.RLIMIT_STACK)[0]
    if stack == resource.RLIM_INFINITY or stack <= 0:
        stack = 8 * _MIB
    return limit_mb * _MIB - peak_kb * 1024 < stack + _MIB


def _limit_of_memory() -> int:
    limit = handler_limit_mb()
    return MEMORY_LIMIT_MB_DEFAULT if limit is None else limit


def _die_with(parent: int) -> None:
    """End this process when the checker's ends (Linux's parent-death signal), even mid-run."""
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        try:
            ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL))
        except (AttributeError, OSError):
            pass
    if os.getppid() != parent:  # the checker ended before the signal was asked for
        os._exit(1)
