"""A Worker built by a framework's build (the Cloudflare Vite plugin) is checked from its build output.

The build writes ``.wrangler/deploy/config.json`` beside the user's config, naming the config it
generated with the output (``dist/<worker>/wrangler.json``, with ``no_bundle`` and ESModule rules);
Eutaxy reads that one, as wrangler deploy does, and loads its main and the modules beside it as a
module list, so an import between them by a computed name is workerd's to resolve. A Vite project
that has not been built is exit 2 naming the build command its package.json gives.
"""

import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_least_once, create_platform, d1_param, d1_schema, d1_write, http, wrangler
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError
from eutaxy.engine.check import check_scenario
from worker_project import scenario_in

#: The user's config of a Vite project: its main is the source the build starts from.
USER_CONFIG = """{
  "name": "shop",
  "main": "./worker/index.ts",
  "compatibility_date": "2026-01-01",
  "d1_databases": [{ "binding": "DB", "database_name": "shop", "database_id": "x" }]
}
"""

PACKAGE = {
    "name": "shop",
    "private": True,
    "scripts": {"dev": "vite dev", "build": "vite build"},
    "devDependencies": {"@cloudflare/vite-plugin": "^1.0.0", "vite": "^8.0.0"},
}

#: The build's entry: it loads a chunk by a name computed at run time (no bundler can see it) and
#: imports a page as text (wrangler's default Text rule).
ENTRY = """import page from "./page.html";
export default {
  async fetch(request, env) {
    const specifier = "./" + ["chunks", "summary"].join("/") + ".js";
    const { summary } = await import(specifier);
    await env.DB.prepare("INSERT INTO built (summary) VALUES (?)").bind(summary(page)).run();
    return new Response("ok");
  },
};
"""

CHUNK = 'export function summary(page) { return "chunk + " + page.trim(); }\n'


def vite_project(root: Path, *, built: bool = True, package: dict | None = None) -> Path:
    """A Vite project as the Cloudflare Vite plugin leaves it (built or not): the user's config,
    package.json, and with ``built`` the deploy redirect and the build output."""
    (root / "worker").mkdir(parents=True)
    (root / "worker" / "index.ts").write_text("export default {};\n")
    (root / "wrangler.jsonc").write_text(USER_CONFIG)
    (root / "package.json").write_text(json.dumps(package or PACKAGE, indent=2))
    (root / "schema.sql").write_text("CREATE TABLE built (summary TEXT);\n")
    if built:
        out = root / "dist" / "shop"
        (out / "chunks").mkdir(parents=True)
        (out / "index.js").write_text(ENTRY)
        (out / "chunks" / "summary.js").write_text(CHUNK)
        (out / "page.html").write_text("<p>order</p>\n")
        (out / "index.js.map").write_text("{}")
        generated = json.loads(USER_CONFIG) | {
            "configPath": str(root / "wrangler.jsonc"),
            "userConfigPath": str(root / "wrangler.jsonc"),
            "main": "index.js",
            "no_bundle": True,
            "rules": [{"type": "ESModule", "globs": ["**/*.js", "**/*.mjs"]}],
        }
        (out / "wrangler.json").write_text(json.dumps(generated))
        (root / ".wrangler" / "deploy").mkdir(parents=True)
        (root / ".wrangler" / "deploy" / "config.json").write_text(
            json.dumps({"configPath": "../../dist/shop/wrangler.json", "auxiliaryWorkers": []})
        )
    return root


