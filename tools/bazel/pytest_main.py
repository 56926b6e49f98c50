"""Runs pytest over one package's tests inside a Bazel test.

Arguments are paths relative to the workspace root. pytest runs from the test's
own temporary directory (so Hypothesis and pytest write nothing into runfiles) and
reports to Bazel's JUnit XML file.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")

import pytest  # noqa: E402 - below the PYTEST_DISABLE_PLUGIN_AUTOLOAD default, which it is there for


class Shard:
    """Bazel's test sharding protocol: this shard runs every TEST_TOTAL_SHARDS-th collected item.

    Items are dealt in collection order (deterministic), so the slow cases of one file spread
    over the shards; the status file tells Bazel the runner honours sharding.
    """

    def __init__(self, index: int, total: int) -> None:
        assert 0 <= index < total, (index, total)
        self.index = index
        self.total = total

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        mine = [n % self.total == self.index for n in range(len(items))]
        config.hook.pytest_deselected(items=[item for item, kept in zip(items, mine) if not kept])
        items[:] = [item for item, kept in zip(items, mine) if kept]


def _shard() -> Shard | None:
    total = os.environ.get("TEST_TOTAL_SHARDS")
    if not total:
        return None
    status = os.environ.get("TEST_SHARD_STATUS_FILE")
    if status:
        Path(status).touch()
    return Shard(int(os.environ["TEST_SHARD_INDEX"]), int(total))


#: The toolchain repositories' location.txt files and the variable each sets: the pinned
#: Node toolchain; the test-only wrangler the bundle differential runs (corpus/wrangler-bundle/);
#: the test-only npm packages of the real Worker projects (corpus/real-projects/); the pinned
#: Lean (tools/bazel/lean_toolchain.bzl), its executable or "unavailable: why".
LOCATIONS = {
    "eutaxy_node": "EUTAXY_NODE_MODULES",
    "eutaxy_wrangler": "EUTAXY_WRANGLER_NODE_MODULES",
    "eutaxy_real_projects": "EUTAXY_REAL_PROJECTS_NODE_MODULES",
    "eutaxy_lean": "EUTAXY_LEAN_LOCATION",
}
UNAVAILABLE = "unavailable: "


def read_location(location: Path) -> str:
    """A location.txt's path, absolute: a relative one is taken from the file's real folder.

    The repository rules write paths relative to the file, so no test's inputs name the
    output base (tools/remote_cache/check.py --suite); the runfiles entry is a link to it.
    """
    text = location.read_text().strip()
    if text.startswith(UNAVAILABLE):
        return text
    return str(location.resolve().parent / text)


def main() -> int:
    root = Path(os.environ["TEST_SRCDIR"]) / os.environ["TEST_WORKSPACE"]
    for repository, variable in LOCATIONS.items():
        location = Path(os.environ["TEST_SRCDIR"]) / repository / "location.txt"
        if location.exists() and variable not in os.environ:
            os.environ[variable] = read_location(location)
    tmp = os.environ.get("TEST_TMPDIR")
    if tmp:
        os.chdir(tmp)
        os.environ.setdefault("EUTAXY_CACHE_DIR", os.path.join(tmp, "eutaxy-cache"))
    args = [str(root / a) if not a.startswith("-") else a for a in sys.argv[1:]]
    # -rs: a skipped test's reason shows in the summary (the only skip is the Lean tests' without Lean).
    args += ["-q", "-rs", "-p", "no:cacheprovider", f"--rootdir={root}"]
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        args.append(f"--junitxml={xml}")
    shard = _shard()
    return pytest.main(args, plugins=[shard] if shard else [])


if __name__ == "__main__":
    sys.exit(main())
