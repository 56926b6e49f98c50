"""End to end, on workerd: ``eutaxy check --shard INDEX/TOTAL`` and ``--merge-shards`` give ``--jobs 1``'s bytes.

Each shard is a check of its own (as each Bazel shard is a test action of its own): it writes
its runs; the merge takes them in plan order and runs only what no shard ran, and its JSON is
the one-job check's, byte for byte, for a planted bug (VIOLATED, the shard that ran the
violating plan failing) and for its fixed twin (BOUNDED at the run cap). The pinned Node
toolchain is required: this test fails rather than skips.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("toolchain")

PACKAGE = Path(__file__).absolute().parents[1]


def _case(*parts: str) -> Path:
    for root in (Path.cwd(), PACKAGE.parents[1]):
        path = root.joinpath("corpus", "planted-bugs", *parts)
        if path.is_file():
            return path
    raise AssertionError(f"corpus/planted-bugs/{'/'.join(parts)} is not in the test's files")


@pytest.mark.parametrize(
    "parts, kind, runs",
    [
        (("queue-duplicate-write", "queue-duplicate-write.sim.py"), "violated", 40),
        (("queue-batch-of-one", "fixed", "queue-batch-of-one-fixed.sim.py"), "bounded", 40),
    ],
)
def test_two_shards_merged_give_the_one_job_json(run_cli, tmp_path, parts, kind, runs):
    scenario = str(_case(*parts))
    flags = ("--max-runs", str(runs), "--budget-ms", "600000", "--no-regression")
    one = run_cli("check", scenario, *flags, "--jobs", "1", "--json")
    assert json.loads(one.stdout)["kind"] == kind, one.stderr
    codes = []
    for index in (0, 1):
        shard = run_cli("check", scenario, *flags, "--shard", f"{index}/2", "--shard-dir", str(tmp_path / f"shard-{index}"), "--json")
        assert json.loads(shard.stdout)["kind"] == "shard", shard.stderr
        codes.append(shard.code)
    # A shard fails exactly when a run of its slice broke an invariant that its replay broke again.
    assert (1 in codes) == (kind == "violated"), codes
    # Bazel keeps a shard's undeclared outputs zipped: the merge reads them there too.
    shard_file = next((tmp_path / "shard-1").glob("*.json"))
    with zipfile.ZipFile(tmp_path / "shard-1" / "outputs.zip", "w") as zipped:
        zipped.write(shard_file, shard_file.name)
    shard_file.unlink()
    merged = run_cli("check", scenario, *flags, "--merge-shards", str(tmp_path), "--json")
    assert one.code == merged.code
    assert one.stdout == merged.stdout


def test_a_merge_without_every_shard_is_refused(run_cli, tmp_path):
    scenario = str(_case("queue-batch-of-one", "fixed", "queue-batch-of-one-fixed.sim.py"))
    flags = ("--max-runs", "10", "--budget-ms", "600000", "--no-regression")
    assert 0 == run_cli("check", scenario, *flags, "--shard", "0/2", "--shard-dir", str(tmp_path)).code
    merged = run_cli("check", scenario, *flags, "--merge-shards", str(tmp_path))
    assert 2 == merged.code
    assert "lack shard 1" in merged.stderr
    other = run_cli("check", scenario, "--max-runs", "11", "--budget-ms", "600000", "--merge-shards", str(tmp_path))
    assert 2 == other.code and "another check" in other.stderr
