"""A concurrent http drive whose caller has a deadline and resend delays, through the real host.

The webhook charges, then waits 2 s (virtual) before answering. The shop's caller waits
1 s for an answer and resends 500 ms after giving up; with two invocations in flight the
resend starts while the first attempt still sleeps, and charges again: VIOLATED with no
fault at all. With an idempotency key the external answers the resend from the first
charge: BOUNDED after every seeded run. Either check is byte-identical twice for one seed.
"""

from pathlib import Path

from eutaxy.cloudflare import at_most_once_per_key, create_platform, define_scenario, external, fetch_call, http
from eutaxy.core.canonical import to_json
from eutaxy.engine.check import check_scenario

WORKER = """
export default {
  async fetch(request: Request): Promise<Response> {
    const order = await request.json<{ orderId: string; key?: string }>();
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (order.key) headers["Idempotency-Key"] = order.key;
    const reply = await fetch("https://api.pay.example/charges", {
      method: "POST", headers, body: JSON.stringify({ orderId: order.orderId }),
    });
    // A slow confirmation step: longer than the caller waits.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return new Response(await reply.text(), { status: reply.status });
  },
};
"""


def _scenario(root: Path, name: str, bodies: list[dict]) -> dict:
    return define_scenario(
        name=name,
        drive=http([{"method": "POST", "path": "/charge", "body": body} for body in bodies], retries=1, delays_ms=[500], deadline_ms=1000),
        externals=[
            external("payments-api", "api.pay.example", [{"method": "POST", "path": "/charges", "body": {"id": "ch-1"}}], dedupe_by="Idempotency-Key")
        ],
        invariants=[at_most_once_per_key("charged-once", fetch_call("payments-api"), "args.body.orderId")],
        bounds={"maxFaultsPerRun": 1, "maxConcurrentInvocations": 2, "budgetMs": 5000},
        root=root,
        source=root / f"{name}.sim.py",
    )


def _check_twice(scenario: dict, max_runs: int) -> dict:
    with create_platform(scenario) as platform:
        first = check_scenario(scenario, platform, seed=scenario["name"], max_runs=max_runs, budget_ms=300_000)
        second = check_scenario(scenario, platform, seed=scenario["name"], max_runs=max_runs, budget_ms=300_000)
    assert to_json(first) == to_json(second)
    return first


def test_a_deadline_resend_overlaps_the_first_attempt_and_the_check_repeats_byte_for_byte(toolchain, tmp_path: Path):
    (tmp_path / "worker.ts").write_text(WORKER)
    (tmp_path / "wrangler.jsonc").write_text(
        '{"name": "w", "main": "./worker.ts", "compatibility_date": "2026-01-01", "compatibility_flags": ["nodejs_compat"]}'
    )
    first = _check_twice(_scenario(tmp_path, "slow-charge", [{"orderId": "o-1"}]), max_runs=20)
    assert "violated" == first["kind"], first.get("cause")
    assert "charged-once" == first["violation"]["invariant"]
    assert [] == first["schedule"]["faults"], "the deadline alone makes the second charge"
    lines = [(e["invocation"], e["op"], e["time"] - 1767225600000) for e in first["trace"] if e["kind"] == "result"]
    # The first attempt charges at +0; its deadline passes at +1000 and the resend, due 500 ms
    # later, charges at +1500 while the first still sleeps; both answers come late, and the
    # second attempt's deadline (+2500) spends the retries.
    assert [
        ("req-1#1", "POST", 0),
        ("req-1#2", "POST", 1500),
        ("req-1#1", "response", 2001),
        ("req-1#2", "gave_up", 2500),
        ("req-1#2", "response", 3501),
    ] == lines

    keyed = [{"orderId": "o-1", "key": "k-1"}, {"orderId": "o-2", "key": "k-2"}]
    fixed = _check_twice(_scenario(tmp_path, "slow-charge-keyed", keyed), max_runs=40)
    assert "bounded" == fixed["kind"], fixed.get("violation") or fixed.get("cause")
    assert fixed["provenance"]["faultsInjected"] > 0
