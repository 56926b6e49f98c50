"""The registered binding kinds (eutaxy.cloudflare.bindings): their ladders are one vector file's rows, their registry refuses clashes.

bindings/ladders.json names, per kind and operation, the core ladder the operation takes; the
Python records send those ladders in the load message and the runtime's records read them
there. The runtime's own tests build their load messages from the same file
(runtime/test/helpers.mjs ``kindPolicy``), so a changed row fails both suites.
"""

import json
from pathlib import Path

import attrs
import pytest

from eutaxy.cloudflare import bindings
from eutaxy.cloudflare.bindings.kv import KV
from eutaxy.core import faults

LADDERS = Path(bindings.__file__).resolve().with_name("ladders.json")
CORE_LADDERS = Path(faults.__file__).resolve().with_name("vectors") / "ladders.json"


def test_each_registered_kinds_operations_are_the_vector_files_rows():
    """Every built-in kind has its row, and each operation takes the core ladder the row names."""
    rows = json.loads(LADDERS.read_text(encoding="utf-8"))["kinds"]
    assert {kind.name: dict(kind.operations) for kind in bindings.registered()} == rows
    core = json.loads(CORE_LADDERS.read_text(encoding="utf-8"))["ladders"]
    for kind in bindings.registered():
        assert {op: core[ladder] for op, ladder in rows[kind.name].items()} == kind.policy()["ladders"], kind.name


def test_each_registered_kinds_other_policy_is_the_vector_files_row():
    """What a record's policy sends beyond its ladders (a Durable Object alarm's retry delays) is the file's policies row."""
    policies = json.loads(LADDERS.read_text(encoding="utf-8"))["policies"]
    sent = {kind.name: {key: value for key, value in kind.policy().items() if key != "ladders"} for kind in bindings.registered()}
    assert policies == {name: policy for name, policy in sent.items() if policy}


def test_the_registry_refuses_a_second_kind_with_a_name_section_label_or_step_taken():
    """Two kinds reading one section or one setup step would each see the other's bindings: refused.
    A label may be shared (a queue's consumer and producers both name ``Queue:<queue>``)."""
    step = KV.setup
    for clash in ({"name": "kv"}, {"section": "kv_namespaces"}, {"setup": step}):
        fields = {"name": "other", "section": "others", "names": attrs.evolve(KV.names, label="Other"), "setup": attrs.evolve(step, name="other_step")} | clash
        with pytest.raises(AssertionError):
            bindings.register(type(KV)(**{**_fields(KV), **fields}))
    registered = ["d1", "kv", "r2", "queue_consumer", "queue_producer", "durable_object", "assets", "workflow", "service"]
    assert registered == [kind.name for kind in bindings.registered()]


def _fields(kind):
    return {field: getattr(kind, field) for field in ("name", "names", "section", "resource_field", "section_note", "setup", "miniflare_option")}
