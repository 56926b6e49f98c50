"""Hypothesis strategies over small domains, so targets, ops and keys collide as in real logs.

Logs are drawn as sequences of typed effects (a D1 write, a read, a decision, an ack, a
fault, …) over three invocations and a handful of keys, with snapshots at the end, so
every checker meets duplicates, misses, stale reads and absent snapshots often.
"""

from __future__ import annotations

import attrs
from hypothesis import strategies as st

from eutaxy.core.effects import Effect
from eutaxy.core.selectors import MISSING, get_path

INVOCATIONS = ("msg-1#1", "msg-1#2", "msg-2#1")
#: Keys that collide, plus ones that look alike but are not equal (1 vs "1" vs True) and
#: ones equal under canonical JSON though not in Python's eyes (1 vs 1.0 are equal in both).
KEYS = ("o-1", "o-2", 1, 1.0, "1", True, None)
AMOUNTS = (0, 1, 2, -1, None)
TABLES = ("payments", "accounts")
COLUMN_VALUES = ("o-1", "o-2", 1, None, -1, 0, 2)


def _params(draw) -> list:
    """Bound parameters: usually [key, amount], sometimes empty (no key to find)."""
    if draw(st.integers(0, 5)) == 0:
        return []
    return [draw(st.sampled_from(KEYS)), draw(st.sampled_from(AMOUNTS))]


@st.composite
def d1_effect(draw, invocation: str, ordinal: int, time: int) -> Effect:
    op = draw(st.sampled_from(("run", "run", "batch", "first", "all")))
    kind = draw(st.sampled_from(("result", "result", "result", "call", "fault")))
    payload: dict = {"args": {"sql": "INSERT", "params": _params(draw)}}
    if kind == "result":
        if op in ("run", "batch"):
            payload["result"] = {"changes": draw(st.sampled_from((0, 1, 2)))}
        else:
            payload["result"] = {"rows": []}
    elif kind == "fault":
        payload["fault"] = draw(st.sampled_from(("crash_before", "crash_after", "error")))
    target = draw(st.sampled_from(("D1:DB", "D1:DB", "D1:OTHER")))
    return Effect(target, op, kind, payload, invocation, ordinal, time)


@st.composite
def decision_effect(draw, invocation: str, ordinal: int, time: int) -> Effect:
    target = draw(st.sampled_from(("Core:decide", "Core:decide", "Core:other")))
    payload = {"args": [draw(st.sampled_from(KEYS))], "result": {"refunded": draw(st.sampled_from(AMOUNTS))}}
    if draw(st.integers(0, 6)) == 0:
        payload = {"args": [], "result": {}}
    return Effect(target, "decide", "decision", payload, invocation, ordinal, time)


@st.composite
def queue_effect(draw, invocation: str, ordinal: int, time: int) -> Effect:
    op = draw(st.sampled_from(("ack", "ack", "retry")))
    kind = draw(st.sampled_from(("result", "call")))
    payload: dict = {"args": {"messageId": invocation.split("#")[0], "body": {"orderId": draw(st.sampled_from(KEYS))}}}
    if kind == "result":
        payload["result"] = {"effective": draw(st.booleans())}
    return Effect("Queue:payments", op, kind, payload, invocation, ordinal, time)


@st.composite
def effect_logs(draw, max_effects: int = 10, repeat_one_in: int = 4) -> list[Effect]:
    """A log: effects of three invocations in drawn order, then drawn snapshots."""
    count = draw(st.integers(0, max_effects))
    ordinals = {invocation: 0 for invocation in INVOCATIONS}
    log: list[Effect] = []
    for time in range(count):
        invocation = draw(st.sampled_from(INVOCATIONS))
        if log and draw(st.integers(1, repeat_one_in)) == 1:
            # A retry repeats earlier work under another invocation: the duplicate that
            # at-most-once invariants exist for, and the write that makes a read stale.
            earlier = draw(st.sampled_from(log))
            effect = Effect(earlier.target, earlier.op, earlier.kind, earlier.payload, invocation, ordinals[invocation], time)
        else:
            maker = draw(st.sampled_from((d1_effect, d1_effect, d1_effect, decision_effect, queue_effect)))
            effect = draw(maker(invocation, ordinals[invocation], time))
        if effect.kind != "decision":
            ordinals[invocation] += 1
        log.append(effect)
    for table in TABLES:
        if draw(st.integers(0, 4)) > 0:
            log.append(
                Effect("D1:DB", table, "snapshot", {"rows": draw(row_lists())}, "snapshot", 0, count)
            )
    return log


