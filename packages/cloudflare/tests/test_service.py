"""service(...): the scripted callee as the step carries it, bad input named, and the selector."""

import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import callee, http, service, service_call, service_error, service_replies
from eutaxy.cloudflare.bindings.service import SERVICE
from eutaxy.cloudflare.rpc import enhanced_error_serialization
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core.errors import UserError
from worker_project import scenario_in


def test_each_method_is_a_value_or_an_error_and_fetch_routes_are_an_externals():
    step = service("ORDERS", methods={"reserve": {"held": True}, "charge": service_error("RangeError", "declined")},
                   fetch=[{"method": "get", "path": "/status*", "replies": [{"status": 503}, {"body": "open"}]}])
    assert {
        "kind": "service",
        "binding": "ORDERS",
        "methods": {
            "reserve": {"value": {"held": True}},
            "charge": {"error": {"name": "RangeError", "message": "declined"}},
        },
        "fetch": [{"method": "GET", "path": "/status*", "replies": [
            {"status": 503, "headers": {}, "body": None},
            {"status": 200, "headers": {}, "body": "open"},
        ]}],
    } == step
    assert step == SERVICE.check_step(step, "setup[0]"), "a step read back is checked as one built here"


def test_a_methods_replies_in_turn_travel_as_a_sequence_a_list_stays_one_reply():
    step = service("ORDERS", methods={
        "reserve": service_replies({"ok": True}, service_error("RangeError", "sold out")),
        "skus": ["a", "b"],
    })
    assert {
        "reserve": {"replies": [{"value": {"ok": True}}, {"error": {"name": "RangeError", "message": "sold out"}}]},
        "skus": {"value": ["a", "b"]},
    } == step["methods"]
    assert step == SERVICE.check_step(step, "setup[0]"), "a step read back is checked as one built here"


@pytest.mark.parametrize(
    ("replies", "words"),
    [
        ((), r"service_replies: give at least one reply"),
        (tuple(range(101)), r"at most 100 replies, got 101"),
    ],
)
def test_replies_in_turn_are_one_to_a_hundred(replies, words):
    with pytest.raises(UserError, match=words):
        service_replies(*replies)


def test_a_reply_in_turn_is_a_reply_and_no_nested_sequence():
    with pytest.raises(UserError, match=r"methods\['m'\]: service_replies\[1\]: .*a reply is JSON data"):
        service("ORDERS", {"m": service_replies(1, {1, 2})})
    with pytest.raises(UserError, match=r"service_replies\[0\]: service_replies\(...\) cannot be one of a method's replies"):
        service("ORDERS", {"m": service_replies(service_replies(1))})
    with pytest.raises(UserError, match=r"setup\[0\]: methods\['m'\]: replies\[0\] must be \{'value': ...\}"):
        SERVICE.check_step({"kind": "service", "binding": "ORDERS", "methods": {"m": {"replies": [1]}}}, "setup[0]")
    with pytest.raises(UserError, match=r"setup\[0\]: methods\['m'\]: replies: give at least one reply"):
        SERVICE.check_step({"kind": "service", "binding": "ORDERS", "methods": {"m": {"replies": []}}}, "setup[0]")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        (("",), "binding must be a binding name"),
        (("ORDERS", {"fetch": 1}), r"'fetch' is not an RPC method name"),
        (("ORDERS", {"not a name": 1}), "is not an RPC method name"),
        (("ORDERS", {"m": float("nan")}), r"methods\['m'\]"),
        (("ORDERS", {"m": {1, 2}}), "a reply is JSON data"),
        (("ORDERS", ["m"]), "methods must be a dict"),
        (("ORDERS", {}, [{"method": "GET"}]), r"service\('ORDERS'\): fetch\[0\]: give a path"),
        (("ORDERS", {}, {"method": "GET"}), r"fetch must be a list of routes"),
    ],
)
def test_bad_scripts_are_named(arguments, words):
    with pytest.raises(UserError, match=words):
        service(*arguments)


def test_a_scripted_error_names_an_error_class():
    with pytest.raises(UserError, match="name must be an error class's name"):
        service_error("no such", "x")
    with pytest.raises(UserError, match="message must be a string"):
        service_error("RangeError", 3)


def test_a_hand_written_step_must_be_as_service_writes_it():
    with pytest.raises(UserError, match=r"setup\[0\]: methods\['m'\] must be \{'value': ...\}"):
        SERVICE.check_step({"kind": "service", "binding": "ORDERS", "methods": {"m": 1}}, "setup[0]")


def test_service_call_selects_the_calls_that_reached_the_callee():
    assert {"target": "Service:ORDERS", "op": "reserve", "kind": "result"} == service_call("ORDERS", "reserve")
    assert {"result.ok": False} == service_call("ORDERS", ok=False)["where"]


def _orders(root, orders: dict, inventory: dict | None = None):
    """The orders Worker's project in ``root`` (its config ``orders`` more), and an inventory Worker's beside it."""
    (root / "inventory").mkdir()
    (root / "worker.ts").write_text("export default {};\n")
    (root / "inventory" / "worker.ts").write_text("export default {};\n")
    (root / "wrangler.jsonc").write_text(json.dumps({"name": "orders", "main": "./worker.ts", **orders}))
    (root / "inventory" / "wrangler.jsonc").write_text(json.dumps({"name": "inventory", "main": "./worker.ts", **(inventory or {})}))


def _spec(root, setup):
    return prepare_worker(scenario_in(root, setup=setup, drive=http([{"method": "GET", "path": "/"}]), invariants=[]))


