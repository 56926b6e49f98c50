"""From scenario and config to the host's load message; mismatches are the user's to fix."""

import json
from pathlib import Path

import jsonschema

import pytest

from eutaxy.cloudflare import at_most_once_per_key, d1_param, d1_schema, d1_write, define_scenario, kv_namespace, queue
from eutaxy.cloudflare.platform import CloudflarePlatform
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError

CONFIG = """{
  "name": "payments",
  "main": "./worker.ts",
  "compatibility_date": "2026-01-01",
  "d1_databases": [{"binding": "DB", "database_id": "db-1"}, {"binding": "AUDIT"}],
  "queues": {"consumers": [{"queue": "payments"}]},
  "kv_namespaces": [{"binding": "CACHE", "id": "kv"}],
  "ai": {"binding": "AI"},
}"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "worker.ts").write_text("export default {};\n")
    (tmp_path / "schema.sql").write_text("CREATE TABLE payments (order_id TEXT);\n")
    (tmp_path / "wrangler.jsonc").write_text(CONFIG)
    return tmp_path


def scenario_in(project: Path, **overrides):
    fields = {
        "name": "s",
        "worker": {"config": "./wrangler.jsonc"},
        "setup": [d1_schema("DB", "./schema.sql")],
        "drive": queue("payments", [{"body": {"orderId": "o-1"}}]),
        "root": project,
        "source": project / "s.sim.py",
    }
    fields.update(overrides)
    return define_scenario(**fields)


def test_load_message_has_absolute_paths_and_bindings(project):
    """Entry and setup paths are absolute; D1 ids, KV ids, consumers and refused bindings are listed.

    D1 is a registered kind: its entry carries each binding's schema files (path and text) and
    seeded rows, and a binding with none (AUDIT) has no setup, which the runtime's rule for a
    binding without one (``withoutSetup``) makes a trap.
    """
    spec = prepare_worker(scenario_in(project))
    message = spec.load_message()
    assert "load" == message["op"]
    worker = message["worker"]
    assert str((project / "worker.ts").resolve()) == worker["entry"]
    assert "2026-01-01" == worker["compatibilityDate"]
    schema = project / "schema.sql"
    assert {
        "DB": {
            "resource": "db-1",
            "setup": {
                "kind": "d1_schema", "binding": "DB", "rows": {},
                "files": [{"path": str(schema.resolve()), "text": schema.read_text()}],
            },
            "setupHint": 'd1_schema("DB", "./schema.sql")',
            "settings": {},
        },
        "AUDIT": {"resource": "AUDIT", "setup": None, "setupHint": 'd1_schema("AUDIT", "./schema.sql")', "settings": {}},
    } == worker["kinds"]["d1"]["bindings"]
    assert ("unsupported", {"d1Databases": {"DB": "db-1", "AUDIT": "AUDIT"}}) == (worker["kinds"]["d1"]["withoutSetup"], worker["kinds"]["d1"]["miniflare"])
    assert {"payments": {"maxRetries": 3, "retryDelaySeconds": 0, "maxBatchSize": 10}} == consumer_settings(worker)
    assert {"CACHE": {"resource": "kv", "setup": None, "setupHint": 'kv_namespace("CACHE", {...})', "settings": {}}} == worker["kinds"]["kv"]["bindings"]
    assert [{"kind": "ai", "name": "AI"}] == worker["bindings"]
    assert [] == message["setup"]
    assert any("D1 bindings without a setup step (AUDIT) are not reset" in sentence for sentence in spec.assumptions)


def test_the_load_message_fits_the_one_schema_the_host_checks(project):
    """LoadMessage.to_data() validates against runtime/host/load.schema.json, field for field.

    The host (host/load.mjs) refuses a load request that does not fit the same file, so a
    field Python sends and the runtime never reads, or one the runtime reads and Python never
    sends, fails here or there.
    """
    schema = json.loads((Path(__file__).resolve().parents[1] / "runtime" / "host" / "load.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    message = prepare_worker(scenario_in(project)).load_message()
    validator.validate({**message, "id": 1})
    assert set(schema["properties"]["worker"]["required"]) == set(message["worker"])
    assert not validator.is_valid({**message, "worker": {**message["worker"], "name": "payments"}})


def test_scenario_entry_wins_over_main(project):
    """worker.entry in the scenario is used even when the config names main."""
    (project / "other.ts").write_text("export default {};\n")
    spec = prepare_worker(scenario_in(project, worker={"entry": "./other.ts", "config": "./wrangler.jsonc"}))
    assert (project / "other.ts").resolve() == spec.entry


def test_config_is_found_beside_the_scenario(project):
    """A scenario naming no config gets the one wrangler would find beside it."""
    spec = prepare_worker(scenario_in(project, worker=None))
    assert (project / "wrangler.jsonc").resolve() == spec.config.path


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"worker": {"entry": "./missing.ts", "config": "./wrangler.jsonc"}}, "worker.entry './missing.ts' does not exist"),
        ({"setup": [d1_schema("OTHER", "./schema.sql")]}, "D1 binding 'OTHER', which wrangler.jsonc does not declare in d1_databases"),
        ({"setup": [d1_schema("DB", "./nope.sql")]}, "file './nope.sql' does not exist"),
        ({"setup": [d1_schema("DB", "./schema.sql")] * 2}, "2 d1_schema steps"),
        ({"drive": queue("refunds", [{"body": 1}])}, "drives queue 'refunds', but wrangler.jsonc has no consumer"),
        ({"worker": {"config": "./wrangler.toml"}}, "compatibility_date is missing"),
        ({"worker": {"config": "./wrangler.jsonc", "env": "prod"}}, "there is no environment 'prod'; it defines none"),
        ({"setup": [kv_namespace("CACHES", {})]}, "KV binding 'CACHES', which wrangler.jsonc does not declare.*did you mean 'CACHE'"),
        ({"setup": [kv_namespace("DB", {})]}, "KV binding 'DB', which wrangler.jsonc does not declare"),
        ({"setup": [kv_namespace("CACHE", {})] * 2}, "2 kv_namespace steps for KV binding 'CACHE'"),
        ({"setup": [{"kind": "kv_namespace", "binding": "CACHE", "entries": [{"key": "k"}]}]}, r"entries\[0\] must be \{key, value, metadata\}"),
    ],
)
def test_mismatches_are_user_errors(project, overrides, problem):
    """Each mismatch between scenario and config is a UserError saying which."""
    (project / "wrangler.toml").write_text('main = "./worker.ts"\n')
    with pytest.raises(UserError, match=problem):
        prepare_worker(scenario_in(project, **overrides))


def test_the_drives_batch_size_stays_within_the_consumers_max_batch_size(project):
    """A batch larger than the config's max_batch_size is refused; within it (or unset) it is kept, and said."""
    config = CONFIG.replace('{"queue": "payments"}', '{"queue": "payments", "max_batch_size": 2}')
    (project / "wrangler.jsonc").write_text(config)
    with pytest.raises(UserError, match="batches of 3, but wrangler.jsonc sets the consumer's max_batch_size to 2"):
        prepare_worker(scenario_in(project, drive=queue("payments", [{"body": 1}], batch_size=3)))
    spec = prepare_worker(scenario_in(project, drive=queue("payments", [{"body": 1}], batch_size=2)))
    assert any("in batches of up to 2 (the drive's batch_size)" in sentence for sentence in spec.assumptions)
    one = prepare_worker(scenario_in(project, drive=queue("payments", [{"body": 1}], batch_size=1)))
    assert any("one at a time (the drive's batch_size)" in sentence for sentence in one.assumptions)
    # No batch_size: the consumer's max_batch_size, and the load message carries it.
    spec = prepare_worker(scenario_in(project, drive=queue("payments", [{"body": 1}])))
    assert any("in batches of up to 2 (the consumer's max_batch_size)" in sentence for sentence in spec.assumptions)
    assert 2 == consumer_settings(spec.load_message()["worker"])["payments"]["maxBatchSize"]
    # None in the config: Cloudflare's default, 10, which also caps the drive's.
    (project / "wrangler.jsonc").write_text(CONFIG)
    spec = prepare_worker(scenario_in(project, drive=queue("payments", [{"body": 1}])))
    assert any("in batches of up to 10 (Cloudflare's default max_batch_size" in sentence for sentence in spec.assumptions)
    assert 10 == consumer_settings(spec.load_message()["worker"])["payments"]["maxBatchSize"]
    with pytest.raises(UserError, match="batches of 11, but wrangler.jsonc sets no max_batch_size for the consumer, so Cloudflare's default 10 holds"):
        prepare_worker(scenario_in(project, drive=queue("payments", [{"body": 1}], batch_size=11)))
    unset = scenario_in(project)
    unset["drive"] = {key: value for key, value in unset["drive"].items() if key != "batchSize"}
    with pytest.raises(UserError, match="carries no batchSize"):
        prepare_worker(unset)


