"""A scenario for the Worker d1-starter-sessions-api-template, drafted by `eutaxy draft` from wrangler.jsonc.

The draft read the wrangler config and scanned the Worker's source as text; nothing was
imported or run. Fill each todo(...) hole (loading this file fails while one is left),
read the notes below, then check it:

    eutaxy check d1-starter-sessions-api-template.sim.py
"""

from eutaxy.cloudflare import (
    at_least_once, d1_schema, define_scenario, http, http_response, todo,
)

# Notes from the draft: what it read, what it guessed, and what it left out.
# - read: the config ./wrangler.jsonc, and src/index.ts scanned as text; nothing was imported or run
# - unread: D1 binding DB01: no schema.sql, d1-starter-sessions-api.sql, other .sql file or
#   migrations/ folder beside the config, none named by package.json's scripts or the README, and a
#   search of the project's folders up to 3 deep found no .sql file; its schema is a hole
# - read: paths the code routes on: /api/orders (src/index.ts:57), /api/orders (src/index.ts:63),
#   /api/reset (src/index.ts:81)
# - guess: the http caller resends a request it got no answer or a 5xx for, up to 3 times, after
#   1000 ms, then 5000 ms (Cloudflare itself never resends): set what the Worker's real callers do
#   (retries=0 for a caller that never resends)
# - read: the assets directory ./public answers requests for its files before the Worker runs
#   (recorded as Assets responses, never faulted): the Worker's bugs are on the paths it answers
# - read: config sections not modelled, each named with its assumption in every verdict:
#   observability, upload_source_maps
# - unread: D1 binding DB01: no statement prepared on it (DB01.prepare(...)) was read, so the draft
#   gives no example invariant over its writes

requests = http(
    # TODO(events): the requests to send to fetch(), in order, each {'method', 'path', 'body'}.
    # Paths the code routes on: /api/orders (src/index.ts:57), /api/orders (src/index.ts:63), /api/reset (src/index.ts:81).
    # Methods it compares request.method to: GET, POST.
    # The code reads the body as Order, e.g. [{"method": "POST", "path": "/api/orders", "body": {"orderId": "", "customerId": "", "quantity": 0}}, ...]
    [{"method": "POST", "path": "/api/orders", "body": {"orderId": "order-1", "customerId": "customer-1", "quantity": 2}}, {"method": "GET", "path": "/api/orders"}],
    # The caller (a guess: set what the Worker's real callers do): one that resends after no
    # answer or a 5xx. retries=0 never resends; a webhook sender resends until it gets a 2xx:
    # retries=3, retry_on="non-2xx", delays_ms=[1000, 5000].
    retries=3, retry_on="5xx", delays_ms=[1000, 5000],
)

scenario = define_scenario(
    name="d1-starter-sessions-api-template",
    worker={"entry": "./src/index.ts", "config": "./wrangler.jsonc"},
    setup=[
        # TODO(schema): the .sql file that creates D1 database DB01's tables.
        d1_schema("DB01", "./schema.sql"),
    ],
    drive=requests,
    invariants=[
        # TODO(invariants): what must hold after every run, whatever faults it took.
        # Examples for what the draft found (names, keys and tables to adjust):
        # at_least_once("first-request-answered", http_response("/api/orders"), "args.requestId", ["req-1"]),
        at_least_once("first-request-answered", http_response("/api/orders"), "args.requestId", ["req-1"]),
    ],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
