"""A scenario for the Worker berdzerd-website, drafted by `eutaxy draft` from wrangler.jsonc.

The draft read the wrangler config and scanned the Worker's source as text; nothing was
imported or run. Fill each todo(...) hole (loading this file fails while one is left),
read the notes below, then check it:

    eutaxy check berdzerd-website.sim.py
"""

from eutaxy.cloudflare import (
    at_least_once, define_scenario, http, http_response, todo,
)

# Notes from the draft: what it read, what it guessed, and what it left out.
# - read: the config ./wrangler.jsonc, and src/index.ts scanned as text; nothing was imported or run
# - guess: the http caller resends a request it got no answer or a 5xx for, up to 3 times, after
#   1000 ms, then 5000 ms (Cloudflare itself never resends): set what the Worker's real callers do
#   (retries=0 for a caller that never resends)

requests = http(
    # TODO(events): the requests to send to fetch(), in order, each {'method', 'path', 'body'}.
    [{"method": "GET", "path": "/"}],
    # The caller (a guess: set what the Worker's real callers do): one that resends after no
    # answer or a 5xx. retries=0 never resends; a webhook sender resends until it gets a 2xx:
    # retries=3, retry_on="non-2xx", delays_ms=[1000, 5000].
    retries=3, retry_on="5xx", delays_ms=[1000, 5000],
)

scenario = define_scenario(
    name="berdzerd-website",
    worker={"entry": "./src/index.ts", "config": "./wrangler.jsonc"},
    drive=requests,
    invariants=[
        # TODO(invariants): what must hold after every run, whatever faults it took.
        # Examples for what the draft found (names, keys and tables to adjust):
        # at_least_once("first-request-answered", http_response("/"), "args.requestId", ["req-1"]),
        at_least_once("first-request-answered", http_response("/"), "args.requestId", ["req-1"]),
    ],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
