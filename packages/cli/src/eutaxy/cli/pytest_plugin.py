"""The pytest plugin: every ``*.sim.py`` under pytest's paths is a test, one item per scenario.

Registered through the ``pytest11`` entry point of the ``eutaxy`` distribution, so an
installed Eutaxy is active in every pytest run (``-p eutaxy.cli.pytest_plugin`` loads it
where plugin autoloading is off). Each scenario runs as ``eutaxy check`` does: BOUNDED
passes; VIOLATED fails with the text report and the path of the regression test written
beside the scenario; UNSUPPORTED fails with its cause (a check that proves nothing is never
a pass, nor a skip). A scenario file that does not load is a collection error naming it.

The platform starts once per scenario file (when its first item runs) and stops after its
last one. A platform package that can keep its hosts across platforms (``reuse_hosts``:
``eutaxy.cloudflare`` keeps one Node host and loads each Worker into it in turn) does so
for the whole session, so the session pays Node's start once, not once per scenario.
``--eutaxy-seed``, ``--eutaxy-max-runs`` and ``--eutaxy-budget-ms`` win over the
project config, which wins over the scenario's bounds, as on the command line. Items carry
the ``eutaxy`` marker: ``-m eutaxy`` runs the scenarios alone, ``-m "not eutaxy"`` the rest.
Only ``*.sim.py`` files become scenario items; other files are left to pytest as usual.

A failure fits pytest's one-line summary: a violation's line starts with the invariant and
its key (``payment-recorded-once: "o-2" twice``), in place of the word FAILED; the report
follows in the failure's section. The regression test a violation writes beside its scenario
(``<name>_regression_test.py``) is left out of collection while its scenario sits beside it:
the scenario's item replays it once its check comes out BOUNDED, so each run collects the
same items and runs each regression test exactly once (given on the command line, or with the
plugin off, pytest collects it itself). A regression test that fails (``expect_holds``) shows
the broken invariants, the replayed trace and the command that runs it, not Eutaxy's frames.
Under pytest-xdist (``-n``) each worker starts its own hosts.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

from eutaxy.cli.arguments import budget_ms, max_runs

__all__ = ["ScenarioFailure", "ScenarioFile", "ScenarioItem"]

SUFFIX = ".sim.py"
#: The name of the user property that carries a failure's one-line headline to the summary
#: (a property, so it travels with the report from a pytest-xdist worker).
HEADLINE = "eutaxy-headline"
REGRESSION_SUFFIX = "_regression_test.py"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("eutaxy", "Eutaxy scenarios (*.sim.py)")
    group.addoption("--eutaxy-seed", metavar="SEED", default=None,
                    help="the exploration seed for every scenario (default: the config, else the file's name)")
    group.addoption("--eutaxy-max-runs", metavar="N", type=max_runs, default=None,
                    help="stop each scenario after N runs (default: the config, else bounds.maxRuns)")
    group.addoption("--eutaxy-budget-ms", metavar="MS", type=budget_ms, default=None,
                    help="wall-time budget per scenario (default: the config, else bounds.budgetMs)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "eutaxy: a scenario (*.sim.py) checked by Eutaxy")


#: The platform packages whose hosts are kept for the session (``reuse_hosts``), left at its end.
_KEPT_HOSTS = pytest.StashKey[tuple[contextlib.ExitStack, set[str]]]()


def _keep_hosts(config: pytest.Config, module: Any) -> None:
    """Enter ``module.reuse_hosts()`` for the rest of the session, once per platform package that has it."""
    reuse = getattr(module, "reuse_hosts", None)
    if reuse is None:
        return
    stack, entered = config.stash.setdefault(_KEPT_HOSTS, (contextlib.ExitStack(), set()))
    if module.__name__ not in entered:
        entered.add(module.__name__)
        stack.enter_context(reuse())


def pytest_unconfigure(config: pytest.Config) -> None:
    kept = config.stash.get(_KEPT_HOSTS, None)
    if kept is not None:
        kept[0].close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(SUFFIX):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A scenario named on the command line is no test module too (pytest imports every ``.py`` named)."""
    if module_path.name.endswith(SUFFIX):
        return _NoModule.from_parent(parent, path=module_path)
    return None


class _NoModule(pytest.File):
    """Where pytest's Python collection would import a scenario file as a test module: nothing."""

    def collect(self) -> list[pytest.Item]:
        return []


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A regression test beside its scenario is the scenario item's to replay, not one more item."""
    if _scenario_of(collection_path) is not None:
        return True
    return None


