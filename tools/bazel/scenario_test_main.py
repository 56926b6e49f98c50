"""Runs one scenario's ``eutaxy check`` as a Bazel test, a slice of its exploration per shard.

What ``eutaxy_scenario_test`` (eutaxy.bzl) runs. Arguments: the scenario's path relative to
the workspace root, then flags for ``eutaxy check`` (``--max-runs N``, ``--seed SEED``).

- As a test under Bazel's sharding protocol (``TEST_TOTAL_SHARDS``, ``TEST_SHARD_INDEX``; the
  status file is touched so Bazel knows the runner honours it): ``eutaxy check --shard
  INDEX/TOTAL``, writing the shard's result into ``TEST_UNDECLARED_OUTPUTS_DIR`` (Bazel keeps
  it in the shard's ``test.outputs``). The shard fails when a run of its slice broke an
  invariant and the replay broke it again. Without sharding: the whole check.
- As the macro's ``<name>.merge`` binary (``bazel run``; its first argument ``--merge
  PACKAGE/NAME``): ``eutaxy check --merge-shards`` over the shards' results under
  ``bazel-testlogs/PACKAGE/NAME`` in the workspace (or the folder given after ``--``), which
  prints the verdict one job would give, byte for byte.

Checks run from the test's temporary folder (nothing is written beside the sources) and
write no regression test (the workspace's copy of the scenario is not in the sandbox).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _runfiles() -> Path:
    """The runfiles root: a test's ``TEST_SRCDIR``, else the binary's ``RUNFILES_DIR``, else the
    folder above this file's workspace folder (``<runfiles>/<workspace>/tools/bazel/``)."""
    for variable in ("TEST_SRCDIR", "RUNFILES_DIR"):
        if os.environ.get(variable):
            return Path(os.environ[variable])
    return Path(os.path.abspath(__file__)).parents[3]


def _workspace(runfiles: Path) -> Path:
    name = os.environ.get("TEST_WORKSPACE")
    if name:
        return runfiles / name
    return Path(os.path.abspath(__file__)).parents[2]


def main(argv: list[str]) -> int:
    runfiles = _runfiles()
    location = runfiles / "eutaxy_node" / "location.txt"
    if location.exists() and "EUTAXY_NODE_MODULES" not in os.environ:
        # Relative to the file's real folder, as pytest_main.read_location takes it.
        os.environ["EUTAXY_NODE_MODULES"] = str(location.resolve().parent / location.read_text().strip())
    merge = None
    if argv[:1] == ["--merge"]:
        merge, argv = argv[1], argv[2:]
    given = argv.index("--") if "--" in argv else len(argv)
    argv, after = argv[:given], argv[given + 1 :]
    scenario = str(_workspace(runfiles) / argv[0])
    command = ["check", scenario, *argv[1:], "--no-regression"]
    if merge is not None:
        folder = Path(after[0]) if after else Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY", ".")) / "bazel-testlogs" / merge
        command += ["--merge-shards", str(folder.resolve())]
    total = os.environ.get("TEST_TOTAL_SHARDS")
    if merge is None and total:
        status = os.environ.get("TEST_SHARD_STATUS_FILE")
        if status:
            Path(status).touch()
        outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or "."
        command += ["--shard", f"{os.environ['TEST_SHARD_INDEX']}/{total}", "--shard-dir", outputs]
    tmp = os.environ.get("TEST_TMPDIR")
    if tmp:
        os.chdir(tmp)
        os.environ.setdefault("EUTAXY_CACHE_DIR", os.path.join(tmp, "eutaxy-cache"))
    from eutaxy.cli.main import main as eutaxy

    return eutaxy(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
