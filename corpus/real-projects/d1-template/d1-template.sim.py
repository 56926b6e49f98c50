"""A scenario for the Worker d1-template, drafted by `eutaxy draft` from wrangler.json.

The draft read the wrangler config and scanned the Worker's source as text; nothing was
imported or run. Fill each todo(...) hole (loading this file fails while one is left),
read the notes below, then check it:

    eutaxy check d1-template.sim.py
"""

from eutaxy.cloudflare import (
    at_least_once, d1_schema, define_scenario, http, http_response, todo,
)

# Notes from the draft: what it read, what it guessed, and what it left out.
# - read: the config ./wrangler.json, and src/index.ts, src/renderHtml.ts scanned as text; nothing
#   was imported or run
# - guess: D1 binding DB: schema ./migrations, wrangler's default migrations/ folder beside the
#   config, applied in wrangler's order
# - guess: the http caller resends a request it got no answer or a 5xx for, up to 3 times, after
#   1000 ms, then 5000 ms (Cloudflare itself never resends): set what the Worker's real callers do
#   (retries=0 for a caller that never resends)
# - read: config sections not modelled, each named with its assumption in every verdict:
#   upload_source_maps, observability
# - read: D1 binding DB: the code only reads it, so the draft gives no example invariant over its
#   writes

requests = http(
    # TODO(events): the requests to send to fetch(), in order, each {'method', 'path', 'body'}.
    [{"method": "GET", "path": "/"}],
    # The caller (a guess: set what the Worker's real callers do): one that resends after no
    # answer or a 5xx. retries=0 never resends; a webhook sender resends until it gets a 2xx:
    # retries=3, retry_on="non-2xx", delays_ms=[1000, 5000].
    retries=3, retry_on="5xx", delays_ms=[1000, 5000],
)

scenario = define_scenario(
    name="d1-template",
    worker={"entry": "./src/index.ts", "config": "./wrangler.json"},
    setup=[
        d1_schema("DB", "./migrations"),
    ],
    drive=requests,
    invariants=[
        # TODO(invariants): what must hold after every run, whatever faults it took.
        # Examples for what the draft found (names, keys and tables to adjust):
        # at_least_once("first-request-answered", http_response("/"), "args.requestId", ["req-1"]),
        at_least_once("first-request-answered", http_response("/"), "args.requestId", ["req-1"]),
    ],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
