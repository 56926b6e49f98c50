"""A planted bug: an hourly reminder job whose re-run of a failed tick mails twice.

The job sends each unsent reminder, then marks it sent. The drive declares that a
failed tick runs again (Cloudflare documents noRetry() but no retry count). A crash
after the mail API accepted a reminder and before its row is marked makes the tick
fail; its re-run sends that reminder again. The checker must find it (VIOLATED,
mailed-once-per-reminder) with one fault.
"""

from eutaxy.cloudflare import at_most_once_per_key, cron, d1_schema, define_scenario, external, fetch_call

mail_api = external(
    "mail-api",
    "api.mail.example",
    responses=[{"method": "POST", "path": "/v1/reminders/*", "status": 202, "body": {"queued": True}}],
    # The API honours idempotency keys; this Worker just never sends one.
    dedupe_by="Idempotency-Key",
)

scenario = define_scenario(
    name="cron-double-send",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[d1_schema("DB", "./schema.sql")],
    drive=cron("0 * * * *", ticks=1, retries=2),
    externals=[mail_api],
    invariants=[
        at_most_once_per_key("mailed-once-per-reminder", fetch_call("mail-api"), "args.body.reminderId"),
    ],
    bounds={"maxFaultsPerRun": 1, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
