"""A real Bazel HTTP cache on loopback: nginx's WebDAV PUT over a temp dir.

The check needs a cache server a CI machine really has (Debian's nginx-light),
not a fake one written for the test, so a pass says something about Bazel
talking HTTP to a cache. The server is one nginx process in single-process mode
whose every path is under the caller's temp dir; `running_cache` starts it on a
free port, proves it stores and returns a blob, and always stops it.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

TEMPLATE = Path(__file__).with_name("nginx.conf.in")

#: A port picked as free can be taken before nginx binds it; a few fresh
#: picks make that race harmless without hiding a real misconfiguration.
START_ATTEMPTS = 3
#: nginx binds in milliseconds; this only bounds a broken start.
READY_SECONDS = 10.0
#: nginx exits at once on SIGTERM; SIGKILL after this is the last resort.
STOP_SECONDS = 5.0


class CacheServerError(RuntimeError):
    """nginx is missing, would not start, or does not store what it is sent."""


@dataclasses.dataclass(frozen=True, slots=True)
class CacheServer:
    """A running cache: where to reach it and where its files land."""

    #: http://127.0.0.1:PORT, no trailing slash; Bazel appends /ac/ and /cas/
    #: to whatever path follows, so one server can hold several caches.
    url: str
    #: The directory nginx serves: URL path /x/ac/H is file root/x/ac/H.
    root: Path
    #: The server's own logs, shown when a check fails.
    error_log: Path
    access_log: Path


def find_nginx() -> str:
    """The nginx binary: $NGINX, else PATH, else Debian's /usr/sbin (not on a user's PATH)."""
    named = os.environ.get("NGINX")
    if named:
        return named
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")
    if not found:
        raise CacheServerError(
            "nginx not found (set NGINX=/path/to/nginx, or install Debian's nginx-light: "
            "apt-get install nginx-light)"
        )
    return found


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _render(port: int, root: Path, state: Path) -> str:
    text = TEMPLATE.read_text()
    for name, value in (("PORT", str(port)), ("ROOT", str(root)), ("STATE", str(state))):
        text = text.replace(f"@{name}@", value)
    live = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert not re.search(r"@[A-Z_]+@", live), "nginx.conf.in has a field check.py does not fill"
    return text


def _die_with_parent() -> None:
    """Runs in the child before exec: if the check is killed outright, nginx goes too (Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)


def _version(nginx: str) -> tuple[int, ...]:
    """nginx's version from `nginx -v` ("nginx version: nginx/1.22.1"), () if unreadable."""
    done = subprocess.run([nginx, "-v"], capture_output=True, text=True)
    match = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", done.stderr + done.stdout)
    return tuple(int(part) for part in match.groups()) if match else ()


def _command(nginx: str, conf: Path, state: Path, error_log: Path) -> list[str]:
    # -p: relative paths stay inside the temp dir. -e (nginx 1.19.5 and later):
    # nginx opens its built-in error log before it reads the config; point that
    # one at the temp dir too. Older nginx only warns that it cannot open it.
    command = [nginx, "-p", str(state), "-c", str(conf)]
    if _version(nginx) >= (1, 19, 5):
        command[1:1] = ["-e", str(error_log)]
    return command


def _request(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request(method, path, body=body)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _wait_ready(process: subprocess.Popen, port: int) -> bool:
    """True once a PUT blob reads back; False if nginx exited (e.g. the port was taken)."""
    deadline = time.monotonic() + READY_SECONDS
    blob = b"eutaxy cache server readiness probe\n"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            put, _ = _request(port, "PUT", "/_ready/probe", blob)
            got, back = _request(port, "GET", "/_ready/probe")
        except OSError:
            time.sleep(0.05)
            continue
        if put not in (201, 204) or got != 200 or back != blob:
            raise CacheServerError(f"nginx answered PUT {put}, GET {got}: it does not store blobs")
        return True
    raise CacheServerError(f"nginx did not answer on 127.0.0.1:{port} within {READY_SECONDS:.0f} s")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def running_cache(workdir: Path) -> Iterator[CacheServer]:
    """Serve workdir/root as a Bazel HTTP cache until the block ends, however it ends."""
    nginx = find_nginx()
    root = workdir / "root"
    state = workdir / "nginx"
    root.mkdir()
    state.mkdir()
    conf = state / "nginx.conf"
    error_log = state / "error.log"
    command = _command(nginx, conf, state, error_log)
    for _ in range(START_ATTEMPTS):
        port = _free_port()
        conf.write_text(_render(port, root, state))
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,
        )
        try:
            ready = _wait_ready(process, port)
            if ready:
                yield CacheServer(
                    url=f"http://127.0.0.1:{port}",
                    root=root,
                    error_log=error_log,
                    access_log=state / "access.log",
                )
                return
        finally:
            _stop(process)
    log = error_log.read_text() if error_log.exists() else "(no error log)"
    raise CacheServerError(f"nginx exited at start {START_ATTEMPTS} times; its error log:\n{log}")
