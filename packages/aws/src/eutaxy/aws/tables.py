"""The scenario's tables on the local DynamoDB: reset before each run, read after it.

Both run with the real globals, through the platform's own client, never through the
boundary. The first reset of a platform deletes every table the service holds and creates
the scenario's (on-demand billing), seeded with ``BatchWriteItem``. The end-of-run scan
records every item's key, so the next reset can put the tables back in fewer calls: one
``BatchWriteItem`` (per 25 requests) deletes every item the last run left that is not a
seed item and puts the seed items back (a put replaces the whole item), one batch per
table. The state a run
starts from is the same either way: the seeded tables and nothing else. Whenever the last
run's keys are unknown (its run ended UNSUPPORTED, or anything failed), the full reset
runs again.

When moto answers in this process (``local.InProcessMoto``), the seeded tables' items are
copied out of moto's own tables after the full reset, and every later reset puts that copy
back in place of whatever the run left (as moto restores a table from a backup), with no
request at all: the same starting state, whatever the last run did or how it ended. The
snapshot reads the items from moto's tables as its Scan answers them (every attribute, typed),
again with no request.
"""

from __future__ import annotations

from botocore.exceptions import ClientError

from typing import Any, Iterable, Mapping, Sequence

import attrs

from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError

from eutaxy.aws.dynamodb import attribute_value, plain_attribute_value

__all__ = ["BATCH_WRITE_LIMIT", "Tables"]

#: BatchWriteItem takes at most 25 requests.
BATCH_WRITE_LIMIT = 25
#: Bounds on paging and on retrying unprocessed items; a scenario's tables are small, so
#: reaching one means the local service misbehaves.
_PAGES_MAX = 100_000
_UNPROCESSED_ROUNDS_MAX = 100


def _typed_item(item: Mapping[str, Any]) -> dict[str, Any]:
    return {key: attribute_value(value) for key, value in item.items()}


def _key_of(table: Mapping[str, Any], item: Mapping[str, Any]) -> dict[str, Any]:
    return {key["name"]: item[key["name"]] for key in table["keySchema"]}