def test_missing_compatibility_date_is_refused(project):
    """Without a date the runtime's behaviour would follow the clock, so it is required."""
    (project / "wrangler.jsonc").write_text('{"main": "./worker.ts", "queues": {"consumers": [{"queue": "payments"}]}}')
    with pytest.raises(UserError, match="compatibility_date is missing"):
        prepare_worker(scenario_in(project, setup=[]))


def test_an_invariant_over_a_d1_binding_no_setup_resets_is_refused(project):
    """No run may touch AUDIT (its record's rule), so an invariant selecting its effects would hold vacuously."""
    with pytest.raises(UserError, match=r'its selector names D1:AUDIT, but no setup step resets that database.*d1_schema\("AUDIT", "./schema.sql"\)'):
        prepare_worker(scenario_in(project, invariants=[at_most_once_per_key("x", d1_write("AUDIT"), d1_param(0))]))


def test_describe_lists_assumptions_without_starting_node(project):
    """describe() works before any run and says where max_retries came from."""
    platform = CloudflarePlatform(scenario_in(project))
    description = platform.describe()
    assert "cloudflare" == description["platform"]
    assert any("module_state_leak" in sentence for sentence in description["assumptions"])
    assert any("Cloudflare's documented default" in sentence for sentence in description["assumptions"])
    assert any("AUDIT" in sentence for sentence in description["assumptions"])
    platform.close()


