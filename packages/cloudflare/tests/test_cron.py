"""cron(...): a Cron Trigger's ticks as the runtime reads them, the config's triggers.crons, bad input named.

The ticks are Cloudflare's reading of the five fields (minute, hour, day of month, month,
weekday from 1 = Sunday), from the virtual epoch (Thursday 2026-01-01T00:00Z) on. The cron
drive's runs themselves are the runtime's tests (runtime/test/cron.test.mjs) and the corpus
case cron-double-send.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from eutaxy.cloudflare import at_most_once_per_key, cron, d1_write, define_scenario
from eutaxy.cloudflare.cron import cron_ticks
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.cloudflare.wrangler import read_config
from eutaxy.core.effects import VIRTUAL_EPOCH_MS
from eutaxy.core.errors import UserError

MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR


def _utc(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.timezone.utc).strftime("%a %Y-%m-%d %H:%M")


def test_each_tick_is_an_event_at_its_virtual_time_the_epoch_included():
    drive = cron("*/5 * * * *", ticks=3, retries=2)
    assert {"kind": "cron", "name": "cron", "cron": "*/5 * * * *", "retries": 2} == {k: v for k, v in drive.items() if k != "events"}
    assert [{"id": "tick-1", "atMs": 0}, {"id": "tick-2", "atMs": 5 * MINUTE}, {"id": "tick-3", "atMs": 10 * MINUTE}] == drive["events"]


@pytest.mark.parametrize(
    ("expression", "first"),
    [
        ("0 * * * *", ["Thu 2026-01-01 00:00", "Thu 2026-01-01 01:00", "Thu 2026-01-01 02:00"]),
        ("30 9 * * *", ["Thu 2026-01-01 09:30", "Fri 2026-01-02 09:30", "Sat 2026-01-03 09:30"]),
        # Cloudflare numbers weekdays from 1 = Sunday: 1 and SUN are the same day.
        ("0 17 * * 1", ["Sun 2026-01-04 17:00", "Sun 2026-01-11 17:00", "Sun 2026-01-18 17:00"]),
        ("0 17 * * sun", ["Sun 2026-01-04 17:00", "Sun 2026-01-11 17:00", "Sun 2026-01-18 17:00"]),
        ("10 7 * * MON-FRI", ["Thu 2026-01-01 07:10", "Fri 2026-01-02 07:10", "Mon 2026-01-05 07:10"]),
        ("0 0 1 jan,jul *", ["Thu 2026-01-01 00:00", "Wed 2026-07-01 00:00", "Fri 2027-01-01 00:00"]),
        ("15-45/15 6 * * *", ["Thu 2026-01-01 06:15", "Thu 2026-01-01 06:30", "Thu 2026-01-01 06:45"]),
        ("0 12 29 2 *", ["Tue 2028-02-29 12:00", "Sun 2032-02-29 12:00", "Fri 2036-02-29 12:00"]),
    ],
)
def test_the_ticks_are_cloudflares_reading_of_the_fields(expression, first):
    assert first == [_utc(at) for at in cron_ticks(expression, 3)]
    assert cron_ticks(expression, 3)[0] >= VIRTUAL_EPOCH_MS


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("* * * *", "five fields"),
        ("0 0 L * *", "L, W or #"),
        ("0 0 15W * *", "L, W or #"),
        ("0 0 * * 6#3", "L, W or #"),
        ("0 0 1 * MON", "both the day of month"),
        ("60 * * * *", "'60' is not a value from 0 to 59"),
        ("0 0 * * 0", "from 1 to 7 or SUN-SAT"),
        ("*/0 * * * *", "a step must be"),
        ("5-1 * * * *", "runs backwards"),
        ("0 0 30 2 *", "matches 0 times"),
        ("", "a cron string"),
    ],
)
def test_an_expression_cloudflare_refuses_or_this_build_does_not_model_is_named(expression, words):
    with pytest.raises(UserError, match=words):
        cron(expression)


@pytest.mark.parametrize(
    ("options", "words"),
    [({"ticks": 0}, "ticks must be"), ({"ticks": True}, "ticks must be"), ({"retries": -1}, "retries must be"), ({"name": ""}, "name")],
)
def test_bad_options_are_named(options, words):
    with pytest.raises(UserError, match=words):
        cron("* * * * *", **options)


def _worker(folder: Path, crons: list[str] | None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "worker.ts").write_text("export default { async scheduled(controller, env) { await env.DB.exec('SELECT 1'); } };\n")
    (folder / "schema.sql").write_text("CREATE TABLE t (id TEXT);\n")
    config = {
        "name": "job",
        "main": "./worker.ts",
        "compatibility_date": "2026-01-01",
        "d1_databases": [{"binding": "DB", "database_name": "db", "database_id": "db-local"}],
    }
    if crons is not None:
        config["triggers"] = {"crons": crons}
    path = folder / "wrangler.jsonc"
    path.write_text(json.dumps(config, indent=2))
    return path


def _scenario(folder: Path, expression: str) -> dict:
    from eutaxy.cloudflare import d1_schema

    return define_scenario(
        name="job",
        worker={"entry": "./worker.ts", "config": "./wrangler.jsonc"},
        setup=[d1_schema("DB", "./schema.sql")],
        drive=cron(expression, ticks=2, retries=1),
        invariants=[at_most_once_per_key("once", d1_write("DB"), "args.sql")],
        root=folder,
        source=folder / "job.sim.py",
    )


def test_the_config_lists_its_crons_and_the_drive_must_fire_one_of_them(tmp_path):
    path = _worker(tmp_path, ["0 * * * *", "*/15 * * * *"])
    assert ("0 * * * *", "*/15 * * * *") == read_config(path).crons
    spec = prepare_worker(_scenario(tmp_path, "*/15 * * * *"))
    said = " ".join(spec.assumptions)
    assert "Cron Triggers: scheduled() runs once per tick attempt of '*/15 * * * *' (its first 2 ticks" in said
    assert "run again at once, up to 1 time, unless it called noRetry()" in said
    with pytest.raises(UserError, match=r"drives Cron Trigger '\*/5 \* \* \* \*', but wrangler.jsonc's triggers.crons does not list it; "
                       r"it lists '0 \* \* \* \*', '\*/15 \* \* \* \*'"):
        prepare_worker(_scenario(tmp_path, "*/5 * * * *"))


def test_a_config_without_crons_refuses_a_cron_drive(tmp_path):
    _worker(tmp_path, None)
    with pytest.raises(UserError, match="it has no triggers.crons"):
        prepare_worker(_scenario(tmp_path, "0 * * * *"))


@pytest.mark.parametrize("triggers", [["0 * * * *"], {"crons": "0 * * * *"}, {"crons": [5]}])
def test_a_malformed_triggers_section_is_named(tmp_path, triggers):
    path = _worker(tmp_path, [])
    config = json.loads(path.read_text())
    config["triggers"] = triggers
    path.write_text(json.dumps(config))
    with pytest.raises(UserError, match="triggers"):
        read_config(path)


def test_a_hand_written_drive_must_be_as_cron_writes_it(tmp_path):
    with pytest.raises(UserError, match="build the drive with cron"):
        define_scenario(name="x", worker={"entry": "w.js"}, drive={"kind": "cron", "cron": "* * * * *", "events": [{"id": "t"}]}, invariants=[], root=tmp_path)
    with pytest.raises(UserError, match="five fields"):
        drive = {"kind": "cron", "name": "cron", "retries": 0, "cron": "* *", "events": [{"id": "t", "atMs": 0}]}
        define_scenario(name="x", worker={"entry": "w.js"}, drive=drive, invariants=[], root=tmp_path)
