"""The verdict's Durable Object alarm sentence states the retry policy bindings/ladders.json holds.

The Durable Object record (eutaxy.cloudflare.bindings.durable_object) sends the policy in its
load-message entry, test_bindings.py holds the record to the file's row, and the runtime
applies the policy it is sent (runtime/bindings/durable_object.mjs); the runtime's suite holds
the row to what its record documents (runtime/test/vectors.test.mjs), so a changed row fails both suites.
"""

import json
from pathlib import Path

from eutaxy.cloudflare import bindings, define_scenario, http
from eutaxy.cloudflare.worker import prepare_worker

LADDERS = Path(bindings.__file__).resolve().with_name("ladders.json")
HELLO_DO = Path(__file__).resolve().parent / "hello_do"

#: The number words a sentence spells small counts with.
_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def test_the_alarm_sentence_states_the_vector_files_retries_and_delays():
    """The first three delays in seconds and the most retries, as the sentence says them."""
    delays_ms = json.loads(LADDERS.read_text(encoding="utf-8"))["policies"]["durable_object"]["alarmRetryDelaysMs"]
    delays = ", ".join(f"{delay_ms // 1000} s" for delay_ms in delays_ms[:3])
    spec = prepare_worker(define_scenario(
        name="alarms", root=HELLO_DO, source=HELLO_DO / "alarms.sim.py", worker={"config": "./wrangler.json"},
        drive=http([{"path": "/a"}]),
    ))
    [sentence] = [s for s in spec.assumptions if s.startswith("Durable Object alarms fire in virtual time")]
    assert f"a failed alarm retried after {delays} up to {_WORDS[len(delays_ms)]} retries" in sentence
