"""Vars and secrets: .dev.vars as dotenv, the three sources' order, and secrets kept out of results."""

from pathlib import Path

import pytest

from eutaxy.cloudflare.variables import dev_vars_path, parse_dev_vars, redact, secret_files, worker_variables
from eutaxy.core.errors import UserError

DOTENV = """\
# local secrets
API_KEY=abc123 # the sandbox key
export REGION = eu
EMPTY=
SINGLE='kept #as $written\\n'
DOUBLE="line one\\nline two"
BACKTICK=`a "quoted" word`
MULTI="first
second"
API_KEY=later-wins
"""


def test_dev_vars_are_read_as_dotenv():
    """Comments, export, trimming, the three quotes, a multi-line value; a later line wins a name."""
    assert {
        "API_KEY": "later-wins",
        "REGION": "eu",
        "EMPTY": "",
        "SINGLE": "kept #as $written\\n",
        "DOUBLE": "line one\nline two",
        "BACKTICK": 'a "quoted" word',
        "MULTI": "first\nsecond",
    } == parse_dev_vars(DOTENV, Path(".dev.vars"))


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("A=1\nthis is not an assignment hunter2\n", ".dev.vars:2: expected NAME=value"),
        ('A=1\nB="hunter2\n', ".dev.vars:2: the value of B opens a \" quote that never closes"),
        ("B='hunter2' trailing\n", ".dev.vars:1: the value of B has text after its closing ' quote"),
    ],
)
def test_a_dev_vars_mistake_names_the_line_and_never_the_value(text, where):
    """A line that is not an assignment, or a quote left open, is refused at its line; no value is quoted."""
    with pytest.raises(UserError) as caught:
        parse_dev_vars(text, Path(".dev.vars"))
    assert where in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_dev_vars_env_replaces_dev_vars_when_it_exists(tmp_path):
    """With an environment, .dev.vars.<env> is read instead of .dev.vars; without it, .dev.vars."""
    config = tmp_path / "wrangler.toml"
    assert dev_vars_path(config, None) is None
    (tmp_path / ".dev.vars").write_text("A=1\n")
    assert tmp_path / ".dev.vars" == dev_vars_path(config, "staging")
    (tmp_path / ".dev.vars.staging").write_text("A=2\n")
    assert tmp_path / ".dev.vars.staging" == dev_vars_path(config, "staging")
    assert tmp_path / ".dev.vars" == dev_vars_path(config, None)


def test_env_files_are_read_when_there_is_no_dev_vars_and_merged_most_specific_last(tmp_path):
    """Without .dev.vars, wrangler reads .env, .env.<env>, .env.local, .env.<env>.local, the later winning a name."""
    config = tmp_path / "wrangler.toml"
    assert () == secret_files(config, "staging")
    for name in (".env", ".env.staging", ".env.local", ".env.staging.local", ".env.prod"):
        (tmp_path / name).write_text(f"FROM={name}\nONLY_{name.replace('.', '_').upper()}=x1234\n")
    assert [".env", ".env.local"] == [path.name for path in secret_files(config, None)]
    files = secret_files(config, "staging")
    assert [".env", ".env.staging", ".env.local", ".env.staging.local"] == [path.name for path in files]
    merged = worker_variables({"FROM": "config"}, "wrangler.toml", files, {}, {})
    assert ".env.staging.local" == merged.values["FROM"] == merged.sources["FROM"]
    assert {"FROM", "ONLY__ENV", "ONLY__ENV_STAGING", "ONLY__ENV_LOCAL", "ONLY__ENV_STAGING_LOCAL"} == set(merged.secrets)
    assert "ONLY__ENV_PROD" not in merged.values


def test_a_dev_vars_file_shadows_every_env_file(tmp_path):
    """Either .dev.vars or .env, never both: a .dev.vars (or .dev.vars.<env>) is the only file read."""
    config = tmp_path / "wrangler.toml"
    (tmp_path / ".env").write_text("A=from-env\n")
    (tmp_path / ".dev.vars.staging").write_text("A=from-dev-vars-staging\n")
    assert [".dev.vars.staging"] == [path.name for path in secret_files(config, "staging")]
    assert [".env"] == [path.name for path in secret_files(config, None)]
    (tmp_path / ".dev.vars").write_text("A=from-dev-vars\n")
    assert [".dev.vars"] == [path.name for path in secret_files(config, None)]


def test_later_sources_win_and_decide_what_is_secret(tmp_path):
    """config vars < .dev.vars < scenario; .dev.vars and scenario secrets are secret, vars are not."""
    dev_vars = tmp_path / ".dev.vars"
    dev_vars.write_text("MODE=dev\nAPI_KEY=dev-key\nDB_PASSWORD=pw-1234\n")
    merged = worker_variables(
        {"MODE": "config", "LIMIT": 5},
        "wrangler.toml",
        [dev_vars],
        {"DB_PASSWORD": "not-secret-here"},
        {"TOKEN": "scenario-token"},
    )
    assert {
        "MODE": "dev", "LIMIT": 5, "API_KEY": "dev-key", "DB_PASSWORD": "not-secret-here", "TOKEN": "scenario-token"
    } == dict(merged.values)
    assert {"MODE": "dev", "API_KEY": "dev-key", "TOKEN": "scenario-token"} == dict(merged.secrets)
    assert ".dev.vars" == merged.sources["MODE"] and "the scenario" == merged.sources["DB_PASSWORD"]
    sentence = merged.assumption()
    assert "vars LIMIT (wrangler.toml), DB_PASSWORD (the scenario)" in sentence
    assert "secrets MODE (.dev.vars), API_KEY (.dev.vars), TOKEN (the scenario)" in sentence
    for value in ("dev-key", "scenario-token", "dev"):
        assert f" {value}" not in sentence and f"{value}," not in sentence
    assert "dev-key" not in repr(merged) and "scenario-token" not in repr(merged)


def test_redact_replaces_every_secret_value_in_plain_data():
    """Whole strings and substrings are replaced by the name; a short secret only where a whole string is it."""
    secrets = {"API_KEY": "abc123", "PIN": "42", "LONG": "abc123-extra"}
    data = {
        "effects": [{"payload": {"params": ["abc123", "Bearer abc123", "42", "x42x", "abc123-extra!"]}}],
        "end": {"detail": "token abc123 refused"},
        "count": 42,
    }
    assert {
        "effects": [{"payload": {"params": [
            "<secret API_KEY>", "Bearer <secret API_KEY>", "<secret PIN>", "x42x", "<secret LONG>!"
        ]}}],
        "end": {"detail": "token <secret API_KEY> refused"},
        "count": 42,
    } == redact(data, secrets)
    assert data is redact(data, {})
