"""The pinned Node toolchain as a Bazel repository.

It runs Eutaxy's one installer (packages/cloudflare/src/eutaxy/cloudflare/toolchain.py),
which fetches every package of the committed package-lock.json with `npm pack`,
checks each tarball's SHA-256 against node/sha256.json and only then unpacks it.
No host is named: npm's own configuration picks the registry.

The same rule installs a test-only lock (its `package_lock` and `sha256` attributes: the
wrangler the bundle differential compares Eutaxy's build with, corpus/wrangler-bundle/;
the npm packages of the real Worker projects, corpus/real-projects/).
"""

load(":python_toolchain.bzl", "found_python")

def _impl(rctx):
    installer = rctx.path(Label("@//packages/cloudflare:src/eutaxy/cloudflare/toolchain.py"))

    # Re-fetch when the pins change; the copies make them inputs of every test that
    # uses the toolchain, so a new pin re-runs those tests instead of serving them cached.
    rctx.symlink(rctx.attr.package_lock, "package-lock.json")
    rctx.symlink(rctx.attr.sha256, "sha256.json")
    # -P: the installer sits beside platform.py, which must not shadow the standard library.
    python = found_python(rctx)["python"]
    result = rctx.execute([python, "-P", installer, "--dest", ".", "--lock-dir", "."], timeout = 900, quiet = False)
    if result.return_code != 0:
        fail("installing the pinned Node toolchain failed:\n" + result.stderr)
    rctx.file("WORKSPACE", "")

    # Tests find the toolchain through this one small file rather than through tens
    # of thousands of runfiles links. It names the folder relative to the file's own
    # real location (readers resolve the runfiles link first): an absolute path would
    # name this output base, and every test reading the file would get a different
    # action key in each checkout, never a remote cache hit across them.
    rctx.file("location.txt", "node_modules\n")
    rctx.file("BUILD", """
filegroup(
    name = "location",
    srcs = ["location.txt", "package-lock.json", "sha256.json"],
    visibility = ["//visibility:public"],
)
""")

node_toolchain = repository_rule(
    implementation = _impl,
    attrs = {
        "package_lock": attr.label(default = Label("@//packages/cloudflare:src/eutaxy/cloudflare/node/package-lock.json"), allow_single_file = True),
        "sha256": attr.label(default = Label("@//packages/cloudflare:src/eutaxy/cloudflare/node/sha256.json"), allow_single_file = True),
    },
)
