"""The verdict's Durable Object alarm sentence states the retry policy core's alarms.json holds.

The runtime applies the policy (runtime/bindings/durable_object.mjs) and its suite holds it to
the same file (runtime/test/vectors.test.mjs), so a changed row fails both suites.
"""

import json
from pathlib import Path

from eutaxy.cloudflare import define_scenario, http
from eutaxy.cloudflare.worker import prepare_worker
from eutaxy.core import faults

ALARMS = Path(faults.__file__).resolve().with_name("vectors") / "alarms.json"
HELLO_DO = Path(__file__).resolve().parent / "hello_do"

#: The number words a sentence spells small counts with.
_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def test_the_alarm_sentence_states_the_vector_files_retries_and_delays():
    """The first three delays in seconds and the most retries, as the sentence says them."""
    alarms = json.loads(ALARMS.read_text(encoding="utf-8"))
    assert [alarms["retryDelaysMs"][0] * 2**n for n in range(alarms["retriesMax"])] == alarms["retryDelaysMs"]
    delays = ", ".join(f"{delay_ms // 1000} s" for delay_ms in alarms["retryDelaysMs"][:3])
    spec = prepare_worker(define_scenario(
        name="alarms", root=HELLO_DO, source=HELLO_DO / "alarms.sim.py", worker={"config": "./wrangler.json"},
        drive=http([{"path": "/a"}]),
    ))
    [sentence] = [s for s in spec.assumptions if s.startswith("Durable Object alarms fire in virtual time")]
    assert f"a failed alarm retried after {delays} up to {_WORDS[alarms['retriesMax']]} retries" in sentence