def scenario_of(root: Path, summary: str) -> dict:
    return scenario_in(
        root, "built",
        worker={"config": "./wrangler.jsonc"},
        setup=[d1_schema("DB", "./schema.sql")],
        drive=http([{"path": "/"}]),
        invariants=[at_least_once("summary-recorded", d1_write("DB"), d1_param(0), [summary])],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


def test_the_user_config_is_redirected_to_the_generated_one(tmp_path):
    root = vite_project(tmp_path / "shop")
    config = wrangler.read_config(root / "wrangler.jsonc")
    assert config.path == (root / "dist" / "shop" / "wrangler.json").resolve()
    assert config.redirected_from == (root / "wrangler.jsonc").resolve()
    assert config.main == (root / "dist" / "shop" / "index.js").resolve()
    assert config.no_bundle
    spec = prepare_worker(scenario_of(root, "x"))
    assert spec.load.no_bundle == {"baseDir": str((root / "dist" / "shop").resolve()), "rules": spec.load.no_bundle["rules"]}
    assert spec.load.no_bundle["rules"][0] == ("ESModule", ("**/*.js", "**/*.mjs"))
    # Sources are shown from the user's config folder (worker/index.ts through the build's maps), not the generated one's.
    assert spec.load.root == str(root.resolve())
    (sentence,) = [one for one in spec.assumptions if "build output" in one]
    assert "wrangler.jsonc is redirected by .wrangler/deploy/config.json to the generated dist/shop/wrangler.json" in sentence
    assert "module list" in sentence and str(tmp_path) not in sentence


def test_an_unbuilt_vite_project_names_the_build_command(tmp_path):
    root = vite_project(tmp_path / "shop", built=False)
    with pytest.raises(UserError) as raised:
        wrangler.read_config(root / "wrangler.jsonc")
    message = str(raised.value)
    manifest = root / "package.json"
    plugin_line = next(n for n, line in enumerate(manifest.read_text().splitlines(), 1) if "@cloudflare/vite-plugin" in line)
    build_line = next(n for n, line in enumerate(manifest.read_text().splitlines(), 1) if '"build"' in line)
    assert message.startswith(f"{root / 'wrangler.jsonc'}: the Worker is built by the Cloudflare Vite plugin")
    assert f"{manifest}:{plugin_line} depends on @cloudflare/vite-plugin" in message
    assert f"expected {root / '.wrangler' / 'deploy' / 'config.json'}" in message and "found none" in message
    assert f'run `npm run build` in {root} first ({manifest}:{build_line}: "build": "vite build")' in message


def test_the_package_manager_and_script_are_the_projects(tmp_path):
    package = PACKAGE | {"scripts": {"bundle": "react-router build"}}
    root = vite_project(tmp_path / "shop", built=False, package=package)
    (root / "pnpm-lock.yaml").write_text("")
    with pytest.raises(UserError, match=r"run `pnpm run bundle` in .* first \(.*package\.json:\d+: \"bundle\": \"react-router build\"\)"):
        wrangler.read_config(root / "wrangler.jsonc")


def test_a_redirect_to_a_missing_build_output_is_refused(tmp_path):
    root = vite_project(tmp_path / "shop")
    (root / "dist" / "shop" / "wrangler.json").unlink()
    with pytest.raises(UserError) as raised:
        wrangler.read_config(root / "wrangler.jsonc")
    message = str(raised.value)
    assert message.startswith(f"{root / '.wrangler' / 'deploy' / 'config.json'}:1: configPath names '../../dist/shop/wrangler.json'")
    assert "found no such file" in message and "run `npm run build`" in message


def test_an_environment_with_a_redirected_config_is_refused(tmp_path):
    root = vite_project(tmp_path / "shop")
    with pytest.raises(UserError, match="CLOUDFLARE_ENV=staging"):
        wrangler.read_config(root / "wrangler.jsonc", env="staging")


@pytest.mark.usefixtures("toolchain")
def test_the_build_output_runs_as_its_module_list(tmp_path):
    """The computed import finds its chunk and the page is text: the row is the one production writes."""
    root = vite_project(tmp_path / "shop")
    scenario = scenario_of(root, "chunk + <p>order</p>")
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, max_runs=1, module_state_runs=0)
    assert verdict["kind"] == "bounded", verdict.get("cause") or verdict.get("violation")
