"""``eutaxy check``: verdict, report, exit code and the regression test, end to end.

These tests run the real engine over a stand-in platform that speaks the run protocol
(``fake_platform/eutaxy_testplatform``), so every exit code comes from a real verdict.
"""

from __future__ import annotations

import ast
import json

import pytest

from eutaxy.cli.main import main
from eutaxy.engine.scenario_file import import_scenario


def _args(path, *extra):
    return ("check", str(path), "--max-runs", "40", "--budget-ms", "60000", *extra)


def test_violation_exits_1_prints_the_story_and_writes_the_regression_test(testplatform, write_scenario, run_cli):
    """A plain insert redelivered after crash_after breaks at_most_once_per_key."""
    path = write_scenario("buggy")
    result = run_cli(*_args(path))
    assert 1 == result.code, result.stderr
    assert result.stdout.startswith("VIOLATED")
    assert "one-payment-per-order" in result.stdout
    assert "!! crash_after" in result.stdout or "!! ambiguous" in result.stdout
    test_file = path.with_name("pay_once_regression_test.py")
    assert f"Regression test written: {test_file}" in result.stdout
    source = test_file.read_text()
    ast.parse(source)
    assert "from eutaxy_testplatform import expect_holds" in source
    assert [] == [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")]


def test_the_text_report_prints_the_command_that_runs_the_regression_test(testplatform, write_scenario, run_cli, tmp_path):
    """One line, text only: pytest under eutaxy's own interpreter; run as printed, it fails while the bug exists."""
    import os
    import shlex
    import subprocess
    import sys

    from conftest import FAKE_PLATFORM_DIR

    path = write_scenario("buggy")
    result = run_cli(*_args(path))
    test_file = path.with_name("pay_once_regression_test.py")
    lines = [line for line in result.stdout.splitlines() if line.startswith("Run it: ")]
    assert [f"Run it: {shlex.join([sys.executable, '-m', 'pytest', str(test_file)])}"] == lines
    assert "Run it" not in run_cli(*_args(path, "--json")).stdout
    pythonpath = os.pathsep.join([str(FAKE_PLATFORM_DIR), *sys.path])
    ran = subprocess.run(
        [*shlex.split(lines[0].removeprefix("Run it: ")), "-p", "no:cacheprovider", "-q"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": pythonpath}, capture_output=True, text=True, timeout=300,
    )
    assert 1 == ran.returncode, ran.stdout + ran.stderr
    assert "1 failed" in ran.stdout


def test_the_regression_test_is_written_with_the_umask(testplatform, write_scenario, run_cli):
    """Not mkstemp's 0600: the mode the process's umask gives any new file (0644 under 022)."""
    import os
    import stat

    path = write_scenario("buggy")
    previous = os.umask(0o022)
    try:
        assert 1 == run_cli(*_args(path)).code
    finally:
        os.umask(previous)
    assert 0o644 == stat.S_IMODE(path.with_name("pay_once_regression_test.py").stat().st_mode)


def test_written_regression_test_replays_through_expect_holds(testplatform, write_scenario, run_cli):
    """The emitted test calls expect_holds with the scenario, schedule, kept events and seed."""
    path = write_scenario("buggy")
    assert 1 == run_cli(*_args(path, "--json")).code
    verdict = json.loads(run_cli(*_args(path, "--json", "--no-regression")).stdout)
    namespace: dict = {"__file__": str(path.with_name("pay_once_regression_test.py"))}
    exec(compile(path.with_name("pay_once_regression_test.py").read_text(), "regression", "exec"), namespace)
    try:
        namespace["test_pay_once_regression"]()
        raise AssertionError("the regression test passed while the bug exists")
    except AssertionError as error:
        assert "1 invariant(s) broken when replaying pay-once" in str(error)
    call = testplatform.HOLDS[-1]
    assert str(path) == call["path"]
    assert verdict["schedule"] == call["schedule"]
    assert verdict["keptEvents"] == call["events"]
    assert "pay-once" == call["seed"]


@pytest.mark.parametrize(
    ("behaviour", "code", "headline", "words"),
    [("idempotent", 0, "BOUNDED", "bounded, not verified"), ("ai", 2, "UNSUPPORTED", "binding_not_allowed")],
)
def test_bounded_exits_0_and_unsupported_2_and_neither_writes(testplatform, write_scenario, run_cli, behaviour, code, headline, words):
    """An idempotent insert holds within the bounds: BOUNDED, exit 0, "not verified". A run
    touching an uncontrolled binding is UNSUPPORTED with its cause, exit 2. Nothing is written."""
    path = write_scenario(behaviour)
    result = run_cli(*_args(path))
    assert code == result.code, result.stderr
    assert result.stdout.startswith(headline)
    assert words in result.stdout
    assert not list(path.parent.glob("*_regression_test.py"))


def test_json_is_one_canonical_object_and_equal_seeds_give_equal_bytes(testplatform, write_scenario, run_cli):
    """--json prints one canonical object with schemaVersion and kind; reruns are byte-identical."""
    path = write_scenario("buggy")
    first = run_cli(*_args(path, "--json", "--seed", "s1"))
    second = run_cli(*_args(path, "--seed", "s1", "--json"))
    assert 1 == first.code == second.code
    assert first.stdout == second.stdout
    assert first.stdout.endswith("\n") and first.stdout.count("\n") == 1
    data = json.loads(first.stdout)
    assert 1 == data["schemaVersion"]
    assert "violated" == data["kind"]
    assert "s1" == data["provenance"]["seed"]
    assert data["regressionTest"].endswith("pay_once_regression_test.py")
    assert json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n" == first.stdout


def test_json_stays_one_object_when_the_scenario_prints_at_import(testplatform, write_scenario, capsys):
    """A print at the top of the .sim.py is captured into the report (scenarioOutput), so --json's
    stdout is the verdict alone, and the text report shows it in a section of its own."""
    path = write_scenario("buggy")
    path.write_text('print("hello from the scenario")\n' + path.read_text())
    code = main(list(_args(path, "--json", "--no-regression")))
    captured = capsys.readouterr()
    assert 1 == code
    assert 1 == captured.out.count("\n")
    data = json.loads(captured.out)
    assert "violated" == data["kind"]
    assert "hello from the scenario\n" == data["scenarioOutput"]
    assert "hello from the scenario" not in captured.err
    assert 1 == main(list(_args(path, "--no-regression")))
    text = capsys.readouterr().out
    assert "\nThe scenario file printed:\n  hello from the scenario\n" in text


def test_what_the_scenario_printed_before_its_error_goes_to_stderr(write_scenario, capsys):
    """A scenario that prints and then fails to load: its print is not lost (stderr, before the
    error), and --json's stdout is the one error object."""
    path = write_scenario("buggy")
    path.write_text('print("hello from the scenario")\nundefined_name\n' + path.read_text())
    code = main(list(_args(path, "--json", "--no-regression")))
    captured = capsys.readouterr()
    assert 2 == code
    assert "error" == json.loads(captured.out)["kind"]
    assert captured.err.index("hello from the scenario") < captured.err.index("eutaxy: error:")


def test_no_regression_writes_nothing(testplatform, write_scenario, run_cli):
    """--no-regression reports the violation but leaves the directory as it was."""
    path = write_scenario("buggy")
    before = sorted(p.name for p in path.parent.iterdir())
    result = run_cli(*_args(path, "--no-regression"))
    assert 1 == result.code
    assert "not written (--no-regression)" in result.stdout
    assert before == sorted(p.name for p in path.parent.iterdir())


def test_progress_goes_to_a_terminal_and_is_erased(testplatform, write_scenario, run_cli, terminal):
    """On a terminal stderr shows one progress line updated in place; never under --json."""
    path = write_scenario("idempotent")
    assert 0 == run_cli(*_args(path), stderr=terminal).code
    shown = terminal.getvalue()
    # The engine reports the first run at once and then at intervals; either way one line.
    assert "\n" not in shown
    assert shown.startswith("\r\x1b[Keutaxy: runs ") and shown.endswith("\r\x1b[K")
    assert "faults " in shown and "s budget" in shown
    quiet = type(terminal)()
    assert 0 == run_cli(*_args(path, "--json"), stderr=quiet).code
    assert "" == quiet.getvalue()


def test_bad_scenario_exits_2_with_file_and_line_and_writes_nothing(testplatform, write_scenario, run_cli):
    """An error raised while the scenario file runs is reported at its line."""
    path = write_scenario("buggy", text="x = 1\n\nscenario = undefined_name\n")
    before = sorted(p.name for p in path.parent.iterdir())
    result = run_cli("check", str(path))
    assert 2 == result.code
    assert f"{path}:3:" in result.stderr
    assert "NameError" in result.stderr
    assert "" == result.stdout
    assert before == sorted(p.name for p in path.parent.iterdir())


def test_syntax_error_is_reported_at_its_line(write_scenario, run_cli):
    """A scenario that does not parse names its line; --json prints an error object."""
    path = write_scenario("buggy", text="scenario = {\n  'platform': 'x',\n  oops\n")
    result = run_cli("check", str(path), "--json")
    assert 2 == result.code
    assert f"{path}:" in result.stderr
    data = json.loads(result.stdout)
    assert "error" == data["kind"] and 1 == data["schemaVersion"]
    assert str(path) in data["message"]


def test_import_error_in_the_scenario_names_the_import_line(write_scenario, run_cli):
    """A missing module is reported at the scenario's import statement."""
    path = write_scenario("x", text="import os\nimport eutaxy_no_such_module\nscenario = {}\n")
    result = run_cli("check", str(path))
    assert 2 == result.code
    assert f"{path}:2:" in result.stderr
    assert "ModuleNotFoundError" in result.stderr


def test_scenario_without_a_platform_or_unknown_platform_exits_2(write_scenario, run_cli, monkeypatch):
    """No `scenario`, no platform, or a platform package that is not installed: exit 2."""
    none = write_scenario("x", file_name="none.sim.py", text="value = 1\n")
    assert 2 == run_cli("check", str(none)).code
    bare = write_scenario("x", file_name="bare.sim.py", text="scenario = {'name': 'n'}\n")
    result = run_cli("check", str(bare))
    assert 2 == result.code and "has no platform" in result.stderr
    missing = write_scenario("x", file_name="gone.sim.py", text="scenario = {'platform': 'nowhere'}\n")
    result = run_cli("check", str(missing))
    assert 2 == result.code
    assert "eutaxy.nowhere is not installed" in result.stderr


def test_platform_can_be_mapped_through_the_environment(testplatform, write_scenario, run_cli, monkeypatch):
    """EUTAXY_PLATFORM_MODULES maps a platform name to a module across processes."""
    from eutaxy.cli.platforms import platform_module_name, unregister_platform

    unregister_platform("testplatform")
    monkeypatch.setenv("EUTAXY_PLATFORM_MODULES", "testplatform=eutaxy_testplatform, other=pkg.mod")
    assert "eutaxy_testplatform" == platform_module_name("testplatform")
    assert "pkg.mod" == platform_module_name("other")
    assert "eutaxy.cloudflare" == platform_module_name("cloudflare")
    path = write_scenario("idempotent")
    assert 0 == run_cli(*_args(path)).code
    monkeypatch.setenv("EUTAXY_PLATFORM_MODULES", "broken")
    assert 2 == run_cli(*_args(path)).code


def test_bad_flags_exit_2(write_scenario, run_cli):
    """A non-positive budget or run cap is a usage error, exit 2."""
    path = write_scenario("buggy")
    assert 2 == run_cli("check", str(path), "--max-runs", "0").code
    result = run_cli("check", str(path), "--budget-ms", "soon", "--json")
    assert 2 == result.code
    assert "error" == json.loads(result.stdout)["kind"]


def test_loader_returns_the_scenario_dict(testplatform, write_scenario):
    """The generic loader reads `scenario` and leaves no module behind."""
    import sys

    path = write_scenario("buggy")
    before = set(sys.modules)
    scenario = import_scenario(path)
    assert "testplatform" == scenario["platform"]
    assert "pay-once" == scenario["name"]
    assert not [name for name in set(sys.modules) - before if name.startswith("_eutaxy_cli_scenario_")]


def test_unwritable_directory_keeps_the_verdict(testplatform, write_scenario, run_cli, monkeypatch):
    """When the test cannot be written the violation is still reported, exit 1, with why."""
    import eutaxy.report.regression as regression

    def refuse(*args, **kwargs):
        raise PermissionError("read-only file system")

    monkeypatch.setattr(regression, "write_regression_test", refuse)
    path = write_scenario("buggy")
    result = run_cli(*_args(path))
    assert 1 == result.code
    assert "not written (could not write it: read-only file system)" in result.stdout
    assert "warning" in result.stderr


def test_audit_reruns_the_explored_runs_and_wide_keeps_the_report(testplatform, write_scenario, run_cli):
    """--audit on a deterministic platform passes and says so; --wide is accepted."""
    path = write_scenario("idempotent")
    result = run_cli(*_args(path, "--audit", "--wide"))
    assert 0 == result.code, result.stderr
    assert "every effect log repeated byte for byte" in result.stdout
    verdict = json.loads(run_cli(*_args(path, "--audit", "--json")).stdout)
    assert 0 == verdict["audit"]["differences"]
    assert verdict["coverage"]["points"] and verdict["invariants"][0]["effects"] > 0


def test_an_invariant_that_selects_nothing_exits_2_vacuous(testplatform, write_scenario, run_cli):
    """A selector naming another binding matches nothing in any run: exit 2, vacuous_invariant."""
    path = write_scenario("idempotent")
    path.write_text(path.read_text().replace('d1_write("DB")', 'd1_write("OTHER")'))
    result = run_cli(*_args(path, "--json"))
    assert 2 == result.code, result.stdout + result.stderr
    verdict = json.loads(result.stdout)
    assert "vacuous_invariant" == verdict["cause"]["kind"]
    assert "one-payment-per-order" in verdict["cause"]["detail"] and "D1:DB run result" in verdict["cause"]["detail"]


_NOISY_HANDLER = '''\
"""A payments consumer that prints and logs as Lambda code does, and writes twice when redelivered."""

import json
import logging
import sys
import uuid

import boto3

print("cold start: noisy handler imported")
logging.basicConfig(level=logging.INFO)
structured = logging.getLogger("structured")
structured.addHandler(logging.StreamHandler(sys.stdout))
structured.propagate = False
dynamodb = boto3.client("dynamodb")


def handler(event, context):
    for record in event["Records"]:
        order = json.loads(record["body"])
        print(f"handling {order['orderId']}")
        logging.getLogger().warning("about to write %s", order["orderId"])
        structured.info(json.dumps({"level": "INFO", "orderId": order["orderId"]}))
        dynamodb.put_item(
            TableName="ledger",
            Item={"entry_id": {"S": str(uuid.uuid4())}, "order_id": {"S": order["orderId"]}},
        )
    return {"batchItemFailures": []}
'''

_NOISY_SCENARIO = '''\
from eutaxy.aws import at_most_once_per_key, define_scenario, dynamodb_table, dynamodb_write, handler, sqs

scenario = define_scenario(
    name="noisy-handler",
    handler=handler("./handler.py", "handler"),
    drive=sqs("payments", [{"orderId": "o-1"}]),
    setup=[dynamodb_table("ledger", {"entry_id": "HASH"})],
    invariants=[at_most_once_per_key("ledger-entry-once", dynamodb_write("ledger", "PutItem"), "args.Item.order_id")],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 1},
)
'''


def test_an_aws_handler_that_prints_and_logs_leaves_json_stdout_one_object(tmp_path):
    """Under --json the process's stdout is exactly one JSON object, however the handler writes.

    The handler prints at import and in every invocation, logs through the root logger
    (basicConfig's stream handler) and through a logger holding sys.stdout from import time,
    as structured loggers do. The check runs in a child process, so anything the handler
    wrote to the real stdout would be there; its output is in the trace instead.
    """
    import os
    import subprocess
    import sys

    (tmp_path / "handler.py").write_text(_NOISY_HANDLER)
    (tmp_path / "scenario.sim.py").write_text(_NOISY_SCENARIO)
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(entry for entry in sys.path if entry))
    result = subprocess.run(
        [sys.executable, "-m", "eutaxy.cli", "check", "scenario.sim.py", "--json", "--no-regression",
         "--max-runs", "40", "--budget-ms", "600000"],
        cwd=tmp_path, env=environment, capture_output=True, text=True,
    )
    assert 1 == result.returncode, result.stderr
    assert "Traceback" not in result.stderr
    assert 1 == result.stdout.count("\n") and result.stdout.endswith("\n"), result.stdout
    verdict = json.loads(result.stdout)
    assert "violated" == verdict["kind"]
    outputs = [e for e in verdict["trace"] if e["target"].startswith("Lambda:") and e["op"] == "output"]
    assert outputs, [e["target"] for e in verdict["trace"]]
    text = outputs[0]["payload"]["args"]["text"]
    assert "handling o-1" in text
    assert "about to write o-1" in text
    assert '"orderId": "o-1"' in text
    assert "handling o-1" not in result.stderr


def test_html_writes_one_self_contained_page_with_the_same_bytes_each_time(testplatform, write_scenario, run_cli, tmp_path):
    """--html on a violation writes the timeline page; the same check writes the same bytes."""
    path = write_scenario("buggy")
    pages = []
    for name in ("first.html", "second.html"):
        page = tmp_path / name
        result = run_cli(*_args(path, "--html", str(page)))
        assert 1 == result.code
        pages.append(page.read_text(encoding="utf-8"))
    assert pages[0] == pages[1]
    assert pages[0].startswith("<!DOCTYPE html>")
    assert 'id="timeline"' in pages[0] and 'class="point' in pages[0]
    assert "http" not in pages[0].lower()


@pytest.mark.parametrize("where", ["missing/report.html", "."])
def test_html_to_an_unwritable_path_is_exit_2_before_any_run(testplatform, write_scenario, run_cli, tmp_path, where):
    """--html into a folder that does not exist, or naming a folder, is refused before exploring:
    exit 2 naming the path, and the platform never ran."""
    path = write_scenario("buggy")
    page = tmp_path / where
    result = run_cli(*_args(path, "--html", str(page)))
    assert 2 == result.code, result.stderr
    assert f"--html {page}" in result.stderr and "expected a file path in an existing directory" in result.stderr
    assert [] == testplatform.RUNS
    assert not (tmp_path / "missing").exists() and not path.with_name("pay_once_regression_test.py").exists()
