"""A charge resent an hour later with its idempotency key, which KV remembers for a day (the fix).

The resend is sent at_ms 3,600,000: one virtual hour after the run's start, when the key
(expirationTtl 86400) is still there, so the Worker does not charge the order again.
"""

from eutaxy.cloudflare import at_most_once_per_key, define_scenario, http, kv_namespace, kv_write

ENTRY = "./worker.ts"
#: When the client resends the charge: an hour after the first.
RESEND_MS = 3_600_000

charge = {"method": "POST", "path": "/charges", "headers": {"Idempotency-Key": "k-1"}, "body": {"order": "o-1", "cents": 500}}
# Another customer's charge a second in: the shrinker drops it, and the resend keeps its time.
other = {**charge, "headers": {"Idempotency-Key": "k-2"}, "body": {"order": "o-2", "cents": 700}, "at_ms": 1_000}

scenario = define_scenario(
    name="kv-idempotency-expiry-fixed",
    worker={"entry": ENTRY, "config": "./wrangler.jsonc"},
    setup=[kv_namespace("IDEMPOTENCY"), kv_namespace("LEDGER")],
    drive=http([charge, other, {**charge, "at_ms": RESEND_MS}]),
    invariants=[at_most_once_per_key("one-charge-per-order", kv_write("LEDGER"), "args.value")],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 0, "maxConcurrentInvocations": 1, "budgetMs": 120_000},
)
