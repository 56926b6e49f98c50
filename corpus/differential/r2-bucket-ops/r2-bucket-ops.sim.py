"""A differential case: a media consumer's R2 operations, fault-free, proxied and raw.

Seven messages: a derived text object, a copy passing a body stream back to put,
an archive of a prefix by list, head and create-only puts (delivered twice, so
the second finds every entry), a compare-and-swap counter bumped twice, a
delete of two keys, a retry on a first delivery, and a job whose source does not
exist, which throws until it is dead-lettered. The differential runner runs it
once through Eutaxy's proxies and once with the handler on the raw bucket; the
final bucket (every object, seeded ones included, read by the same snapshot) and
the per-attempt decisions must agree.
"""

from eutaxy.cloudflare import define_scenario, queue, r2_bucket

jobs = queue(
    "media",
    [
        {"body": {"op": "derive", "source": "originals/a.txt"}},
        {"body": {"op": "copy", "source": "originals/b.bin", "target": "copies/b.bin"}},
        {"body": {"op": "archive", "prefix": "originals/"}},
        {"body": {"op": "bump", "key": "counters/n"}},
        {"body": {"op": "derive", "source": "originals/c.txt", "retryFirst": True}},
        {"body": {"op": "derive", "source": "originals/missing.txt"}},
        {"body": {"op": "archive", "prefix": "originals/"}},
        {"body": {"op": "bump", "key": "counters/n"}},
        {"body": {"op": "drop", "keys": ["originals/a.txt", "nothing/here"]}},
    ],
)

scenario = define_scenario(
    name="r2-bucket-ops",
    worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
    setup=[
        r2_bucket(
            "MEDIA",
            {
                "originals/a.txt": {"body": "alpha", "httpMetadata": {"contentType": "text/plain"}},
                "originals/b.bin": {"body": b"\x00\x01\x02\xfe\xff", "httpMetadata": {"contentType": "application/octet-stream"}},
                "originals/c.txt": {"body": "charlie", "customMetadata": {"owner": "c"}},
                "counters/n": "0",
                "untouched/d.txt": "delta",
            },
        )
    ],
    drive=jobs,
    bounds={"maxFaultsPerRun": 0, "maxRedeliveries": 2, "maxConcurrentInvocations": 1, "budgetMs": 2000},
)