def test_the_d1_batch_assumption_is_listed_only_for_a_worker_that_declares_d1(project):
    batch = "D1 is Miniflare's local SQLite: batch() commits all or nothing"
    assert any(batch in sentence for sentence in prepare_worker(scenario_in(project)).assumptions)
    (project / "wrangler.jsonc").write_text(CONFIG.replace(
        '"d1_databases": [{"binding": "DB", "database_id": "db-1"}, {"binding": "AUDIT"}],', ""
    ))
    no_d1 = prepare_worker(scenario_in(project, setup=[]))
    assert not any(batch in sentence for sentence in no_d1.assumptions), no_d1.assumptions
    assert any("module_state_leak" in sentence for sentence in no_d1.assumptions)


def test_the_reset_sentence_says_how_only_for_the_kinds_the_worker_declares(project):
    def reset_sentence(worker):
        [sentence] = [s for s in worker.assumptions if s.startswith("Miniflare keeps binding storage")]
        return sentence

    with_d1 = reset_sentence(prepare_worker(scenario_in(project)))
    assert "(D1: drop every user table, re-apply the schema)." in with_d1
    assert "R2" not in with_d1 and "Durable Objects" not in with_d1
    (project / "wrangler.jsonc").write_text(CONFIG.replace(
        '"d1_databases": [{"binding": "DB", "database_id": "db-1"}, {"binding": "AUDIT"}],', ""
    ))
    assert reset_sentence(prepare_worker(scenario_in(project, setup=[]))).endswith("names before each run.")


def test_the_platform_refuses_another_platforms_scenario(project):
    """A scenario for aws is not run here."""
    scenario = {**scenario_in(project), "platform": "aws"}
    with pytest.raises(UserError, match="not cloudflare"):
        CloudflarePlatform(scenario)


ENVIRONMENT_CONFIG = """
name = "payments"
main = "./worker.ts"
compatibility_date = "2026-01-01"
d1_databases = [{ binding = "DB", database_id = "db-top" }]
queues.consumers = [{ queue = "payments" }]
kv_namespaces = [{ binding = "CACHE", id = "kv" }]

[env.staging]
d1_databases = [{ binding = "DB", database_id = "db-staging" }]
queues.consumers = [{ queue = "payments", max_retries = 1 }]
"""


