"""Durable Object runs on real workerd: effects, faults inside an object, reset, snapshot, UNSUPPORTED.

The fixture (objects/) has a SQLite-backed Ledger that writes to D1 from inside the object,
a key-value Tally reached through newUniqueId(), and one path for each use the model refuses.
"""

from math import comb
from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, d1_schema, define_scenario, durable_object, http, unique, durable_object_table
from eutaxy.core.canonical import to_json
from eutaxy.core.errors import UserError
from eutaxy.engine.bounds import resolve_bounds, with_bounds
from eutaxy.engine.check import check_scenario, replay_scenario
from eutaxy.engine.exhaustive import Enumeration
from eutaxy.engine.explore import explore
from eutaxy.engine.session import Session

pytestmark = pytest.mark.usefixtures("toolchain")

FIXTURE = Path(__file__).resolve().parent / "objects"

SETUP = [
    d1_schema("DB", "./schema.sql"),
    durable_object(
        "LEDGER",
        {"acct": {"last": "none"}, "idle": {"note": "never called"}},
        sql={
            "acct": {
                "schema": "CREATE TABLE balances (account TEXT PRIMARY KEY, cents INTEGER NOT NULL DEFAULT 0)",
                "rows": {"balances": [{"account": "alice", "cents": 10}]},
            },
            "idle": {"schema": "CREATE TABLE balances (account TEXT PRIMARY KEY, cents INTEGER NOT NULL DEFAULT 7)", "rows": {"balances": [{}]}},
        },
    ),
    durable_object("TALLY"),
]


def scenario(paths, *, retries=0, setup=SETUP, concurrency=1):
    return define_scenario(
        name="objects",
        root=FIXTURE,
        source=FIXTURE / "objects.sim.py",
        setup=setup,
        drive=http([{"path": path} for path in paths], retries=retries),
        invariants=[unique("one-row-per-account", durable_object_table("LEDGER", "acct", "balances"), "account", allow_vacuous=True)],
        bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": concurrency, "budgetMs": 60_000},
    )


def run(platform, built, faults=()):
    result = replay_scenario(built, platform, {"faults": list(faults), "turns": []}, seed="objects")["result"]
    return result


def points(result):
    return [(e["invocation"], e["ordinal"], e["target"], e["op"], e["kind"]) for e in result["effects"] if e["kind"] != "snapshot"]


def snapshots(result):
    return {(e["target"], e["op"]): e["payload"]["rows"] for e in result["effects"] if e["kind"] == "snapshot"}


def test_a_stub_call_is_one_effect_and_the_objects_own_d1_call_is_numbered_after_it():
    """The deposit call opens at ordinal 0; the object's D1 insert is the same invocation's ordinal 1; snapshots follow."""
    built = scenario(["/deposit", "/unique"])
    with create_platform(built) as platform:
        first = run(platform, built)
        again = run(platform, built)
    assert "completed" == first["end"]["kind"], first["end"]
    assert [
        ("req-1#1", 0, "DO:LEDGER", "deposit", "call"),
        ("req-1#1", 1, "D1:DB", "run", "call"),
        ("req-1#1", 1, "D1:DB", "run", "result"),
        ("req-1#1", 0, "DO:LEDGER", "deposit", "result"),
        ("req-1#1", 2, "Http:/deposit", "response", "call"),
        ("req-1#1", 2, "Http:/deposit", "response", "result"),
        ("req-2#1", 0, "DO:TALLY", "bump", "call"),
        ("req-2#1", 0, "DO:TALLY", "bump", "result"),
        ("req-2#1", 1, "DO:TALLY", "total", "call"),
        ("req-2#1", 1, "DO:TALLY", "total", "result"),
        ("req-2#1", 2, "Http:/unique", "response", "call"),
        ("req-2#1", 2, "Http:/unique", "response", "result"),
    ] == points(first)
    calls = [e["payload"] for e in first["effects"] if e["kind"] == "result" and e["target"].startswith("DO:")]
    assert {"args": {"object": "acct", "args": ["alice", 5]}, "result": {"value": {"calls": 1}}} == calls[0]
    assert calls[2]["args"]["property"] is True and 1 == calls[2]["result"]["value"]
    seen = snapshots(first)
    assert [{"key": "last", "value": "alice"}] == seen[("DO:LEDGER", "acct")]
    assert [{"account": "alice", "cents": 15}] == seen[("DO:LEDGER", "acct/balances")]
    # No call reached "idle": it shows its seed as the reset read it back, the default included.
    assert [{"key": "note", "value": "never called"}] == seen[("DO:LEDGER", "idle")]
    assert [{"account": None, "cents": 7}] == seen[("DO:LEDGER", "idle/balances")]
    [(unique_object, rows)] = [(op, rows) for (target, op), rows in seen.items() if target == "DO:TALLY"]
    assert unique_object.startswith("unique-") and 39 == len(unique_object)
    assert [{"key": "n", "value": 1}] == rows
    # The reset cleared what the first run wrote, and newUniqueId drew the same name: the runs agree.
    assert first["effects"] == again["effects"]


