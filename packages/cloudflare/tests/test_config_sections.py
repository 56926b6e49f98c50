"""Every wrangler config section is modelled, stated or refused: the table, its docs and its effects.

The table (eutaxy.cloudflare.config_sections) is the one owner of what Eutaxy does with each
section; these tests hold docs/cloudflare.md to it, the wrangler reader's binding sections and
environment rules to it, and show each treatment reaching the verdict or the load message:
a stated section's sentence, a trap's, Access's, a refused section's exit 2, an assets
directory that would answer a request.
"""

import json
import subprocess
from pathlib import Path

import pytest

from eutaxy.cloudflare import bindings, config_sections, define_scenario, http, wrangler
from eutaxy.cloudflare.host import find_node, find_runtime
from eutaxy.cloudflare.worker import ACCESS_HEADER_PREFIX, prepare_worker
from eutaxy.core.errors import UserError

DOCS = Path(__file__).resolve().parents[3] / "docs" / "cloudflare.md"


def project(tmp_path: Path, **sections) -> Path:
    (tmp_path / "worker.js").write_text("export default { fetch() { return new Response('ok'); } };\n")
    config = {"name": "site", "main": "./worker.js", "compatibility_date": "2026-01-01", **sections}
    (tmp_path / "wrangler.jsonc").write_text(json.dumps(config, indent=2))
    return tmp_path


def prepared(root: Path, requests=({"path": "/api/orders"},)):
    scenario = define_scenario(name="s", root=root, source=root / "s.sim.py", drive=http(list(requests)), invariants=[])
    return prepare_worker(scenario)


def test_the_docs_table_is_the_python_table():
    """docs/cloudflare.md holds markdown_table()'s text verbatim (regenerate: python -m eutaxy.cloudflare.config_sections)."""
    assert config_sections.markdown_table() in DOCS.read_text()


def test_every_binding_section_the_reader_reads_is_a_trap_or_modelled():
    """A binding section the reader turns into bindings is never stated or inert: touching it is UNSUPPORTED or modelled."""
    kinds = {kind.top_section for kind in bindings.registered()}
    read = set(wrangler._LIST_SECTIONS) | set(wrangler._SINGLE_SECTIONS) | {section for section, _ in wrangler._NAMED_SECTIONS} | kinds
    treatments = {key: config_sections.section(key).treatment for key in read}
    assert {"kv_namespaces", "r2_buckets"} <= kinds
    assert {key: "unsupported" for key in read - kinds} | {key: "modelled" for key in kinds} == treatments


@pytest.mark.usefixtures("toolchain")
def test_the_runtimes_trap_causes_are_the_tables():
    """Each trapped section's cause in the table is the one the runtime's trap marks (unsupported.mjs causeFor), asked of Node."""
    kinds = {section: kind for section, (kind, _) in wrangler._LIST_SECTIONS.items()}
    kinds |= dict(wrangler._SINGLE_SECTIONS) | {section: kind for (section, _), (kind, _) in wrangler._NAMED_SECTIONS.items()}
    kinds["site"] = "site"
    trapped = {section: kind for section, kind in kinds.items() if config_sections.section(section).treatment == "unsupported"}
    node, _ = find_node(install=False)
    script = (
        f"import {{ causeFor }} from {json.dumps(str(find_runtime() / 'unsupported.mjs'))};"
        f"console.log(JSON.stringify({json.dumps(trapped)}, (key, kind) => key ? causeFor(kind) : kind));"
    )
    answered = subprocess.run([str(node), "--input-type=module", "-e", script], check=True, capture_output=True, text=True)
    assert {section: config_sections.section(section).cause for section in trapped} == json.loads(answered.stdout)


def test_the_environment_rules_come_from_the_table():
    """The keys an environment does not inherit are the table's `own` rows: vars, define and every binding section."""
    assert {"vars", "define", "d1_databases", "queues", "services", "ai", "media", "tail_consumers"} <= wrangler.NON_INHERITABLE_KEYS
    assert not {"main", "compatibility_date", "routes", "assets", "limits"} & wrangler.NON_INHERITABLE_KEYS


