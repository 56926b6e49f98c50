"""The Node host's process handling, on a tiny echo host in place of the runtime.

The echo host is a real Node script speaking the same JSON lines, so these
tests exercise real pipes, real processes and real signals; only the runtime
behind them is replaced. The end-to-end tests in test_platform.py run the real
one.
"""

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from eutaxy.cloudflare.host import Host, HostError, find_node, find_runtime

ECHO_HOST = r"""
import { mkdirSync } from "node:fs";
import os from "node:os";
import { createInterface } from "node:readline";
process.stderr.write("echo host ready\n");
let deaf = false;
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.op === "close") process.exit(0);
  if (message.op === "crash") { process.stderr.write("about to crash: boom\n"); process.exit(3); }
  if (message.op === "hang") return;
  if (message.op === "noise") { process.stdout.write("not json\n"); return; }
  if (message.op === "deaf") { deaf = true; setInterval(() => {}, 1000); }
  // As the real host does: its own work directory, named by its pid and Python's tag.
  const workDir = message.op === "workdir" ? `${os.tmpdir()}/eutaxy-host-${process.pid}-${process.env.EUTAXY_HOST_TAG}-test` : undefined;
  if (workDir) mkdirSync(workDir);
  process.stdout.write(JSON.stringify({ id: message.id, ok: true, echo: message, workDir,
                                        modules: process.env.EUTAXY_NODE_MODULES }) + "\n");
});
lines.on("close", () => { if (!deaf) process.exit(0); });
"""


@pytest.fixture(scope="module")
def node():
    try:
        return find_node(install=False)
    except HostError as error:
        pytest.fail(f"the pinned Node toolchain is not installed: {error}")


@pytest.fixture
def echo_runtime(tmp_path: Path) -> Path:
    (tmp_path / "host.mjs").write_text(ECHO_HOST)
    return tmp_path


def start(node, runtime) -> Host:
    binary, modules = node
    return Host(node=binary, node_modules=modules, runtime=runtime)


def gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        # A zombie still answers kill(0); it is gone for our purposes once reaped or defunct.
        try:
            status = Path(f"/proc/{pid}/stat").read_text().split()[2]
            if status == "Z":
                return True
        except OSError:
            return True
        time.sleep(0.02)
    return False


def test_requests_are_answered_in_order_with_ids(node, echo_runtime):
    """Each request gets the answer carrying its id; the host sees the toolchain's node_modules."""
    with start(node, echo_runtime) as host:
        first = host.request({"op": "ping", "n": 1}, timeout_s=10)
        second = host.request({"op": "ping", "n": 2}, timeout_s=10)
        assert (1, 2) == (first["echo"]["n"], second["echo"]["n"])
        assert first["id"] != second["id"]
        assert str(node[1]) == first["modules"]


def test_a_killed_host_leaves_no_work_directory(node, echo_runtime, tmp_path, monkeypatch):
    """A host killed outright cannot clean up; close() removes its eutaxy-host-<pid>-* directory."""
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None
    try:
        host = start(node, echo_runtime)
        workdir = Path(host.request({"op": "workdir"}, timeout_s=10)["workDir"])
        assert workdir.is_dir() and str(host.pid) in workdir.name
        # A live host with the same pid in another pid namespace (Bazel's sandboxes share /dev/shm).
        neighbour = tmp_path / f"eutaxy-host-{host.pid}-0123456789abcdef-live"
        neighbour.mkdir()
        os.kill(host.pid, signal.SIGKILL)
        assert gone(host.pid)
        assert "was killed by SIGKILL" in host.what_died()
        host.close()
        assert not workdir.exists()
        assert neighbour.is_dir()
    finally:
        tempfile.tempdir = None


def test_a_crashed_host_is_an_error_with_its_log(node, echo_runtime):
    """When the host dies the error says so and quotes its stderr."""
    with start(node, echo_runtime) as host:
        with pytest.raises(HostError, match=r"exited \(status 3\)(.|\n)*about to crash: boom"):
            host.request({"op": "crash"}, timeout_s=10)


def test_a_hung_host_is_stopped_after_the_timeout(node, echo_runtime):
    """A host that never answers is killed and reported, never waited on forever."""
    with start(node, echo_runtime) as host:
        pid = host.pid
        with pytest.raises(HostError, match="did not answer in time"):
            host.request({"op": "hang"}, timeout_s=0.5)
        assert gone(pid)


def test_a_line_that_is_not_json_is_out_of_protocol(node, echo_runtime):
    """stdout is reserved for protocol lines; anything else is a host failure."""
    with start(node, echo_runtime) as host:
        with pytest.raises(HostError, match="not JSON"):
            host.request({"op": "noise"}, timeout_s=10)


def test_close_ends_the_process(node, echo_runtime):
    """close() stops the host; requests after it are refused."""
    host = start(node, echo_runtime)
    pid = host.pid
    host.close()
    assert gone(pid)
    with pytest.raises(HostError, match="closed"):
        host.request({"op": "ping"}, timeout_s=1)


def test_the_host_dies_with_its_parent(node, echo_runtime):
    """A Python parent that dies without closing (os._exit) takes the host with it.

    The host is first told to ignore its stdin closing, so only the kernel's
    parent-death signal can end it.
    """
    binary, modules = node
    script = f"""
import os, sys
sys.path[:0] = {sys.path!r}
from pathlib import Path
from eutaxy.cloudflare.host import Host
host = Host(node=Path({str(binary)!r}), node_modules=Path({str(modules)!r}), runtime=Path({str(echo_runtime)!r}))
host.request({{"op": "deaf"}}, timeout_s=10)
print(host.pid, flush=True)
os._exit(0)
"""
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert 0 == child.returncode, child.stderr
    assert gone(int(child.stdout.strip()))


def test_the_runtime_is_found_in_the_source_tree():
    """In a checkout the runtime is packages/cloudflare/runtime, beside src/."""
    assert (find_runtime() / "host.mjs").is_file()


def test_the_runtime_override_is_used(monkeypatch, echo_runtime):
    """EUTAXY_CLOUDFLARE_RUNTIME names the directory holding host.mjs, ahead of the others."""
    monkeypatch.setenv("EUTAXY_CLOUDFLARE_RUNTIME", str(echo_runtime))
    assert echo_runtime == find_runtime()


def test_a_runtime_override_without_host_mjs_falls_back(monkeypatch, tmp_path):
    """An override that holds no host.mjs is skipped, and the error lists every place looked."""
    monkeypatch.setenv("EUTAXY_CLOUDFLARE_RUNTIME", str(tmp_path))
    try:
        found = find_runtime()
    except HostError as error:
        assert str(tmp_path) in str(error)
    else:
        assert tmp_path != found


def test_a_node_that_cannot_start_is_a_host_error(tmp_path, echo_runtime):
    """A missing Node binary is reported as the host failing to start, naming the binary."""
    with pytest.raises(HostError, match="could not be started"):
        Host(node=tmp_path / "no-node", node_modules=tmp_path, runtime=echo_runtime)