def test_a_crash_inside_the_object_resets_it_and_the_retry_meets_a_new_instance():
    """crash_before at the object's D1 insert kills the call and aborts the object; the resend's deposit is the instance's first."""
    built = scenario(["/deposit"], retries=1)
    with create_platform(built) as platform:
        result = run(platform, built, [{"invocation": "req-1#1", "ordinal": 1, "fault": "crash_before"}])
    assert "completed" == result["end"]["kind"], result["end"]
    deposits = [(e["invocation"], e["payload"]["result"]) for e in result["effects"] if (e["target"], e["kind"]) == ("DO:LEDGER", "result")]
    [(first, ended), (second, answered)] = deposits
    assert ("req-1#1", "req-1#2") == (first, second)
    # The first call ends with the reset (its object aborted where the crash happened)...
    # (once: the message is the reset's text, not "Error: " again before it)
    reset = "eutaxy: the invocation crashed inside this Durable Object; it is reset"
    assert {"name": "Error", "message": reset} == {k: ended["error"][k] for k in ("name", "message")}
    # ...and the resend meets a new instance: its first call, not its second.
    assert {"value": {"calls": 1}} == answered
    seen = snapshots(result)
    assert [{"account": "alice", "cents": 5}] == seen[("D1:DB", "deposits")]
    assert [{"account": "alice", "cents": 15}] == seen[("DO:LEDGER", "acct/balances")]


def test_stub_fetch_is_one_effect_with_the_objects_answer():
    """stub.fetch() is the point DO:LEDGER fetch: the request's method and URL, the answer's status and body."""
    built = scenario(["/fetch"])
    with create_platform(built) as platform:
        result = run(platform, built)
    [payload] = [e["payload"] for e in result["effects"] if (e["target"], e["op"], e["kind"]) == ("DO:LEDGER", "fetch", "result")]
    assert {"object": "acct", "args": [{"method": "GET", "url": "https://ledger.invalid/balance"}]} == payload["args"]
    assert {"status": 203, "ok": True, "body": "/balance 10"} == payload["result"]
    [response] = [e["payload"]["result"] for e in result["effects"] if (e["op"], e["kind"]) == ("response", "result")]
    assert (203, "/balance 10") == (response["status"], response["body"])


def test_an_object_that_awaits_a_timer_of_its_own_is_woken_by_it_in_virtual_time():
    """nap(250) awaits setTimeout inside the object: the timer fires in virtual time, the D1 write after it is the call's."""
    built = scenario(["/nap"])
    with create_platform(built) as platform:
        first = run(platform, built)
        again = run(platform, built)
    assert "completed" == first["end"]["kind"], first["end"]
    [answer] = [e["payload"]["result"]["value"] for e in first["effects"] if (e["target"], e["op"], e["kind"]) == ("DO:LEDGER", "nap", "result")]
    assert answer >= 250
    [write] = [e for e in first["effects"] if (e["target"], e["kind"]) == ("D1:DB", "call")]
    assert ("req-1#1", 1) == (write["invocation"], write["ordinal"])
    assert first["effects"] == again["effects"]


