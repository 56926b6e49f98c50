"""Self-verification: each checker reports what its naive reference reports.

Logs are drawn from small domains (strategies.py) so keys collide; selectors are anchored
on a drawn effect so they select something. Each property asserts the same verdict
(violated or not), the same keys and the same effects as reference.py. test_mutation.py
plants bugs in a copy of core and requires these properties to catch every one.
"""

from __future__ import annotations

import base64
import json
import math
import os

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import reference
import strategies as s
from eutaxy.core.canonical import to_json
from eutaxy.core.faults import REDELIVERY_CUT, REDELIVERY_DEAD_LETTER, may_redeliver, redelivery_stop
from eutaxy.core.invariants import check_invariants
from eutaxy.core.selectors import MISSING, compare, select

#: test_mutation.py only needs to know that a property fails, not its minimal example, so
#: it sets this variable and the properties skip Hypothesis's shrink phase.
DETECT_ONLY = os.environ.get("EUTAXY_PROPERTIES_DETECT_ONLY") == "1"

PROPERTY_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    phases=[Phase.explicit, Phase.reuse, Phase.generate] if DETECT_ONLY else list(Phase),
    print_blob=False,
)


def assert_agrees(invariant, log, events):
    """The checker and the reference agree on violated-or-not, keys and effects."""
    expected = reference.REFERENCES[invariant["kind"]](invariant, log, events)
    violations = check_invariants([invariant], log, events)
    if expected is None:
        assert [] == violations, violations[0].message
        return
    assert 1 == len(violations), f"reference found {expected}, checker found nothing"
    violation = violations[0]
    keys, effects = expected
    assert keys == set(violation.keys), violation.message
    assert len(violation.keys) == len(set(violation.keys))
    assert effects == set(violation.effects), violation.message
    assert violation.invariant == invariant["name"]
    assert violation.message.startswith(invariant["name"] + ": ")


@st.composite
def log_and_selector(draw, repeat_one_in=4, max_effects=10):
    log = draw(s.effect_logs(max_effects=max_effects, repeat_one_in=repeat_one_in))
    return log, draw(s.anchored_selectors(log))


# --- selectors -------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(log_and_selector())
def test_property_selector(case):
    """select() picks exactly the effects the naive matcher picks."""
    log, selector = case
    assert reference.selected(selector, log) == select(selector, log)


COMPARISON_VALUES = s.OPERANDS + ("o-3", 0.5, False, [1], {"a": 1}, -0.0, "")
COMPARISON_MEMBERS = ([], [1], ["o-1", None], [True, 0.5], [[1], {"a": 1}])


def test_property_selector_comparisons():
    """Every comparison agrees with the naive one on every pair of a small domain (exhaustive).

    The domain is small enough to enumerate, which finds the boundary cases (gte on equal
    values, booleans against numbers, neq on an absent value) that sampling can miss.
    """
    ops = ("eq", "neq", "gt", "gte", "lt", "lte", "in", "notNull")
    for op in ops:
        operands = COMPARISON_MEMBERS if op == "in" else COMPARISON_VALUES
        for actual in (MISSING,) + COMPARISON_VALUES:
            reference_actual = reference.ABSENT if actual is MISSING else actual
            for operand in operands:
                expected = reference.holds(op, reference_actual, operand)
                assert expected == compare(op, actual, operand), (op, actual, operand)


# --- delivery invariants ---------------------------------------------------------------


BROAD_SELECTORS = (
    {"target": "D1:*", "kind": "result"},
    {"target": "D1:DB", "op": ["run", "batch"], "kind": "result", "where": {"result.changes": {"gt": 0}}},
    {"target": None, "op": None, "kind": None},
)


@PROPERTY_SETTINGS
@given(log_and_selector(repeat_one_in=2, max_effects=14), st.sampled_from((None,) + BROAD_SELECTORS))
def test_property_at_most_once_per_key(case, broad):
    log, selector = case
    selector = broad or selector
    for key in s.KEY_PATHS:
        assert_agrees({"kind": "at_most_once_per_key", "name": "once", "selector": selector, "key": key}, log, [])


@PROPERTY_SETTINGS
@given(log_and_selector(), st.lists(st.sampled_from(s.KEYS), max_size=3))
def test_property_at_least_once(case, expected):
    log, selector = case
    for key in s.KEY_PATHS:
        invariant = {"kind": "at_least_once", "name": "some", "selector": selector, "key": key, "expected": expected}
        assert_agrees(invariant, log, [])


