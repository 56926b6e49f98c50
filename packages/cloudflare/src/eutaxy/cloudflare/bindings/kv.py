"""The KV binding kind: Workers KV namespaces (``kv_namespaces``), its setup step and selectors.

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
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.errors import UserError
from eutaxy.core.selectors import rows

from ._record import BindingKind, DraftContext, KindNames, SetupStep, effect_selector

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import WranglerConfig

__all__ = ["KV", "KvKind", "kv_key", "kv_namespace", "kv_read", "kv_rows", "kv_write", "seed_entries"]

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


#: KV's operations by what they do (runtime/bindings/kv.mjs records each as one effect).
KV_WRITE_OPS = ("put", "delete")
KV_READ_OPS = ("get", "getWithMetadata", "list")


def kv_write(binding: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """KV writes that completed (``put``, ``delete``); ``op`` narrows to one of them.

    A write the store refused (a value past KV's limits) records ``{error}`` instead of
    ``ok: true``, so it is not selected.
    """
    return effect_selector(f"KV:{binding}", op if op is not None else list(KV_WRITE_OPS), where={"result.ok": True})


def kv_read(binding: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """KV reads that completed (``get``, ``getWithMetadata``, ``list``); ``op`` narrows to some."""
    return effect_selector(f"KV:{binding}", op if op is not None else list(KV_READ_OPS), where={"result.ok": True})


def kv_key() -> str:
    """The key of a one-key KV effect (``get``, ``getWithMetadata``, ``put``, ``delete``): ``"args.key"``."""
    return "args.key"


def kv_rows(binding: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A KV namespace's keys at the end of a run: rows ``{key, value, metadata, expiration}``."""
    return rows(f"KV:{binding}", "keys", where)


@attrs.frozen(kw_only=True)
class KvKind(BindingKind):
    """KV: Miniflare's real local namespace behind a proxy (runtime/bindings/kv.mjs).

    Without a setup step a namespace starts every run empty, as a new namespace does:
    emptying it is the reset, so nothing carries over and no run needs to be refused.
    """

    def check_step(self, step: Mapping[str, Any], where: str) -> dict[str, Any]:
        return {**step, "entries": seed_entries(step.get("entries") or [], where)}

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        bindings = list(self.resources(config))
        return [
            f"KV ({', '.join(bindings)}) is Miniflare's local namespace, emptied and seeded from its kv_namespace step "
            "before each run (empty without one). Reads were strongly consistent: each get, getWithMetadata and list "
            "saw every write before it, while production KV is eventually consistent (a write can take 60 seconds or "
            "more to be seen elsewhere) and no stale-read fault is modelled yet.",
            "KV expiration is in virtual time: expiration and expirationTtl are checked against the virtual clock "
            "(at least 60 s ahead), never given to Miniflare, and a key is gone once the virtual clock reaches its "
            "expiration.",
        ]

    def draft_invariants(self, binding: str, draft: DraftContext) -> list[str]:
        return [f'at_most_once_per_key("one-put-per-key-{binding.lower()}", kv_write({json.dumps(binding)}, "put"), kv_key()),']


KV = KvKind(
    name="kv",
    names=KindNames(label="KV", plural="KV namespaces", noun="namespace"),
    section="kv_namespaces",
    resource_field="id",
    section_note="KV on Miniflare's namespace, emptied and seeded before each run.",
    setup=SetupStep("kv_namespace", without="empty", gives="the entries"),
    selectors=("kv_key", "kv_read", "kv_rows", "kv_write"),
    operations={"get": "read", "getWithMetadata": "read", "list": "read", "put": "write", "delete": "write"},
    miniflare_option="kvNamespaces",
)
