"""DynamoDB as the effect log and the snapshots see it.

Three jobs, all pure or on the platform's own local client:

- classify a low-level operation (``PutItem`` is a write, ``Query`` a read, anything
  else is not modelled) and name the tables a request touches (``DynamoDB:a+b`` for a
  batch or a transaction over two tables);
- turn a request or response into plain JSON, unwrapping DynamoDB's typed attribute
  values (``{"S": "o-1"}`` is ``"o-1"``, integers are ints and other numbers Decimals with their exact digits; binary and sets in
  the log's value encoding, ``eutaxy.core.values``: ``{"$": "bytes", "v": base64}`` and
  ``{"$": "set", "v": [...]}`` with the items in canonical order) wherever botocore's service model says an ``AttributeValue`` stands, so a
  key path reads ``args.Item.order_id`` whether the handler used a client or a ``Table``;
- type plain seed values back into attribute values (``tables.py`` resets and reads
  the tables themselves).
"""

from __future__ import annotations

import datetime as _dt
import decimal
from typing import Any, Iterable, Mapping

from eutaxy.core import values
from eutaxy.core.canonical import string_order, to_json

__all__ = [
    "OTHER",
    "READ",
    "READ_OPS",
    "WRITE",
    "WRITE_OPS",
    "attribute_value",
    "classify",
    "plain",
    "plain_attribute_value",
    "split_batch",
    "tables_of",
    "target_of",
]

WRITE = "write"
READ = "read"
OTHER = "other"

#: Operations that change items: they take the write ladder.
WRITE_OPS = ("PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems")
#: Operations that only read items (and DescribeTable, which Lambda code calls to check a
#: table): they take the read ladder.
READ_OPS = ("GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems", "DescribeTable")

#: The members of a TransactItems entry that name a table.
_TRANSACT_MEMBERS = ("Put", "Update", "Delete", "ConditionCheck", "Get")


def classify(op: str) -> str:
    """``write``, ``read`` or ``other`` (control-plane calls and PartiQL, not modelled yet)."""
    if op in WRITE_OPS:
        return WRITE
    if op in READ_OPS:
        return READ
    return OTHER


def tables_of(op: str, params: Mapping[str, Any]) -> list[str]:
    """Every table a request names, sorted (so a batch's target does not depend on order)."""
    names: set[str] = set()
    if isinstance(params.get("TableName"), str):
        names.add(params["TableName"])
    request_items = params.get("RequestItems")
    if isinstance(request_items, Mapping):
        names.update(str(name) for name in request_items)
    for item in params.get("TransactItems") or ():
        for member in _TRANSACT_MEMBERS:
            body = item.get(member) if isinstance(item, Mapping) else None
            if isinstance(body, Mapping) and isinstance(body.get("TableName"), str):
                names.add(body["TableName"])
    return sorted(names)


def target_of(tables: Iterable[str]) -> str:
    """``DynamoDB:ledger``, or ``DynamoDB:ledger+orders`` for a request over two tables."""
    return "DynamoDB:" + "+".join(tables)


def split_batch(request_items: Mapping[str, Any]) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """A BatchWriteItem's ``RequestItems`` cut in two for the ``partial`` fault: ``(written, unprocessed)``.

    The write requests are taken in request order (tables as the request lists them, each
    table's requests in order); the last half, rounded up, is unprocessed, so a batch of one
    comes back whole and a batch of three writes its first request only. Each part keeps
    the request's shape (table name to its list of requests), as ``UnprocessedItems`` does.
    """
    entries = [(str(table), request) for table, requests in request_items.items() for request in requests or ()]
    kept = len(entries) // 2
    written: dict[str, list[Any]] = {}
    unprocessed: dict[str, list[Any]] = {}
    for index, (table, request) in enumerate(entries):
        (written if index < kept else unprocessed).setdefault(table, []).append(request)
    return written, unprocessed


