"""D1 statements classed by what they do; the vector file the runtime's isRead also checks."""

import json
from pathlib import Path

from eutaxy.core import statements
from eutaxy.core.statements import classify_d1_payload, statement_class

VECTORS = Path(statements.__file__).with_name("d1_statements.json")


def test_every_vector_has_its_class():
    """The shared vectors: reads, writes (RETURNING and upserts included) and schema changes."""
    vectors = json.loads(VECTORS.read_text())["vectors"]
    assert {"read", "write", "schema"} == {v["class"] for v in vectors}
    assert [v["class"] for v in vectors] == [statement_class(v["sql"]) for v in vectors]


def test_batches_and_scripts_write_when_any_statement_writes():
    """A batch (or exec script) writes if one statement does, reads if all read."""
    batch = {"args": {"statements": [{"sql": "SELECT 1", "params": []}, {"sql": "UPDATE t SET n = 1", "params": []}]}}
    assert "write" == classify_d1_payload("batch", batch)
    assert "read" == classify_d1_payload("batch", {"args": {"statements": [{"sql": "SELECT 1", "params": []}]}})
    assert "schema" == classify_d1_payload("exec", {"args": {"sql": "CREATE TABLE t (k);\nCREATE INDEX i ON t (k);", "params": []}})
    assert "write" == classify_d1_payload("exec", {"args": {"sql": "CREATE TABLE t (k);\nINSERT INTO t VALUES (1);", "params": []}})
    assert "write" == classify_d1_payload("all", {"args": {"sql": "INSERT INTO t (k) VALUES (?) RETURNING *", "params": [1]}})
    assert classify_d1_payload("run", {"rows": []}) is None
