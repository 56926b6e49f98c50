"""A frozen runtime is named as Eutaxy's (runtime_unresponsive), never the Worker's CPU loop.

workerd is stopped with SIGSTOP before a run of a Worker that loops nowhere: the host's
watchdog sees no progress, reads workerd's state, restarts it and answers the run UNSUPPORTED
``runtime_unresponsive``; the check that follows runs on the restarted workerd.
"""

import os
import signal
from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, load_scenario
from eutaxy.cloudflare.host import session_processes
from eutaxy.engine.check import check_scenario

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "planted-bugs" / "queue-duplicate-write"
BUGGY = CORPUS / "queue-duplicate-write.sim.py"

pytestmark = pytest.mark.usefixtures("toolchain")


class Stopping:
    """The platform, with workerd stopped (SIGSTOP) before its first run."""

    def __init__(self, platform):
        self.platform = platform
        self.stopped = False

    def run(self, plan):
        if not self.stopped:
            self.stopped = True
            victims = [pid for pid, name in session_processes(self.platform._host.pid).items() if name == "workerd"]
            assert victims, "no workerd in the host's session"
            for pid in victims:
                os.kill(pid, signal.SIGSTOP)
        return self.platform.run(plan)

    def describe(self):
        return self.platform.describe()

    def close(self):
        self.platform.close()


def test_a_stopped_workerd_is_runtime_unresponsive_not_the_workers_loop():
    scenario = load_scenario(BUGGY)
    # The hang bound, and so the watchdog's wait, short: 1 s plus the 5 s floor.
    scenario = {**scenario, "bounds": {**scenario["bounds"], "effectHangMs": 1000}}
    platform = Stopping(create_platform(scenario))
    try:
        verdict = check_scenario(scenario, platform, seed="frozen", max_runs=3)
    finally:
        platform.close()
    assert "unsupported" == verdict["kind"], verdict["kind"]
    assert "runtime_unresponsive" == verdict["cause"]["kind"]
    assert "was stopped (state T: SIGSTOP, or a debugger)" in verdict["cause"]["detail"]
    assert "workerd was restarted" in verdict["cause"]["detail"]