def test_a_scenarios_environment_is_applied_to_a_toml_config(project):
    """worker={"env": ...} reads env.<name> as wrangler does: its own bindings, nothing inherited of them."""
    (project / "wrangler.toml").write_text(ENVIRONMENT_CONFIG)
    top = prepare_worker(scenario_in(project, worker={"config": "./wrangler.toml"}))
    assert {"DB": "db-top"} == resources(top.load_message(), "d1")
    assert ["CACHE"] == list(top.load_message()["worker"]["kinds"]["kv"]["bindings"])
    staging = prepare_worker(scenario_in(project, worker={"config": "./wrangler.toml", "env": "staging"}))
    worker = staging.load_message()["worker"]
    assert {"DB": "db-staging"} == resources(staging.load_message(), "d1")
    assert {"payments": {"maxRetries": 1, "retryDelaySeconds": 0, "maxBatchSize": 10}} == consumer_settings(worker)
    assert {} == worker["kinds"]["kv"]["bindings"], "kv_namespaces is not inherited by an environment"
    assert "2026-01-01" == worker["compatibilityDate"], "compatibility_date is inherited"
    assert any("environment 'staging' of wrangler.toml (Worker name payments-staging)" in s for s in staging.assumptions)
    assert not any("environment" in sentence for sentence in top.assumptions)


@pytest.mark.parametrize("env", ["", 3, None])
def test_a_worker_env_that_is_not_a_name_is_refused(project, env):
    """worker.env must be a non-empty string."""
    with pytest.raises(UserError, match="worker.env must name a wrangler environment"):
        scenario_in(project, worker={"env": env})


def test_vars_and_secrets_reach_the_load_message_and_only_names_reach_the_assumptions(project):
    """config vars < .dev.vars (.dev.vars.<env> with an env) < the scenario's; secrets are named, never shown."""
    (project / "wrangler.toml").write_text(ENVIRONMENT_CONFIG.replace('kv_namespaces', 'vars = { MODE = "top", LIMIT = 3 }\nkv_namespaces'))
    (project / ".dev.vars").write_text("API_KEY=dev-key-1\n")
    (project / ".dev.vars.staging").write_text("API_KEY=staging-key-1\n")
    worker = {"config": "./wrangler.toml", "vars": {"MODE": "scenario"}, "secrets": {"TOKEN": "tok-secret-1"}}
    top = prepare_worker(scenario_in(project, worker=worker))
    assert {"MODE": "scenario", "LIMIT": 3, "API_KEY": "dev-key-1", "TOKEN": "tok-secret-1"} == top.load_message()["worker"]["vars"]
    assert {"API_KEY": "dev-key-1", "TOKEN": "tok-secret-1"} == dict(top.secrets)
    staging = prepare_worker(scenario_in(project, worker={**worker, "env": "staging"}))
    # env.staging sets no vars: none are inherited; its own .dev.vars.staging replaces .dev.vars.
    assert {"MODE": "scenario", "API_KEY": "staging-key-1", "TOKEN": "tok-secret-1"} == staging.load_message()["worker"]["vars"]
    for spec in (top, staging):
        text = " ".join(spec.assumptions) + repr(spec) + repr(spec.load)
        assert "API_KEY" in text and "TOKEN" in text
        for value in ("dev-key-1", "staging-key-1", "tok-secret-1"):
            assert value not in text


def test_a_project_with_only_env_files_gives_the_worker_its_secrets(project):
    """No .dev.vars: the .env files are the local secrets, as wrangler reads them; the verdict names the file."""
    (project / ".env").write_text("API_KEY=env-key-1\n")
    (project / ".env.local").write_text("API_KEY=env-local-key-1\n")
    spec = prepare_worker(scenario_in(project))
    assert {"API_KEY": "env-local-key-1"} == dict(spec.secrets) == spec.load_message()["worker"]["vars"]
    text = " ".join(spec.assumptions)
    assert "secrets API_KEY (.env.local)" in text and "env-local-key-1" not in text and "env-key-1" not in text


@pytest.mark.parametrize(
    ("worker", "problem"),
    [
        ({"secrets": {"A": 1}}, r"worker.secrets\['A'\] must be a string"),
        ({"vars": {"A": None}}, r"worker.vars\['A'\] must be a string or plain JSON"),
        ({"vars": ["A"]}, "worker.vars must be a dict"),
        ({"vars": {"A": "1"}, "secrets": {"A": "2"}}, "both name A"),
        ({"secret": {}}, "worker takes entry, config, env, vars, secrets, not secret"),
    ],
)
def test_scenario_vars_and_secrets_of_the_wrong_shape_are_refused(project, worker, problem):
    """worker.vars and worker.secrets are checked where the scenario is defined."""
    with pytest.raises(UserError, match=problem):
        scenario_in(project, worker=worker)