def test_a_class_whose_members_are_named_state_instance_object_env_and_user_runs_as_written():
    """The wrapper keeps its own state outside the object, so a getter and setter named state,
    a getter named instance and methods named objectEnv and user are the class's own."""
    built = scenario(["/profile"], setup=[*SETUP, durable_object("PROFILE")])
    with create_platform(built) as platform:
        result = run(platform, built)
    assert "completed" == result["end"]["kind"], result["end"]
    [response] = [e["payload"]["result"] for e in result["effects"] if (e["op"], e["kind"]) == ("response", "result")]
    assert 200 == response["status"], response
    assert {
        "first": {"name": "ann", "visits": 1, "instance": "the profile"},
        "second": {"name": "ann", "visits": 2, "instance": "the profile"},
        "state": {"visits": 2},
        "instance": "the profile",
        "objectEnv": ["DB"],
    } == response["body"]
    calls = [op for (_, _, target, op, kind) in points(result) if target == "DO:PROFILE" and kind == "call"]
    assert ["user", "user", "state", "instance", "objectEnv"] == calls
    assert [{"key": "visits", "value": 2}] == snapshots(result)[("DO:PROFILE", "p")]


def test_calls_into_two_different_objects_in_a_concurrent_run_interleave_at_the_objects_effects():
    """/deposit enters acct, /deposit-idle enters idle: each stub call is a turn, and so is each
    object's D1 call, parked inside the object (its option names the object), numbered after the
    stub call in the caller's invocation; no turn does more than its effect."""
    built = scenario(["/deposit", "/deposit-idle"], concurrency=2)
    with create_platform(built) as platform:
        result = run(platform, built)
        crashed = run(platform, built, [{"invocation": "req-2#1", "ordinal": 1, "fault": "crash_before"}])
    assert "completed" == result["end"]["kind"], result["end"]
    calls = [(inv, ordinal, target, op) for (inv, ordinal, target, op, kind) in points(result) if kind == "call"]
    for inv, path in (("req-1#1", "/deposit"), ("req-2#1", "/deposit-idle")):
        assert [(0, "DO:LEDGER", "deposit"), (1, "D1:DB", "run"), (2, f"Http:{path}", "response")] == [c[1:] for c in calls if c[0] == inv]
    turns = [d for d in result["decisions"] if d["kind"] == "turn"]
    both = [{"kind": "effect", "invocation": "req-1#1", "target": "DO:LEDGER"}, {"kind": "effect", "invocation": "req-2#1", "target": "DO:LEDGER"}]
    assert both == turns[2]["options"]
    offered = [option for turn in turns for option in turn["options"]]
    assert {"kind": "effect", "invocation": "req-1#1", "target": "D1:DB", "object": "DO:LEDGER/acct"} in offered
    assert {"kind": "effect", "invocation": "req-2#1", "target": "D1:DB", "object": "DO:LEDGER/idle"} in offered
    assert not any(turn["more"] for turn in turns)
    # A crash inside idle's call resets idle and kills req-2#1 alone.
    assert "completed" == crashed["end"]["kind"], crashed["end"]
    assert ("req-2#1", 1, "D1:DB", "run", "fault") in points(crashed)
    assert ("req-1#1", 0, "DO:LEDGER", "deposit", "result") in points(crashed)


def test_a_retry_calling_into_the_object_its_crashed_attempt_entered_is_modelled_in_a_concurrent_run():
    """The attempts of one event follow each other, so req-1#2 may enter acct after req-1#1 crashed inside it."""
    built = scenario(["/deposit", "/deposit-idle"], retries=1, concurrency=2)
    with create_platform(built) as platform:
        result = run(platform, built, [{"invocation": "req-1#1", "ordinal": 1, "fault": "crash_before"}])
    assert "completed" == result["end"]["kind"], result["end"]
    assert ("req-1#2", 0, "DO:LEDGER", "deposit", "result") in points(result)