# --- plain JSON ---------------------------------------------------------------------------


def _number(text: str) -> int | decimal.Decimal:
    """A DynamoDB number with every digit it has: an integer as an int (exact at any size),
    anything else as a Decimal, which canonical JSON writes as its exact text."""
    stripped = text.strip()
    body = stripped[1:] if stripped[:1] in "+-" else stripped
    if body.isdigit():
        return int(stripped)
    return decimal.Decimal(stripped)


def _binary(value: Any) -> Any:
    """Binary in the log's value encoding (eutaxy.core.values): ``{"$": "bytes", "v": base64}``."""
    # On the wire (JSON protocol) binary is already base64 text; parsed responses hold bytes.
    if isinstance(value, (bytes, bytearray, memoryview)):
        return values.encode(value)
    return {"$": "bytes", "v": str(value)}


def _sorted_set(items: Iterable[Any]) -> dict[str, Any]:
    """A DynamoDB set (unordered) in the log's value encoding, its items in canonical order."""
    return {"$": "set", "v": sorted(items, key=lambda item: string_order(to_json(item)))}


def plain_attribute_value(value: Mapping[str, Any]) -> Any:
    """One typed attribute value as plain JSON."""
    if not isinstance(value, Mapping) or len(value) != 1:
        return plain(value, None)
    ((tag, inner),) = value.items()
    if tag == "S":
        return inner
    if tag == "N":
        return _number(inner)
    if tag == "B":
        return _binary(inner)
    if tag == "BOOL":
        return bool(inner)
    if tag == "NULL":
        return None
    if tag == "SS":
        return _sorted_set(inner)
    if tag == "NS":
        return _sorted_set(_number(item) for item in inner)
    if tag == "BS":
        return _sorted_set(_binary(item) for item in inner)
    if tag == "M":
        fields = {key: plain_attribute_value(item) for key, item in inner.items()}
        return {"$": "object", "v": fields} if "$" in fields else fields  # no user data reads as a tag
    if tag == "L":
        return [plain_attribute_value(item) for item in inner]
    return plain(value, None)


def plain(value: Any, shape: Any) -> Any:
    """``value`` as plain JSON, unwrapping attribute values where ``shape`` puts them.

    ``shape`` is botocore's model of the value (None when unknown: then no unwrapping, only
    bytes, aware datetimes and sets in the log's value encoding, Decimals as DynamoDB numbers).
    """
    if shape is not None and getattr(shape, "name", None) == "AttributeValue" and isinstance(value, Mapping):
        return plain_attribute_value(value)
    type_name = getattr(shape, "type_name", None)
    if isinstance(value, Mapping):
        if type_name == "structure":
            members = shape.members
            return {key: plain(item, members.get(key)) for key, item in value.items()}
        if type_name == "map":
            return {key: plain(item, shape.value) for key, item in value.items()}
        return {key: plain(item, None) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        member = shape.member if type_name == "list" else None
        return [plain(item, member) for item in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _binary(value)
    if isinstance(value, decimal.Decimal):
        return _number(str(value))
    if isinstance(value, _dt.datetime):
        return values.encode(value) if value.utcoffset() is not None else value.isoformat()
    if isinstance(value, (set, frozenset)):
        return _sorted_set(plain(item, None) for item in value)
    return value


# --- typed values for seeding ------------------------------------------------------------


def attribute_value(value: Any) -> dict[str, Any]:
    """A plain JSON value as a typed attribute value (for the scenario's seed items)."""
    if value is None:
        return {"NULL": True}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, (int, float, decimal.Decimal)):
        return {"N": str(value)}
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, (bytes, bytearray)):
        return {"B": bytes(value)}
    if isinstance(value, Mapping):
        return {"M": {str(key): attribute_value(item) for key, item in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"L": [attribute_value(item) for item in value]}
    raise TypeError(f"a DynamoDB seed item holds {type(value).__name__}, which plain JSON has no type for")
