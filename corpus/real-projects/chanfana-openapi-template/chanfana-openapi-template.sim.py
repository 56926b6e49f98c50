"""A scenario for the Worker chanfana-openapi-template, drafted by `eutaxy draft` from wrangler.jsonc.

The draft read the wrangler config and scanned the Worker's source as text; nothing was
imported or run. Fill each todo(...) hole (loading this file fails while one is left),
read the notes below, then check it:

    eutaxy check chanfana-openapi-template.sim.py
"""

from eutaxy.cloudflare import (
    at_least_once, d1_schema, define_scenario, http, http_response, todo,
)

# Notes from the draft: what it read, what it guessed, and what it left out.
# - read: the config ./wrangler.jsonc, and src/index.ts, src/endpoints/tasks/router.ts,
#   src/endpoints/dummyEndpoint.ts, src/endpoints/tasks/taskList.ts,
#   src/endpoints/tasks/taskCreate.ts, src/endpoints/tasks/taskRead.ts,
#   src/endpoints/tasks/taskUpdate.ts, src/endpoints/tasks/taskDelete.ts, src/types.ts,
#   src/endpoints/tasks/base.ts scanned as text; nothing was imported or run
# - guess: D1 binding DB: schema ./migrations, wrangler's default migrations/ folder beside the
#   config, applied in wrangler's order
# - guess: ./src/index.ts default-exports an object made with new ...(): taken to answer fetch() (a
#   router such as Hono's)
# - guess: the example requests fill the route parameters of /dummy/:slug, /tasks/:id with example
#   values (/dummy/slug-1, /tasks/1): give each a value the Worker knows
# - read: paths the code routes on: /dummy/:slug (src/index.ts:47), /tasks
#   (src/endpoints/tasks/router.ts:11, mounted at src/index.ts:44), /tasks
#   (src/endpoints/tasks/router.ts:12, mounted at src/index.ts:44), /tasks/:id
#   (src/endpoints/tasks/router.ts:13, mounted at src/index.ts:44), /tasks/:id
#   (src/endpoints/tasks/router.ts:14, mounted at src/index.ts:44), /tasks/:id
#   (src/endpoints/tasks/router.ts:15, mounted at src/index.ts:44)
# - guess: the http caller resends a request it got no answer or a 5xx for, up to 3 times, after
#   1000 ms, then 5000 ms (Cloudflare itself never resends): set what the Worker's real callers do
#   (retries=0 for a caller that never resends)
# - read: config sections not modelled, each named with its assumption in every verdict:
#   upload_source_maps, observability
# - unread: D1 binding DB: no statement prepared on it (DB.prepare(...)) was read, so the draft
#   gives no example invariant over its writes

requests = http(
    # TODO(events): the requests to send to fetch(), in order, each {'method', 'path', 'body'}.
    # Paths the code routes on: /dummy/:slug (src/index.ts:47), /tasks (src/endpoints/tasks/router.ts:11, mounted at src/index.ts:44), /tasks (src/endpoints/tasks/router.ts:12, mounted at src/index.ts:44), /tasks/:id (src/endpoints/tasks/router.ts:13, mounted at src/index.ts:44), /tasks/:id (src/endpoints/tasks/router.ts:14, mounted at src/index.ts:44), /tasks/:id (src/endpoints/tasks/router.ts:15, mounted at src/index.ts:44).
    # e.g. [{"method": "POST", "path": "/dummy/slug-1"}, ...]
    [{"method": "POST", "path": "/dummy/:slug"}, {"method": "GET", "path": "/tasks"}, {"method": "POST", "path": "/tasks"}, {"method": "GET", "path": "/tasks/:id"}, {"method": "PUT", "path": "/tasks/:id"}, {"method": "DELETE", "path": "/tasks/:id"}],
    # The caller (a guess: set what the Worker's real callers do): one that resends after no
    # answer or a 5xx. retries=0 never resends; a webhook sender resends until it gets a 2xx:
    # retries=3, retry_on="non-2xx", delays_ms=[1000, 5000].
    retries=3, retry_on="5xx", delays_ms=[1000, 5000],
)

scenario = define_scenario(
    name="chanfana-openapi-template",
    worker={"entry": "./src/index.ts", "config": "./wrangler.jsonc"},
    setup=[
        d1_schema("DB", "./migrations"),
    ],
    drive=requests,
    invariants=[
        # TODO(invariants): what must hold after every run, whatever faults it took.
        # Examples for what the draft found (names, keys and tables to adjust):
        # at_least_once("first-request-answered", http_response("/dummy/slug-1"), "args.requestId", ["req-1"]),
        at_least_once("first-request-answered", http_response("/dummy/:slug"), "args.requestId", ["req-1"]),
    ],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