def test_stated_sections_and_unknown_keys_are_one_sentence_each(tmp_path):
    """routes and observability are named once with what is assumed; a key wrangler does not know is named too."""
    root = project(tmp_path, routes=["shop.example.com/*"], observability={"enabled": True}, colour="blue")
    assumptions = prepared(root).assumptions
    assert (
        "Sections of wrangler.jsonc Eutaxy does not model, assumed not to change what a run checks: routes (requests "
        "come to https://worker.eutaxy.invalid whatever route production matches); observability (logs and traces are "
        "not collected; console output is kept in the trace)."
    ) in assumptions
    assert "Keys of wrangler.jsonc that no wrangler section names are not read: colour (wrangler warns about them too)." in assumptions


def test_a_config_of_modelled_sections_adds_no_section_sentence(tmp_path):
    """name, main, compatibility_date and a D1 database are all modelled: nothing is stated about them."""
    root = project(tmp_path, d1_databases=[{"binding": "DB"}], account_id="abc")
    assumptions = prepared(root).assumptions
    assert [] == [s for s in assumptions if s.startswith(("Sections of", "Keys of", "Bindings Eutaxy"))]


def test_a_config_written_out_in_full_states_only_what_it_asks_for(tmp_path):
    """Empty sections, wrangler's defaults and its computed fields (as a build tool writes them) say nothing; node_compat false is not refused."""
    written = {
        "configPath": "/x/wrangler.jsonc", "topLevelName": "site", "definedEnvironments": [], "rules": [], "routes": [],
        "jsx_factory": "React.createElement", "jsx_fragment": "React.Fragment", "triggers": {"crons": []}, "minify": False,
        "node_compat": False, "python_modules": {"exclude": ["**/*.pyc"]}, "dev": {"port": 8787}, "tail_consumers": [],
        "observability": {"enabled": False}, "build": {"watch_dir": "./src"}, "logfwdr": {"bindings": []}, "unsafe": {},
        "placement": {"mode": "smart"},
    }
    assumptions = prepared(project(tmp_path, **written)).assumptions
    assert [
        "Sections of wrangler.jsonc Eutaxy does not model, assumed not to change what a run checks: placement (where "
        "production places the Worker changes latency only, which is not modelled)."
    ] == [s for s in assumptions if s.startswith(("Sections of", "Keys of", "Bindings Eutaxy"))]


def test_bindings_that_stand_in_as_traps_are_named_in_the_verdict(tmp_path):
    """An AI binding and a send_email binding (named by `name`, as wrangler names it) are traps, listed in one sentence."""
    root = project(tmp_path, ai={"binding": "AI"}, send_email=[{"name": "MAIL", "destination_address": "ops@example.com"}])
    spec = prepared(root)
    assert [{"kind": "send_email", "name": "MAIL"}, {"kind": "ai", "name": "AI"}] == spec.load_message()["worker"]["bindings"]
    assert (
        "Bindings Eutaxy does not model stand in as traps, so a run that touches one is UNSUPPORTED: MAIL (send_email), AI (ai)."
    ) in spec.assumptions


@pytest.mark.parametrize("key, value", [("node_compat", True), ("wasm_modules", {"MOD": "./m.wasm"}), ("pages_build_output_dir", "./dist")])
def test_a_refused_section_is_exit_2_naming_its_line_and_the_fix(tmp_path, key, value):
    """A section the check cannot run a Worker with is refused before anything runs, at the line that sets it."""
    root = project(tmp_path, **{key: value})
    with pytest.raises(UserError) as raised:
        prepared(root)
    message = str(raised.value)
    line = next(n for n, text in enumerate((root / "wrangler.jsonc").read_text().splitlines(), 1) if f'"{key}"' in text)
    assert message.startswith(f"{root / 'wrangler.jsonc'}:{line}: {key}: Refused (exit 2)")
    assert config_sections.section(key).does in message


def test_an_access_section_sends_the_header_rule_and_is_stated(tmp_path):
    """With access, the load message carries the Cf-Access- prefix the runtime traps and the verdict says Access is not in front."""
    spec = prepared(project(tmp_path, access={"team_domain": "staff.cloudflareaccess.com"}))
    assert ACCESS_HEADER_PREFIX == spec.load_message()["worker"]["accessHeaderPrefix"] == "cf-access-"
    assert any(s.startswith("Cloudflare Access (the access section of wrangler.jsonc) is not in front") for s in spec.assumptions)


