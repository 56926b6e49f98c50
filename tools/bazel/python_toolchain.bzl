"""The Python toolchain py_test uses: the repository's own venv (.venv/bin/python3).

tools/test creates the venv from requirements.lock before Bazel runs. The
interpreter is pinned by path, not hermetic: installing packages into the venv
does not invalidate cached test results (tools/test passes the lock's digest as a
test env value so a new lock does).
"""

def _impl(rctx):
    root = rctx.path(Label("@//:WORKSPACE.bazel")).dirname
    python = "%s/.venv/bin/python3" % root
    if not rctx.path(python).exists:
        fail("no venv at %s/.venv: run ./tools/test (or python3 -m venv .venv && .venv/bin/pip install -r requirements.lock)" % root)
    rctx.file("WORKSPACE", "")
    rctx.file("BUILD", """
load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

py_runtime(
    name = "venv_python3",
    interpreter_path = "{python}",
    python_version = "PY3",
    stub_shebang = "#!{python}",
)

py_runtime_pair(name = "runtime_pair", py3_runtime = ":venv_python3")

toolchain(
    name = "toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)
""".format(python = python))

venv_python = repository_rule(implementation = _impl, local = True)