def test_a_second_call_enters_one_object_while_the_first_awaits_its_d1_call():
    """The object's input gate is open while a call awaits outbound I/O: req-2's call enters acct
    while req-1's is parked at its D1 call, and both D1 calls are turns inside acct."""
    built = scenario(["/deposit", "/deposit"], concurrency=2)
    # req-1 starts; req-2 starts; req-1 enters and parks at D1; req-2 enters; then the D1 calls in order.
    with create_platform(built) as platform:
        result = replay_scenario(built, platform, {"faults": [], "turns": [0, 1, 0, 0, 0, 0]}, seed="objects")["result"]
    assert "completed" == result["end"]["kind"], result["end"]
    calls = [(inv, target) for (inv, _, target, _, kind) in points(result) if kind == "call" and not target.startswith("Http:")]
    assert [("req-1#1", "DO:LEDGER"), ("req-2#1", "DO:LEDGER"), ("req-1#1", "D1:DB"), ("req-2#1", "D1:DB")] == calls
    turns = [d for d in result["decisions"] if d["kind"] == "turn"]
    inside = [{"kind": "effect", "invocation": inv, "target": "D1:DB", "object": "DO:LEDGER/acct"} for inv in ("req-1#1", "req-2#1")]
    assert inside == turns[4]["options"]
    assert [{"account": "alice", "cents": 20}] == snapshots(result)[("DO:LEDGER", "acct/balances")]


def test_inside_block_concurrency_while_the_objects_d1_call_is_no_turn():
    """req-1's deposit runs inside blockConcurrencyWhile: its D1 call is part of the turn that
    entered the object (marked more), never offered, so req-2 cannot enter before it is done."""
    built = scenario(["/deposit-blocked", "/deposit"], concurrency=2)
    with create_platform(built) as platform:
        result = replay_scenario(built, platform, {"faults": [], "turns": [0, 1, 0, 0, 0]}, seed="objects")["result"]
    assert "completed" == result["end"]["kind"], result["end"]
    calls = [(inv, target) for (inv, _, target, _, kind) in points(result) if kind == "call" and not target.startswith("Http:")]
    assert [("req-1#1", "DO:LEDGER"), ("req-1#1", "D1:DB"), ("req-2#1", "DO:LEDGER"), ("req-2#1", "D1:DB")] == calls
    turns = [d for d in result["decisions"] if d["kind"] == "turn"]
    offered = [option for turn in turns for option in turn["options"]]
    assert not any(o.get("invocation") == "req-1#1" and o.get("target") == "D1:DB" for o in offered)
    assert {"kind": "effect", "invocation": "req-2#1", "target": "D1:DB", "object": "DO:LEDGER/acct"} in offered
    assert True is turns[2]["more"]


def test_a_concurrent_check_over_two_objects_is_bounded_and_states_the_turn_assumption():
    built = scenario(["/deposit", "/deposit-idle"], concurrency=2)
    with create_platform(built) as platform:
        verdict = check_scenario(built, platform, max_runs=12)
    assert "bounded" == verdict["kind"], verdict
    assert any("a call into a Durable Object (or its alarm) is one turn" in sentence for sentence in verdict["provenance"]["assumptions"])


@pytest.mark.parametrize(
    ("path", "cause"),
    [
        ("/jurisdiction", "jurisdiction"),
        ("/capability", "not_plain_data"),
        ("/nested", "object_binding_call"),
        ("/unset", "binding_without_setup"),
    ],
)
def test_uses_outside_the_model_are_unsupported_with_their_cause(path, cause):
    """Each refused use ends the run UNSUPPORTED, naming its cause."""
    built = scenario([path])
    with create_platform(built) as platform:
        result = run(platform, built)
    assert ("unsupported", cause) == (result["end"]["kind"], result["end"].get("cause")), result["end"]


