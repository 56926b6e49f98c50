"""The Worker is built as wrangler builds it, and each fixture under bundling/ runs in workerd.

Each fixture's Worker writes one D1 row that summarises what its imports gave it; the check
passes only when the row is the one wrangler's build gives: text modules are strings, a
`.bin` an ArrayBuffer, a `.wasm` a WebAssembly.Module, a dependency's `browser` field maps
its entry, decorators (legacy per tsconfig, or standard) are compiled as esbuild compiles
them, a tsconfig `paths` alias resolves, and under nodejs_compat a bare built-in name
(`path`) is workerd's module.
"""

import shutil
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_least_once, create_platform, d1_param, d1_schema, d1_write, define_scenario, http
from eutaxy.engine.check import check_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

FIXTURES = Path(__file__).parent / "bundling"


def project(tmp_path: Path, name: str) -> Path:
    """A copy of fixture ``name``, its ``vendor/`` folder as ``node_modules/``."""
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    if (root / "vendor").is_dir():
        (root / "vendor").rename(root / "node_modules")
    return root


def check_summary(root: Path, summary: str) -> dict:
    scenario = define_scenario(
        name=root.name,
        root=root,
        source=root / "built.sim.py",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=http([{"path": "/"}]),
        invariants=[at_least_once("summary-recorded", d1_write("DB"), d1_param(0), [summary])],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, max_runs=1, module_state_runs=0)


@pytest.mark.parametrize(
    ("fixture", "summary"),
    [
        ("text_modules", "html | md | txt | bin 1,2,3 | wasm 5"),
        ("browser_field", "browser"),
        ("decorators_legacy", "hello legacy via Agent.greet"),
        ("decorators_standard", "hello standard via greet"),
        ("nodejs_compat", "a/b 6869"),
    ],
)
def test_the_fixture_runs_as_wrangler_builds_it(tmp_path, fixture, summary):
    verdict = check_summary(project(tmp_path, fixture), summary)
    assert verdict["kind"] == "bounded", verdict.get("cause") or verdict.get("violation")
