"""Stopping ``eutaxy report --prover smt`` while Z3 works leaves nothing behind, and the next run solves again.

The spec folder ``specs_heavy`` holds a claim over ``%`` that Z3 runs on for minutes
whatever its step limit. Each test starts a real report as its own process (in its own
session, with a private TMPDIR and cache), waits until the solver's child process runs,
stops the report as a terminal's Ctrl-C does (SIGINT to the whole process group) or as a
service manager does (SIGTERM to the report alone), and checks the exit code, that no
process of it is left, that TMPDIR holds nothing (no ``eutaxy-eval-*`` folder) and that
the cache holds no answer. A second report with a short deadline then solves the claim
again: UNKNOWN (gave_up) at the deadline, never a replayed interruption.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from process_watch import PATIENCE_S, children, wait_for

SPECS = Path(__file__).parent / "specs_heavy"
def _answers(cache: Path) -> list[str]:
    return sorted(str(p.relative_to(cache)) for p in cache.rglob("*") if p.is_file())


@pytest.mark.parametrize("how, code", [("group-SIGINT", 130), ("SIGTERM", 143)])
def test_a_stopped_report_leaves_no_file_no_answer_and_the_next_run_solves(how, code, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(SPECS, project)
    private_tmp, cache = tmp_path / "tmp", tmp_path / "cache"
    private_tmp.mkdir()
    environment = dict(os.environ, TMPDIR=str(private_tmp), EUTAXY_CACHE_DIR=str(cache),
                       PYTHONPATH=os.pathsep.join(sys.path))
    report = subprocess.Popen([sys.executable, "-m", "eutaxy.cli", "report", "--prover", "smt",
                               "--prover-steps", "4294967295", "--prover-deadline", "3600", "."],
                              cwd=project, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              start_new_session=True)
    try:
        solver = wait_for(lambda: [p for p, command in children(report.pid).items() if b"eutaxy.cli" in command]
                           or report.poll() is not None and [-1], "the solver's child process")
        assert [-1] != solver, report.communicate()
        time.sleep(0.5)  # well inside Z3's work: it runs for minutes
        if how == "group-SIGINT":
            os.killpg(report.pid, signal.SIGINT)
        else:
            report.send_signal(signal.SIGTERM)
        _, stderr = report.communicate(timeout=PATIENCE_S)
    finally:
        if report.poll() is None:
            os.killpg(report.pid, signal.SIGKILL)
            report.wait()
    assert code == report.returncode, stderr.decode()
    assert b"Traceback" not in stderr
    wait_for(lambda: not any(Path(f"/proc/{p}").exists() for p in solver), "the solver's process to end")
    assert [] == sorted(os.listdir(private_tmp))
    assert [] == _answers(cache)

    again = subprocess.run([sys.executable, "-m", "eutaxy.cli", "report", "--json", "--prover", "smt",
                            "--prover-steps", "4294967295", "--prover-deadline", "2", "."],
                           cwd=project, env=environment, capture_output=True, timeout=PATIENCE_S)
    [prop] = json.loads(again.stdout)["modules"][0]["properties"]
    [smt] = prop["engines"]
    assert ("unknown", ["gave_up"]) == (smt["kind"], smt["reasons"]), smt
    assert "wall-clock deadline of 2 s" in smt["detail"]
    assert [] == sorted(os.listdir(private_tmp))
    assert [] == _answers(cache)