def consumer_settings(worker):
    """Each consumed queue's settings, from the queue consumer kind's entry in the load message."""
    return {queue: binding["settings"] for queue, binding in worker["kinds"]["queue_consumer"]["bindings"].items()}


def resources(message, kind):
    """Binding -> resource of a registered kind's bindings in a load message."""
    return {name: binding["resource"] for name, binding in message["worker"]["kinds"][kind]["bindings"].items()}


def schema_files(spec, binding):
    """The names of the files that reset a D1 binding, in the order applied (None: unset)."""
    setup = spec.load_message()["worker"]["kinds"]["d1"]["bindings"][binding]["setup"]
    return None if setup is None else [Path(file["path"]).name for file in setup["files"]]


def migrations(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True)
    for name in names:
        (folder / name).write_text(f"-- {name}\nCREATE TABLE t_{name.split('_')[0]} (x TEXT);\n")
    return folder


def test_a_migrations_directory_becomes_one_file_each_in_wrangler_order(project):
    """d1_schema on a directory applies its .sql files by name (0002 before 0010); other files are not read."""
    migrations(project / "migrations", "0010_index.sql", "0001_create.sql", "0002_alter.sql", "notes.txt")
    spec = prepare_worker(scenario_in(project, setup=[d1_schema("DB", "./migrations")]))
    folder = (project / "migrations").resolve()
    setup = spec.load_message()["worker"]["kinds"]["d1"]["bindings"]["DB"]["setup"]
    assert [
        {"path": str(folder / name), "text": (folder / name).read_text()} for name in ("0001_create.sql", "0002_alter.sql", "0010_index.sql")
    ] == setup["files"]
    assert any("applying the 3 .sql files of migrations/ (the setup's d1_schema)" in s for s in spec.assumptions)


def test_the_configs_migrations_dir_resets_a_binding_the_setup_names_no_schema_for(project):
    """AUDIT's migrations_dir is applied (it is no longer unset); DB keeps the setup's schema file."""
    (project / "wrangler.jsonc").write_text(CONFIG.replace('{"binding": "AUDIT"}', '{"binding": "AUDIT", "migrations_dir": "audit"}'))
    migrations(project / "audit", "0001_log.sql")
    spec = prepare_worker(scenario_in(project))
    assert (["schema.sql"], ["0001_log.sql"]) == (schema_files(spec, "DB"), schema_files(spec, "AUDIT"))
    assert any("AUDIT is reset by applying the 1 .sql files of audit/ (the migrations_dir of wrangler.jsonc" in s for s in spec.assumptions)


def test_wranglers_default_migrations_folder_is_used_and_a_setup_schema_wins_over_it(project):
    """Without migrations_dir, ./migrations beside the config is wrangler's default; a d1_schema step wins over it."""
    migrations(project / "migrations", "0001_create.sql")
    spec = prepare_worker(scenario_in(project))
    assert (["schema.sql"], ["0001_create.sql"]) == (schema_files(spec, "DB"), schema_files(spec, "AUDIT"))


@pytest.mark.parametrize(
    ("config", "setup", "problem"),
    [
        ('{"binding": "AUDIT", "migrations_dir": "nowhere"}', None, "names migrations_dir 'nowhere', which is not a directory holding .sql files"),
        ('{"binding": "AUDIT"}', "./empty", r"setup\[1\]: d1_schema\('AUDIT', './empty'\): the migrations directory holds no .sql file \(.*empty\)"),
    ],
)
def test_a_migrations_directory_without_sql_files_is_refused(project, config, setup, problem):
    """A migrations_dir that is missing, or a d1_schema directory with no .sql file, is a UserError naming it."""
    (project / "wrangler.jsonc").write_text(CONFIG.replace('{"binding": "AUDIT"}', config))
    (project / "empty").mkdir()
    steps = [d1_schema("DB", "./schema.sql")] + ([d1_schema("AUDIT", setup)] if setup else [])
    with pytest.raises(UserError, match=problem):
        prepare_worker(scenario_in(project, setup=steps))
