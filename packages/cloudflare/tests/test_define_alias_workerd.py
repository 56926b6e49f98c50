"""The config's `define` and `alias` reach esbuild, as wrangler bundles the Worker.

Dropping them would change what the Worker runs: an identifier `define` replaces would be a
ReferenceError at run time, an aliased import would not bundle. The Worker here records a
value built from both; the check passes only if the bundle applied them.
"""

import json

import pytest

from eutaxy.cloudflare import at_least_once, create_platform, d1_param, d1_schema, d1_write, define_scenario, http
from eutaxy.engine.check import check_scenario

pytestmark = pytest.mark.usefixtures("toolchain")

WORKER = """
import { greet } from "greeting";
export default {
  async fetch(request, env) {
    await env.DB.prepare("INSERT INTO builds (id) VALUES (?)").bind(greet(BUILD_ID)).run();
    return new Response("ok");
  },
};
"""


def test_define_and_alias_are_applied_to_the_bundle(tmp_path):
    """BUILD_ID comes from define and `greeting` from the alias's shim: the row written is theirs."""
    (tmp_path / "worker.js").write_text(WORKER)
    (tmp_path / "shims").mkdir()
    (tmp_path / "shims" / "greeting.js").write_text("export function greet(id) { return `build ${id}`; }\n")
    (tmp_path / "schema.sql").write_text("CREATE TABLE builds (id TEXT);\n")
    config = {
        "name": "built", "main": "./worker.js", "compatibility_date": "2026-01-01", "d1_databases": [{"binding": "DB"}],
        "define": {"BUILD_ID": '"b-7"'}, "alias": {"greeting": "./shims/greeting.js"},
    }
    (tmp_path / "wrangler.jsonc").write_text(json.dumps(config))
    scenario = define_scenario(
        name="built",
        root=tmp_path,
        source=tmp_path / "built.sim.py",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=http([{"path": "/"}]),
        invariants=[at_least_once("build-recorded", d1_write("DB"), d1_param(0), ["build b-7"])],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, max_runs=1, module_state_runs=0)
    assert "bounded" == verdict["kind"], verdict.get("cause")
