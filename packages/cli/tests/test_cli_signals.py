"""Stopping ``eutaxy check`` from outside leaves nothing of the check behind.

Each test starts a real check (the bad-input corpus's good Worker, with a budget far longer
than the test) as its own process with a private TMPDIR, waits until its Node host and
workerd run, stops it (Ctrl-C, SIGTERM, or SIGKILL, which Python cannot catch), and checks
that no process of the host's session runs, the private TMPDIR is as empty as before, and
/dev/shm holds no work directory of that host.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eutaxy.cloudflare.host import find_node, session_processes

BASE = Path(__file__).parent / "bad_inputs" / "base" / "cloudflare"
#: How long the test waits for a state it polls for (the host up, the processes gone).
PATIENCE_S = 120


def _wait_for(condition, what):
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.05)
    pytest.fail(f"gave up waiting for {what}")


def _host_of(pid):
    """The Node host the check started: a child of it running host.mjs, once workerd runs in its session."""
    for entry in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(entry).read_text()
            command = Path(entry).with_name("cmdline").read_bytes()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()
        if int(fields[1]) == pid and b"host.mjs" in command:
            host = int(text.split()[0])
            if "workerd" in session_processes(host).values():
                return host
    return None


@pytest.mark.parametrize("how, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -9)])
def test_a_stopped_check_leaves_no_process_and_no_folder(how, code, tmp_path, toolchain):
    project = tmp_path / "project"
    shutil.copytree(BASE, project)
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    environment = dict(os.environ, TMPDIR=str(private_tmp), PYTHONPATH=os.pathsep.join(sys.path))
    environment.setdefault("EUTAXY_NODE_MODULES", str(find_node(install=False)[1]))
    check = subprocess.Popen(
        [sys.executable, "-m", "eutaxy.cli", "check", "scenario.sim.py", "--budget-ms", "3600000", "--no-regression"],
        cwd=project, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        host = _wait_for(lambda: _host_of(check.pid) or check.poll() is not None and -1, "the check's host and workerd")
        assert host != -1, check.communicate()
        check.send_signal(how)
        _, stderr = check.communicate(timeout=PATIENCE_S)
    finally:
        if check.poll() is None:
            check.kill()
            check.wait()
    assert code == check.returncode, stderr.decode()
    assert b"Traceback" not in stderr
    _wait_for(lambda: not session_processes(host), "the host's processes to end")
    _wait_for(lambda: not glob.glob(f"/dev/shm/eutaxy-host-{host}-*"), f"the /dev/shm folder of host {host} to go: {glob.glob(f'/dev/shm/eutaxy-host-{host}-*')}")
    assert [] == sorted(os.listdir(private_tmp))
