"""A planted bug: an Agents SDK chat room numbers each message from its state before it awaits a moderation check.

Two connections to one room each send a message. The room reads its next sequence number
from its state, awaits the moderation service (an outbound fetch, its input gate open),
then stores the message under that number and moves the state on. When the second message
enters while the first awaits its check, both are stored under one number. No fault is
needed, only the order of the turns. The checker must find it (VIOLATED, one-message-per-seq)
with faults allowed (one per run), its shrunk trace keeping no fault.
"""

from eutaxy.cloudflare import define_scenario, durable_object, durable_object_table, external, unique
from eutaxy.cloudflare.websocket import websocket

scenario = define_scenario(
    name="agent-room-lost-update",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[durable_object("Room")],
    externals=[external("moderation", "moderation.example", [{"method": "POST", "path": "/check", "status": 200, "body": {"allowed": True}}])],
    drive=websocket(
        [
            {"id": "ada", "path": "/agents/room/r-1", "messages": [{"data": {"text": "hi"}}]},
            {"id": "bob", "path": "/agents/room/r-1", "messages": [{"data": {"text": "hello"}}]},
        ]
    ),
    invariants=[unique("one-message-per-seq", durable_object_table("Room", "r-1", "messages"), "seq")],
    # One fault per run allowed; the interleaving alone stores two messages under one number.
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 2, "budgetMs": 60_000},
)