def test_a_sql_seed_for_a_key_value_class_names_the_migration_to_add():
    """Tally is a new_classes (key-value) class: seeding SQL for it is the user's to fix."""
    with pytest.raises(UserError, match=r'class Tally is not SQLite-backed; add a migration .*"new_sqlite_classes": \["Tally"\]'):
        create_platform(scenario(["/unique"], setup=[*SETUP[:2], durable_object("TALLY", sql={"t": {"schema": "CREATE TABLE x (a)"}})]))


@pytest.mark.parametrize(
    ("sql", "problem"),
    [
        (
            {"schema": "CREATE TABEL balances (account TEXT)", "rows": {}},
            r'durable_object\("LEDGER"\): the sql seed of object "acct" does not apply: the schema: near "TABEL": syntax error',
        ),
        (
            {"schema": "CREATE TABLE balances (account TEXT)", "rows": {"balance": [{"account": "bob"}]}},
            r'durable_object\("LEDGER"\): the sql seed of object "acct" does not apply: rows.balance\[0\]: no such table: balance',
        ),
    ],
)
def test_a_sql_seed_that_does_not_apply_is_the_scenarios_to_fix(sql, problem):
    """A seed's schema or rows that SQLite refuses fail the reset as an input error naming the step and the object."""
    built = scenario(["/unique"], setup=[SETUP[0], durable_object("LEDGER", sql={"acct": sql}), SETUP[2]])
    with create_platform(built) as platform, pytest.raises(UserError, match=problem):
        run(platform, built)


MISSING_EXPORT_CONFIG = """{
  "name": "unexported",
  "main": "./worker.ts",
  "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [
    {"name": "COUNTER", "class_name": "Counter"},
  ]},
  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Counter"]}],
}"""


def test_a_class_the_entry_does_not_export_is_named_at_its_config_line_with_no_eutaxy_frames(tmp_path):
    """The config binds Counter, which worker.ts defines but does not export: exit 2 at the binding's line, naming the class and the entry."""
    (tmp_path / "wrangler.jsonc").write_text(MISSING_EXPORT_CONFIG)
    (tmp_path / "worker.ts").write_text(
        'import { DurableObject } from "cloudflare:workers";\n'
        "class Counter extends DurableObject {}\n"
        "export default { async fetch() { return new Response('ok'); } };\n"
    )
    built = define_scenario(
        name="unexported", root=tmp_path, source=tmp_path / "s.sim.py", setup=[durable_object("COUNTER")], drive=http([{"path": "/"}]),
        bounds={"maxFaultsPerRun": 0, "maxConcurrentInvocations": 1, "budgetMs": 10_000},
    )
    with pytest.raises(UserError) as refused, create_platform(built) as platform:
        run(platform, built)
    message = str(refused.value)
    assert message.startswith(f"{tmp_path / 'wrangler.jsonc'}:6: durable_objects binding 'COUNTER' names class 'Counter', "), message
    assert "which the Worker's entry worker.ts does not export" in message, message
    assert "objects.mjs" not in message and "eutaxy" not in message.lower().replace(str(tmp_path).lower(), ""), message


def test_work_after_the_answer_runs_as_the_objects_own_invocation_before_the_next_event():
    """accept() answers, then records the job in its own setTimeout: the timer fires in virtual
    time as DO:LEDGER/acct/after, whose D1 insert is its ordinal 0, before req-2 starts."""
    built = scenario(["/accept", "/deposit"])
    with create_platform(built) as platform:
        first = run(platform, built)
        again = run(platform, built)
    assert "completed" == first["end"]["kind"], first["end"]
    calls = [(e["invocation"], e["ordinal"], e["target"], e["op"]) for e in first["effects"] if e["kind"] == "call"]
    assert [
        ("req-1#1", 0, "DO:LEDGER", "accept"),
        ("req-1#1", 1, "Http:/accept", "response"),
        ("DO:LEDGER/acct/after", 0, "D1:DB", "run"),
        ("req-2#1", 0, "DO:LEDGER", "deposit"),
        ("req-2#1", 1, "D1:DB", "run"),
        ("req-2#1", 2, "Http:/deposit", "response"),
    ] == calls
    [insert] = [e for e in first["effects"] if (e["invocation"], e["kind"]) == ("DO:LEDGER/acct/after", "call")]
    assert 100 == insert["time"] - first["effects"][0]["time"]
    assert {"key": "job:j-1", "value": "done"} in snapshots(first)[("DO:LEDGER", "acct")]
    assert first["effects"] == again["effects"]


