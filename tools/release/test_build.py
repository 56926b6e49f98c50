"""Builds are reproducible and carry every runtime file and nothing else.

A tiny distribution laid out like Eutaxy's (src/ plus a JavaScript folder mapped
in with package-dir, a LICENSE symlink, tests beside it) is committed to a
temporary git repository and built twice with the real builder; the two builds
must be byte-identical, and the content check must pass on them and fail on a
wheel that lost a runtime file or gained a test.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

import build

ROOT = Path(__file__).absolute().parents[2]

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "eutaxy-demo"
version = "1.2.3"
description = "a demo"
readme = "README.md"
requires-python = ">=3.11"
license = {text = "Apache-2.0"}
classifiers = ["License :: OSI Approved :: Apache Software License", "Programming Language :: Python :: 3"]
dependencies = []

[project.urls]
Homepage = "https://example.invalid/"
Source = "https://example.invalid/src"
Changelog = "https://example.invalid/changes"
Issues = "https://example.invalid/issues"

[tool.setuptools.package-data]
"eutaxy.demo" = ["*.json"]
"eutaxy.demo.js" = ["*.mjs"]

[tool.setuptools]
package-dir = {"" = "src", "eutaxy.demo.js" = "js"}
packages = ["eutaxy.demo", "eutaxy.demo.js"]
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    files = {
        "LICENSE": "license text\n",
        "packages/demo/pyproject.toml": PYPROJECT,
        "packages/demo/README.md": "# eutaxy-demo\n\nA demo distribution.\n",
        "packages/demo/src/eutaxy/demo/__init__.py": "VALUE = 1\n",
        "packages/demo/src/eutaxy/demo/table.json": "{}\n",
        "packages/demo/js/run.mjs": "export {};\n",
        "packages/demo/js/test/run.test.mjs": "// a test, not shipped\n",
        "packages/demo/tests/test_demo.py": "def test(): pass\n",
        "packages/demo/BUILD.bazel": "# bazel\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "packages/demo/LICENSE").symlink_to("../../LICENSE")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "demo"], check=True, env={"GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
                                                                         "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
                                                                         "PATH": "/usr/bin:/bin"})
    # An edit in progress must not reach the build: it builds the commit.
    (root / "packages/demo/src/eutaxy/demo/__init__.py").write_text("VALUE = 2  # uncommitted\n")
    return root


@pytest.fixture(scope="module")
def builds(repo, tmp_path_factory):
    first, second = tmp_path_factory.mktemp("first"), tmp_path_factory.mktemp("second")
    epoch = build.source_date_epoch(repo)
    build.build_all(repo, first, epoch)
    build.build_all(repo, second, epoch)
    return first, second


def test_the_last_commit_dates_the_build(repo, monkeypatch):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert 1767323045 == build.source_date_epoch(repo)


def test_two_builds_are_byte_identical(builds):
    first, second = builds
    assert ["SHA256SUMS", "eutaxy_demo-1.2.3-py3-none-any.whl", "eutaxy_demo-1.2.3.tar.gz"] == sorted(
        p.name for p in first.iterdir())
    assert [] == build.differences(first, second)


def test_the_difference_check_can_fail(builds, tmp_path):
    """A negative control: one byte changed in a copy is named."""
    first, _ = builds
    copy = tmp_path / "copy"
    shutil.copytree(first, copy)
    sdist = copy / "eutaxy_demo-1.2.3.tar.gz"
    sdist.write_bytes(sdist.read_bytes() + b"\0")
    assert ["eutaxy_demo-1.2.3.tar.gz: "] == [line[:26] for line in build.differences(first, copy)]


def test_the_sdist_is_normalised(builds, repo):
    """Normalised name and folder, entries sorted, dated by the commit, owned by root; the commit's bytes."""
    first, _ = builds
    epoch = build.source_date_epoch(repo)
    path = first / "eutaxy_demo-1.2.3.tar.gz"
    header = path.read_bytes()[:10]
    assert epoch == int.from_bytes(header[4:8], "little")  # the gzip header's own date
    assert 0 == header[3] & 0x08  # no file name in the header
    with tarfile.open(path) as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == sorted(m.name for m in members)
        assert {epoch} == {m.mtime for m in members}
        assert {0} == {m.uid for m in members} and {""} == {m.uname for m in members}
        assert all(m.name.startswith("eutaxy_demo-1.2.3") for m in members)
        init = tar.extractfile("eutaxy_demo-1.2.3/src/eutaxy/demo/__init__.py").read()
        assert b"VALUE = 1\n" == init
        assert b"license text\n" == tar.extractfile("eutaxy_demo-1.2.3/LICENSE").read()


def test_the_content_check_passes_on_a_good_build(builds, repo):
    first, _ = builds
    assert [] == build.content_problems(repo, first)


def test_the_content_check_names_a_lost_runtime_file_and_a_shipped_test(builds, repo, tmp_path):
    """A wheel rebuilt without js/run.mjs and with a tests/ file: both named."""
    first, _ = builds
    bad = tmp_path / "bad"
    shutil.copytree(first, bad)
    wheel = bad / "eutaxy_demo-1.2.3-py3-none-any.whl"
    with zipfile.ZipFile(first / wheel.name) as source, zipfile.ZipFile(wheel, "w") as target:
        for info in source.infolist():
            if info.filename != "eutaxy/demo/js/run.mjs":
                target.writestr(info, source.read(info))
        target.writestr("eutaxy/demo/tests/test_demo.py", "def test(): pass\n")
    found = build.content_problems(repo, bad)
    assert any("lacks eutaxy/demo/js/run.mjs (from packages/demo/js/run.mjs)" in line for line in found), found
    assert any("carries eutaxy/demo/tests/test_demo.py" in line for line in found), found
    assert 2 == len(found), found


def test_the_publishing_order_puts_each_after_what_it_pins():
    """On the real tree: spec first, the cli last, every sibling before its dependant."""
    order = build.packages(ROOT, rev=None)
    names = [p.name for p in order]
    assert "eutaxy-spec" == names[0] and "eutaxy" == names[-1]
    for index, package in enumerate(order):
        assert set(package.siblings) <= set(names[:index]), package