def _scenario_of(test_path: Path) -> Path | None:
    """The scenario beside ``test_path`` whose regression test it is, or None."""
    if not test_path.name.endswith(REGRESSION_SUFFIX):
        return None
    from eutaxy.report.regression import regression_test_path

    for scenario in sorted(test_path.parent.glob("*" + SUFFIX)):
        if regression_test_path(scenario) == test_path:
            return scenario
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failed ``expect_holds`` (a regression test) is shown as its replay, with the command that runs it."""
    from eutaxy.engine.check import ReplayFailure

    report = yield
    error = call.excinfo.value if call.excinfo is not None else None
    if report.failed and call.when == "call" and isinstance(error, ReplayFailure):
        from eutaxy.report.text import render_replay, violation_headline

        from eutaxy.cli.check_command import regression_command

        violations = error.replayed.get("violations") or []
        text = render_replay(error.replayed, scenario=error.scenario, platform=error.platform, kept_events=error.events)
        if not violations:
            text = str(error) + "\n"
        ran = getattr(item, "regression_test", None) or item.path
        report.longrepr = text + f"\nRun it: {regression_command(_shown_path(ran))}\n"
        if violations:
            report.user_properties.append((HEADLINE, violation_headline(violations[0])))
    return report


def _is_replay_failure(error: BaseException | None) -> bool:
    from eutaxy.engine.check import ReplayFailure

    return isinstance(error, ReplayFailure)


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Any:
    """A violation's summary line starts with the invariant and its key, in the failure's red."""
    if report.when == "call" and report.failed:
        headline = next((value for name, value in report.user_properties if name == HEADLINE), None)
        if headline:
            return "failed", "F", (headline, {"red": True, "bold": True})
    return None


def _shown_path(path: Path) -> Path:
    """The path relative to the directory pytest runs in, when it is under it."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


class ScenarioFailure(Exception):
    """A scenario that did not come out BOUNDED; the message is the whole report."""


class ScenarioFile(pytest.File):
    """One ``*.sim.py``: its scenario is loaded at collection; the platform starts at setup."""

    def collect(self):
        from eutaxy.engine.scenario_file import import_scenario

        from eutaxy.core.errors import UserError

        try:
            self.scenario = import_scenario(self.path)
        except UserError as error:
            raise self.CollectError(f"{self.path}: {error}") from None
        self.platform = None
        item = ScenarioItem.from_parent(self, name=str(self.scenario.get("name") or self.path.name[: -len(SUFFIX)]))
        item.add_marker("eutaxy")
        yield item

    def setup(self) -> None:
        from eutaxy.cli.platforms import import_platform
        from eutaxy.engine.scenario_file import locate

        from eutaxy.core.errors import UserError

        module = import_platform(self.scenario["platform"])
        _keep_hosts(self.config, module)
        try:
            self.platform = module.create_platform(self.scenario)
        except UserError as error:
            raise locate(self.scenario, error) from None

    def teardown(self) -> None:
        if self.platform is not None:
            self.platform.close()
            self.platform = None


class ScenarioItem(pytest.Item):
    def runtest(self) -> None:
        from eutaxy.engine.check import check_scenario
        from eutaxy.engine.scenario import scenario_stem
        from eutaxy.engine.scenario_file import locate
        from eutaxy.report.text import render_text

        from eutaxy.cli.config import config_for
        from eutaxy.core.errors import UserError

        parent: ScenarioFile = self.parent  # type: ignore[assignment]
        options = self.config.option
        project = config_for(self.path)
        try:
            verdict = check_scenario(
                parent.scenario,
                parent.platform,
                seed=_first(options.eutaxy_seed, project.seed, scenario_stem(self.path)),
                max_runs=_first(options.eutaxy_max_runs, project.max_runs),
                budget_ms=_first(options.eutaxy_budget_ms, project.budget_ms),
            )
        except UserError as error:
            raise ScenarioFailure(f"{self.path}: {locate(parent.scenario, error)}") from None
        kind = verdict.get("kind")
        if kind == "bounded":
            self._replay_regression_test()
            return
        text = render_text(verdict)
        if kind == "violated":
            from eutaxy.report.text import violation_headline

            self.user_properties.append((HEADLINE, violation_headline(verdict["violation"])))
            raise ScenarioFailure(text + "\n" + self._write_regression(verdict))
        if kind == "unsupported":
            raise ScenarioFailure(text)
        raise ScenarioFailure(f"the engine returned a verdict of unknown kind {kind!r} (a bug in Eutaxy)")

    def _write_regression(self, verdict: dict) -> str:
        from eutaxy.report.regression import write_regression_test

        from eutaxy.cli.platforms import platform_module_name

        platform_name = self.parent.scenario["platform"]  # type: ignore[attr-defined]
        chosen = platform_module_name(platform_name)
        try:
            written = write_regression_test(verdict, self.path, platform_name,
                                            module=None if chosen == f"eutaxy.{platform_name}" else chosen)
        except OSError as error:
            return f"Regression test not written (could not write it: {error})."
        from eutaxy.cli.check_command import regression_command

        return f"Regression test written: {written}\nRun it: {regression_command(_shown_path(written))}"

    def _replay_regression_test(self) -> None:
        """Runs the ``test_*`` functions of the regression test beside the scenario, if there is one.

        Left out of collection (``pytest_ignore_collect``), it runs here once the check passes:
        a fixed bug's pinned schedule must hold too. A failure is this item's, shown as its replay.
        """
        from eutaxy.report.regression import regression_test_path

        __tracebackhide__ = True
        test_path = regression_test_path(self.path)
        if not test_path.is_file():
            return
        self.regression_test = test_path
        spec = importlib.util.spec_from_file_location(f"eutaxy_regression_{abs(hash(os.fspath(test_path)))}", test_path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for name in sorted(vars(module)):
            if name.startswith("test_") and callable(getattr(module, name)):
                try:
                    getattr(module, name)()
                except AssertionError as error:
                    if _is_replay_failure(error):
                        raise
                    from eutaxy.cli.check_command import regression_command

                    raise ScenarioFailure(f"The regression test {test_path} fails: {error}\n"
                                          f"Run it: {regression_command(_shown_path(test_path))}") from None

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ScenarioFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"scenario {self.name}"


def _first(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)
