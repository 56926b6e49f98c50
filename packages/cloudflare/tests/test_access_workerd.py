"""A Worker behind Cloudflare Access is never judged on requests production would not send it.

With an ``access`` section in its config, Access stands in front of the Worker in production:
every request that reaches it carries the identity Access checked (``Cf-Access-Jwt-Assertion``,
``Cf-Access-Authenticated-User-Email``). Eutaxy does not model Access, so a run in which the
Worker reads such a header its request lacks is UNSUPPORTED (``access_identity``), never a
VIOLATED "in a plain run" built on a 401 production never answers; a header the scenario's
request carries is the identity the scenario models, and is read as given. Each test runs
real workerd on a Worker that answers 401 without the identity and records the visit with it.
A Worker that asks ``ctx.access`` (the identity Access hands a Worker it protects, however
Access was set up) is UNSUPPORTED too, with or without the section.
"""

import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_least_once, create_platform, d1_param, d1_schema, d1_write, http
from eutaxy.engine.check import check_scenario
from worker_project import scenario_in, write_project

pytestmark = pytest.mark.usefixtures("toolchain")

WORKER = """
export default {
  async fetch(request, env) {
    const token = request.headers.get("Cf-Access-Jwt-Assertion");
    if (!token) return new Response("unauthorized", { status: 401 });
    const email = request.headers.get("Cf-Access-Authenticated-User-Email");
    await env.DB.prepare("INSERT INTO visits (email) VALUES (?)").bind(email).run();
    return new Response("welcome");
  },
};
"""


def access_scenario(tmp_path: Path, *, access: bool, headers: dict[str, str]):
    config = {"name": "staff", "main": "./worker.js", "compatibility_date": "2026-01-01", "d1_databases": [{"binding": "DB"}]}
    if access:
        config["access"] = {"team_domain": "staff.cloudflareaccess.com", "aud": "0123abcd"}
    write_project(tmp_path, json.dumps(config), {"worker.js": WORKER, "schema.sql": "CREATE TABLE visits (email TEXT);\n"})
    return scenario_in(
        tmp_path, "staff",
        setup=[d1_schema("DB", "./schema.sql")],
        drive=http([{"method": "GET", "path": "/", "headers": headers}]),
        invariants=[at_least_once("visit-recorded", d1_write("DB"), d1_param(0), ["ada@example.com"])],
        bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 60_000},
    )


def check(scenario):
    with create_platform(scenario) as platform:
        return check_scenario(scenario, platform, max_runs=2, module_state_runs=0)


def test_reading_the_access_identity_a_request_lacks_is_unsupported_naming_access(tmp_path):
    """With an access section and no identity on the request, the read of Cf-Access-Jwt-Assertion ends the run UNSUPPORTED access_identity."""
    verdict = check(access_scenario(tmp_path, access=True, headers={}))
    assert "unsupported" == verdict["kind"], verdict
    assert "access_identity" == verdict["cause"]["kind"]
    assert "cf-access-jwt-assertion" in verdict["cause"]["detail"] and "access section" in verdict["cause"]["detail"]
    assert any(sentence.startswith("Cloudflare Access (the access section of wrangler.jsonc)") for sentence in verdict["provenance"]["assumptions"])


def test_an_identity_the_scenario_gives_is_read_as_given(tmp_path):
    """The scenario's request carrying the Access headers models the identity: the Worker records the visit and the check passes."""
    headers = {"Cf-Access-Jwt-Assertion": "header.payload.signature", "Cf-Access-Authenticated-User-Email": "ada@example.com"}
    verdict = check(access_scenario(tmp_path, access=True, headers=headers))
    assert "bounded" == verdict["kind"], verdict.get("cause")


def test_without_an_access_section_the_missing_header_is_the_workers_own_answer(tmp_path):
    """No access section: nothing stands in front of the Worker, so its 401 is what production answers and the bug shows."""
    verdict = check(access_scenario(tmp_path, access=False, headers={}))
    assert "violated" == verdict["kind"], verdict.get("cause")


CTX_WORKER = """
export default {
  async fetch(request, env, ctx) {
    const identity = await ctx.access.getIdentity();
    if (!identity) return new Response("unauthorized", { status: 401 });
    await env.DB.prepare("INSERT INTO visits (email) VALUES (?)").bind(identity.email).run();
    return new Response("welcome");
  },
};
"""


@pytest.mark.parametrize("access", [True, False])
def test_reading_ctx_access_is_unsupported_naming_access(tmp_path, access):
    """ctx.access.getIdentity() is Access's identity for the request: never a TypeError judged as the Worker's bug."""
    scenario = access_scenario(tmp_path, access=access, headers={})
    (tmp_path / "worker.js").write_text(CTX_WORKER)
    verdict = check(scenario)
    assert "unsupported" == verdict["kind"], verdict
    assert ("access_identity", "the Worker read ctx.access") == (verdict["cause"]["kind"], verdict["cause"]["detail"][:26])
