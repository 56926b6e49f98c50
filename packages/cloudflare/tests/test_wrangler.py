"""Reading wrangler configs: JSONC and TOML with one meaning, environments as wrangler applies them, mistakes named."""

from pathlib import Path

import attrs
import pytest

from eutaxy.cloudflare import wrangler
from eutaxy.cloudflare.bindings.d1 import D1
from eutaxy.cloudflare.bindings.queue_consumer import MAX_RETRIES_DEFAULT, consumer_of
from eutaxy.cloudflare.bindings.queue_producer import producers
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
              {"queue": "refunds", "max_retries": 5, "dead_letter_queue": "refunds-dlq", "retry_delay": 120},
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
    d1 = [binding for binding in config.bindings if binding.kind == "d1"]
    assert [("DB", "abc"), ("AUDIT", "audit")] == [(binding.name, D1.resource_of(binding)) for binding in d1]
    assert [{"database_name": "payments"}, {"database_name": "audit"}] == [dict(binding.fields) for binding in d1]
    payments = consumer_of(config, "payments")
    assert (3, "default", 1) == (payments.max_retries, payments.max_retries_source, payments.max_batch_size)
    refunds = consumer_of(config, "refunds")
    assert (5, "config", "refunds-dlq") == (refunds.max_retries, refunds.max_retries_source, refunds.dead_letter_queue)
    # max_batch_size: the config's, else Cloudflare's default 10, each with its source.
    assert [(1, "config"), (10, "default")] == [(c.max_batch_size, c.max_batch_size_source) for c in (payments, refunds)]
    assert (0, 120) == (payments.retry_delay_s, refunds.retry_delay_s)
    assert [("OUT", "receipts")] == producers(config)
    objects = [binding for binding in config.bindings if binding.kind == "durable_object"]
    assert [("COUNTER", "Counter", {})] == [(binding.name, binding.resource, dict(binding.fields)) for binding in objects]
    kinds = {(binding.kind, binding.name) for binding in config.bindings}
    assert {
        ("d1", "DB"), ("d1", "AUDIT"), ("kv", "CACHE"), ("ai", "AI"), ("hyperdrive", "PG"), ("r2", "FILES"),
        ("queue_consumer", "payments"), ("queue_consumer", "refunds"), ("queue_producer", "OUT"), ("durable_object", "COUNTER"),
    } == kinds
    assert {"MODE": "test"} == config.vars


def test_default_max_retries_is_cloudflares_documented_three():
    """Eutaxy follows Cloudflare's documentation (3), not Miniflare's README (2)."""
    assert 3 == MAX_RETRIES_DEFAULT


def test_plain_json_config_is_read(project):
    """wrangler.json (no comments) is read the same way."""
    path = write(project, "wrangler.json", '{"main": "worker.ts", "compatibility_date": "2026-01-01"}')
    assert (project / "worker.ts").resolve() == wrangler.read_config(path).main


TOML_TWIN = """
name = "payments"
main = "./worker.ts"
compatibility_date = "2026-01-01"
compatibility_flags = ["nodejs_compat"]
vars = { MODE = "test" }

[[d1_databases]]
binding = "DB"
database_name = "payments"
database_id = "abc"
migrations_dir = "db/migrations"

[[queues.producers]]
binding = "OUT"
queue = "receipts"

[[queues.consumers]]
queue = "payments"
max_batch_size = 1

[[kv_namespaces]]
binding = "CACHE"
id = "kv1"

[durable_objects]
bindings = [{ name = "COUNTER", class_name = "Counter" }]
"""

JSONC_TWIN = """{
  // the same Worker, written as JSONC
  "name": "payments",
  "main": "./worker.ts",
  "compatibility_date": "2026-01-01",
  "compatibility_flags": ["nodejs_compat"],
  "vars": {"MODE": "test"},
  "d1_databases": [{"binding": "DB", "database_name": "payments", "database_id": "abc", "migrations_dir": "db/migrations"}],
  "queues": {"producers": [{"binding": "OUT", "queue": "receipts"}], "consumers": [{"queue": "payments", "max_batch_size": 1}]},
  "kv_namespaces": [{"binding": "CACHE", "id": "kv1"}],
  "durable_objects": {"bindings": [{"name": "COUNTER", "class_name": "Counter"}]},
}"""


def d1_binding(config, name):
    """The config's D1 binding ``name`` (a registered kind's binding: eutaxy.cloudflare.bindings.d1)."""
    return next(binding for binding in config.bindings if binding.kind == "d1" and binding.name == name)


def test_toml_config_means_what_its_jsonc_twin_means(project):
    """A wrangler.toml is read with tomllib and gives the same config as the JSONC it mirrors (paths aside)."""
    from_toml = wrangler.read_config(write(project, "wrangler.toml", TOML_TWIN))
    from_jsonc = wrangler.read_config(write(project, "wrangler.jsonc", JSONC_TWIN))
    assert from_toml.path.name == "wrangler.toml"
    assert attrs.evolve(from_toml, path=from_jsonc.path) == from_jsonc
    assert "db/migrations" == d1_binding(from_toml, "DB").fields["migrations_dir"]


