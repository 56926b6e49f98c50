"""The fixed twin of cron-double-send: each reminder is sent with an Idempotency-Key.

The mail API is declared to deduplicate by that header, so a re-run of a failed
tick that sends a reminder again is answered from the first send and mails
nothing (its request is recorded as not effective). It must stay BOUNDED.
"""

from eutaxy.cloudflare import at_most_once_per_key, cron, d1_schema, define_scenario, external, fetch_call

mail_api = external(
    "mail-api",
    "api.mail.example",
    responses=[{"method": "POST", "path": "/v1/reminders/*", "status": 202, "body": {"queued": True}}],
    dedupe_by="Idempotency-Key",
)

scenario = define_scenario(
    name="cron-double-send-fixed",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=cron("0 * * * *", ticks=1, retries=2),
    externals=[mail_api],
    invariants=[
        at_most_once_per_key("mailed-once-per-reminder", fetch_call("mail-api"), "args.body.reminderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
