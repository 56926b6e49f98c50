"""The release workflow is valid for GitHub Actions and publishes what it must, in order.

No actionlint wheel reaches this machine, so the file is checked against the
GitHub-workflow JSON schema check-jsonschema carries (no download), and then read
for what docs/ci.md promises: a version tag starts it; it runs ./tools/test, builds
once, publishes each distribution after every sibling it pins through trusted
publishing with attestations, and releases with the changelog's notes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import build

ROOT = Path(__file__).absolute().parents[2]
RELEASE = ROOT / ".github" / "workflows" / "release.yml"
PUBLISH_ACTION = "pypa/gh-action-pypi-publish@release/v1"


def schema_check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(path)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def workflow():
    # PyYAML reads the key `on` as True (YAML 1.1); BaseLoader keeps every key a string.
    return yaml.load(RELEASE.read_text(), Loader=yaml.BaseLoader)


@pytest.mark.parametrize("name", ["release.yml", "ci.yml"])
def test_the_workflows_pass_the_schema(name):
    result = schema_check(ROOT / ".github" / "workflows" / name)
    assert 0 == result.returncode, result.stdout + result.stderr


def test_the_schema_check_can_fail(tmp_path):
    """A negative control: a misspelt key (runs-onn) and a job with no steps are refused."""
    broken = tmp_path / "release.yml"
    broken.write_text(RELEASE.read_text().replace("    runs-on: ubuntu-latest\n    timeout-minutes: 10\n",
                                                  "    runs-onn: ubuntu-latest\n    timeout-minutes: 10\n"))
    assert broken.read_text() != RELEASE.read_text()
    assert 0 != schema_check(broken).returncode


def test_a_version_tag_starts_it(workflow):
    assert {"push": {"tags": ["v*"]}} == workflow["on"]


def test_the_jobs_run_in_a_chain_test_build_publish_release(workflow):
    jobs = workflow["jobs"]
    assert ["test", "build", "publish", "release"] == list(jobs)
    assert ("test", "build", "publish") == (jobs["build"]["needs"], jobs["publish"]["needs"], jobs["release"]["needs"])
    assert any(step.get("run", "").strip() == "./tools/test" for step in jobs["test"]["steps"])


def test_it_builds_once_and_checks_the_tag_against_version(workflow):
    runs = "\n".join(step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"])
    assert 1 == runs.count("tools/release/build.py")
    assert "tools/release/build.py --out dist" in "\n".join(s.get("run", "") for s in workflow["jobs"]["build"]["steps"])
    assert '"$GITHUB_REF_NAME" != "v$version"' in runs
    assert "tools/release/notes.py" in runs and "--notes-file release-notes.md" in runs


def test_publishing_is_trusted_with_attestations_and_only_there(workflow):
    """id-token only where it is used; no password or token input anywhere."""
    jobs = workflow["jobs"]
    assert {"id-token": "write"} == jobs["publish"]["permissions"]
    assert {"contents": "read"} == workflow["permissions"]
    publishes = [step for step in jobs["publish"]["steps"] if step.get("uses") == PUBLISH_ACTION]
    assert 10 == len(publishes)
    for step in publishes:
        assert {"packages-dir", "attestations", "skip-existing"} == set(step["with"]), step
        assert "true" == step["with"]["attestations"]
    assert "password" not in RELEASE.read_text()


def order_problems(published: list[str], packages: dict) -> list[str]:
    """What is wrong with publishing in this order: a distribution missing, or one before a sibling it pins."""
    found = [f"{name} is never published" for name in sorted(set(packages) - set(published))]
    for index, name in enumerate(published):
        for sibling in packages[name].siblings:
            sibling = sibling.replace("-", "_")
            if sibling not in published[:index]:
                found.append(f"{name} is published before {sibling}, which it pins")
    return found


def test_each_distribution_is_published_after_every_sibling_it_pins(workflow):
    """The order of the publish steps against the pins in the ten pyproject files."""
    published = [step["with"]["packages-dir"].removeprefix("by-name/").rstrip("/")
                 for step in workflow["jobs"]["publish"]["steps"] if step.get("uses") == PUBLISH_ACTION]
    packages = {p.name.replace("-", "_"): p for p in build.packages(ROOT, rev=None)}
    assert 10 == len(packages)
    assert [] == order_problems(published, packages)


def test_the_order_check_can_fail(workflow):
    """A negative control: the order reversed puts the cli before all it pins."""
    published = [step["with"]["packages-dir"].removeprefix("by-name/").rstrip("/")
                 for step in workflow["jobs"]["publish"]["steps"] if step.get("uses") == PUBLISH_ACTION]
    packages = {p.name.replace("-", "_"): p for p in build.packages(ROOT, rev=None)}
    found = order_problems(list(reversed(published)), packages)
    assert "eutaxy is published before eutaxy_aws, which it pins" in found
    assert ["eutaxy_spec is never published"] == order_problems(published[1:], packages)[:1]