@pytest.mark.parametrize(
    ("path", "job", "first_after"),
    [("/leave", "j-2", 3), ("/hand", "j-3", 3)],
)
def test_a_promise_left_running_and_wait_until_work_go_on_after_the_answer(path, job, first_after):
    """finish() issues its first insert during the call (the caller's point, not awaited) and its
    second after the answer (the object's own work); both commit, and the object ends finished."""
    built = scenario([path, "/deposit"])
    with create_platform(built) as platform:
        result = run(platform, built)
    assert "completed" == result["end"]["kind"], result["end"]
    inserts = [(e["invocation"], e["ordinal"], e["payload"]["args"]["params"]) for e in result["effects"] if (e["target"], e["kind"]) == ("D1:DB", "call")]
    assert [("req-1#1", 1, [job, 2]), ("DO:LEDGER/acct/after", 0, [job, first_after]), ("req-2#1", 1, ["alice", 5])] == inserts
    assert {"key": f"job:{job}", "value": "finished"} in snapshots(result)[("DO:LEDGER", "acct")]


def test_a_crash_in_the_work_after_the_answer_resets_the_object_and_its_next_instance_is_after_2():
    """crash_before at the after-work's insert resets the object (the job stays accepted); the
    second accept meets a new instance, whose work is DO:LEDGER/acct/after#2."""
    built = scenario(["/accept", "/accept"])
    with create_platform(built) as platform:
        result = run(platform, built, [{"invocation": "DO:LEDGER/acct/after", "ordinal": 0, "fault": "crash_before"}])
    assert "completed" == result["end"]["kind"], result["end"]
    works = [(e["invocation"], e["kind"]) for e in result["effects"] if e["invocation"].startswith("DO:")]
    first, second = "DO:LEDGER/acct/after", "DO:LEDGER/acct/after#2"
    assert [(first, "call"), (first, "fault"), (second, "call"), (second, "result")] == works
    # The callers were not touched: both answered.
    assert [200, 200] == [e["payload"]["result"]["status"] for e in result["effects"] if (e["op"], e["kind"]) == ("response", "result")]


def test_the_callers_crash_does_not_end_the_objects_work_and_a_crash_in_handed_work_resets_only_the_object():
    """A crash at the caller's response leaves accept()'s timer to fire; crash_after at finish()'s
    first insert (issued during the call, not awaited) resets the object and not the caller."""
    built = scenario(["/accept"])
    with create_platform(built) as platform:
        crashed_caller = run(platform, built, [{"invocation": "req-1#1", "ordinal": 1, "fault": "crash_before"}])
    assert {"key": "job:j-1", "value": "done"} in snapshots(crashed_caller)[("DO:LEDGER", "acct")]
    built = scenario(["/leave"])
    with create_platform(built) as platform:
        crashed_work = run(platform, built, [{"invocation": "req-1#1", "ordinal": 1, "fault": "crash_after"}])
    assert [200] == [e["payload"]["result"]["status"] for e in crashed_work["effects"] if (e["op"], e["kind"]) == ("response", "result")]
    assert [["j-2", 2]] == [e["payload"]["args"]["params"] for e in crashed_work["effects"] if (e["target"], e["kind"]) == ("D1:DB", "call")]
    assert not any(row["key"] == "job:j-2" for row in snapshots(crashed_work)[("DO:LEDGER", "acct")])


