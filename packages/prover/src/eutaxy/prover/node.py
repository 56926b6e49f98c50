"""Where Node, typescript and Eutaxy's own scripts are, and the Node processes the rungs talk to.

The prover does not import the Cloudflare package (which installs the toolchain
and holds the one finder, ``eutaxy.cloudflare.toolchain.find_node_toolchain``), so
it is handed Node as a value: the CLI calls ``eutaxy.cli.provers.node_toolchain``
and passes the result as ``toolchain=``, which every entry point requires. The
prover never looks for Node itself (no environment variable, no search):
:func:`toolchain_at` only checks that a given node binary and ``node_modules``
folder hold what the ladder needs (Node 22 or later strips TypeScript types itself).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import attrs

from eutaxy.core.errors import UserError
from eutaxy.spec import js_module_dir

def _scripts_dir() -> Path:
    """reader.mjs and evaluator.mjs: inside the installed package, or beside ``src`` in a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "reader", here.parents[2] / "reader"):
        if (candidate / "evaluator.mjs").is_file():
            return candidate
    raise FileNotFoundError(f"the prover's Node scripts (reader/evaluator.mjs) are not beside {here}")


#: The folder holding reader.mjs and evaluator.mjs (the value encoding is eutaxy/spec's ``values.mjs``).
SCRIPTS_DIR = _scripts_dir()


@attrs.frozen(kw_only=True)
class NodeToolchain:
    """A node binary and the node_modules folder its typescript comes from."""

    node: Path
    node_modules: Path

    @property
    def typescript(self) -> Path:
        return self.node_modules / "typescript"

    @property
    def tsc(self) -> Path:
        return self.typescript / "bin" / "tsc"

    @property
    def esbuild(self) -> Path:
        return self.node_modules / "esbuild"


def toolchain_at(*, node: str | os.PathLike[str], node_modules: str | os.PathLike[str]) -> NodeToolchain:
    """The toolchain of this node binary and ``node_modules`` folder, checked to hold typescript and esbuild.

    Raises:
        UserError: when the binary or either package is missing.
    """
    binary, modules = Path(node), Path(node_modules)
    if not binary.exists():
        raise UserError(f"node binary {binary} not found: run `eutaxy toolchain install`")
    for package in ("typescript", "esbuild"):
        if not (modules / package).is_dir():
            raise UserError(f"{modules} holds no {package} package: run `eutaxy toolchain install`")
    return NodeToolchain(node=binary, node_modules=modules)


def script_env(toolchain: NodeToolchain) -> dict[str, str]:
    """The environment the reader and evaluator scripts read their paths from."""
    spec_dir = js_module_dir()
    env = dict(os.environ)
    env.update({
        "EUTAXY_TYPESCRIPT": str(toolchain.typescript),
        "EUTAXY_SPEC_DTS": str(spec_dir / "spec.d.ts"),
        "EUTAXY_SPEC_JS": str(spec_dir / "spec.js"),
        "EUTAXY_SPEC_VALUES": str(spec_dir / "values.mjs"),
        "EUTAXY_ESBUILD": str(toolchain.esbuild),
        "NODE_NO_WARNINGS": "1",
    })
    return env


class NodeError(RuntimeError):
    """The Node side failed in a way no property caused (it exited, or it answered garbage)."""


@attrs.define(eq=False)
class JsonLinesProcess:
    """One long-lived Node process answering one JSON line per request line.

    Every request carries its deadline (``timeout_s``, required, as the Cloudflare host's
    client requires it): answers are read from the pipe's file descriptor until then, so
    a process that stops answering is a :class:`NodeError` rather than a hang; the
    process is killed then.
    """

    args: list[str]
    env: dict[str, str]
    cwd: Optional[str] = None
    _proc: Optional[subprocess.Popen] = attrs.field(default=None, init=False)
    _stderr_file: Any = attrs.field(default=None, init=False)
    _pending: bytes = attrs.field(default=b"", init=False)

    def start(self) -> "JsonLinesProcess":
        # stderr goes to a file, not a pipe: code under test may print without
        # bound, and an unread pipe would stall the process when it fills.
        self._stderr_file = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self._proc = subprocess.Popen(self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=self._stderr_file, env=self.env, cwd=self.cwd, bufsize=0)
        self._pending = b""
        return self

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def request(self, message: dict, *, timeout_s: float) -> dict:
        """Send one request line and return its answer, or raise :class:`NodeError` past ``timeout_s`` seconds."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None, "start() first"
        assert timeout_s > 0, timeout_s
        try:
            # ASCII escapes keep lone surrogates (legal in JavaScript strings) intact across the pipe.
            proc.stdin.write((json.dumps(message) + "\n").encode("ascii"))
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise NodeError(f"node exited: {self._stderr()}") from error
        line = self._read_line(proc, timeout_s)
        if line is None:
            self.kill()
            raise NodeError(f"node did not answer within {timeout_s:g} s and was stopped")
        if not line:
            stderr = self._stderr().strip()
            raise NodeError(f"node exited (status {proc.poll()}) without answering" + (f": {stderr}" if stderr else ""))
        return json.loads(line)

    def _read_line(self, proc: subprocess.Popen, timeout_s: float) -> Optional[bytes]:
        """One line from stdout; ``b""`` at end of file, ``None`` past the deadline."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        chunks = [self._pending]
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in chunks[-1]:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                if not selector.select(left):
                    return None
                chunk = os.read(fd, 1 << 20)
                if not chunk:
                    self._pending = b""
                    return b""
                chunks.append(chunk)
        data = b"".join(chunks)
        line, _, self._pending = data.partition(b"\n")
        return line

    def _stderr(self) -> str:
        """The last of what the process wrote to stderr (after it exited, or within a few seconds)."""
        proc, log = self._proc, self._stderr_file
        if proc is None or log is None:
            return ""
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        log.flush()
        log.seek(0)
        return log.read()[-2000:]

    def kill(self) -> None:
        """End the process now (it stopped answering)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
        self.close()

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        self._proc = None
        if proc.stdin:
            try:
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass  # it already exited; wait() below collects it
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout:
            proc.stdout.close()
        if self._stderr_file is not None:
            self._stderr_file.close()
            self._stderr_file = None

    def __enter__(self) -> "JsonLinesProcess":
        return self.start() if self._proc is None else self

    def __exit__(self, *exc: Any) -> None:
        self.close()
