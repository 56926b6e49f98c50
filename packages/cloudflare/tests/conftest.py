"""What the Cloudflare tests that run real workerd share.

`toolchain` (from workerd_support, which the CLI's tests share) fails, never skips, when the pinned Node toolchain or the runtime is
missing: Bazel always provides both, and a workerd test that quietly skips could not
fail. Outside Bazel, run `eutaxy toolchain install` (or set EUTAXY_NODE_MODULES).
"""

from workerd_support import toolchain as toolchain
