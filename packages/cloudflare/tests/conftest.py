"""What the Cloudflare tests that run real workerd share.

`toolchain` fails, never skips, when the pinned Node toolchain or the runtime is
missing: Bazel always provides both, and a workerd test that quietly skips could not
fail. Outside Bazel, run `eutaxy toolchain install` (or set EUTAXY_NODE_MODULES).
"""

import pytest

from eutaxy.cloudflare.host import HostError, find_node, find_runtime


@pytest.fixture(scope="session")
def toolchain():
    try:
        find_node(install=False)
        find_runtime()
    except HostError as error:
        pytest.fail(f"the Node toolchain or the runtime is not available: {error}")