def test_toml_syntax_error_names_file_and_line(project):
    """A TOML syntax error is a UserError with file:line:column and tomllib's problem."""
    path = write(project, "wrangler.toml", 'name = "w"\nmain = "worker.ts"\ncompatibility_date = 2026-01-01-\n')
    with pytest.raises(UserError, match=r"wrangler\.toml:3:\d+: not valid TOML: "):
        wrangler.read_config(path)


def test_toml_error_at_the_end_names_the_last_line(project):
    """An error tomllib places at the end of the document is reported at the file's last line."""
    path = write(project, "wrangler.toml", 'name = "w"\nflags = [\n')
    with pytest.raises(UserError, match=r"wrangler\.toml:2:1: not valid TOML"):
        wrangler.read_config(path)


def test_an_unquoted_toml_date_is_refused_as_wrangler_refuses_it(project):
    """TOML's bare date is not the string wrangler needs; the message shows the quoted form."""
    path = write(project, "wrangler.toml", 'main = "worker.ts"\ncompatibility_date = 2026-01-01\n')
    with pytest.raises(UserError, match=r'wrangler\.toml:2: compatibility_date must be a quoted string such as "2026-01-01"'):
        wrangler.read_config(path)


@pytest.mark.parametrize("date", ["2026-02-30", "2026-1-01", "next week", "20260101", "2026-13-01"])
def test_a_compatibility_date_that_is_not_a_date_is_refused(project, date):
    """Anything but a real calendar date written YYYY-MM-DD is a UserError naming the file and what came."""
    path = write(project, "wrangler.jsonc", f'{{"main": "worker.ts", "compatibility_date": "{date}"}}')
    with pytest.raises(UserError) as caught:
        wrangler.read_config(path)
    assert "wrangler.jsonc:1: compatibility_date must be a calendar date" in str(caught.value)
    assert repr(date) in str(caught.value)


def test_a_bad_date_in_an_environment_names_the_environments_line(project):
    """The line is the one that sets the date the reader refused: the environment's own, not the top level's."""
    path = write(project, "wrangler.toml", 'main = "worker.ts"\ncompatibility_date = "2026-01-01"\n\n'
                 '[env.staging]\ncompatibility_date = "2026-02-30"\n')
    assert "2026-01-01" == wrangler.read_config(path).compatibility_date
    with pytest.raises(UserError, match=r"wrangler\.toml:5: compatibility_date must be a calendar date.*got '2026-02-30'"):
        wrangler.read_config(path, env="staging")


def test_a_main_that_does_not_exist_names_its_line(project):
    path = write(project, "wrangler.jsonc", '{\n  "compatibility_date": "2026-01-01",\n  "main": "./src/index.ts",\n}')
    with pytest.raises(UserError, match=r"wrangler\.jsonc:3: main names './src/index.ts', which does not exist"):
        wrangler.read_config(path)


ENVIRONMENTS = """
name = "shop"
main = "./worker.ts"
compatibility_date = "2026-01-01"
compatibility_flags = ["nodejs_compat"]
vars = { MODE = "top" }

[[d1_databases]]
binding = "DB"
database_name = "shop"

[env.staging]
compatibility_date = "2026-02-01"
vars = { MODE = "staging" }

[[env.staging.d1_databases]]
binding = "DB"
database_name = "shop-staging"

[env.bare]
name = "shop-bare-worker"
"""


def test_an_environment_overrides_and_inherits_as_wrangler_does(project):
    """Inheritable keys come from the top level unless set; vars and bindings come from the environment alone."""
    path = write(project, "wrangler.toml", ENVIRONMENTS)
    top = wrangler.read_config(path)
    assert (None, ("staging", "bare")) == (top.environment, top.environments)
    assert ("shop", "2026-01-01", {"MODE": "top"}) == (top.name, top.compatibility_date, top.vars)
    staging = wrangler.read_config(path, env="staging")
    assert ("staging", "shop-staging") == (staging.environment, staging.name)
    assert "2026-02-01" == staging.compatibility_date
    assert ("nodejs_compat",) == staging.compatibility_flags
    assert top.main == staging.main
    assert {"MODE": "staging"} == staging.vars
    assert "shop-staging" == D1.resource_of(d1_binding(staging, "DB"))


def test_an_environment_that_sets_no_bindings_has_none(project):
    """Non-inheritable keys are not inherited: an environment without vars or d1_databases has neither."""
    bare = wrangler.read_config(write(project, "wrangler.toml", ENVIRONMENTS), env="bare")
    assert ("shop-bare-worker", {}, []) == (bare.name, bare.vars, [binding for binding in bare.bindings if binding.kind == "d1"])
    assert "2026-01-01" == bare.compatibility_date


def test_an_unknown_environment_names_the_ones_that_exist(project):
    """--env naming no environment is a UserError listing the environments the config defines."""
    path = write(project, "wrangler.toml", ENVIRONMENTS)
    with pytest.raises(UserError, match=r"there is no environment 'prod'; it defines 'staging', 'bare'"):
        wrangler.read_config(path, env="prod")
    plain = write(project, "wrangler.jsonc", '{"main": "worker.ts"}')
    with pytest.raises(UserError, match=r"there is no environment 'prod'; it defines none"):
        wrangler.read_config(plain, env="prod")