def test_a_binding_a_callee_runs_is_the_callees_and_the_callees_own_binding_is_scripted(tmp_path):
    """callee("INVENTORY") takes the binding out of the service kind (no step, no trap, no scripted sentence);
    the callee's own PARTNER is a service binding of the kind, scripted under its qualified name."""
    _orders(tmp_path, {"compatibility_date": "2025-09-01", "services": [{"binding": "INVENTORY", "service": "inventory"}]},
            {"compatibility_date": "2025-09-01", "services": [{"binding": "PARTNER", "service": "partner", "entrypoint": "Quotes"}]})
    spec = _spec(tmp_path, [callee("INVENTORY", config="./inventory/wrangler.jsonc"), service("inventory/PARTNER", methods={"quote": 3})])
    entry = spec.load_message()["worker"]["kinds"]["service"]
    assert ["inventory/PARTNER"] == list(entry["bindings"])
    # The owner (the callee whose binding it is) decides the scripted call's error serialization (service.mjs `scriptedSides`).
    assert {"service": "partner", "entrypoint": "Quotes", "owner": "inventory"} == entry["bindings"]["inventory/PARTNER"]["settings"]
    [scripted] = [sentence for sentence in spec.assumptions if sentence.startswith("Callees were scripted")]
    assert "inventory/PARTNER (Worker partner, entrypoint Quotes): quote() returns" in scripted and "INVENTORY" not in scripted
    assert not any("stand in as traps" in sentence for sentence in spec.assumptions)
    assert ["INVENTORY", "inventory/PARTNER"] == SERVICE.targets(spec.config)


#: The measured settings (runtime/test/rpc_thrown.json): each pair of Workers' compatibility dates and
#: flags, and which of the three ways a thrown value crossed between them (rpc_thrown.test.mjs holds
#: the file to a real service binding, and the runtime's rule to each way).
SETTINGS = json.loads((Path(__file__).resolve().parents[1] / "runtime" / "test" / "rpc_thrown.json").read_text())["settings"]

#: Which sides had enhanced_error_serialization on for each way it crossed; the callee's side alone changes nothing.
SEES = {"legacy": [(False, False), (False, True)], "enhanced": [(True, True)], "callerOnly": [(True, False)]}


@pytest.mark.parametrize("setting", SETTINGS, ids=[one["setting"] for one in SETTINGS])
def test_the_date_rule_gives_each_measured_setting_the_way_its_values_crossed(setting):
    """enhanced_error_serialization (the date and flag rule Python sends a callee's side by) on each measured pair of Workers."""
    sides = tuple(enhanced_error_serialization(setting[side]["date"], setting[side]["flags"]) for side in ("caller", "callee"))
    assert sides in SEES[setting["sees"]]


@pytest.mark.parametrize(
    ("date", "flags", "enhanced"),
    [
        ("2026-04-20", [], False),
        ("2026-04-21", [], True),
        ("2026-01-01", ["enhanced_error_serialization"], True),
        ("2026-05-01", ["legacy_error_serialization"], False),
    ],
)
def test_a_scripted_services_worker_is_taken_to_have_its_callers_error_serialization(tmp_path, date, flags, enhanced):
    """A scripted binding's Worker has no config: with the caller's enhanced_error_serialization on, the
    verdict says it is taken to have the caller's; off, the callee's setting changes nothing and nothing is said."""
    _orders(tmp_path, {"compatibility_date": date, "compatibility_flags": flags, "services": [{"binding": "PARTNER", "service": "partner"}]})
    spec = _spec(tmp_path, [service("PARTNER", methods={"quote": 3})])
    said = [sentence for sentence in spec.assumptions if "enhanced_error_serialization" in sentence]
    assert (["scripted service binding PARTNER is taken to have its caller's"] if enhanced else []) == [
        s[s.index("scripted"):s.index(" (a service_error")] for s in said
    ]


def test_a_callee_carries_its_own_and_its_callers_error_serialization_in_the_load_message(tmp_path):
    """A callee runs in the caller's isolate with the caller's date: its own setting, from its config,
    goes in the load message (the loaded Worker's caller side null, asked of workerd); a callee's own
    scripted binding is named when that callee has the setting on, and a callee itself never is."""
    _orders(tmp_path, {"compatibility_date": "2026-01-01", "services": [{"binding": "INVENTORY", "service": "inventory"}]},
            {"compatibility_date": "2026-05-01", "services": [{"binding": "PARTNER", "service": "partner"}]})
    spec = _spec(tmp_path, [callee("INVENTORY", config="./inventory/wrangler.jsonc"), service("inventory/PARTNER", methods={"quote": 3})])
    assert [{"caller": None, "callee": True}] == [one["errors"] for one in spec.load_message()["worker"]["callees"]]
    [said] = [sentence for sentence in spec.assumptions if "enhanced_error_serialization" in sentence]
    assert "scripted service binding inventory/PARTNER is taken to have its caller's" in said and "INVENTORY" not in said
    (tmp_path / "off").mkdir()
    _orders(tmp_path / "off", {"compatibility_date": "2026-05-01", "services": [{"binding": "INVENTORY", "service": "inventory"}]},
            {"compatibility_date": "2026-01-01", "compatibility_flags": ["nodejs_compat"]})
    spec = _spec(tmp_path / "off", [callee("INVENTORY", config="./inventory/wrangler.jsonc")])
    assert [{"caller": None, "callee": False}] == [one["errors"] for one in spec.load_message()["worker"]["callees"]]
    assert not [sentence for sentence in spec.assumptions if "enhanced_error_serialization" in sentence]
