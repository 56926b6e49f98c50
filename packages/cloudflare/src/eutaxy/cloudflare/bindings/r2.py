"""The R2 binding kind: R2 buckets (``r2_buckets``), its setup step and selectors.

Before each run the runtime empties the bucket of everything but its seeds and
writes the seeds that are missing or changed, through the real binding and
outside the effect log (runtime/bindings/r2.mjs), so every run starts from the
seeds alone. A bucket the Worker binds without a setup step is a trap: touching
it makes the run UNSUPPORTED (``binding_without_setup``).

A seed's body is text (written as UTF-8) or bytes; the step carries it as
``{"text": ...}`` or ``{"base64": ...}`` so the scenario stays plain JSON.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.errors import UserError
from eutaxy.core.selectors import rows

from ._record import BindingKind, DraftContext, KindNames, SetupStep, effect_selector

if TYPE_CHECKING:
    from eutaxy.cloudflare.wrangler import Binding, WranglerConfig

__all__ = ["R2", "R2Kind", "r2_bucket", "r2_op", "r2_rows"]

#: The fields a seed object may give besides its body, as R2's put() takes them.
_HTTP_METADATA_FIELDS = ("contentType", "contentLanguage", "contentDisposition", "contentEncoding", "cacheControl")


def r2_bucket(binding: str, objects: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Reset R2 bucket ``binding`` to ``objects`` before each run.

    ``objects`` maps each key to its body (``str`` or ``bytes``) or to
    ``{"body": str | bytes, "httpMetadata": {...}, "customMetadata": {str: str}}``.
    """
    if not isinstance(binding, str) or not binding:
        raise UserError(f"r2_bucket: binding must be a binding name such as 'BUCKET', got {binding!r}")
    if objects is None:
        objects = {}
    if not isinstance(objects, Mapping):
        raise UserError(f"r2_bucket({binding!r}): objects must be a dict of key -> body, got {objects!r}")
    seeded = {}
    for key, value in objects.items():
        if not isinstance(key, str) or not key:
            raise UserError(f"r2_bucket({binding!r}): every key must be a non-empty string, got {key!r}")
        seeded[key] = _seed(binding, key, value)
    return {"kind": "r2_bucket", "binding": binding, "objects": seeded}


def _seed(binding: str, key: str, value: Any) -> dict[str, Any]:
    where = f"r2_bucket({binding!r}): object {key!r}"
    if isinstance(value, (str, bytes, bytearray)):
        return {"body": _body(where, value), "httpMetadata": {}, "customMetadata": {}}
    if not isinstance(value, Mapping):
        raise UserError(f"{where} must be text, bytes or {{'body': ..., 'httpMetadata': ..., 'customMetadata': ...}}, got {value!r}")
    unknown = sorted(set(value) - {"body", "httpMetadata", "customMetadata"})
    if unknown:
        raise UserError(f"{where}: unknown fields {', '.join(unknown)}; an object has body, httpMetadata and customMetadata")
    if "body" not in value:
        raise UserError(f"{where}: body is missing (text or bytes)")
    http_metadata = value.get("httpMetadata") or {}
    if not isinstance(http_metadata, Mapping) or any(
        field not in _HTTP_METADATA_FIELDS or not isinstance(text, str) for field, text in http_metadata.items()
    ):
        raise UserError(f"{where}: httpMetadata must map some of {', '.join(_HTTP_METADATA_FIELDS)} to strings, got {http_metadata!r}")
    custom_metadata = value.get("customMetadata") or {}
    if not isinstance(custom_metadata, Mapping) or any(
        not isinstance(name, str) or not isinstance(text, str) for name, text in custom_metadata.items()
    ):
        raise UserError(f"{where}: customMetadata must map strings to strings, got {custom_metadata!r}")
    return {"body": _body(where, value["body"]), "httpMetadata": dict(http_metadata), "customMetadata": dict(custom_metadata)}


def _body(where: str, body: Any) -> dict[str, str]:
    if isinstance(body, str):
        return {"text": body}
    if isinstance(body, (bytes, bytearray)):
        return {"base64": base64.b64encode(bytes(body)).decode("ascii")}
    raise UserError(f"{where}: body must be text or bytes, got {body!r}")


def r2_op(binding: str, op: str | list[str] | None = None) -> dict[str, Any]:
    """R2 operations that completed (put, delete, get, head, list); a put only when it stored an object.

    The key of a put, get, head or single-key delete is ``"args.key"``.
    """
    return effect_selector(f"R2:{binding}", op, where={"result.stored": {"neq": False}})


