"""``eutaxy draft`` for a service binding: ``callee(...)`` when the Worker behind it is found, else ``service(...)``.

The corpus's order Worker (callee-inventory-double-reserve) binds INVENTORY, the Worker named
``inventory``: drafted beside that Worker's folder, the draft runs it for real and sets up its D1
database under its qualified name, from its own folder; drafted alone, it scripts the binding.
A filled draft loads and prepares (the qualified setup step names a binding the check knows).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from eutaxy.cloudflare import load_scenario
from eutaxy.cloudflare.draft import draft_worker, write_draft
from eutaxy.cloudflare.worker import prepare_worker

CASE = Path(__file__).resolve().parents[3] / "corpus" / "planted-bugs" / "callee-inventory-double-reserve"


def _copy(into: Path, *workers: str) -> Path:
    for worker in workers:
        shutil.copytree(CASE / worker, into / worker)
    return into


def test_a_binding_whose_worker_is_found_beside_is_a_callee_with_its_bindings_qualified(tmp_path):
    root = _copy(tmp_path, "orders", "inventory")
    draft = draft_worker(root / "orders" / "wrangler.jsonc")
    assert [("d1_schema", "DB"), ("callee", "INVENTORY")] == [(step["kind"], step["binding"]) for step in draft.setup]
    assert "../inventory/wrangler.jsonc" == draft.setup[1]["config"]
    assert 'callee("INVENTORY", config="../inventory/wrangler.jsonc"),' in draft.source
    assert " service," not in draft.source  # nothing scripted, nothing imported for it
    assert 'd1_schema("inventory/DB", "../inventory/schema.sql"),' in draft.source
    assert any(note.text.startswith("service binding INVENTORY: Worker inventory runs for real") for note in draft.notes)
    # Filled, it loads and prepares: inventory/DB is a binding the check knows.
    path = write_draft(draft)
    events = '[{"method": "POST", "path": "/orders", "body": {"orderId": "o-1", "sku": "widget", "qty": 1}}]'
    source = re.sub(r'todo\("events", "[^"]*"\)', events, draft.source)
    path.write_text(re.sub(r'todo\("invariants", "[^"]*"\),', "", source))
    spec = prepare_worker(load_scenario(path))
    assert ["INVENTORY"] == [one.binding for one in spec.load.callees]
    assert spec.load.kinds["d1"]["bindings"]["inventory/DB"]["setup"] is not None


def test_a_binding_whose_worker_is_not_found_is_scripted(tmp_path):
    root = _copy(tmp_path, "orders")
    draft = draft_worker(root / "orders" / "wrangler.jsonc")
    assert ["d1_schema", "service"] == [step["kind"] for step in draft.setup]
    assert "callee(" not in draft.source
