"""The Worker is built as wrangler builds it, and each fixture under bundling/ runs in workerd.

Each fixture's Worker writes one D1 row that summarises what its imports gave it; the check
passes only when the row is the one wrangler's build gives: text modules are strings, a
`.bin` an ArrayBuffer, a `.wasm` a WebAssembly.Module, a dependency's `browser` field maps
its entry, decorators (legacy per tsconfig, or standard) are compiled as esbuild compiles
them, a tsconfig `paths` alias resolves, and under nodejs_compat a bare built-in name
(`path`) is workerd's module, one workerd lacks is unenv's polyfill, `process` and `performance`
are wrangler's globals (performance.now() still the run's virtual clock) and a CommonJS
dependency's `require()` of a built-in is an import. Imports that cannot resolve because packages are not installed
are named with `npm install` and their first import sites.
"""

import json
import shutil
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_least_once, create_platform, d1_param, d1_schema, d1_write, define_scenario, http
from eutaxy.core.errors import UserError
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
        (
            "nodejs_polyfills",
            "exec function not implemented | perf_hooks function | performance function now 0 | process function release none | cjs a/b function",
        ),
    ],
)
def test_the_fixture_runs_as_wrangler_builds_it(tmp_path, fixture, summary):
    verdict = check_summary(project(tmp_path, fixture), summary)
    assert verdict["kind"] == "bounded", verdict.get("cause") or verdict.get("violation")


def write_project(root: Path, worker: str, config: dict, package: dict | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "worker.js").write_text(worker)
    (root / "schema.sql").write_text("CREATE TABLE built (summary TEXT);\n")
    base = {"name": "deps", "main": "./worker.js", "compatibility_date": "2026-01-01", "d1_databases": [{"binding": "DB"}]}
    (root / "wrangler.jsonc").write_text(json.dumps(base | config))
    if package is not None:
        (root / "package.json").write_text(json.dumps(package))
    return root


UNINSTALLED = """import { Hono } from "hono";
import { helper } from "./helper.js";
export default { fetch: () => new Response(String(Hono) + helper) };
"""
HELPER = """import { z } from "zod";
import { thing } from "@scope/thing/sub";
export const helper = String(z) + thing;
"""


def test_packages_imported_but_not_installed_are_named_with_npm_install(tmp_path, monkeypatch):
    """No node_modules: exit 2 naming `npm install`, the folder, and each package's first import site
    (paths as the user sees them from the working directory)."""
    root = write_project(tmp_path / "app", UNINSTALLED, {}, {"dependencies": {"hono": "^4", "zod": "^3"}})
    (root / "helper.js").write_text(HELPER)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UserError) as raised:
        check_summary(root, "never")
    message = str(raised.value)
    assert (
        "run `npm install` (or your package manager) in app: these packages are imported but not installed: "
        "zod (app/helper.js:1), @scope/thing (app/helper.js:2), hono (app/worker.js:1); "
        "not in app/package.json's dependencies either, so add them first: @scope/thing"
    ) in message, message
    assert "Could not resolve" not in message


def test_an_installed_package_is_not_named_missing(tmp_path):
    """A package that is installed but lacks the imported file is esbuild's error, not `npm install`."""
    root = write_project(tmp_path / "app", 'import { x } from "tiny/missing.js";\nexport default { fetch: () => new Response(x) };\n', {})
    (root / "node_modules" / "tiny").mkdir(parents=True)
    (root / "node_modules" / "tiny" / "package.json").write_text('{"name": "tiny", "version": "1.0.0"}')
    with pytest.raises(UserError) as raised:
        check_summary(root, "never")
    assert "npm install" not in str(raised.value) and 'Could not resolve "tiny/missing.js"' in str(raised.value)


def test_a_node_built_in_without_nodejs_compat_names_the_flag(tmp_path):
    root = write_project(tmp_path / "app", 'import { join } from "path";\nexport default { fetch: () => new Response(join("a", "b")) };\n', {})
    with pytest.raises(UserError) as raised:
        check_summary(root, "never")
    message = str(raised.value)
    assert "these Node.js built-in modules are imported without Node.js compatibility: path (" in message, message
    assert 'add "nodejs_compat" to compatibility_flags' in message