def test_without_access_no_header_is_trapped(tmp_path):
    """No access section: the load message traps no header."""
    assert prepared(project(tmp_path)).load_message()["worker"]["accessHeaderPrefix"] is None


def assets_project(tmp_path: Path, **assets) -> Path:
    public = tmp_path / "public"
    (public / "docs").mkdir(parents=True)
    (public / "index.html").write_text("<h1>home</h1>")
    (public / "about.html").write_text("<h1>about</h1>")
    (public / "docs" / "index.html").write_text("<h1>docs</h1>")
    (public / "logo.svg").write_text("<svg/>")
    return project(tmp_path, assets={"directory": "./public", "binding": "ASSETS", **assets})


def test_assets_reach_miniflare_and_their_binding_is_no_trap(tmp_path):
    """Every request reaches the check (the assets answer theirs in workerd); the load message carries the section."""
    spec = prepared(assets_project(tmp_path, run_worker_first=["/api/*", "!/api/docs"]), [{"path": "/"}, {"path": "/api/orders"}])
    worker = spec.load_message()["worker"]
    assert {
        "directory": str((tmp_path / "public").resolve()),
        "binding": "ASSETS",
        "runWorkerFirst": ["/api/*", "!/api/docs"],
        "htmlHandling": "auto-trailing-slash",
        "notFoundHandling": "none",
    } == worker["kinds"]["assets"]["section"] == worker["kinds"]["assets"]["miniflare"]["assets"]
    assert {"kind": "assets", "name": "ASSETS"} not in worker["bindings"]
    assert not any("assets" in sentence for sentence in spec.assumptions)


def test_a_missing_assets_directory_names_its_line(tmp_path):
    root = project(tmp_path, assets={"directory": "./dist/client", "binding": "ASSETS"})
    with pytest.raises(UserError) as raised:
        prepared(root)
    line = next(n for n, text in enumerate((root / "wrangler.jsonc").read_text().splitlines(), 1) if '"directory"' in text)
    assert f"wrangler.jsonc:{line}: assets.directory names './dist/client', which is not a directory" in str(raised.value)


@pytest.mark.parametrize(("field", "value"), [("html_handling", "auto"), ("not_found_handling", "spa")])
def test_an_unknown_assets_handling_is_named(tmp_path, field, value):
    with pytest.raises(UserError, match=f"assets.{field} must be one of"):
        prepared(assets_project(tmp_path, **{field: value}))


def test_a_container_class_binding_is_a_trap_not_an_object_eutaxy_runs(tmp_path):
    """A Durable Object binding whose class a containers entry names is not run: it stands in as a trap."""
    root = project(
        tmp_path,
        durable_objects={"bindings": [{"name": "SANDBOX", "class_name": "Sandbox"}, {"name": "ROOMS", "class_name": "Room"}]},
        containers=[{"class_name": "Sandbox", "image": "./Dockerfile"}],
        migrations=[{"tag": "v1", "new_sqlite_classes": ["Sandbox", "Room"]}],
    )
    worker = prepared(root).load_message()["worker"]
    assert {"ROOMS": {"className": "Room", "useSQLite": True}} == worker["kinds"]["durable_object"]["miniflare"]["durableObjects"]
    assert [{"kind": "container", "name": "SANDBOX"}] == worker["bindings"]


def test_define_and_alias_reach_the_bundler(tmp_path):
    """define goes as written; a relative alias is made absolute from the config's folder, a package name kept."""
    root = project(tmp_path, define={"BUILD_ID": '"b-7"'}, alias={"fetch-retry": "./shims/retry.js", "lodash": "lodash-es"})
    worker = prepared(root).load_message()["worker"]
    assert {"BUILD_ID": '"b-7"'} == worker["define"]
    assert {"fetch-retry": str((root / "shims" / "retry.js").resolve()), "lodash": "lodash-es"} == worker["alias"]