@st.composite
def rows_strategy(draw) -> dict:
    row = {}
    if draw(st.integers(0, 5)) > 0:
        row["order_id"] = draw(st.sampled_from(COLUMN_VALUES))
    row["balance"] = draw(st.sampled_from((-1, 0, 1, 2, 1.5, None)))
    row["ref"] = draw(st.sampled_from(COLUMN_VALUES))
    return row


def row_lists():
    return st.lists(rows_strategy(), max_size=5)


WHERE_PATHS = ("args.params.0", "args.params.1", "result.changes", "result.effective", "args.body.orderId")


OPS = ("run", "batch", "first", "all", "ack", "retry", "decide")
OPERANDS = (0, 1, 2, -1, "o-1", "o-2", None, True, 1.0)


@st.composite
def _where_entry(draw, anchor: Effect):
    """A where entry over a path of the anchor, usually one the anchor satisfies."""
    present = [path for path in WHERE_PATHS if get_path(anchor.payload, path) is not MISSING]
    if present and draw(st.integers(0, 4)):
        path = draw(st.sampled_from(present))
    else:
        path = draw(st.sampled_from(WHERE_PATHS))
    actual = get_path(anchor.payload, path)
    form = draw(st.integers(0, 3))
    if form == 0:
        return path, (draw(st.sampled_from(OPERANDS)) if actual is MISSING else actual)
    op = draw(st.sampled_from(("eq", "neq", "gt", "gte", "lt", "lte", "notNull", "in")))
    if op == "in":
        members = draw(st.lists(st.sampled_from(OPERANDS), max_size=2))
        if actual is not MISSING and draw(st.booleans()):
            members.append(actual)
        return path, {op: members}
    if op == "notNull":
        return path, {op: True}
    if actual is not MISSING and form in (1, 2):
        return path, {op: actual}
    return path, {op: draw(st.sampled_from(OPERANDS))}


@st.composite
def anchored_selectors(draw, log: list[Effect]) -> dict:
    """A selector built from a drawn effect of the log, so it selects something.

    Its fields are the anchor's (an exact target or a prefix of it, its op alone or in a
    list at either end, its kind), and its where entries compare the anchor's own values
    (equal to them, or against them with each comparison), so boundary cases such as
    ``gte`` on an equal value and ``neq`` on an absent path are met often.
    """
    candidates = [effect for effect in log if effect.kind != "snapshot"]
    if not candidates:
        return {"target": "D1:DB", "op": "run", "kind": "result"}
    anchor = draw(st.sampled_from(candidates))
    other = draw(st.sampled_from(OPS))
    selector: dict = {}
    target_form = draw(st.integers(0, 2))
    if target_form == 0:
        selector["target"] = anchor.target
    elif target_form == 1:
        cut = draw(st.integers(0, len(anchor.target)))
        selector["target"] = anchor.target[:cut] + "*"
    else:
        selector["target"] = None
    selector["op"] = draw(st.sampled_from((anchor.op, [other, anchor.op], [anchor.op, other], None, [other])))
    selector["kind"] = draw(st.sampled_from((anchor.kind, anchor.kind, None, "call")))
    where = dict(draw(st.lists(_where_entry(anchor), max_size=2)))
    if where:
        selector["where"] = where
    return selector


KEY_PATHS = ("args.params.0", "args.params.1", "args.body.orderId", "result.changes")