def r2_rows(binding: str, where: Iterable[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An R2 bucket's objects after the run: ``{key, size, etag, httpMetadata, customMetadata, text}`` each."""
    return rows(f"R2:{binding}", "objects", where)


@attrs.frozen(kw_only=True)
class R2Kind(BindingKind):
    """R2: Miniflare's real local bucket behind a proxy (runtime/bindings/r2.mjs).

    A bucket no setup step resets would carry its objects from one run into the next, so
    touching one is UNSUPPORTED (``binding_without_setup``).
    """

    def check_step(self, step: Mapping[str, Any], where: str) -> dict[str, Any]:
        if not isinstance(step.get("objects"), Mapping):
            raise UserError(f"{where} carries no objects; build it with r2_bucket(...)")
        return dict(step)

    def assumptions(self, config: "WranglerConfig", steps: Sequence[Mapping[str, Any]]) -> list[str]:
        return [
            "R2 is Miniflare's local bucket: strongly consistent, the last writer wins, a conditional put whose "
            "precondition fails stores nothing and a conditional get whose precondition fails returns no body "
            "(Cloudflare, R2: consistency model, Workers API reference); versions and upload times are stand-ins "
            "counted in the order the run first saw them, at the virtual time it saw them."
        ]

    def draft_setup(self, binding: "Binding", draft: DraftContext) -> tuple[dict[str, Any], list[str]]:
        """An empty bucket (a noted guess), but for the objects the rows a D1 schema seeds name
        (:func:`_references`), each seeded with an empty body so those rows hold from the start.
        (D1 is registered before R2, so its setup has read its schema by now.)"""
        named: dict[str, Any] = {}
        for database, table, column, _, _ in _references(binding.name, draft):
            for key in draft.found.get(f"{database}/seeded", {}).get((table, column), []):
                named.setdefault(key, "")
        if not named:
            return super().draft_setup(binding, draft)
        step = {"kind": self.setup_step, "binding": binding.name}
        draft.note("guess", f"R2 binding {binding.name}: the rows D1's schema seeds name objects ({', '.join(list(named)[:5])}): each is "
                   "seeded with an empty body; give each the body it should have")
        return {**step, "objects": named}, [f"{self.setup_step}({json.dumps(binding.name)}, {draft.python(named)}),"]

    def draft_invariants(self, binding: str, draft: DraftContext) -> list[str]:
        """Once per key over the bucket's puts; and, when a D1 INSERT binds the very name the code
        puts an object under, ``references`` from that column to the bucket's keys (every row
        names an object that exists)."""
        examples = [f'at_most_once_per_key("one-put-per-key-{binding.lower()}", r2_op({json.dumps(binding)}, "put"), "args.key"),']
        for database, table, column, where, name in _references(binding, draft):
            draft.note("read", f"{where} inserts into {table}.{column} the name ({name}) the code puts an R2 object "
                       f"of {binding} under: each row should name an object that exists")
            examples.append(f'references("every-{table}-{column}-in-{binding.lower()}", d1_rows({json.dumps(database)}, '
                            f'{json.dumps(table)}), {json.dumps(column)}, r2_rows({json.dumps(binding)}), "key"),')
        return examples


def _references(binding: str, draft: DraftContext) -> list[tuple[str, str, str, str, str]]:
    """Each D1 column an INSERT writes the name the code puts an object of ``binding`` under
    (``env.FILES.put(key, ...)`` and ``.bind(..., key)``): (database, table, column, file:line, name)."""
    from eutaxy.cloudflare.bindings.d1 import inserted_column

    keys = {name for bucket, name, _ in draft.scan.binding_puts if bucket == binding and name is not None}
    databases = {item.name for item in draft.config.bindings if item.kind == "d1"}
    found: list[tuple[str, str, str, str, str]] = []
    seen: set[tuple[str, str, str]] = set()
    for statement in draft.scan.d1_statements:
        if statement.binding not in databases:
            continue
        for index, name in enumerate(statement.args):
            written = inserted_column(statement.sql, index) if name in keys else None
            if written is None or (statement.binding, *written) in seen:
                continue
            seen.add((statement.binding, *written))
            found.append((statement.binding, written[0], written[1], statement.where, str(name)))
    return found


R2 = R2Kind(
    name="r2",
    names=KindNames(label="R2", plural="R2 buckets", noun="bucket"),
    section="r2_buckets",
    resource_field="bucket_name",
    section_note="R2 on Miniflare's bucket, reset by `r2_bucket`; one no setup resets is UNSUPPORTED when touched.",
    setup=SetupStep("r2_bucket", without="unsupported", gives="the objects"),
    selectors=("r2_op", "r2_rows"),
    operations={"head": "read", "get": "read", "list": "read", "put": "write", "delete": "write"},
    miniflare_option="r2Buckets",
    reset_phrase="empty the bucket but its seeds, write the seeds",
)
