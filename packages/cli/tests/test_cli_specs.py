"""``eutaxy check`` with specs: the ladder runs on the calls the check recorded, beside the verdict.

The stand-in platform (``fake_platform/eutaxy_decidingplatform``) records a Core decision
for ``decideRefund`` (and ``initials`` when the body has a name) in every invocation, as
the Cloudflare runtime records calls into a scenario's spec modules. The spec file is
real TypeScript, read and evaluated by the prover on the pinned Node.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from eutaxy.cli.platforms import register_platform, unregister_platform
from eutaxy.core.errors import UserError

# The refunds project the prover's tests run on too: Bazel puts it on the path
# (//packages/prover:test_support); a checkout finds it beside the prover's tests.
sys.path.append(str(Path(__file__).resolve().parents[2] / "prover" / "tests"))
from prover_support import LONG, LONGER, REFUNDS_DOMAIN, REFUNDS_PROPS

FAKE_PLATFORM_DIR = Path(__file__).parent / "fake_platform"


SCENARIO = '''\
from pathlib import Path

from eutaxy.core.invariants import at_most_once_per_key
from eutaxy.cloudflare import d1_write
from eutaxy_decidingplatform import define_scenario

HERE = Path(__file__).parent

scenario = define_scenario(
    name="refunds",
    mode={mode!r},
    root=str(HERE),
    source=__file__,
    specs={specs!r},
    drive={{"kind": "queue", "name": "payments", "events": [
        {{"id": "msg-1", "body": {{"orderId": "o-1", "amountCents": 600, "name": {long!r}}}}},
        {{"id": "msg-2", "body": {{"orderId": "o-2", "amountCents": 400, "name": {longer!r}}}}},
    ]}},
    invariants=[at_most_once_per_key("one-payment-per-order", d1_write("DB"), "args.params.0")],
    bounds={{"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1,
             "budgetMs": 60000, "faultProbability": 0.9}},
)
'''



@pytest.fixture
def deciding(monkeypatch):
    monkeypatch.syspath_prepend(str(FAKE_PLATFORM_DIR))
    register_platform("decidingplatform", "eutaxy_decidingplatform")
    yield
    unregister_platform("decidingplatform")
    for name in ("eutaxy_decidingplatform", "eutaxy_testplatform"):
        sys.modules.pop(name, None)


@pytest.fixture(scope="module")
def node():
    from eutaxy.cli.provers import node_toolchain

    try:
        return node_toolchain()
    except UserError as error:
        pytest.fail(f"the pinned Node toolchain is needed (eutaxy toolchain install, or EUTAXY_NODE_MODULES): {error}")


def _write(tmp_path, mode="idempotent", specs=("./domain.ts",)):
    (tmp_path / "domain.ts").write_text(REFUNDS_DOMAIN)
    (tmp_path / "domain.props.ts").write_text(REFUNDS_PROPS)
    path = tmp_path / "refunds.sim.py"
    path.write_text(SCENARIO.format(mode=mode, specs=[str(tmp_path / s) for s in specs], long=LONG, longer=LONGER))
    return path


def _check(run_cli, path, *extra):
    return run_cli("check", str(path), "--max-runs", "20", "--budget-ms", "60000", *extra)


def _properties(data):
    return {p["property"]: p for m in data["specs"]["modules"] for p in m["properties"]}


def test_bounded_check_carries_the_ladder_and_a_refuted_spec_fails_it(deciding, node, tmp_path, run_cli):
    """A refuted spec is reported beside BOUNDED; the verdict stands, the exit is 1 (an error at any rung)."""
    path = _write(tmp_path)
    result = _check(run_cli, path, "--json")
    assert 1 == result.code, result.stderr
    data = json.loads(result.stdout)
    assert "bounded" == data["kind"]
    calls = data["coreCalls"]
    assert {"decideRefund", "initials"} == {c["function"] for c in calls}
    assert {"run": 0, "invocation": "msg-1#1", "ordinal": 0} == calls[0]["firstSeen"]
    specs = data["specs"]
    assert "refunds" == specs["seed"] == data["provenance"]["seed"]
    assert "domain.ts" == specs["modules"][0]["module"] and "domain.props.ts" == specs["modules"][0]["spec"]
    props = _properties(data)
    # Both rungs held: TESTED, saying on how many simulator inputs it also held.
    within = props["withinTotal"]
    assert "tested" == within["kind"]
    recorded = sum(1 for c in calls if c["function"] == "decideRefund")
    assert f"also held on {recorded} of the simulator's inputs" in within["detail"]
    # The simulator's call breaks a claim no drawn input breaks: REFUTED at CHECKED, naming the call.
    short = props["shortNames"]
    assert ("refuted", "checked") == (short["kind"], short["rung"])
    assert [LONGER] == short["counterexample"]["call"]["args"]
    assert {"run": 0, "invocation": "msg-2#1", "ordinal": 0} == short["counterexample"]["call"]["firstSeen"]
    # Sampling gave up: CHECKED stands, saying why it is not TESTED.
    long_names = props["longNames"]
    assert ("checked", 1) == (long_names["kind"], long_names["counts"]["checked"])
    assert "not TESTED" in long_names["detail"]
    assert ("unknown", ["unsupported"]) == (props["terminates"]["kind"], props["terminates"]["reasons"])


def test_text_report_has_a_specs_section_after_the_verdict(deciding, node, tmp_path, run_cli):
    path = _write(tmp_path)
    result = _check(run_cli, path)
    assert 1 == result.code, result.stderr  # a spec is refuted
    text = result.stdout
    assert text.startswith("BOUNDED")
    section = text[text.index("\nSpecs ("):]
    assert "then TESTED with seed refunds" in section
    assert "REFUTED  shortNames" in section and "a call the simulator made (first in run 0, msg-2#1" in section
    assert "CHECKED  longNames" in section and "TESTED   withinTotal" in section


def test_violated_check_stays_violated_with_specs(deciding, node, tmp_path, run_cli):
    path = _write(tmp_path, mode="buggy")
    result = _check(run_cli, path, "--json", "--no-regression")
    assert 1 == result.code, result.stderr
    data = json.loads(result.stdout)
    assert "violated" == data["kind"]
    assert "refuted" == _properties(data)["shortNames"]["kind"]
    # The same seed gives the same bytes, ladder included.
    again = _check(run_cli, path, "--json", "--no-regression")
    assert result.stdout == again.stdout


def test_a_module_without_a_spec_file_is_listed_with_nothing_to_check(deciding, node, tmp_path, run_cli):
    path = _write(tmp_path)
    (tmp_path / "domain.props.ts").unlink()
    data = json.loads(_check(run_cli, path, "--json").stdout)
    module = data["specs"]["modules"][0]
    assert (None, []) == (module["spec"], module["properties"])
    assert "no spec file domain.props.ts" in module["detail"]


def test_no_specs_means_no_core_calls_and_no_ladder(deciding, tmp_path, run_cli):
    path = _write(tmp_path, specs=())
    result = _check(run_cli, path, "--json")
    assert 0 == result.code
    data = json.loads(result.stdout)
    assert "coreCalls" not in data and "specs" not in data
    assert "Specs" not in _check(run_cli, path).stdout


def test_a_ladder_that_cannot_find_node_keeps_the_verdict(deciding, tmp_path, run_cli, monkeypatch):
    import eutaxy.cloudflare.toolchain as toolchain

    def missing(*, install=True):
        raise toolchain.ToolchainError("the Node toolchain is not installed: run `eutaxy toolchain install`")

    monkeypatch.setattr(toolchain, "find_node_toolchain", missing)
    path = _write(tmp_path)
    result = _check(run_cli, path, "--json")
    assert 0 == result.code, result.stderr
    data = json.loads(result.stdout)
    assert "bounded" == data["kind"]
    assert "the spec ladder could not run: the Node toolchain is not installed" in data["specs"]["error"]
    assert "not checked: the spec ladder could not run" in _check(run_cli, path).stdout


def test_check_prover_smt_runs_the_proven_rung_on_the_scenarios_specs(deciding, node, tmp_path, run_cli,
                                                                       monkeypatch):
    """`eutaxy check --prover smt`: the engine answers beside CHECKED and TESTED, and the ladder folds them."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    path = _write(tmp_path)
    result = _check(run_cli, path, "--json", "--prover", "smt", "--no-cache")
    assert 1 == result.code, result.stderr  # shortNames stays refuted by the simulator's call
    props = _properties(json.loads(result.stdout))
    within = props["withinTotal"]
    assert [("smt", "proven")] == [(e["engine"]["name"], e["kind"]) for e in within["engines"]]
    assert ("proven", "proven") == (within["kind"], within["rung"])
    # The engine cannot read slice(): UNKNOWN (unsupported) beside the refutation, which stands.
    short = props["shortNames"]
    assert ("refuted", "checked") == (short["kind"], short["rung"])
    assert [("smt", "unknown")] == [(e["engine"]["name"], e["kind"]) for e in short["engines"]]
    without = _properties(json.loads(_check(run_cli, path, "--json").stdout))["withinTotal"]
    assert ("tested", None) == (without["kind"], without.get("engines"))


