"""Two members in one chat room: the room stores each message it is sent at most once."""

from eutaxy.cloudflare import aggregate, define_scenario, durable_object, durable_object_table, websocket

scenario = define_scenario(
    name="chat-room",
    worker={"config": "./wrangler.json"},
    setup=[durable_object("ROOMS")],
    drive=websocket([
        {"id": "ada", "path": "/rooms/r-1?name=ada", "messages": [{"data": {"text": "hi"}}, {"data": {"text": "/leave"}}, {"data": {"text": "late"}}]},
        {"id": "bob", "path": "/rooms/r-1?name=bob", "messages": [{"data": {"text": "hello"}}]},
    ]),
    invariants=[aggregate("history_holds_each_message_once", durable_object_table("ROOMS", "r-1", "history"), "id", "count", "lte", 3)],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 120_000},
)
