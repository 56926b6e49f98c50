"""Durable Objects on the Python side: the durable_object() step, the load message, the checks before Node starts."""

import json
from pathlib import Path

import jsonschema
import pytest

from eutaxy.cloudflare import do_call, durable_object, durable_object_rows, durable_object_table, http
from eutaxy.cloudflare.bindings.durable_object import DURABLE_OBJECT
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError

import worker_project
from worker_project import write_project

CONFIG = """{
  "name": "objects",
  "main": "./worker.ts",
  "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [
    {"name": "COUNTER", "class_name": "Counter"},
    {"name": "NOTES", "class_name": "Notes"},
    {"name": "ROOMS", "class_name": "Room", "script_name": "chat"},
  ]},
  "migrations": [
    {"tag": "v1", "new_classes": ["Notes"]},
    {"tag": "v2", "new_sqlite_classes": ["Tally"]},
    {"tag": "v3", "renamed_classes": [{"from": "Tally", "to": "Counter"}]},
  ],
}"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path, CONFIG)


def scenario_in(project: Path, setup):
    return worker_project.scenario_in(project, worker={"config": "./wrangler.jsonc"}, setup=setup, drive=http([{"path": "/"}]))


def test_the_step_carries_objects_and_sql_as_plain_data():
    step = durable_object("COUNTER", {"site": {"count": 0}}, sql={"site": {"schema": "CREATE TABLE t (a)", "rows": {"t": [{"a": 1}, {}]}}})
    assert {
        "kind": "durable_object",
        "binding": "COUNTER",
        "objects": {"site": {"count": 0}},
        "sql": {"site": {"schema": "CREATE TABLE t (a)", "rows": {"t": [{"a": 1}, {}]}}},
    } == step
    assert {"kind": "durable_object", "binding": "COUNTER", "objects": {}, "sql": {}} == durable_object("COUNTER")


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (lambda: durable_object(""), "binding must be a binding name"),
        (lambda: durable_object("C", {"a/b": {}}), "an object's name must be a non-empty string without '/'"),
        (lambda: durable_object("C", sql={"a": {"rows": {"x/y": []}}}), "a table's name must be a non-empty string without '/'"),
        (lambda: durable_object("C", {"a": {"k": object()}}), r"objects\['a'\] must be JSON data"),
        (lambda: durable_object("C", sql={"a": {"schema": 3}}), "must be SQL text"),
        (lambda: durable_object("C", sql={"a": {"tables": {}}}), "takes schema and rows"),
        (lambda: durable_object("C", sql={"a": {"rows": {"t": [1]}}}), "must be a list of rows"),
    ],
)
def test_a_step_of_the_wrong_shape_is_refused_saying_what_was_expected(call, problem):
    with pytest.raises(UserError, match=problem):
        call()


def test_the_load_message_lists_the_workers_own_classes_with_their_storage(project):
    """Counter is SQLite-backed (its migration renamed a SQLite class), Notes key-value; Room, another Worker's, is a trap."""
    message = prepare_worker(scenario_in(project, [durable_object("COUNTER")])).load_message()
    entry = message["worker"]["kinds"]["durable_object"]
    assert {
        "COUNTER": {
            "resource": "Counter", "settings": {"className": "Counter", "sqlite": True}, "setupHint": 'durable_object("COUNTER")',
            "setup": {"kind": "durable_object", "binding": "COUNTER", "objects": {}, "sql": {}},
        },
        "NOTES": {"resource": "Notes", "settings": {"className": "Notes", "sqlite": False}, "setupHint": 'durable_object("NOTES")', "setup": None},
    } == entry["bindings"]
    objects = {"COUNTER": {"className": "Counter", "useSQLite": True}, "NOTES": {"className": "Notes", "useSQLite": False}}
    assert {"durableObjects": objects} == entry["miniflare"]
    assert ["Counter", "Notes"] == entry["classes"]
    assert [{"kind": "durable_object", "name": "ROOMS"}] == message["worker"]["bindings"]
    assert [] == message["setup"]
    schema = json.loads((Path(__file__).resolve().parents[1] / "runtime" / "host" / "load.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(message)


@pytest.mark.parametrize(
    ("setup", "problem"),
    [
        ([durable_object("COUNTR")], "names DO binding 'COUNTR', which wrangler.jsonc does not declare .*did you mean 'COUNTER'"),
        (
            [durable_object("ROOMS")],
            "names DO binding 'ROOMS', which wrangler.jsonc declares in durable_objects.bindings as a binding Eutaxy does not run \\(it stands in as a trap\\)",
        ),
        (
            [durable_object("NOTES", sql={"n": {"schema": "CREATE TABLE t (a)"}})],
            'class Notes is not SQLite-backed; add a migration .*"new_sqlite_classes": \\["Notes"\\] '
            '\\(a class created with "new_classes" keeps key-value storage',
        ),
        ([durable_object("COUNTER"), durable_object("COUNTER")], "2 durable_object steps for DO binding 'COUNTER'"),
    ],
)
def test_setup_mistakes_are_found_before_node_starts(project, setup, problem):
    with pytest.raises(UserError, match=problem):
        prepare_worker(scenario_in(project, setup))


def test_an_invariant_over_an_object_binding_the_worker_lacks_is_refused(project):
    scenario = scenario_in(project, [durable_object("COUNTER")])
    scenario["invariants"] = [{"kind": "unique", "name": "u", "query": durable_object_table("COUNTR", "site", "t"), "column": "a"}]
    with pytest.raises(UserError, match="names DO:COUNTR, which the Worker does not have"):
        prepare_worker(scenario)


def test_the_selectors_name_the_objects_target_and_tables():
    assert {"target": "DO:COUNTER", "op": "bump", "kind": "result"} == do_call("COUNTER", "bump")
    assert "DO:COUNTER" == durable_object_rows("COUNTER", "site")["target"]
    assert "site" == durable_object_rows("COUNTER", "site")["table"]
    assert "site/hits" == durable_object_table("COUNTER", "site", "hits")["table"]


@pytest.mark.parametrize(
    ("config", "line", "tag"),
    [
        (CONFIG.replace('{"tag": "v1", "new_classes": ["Notes"]},', '{"tag": "v1", "new_classes": []},'), 7, "v4"),
        (CONFIG.replace('    {"tag": "v3", "renamed_classes": [{"from": "Tally", "to": "Counter"}]},\n', ""), 6, "v3"),
        (CONFIG.replace('"new_classes": ["Notes"]', '"new_classes": ["Notes"], "deleted_classes": ["Notes"]'), 7, "v4"),
    ],
    ids=["never-created", "sqlite-class-not-renamed", "deleted"],
)
def test_a_class_in_no_migration_is_refused_at_its_binding_naming_the_migration_to_add(project, config, line, tag):
    """wrangler deploy refuses a Durable Object class no migration creates; so does the check, before Node starts (exit 2)."""
    (project / "wrangler.jsonc").write_text(config)
    with pytest.raises(UserError) as refused:
        prepare_worker(scenario_in(project, [durable_object("COUNTER")]))
    message = str(refused.value)
    assert message.startswith(f"{project / 'wrangler.jsonc'}:{line}: Durable Object class "), message
    assert "is in no migration, so wrangler deploy would refuse it" in message
    expected = "Notes" if line == 7 else "Counter"
    assert f'"migrations": {{"tag": "{tag}", "new_sqlite_classes": ["{expected}"]}}' in message, message


def test_a_class_of_another_script_needs_no_migration_here(project):
    """ROOMS binds chat's Room (script_name): that Worker's migrations, not this one's, create it."""
    config = prepare_worker(scenario_in(project, [durable_object("COUNTER")])).config
    assert "Room" not in DURABLE_OBJECT.classes(config).migrated
