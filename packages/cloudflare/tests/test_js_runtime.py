"""The in-isolate runtime's and the host's own JavaScript tests (node --test), under pytest.

They run on the pinned Node 24 with the pinned Miniflare, so `bazel test` covers the
JavaScript half of the platform as well as the Python half.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from eutaxy.cloudflare.toolchain import find_node_toolchain

RUNTIME = Path(__file__).resolve().parents[1] / "runtime"


def test_node_test_suite_of_the_runtime_passes():
    toolchain = find_node_toolchain(install=False)
    env = dict(os.environ, EUTAXY_NODE_MODULES=str(toolchain.node_modules))
    proc = subprocess.run(
        [str(toolchain.node), "--test", "--test-reporter=spec"],
        cwd=RUNTIME, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert "# fail 0" in proc.stdout or " fail 0" in proc.stdout, proc.stdout[-2000:]
