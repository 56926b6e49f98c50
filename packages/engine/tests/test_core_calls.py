"""Core decisions in the verdict: ``coreCalls`` only when the scenario lists specs, each distinct call once."""

from eutaxy.core.canonical import to_json
from eutaxy.core.protocol import RunResult
from eutaxy.engine.check import check_scenario
from eutaxy.engine.core_calls import CoreCalls

from toyplatform import ToyPlatform, orders_scenario


class DecidingToy(ToyPlatform):
    """The toy orders consumer with a pure core: after each read it asks ``decideInsert``.

    The decision is recorded as the Cloudflare runtime records one (target ``Core:<function>``,
    op ``decide``, kind ``decision``, payload ``{args, result}``, the invocation's next ordinal),
    so a redelivery that finds the row makes a second, different call for the same key.
    """

    def run(self, plan):
        result = super().run(plan)
        data = result.to_data()
        effects = []
        for effect in data["effects"]:
            effects.append(effect)
            if effect["target"] == "Toy:db" and effect["op"] == "get" and effect["kind"] == "result":
                found = effect["payload"]["result"]["row"] is not None
                key = effect["payload"]["args"]["key"]
                effects.append({
                    "target": "Core:decideInsert", "op": "decide", "kind": "decision",
                    "payload": {"args": [key, found], "result": {"insert": not found}},
                    "invocation": effect["invocation"], "ordinal": effect["ordinal"] + 1, "time": effect["time"],
                })
        data["effects"] = effects
        return RunResult.from_data(data)


def _with_specs(scenario: dict) -> dict:
    return dict(scenario, specs=["/toy/domain.ts"])


def test_a_scenario_without_specs_has_no_core_calls_and_the_same_verdict():
    """Listing no specs leaves the verdict exactly as it was, even when the platform records decisions."""
    plain = check_scenario(orders_scenario(fixed=True), ToyPlatform(), max_runs=20)
    deciding = check_scenario(orders_scenario(fixed=True), DecidingToy(), max_runs=20)
    assert "coreCalls" not in plain and "coreCalls" not in deciding
    assert to_json(plain) == to_json(check_scenario(dict(orders_scenario(fixed=True), specs=[]), ToyPlatform(), max_runs=20))


def test_each_distinct_call_is_listed_once_with_where_it_was_first_seen():
    verdict = check_scenario(_with_specs(orders_scenario(fixed=True)), DecidingToy(), max_runs=40)
    assert "bounded" == verdict["kind"]
    calls = verdict["coreCalls"]
    identities = [(c["function"], to_json(c["args"]), to_json(c["result"])) for c in calls]
    assert len(identities) == len(set(identities))
    assert {"decideInsert"} == {c["function"] for c in calls}
    # Run 0 injects nothing: each key is decided once, not found, in event order.
    first = [c for c in calls if c["firstSeen"]["run"] == 0]
    assert [["o-1", False], ["o-2", False], ["o-3", False]] == [c["args"] for c in first]
    assert {"run": 0, "invocation": "msg-1#1", "ordinal": 1} == first[0]["firstSeen"]
    assert {"insert": True} == first[0]["result"]
    # A redelivery after the insert committed finds the row: a different call, seen later.
    found = [c for c in calls if c["args"][1] is True]
    assert found and all(c["firstSeen"]["run"] > 0 and c["result"] == {"insert": False} for c in found)
    assert found[0]["firstSeen"]["invocation"].endswith("#2")


def test_core_calls_are_deterministic_and_only_from_exploration_runs():
    one = check_scenario(_with_specs(orders_scenario()), DecidingToy(), max_runs=300)
    two = check_scenario(_with_specs(orders_scenario()), DecidingToy(), max_runs=300)
    assert "violated" == one["kind"]
    assert to_json(one) == to_json(two)
    runs = one["provenance"]["runs"]
    assert all(0 <= c["firstSeen"]["run"] < runs for c in one["coreCalls"])
    # Apart from coreCalls, the verdict is the one a scenario without specs gets.
    without = check_scenario(orders_scenario(), DecidingToy(), max_runs=300)
    assert to_json(without) == to_json({k: v for k, v in one.items() if k != "coreCalls"})


def test_the_order_is_by_function_then_first_sighting():
    calls = CoreCalls()
    decision = {"op": "decide", "kind": "decision", "invocation": "req-1#1", "ordinal": 0}
    calls.observe(0, [dict(decision, target="Core:zeta", payload={"args": [1], "result": 1}),
                      dict(decision, target="Core:alpha", payload={"args": [2], "result": 2}),
                      dict(decision, target="D1:DB", payload={"args": [3], "result": 3}),
                      dict(decision, target="Core:alpha", payload={"args": [2], "result": 2})])
    calls.observe(1, [dict(decision, target="Core:alpha", payload={"args": [1], "result": 1}, ordinal=4),
                      dict(decision, target="Core:zeta", payload={"args": [1], "result": 1}),
                      # Same arguments, another result: kept, so an impure core shows.
                      dict(decision, target="Core:zeta", payload={"args": [1], "result": 9}, kind="decision")])
    data = calls.to_data()
    assert [("alpha", [2], 0), ("alpha", [1], 1), ("zeta", [1], 0), ("zeta", [1], 1)] == [
        (c["function"], c["args"], c["firstSeen"]["run"]) for c in data]
    assert {"run": 1, "invocation": "req-1#1", "ordinal": 4} == data[1]["firstSeen"]
    assert 4 == len(calls)


def test_exact_readings_are_kept_and_tell_calls_apart():
    calls = CoreCalls()
    decision = {"op": "decide", "kind": "decision", "invocation": "req-1#1", "ordinal": 0, "target": "Core:f"}
    minus_zero = [{"$": "number", "v": "-0"}]
    calls.observe(0, [dict(decision, payload={"args": [0], "result": 0}),
                      # f(-0): the same canonical reading as f(0), another call.
                      dict(decision, payload={"args": [0], "result": 0, "argsExact": minus_zero, "resultExact": minus_zero[0]}),
                      dict(decision, payload={"args": [0], "result": 0, "argsExact": minus_zero, "resultExact": minus_zero[0]}),
                      # A Date argument: no exact reading, said why, and not the call f("1970-...") is.
                      dict(decision, payload={"args": ["1970-01-01T00:00:00.000Z"], "result": 1}),
                      dict(decision, payload={"args": ["1970-01-01T00:00:00.000Z"], "result": 1,
                                              "argsInexact": "args[0] is a Date, which the value encoding cannot carry"})])
    data = calls.to_data()
    assert 4 == len(data)
    assert {"function": "f", "args": [0], "result": 0} == {k: data[0][k] for k in data[0] if k != "firstSeen"}
    assert minus_zero == data[1]["argsExact"] and minus_zero[0] == data[1]["resultExact"]
    assert "argsExact" not in data[2] and "argsInexact" not in data[2]
    assert data[3]["argsInexact"].startswith("args[0] is a Date")
