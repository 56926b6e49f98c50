"""Fixtures for the CLI's tests: a stand-in platform and scenario files written per test.

The stand-in (``fake_platform/eutaxy_testplatform``) is put on ``sys.path`` and registered
as platform ``testplatform`` through the CLI's documented hook, only for the test that
asks for it; nothing is installed.
"""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

from eutaxy.cli.main import main
from eutaxy.cli.platforms import register_platform, unregister_platform

# The workerd tests' shared fixtures: Bazel puts them on the path (//packages/cloudflare:test_support);
# a run from a checkout finds them in the Cloudflare package's tests folder.
sys.path.append(str(Path(__file__).resolve().parents[2] / "cloudflare" / "tests"))
from workerd_support import toolchain as toolchain

FAKE_PLATFORM_DIR = Path(__file__).parent / "fake_platform"

SCENARIO_TEMPLATE = '''\
from pathlib import Path

from eutaxy.core.invariants import at_most_once_per_key
from eutaxy.cloudflare import d1_write
from eutaxy_testplatform import define_scenario

scenario = define_scenario(
    name={name!r},
    mode={mode!r},
    root=str(Path(__file__).parent),
    source=__file__,
    drive={{"kind": "queue", "name": "payments",
            "events": [{{"id": "msg-1", "body": {{"orderId": "o-1", "amountCents": 1200}}}}]}},
    invariants=[at_most_once_per_key("one-payment-per-order", d1_write("DB"), "args.params.0")],
    bounds={{"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1,
             "budgetMs": 60000, "faultProbability": 0.9}},
)
'''


class Result:
    def __init__(self, code: int, stdout: str, stderr: str) -> None:
        self.code = code
        self.stdout = stdout
        self.stderr = stderr


class TerminalStream(io.StringIO):
    """stderr as a terminal would be, to see the progress line."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def terminal():
    return TerminalStream()


@pytest.fixture
def testplatform(monkeypatch):
    monkeypatch.syspath_prepend(str(FAKE_PLATFORM_DIR))
    register_platform("testplatform", "eutaxy_testplatform")
    import eutaxy_testplatform

    eutaxy_testplatform.RUNS.clear()
    eutaxy_testplatform.HOLDS.clear()
    yield eutaxy_testplatform
    unregister_platform("testplatform")
    sys.modules.pop("eutaxy_testplatform", None)


@pytest.fixture
def write_scenario(tmp_path):
    def write(mode: str, *, name: str = "pay-once", file_name: str | None = None, text: str | None = None) -> Path:
        path = tmp_path / (file_name or f"{name}.sim.py")
        path.write_text(text if text is not None else SCENARIO_TEMPLATE.format(name=name, mode=mode))
        return path

    return write


@pytest.fixture
def copy_example(tmp_path, toolchain):
    """Copy an example folder beside the tests (``env_e2e``, ...) to a fresh folder; the workerd
    tests that check one need the pinned toolchain, so this fixture asks for it."""
    def copy(name: str) -> Path:
        folder = tmp_path / name
        shutil.copytree(Path(__file__).parent / name, folder)
        return folder
    return copy


@pytest.fixture
def run_cli():
    def run(*argv: str, stderr: io.StringIO | None = None) -> Result:
        out = io.StringIO()
        err = stderr if stderr is not None else io.StringIO()
        code = main(list(argv), stdout=out, stderr=err)
        return Result(code, out.getvalue(), err.getvalue())

    return run