def test_work_that_never_settles_fires_up_to_after_work_timer_limit_and_is_a_cut():
    """A heartbeat interval fires afterWorkTimerLimit times (here 5) and is then cut, naming the object."""
    built = scenario(["/heartbeat"])
    built["bounds"]["afterWorkTimerLimit"] = 5
    with create_platform(built) as platform:
        result = run(platform, built)
    assert "completed" == result["end"]["kind"], result["end"]
    assert [{"bound": "afterWorkTimerLimit", "where": "DO:LEDGER/acct", "invocation": "DO:LEDGER/acct/after", "left": ["after"], "limit": 5}] == result["cuts"]
    assert {"key": "beats", "value": 5} in snapshots(result)[("DO:LEDGER", "acct")]


def _work_option(invocation="DO:LEDGER/acct/after"):
    return {"kind": "effect", "invocation": invocation, "target": "D1:DB", "object": "DO:LEDGER/acct"}


def test_in_a_concurrent_run_the_work_after_the_answer_is_an_invocation_whose_effects_are_turns():
    """leave() answers with finish() left running: its first insert, opened during the call and
    still waiting for its turn at the answer, is handed to DO:LEDGER/acct/after (its ordinal 0),
    and the second follows as ordinal 1. Each is a turn inside acct, and req-2's deposit enters
    acct while the work waits for its first (the input gate is open): nothing is refused."""
    built = scenario(["/leave", "/deposit"], concurrency=2)
    with create_platform(built) as platform:
        result = run(platform, built)
        again = run(platform, built)
    assert "completed" == result["end"]["kind"], result["end"]
    inserts = [(e["invocation"], e["ordinal"], e["payload"]["args"]["params"]) for e in result["effects"] if (e["target"], e["kind"]) == ("D1:DB", "call")]
    work = "DO:LEDGER/acct/after"
    assert [("req-2#1", 1, ["alice", 5]), (work, 0, ["j-2", 2]), (work, 1, ["j-2", 3])] == sorted(inserts, key=lambda i: (i[0] != "req-2#1", i))
    turns = [d for d in result["decisions"] if d["kind"] == "turn"]
    # req-2's call into acct is on offer beside the work's insert, parked inside acct.
    assert [{"kind": "effect", "invocation": "req-2#1", "target": "DO:LEDGER"}, _work_option()] == turns[3]["options"]
    assert 0 == turns[3]["chosen"]
    assert {"key": "job:j-2", "value": "finished"} in snapshots(result)[("DO:LEDGER", "acct")]
    assert result["effects"] == again["effects"]


def test_in_a_concurrent_run_a_crash_in_the_work_resets_the_object_not_the_callers():
    """Both accepts enter acct before either timer is due (their timers are the one instance's
    work); crash_before at the work's first insert resets acct, which drops the other timer with
    the instance: both callers answered, and neither job is done."""
    built = scenario(["/accept", "/accept"], concurrency=2)
    with create_platform(built) as platform:
        result = run(platform, built, [{"invocation": "DO:LEDGER/acct/after", "ordinal": 0, "fault": "crash_before"}])
    assert "completed" == result["end"]["kind"], result["end"]
    work = "DO:LEDGER/acct/after"
    assert [(work, 0, "D1:DB", "run", "call"), (work, 0, "D1:DB", "run", "fault")] == [p for p in points(result) if p[0].startswith("DO:")]
    assert [200, 200] == [e["payload"]["result"]["status"] for e in result["effects"] if (e["op"], e["kind"]) == ("response", "result")]
    assert {"key": "job:j-1", "value": "accepted"} in snapshots(result)[("DO:LEDGER", "acct")]


