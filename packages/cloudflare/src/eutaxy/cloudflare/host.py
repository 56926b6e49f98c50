"""The Node host: one process per checked Worker, spoken to in JSON lines.

The host (``runtime/host.mjs``, shipped beside this package) owns one Miniflare
instance, so workerd and the bundled Worker stay loaded across every run of a
check; a run is then one request line and one answer line. Python starts it
with the pinned Node and sends its stderr to an unnamed temporary file (nothing
to remove, whatever happens to Python), whose tail is shown when the host fails.
The host makes its own work directory (``eutaxy-host-<pid>-*``, on /dev/shm when
it can, else under ``TMPDIR``), where Miniflare keeps its storage.

Finding the runtime. In the source tree (and in Bazel's runfiles, which keep
the same layout) it is ``packages/cloudflare/runtime/``, three directories above
this file. A wheel ships the same folder as package data inside the package,
at ``eutaxy/cloudflare/runtime/``, which is looked for first.
``EUTAXY_CLOUDFLARE_RUNTIME`` (a directory holding ``host.mjs``) overrides both.

The host never outlives Python: it runs in its own session (so one signal
reaches Node and the workerd it spawned), is killed by :meth:`Host.close`, by an
``atexit`` hook, and, on Linux, by the kernel when its parent dies
(``PR_SET_PDEATHSIG``). Its stdin closing is a last signal it also heeds. A host
that was killed outright cannot remove its work directory, so :meth:`Host.close`
removes it (the host's sweep of stale directories at start stays a backstop), and
:meth:`Host.what_died` says which process of the session is gone and how.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import glob
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Iterator

from eutaxy.core.errors import UserError

__all__ = [
    "BUNDLE_CACHE_VARIABLE", "HostError", "Host", "bundle_cache_dir", "find_runtime", "find_node", "give_back", "reuse_hosts",
    "session_processes", "take_host",
]

#: Starting Node, esbuild's bundle and Miniflare's first start take about a
#: second here; a minute leaves room for a cold disk cache and a slow CI box.
LOAD_TIMEOUT_S = 120.0

#: A run answers within the scenario's budget (the runtime itself marks a hung
#: effect UNSUPPORTED); this is the floor for the host's own guard on top.
RUN_TIMEOUT_FLOOR_S = 60.0

#: Lines of the host's log quoted in an error.
LOG_TAIL_LINES = 40

#: Largest answer line accepted (a run's effect log); past it the host is broken.
LINE_BYTES_MAX = 256 * 1024 * 1024

#: How long killing a host's session may take before close() goes on anyway.
KILL_WAIT_S = 5.0

#: The longest single wait on the host's output (a deadline further off is waited for in slices).
_WAIT_SLICE_S = 60.0

_PR_SET_PDEATHSIG = 1

_HERE = Path(__file__).resolve().parent


class HostError(RuntimeError):
    """The Node host failed: it died, hung, or answered out of protocol.

    This is Eutaxy's failure (or the machine's), not a verdict; the message
    carries the tail of the host's log.
    """


def session_processes(session: int) -> dict[int, str]:
    """The live processes of a session, by pid, with their command names (Linux's /proc).

    The host leads its own session, so its session holds Node and the workerd Miniflare
    started. Elsewhere (no /proc) the answer is empty.
    """
    members: dict[int, str] = {}
    for entry in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(entry, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        name_end = text.rfind(")")
        fields = text[name_end + 2 :].split()
        # After the name: state, ppid, pgrp, session.
        if len(fields) > 3 and fields[0] != "Z" and int(fields[3]) == session:
            members[int(text[: text.index(" ")])] = text[text.index("(") + 1 : name_end]
    return members


def find_runtime() -> Path:
    """The directory holding ``host.mjs``: override, then package data, then the source tree."""
    override = os.environ.get("EUTAXY_CLOUDFLARE_RUNTIME")
    candidates = [Path(override)] if override else []
    candidates += [_HERE / "runtime", _HERE.parents[2] / "runtime"]
    for candidate in candidates:
        if (candidate / "host.mjs").is_file():
            return candidate
    raise HostError(
        "the Cloudflare runtime (host.mjs) was not found; looked in "
        + ", ".join(str(candidate) for candidate in candidates)
    )


#: The environment variable naming the bundle cache's folder (``off`` turns the cache off).
BUNDLE_CACHE_VARIABLE = "EUTAXY_BUNDLE_CACHE"


def bundle_cache_dir() -> Path | None:
    """Where the host keeps Workers' bundles across checks (``runtime/host/bundle_cache.mjs``), or None.

    ``EUTAXY_BUNDLE_CACHE`` names the folder, or turns the cache off (``off``, ``0`` or empty);
    else ``bundles`` in Eutaxy's cache (``EUTAXY_CACHE_DIR``, else ``XDG_CACHE_HOME/eutaxy``, else
    the platform's user cache), where the toolchain is.
    """
    value = os.environ.get(BUNDLE_CACHE_VARIABLE)
    if value is not None:
        return None if value.strip().lower() in ("", "0", "off") else Path(value).resolve()
    from . import toolchain

    return toolchain.cache_dir() / "bundles"


def start_caches(environment: dict[str, str]) -> dict[str, str]:
    """The host's environment for its start caches: the bundle cache's folder (empty: none), and
    Node's own compile cache (the V8 code of Miniflare and esbuild, about a quarter of Node's
    start) beside it unless ``NODE_COMPILE_CACHE`` or ``NODE_DISABLE_COMPILE_CACHE`` says otherwise.
    Neither changes what a check computes: a cached bundle is the bytes the build wrote.
    """
    bundles = bundle_cache_dir()
    caches = {BUNDLE_CACHE_VARIABLE: str(bundles) if bundles is not None else ""}
    if bundles is not None and "NODE_COMPILE_CACHE" not in environment and "NODE_DISABLE_COMPILE_CACHE" not in environment:
        compiled = bundles.parent / "node-compile-cache"
        # Only a folder that can be written: Node 24 given one it cannot make spins at start.
        try:
            compiled.mkdir(parents=True, exist_ok=True)
        except OSError:
            return caches
        if os.access(compiled, os.W_OK):
            caches["NODE_COMPILE_CACHE"] = str(compiled)
    return caches


def find_node(*, install: bool = True) -> tuple[Path, Path]:
    """The pinned Node binary and the node_modules beside it (:mod:`eutaxy.cloudflare.toolchain`).

    ``install``: install the pinned toolchain into the cache when it is missing; without
    it a missing toolchain is a :class:`HostError`.
    """
    from . import toolchain

    try:
        found = toolchain.find_node_toolchain(install=install)
    except toolchain.ToolchainError as error:
        if not install:
            raise HostError(f"the pinned Node toolchain is not installed: {error}") from None
        raise UserError(f"the Node toolchain Eutaxy runs Workers with is missing: {error}") from None
    return Path(found.node), Path(found.node_modules)


class Host:
    """One running Node host and its pipes; not thread-safe (one run at a time)."""

    def __init__(self, *, node: Path | None = None, node_modules: Path | None = None, runtime: Path | None = None) -> None:
        if node is None or node_modules is None:
            node, node_modules = find_node()
        runtime = runtime or find_runtime()
        # Unnamed: a Python killed outright leaves no log file behind.
        self._log = tempfile.TemporaryFile()
        environment = dict(os.environ)
        environment["EUTAXY_NODE_MODULES"] = str(node_modules)
        #: Names this host's work directory; pids repeat across pid namespaces sharing /dev/shm.
        self._tag = secrets.token_hex(8)
        environment["EUTAXY_HOST_TAG"] = self._tag
        environment.setdefault("NODE_NO_WARNINGS", "1")
        environment.update(start_caches(environment))
        try:
            self._process = subprocess.Popen(
                [str(node), str(runtime / "host.mjs")],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log,
                cwd=str(runtime),
                env=environment,
                start_new_session=True,
                preexec_fn=_die_with_parent_from(os.getpid()) if _PRCTL is not None else None,
            )
        except OSError as error:
            self._log.close()
            raise HostError(f"the Node host could not be started with {node}: {error}") from None
        #: The thread that started the host: the kernel stops the host when that thread ends (PR_SET_PDEATHSIG).
        self._thread = threading.get_ident()
        self._buffer = b""
        self._next_id = 0
        self._closed = False
        #: A request was sent and its answer not read (an exception in between): the host cannot be lent again.
        self._pending = False
        #: Where this host's log starts for its current user (a pooled host's earlier Workers are not shown).
        self._log_start = 0
        #: The session's processes when last noted (note_processes), to tell later which died.
        self._noted: dict[int, str] = {}
        self._timed_out = False
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._process.stdout, selectors.EVENT_READ)
        # atexit holds only a weak reference, so a forgotten host is still collected.
        reference = weakref.ref(self)
        self._atexit = lambda: (lambda host: host and host.close())(reference())
        atexit.register(self._atexit)

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        return not self._closed and self._process.poll() is None

    def note_processes(self) -> dict[int, str]:
        """Remember the session's processes now (Node and workerd, once a Worker is loaded)."""
        self._noted = session_processes(self._process.pid)
        return dict(self._noted)

    def what_died(self) -> str | None:
        """Which of the noted processes is gone and how, or None when all still run."""
        if self._timed_out:
            return f"the Node host (pid {self._process.pid}) did not answer in time and was stopped"
        try:
            # A killed Node shows as a zombie before its threads are gone and it can be waited for.
            status = self._process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            status = None
        if status is not None:
            how = f"was killed by {signal.Signals(-status).name}" if status < 0 else f"exited with status {status}"
            return f"the Node host (pid {self._process.pid}) {how}"
        alive = session_processes(self._process.pid)
        gone = [f"{name} (pid {pid})" for pid, name in sorted(self._noted.items()) if pid not in alive]
        if gone:
            return f"{', '.join(gone)} died while the Node host (pid {self._process.pid}) stayed up"
        return None

    def request(self, message: dict[str, Any], *, timeout_s: float) -> dict[str, Any]:
        """Send one message and return the answer carrying its id."""
        if self._closed:
            raise HostError("the Node host was closed")
        self._next_id += 1
        message_id = self._next_id
        self._pending = True
        line = json.dumps({**message, "id": message_id}, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        try:
            assert self._process.stdin is not None
            self._process.stdin.write(line.encode("utf-8") + b"\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._failure("the Node host stopped reading its input") from None
        answer = self._read_line(time.monotonic() + timeout_s)
        self._pending = False
        try:
            data = json.loads(answer)
        except json.JSONDecodeError:
            raise self._failure(f"the Node host wrote a line that is not JSON: {answer[:200]!r}") from None
        if not isinstance(data, dict):
            raise self._failure(f"the Node host answered {type(data).__name__}, not an object")
        if data.get("id") == message_id:
            return data
        if data.get("id") is None and data.get("ok") is False:
            raise self._failure(f"the Node host failed: {data.get('error')}")
        # Requests go strictly one at a time and a timed-out host is killed, so an
        # answer to any other request cannot come: it is out of protocol.
        raise self._failure(f"the Node host answered id {data.get('id')!r} while {message_id} was asked")

    def _read_line(self, deadline: float) -> bytes:
        stdout = self._process.stdout
        assert stdout is not None
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._timed_out = True
                self._kill()
                raise self._failure("the Node host did not answer in time and was stopped")
            # epoll takes its timeout in int milliseconds; wait in slices a long budget cannot overflow.
            if not self._selector.select(timeout=min(remaining, _WAIT_SLICE_S)):
                continue
            chunk = os.read(stdout.fileno(), 1 << 20)
            if not chunk:
                self._process.wait(timeout=5)
                raise self._failure(f"the Node host exited (status {self._process.returncode})")
            self._buffer += chunk
            if len(self._buffer) > LINE_BYTES_MAX:
                self._kill()
                raise self._failure("the Node host wrote a line longer than the protocol allows")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The last lines the host (and the Worker's console) wrote to stderr."""
        try:
            self._log.flush()
            self._log.seek(self._log_start)
            text = self._log.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def reusable(self) -> bool:
        """Whether another Worker may be loaded into this host: alive, no answer left unread, and
        started by the main thread (a host another thread started dies with that thread)."""
        return self.alive() and not self._pending and self._thread == threading.main_thread().ident

    def lend(self) -> None:
        """Start the log afresh for a new user (a pooled host's earlier Workers, their secrets too, stay unshown)."""
        self._log.seek(0, os.SEEK_END)
        self._log_start = self._log.tell()

    def _failure(self, problem: str) -> HostError:
        tail = self.log_tail()
        return HostError(f"{problem}\n--- host log ---\n{tail}" if tail else problem)

    def close(self) -> None:
        """Ask the host to stop, then make sure it and its workerd are gone."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self._atexit)
        try:
            if self._process.poll() is None and self._process.stdin is not None:
                self._process.stdin.write(b'{"op":"close"}\n')
                self._process.stdin.flush()
                self._process.stdin.close()
                self._process.wait(timeout=5)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            pass
        self._kill()
        self._selector.close()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._log.close()
        self._remove_work_directories()

    def _remove_work_directories(self) -> None:
        """Remove what a host killed outright left: its ``eutaxy-host-<pid>-<tag>-*`` directory.

        The tag is this host's alone: another host with the same pid in another pid
        namespace (sharing /dev/shm, as Bazel's sandboxed tests do) has another tag, so its
        live directory is never touched.
        """
        for base in ("/dev/shm", tempfile.gettempdir()):
            for directory in glob.glob(os.path.join(base, f"eutaxy-host-{self._process.pid}-{self._tag}-*")):
                shutil.rmtree(directory, ignore_errors=True)

    def _kill(self) -> None:
        """Kill the host's whole session, Node and the workerd Miniflare started, and wait for it to end.

        The process group first, then any other process of the session (a workerd left
        behind by a Node that was killed outright); waits at most KILL_WAIT_S.
        """
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        deadline = time.monotonic() + KILL_WAIT_S
        try:
            self._process.wait(timeout=KILL_WAIT_S)
        except subprocess.TimeoutExpired:
            pass
        while time.monotonic() < deadline:
            rest = session_processes(self._process.pid)
            if not rest:
                return
            for pid in rest:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.02)

    def __del__(self) -> None:  # pragma: no cover - only when a caller forgot close()
        try:
            self.close()
        except Exception:  # noqa: BLE001 - a finalizer has no caller to tell, and must not raise
            pass

    def __enter__(self) -> "Host":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Pool:
    """Hosts kept between platforms while :func:`reuse_hosts` is entered; one idle host at most.

    Only the main thread takes and gives back: the other instances ``--jobs`` starts, each in a
    thread of its own, start and stop their own hosts.
    """

    def __init__(self) -> None:
        self.depth = 0
        self.idle: list[Host] = []

    def take(self) -> Host | None:
        if threading.current_thread() is not threading.main_thread():
            return None
        while self.idle:
            host = self.idle.pop()
            if host.reusable():
                host.lend()
                return host
            host.close()
        return None

    def give_back(self, host: Host) -> bool:
        """Keep ``host`` for the next platform (True), or not: no pool is open, or it is not reusable."""
        if self.depth == 0 or threading.current_thread() is not threading.main_thread() or not host.reusable():
            return False
        for older in self.idle:
            older.close()
        self.idle = [host]
        return True

    def drain(self) -> None:
        for host in self.idle:
            host.close()
        self.idle = []


_POOL = _Pool()


@contextlib.contextmanager
def reuse_hosts() -> Iterator[None]:
    """Within: a platform that closes keeps its Node host, and the next platform loads its Worker into it.

    Starting Node and loading Miniflare's code is a third of a platform's start; a process
    that checks many scenarios (the pytest plugin, a corpus gate) pays it once. The next load
    replaces the Worker whole: workerd is stopped and a new one started on the new bundle, with
    new storage, so a check through a kept host gives the same bytes as through a new one. A
    host that died, timed out or was left mid-request is never kept, nor one another thread started
    (the kernel stops it with that thread); only the main thread keeps and takes hosts. On leaving
    the outermost ``reuse_hosts``, the kept host is stopped.
    """
    _POOL.depth += 1
    try:
        yield
    finally:
        _POOL.depth -= 1
        if _POOL.depth == 0:
            _POOL.drain()


def take_host() -> Host | None:
    """A kept host to load a Worker into, when :func:`reuse_hosts` kept one; else None."""
    return _POOL.take()


def give_back(host: Host) -> bool:
    """Keep a platform's host for the next one when :func:`reuse_hosts` is entered (True); else the caller closes it."""
    return _POOL.give_back(host)


def _resolve_prctl() -> Any:
    """``prctl`` from the C library, looked up before any fork (never in the child)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _resolve_prctl()


def _die_with_parent_from(parent_pid: int) -> Any:
    def die_with_parent() -> None:
        """In the child before exec: have the kernel send SIGTERM when the parent dies.

        SIGTERM rather than SIGKILL, so the host can stop the workerd it started
        (it disposes Miniflare on SIGTERM); a SIGKILL would orphan workerd.

        The kernel ties this to the thread that forked, so a host started from a
        short-lived thread would die with that thread; the CLI and tests start
        hosts from the thread that runs the check.
        """
        if _PRCTL is not None:
            _PRCTL(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        # The parent may have died between fork and prctl; then nobody would kill us.
        if os.getppid() != parent_pid:
            os._exit(1)

    return die_with_parent