@PROPERTY_SETTINGS
@given(log_and_selector(), s.event_lists())
def test_property_at_least_once_per_message(case, events):
    log, selector = case
    for key in s.KEY_PATHS:
        invariant = {
            "kind": "at_least_once_per_message",
            "name": "each",
            "drive": "payments",
            "selector": selector,
            "key": key,
            "bodyKey": "orderId",
        }
        assert_agrees(invariant, log, events)


# --- state invariants ------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(s.effect_logs(), s.queries(), s.conditions())
def test_property_every_row(log, query, conditions):
    assert_agrees({"kind": "every_row", "name": "rows", "query": query, "conditions": conditions}, log, [])


@PROPERTY_SETTINGS
@given(s.effect_logs(), s.queries())
def test_property_unique(log, query):
    for column in ("order_id", "ref", "balance"):
        assert_agrees({"kind": "unique", "name": "uniq", "query": query, "column": column}, log, [])


@PROPERTY_SETTINGS
@given(log_and_selector(), s.queries())
def test_property_implies(case, query):
    log, selector = case
    for key in s.KEY_PATHS:
        for column in ("order_id", "ref"):
            invariant = {"kind": "implies", "name": "imp", "selector": selector, "key": key, "query": query, "column": column}
            assert_agrees(invariant, log, [])


@PROPERTY_SETTINGS
@given(s.effect_logs(), s.queries(), s.queries())
def test_property_references(log, query, target):
    for column in ("order_id", "ref"):
        for target_column in ("order_id", "ref"):
            invariant = {
                "kind": "references",
                "name": "refs",
                "query": query,
                "column": column,
                "target": target,
                "targetColumn": target_column,
            }
            assert_agrees(invariant, log, [])


# --- order and time invariants ---------------------------------------------------------

SEQUENCE_KEYS = ("args.body.seq", "args.params.1", "args.params.0", "result.changes")
GROUP_KEYS = ("args.body.customer", "args.params.0", "args.sql")
SEQUENCE_SELECTORS = ({"target": "Queue:out", "op": "send", "kind": "result"}, {"target": "Queue:*"})


@st.composite
def ordered_cases(draw):
    """Mostly forwards of a few customers' sequences under a selector that picks them; sometimes
    any drawn log under a broad or anchored selector."""
    if draw(st.integers(0, 3)):
        log = draw(s.sequence_logs(max_effects=12))
        choices = SEQUENCE_SELECTORS + (BROAD_SELECTORS[-1], None)
    else:
        log = draw(s.effect_logs(max_effects=14, repeat_one_in=2))
        choices = BROAD_SELECTORS + (None,)
    return log, draw(st.sampled_from(choices)) or draw(s.anchored_selectors(log))


@st.composite
def timed_log_and_selector(draw):
    log = draw(s.timed_logs())
    return log, draw(st.sampled_from((draw(s.anchored_selectors(log)),) + BROAD_SELECTORS))


@PROPERTY_SETTINGS
@given(ordered_cases())
def test_property_in_order_per_key(case):
    """Out-of-order pairs within a group, found by running extremes, are the reference's pairs."""
    log, selector = case
    for group_key in GROUP_KEYS:
        for sequence_key in SEQUENCE_KEYS:
            invariant = {
                "kind": "in_order_per_key",
                "name": "ordered",
                "selector": selector,
                "groupKey": group_key,
                "sequenceKey": sequence_key,
            }
            assert_agrees(invariant, log, [])


@pytest.mark.parametrize(("kind", "name"), [("min_interval_per_key", "apart"), ("max_interval_per_key", "within")])
@PROPERTY_SETTINGS
@given(timed_log_and_selector())
def test_property_interval_per_key(kind, name, case):
    """Too-close pairs (min, found among neighbours in time) and too-far ones (max, found from
    each key's earliest and latest times) are the reference's pairs."""
    log, selector = case
    for key in s.KEY_PATHS:
        for ms in (0, 1, 2, 5):
            invariant = {"kind": kind, "name": name, "selector": selector, "key": key, "ms": ms}
            assert_agrees(invariant, log, [])


# --- aggregate -------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(s.aggregate_logs(), st.lists(s.aggregate_invariants(), min_size=1, max_size=4))
def test_property_aggregate(log, invariants):
    """The aggregate per group, and the groups that break, are the reference's, for each function."""
    for invariant in invariants:
        for fn in ("sum", "count", "min", "max"):
            assert_agrees({**invariant, "fn": fn}, log, [])


# --- refines ---------------------------------------------------------------------------

READ = {"target": "D1:DB", "op": ["first", "all"], "kind": "result"}
WRITE = {"target": "D1:DB", "op": ["run", "batch"], "kind": "result", "where": {"result.changes": {"gt": 0}}}