def test_environments_read_the_same_from_jsonc(project):
    """The JSONC form of environments means the same as the TOML one."""
    path = write(
        project,
        "wrangler.jsonc",
        """{"name": "shop", "main": "./worker.ts", "compatibility_date": "2026-01-01", "vars": {"MODE": "top"},
           "env": {"staging": {"vars": {"MODE": "staging"}}}}""",
    )
    staging = wrangler.read_config(path, env="staging")
    assert ("shop-staging", {"MODE": "staging"}, "2026-01-01") == (staging.name, staging.vars, staging.compatibility_date)


def test_find_config_prefers_json_then_jsonc_then_toml(project):
    """Beside a scenario the config is found as wrangler finds it (json, jsonc, toml); a lone TOML is found and read."""
    write(project, "wrangler.toml", "")
    assert "wrangler.toml" == wrangler.find_config(project).name
    write(project, "wrangler.jsonc", "{}")
    assert "wrangler.jsonc" == wrangler.find_config(project).name
    write(project, "wrangler.json", "{}")
    assert "wrangler.json" == wrangler.find_config(project).name


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
        ('{"queues": {"consumers": [{"queue": "q", "retry_delay": 43201}]}}', "retry_delay .* between 0 and 43200 seconds"),
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


def rules_of(project: Path, rules: str) -> list[tuple[str, tuple[str, ...]]]:
    config = f'{{"main": "./worker.ts", "compatibility_date": "2026-01-01", "rules": {rules}}}'
    return [(rule.type, rule.globs) for rule in wrangler.read_config(write(project, "wrangler.jsonc", config)).module_rules]


def test_wranglers_default_module_rules_apply_without_rules(project):
    """.txt, .html and .sql are text, .bin data, .wasm compiled WebAssembly, as wrangler's defaults say."""
    assert [
        ("Text", ("**/*.txt", "**/*.html", "**/*.sql")),
        ("Data", ("**/*.bin",)),
        ("CompiledWasm", ("**/*.wasm", "**/*.wasm?module")),
    ] == rules_of(project, "[]")


def test_a_rule_without_fallthrough_replaces_the_default_of_its_type(project):
    """The config's Text rule comes first and, without fallthrough, drops the default Text rule and later Text rules."""
    assert [
        ("Text", ("**/*.md",)),
        ("Data", ("**/*.bin",)),
        ("CompiledWasm", ("**/*.wasm", "**/*.wasm?module")),
    ] == rules_of(project, '[{"type": "Text", "globs": ["**/*.md"]}, {"type": "Text", "globs": ["**/*.csv"]}]')


def test_a_rule_with_fallthrough_keeps_the_default_of_its_type(project):
    rules = rules_of(project, '[{"type": "Text", "globs": ["**/*.md"], "fallthrough": true}]')
    assert [("Text", ("**/*.md",)), ("Text", ("**/*.txt", "**/*.html", "**/*.sql"))] == rules[:2]


@pytest.mark.parametrize(
    ("rules", "problem"),
    [
        ('[{"type": "Markdown", "globs": ["**/*.md"]}]', "rules[0].type must be one of ESModule, CommonJS"),
        ('[{"type": "Text", "globs": []}]', "rules[0].globs must be a non-empty list"),
        ('[{"type": "Text", "globs": ["*.md"], "fallthrough": "yes"}]', "rules[0].fallthrough must be true or false"),
        ('{"type": "Text"}', "rules must be a list"),
    ],
)
def test_a_malformed_rule_is_named(project, rules, problem):
    with pytest.raises(UserError, match="wrangler.jsonc:1: " + problem.replace("[", r"\[").replace("]", r"\]")):
        rules_of(project, rules)


def test_tsconfig_is_resolved_from_the_config_and_a_missing_one_named(project):
    write(project, "tsconfig.build.json", "{}")
    config = '{"main": "./worker.ts", "compatibility_date": "2026-01-01", "tsconfig": "./tsconfig.build.json"}'
    assert (project / "tsconfig.build.json").resolve() == wrangler.read_config(write(project, "wrangler.jsonc", config)).tsconfig
    missing = '{"main": "./worker.ts", "compatibility_date": "2026-01-01",\n "tsconfig": "./nope.json"}'
    with pytest.raises(UserError, match=r"wrangler.jsonc:2: tsconfig names './nope.json', which does not exist"):
        wrangler.read_config(write(project, "wrangler.jsonc", missing))


def test_find_additional_modules_is_refused_by_name(project):
    config = '{"main": "./worker.ts", "compatibility_date": "2026-01-01",\n "find_additional_modules": true}'
    with pytest.raises(UserError, match=r"wrangler.jsonc:2: find_additional_modules: Refused \(exit 2\)"):
        wrangler.read_config(write(project, "wrangler.jsonc", config))
