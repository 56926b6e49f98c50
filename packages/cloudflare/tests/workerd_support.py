"""What the tests that run real workerd share, here and in the CLI's tests (``//packages/cloudflare:test_support``).

A uniquely named module, so another package's test folder cannot shadow it. Each
conftest imports the ``toolchain`` fixture from here.
"""

import pytest

from eutaxy.cloudflare.host import HostError, find_node, find_runtime


@pytest.fixture(scope="session")
def toolchain():
    """The pinned Node toolchain and the runtime; a test that needs them fails, never skips, without them."""
    try:
        find_node(install=False)
        find_runtime()
    except HostError as error:
        pytest.fail(f"the Node toolchain or the runtime is not available: {error}")


def fault_free(scenario, platform, seed: str) -> dict:
    """The result of one run of ``scenario`` with no fault and the first turns, on ``platform``."""
    from eutaxy.engine.check import replay_scenario

    return replay_scenario(scenario, platform, {"faults": [], "turns": []}, seed=seed)["result"]


def results_at(result: dict, target: str) -> list:
    """The result effects (kind ``result``) a run recorded at ``target``, in order."""
    from eutaxy.core.effects import as_effects

    return [e for e in as_effects(result["effects"]) if e.kind == "result" and e.target == target]


def running(scenario):
    """``(scenario, platform)`` with the platform open until the caller resumes: the body of a
    module-scoped fixture (``yield from running(scenario)``)."""
    from eutaxy.cloudflare import create_platform

    with create_platform(scenario) as platform:
        yield scenario, platform
