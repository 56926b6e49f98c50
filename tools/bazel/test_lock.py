"""requirements.lock agrees with requirements.in, and a wrong hash is refused.

The lock is what tools/lock (pip-compile --generate-hashes) makes from
requirements.in: every pin carries its SHA-256s, every requirement of
requirements.in is pinned to a version it allows, and nothing the lock says comes
from requirements.in is missing there. When requirements.in changes without the
lock being regenerated, this test fails and says what to run.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import make_venv

# Not resolved: under Bazel this is the runfiles tree, where the two files are the test's data.
ROOT = Path(__file__).absolute().parents[2]
REGENERATE = "regenerate the lock with tools/lock"


def parse_lock(text: str) -> dict[str, dict]:
    """name -> {"version", "hashes", "from_in"} for each pin of a pip-compile lock."""
    pins: dict[str, dict] = {}
    current = None
    for line in text.splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            requirement, _, rest = line.partition(" ")
            name, sep, version = requirement.partition("==")
            if not sep:
                raise ValueError(f"requirements.lock: `{line}` is not pinned with ==")
            current = pins[canonicalize_name(name)] = {"version": version, "hashes": [], "from_in": False}
            line = rest
        if current is None:
            continue
        current["hashes"] += re.findall(r"--hash=sha256:([0-9a-f]{64})\b", line)
        if re.match(r"^\s+#\s+(via\s+)?-r requirements\.in\b", line):
            current["from_in"] = True
    return pins


def parse_in(text: str) -> list[Requirement]:
    lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [Requirement(line) for line in lines if line]


def disagreements(requirements: list[Requirement], pins: dict[str, dict]) -> list[str]:
    problems = []
    named = {canonicalize_name(r.name) for r in requirements}
    for requirement in requirements:
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None:
            problems.append(f"{requirement} (requirements.in) is not in requirements.lock")
        elif not requirement.specifier.contains(pin["version"], prereleases=True):
            problems.append(f"{requirement} (requirements.in) but requirements.lock pins {pin['version']}")
    for name, pin in sorted(pins.items()):
        if pin["from_in"] and name not in named:
            problems.append(f"requirements.lock pins {name}=={pin['version']} for requirements.in, which no longer names it")
        if not pin["hashes"]:
            problems.append(f"requirements.lock pins {name}=={pin['version']} without a --hash=sha256")
    return problems


def test_the_lock_agrees_with_requirements_in():
    requirements = parse_in((ROOT / "requirements.in").read_text())
    pins = parse_lock((ROOT / "requirements.lock").read_text())
    problems = disagreements(requirements, pins)
    assert not problems, "\n".join(problems) + f"\n{REGENERATE}"
    assert len(pins) > len(requirements)  # the whole closure, not only the direct requirements
    assert all(pin["hashes"] for pin in pins.values())


def test_the_lock_is_made_by_the_documented_command():
    assert "#    tools/lock\n" in (ROOT / "requirements.lock").read_text()


LOCK = """\
attrs==26.1.0 \\
    --hash=sha256:{a}
    # via
    #   -r requirements.in
    #   cattrs
cattrs==26.2.1 \\
    --hash=sha256:{b}
    # via -r requirements.in
six==1.17.0 \\
    --hash=sha256:{c}
    # via python-dateutil
""".format(a="a" * 64, b="b" * 64, c="c" * 64)


@pytest.mark.parametrize(
    ("requirements_in", "lock", "problem"),
    [
        ("attrs==26.1.0\ncattrs==26.2.1\n", LOCK, None),
        ("attrs==26.1.0\ncattrs==26.2.1\nboto3==1.43.11\n", LOCK, "boto3==1.43.11 (requirements.in) is not in requirements.lock"),
        ("attrs==26.2.0\ncattrs==26.2.1\n", LOCK, "attrs==26.2.0 (requirements.in) but requirements.lock pins 26.1.0"),
        ("attrs==26.1.0\n", LOCK, "requirements.lock pins cattrs==26.2.1 for requirements.in, which no longer names it"),
        ("attrs\ncattrs>=26\n", LOCK.replace("    --hash=sha256:" + "c" * 64 + "\n", ""), "pins six==1.17.0 without a --hash=sha256"),
    ],
)
def test_disagreements_are_found(requirements_in, lock, problem):
    found = disagreements(parse_in(requirements_in), parse_lock(lock))
    assert found == [] if problem is None else any(problem in p for p in found), found


def _tiny_wheel(where: Path) -> Path:
    """A one-module wheel made here, so the hash check runs with no package index."""
    files = {
        "tinypkg/__init__.py": b"VALUE = 1\n",
        "tinypkg-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("tinypkg-1.0.dist-info/RECORD,,")
    wheel = where / "tinypkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr("tinypkg-1.0.dist-info/RECORD", "\n".join(record) + "\n")
    return wheel


@pytest.mark.parametrize("right", [True, False])
def test_make_venv_installs_only_what_matches_the_lock(tmp_path, right):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    real = hashlib.sha256(_tiny_wheel(wheels).read_bytes()).hexdigest()
    lock = tmp_path / "requirements.lock"
    lock.write_text(f"tinypkg==1.0 --hash=sha256:{real if right else '0' * 64}\n")
    target = tmp_path / "site"
    offline = ("--no-index", "--find-links", str(wheels), "--no-cache-dir", "--target", str(target))
    if right:
        make_venv.install(Path(sys.executable), lock, offline)
        assert (target / "tinypkg" / "__init__.py").is_file()
        return
    with pytest.raises(make_venv.VenvError) as refused:
        make_venv.install(Path(sys.executable), lock, offline)
    assert f"{lock}: pip refused tinypkg==1.0 (line 1): the downloaded file's SHA-256 is none of the lock's" in str(refused.value)
    assert real in str(refused.value)  # pip's own lines, with the digest it got
    assert not (target / "tinypkg").exists()
