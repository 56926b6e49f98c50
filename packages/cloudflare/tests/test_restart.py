"""A crashed runtime is restarted and the check finishes; nothing of the check is left behind.

These tests kill workerd and the Node host between runs of a real check (the platform is
wrapped so the kill comes before a chosen run, which keeps them deterministic) and compare
the verdict with an undisturbed check of the same seed and max_runs: it must be the same,
byte for byte, apart from the restarts its provenance states. Afterwards no process of any
host the check started runs, and none of their work directories is left.
"""

import glob
import os
import signal
import time
from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, load_scenario
from eutaxy.cloudflare.host import HostError, session_processes
from eutaxy.core.canonical import to_json
from eutaxy.engine.check import check_scenario

CORPUS = Path(__file__).resolve().parents[3] / "corpus" / "planted-bugs" / "queue-duplicate-write"
BUGGY = CORPUS / "queue-duplicate-write.sim.py"
SEED = "queue-duplicate-write"
RUNS_MAX = 8

pytestmark = pytest.mark.usefixtures("toolchain")


class Killing:
    """The platform, with a kill before chosen runs: ``{run number: "workerd" or "node"}``."""

    def __init__(self, platform, kills):
        self.platform = platform
        self.kills = dict(kills)
        self.calls = 0
        #: Every host pid seen, to check afterwards that nothing of them is left.
        self.hosts = set()

    def run(self, plan):
        self.calls += 1
        host = self.platform._host
        self.hosts.add(host.pid)
        what = self.kills.pop(self.calls, None)
        if what is not None:
            _kill(host.pid, what)
        result = self.platform.run(plan)
        self.hosts.add(self.platform._host.pid if self.platform._host is not None else host.pid)
        return result

    def describe(self):
        return self.platform.describe()

    def close(self):
        self.platform.close()


def _kill(host_pid, what):
    if what == "node":
        victims = [host_pid]
    else:
        victims = [pid for pid, name in session_processes(host_pid).items() if name == "workerd"]
    assert victims, f"no {what} process in the host's session"
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    # Dead before the next request goes out, so the kill always lands "mid-check".
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(pid in session_processes(host_pid) for pid in victims):
        time.sleep(0.01)


def _left_behind(host_pids):
    processes = {pid: name for host in host_pids for pid, name in session_processes(host).items()}
    directories = [
        path
        for host in host_pids
        for base in ("/dev/shm", os.environ.get("TMPDIR", "/tmp"))
        for path in glob.glob(os.path.join(base, f"eutaxy-host-{host}-*"))
    ]
    return processes, directories


def _without_restarts(verdict):
    provenance = dict(verdict["provenance"])
    provenance.pop("restarts", None)
    return to_json(dict(verdict, provenance=provenance))


@pytest.fixture(scope="module")
def scenario():
    return load_scenario(BUGGY)


@pytest.fixture(scope="module")
def undisturbed(scenario):
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, seed=SEED, max_runs=RUNS_MAX, budget_ms=600_000)


def test_killing_workerd_then_the_host_gives_the_undisturbed_verdict(scenario, undisturbed):
    """Two restarts (workerd, then Node) and the same verdict and JSON; the provenance says what died."""
    killing = Killing(create_platform(scenario), {2: "workerd", 3: "node"})
    try:
        verdict = check_scenario(scenario, killing, seed=SEED, max_runs=RUNS_MAX, budget_ms=600_000)
    finally:
        killing.close()
    assert "violated" == undisturbed["kind"]
    assert killing.calls > 3, "the check ended before both kills"
    assert _without_restarts(undisturbed) == _without_restarts(verdict)
    restarts = verdict["provenance"]["restarts"]
    assert 2 == len(restarts)
    assert "workerd" in restarts[0] and "during run 2" in restarts[0]
    assert "the Node host" in restarts[1] and "killed by SIGKILL" in restarts[1]
    assert ([], []) == tuple(map(sorted, _left_behind(killing.hosts)))


def test_a_third_death_stops_the_check_saying_what_died(scenario):
    """At most two restarts: the third death is a HostError naming it and the earlier ones."""
    killing = Killing(create_platform(scenario), {1: "workerd", 2: "workerd", 3: "node"})
    try:
        with pytest.raises(HostError, match=r"the Node host \(pid \d+\) was killed by SIGKILL during run 3, after 2 restarts"):
            check_scenario(scenario, killing, seed=SEED, max_runs=RUNS_MAX, budget_ms=600_000)
    finally:
        killing.close()
    assert ([], []) == tuple(map(sorted, _left_behind(killing.hosts)))
