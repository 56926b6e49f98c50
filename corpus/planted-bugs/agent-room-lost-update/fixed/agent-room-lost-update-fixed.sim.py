"""The fixed twin of agent-room-lost-update: the room takes a message's number and moves its state on before the moderation check.

Nothing is awaited between reading the number and moving the state on, so a message entering
while another awaits its check takes the next number. It must stay BOUNDED, faults allowed
(one per run) as on the buggy room.
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
    # One fault per run, as on the buggy room.
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 2, "budgetMs": 60_000},
)
