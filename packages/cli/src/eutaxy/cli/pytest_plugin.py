"""The pytest plugin: every ``*.sim.py`` under pytest's paths is a test, one item per scenario.

Registered through the ``pytest11`` entry point of the ``eutaxy`` distribution, so an
installed Eutaxy is active in every pytest run (``-p eutaxy.cli.pytest_plugin`` loads it
where plugin autoloading is off). Each scenario runs as ``eutaxy check`` does: BOUNDED
passes; VIOLATED fails with the text report and the path of the regression test written
beside the scenario; UNSUPPORTED fails with its cause (a check that proves nothing is never
a pass, nor a skip). A scenario file that does not load is a collection error naming it.

The platform starts once per scenario file (when its first item runs) and stops after its
last one. ``--eutaxy-seed``, ``--eutaxy-max-runs`` and ``--eutaxy-budget-ms`` win over the
project config, which wins over the scenario's bounds, as on the command line. Items carry
the ``eutaxy`` marker: ``-m eutaxy`` runs the scenarios alone, ``-m "not eutaxy"`` the rest.
Only ``*.sim.py`` files become scenario items; other files are left to pytest as usual.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eutaxy.cli.arguments import budget_ms, max_runs

__all__ = ["ScenarioFailure", "ScenarioFile", "ScenarioItem"]

SUFFIX = ".sim.py"


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


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(SUFFIX):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


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
            return
        text = render_text(verdict)
        if kind == "violated":
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
        return f"Regression test written: {written}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ScenarioFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"scenario {self.name}"


def _first(*values: Any) -> Any:
    return next((value for value in values if value is not None), None)
