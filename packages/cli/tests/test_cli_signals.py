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
from pathlib import Path

import pytest

from eutaxy.cloudflare.host import find_node, session_processes
from process_watch import PATIENCE_S, children, wait_for

BASE = Path(__file__).parent / "bad_inputs" / "base" / "cloudflare"
def _host_of(pid):
    """The Node host the check started: a child of it running host.mjs, once workerd runs in its session."""
    for host, command in children(pid).items():
        if b"host.mjs" in command and "workerd" in session_processes(host).values():
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
        host = wait_for(lambda: _host_of(check.pid) or check.poll() is not None and -1, "the check's host and workerd")
        assert host != -1, check.communicate()
        check.send_signal(how)
        _, stderr = check.communicate(timeout=PATIENCE_S)
    finally:
        if check.poll() is None:
            check.kill()
            check.wait()
    assert code == check.returncode, stderr.decode()
    assert b"Traceback" not in stderr
    wait_for(lambda: not session_processes(host), "the host's processes to end")
    left = f"/dev/shm/eutaxy-host-{host}-*"
    wait_for(lambda: not glob.glob(left), f"the /dev/shm folder of host {host} to go: {glob.glob(left)}")
    assert [] == sorted(os.listdir(private_tmp))