def key_paths():
    return st.sampled_from(KEY_PATHS)


@st.composite
def conditions(draw) -> list[dict]:
    out = []
    for _ in range(draw(st.integers(0, 2))):
        op = draw(st.sampled_from(("eq", "neq", "gt", "gte", "lt", "lte", "in", "notNull")))
        column = draw(st.sampled_from(("order_id", "balance", "ref", "absent")))
        condition = {"column": column, "op": op}
        if op == "in":
            condition["value"] = draw(st.lists(st.sampled_from(COLUMN_VALUES), max_size=3))
        elif op != "notNull":
            condition["value"] = draw(st.sampled_from(COLUMN_VALUES))
        out.append(condition)
    return out


def queries():
    return st.builds(
        lambda table, where: {"kind": "rows", "target": "D1:DB", "table": table, "where": where},
        st.sampled_from(TABLES),
        conditions(),
    )


@st.composite
def event_lists(draw) -> list[dict]:
    events = []
    for position in range(draw(st.integers(0, 3))):
        body = {}
        if draw(st.integers(0, 6)) > 0:
            body["orderId"] = draw(st.sampled_from(KEYS))
        events.append({"id": f"msg-{position + 1}", "body": body})
    return events


SCRIPTS = (
    ("read", "decide", "write"),
    ("read", "decide", "write"),
    ("read", "decide", "write", "write"),
    ("decide", "read", "write"),
    ("read", "decide", "read", "write"),
    ("read", "write", "decide", "write"),
    ("read", "decide", "decide", "write"),
    ("decide", "write", "read", "decide", "write"),
)


@st.composite
def refines_logs(draw) -> list[Effect]:
    """Invocations that each read a key, decide and write, interleaved: the lost-update shape.

    Each invocation follows a script (mostly read, decide, write, in some order and with
    repeats), keeps to one key and writes the amount it last decided, and the scripts are
    merged in a drawn order, so another invocation's write often lands between a read and
    the write that rested on it, while follows pairs mostly agree.
    """
    scripts = []
    for invocation in INVOCATIONS[: draw(st.integers(1, 3))]:
        if draw(st.integers(0, 4)) == 0:
            steps = draw(st.lists(st.sampled_from(("read", "decide", "write", "noise")), min_size=1, max_size=5))
        else:
            steps = list(draw(st.sampled_from(SCRIPTS)))
        scripts.append((invocation, steps, draw(st.sampled_from(("o-1", "o-1", "o-2")))))
    ordinals = {invocation: 0 for invocation, _, _ in scripts}
    decided: dict[str, int] = {}
    pending = [list(steps) for _, steps, _ in scripts]
    log: list[Effect] = []
    while any(pending):
        choice = draw(st.sampled_from([i for i, steps in enumerate(pending) if steps]))
        invocation, _, key = scripts[choice]
        step = pending[choice].pop(0)
        time = len(log)
        ordinal = ordinals[invocation]
        if step == "read":
            log.append(Effect("D1:DB", "first", "result", {"args": {"params": [key]}, "result": {"rows": []}, "statement": "read"}, invocation, ordinal, time))
        elif step == "decide":
            amount = draw(st.sampled_from((1, 2)))
            decided[invocation] = amount
            log.append(Effect("Core:decide", "decide", "decision", {"args": [key], "result": {"refunded": amount}}, invocation, ordinal, time))
        elif step == "write":
            amount = decided.get(invocation, 1) if draw(st.integers(0, 4)) else draw(st.sampled_from((1, 2)))
            changes = draw(st.sampled_from((1, 1, 1, 0)))
            log.append(
                Effect("D1:DB", "run", "result", {"args": {"params": [key, amount]}, "result": {"changes": changes}, "statement": "write"}, invocation, ordinal, time)
            )
        else:
            log.append(draw(d1_effect(invocation, ordinal, time)))
        if step != "decide":
            ordinals[invocation] += 1
    return log