def test_the_ladder_gets_its_node_as_a_value_from_the_one_finder(deciding, node, tmp_path, run_cli, monkeypatch):
    """The CLI finds Node once (eutaxy.cloudflare.toolchain: the environment, else the cache) and hands the
    prover that toolchain; it never writes EUTAXY_NODE_MODULES or EUTAXY_NODE into its own environment."""
    import eutaxy.cloudflare.toolchain as toolchain
    import eutaxy.prover.scenario_specs as scenario_specs

    monkeypatch.delenv("EUTAXY_NODE_MODULES", raising=False)
    monkeypatch.delenv("EUTAXY_NODE", raising=False)
    monkeypatch.setattr(toolchain, "find_node_toolchain",
                        lambda *, install=True: toolchain.NodeToolchain(node.node, node.node_modules))
    handed = []
    real = scenario_specs.run_scenario_specs

    def spy(*args, **kwargs):
        handed.append(kwargs.get("toolchain"))
        return real(*args, **kwargs)

    monkeypatch.setattr(scenario_specs, "run_scenario_specs", spy)
    result = _check(run_cli, _write(tmp_path), "--json")
    assert 1 == result.code, result.stderr  # shortNames is refuted, as in the test above
    assert [node] == handed
    assert "EUTAXY_NODE_MODULES" not in os.environ and "EUTAXY_NODE" not in os.environ
    report = run_cli("report", str(tmp_path), "--json")
    assert 0 == report.code, report.stderr  # the ladder ran (no Node would be 2); TESTED alone refutes nothing here
    assert "EUTAXY_NODE_MODULES" not in os.environ and "EUTAXY_NODE" not in os.environ
