"""The CLI's stand-in platform with a pure core: each invocation asks its spec modules first.

Before its insert, every invocation records the Core decisions the Cloudflare runtime would
record for a Worker calling ``decideRefund(order, amountCents)`` and, when the body has a
name, ``initials(name)`` (target ``Core:<function>``, op ``decide``, kind ``decision``,
payload ``{args, result}``, the ordinal of the invocation's next effect point). The results
are computed here as the scenario's ``domain.ts`` computes them.
"""

from __future__ import annotations

from eutaxy.core.protocol import RunResult

import eutaxy_testplatform
from eutaxy_testplatform import expect_holds, load_scenario  # noqa: F401 - the platform module's surface


def define_scenario(**fields):
    return dict(eutaxy_testplatform.define_scenario(**fields), platform="decidingplatform")


def create_platform(scenario: dict) -> "DecidingPlatform":
    return DecidingPlatform()


def decide_refund(order: dict, amount: int) -> dict:
    refunded = order["refundedCents"] + amount
    if amount <= 0 or refunded > order["totalCents"]:
        return {"ok": False, "refunded": order["refundedCents"]}
    return {"ok": True, "refunded": refunded}


class DecidingPlatform(eutaxy_testplatform.TestPlatform):
    __test__ = False

    def run(self, plan):
        result = super().run(plan)
        bodies = {event["id"]: event["body"] for event in plan.scenario["drive"]["events"]}
        data = result.to_data()
        effects = []
        for effect in data["effects"]:
            if effect["kind"] == "call" and effect["ordinal"] == 0:
                body = bodies[effect["invocation"].rpartition("#")[0]]
                order = {"totalCents": body.get("totalCents", 1000), "refundedCents": 0}
                effects.append(_decision("decideRefund", [order, body["amountCents"]],
                                         decide_refund(order, body["amountCents"]), effect))
                if "name" in body:
                    effects.append(_decision("initials", [body["name"]], body["name"][:1], effect))
            effects.append(effect)
        data["effects"] = effects
        return RunResult.from_data(data)


def _decision(function: str, args: list, result, before: dict) -> dict:
    return {"target": f"Core:{function}", "op": "decide", "kind": "decision", "payload": {"args": args, "result": result},
            "invocation": before["invocation"], "ordinal": before["ordinal"], "time": before["time"]}