@attrs.define(eq=False)
class Tables:
    """The platform's view of the local tables, and how to put them back."""

    client: Any
    #: moto in this process (``local.InProcessMoto``), whose tables can be put back directly; or None.
    store: Any = None
    #: The seeded tables' state as the last full reset left it, when ``store`` can put it back.
    _seeded: Any = None
    #: The tables the last full reset created, or None: the service's tables are unknown.
    _created: list[str] | None = None
    #: The setup (canonical JSON) the tables were created from.
    _setup_text: str | None = None
    #: Typed keys of every item per table at the last snapshot; None when not known.
    _leftover: dict[str, list[dict[str, Any]]] | None = None

    def reset(self, tables: Sequence[Mapping[str, Any]]) -> None:
        leftover, self._leftover = self._leftover, None
        setup_text = to_json(list(tables))
        seeded, self._seeded = self._seeded, None
        if seeded is not None and setup_text == self._setup_text and self.store.restore_items(seeded):
            self._seeded = seeded
            return
        if leftover is not None and self._created is not None and setup_text == self._setup_text:
            try:
                self._put_back(tables, leftover)
                return
            except ClientError:
                # The shortcut is only an optimisation: when the local DynamoDB refuses
                # it (moto has refused a put-back batch as holding duplicate keys), the
                # full delete-and-create reset below gives the same starting state.
                pass
        self._full_reset(tables)
        self._setup_text = setup_text
        if self.store is not None:
            self._seeded = self.store.save_items([table["name"] for table in tables])

    def snapshot(self, tables: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
        """Every item of each table as plain JSON (unsorted); remembers their keys."""
        rows: dict[str, list[Any]] = {}
        keys: dict[str, list[dict[str, Any]]] = {}
        for table in tables:
            items = self._scan(table["name"]) if self.store is None else self.store.items_of(table["name"])
            rows[table["name"]] = [{key: plain_attribute_value(value) for key, value in item.items()} for item in items]
            keys[table["name"]] = [_key_of(table, item) for item in items]
        self._leftover = keys
        return rows

    def forget(self) -> None:
        """The last run's state is unknown (it ended early): the next reset is a full one."""
        self._leftover = None

    # --- the two resets ------------------------------------------------------------------

    def _full_reset(self, tables: Sequence[Mapping[str, Any]]) -> None:
        existing, self._created = self._created, None
        for name in self._all_tables() if existing is None else existing:
            self.client.delete_table(TableName=name)
        created = []
        for table in tables:
            self.client.create_table(
                TableName=table["name"],
                KeySchema=[{"AttributeName": key["name"], "KeyType": key["type"]} for key in table["keySchema"]],
                AttributeDefinitions=[
                    {"AttributeName": attribute["name"], "AttributeType": attribute["type"]}
                    for attribute in table["attributes"]
                ],
                BillingMode="PAY_PER_REQUEST",
            )
            created.append(table["name"])
        self._created = created
        try:
            self._write([(table["name"], {"PutRequest": {"Item": _typed_item(item)}}) for table in tables for item in table.get("items") or ()])
        except ClientError as error:
            raise self._seed_failure(tables, error) from None

    def _put_back(self, tables: Iterable[Mapping[str, Any]], leftover: Mapping[str, list[dict[str, Any]]]) -> None:
        requests: list[tuple[str, dict[str, Any]]] = []
        for table in tables:
            seeds = [_typed_item(item) for item in table.get("items") or ()]
            seeded_keys = {to_json(_key_of(table, item)) for item in seeds}
            for key in leftover.get(table["name"], ()):
                if to_json(key) not in seeded_keys:
                    requests.append((table["name"], {"DeleteRequest": {"Key": key}}))
            requests.extend((table["name"], {"PutRequest": {"Item": item}}) for item in seeds)
        self._write(requests)

    def _seed_failure(self, tables: Sequence[Mapping[str, Any]], error: ClientError) -> Exception:
        """Why the seeds did not go in: each item put alone, the first DynamoDB refuses named by
        its table and index (the scenario's to fix, exit 2); else the batch's own error."""
        for table in tables:
            for index, item in enumerate(table.get("items") or ()):
                try:
                    self.client.put_item(TableName=table["name"], Item=_typed_item(item))
                except ClientError as refused:
                    message = str(refused.response.get("Error", {}).get("Message") or refused)
                    return UserError(
                        f"setup dynamodb_table({table['name']!r}): items[{index}] is refused by DynamoDB: {message}; item: {to_json(item)}",
                        near=table["name"],
                    )
        unexplained: Exception = error
        return unexplained

    # --- calls -------------------------------------------------------------------------

    def _write(self, requests: list[tuple[str, dict[str, Any]]]) -> None:
        by_table: dict[str, list[Any]] = {}
        for name, request in requests:
            by_table.setdefault(name, []).append(request)
        # One table per batch: moto refuses a batch in which two tables share a key value.
        for name, table_requests in by_table.items():
            for start in range(0, len(table_requests), BATCH_WRITE_LIMIT):
                self._write_batch({name: table_requests[start : start + BATCH_WRITE_LIMIT]})

    def _write_batch(self, batch: dict[str, list[Any]]) -> None:
        for _ in range(_UNPROCESSED_ROUNDS_MAX):
            answer = self.client.batch_write_item(RequestItems=batch)
            batch = answer.get("UnprocessedItems") or {}
            if not batch:
                return
        raise RuntimeError("the local DynamoDB kept leaving reset writes unprocessed")

    def _all_tables(self) -> list[str]:
        names: list[str] = []
        start: str | None = None
        for _ in range(_PAGES_MAX):
            page = self.client.list_tables(**({"ExclusiveStartTableName": start} if start else {}))
            names.extend(page.get("TableNames", []))
            start = page.get("LastEvaluatedTableName")
            if not start:
                return names
        raise RuntimeError("the local DynamoDB kept paging ListTables")

    def _scan(self, name: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        start: Mapping[str, Any] | None = None
        for _ in range(_PAGES_MAX):
            kwargs: dict[str, Any] = {"TableName": name, "ConsistentRead": True}
            if start:
                kwargs["ExclusiveStartKey"] = start
            page = self.client.scan(**kwargs)
            items.extend(page.get("Items", []))
            start = page.get("LastEvaluatedKey")
            if not start:
                return items
        raise RuntimeError(f"the local DynamoDB kept paging Scan of {name}")