FOLLOWS = (
    [],
    [{"effect": "args.params.1", "decision": "result.refunded"}],
    [{"effect": "args.params.0", "decision": "args.0"}],
)
STATE_KEYS = (None, "args.params.0", "args.params.1")


@st.composite
def refines_cases(draw):
    """A log and a selector; each case is checked under every follows and state variant."""
    log = draw(s.refines_logs()) if draw(st.integers(0, 3)) else draw(s.effect_logs(max_effects=12))
    selector = draw(st.sampled_from((WRITE, draw(s.anchored_selectors(log)))))
    return log, selector, draw(st.sampled_from(("decide", "Core:decide")))


@PROPERTY_SETTINGS
@given(refines_cases())
def test_property_refines(case):
    log, selector, decision = case
    for follows in FOLLOWS:
        for state_key in STATE_KEYS:
            invariant = {"kind": "refines", "name": "ref", "decision": decision, "selector": selector, "follows": follows}
            if state_key is not None:
                invariant["state"] = {"read": READ, "write": WRITE, "key": state_key}
            assert_agrees(invariant, log, [])


# --- canonical JSON --------------------------------------------------------------------

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.text(alphabet=st.characters(max_codepoint=0xD7FF, exclude_categories=("Cs",)), max_size=6),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(alphabet="abcAB_é1", max_size=3), children, max_size=4),
    ),
    max_leaves=12,
)


@PROPERTY_SETTINGS
@given(json_values)
def test_property_to_json_exact_on_json_data(value):
    """On JSON data to_json is json.dumps with sorted keys and no spaces, and round-trips."""
    text = to_json(value)
    assert json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False) == text
    assert value == json.loads(text)


@PROPERTY_SETTINGS
@given(st.dictionaries(st.text(alphabet="abc", max_size=2), st.integers(0, 3), max_size=5))
def test_property_to_json_ignores_insertion_order(mapping):
    """Equal dicts built in different orders have one text."""
    reversed_mapping = dict(reversed(list(mapping.items())))
    assert to_json(mapping) == to_json(reversed_mapping)


@PROPERTY_SETTINGS
@given(st.floats(allow_nan=False, allow_infinity=False))
@example(-0.0)
@example(1e21)
@example(2.0**53)
def test_property_to_json_floats_round_trip(number):
    """A finite float's text reads back as the same number, integral floats as the int."""
    text = to_json(number)
    assert number == float(text)
    assert " " not in text
    if number == int(number) and abs(number) <= 2**53:
        assert str(int(number)) == text
    if number > 0:
        assert "-" + text == to_json(-number)


@PROPERTY_SETTINGS
@given(st.sets(st.integers(-3, 3)), st.binary(max_size=6))
def test_property_to_json_sets_and_bytes(values, blob):
    """Sets of numbers become numerically sorted arrays; bytes their base64 text."""
    assert sorted(values) == json.loads(to_json(values))
    assert sorted(str(v) for v in values) == json.loads(to_json({str(v) for v in values}))
    assert blob == base64.b64decode(json.loads(to_json(blob)))


# --- the redelivery rule ---------------------------------------------------------------


@PROPERTY_SETTINGS
@given(st.integers(1, 8), st.integers(0, 8), st.integers(0, 8))
def test_property_may_redeliver(attempts, platform_limit, max_redeliveries):
    """Redelivered while both limits leave room; the count of deliveries is 1 + the smaller limit."""
    expected = attempts - 1 < platform_limit and attempts - 1 < max_redeliveries
    assert expected == may_redeliver(attempts, platform_limit, max_redeliveries)
    deliveries = 1
    while may_redeliver(deliveries, platform_limit, max_redeliveries):
        deliveries += 1
        assert deliveries <= 9
    assert 1 + min(platform_limit, max_redeliveries) == deliveries


@PROPERTY_SETTINGS
@given(st.integers(1, 8), st.integers(0, 8), st.one_of(st.none(), st.integers(0, 8)))
def test_property_redelivery_stop(attempts, platform_limit, max_redeliveries):
    """The platform's limit spent is its dead letter; the scenario's bound alone stopping it is a cut."""
    stop = redelivery_stop(attempts, platform_limit, max_redeliveries)
    if attempts - 1 >= platform_limit:
        assert REDELIVERY_DEAD_LETTER == stop
    elif max_redeliveries is not None and attempts - 1 >= max_redeliveries:
        assert REDELIVERY_CUT == stop
    else:
        assert stop is None
    assert (stop is None) == may_redeliver(attempts, platform_limit, max_redeliveries)


def test_floats_are_finite_in_the_domain():
    """The special floats are strings, so every canonical text is valid strict JSON."""
    for special in (math.nan, math.inf, -math.inf):
        assert isinstance(json.loads(to_json(special)), str)
