"""KV setup steps: the keys a namespace holds when each run starts.

Before each run the runtime empties every KV namespace the Worker's config declares
and writes the ``kv_namespace`` step's entries into it, through Miniflare's real
namespace and outside the effect log (runtime/bindings/kv.mjs). A namespace no step
names starts empty each run, so nothing carries over from one run to the next.

An entry is ``key: value`` or ``key: {"value": value, "metadata": metadata}``. A value
is stored as the Worker would store it with ``put``: a string as it is, any other JSON
data as its JSON text (what ``get(key, "json")`` reads back). A dict value with a
``"value"`` key is the long form, so a JSON object with such a field is written out in
the long form. Seeds carry no expiration.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from eutaxy.core.errors import UserError

__all__ = ["kv_namespace", "seed_entries"]

#: The fields of an entry's long form.
_LONG_FORM_FIELDS = frozenset({"value", "metadata"})


def kv_namespace(binding: str, entries: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Empty KV binding ``binding`` and seed it with ``entries`` before each run."""
    if not isinstance(binding, str) or not binding:
        raise UserError(f"kv_namespace: binding must be a binding name such as 'CACHE', got {binding!r}")
    return {"kind": "kv_namespace", "binding": binding, "entries": seed_entries(entries or {}, f"kv_namespace({binding!r})")}


def seed_entries(entries: Any, where: str) -> list[dict[str, Any]]:
    """A step's entries as the load message carries them: ``[{key, value, metadata}]``, in order.

    Accepts the mapping :func:`kv_namespace` takes and the list it writes (a scenario's JSON
    read back), so a step written by hand is checked as one built here.
    """
    if isinstance(entries, list):
        pairs = []
        for index, item in enumerate(entries):
            if not isinstance(item, Mapping) or set(item) != {"key", "value", "metadata"}:
                raise UserError(f"{where}: entries[{index}] must be {{key, value, metadata}}, got {item!r}")
            pairs.append((item["key"], {"value": item["value"], "metadata": item["metadata"]}))
    elif isinstance(entries, Mapping):
        pairs = list(entries.items())
    else:
        raise UserError(f"{where}: entries must be a dict of key -> value, got {type(entries).__name__}")
    seeded = []
    for key, given in pairs:
        if not isinstance(key, str) or not key:
            raise UserError(f"{where}: every key must be a non-empty string, got {key!r}")
        long_form = isinstance(given, Mapping) and "value" in given and set(given) <= _LONG_FORM_FIELDS
        value = given["value"] if long_form else given
        metadata = given.get("metadata") if long_form else None
        seeded.append({"key": key, "value": _stored(value, f"{where}: key {key!r}"), "metadata": _plain(metadata, f"{where}: key {key!r}'s metadata")})
    return seeded


def _stored(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_plain(value, where), separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _plain(value: Any, where: str) -> Any:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise UserError(f"{where} must be a string or JSON data, got {value!r} ({error})") from None
    return value
