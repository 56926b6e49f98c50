"""Durable Objects on real workerd: the objects workerd runs, each stub call one effect.

Cloudflare's hello-world Durable Object template (hello_do/, its NOTICE.md) is checked with
a scenario and must end BOUNDED or VIOLATED, never UNSUPPORTED (it ended UNSUPPORTED,
binding_not_modelled, at its first idFromName before Durable Objects were modelled).
"""

from pathlib import Path

import pytest

from eutaxy.cloudflare import create_platform, load_scenario
from eutaxy.engine.check import check_scenario

HERE = Path(__file__).resolve().parent
HELLO = HERE / "hello_do" / "hello.sim.py"

pytestmark = pytest.mark.usefixtures("toolchain")


def test_the_hello_world_template_is_checked_not_unsupported():
    """The template's stub call is an effect, its object real: the check ends BOUNDED or VIOLATED."""
    scenario = load_scenario(HELLO)
    with create_platform(scenario) as platform:
        verdict = check_scenario(scenario, platform, seed="hello-do", max_runs=30, budget_ms=300_000)
    assert verdict["kind"] in ("bounded", "violated"), verdict.get("cause")
    assert "bounded" == verdict["kind"], "one resend recovers any single fault at the stub call"
