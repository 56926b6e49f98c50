"""Naive reference implementations of every checker, for the self-verification properties.

Written for obviousness, not speed, and sharing no code with the checkers: pairs are
compared by brute force, "latest before" is a max over a filtered list, and canonical
equality is ``json.dumps`` with sorted keys over values whose integral floats were made
ints (which is what ``to_json`` does on the small domains the strategies draw).

Each reference returns None when the invariant holds, else ``(keys, effects)``: the set of
canonical keys and the set of log indices the violation names.
"""

from __future__ import annotations

import json
import math

ABSENT = object()


def canon(value):
    def normal(v):
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return v
        if isinstance(v, float) and math.isfinite(v) and v == int(v):
            return int(v)
        if isinstance(v, dict):
            return {str(k): normal(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [normal(x) for x in v]
        return v

    return json.dumps(normal(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def lookup(value, path):
    if path == "":
        return value
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return ABSENT
    return value


def column(row, name):
    if isinstance(row, dict) and name in row:
        return row[name]
    return lookup(row, name)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


def holds(op, actual, expected):
    if op == "neq":
        if actual is ABSENT:
            return True
        return canon(actual) != canon(expected)
    if actual is ABSENT:
        return False
    if op == "eq":
        return canon(actual) == canon(expected)
    if op == "notNull":
        return actual is not None
    if op == "in":
        return canon(actual) in [canon(x) for x in expected]
    both_numbers = is_number(actual) and is_number(expected)
    both_strings = isinstance(actual, str) and isinstance(expected, str)
    if not (both_numbers or both_strings):
        return False
    return {
        "gt": actual > expected,
        "gte": actual >= expected,
        "lt": actual < expected,
        "lte": actual <= expected,
    }[op]


COMPARISONS = {"eq", "neq", "gt", "gte", "lt", "lte", "in", "notNull"}


def picks(selector, effect):
    target = selector.get("target")
    if target is not None:
        if target[-1:] == "*":
            if effect.target[: len(target) - 1] != target[:-1]:
                return False
        elif effect.target != target:
            return False
    op = selector.get("op")
    if op is not None:
        allowed = [op] if isinstance(op, str) else list(op)
        if effect.op not in allowed:
            return False
    if selector.get("kind") is not None and selector["kind"] != effect.kind:
        return False
    for path, expected in (selector.get("where") or {}).items():
        actual = lookup(effect.payload, path)
        if isinstance(expected, dict) and expected and set(expected) <= COMPARISONS:
            for op_name, operand in expected.items():
                if not holds(op_name, actual, operand):
                    return False
        elif not holds("eq", actual, expected):
            return False
    return True


def selected(selector, log):
    return [i for i in range(len(log)) if picks(selector, log[i])]


def key_of(effect, path):
    value = lookup(effect.payload, path)
    return ABSENT if value is ABSENT else canon(value)


# --- delivery ------------------------------------------------------------------------


def at_most_once_per_key(inv, log, events):
    chosen = selected(inv["selector"], log)
    keys, involved = set(), set()
    for a in chosen:
        for b in chosen:
            if a < b:
                ka, kb = key_of(log[a], inv["key"]), key_of(log[b], inv["key"])
                if ka is not ABSENT and ka == kb:
                    keys.add(ka)
                    involved.update((a, b))
    return (keys, involved) if keys else None


def _has_key(inv, log, text):
    return any(key_of(log[i], inv["key"]) == text for i in selected(inv["selector"], log))


def at_least_once(inv, log, events):
    missing = {canon(v) for v in inv["expected"] if not _has_key(inv, log, canon(v))}
    return (missing, set()) if missing else None


def at_least_once_per_message(inv, log, events):
    missing, keyless = set(), False
    for event in events:
        value = lookup(event.get("body"), inv["bodyKey"])
        if value is ABSENT:
            keyless = True
        elif not _has_key(inv, log, canon(value)):
            missing.add(canon(value))
    return (missing, set()) if (missing or keyless) else None


# --- state ---------------------------------------------------------------------------


def snapshot_rows(query, log):
    found = [i for i, e in enumerate(log) if e.kind == "snapshot" and e.target == query["target"] and e.op == query["table"]]
    if not found:
        return None, None
    index = max(found)
    rows = [
        row
        for row in log[index].payload["rows"]
        if all(holds(c["op"], column(row, c["column"]), c.get("value")) for c in query.get("where") or [])
    ]
    return index, rows


def every_row(inv, log, events):
    index, rows = snapshot_rows(inv["query"], log)
    if index is None:
        return (set(), set())
    bad = [r for r in rows if not all(holds(c["op"], column(r, c["column"]), c.get("value")) for c in inv["conditions"])]
    return ({canon(r) for r in bad}, {index}) if bad else None


def _present(v):
    return v is not ABSENT and v is not None


def unique(inv, log, events):
    index, rows = snapshot_rows(inv["query"], log)
    if index is None:
        return (set(), set())
    keys = set()
    for a in range(len(rows)):
        for b in range(a + 1, len(rows)):
            va, vb = column(rows[a], inv["column"]), column(rows[b], inv["column"])
            if _present(va) and _present(vb) and canon(va) == canon(vb):
                keys.add(canon(va))
    return (keys, {index}) if keys else None


def implies(inv, log, events):
    index, rows = snapshot_rows(inv["query"], log)
    if index is None:
        return (set(), set())
    keys, bad = set(), set()
    for i in selected(inv["selector"], log):
        k = key_of(log[i], inv["key"])
        named = any(column(r, inv["column"]) is not ABSENT and canon(column(r, inv["column"])) == k for r in rows)
        if k is ABSENT or not named:
            bad.add(i)
            if k is not ABSENT:
                keys.add(k)
    return (keys, bad) if bad else None


def references(inv, log, events):
    source_index, source = snapshot_rows(inv["query"], log)
    if source_index is None:
        return (set(), set())
    target_index, target = snapshot_rows(inv["target"], log)
    if target_index is None:
        return (set(), set())
    keys = set()
    for row in source:
        v = column(row, inv["column"])
        if not _present(v):
            continue
        if not any(_present(column(t, inv["targetColumn"])) and canon(column(t, inv["targetColumn"])) == canon(v) for t in target):
            keys.add(canon(v))
    return (keys, {source_index, target_index}) if keys else None


# --- order and time -----------------------------------------------------------------


def sequence_class(v):
    if isinstance(v, str):
        return "string"
    if is_number(v):
        return "number"
    return None


def in_order_per_key(inv, log, events):
    chosen = selected(inv["selector"], log)
    keys, involved = set(), set()
    for a in chosen:
        for b in chosen:
            if a >= b:
                continue
            ga, gb = key_of(log[a], inv["groupKey"]), key_of(log[b], inv["groupKey"])
            if ga is ABSENT or ga != gb:
                continue
            sa, sb = lookup(log[a].payload, inv["sequenceKey"]), lookup(log[b].payload, inv["sequenceKey"])
            if sequence_class(sa) is not None and sequence_class(sa) == sequence_class(sb) and sb < sa:
                keys.add(ga)
                involved.update((a, b))
    return (keys, involved) if keys else None


def _interval(inv, log, too_far):
    chosen = selected(inv["selector"], log)
    keys, involved = set(), set()
    for a in chosen:
        for b in chosen:
            if a == b:
                continue
            ka, kb = key_of(log[a], inv["key"]), key_of(log[b], inv["key"])
            if ka is not ABSENT and ka == kb and too_far(abs(log[a].time - log[b].time)):
                keys.add(ka)
                involved.update((a, b))
    return (keys, involved) if keys else None


def min_interval_per_key(inv, log, events):
    return _interval(inv, log, lambda apart: apart < inv["ms"])


def max_interval_per_key(inv, log, events):
    return _interval(inv, log, lambda apart: apart > inv["ms"])


# --- aggregate -------------------------------------------------------------------------


def aggregate_value(fn, values):
    """The aggregate, or ABSENT when there is nothing to compare, or None when it cannot be taken."""
    values = [v for v in values if v is not ABSENT and v is not None]
    if fn == "count":
        return len(values)
    if fn == "sum":
        if not all(is_number(v) for v in values):
            return None
        return sum(values)
    if not values:
        return ABSENT
    classes = {sequence_class(v) for v in values}
    if len(classes) != 1 or None in classes:
        return None
    return min(values) if fn == "min" else max(values)


def aggregate(inv, log, events):
    index, rows = snapshot_rows(inv["query"], log)
    if index is None:
        return (set(), set())
    group_by = inv.get("groupBy")
    groups = {}
    for row in rows:
        g = "" if group_by is None else canon(None if column(row, group_by) is ABSENT else column(row, group_by))
        groups.setdefault(g, []).append(row)
    if group_by is None:
        groups.setdefault("", [])
    bad = set()
    for g, members in groups.items():
        value = aggregate_value(inv["fn"], [column(r, inv["column"]) for r in members])
        if value is None or (value is not ABSENT and not holds(inv["op"], value, inv.get("value"))):
            bad.add(g)
    if not bad:
        return None
    return (bad if group_by is not None else set(), {index})


# --- refines -------------------------------------------------------------------------


def refines(inv, log, events):
    decision = inv["decision"] if inv["decision"].startswith("Core:") else "Core:" + inv["decision"]
    state = inv.get("state")
    keys, involved = set(), set()
    for i in selected(inv["selector"], log):
        e = log[i]
        fallback = canon(e.invocation)
        key = key_of(e, state["key"]) if state else ABSENT
        label = key if key is not ABSENT else fallback
        decisions = [j for j in range(i) if log[j].kind == "decision" and log[j].target == decision and log[j].invocation == e.invocation]
        if not decisions:
            keys.add(label)
            involved.add(i)
            continue
        j = max(decisions)
        agree = True
        for pair in inv.get("follows") or []:
            a, b = lookup(e.payload, pair["effect"]), lookup(log[j].payload, pair["decision"])
            if a is ABSENT or b is ABSENT or canon(a) != canon(b):
                agree = False
        if not agree:
            keys.add(label)
            involved.update((i, j))
            continue
        if not state:
            continue
        if key is ABSENT:
            keys.add(label)
            involved.update((i, j))
            continue
        reads = [r for r in range(j) if log[r].invocation == e.invocation and picks(state["read"], log[r]) and key_of(log[r], state["key"]) == key]
        if not reads:
            keys.add(label)
            involved.update((i, j))
            continue
        r = max(reads)
        writes = [w for w in range(r + 1, i) if log[w].invocation != e.invocation and picks(state["write"], log[w]) and key_of(log[w], state["key"]) == key]
        if writes:
            keys.add(label)
            involved.update((r, j, min(writes), i))
    return (keys, involved) if keys else None


REFERENCES = {
    "at_most_once_per_key": at_most_once_per_key,
    "at_least_once": at_least_once,
    "at_least_once_per_message": at_least_once_per_message,
    "every_row": every_row,
    "unique": unique,
    "implies": implies,
    "references": references,
    "refines": refines,
    "in_order_per_key": in_order_per_key,
    "min_interval_per_key": min_interval_per_key,
    "max_interval_per_key": max_interval_per_key,
    "aggregate": aggregate,
}
