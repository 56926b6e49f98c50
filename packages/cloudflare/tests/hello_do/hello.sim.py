"""Cloudflare's hello-world Durable Object template, checked: every path's object is greeted.

Each request names an object by its path; the caller resends a failed request once, so any
one fault at the stub call (never reached, answer lost, caller crashed) is recovered.
"""

from eutaxy.cloudflare import at_least_once, define_scenario, do_call, durable_object, http

scenario = define_scenario(
    name="hello-do",
    worker={"config": "./wrangler.json"},
    setup=[durable_object("MY_DURABLE_OBJECT")],
    drive=http([{"path": "/a"}, {"path": "/b"}], retries=1),
    invariants=[at_least_once("every-object-greeted", do_call("MY_DURABLE_OBJECT", "sayHello"), "args.object", ["/a", "/b"])],
    bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 1, "budgetMs": 120_000},
)
