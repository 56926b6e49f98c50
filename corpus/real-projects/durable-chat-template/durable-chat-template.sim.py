"""A scenario for the Worker durable-chat-template, drafted by `eutaxy draft` from wrangler.json.

The draft read the wrangler config and scanned the Worker's source as text; nothing was
imported or run. Fill each todo(...) hole (loading this file fails while one is left),
read the notes below, then check it:

    eutaxy check durable-chat-template.sim.py
"""

from eutaxy.cloudflare import (
    at_least_once, define_scenario, durable_object, http, http_response, todo,
)

# Notes from the draft: what it read, what it guessed, and what it left out.
# - read: the config ./wrangler.json, and src/server/index.ts, src/shared.ts scanned as text;
#   nothing was imported or run
# - guess: Durable Object binding Chat (class Chat): every object starts each run with empty storage
#   (durable_object('Chat')); give it the objects it should hold
# - guess: the http caller resends a request it got no answer or a 5xx for, up to 3 times, after
#   1000 ms, then 5000 ms (Cloudflare itself never resends): set what the Worker's real callers do
#   (retries=0 for a caller that never resends)
# - read: the assets directory ./public answers requests for its files before the Worker runs
#   (recorded as Assets responses, never faulted): the Worker's bugs are on the paths it answers
# - read: config sections not modelled, each named with its assumption in every verdict: build,
#   observability, upload_source_maps
# - read: the assets answer / before the Worker, and no other path the code routes on was found: the
#   example request and its invariant are left to the holes (send a path the Worker answers)

requests = http(
    # TODO(events): the requests to send to fetch(), in order, each {'method', 'path', 'body'}.
    [{"method": "GET", "path": "/parties/chat/room-1"}],
    # The caller (a guess: set what the Worker's real callers do): one that resends after no
    # answer or a 5xx. retries=0 never resends; a webhook sender resends until it gets a 2xx:
    # retries=3, retry_on="non-2xx", delays_ms=[1000, 5000].
    retries=3, retry_on="5xx", delays_ms=[1000, 5000],
)

scenario = define_scenario(
    name="durable-chat-template",
    worker={"entry": "./src/server/index.ts", "config": "./wrangler.json"},
    setup=[
        durable_object("Chat"),
    ],
    drive=requests,
    invariants=[
        # TODO(invariants): what must hold after every run, whatever faults it took.
        at_least_once("first-request-answered", http_response("/parties/chat/room-1"), "args.requestId", ["req-1"]),
    ],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
