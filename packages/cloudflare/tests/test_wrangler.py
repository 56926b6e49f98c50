"""Reading wrangler configs: JSONC accepted, TOML refused, mistakes named."""

from pathlib import Path

import pytest

from eutaxy.cloudflare import wrangler
from eutaxy.core.errors import UserError


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "worker.ts", "export default {};\n")
    return tmp_path


def test_jsonc_config_gives_entry_dates_and_bindings(project):
    """A JSONC config with comments and trailing commas yields every binding section."""
    path = write(
        project,
        "wrangler.jsonc",
        """{
          // the Worker
          "name": "payments",
          "main": "./worker.ts",
          "compatibility_date": "2026-01-01",
          "compatibility_flags": ["nodejs_compat",],
          "d1_databases": [
            {"binding": "DB", "database_name": "payments", "database_id": "abc"},
            {"binding": "AUDIT", "database_name": "audit"},
          ],
          "queues": {
            "producers": [{"binding": "OUT", "queue": "receipts"}],
            "consumers": [
              {"queue": "payments", "max_batch_size": 1},
              {"queue": "refunds", "max_retries": 5, "dead_letter_queue": "refunds-dlq"},
            ],
          },
          "kv_namespaces": [{"binding": "CACHE", "id": "kv1"}],
          "ai": {"binding": "AI"},
          "hyperdrive": [{"binding": "PG", "id": "h1"}],
          "r2_buckets": [{"binding": "FILES", "bucket_name": "files"}],
          "durable_objects": {"bindings": [{"name": "COUNTER", "class_name": "Counter"}]},
          "vars": {"MODE": "test"},
        }""",
    )
    config = wrangler.read_config(path)
    assert "payments" == config.name
    assert (project / "worker.ts").resolve() == config.main
    assert "2026-01-01" == config.compatibility_date
    assert ("nodejs_compat",) == config.compatibility_flags
    assert [("DB", "abc"), ("AUDIT", "audit")] == [(d.binding, d.database_id) for d in config.d1_databases]
    payments = config.consumer("payments")
    assert (3, "default", 1) == (payments.max_retries, payments.max_retries_source, payments.max_batch_size)
    refunds = config.consumer("refunds")
    assert (5, "config", "refunds-dlq") == (refunds.max_retries, refunds.max_retries_source, refunds.dead_letter_queue)
    assert (("OUT", "receipts"),) == config.queue_producers
    assert (("COUNTER", "Counter", None),) == config.durable_objects
    kinds = {(binding.kind, binding.name) for binding in config.bindings}
    assert {("kv", "CACHE"), ("ai", "AI"), ("hyperdrive", "PG"), ("r2", "FILES")} == kinds
    assert {"MODE": "test"} == config.vars


def test_default_max_retries_is_cloudflares_documented_three():
    """Eutaxy follows Cloudflare's documentation (3), not Miniflare's README (2)."""
    assert 3 == wrangler.MAX_RETRIES_DEFAULT


def test_plain_json_config_is_read(project):
    """wrangler.json (no comments) is read the same way."""
    path = write(project, "wrangler.json", '{"main": "worker.ts", "compatibility_date": "2026-01-01"}')
    assert (project / "worker.ts").resolve() == wrangler.read_config(path).main


def test_toml_config_is_refused_with_the_conversion(project):
    """A TOML config is a UserError that says to convert it to wrangler.jsonc."""
    path = write(project, "wrangler.toml", 'main = "worker.ts"\n')
    with pytest.raises(UserError, match="convert it to wrangler.jsonc"):
        wrangler.read_config(path)


def test_find_config_prefers_jsonc_and_finds_toml_to_refuse_it(project):
    """Beside a scenario the config is found as wrangler finds it; a lone TOML is found, then refused."""
    write(project, "wrangler.toml", "")
    assert "wrangler.toml" == wrangler.find_config(project).name
    write(project, "wrangler.jsonc", "{}")
    assert "wrangler.jsonc" == wrangler.find_config(project).name


def test_no_config_at_all_names_the_directory(tmp_path):
    """A directory without any config is a UserError naming it."""
    with pytest.raises(UserError, match=str(tmp_path)):
        wrangler.find_config(tmp_path)


def test_missing_entry_file_is_named(project):
    """main naming a file that does not exist is a UserError naming the config and the file."""
    path = write(project, "wrangler.jsonc", '{"main": "./src/missing.ts"}')
    with pytest.raises(UserError) as caught:
        wrangler.read_config(path)
    assert "wrangler.jsonc" in str(caught.value)
    assert "missing.ts" in str(caught.value)


def test_malformed_config_names_file_line_and_problem(project):
    """A syntax error is a UserError with file:line:column."""
    path = write(project, "wrangler.jsonc", '{\n  "main": "worker.ts"\n  "name": "x"\n}')
    with pytest.raises(UserError, match=r"wrangler\.jsonc:3:3: not valid JSONC"):
        wrangler.read_config(path)


def test_missing_config_file_is_named(project):
    """A config path that does not exist is a UserError, not a traceback."""
    with pytest.raises(UserError, match="does not exist"):
        wrangler.read_config(project / "nope.jsonc")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[]", "top level must be an object"),
        ('{"d1_databases": {"binding": "DB"}}', "d1_databases must be a list"),
        ('{"d1_databases": [{"database_name": "x"}]}', r"d1_databases\[0\] needs binding"),
        ('{"queues": {"consumers": [{"queue": "q", "max_retries": 101}]}}', "between 0 and 100"),
        ('{"queues": {"consumers": [{"queue": "q", "max_retries": "3"}]}}', "must be an integer"),
        ('{"queues": {"consumers": [{"queue": "q", "max_batch_size": 0}]}}', "max_batch_size .* between 1 and 100"),
        ('{"queues": {"consumers": [{"queue": "q", "max_batch_size": 101}]}}', "max_batch_size .* between 1 and 100"),
        ('{"queues": {"consumers": [{"queue": "q"}, {"queue": "q"}]}}', "names 'q' twice"),
        ('{"compatibility_flags": "nodejs_compat"}', "list of strings"),
    ],
)
def test_shape_mistakes_name_the_field(project, text, problem):
    """Each shape mistake is a UserError naming the field at fault."""
    path = write(project, "wrangler.jsonc", text)
    with pytest.raises(UserError, match=problem):
        wrangler.read_config(path)
