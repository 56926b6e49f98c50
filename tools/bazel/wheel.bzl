"""A pinned PyPI wheel as a Bazel repository, fetched by pip and checked by SHA-256.

`pip download --no-deps --only-binary=:all: NAME==VERSION` uses the user's pip
configuration (no host is named here); the wheel's digest is checked before it is
unpacked, and a mismatch fails with both digests.
"""

def _impl(rctx):
    spec = "%s==%s" % (rctx.attr.package, rctx.attr.version)
    result = rctx.execute(
        ["python3", "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", "dl", spec],
        timeout = 600,
    )
    if result.return_code != 0:
        fail("pip download %s failed:\n%s" % (spec, result.stderr))
    found = rctx.execute(["sh", "-c", "ls dl/*.whl"]).stdout.strip().split("\n")
    if len(found) != 1 or not found[0]:
        fail("pip download %s gave %s, expected one wheel" % (spec, found))
    wheel = found[0]
    actual = rctx.execute(["sha256sum", wheel]).stdout.split(" ")[0]
    if actual != rctx.attr.sha256:
        fail("SHA-256 mismatch for %s (%s): expected %s, got %s; nothing was unpacked" % (spec, wheel, rctx.attr.sha256, actual))
    rctx.execute(["mv", wheel, "wheel.zip"])
    rctx.extract("wheel.zip", output = "site")
    rctx.delete("wheel.zip")
    rctx.delete("dl")
    rctx.file("WORKSPACE", "")
    rctx.file("BUILD", """
py_library(
    name = "lib",
    srcs = glob(["site/**/*.py"]),
    data = glob(["site/**"], exclude = ["site/**/*.py", "site/**/* *"]),
    imports = ["site"],
    visibility = ["//visibility:public"],
)
""")

pinned_wheel = repository_rule(
    implementation = _impl,
    attrs = {
        "package": attr.string(mandatory = True),
        "version": attr.string(mandatory = True),
        "sha256": attr.string(mandatory = True),
    },
)
