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