#: Times that collide and sit near the interval bounds the properties use (0, 1, 2, 5 ms).
TIMES = (0, 0, 1, 2, 3, 5, 7, 10)


@st.composite
def timed_logs(draw, max_effects: int = 12) -> list[Effect]:
    """A log whose effects carry drawn times: repeated, and out of log order as under concurrency."""
    log = draw(effect_logs(max_effects=max_effects, repeat_one_in=2))
    in_order = draw(st.booleans())
    times = [draw(st.sampled_from(TIMES)) for _ in log]
    if in_order:
        times.sort()
    return [attrs.evolve(effect, time=time) for effect, time in zip(log, times, strict=True)]


#: Aggregate thresholds: the drawn rows' sums, counts and extremes fall on both sides of them.
AGGREGATE_VALUES = (-1, 0, 0, 1, 1, 2, 3, 4, 1.5, "o-1", None)


@st.composite
def aggregate_logs(draw) -> list[Effect]:
    """Mostly one table's snapshot of several rows (the aggregate's subject), sometimes any log."""
    if draw(st.integers(0, 3)) == 0:
        return draw(effect_logs())
    rows = draw(st.lists(rows_strategy(), min_size=1, max_size=7))
    return [Effect("D1:DB", "payments", "snapshot", {"rows": rows}, "snapshot", 0, 0)]


@st.composite
def aggregate_invariants(draw) -> dict:
    """An aggregate over a drawn query (mostly of every row): any function, column, comparison and grouping."""
    op = draw(st.sampled_from(("eq", "neq", "gt", "gte", "lt", "lte", "in", "notNull")))
    where = draw(conditions()) if draw(st.integers(0, 2)) == 0 else []
    invariant = {
        "kind": "aggregate",
        "name": "agg",
        "query": {"kind": "rows", "target": "D1:DB", "table": draw(st.sampled_from(("payments", "payments", "accounts"))), "where": where},
        "column": draw(st.sampled_from(("balance", "balance", "ref", "order_id", "absent"))),
        "fn": draw(st.sampled_from(("sum", "count", "min", "max"))),
        "op": op,
    }
    if op == "in":
        invariant["value"] = draw(st.lists(st.sampled_from(AGGREGATE_VALUES), max_size=3))
    elif op != "notNull":
        invariant["value"] = draw(st.sampled_from(AGGREGATE_VALUES))
    group_by = draw(st.sampled_from((None, None, None, "order_id", "ref", "balance")))
    if group_by is not None:
        invariant["groupBy"] = group_by
    return invariant


#: Sequence values: numbers and strings that order within their class (and 1 and 1.0 equal),
#: and values that order with nothing (null, a boolean, a list).
SEQUENCES = (1, 2, 3, 1.0, 2.5, 3, "1", "2", "b", None, True, [1])


@st.composite
def sequence_logs(draw, max_effects: int = 10) -> list[Effect]:
    """Forwards of a few customers' messages in drawn order, among other effects.

    Each forward carries a customer (sometimes none) and a sequence value, so a group often
    holds values that go down, values of two classes and values that do not order.
    """
    log: list[Effect] = []
    ordinals = {invocation: 0 for invocation in INVOCATIONS}
    for time in range(draw(st.integers(2, max_effects))):
        invocation = draw(st.sampled_from(INVOCATIONS))
        if draw(st.integers(0, 5)) == 0:
            effect = draw(d1_effect(invocation, ordinals[invocation], time))
        else:
            body: dict = {"seq": draw(st.sampled_from(SEQUENCES))}
            if draw(st.integers(0, 6)):
                body["customer"] = draw(st.sampled_from(("a", "a", "b", 1, 1.0)))
            kind = draw(st.sampled_from(("result", "result", "call")))
            effect = Effect("Queue:out", "send", kind, {"args": {"body": body}}, invocation, ordinals[invocation], time)
        ordinals[invocation] += 1
        log.append(effect)
    return log
