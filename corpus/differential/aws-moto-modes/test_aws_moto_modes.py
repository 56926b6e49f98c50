"""Differential: moto in the handler's process against moto's server, on every AWS planted bug.

The AWS platform serves DynamoDB (and S3, SNS, EventBridge) from moto's backends in the
handler's own process by default, and from moto's HTTP server beside it when
``EUTAXY_DYNAMODB_ENDPOINT`` is ``moto-server`` (docs/aws.md, "The local DynamoDB"). Both are
the same backends behind the same botocore boundary, so every case, the planted bug and its
fixed twin, must give the same verdict in both, to the byte: its JSON (trace, shrunk schedule,
snapshots, outcomes, assumptions) and its text report. The run cap is the gates' own, so the
verdicts are the gates' verdicts.
"""

import os
from pathlib import Path

import pytest

from eutaxy.aws import create_platform
from eutaxy.aws.local import ENDPOINT_ENV, MOTO_SERVER
from eutaxy.core.canonical import to_json
from eutaxy.engine.check import check_scenario
from eutaxy.engine.scenario_file import import_scenario
from eutaxy.report.text import render_text

#: The planted bugs, beside this folder (the runfiles tree under Bazel, not resolved).
PLANTED = Path(os.path.abspath(__file__)).parents[2] / "planted-bugs"
CASES = sorted(path.name for path in PLANTED.glob("aws-*") if path.is_dir())
#: The gates' run cap; wall time never decides (the budget is generous).
RUNS_MAX = 200
BUDGET_MS = 600_000


def _scenarios(case):
    return [PLANTED / case / f"{case}.sim.py", PLANTED / case / "fixed" / f"{case}.sim.py"]


def _check(path, server, monkeypatch):
    if server:
        monkeypatch.setenv(ENDPOINT_ENV, MOTO_SERVER)
    else:
        monkeypatch.delenv(ENDPOINT_ENV, raising=False)
    scenario = import_scenario(path)
    platform = create_platform(scenario)
    try:
        seed = Path(path).name.removesuffix(".sim.py")
        return check_scenario(scenario, platform, seed=seed, max_runs=RUNS_MAX, budget_ms=BUDGET_MS)
    finally:
        platform.close()


def test_every_aws_case_is_here():
    assert len(CASES) >= 7, CASES


@pytest.mark.parametrize("case", CASES)
def test_in_process_and_server_give_the_same_verdict(case, monkeypatch):
    for path, expected in zip(_scenarios(case), ("violated", "bounded")):
        in_process = _check(path, False, monkeypatch)
        server = _check(path, True, monkeypatch)
        assert expected == in_process["kind"], (path, in_process.get("cause"))
        assert to_json(server) == to_json(in_process), path
        assert render_text(server) == render_text(in_process), path
