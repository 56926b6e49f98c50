"""The Python toolchain py_test uses: a venv made by Bazel from requirements.lock.

Two repository rules:

- python_interpreter (local): tools/bazel/find_python.sh picks the interpreter
  ($EUTAXY_PYTHON, else the first Python 3.11+ among python3, python3.13, ...,
  on PATH) and writes what it found, its version and its file's SHA-256 to
  interpreter.txt. It is cheap and runs again on every Bazel server start and
  whenever PATH or EUTAXY_PYTHON change.
- python_venv: makes the venv inside the output base with tools/bazel/make_venv.py
  (pip in hash-checking mode). requirements.lock and interpreter.txt are labels
  it reads, so Bazel runs it again exactly when the lock or the interpreter
  changes, and not otherwise.

The runtime's interpreter is a small generated file that runs the venv's python
found beside its own real location, naming the interpreter the venv came from and
the lock's digest: every py_test and py_binary
has it among its inputs, so a new lock or interpreter re-runs the tests (and a
cached result is one made with this environment).
"""

def _interpreter_impl(rctx):
    finder = rctx.path(Label("//tools/bazel:find_python.sh"))
    result = rctx.execute(["sh", finder])
    if result.return_code != 0:
        fail("eutaxy_python: " + result.stderr)
    rctx.file("interpreter.txt", result.stdout)
    rctx.file("WORKSPACE", "")
    rctx.file("BUILD", 'exports_files(["interpreter.txt"])\n')

python_interpreter = repository_rule(
    implementation = _interpreter_impl,
    local = True,
    environ = ["PATH", "EUTAXY_PYTHON", "PYENV_VERSION"],
)

def found_python(rctx, interpreter = Label("@eutaxy_python_interpreter//:interpreter.txt")):
    """What python_interpreter found: {"python", "version", "build", "sha256"}."""
    fields = {}
    for line in rctx.read(interpreter).strip().split("\n"):
        key, _, value = line.partition("=")
        fields[key] = value
    return fields

def _venv_impl(rctx):
    found = found_python(rctx, rctx.attr.interpreter)
    lock = rctx.path(rctx.attr.lock)
    python = found["python"]
    rctx.report_progress("making the venv from requirements.lock with Python %s (%s)" % (found["version"], python))
    venv = rctx.path("venv")
    result = rctx.execute(
        [python, "-P", rctx.path(rctx.attr._make_venv), "--lock", lock, "--dest", venv],
        timeout = 1800,
    )
    if result.return_code != 0:
        fail("eutaxy_python: making the venv with Python %s (%s) failed:\n%s" % (found["version"], python, result.stderr))

    # Said once, when the environment is made (this rule runs only then).
    print("eutaxy_python: Python %s (%s); venv from requirements.lock, hash-checked, at %s" % (found["version"], python, venv))
    # Nothing here names the output base: this file is an input of every Python action
    # and the stub's shebang is in every py_binary, so an absolute path in either would
    # give each checkout its own action keys and a remote cache would never hit across
    # checkouts (tools/remote_cache/check.py --suite). The wrapper finds the venv beside
    # its own real location; the stub runs under the interpreter the venv was made from.
    rctx.file("python3", "\n".join([
        "#!/bin/sh",
        "# Python %s (%s, sha256 %s)" % (found["version"], python, found["sha256"]),
        "# venv from requirements.lock, sha256 %s" % _digest(rctx, lock),
        'here=$(dirname "$(readlink -f "$0")")',
        'exec "$here/venv/bin/python3" "$@"',
        "",
    ]), executable = True)
    rctx.file("interpreter.txt", rctx.read(rctx.attr.interpreter))
    rctx.file("WORKSPACE", "")
    rctx.file("BUILD", """
load("@bazel_tools//tools/python:toolchain.bzl", "py_runtime_pair")

py_runtime(
    name = "venv_python3",
    interpreter = "python3",
    python_version = "PY3",
    stub_shebang = "#!{python}",
)

py_runtime_pair(name = "runtime_pair", py3_runtime = ":venv_python3")

toolchain(
    name = "toolchain",
    toolchain = ":runtime_pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)

exports_files(["python3", "interpreter.txt"])
""".format(python = python))

def _digest(rctx, path):
    result = rctx.execute(["sha256sum", path])
    if result.return_code != 0:
        fail("eutaxy_python: sha256sum %s: %s" % (path, result.stderr))
    return result.stdout.split(" ")[0]

python_venv = repository_rule(
    implementation = _venv_impl,
    attrs = {
        "interpreter": attr.label(mandatory = True, allow_single_file = True),
        "lock": attr.label(mandatory = True, allow_single_file = True),
        "_make_venv": attr.label(default = "//tools/bazel:make_venv.py"),
    },
)