def test_in_a_concurrent_run_the_callers_crash_does_not_end_the_work_and_a_heartbeat_is_cut():
    built = scenario(["/accept"], concurrency=2)
    with create_platform(built) as platform:
        crashed_caller = run(platform, built, [{"invocation": "req-1#1", "ordinal": 1, "fault": "crash_before"}])
    assert {"key": "job:j-1", "value": "done"} in snapshots(crashed_caller)[("DO:LEDGER", "acct")]
    built = scenario(["/heartbeat"], concurrency=2)
    built["bounds"]["afterWorkTimerLimit"] = 5
    with create_platform(built) as platform:
        beating = run(platform, built)
    assert "completed" == beating["end"]["kind"], beating["end"]
    assert [{"bound": "afterWorkTimerLimit", "where": "DO:LEDGER/acct", "invocation": "DO:LEDGER/acct/after", "left": ["after"], "limit": 5}] == beating["cuts"]
    assert {"key": "beats", "value": 5} in snapshots(beating)[("DO:LEDGER", "acct")]


def test_in_a_concurrent_run_the_works_timer_fires_while_a_call_awaits_a_timer_of_its_own():
    """accept() sets a 100 ms timer and answers; req-2's nap(250) enters acct and awaits its own
    timer (no turn meanwhile: the call counts as busy). The work's timer, due first, fires inside
    acct, and its insert waits for its turn: it and req-2's are on offer side by side."""
    built = scenario(["/accept", "/nap"], concurrency=2)
    with create_platform(built) as platform:
        result = run(platform, built)
    assert "completed" == result["end"]["kind"], result["end"]
    turns = [d for d in result["decisions"] if d["kind"] == "turn"]
    inside = {"kind": "effect", "invocation": "req-2#1", "target": "D1:DB", "object": "DO:LEDGER/acct"}
    assert any([_work_option(), inside] == turn["options"] for turn in turns), turns
    assert {"key": "job:j-1", "value": "done"} in snapshots(result)[("DO:LEDGER", "acct")]


#: /leave then /deposit into acct, no faults: req-1's start comes first (the drive starts its
#: events in order, and nothing else is ready). Then two chains interleave freely: req-2's
#: start, its call into acct and its insert inside acct; req-1's call into acct, then the
#: work's two inserts (the first opened by leave() and handed over at its answer, the second
#: once it is done). The work starts with no decision. C(6, 3) = 20 orders.
LEAVE_DEPOSIT_ORDERS = comb(6, 3)


def _enumerate_end_states(built, platform, *, reduction):
    """Every schedule's end (the order of the D1 inserts and the snapshot) over an exhaustive enumeration, and its report."""
    bounds = resolve_bounds(built, max_runs=200, budget_ms=900_000)
    session = Session(platform=platform, scenario=with_bounds(built, bounds), seed="objects", bounds=bounds, clock_ms=lambda: 0, keep_first=0)
    states = set()

    class Recording(Enumeration):
        def observe(self, record):
            assert "completed" == record.result.end.kind, record.result.end
            inserts = [e["payload"]["args"]["params"] for e in record.result.effects if (e["target"], e["kind"]) == ("D1:DB", "call")]
            states.add(to_json({"inserts": inserts, "snapshot": [e for e in record.result.effects if e["kind"] == "snapshot"]}))
            return super().observe(record)

    outcome = explore(session, Recording(session=session, reduction=reduction))
    return outcome.exhaustive, states


def test_exhaustive_enumerates_the_work_after_the_answer_against_a_second_call_as_brute_force_does():
    """The enumeration with the reduction on reaches the same end states as every order run
    one by one (brute force), and both count the closed form: every turn here runs acct's code
    (a call into it, an insert parked inside it), so none commutes and nothing is pruned."""
    built = scenario(["/leave", "/deposit"], concurrency=2)
    built["bounds"]["maxFaultsPerRun"] = 0
    with create_platform(built) as platform:
        brute, brute_states = _enumerate_end_states(built, platform, reduction=False)
        reduced, reduced_states = _enumerate_end_states(built, platform, reduction=True)
    assert {"completed": True, "schedules": LEAVE_DEPOSIT_ORDERS, "reduction": False} == brute
    assert {"completed": True, "schedules": LEAVE_DEPOSIT_ORDERS, "reduction": True} == reduced
    assert brute_states == reduced_states
    # The orders differ where it shows: in which order D1 saw the three inserts (the work's two keep theirs).
    assert 3 == len(brute_states)
