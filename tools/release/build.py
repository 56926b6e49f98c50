"""Builds the ten distributions, reproducibly, and checks what they carry.

    tools/release/build.py --out DIR [--twice] [--no-checks]

Each package is staged from a commit (``--rev``, default HEAD: so no build/,
egg-info, untracked file or edit in progress of the working tree can slip in) into a temporary folder and built
with ``python -m build --no-isolation``: the sdist, then the wheel from the sdist,
with the setuptools the lock pins. ``SOURCE_DATE_EPOCH`` is the last commit's time
(unless the environment sets it), which the wheel's zip entries take; the sdist's
tar entries and gzip header are then normalised to it too (owner, mode, order and
times), since setuptools 65.5 stamps the sdist with the build's clock.

``--twice`` builds everything a second time in another folder and fails unless
every file is byte-identical. The checks then run on DIR: ``twine check
--strict`` (metadata and long description), ``check-wheel-contents``, and
:func:`content_problems` (every runtime file of the package in its wheel, no test,
fixture or build leftover, a README long description, license, classifiers and
project URLs). DIR ends with the twenty files and ``SHA256SUMS``.
Exit 0 built and checked, 1 a check failed, 2 could not build.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import gzip
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[2]

#: Tracked files under a package's source folders that are not part of the installed package.
#: Each is kept out of the wheel on purpose; a runtime file matching none must be in the wheel.
NOT_RUNTIME = (
    "*/test/*",       # the JavaScript runtime's node:test files (packages/cloudflare/runtime/test)
    "*/fixtures/*",   # Workers the JavaScript tests load
    "*/README.md",    # notes for maintainers beside the JavaScript
)
#: What no wheel may carry: tests, Bazel files, build leftovers.
FORBIDDEN_IN_WHEEL = (
    "*/tests/*", "*/test/*", "*/fixtures/*", "*/conftest.py", "*/test_*.py", "*_test.py",
    "*BUILD.bazel", "*__pycache__*", "*.pyc", "*_layer_checked.py", "*.egg-info/*", "build/*",
)
#: Metadata every distribution declares (checked in each wheel's METADATA).
REQUIRED_CLASSIFIERS = ("License :: OSI Approved :: Apache Software License", "Programming Language :: Python :: 3")
REQUIRED_URLS = ("Homepage", "Source", "Changelog", "Issues")
#: Two builds at a time: the machines have two cores.
PARALLEL_BUILDS = 2


class BuildError(Exception):
    """A distribution did not build; the message has the builder's output."""


@attrs.frozen(kw_only=True)
class Package:
    """One distribution: its folder, its name, the siblings it pins."""

    folder: Path
    name: str
    siblings: tuple[str, ...]
    #: Source folder -> import path prefix in the wheel ("src" -> "", "runtime" -> "eutaxy/cloudflare/runtime").
    roots: tuple[tuple[str, str], ...]


def packages(root: Path, rev: str | None = "HEAD") -> list[Package]:
    """Every distribution at rev (None: the working tree), each after the siblings it depends on (ties by name).

    This is the publishing order: a distribution reaches the index only after every one it pins.
    """
    found = {}
    for pyproject in sorted((root / "packages").glob("*/pyproject.toml")):
        if rev is None:
            text = pyproject.read_text()
        else:
            text = subprocess.run(["git", "-C", str(root), "show", f"{rev}:{pyproject.relative_to(root)}"],
                                  check=True, capture_output=True, text=True).stdout
        data = tomllib.loads(text)
        found[data["project"]["name"]] = (pyproject.parent, data)
    ordered: list[Package] = []
    placed: set[str] = set()
    while len(ordered) < len(found):
        progress = False
        for name in sorted(found):
            folder, data = found[name]
            siblings = tuple(sorted({_requirement_name(r) for r in data["project"].get("dependencies", [])} & set(found)))
            if name in placed or not set(siblings) <= placed:
                continue
            ordered.append(Package(folder=folder, name=name, siblings=siblings, roots=_roots(data)))
            placed.add(name)
            progress = True
        assert progress, f"a dependency cycle among {sorted(set(found) - placed)}"
    return ordered


def _requirement_name(requirement: str) -> str:
    for index, char in enumerate(requirement):
        if char in "<>=!~[; ":
            return requirement[:index]
    return requirement


def _roots(data: dict) -> tuple[tuple[str, str], ...]:
    package_dir = data.get("tool", {}).get("setuptools", {}).get("package-dir", {})
    roots = [("src", "")]
    for package, folder in sorted(package_dir.items()):
        if package:
            roots.append((folder, package.replace(".", "/")))
    return tuple(roots)


def tracked_files(root: Path, folder: Path, rev: str = "HEAD") -> list[str]:
    """The files git has under folder at rev, relative to it, sorted."""
    out = subprocess.run(["git", "-C", str(root), "ls-tree", "-r", "-z", "--name-only", rev, "--",
                          str(folder.relative_to(root))], check=True, capture_output=True, text=True).stdout
    prefix = str(folder.relative_to(root)) + "/"
    return sorted(path.removeprefix(prefix) for path in out.split("\0") if path)


def source_date_epoch(root: Path, rev: str = "HEAD") -> int:
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct", rev], check=True,
                         capture_output=True, text=True).stdout
    return int(out.strip())


def stage(root: Path, package: Package, dest: Path, rev: str) -> None:
    """Writes the package's files as commit rev has them into dest; a symlink (LICENSE) becomes its target's bytes.

    The commit, not the working tree: a build is a function of the commit it is dated by,
    whatever is being edited beside it.
    """
    folder = str(package.folder.relative_to(root))
    archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", rev, "--", folder, "LICENSE"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        members = {member.name: member for member in tar.getmembers()}
        for name, member in sorted(members.items()):
            if not name.startswith(folder + "/") or member.isdir():
                continue
            source = member
            for _ in range(8):  # a bound on symlink chains
                if not source.issym():
                    break
                source = members[os.path.normpath(os.path.join(os.path.dirname(source.name), source.linkname))]
            assert source.isfile(), f"{name}: not a file at {rev}"
            target = dest / name[len(folder) + 1:]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(source).read())
            target.chmod(0o755 if source.mode & 0o111 else 0o644)


def build_one(root: Path, package: Package, out: Path, epoch: int, python: str, rev: str) -> None:
    with tempfile.TemporaryDirectory(prefix="eutaxy-stage-") as tmp:
        # The same staged path in every build, so nothing path-dependent can differ between two.
        staged = Path(tmp) / package.folder.name
        stage(root, package, staged, rev)
        env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "PYTHONSTARTUP"}}
        env.update(SOURCE_DATE_EPOCH=str(epoch), PYTHONHASHSEED="0", TZ="UTC", LC_ALL="C.UTF-8")
        result = subprocess.run([python, "-m", "build", "--no-isolation", "--outdir", str(out), str(staged)],
                                capture_output=True, text=True, env=env, cwd=tmp)
        if result.returncode != 0:
            raise BuildError(f"{package.name} did not build:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


def normalise_sdist(path: Path, epoch: int) -> Path:
    """Rewrites an sdist reproducibly, under its normalised name; returns the new path.

    Entries in name order, owned by root, mode 644 or 755, dated epoch, in a gzip
    header dated epoch with no file name. setuptools 65.5 names the file and its top
    folder ``eutaxy-core-0.1.0``; both become ``eutaxy_core-0.1.0``, the name
    (PEP 625) the index expects and the wheel already has.
    """
    old_prefix = path.name.removesuffix(".tar.gz")
    name, _, version = old_prefix.rpartition("-")
    new_prefix = f"{name.replace('-', '_').replace('.', '_').lower()}-{version}"
    with tarfile.open(path, "r:gz") as source:
        members = sorted(source.getmembers(), key=lambda member: member.name)
        contents = {m.name: source.extractfile(m).read() for m in members if m.isfile()}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as target:
        for member in members:
            original = member.name
            assert original == old_prefix or original.startswith(old_prefix + "/"), original
            member.name = new_prefix + original[len(old_prefix):]
            member.mtime = epoch
            member.uid = member.gid = 0
            member.uname = member.gname = ""
            member.pax_headers = {}
            if member.isdir():
                member.mode = 0o755
                target.addfile(member)
            elif member.isfile():
                member.mode = 0o755 if member.mode & 0o111 else 0o644
                target.addfile(member, io.BytesIO(contents[original]))
    renamed = path.with_name(new_prefix + ".tar.gz")
    with open(renamed, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=epoch, compresslevel=9) as zipped:
        zipped.write(buffer.getvalue())
    if renamed != path:
        path.unlink()
    return renamed


def build_all(root: Path, out: Path, epoch: int, rev: str = "HEAD", python: str = sys.executable) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(PARALLEL_BUILDS) as pool:
        for future in [pool.submit(build_one, root, package, out, epoch, python, rev) for package in packages(root, rev)]:
            future.result()
    for sdist in sorted(out.glob("*.tar.gz")):
        normalise_sdist(sdist, epoch)
    files = sorted(out.glob("*.whl")) + sorted(out.glob("*.tar.gz"))
    (out / "SHA256SUMS").write_text("".join(f"{sha256(path)}  {path.name}\n" for path in sorted(files)))
    return files


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def differences(first: Path, second: Path) -> list[str]:
    """The files two builds do not agree on, by name and SHA-256."""
    a = {p.name: sha256(p) for p in first.iterdir() if p.is_file()}
    b = {p.name: sha256(p) for p in second.iterdir() if p.is_file()}
    found = [f"{name}: only in one build" for name in sorted(set(a) ^ set(b))]
    found += [f"{name}: {a[name][:16]}… vs {b[name][:16]}…" for name in sorted(set(a) & set(b)) if a[name] != b[name]]
    return found


def content_problems(root: Path, out: Path, rev: str = "HEAD") -> list[str]:
    """What a wheel or sdist lacks or carries that it should not; empty when all is well."""
    found = []
    for package in packages(root, rev):
        stem = package.name.replace("-", "_")
        wheels = [p for p in out.glob("*.whl") if p.name.split("-")[0] == stem]
        sdists = [p for p in out.glob("*.tar.gz") if p.name.removesuffix(".tar.gz").rpartition("-")[0] == stem]
        if len(wheels) != 1 or len(sdists) != 1:
            found.append(f"{package.name}: expected one wheel and one sdist in {out}, found {len(wheels)} and {len(sdists)}")
            continue
        with zipfile.ZipFile(wheels[0]) as wheel:
            names = set(wheel.namelist())
            metadata_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
            metadata = Parser().parsestr(wheel.read(metadata_name).decode())
        for relative in tracked_files(root, package.folder, rev):
            wheel_path = _wheel_path(package, relative)
            if wheel_path is not None and wheel_path not in names:
                found.append(f"{wheels[0].name}: lacks {wheel_path} (from packages/{package.folder.name}/{relative})")
        for name in sorted(names):
            for pattern in FORBIDDEN_IN_WHEEL:
                if fnmatch.fnmatch(name, pattern):
                    found.append(f"{wheels[0].name}: carries {name}, which matches {pattern!r} (not a runtime file)")
                    break
        found += [f"{wheels[0].name}: {line}" for line in _metadata_problems(package, metadata, names)]
        with tarfile.open(sdists[0]) as sdist:
            members = {m.name.split("/", 1)[-1] for m in sdist.getmembers()}
        for needed in ("README.md", "LICENSE", "pyproject.toml", "PKG-INFO"):
            if needed not in members:
                found.append(f"{sdists[0].name}: lacks {needed}")
        for name in sorted(members):
            if fnmatch.fnmatch(name, "*__pycache__*") or name.endswith(".pyc"):
                found.append(f"{sdists[0].name}: carries {name}")
    return found


def _wheel_path(package: Package, relative: str) -> str | None:
    """Where a tracked runtime file lands in the wheel, or None for a file that is not installed."""
    for folder, prefix in sorted(package.roots, key=lambda r: -len(r[0])):
        if relative.startswith(folder + "/"):
            inner = relative[len(folder) + 1:]
            if any(fnmatch.fnmatch("/" + relative, pattern) for pattern in NOT_RUNTIME):
                return None
            return f"{prefix}/{inner}" if prefix else inner
    return None


def _metadata_problems(package: Package, metadata, names: set[str]) -> list[str]:
    found = []
    if metadata.get("Description-Content-Type") != "text/markdown":
        found.append(f"long description is {metadata.get('Description-Content-Type')!r}, expected its README.md (text/markdown)")
    if package.name not in (metadata.get_payload() or ""):
        found.append("long description does not name the distribution; expected packages/<name>/README.md")
    if not metadata.get("License") and not metadata.get("License-Expression"):
        found.append("no License field")
    if not any(name.endswith(".dist-info/LICENSE") or "/licenses/" in name for name in names):
        found.append("no LICENSE file in .dist-info")
    classifiers = metadata.get_all("Classifier") or []
    found += [f"lacks the classifier {c!r}" for c in REQUIRED_CLASSIFIERS if c not in classifiers]
    urls = [value.split(",", 1)[0].strip() for value in metadata.get_all("Project-URL") or []]
    found += [f"lacks the project URL {label!r}" for label in REQUIRED_URLS if label not in urls]
    return found


def run_tool(*command: str) -> str | None:
    """Runs a checker; its output when it fails, else None."""
    result = subprocess.run(list(command), capture_output=True, text=True)
    return None if result.returncode == 0 else (result.stdout + result.stderr).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="the folder for the ten wheels and ten sdists (emptied first)")
    parser.add_argument("--rev", default="HEAD", help="the commit to build (default HEAD; the working tree's edits are not built)")
    parser.add_argument("--twice", action="store_true", help="build a second time and require identical bytes")
    parser.add_argument("--no-checks", action="store_true", help="skip twine, check-wheel-contents and the content check")
    args = parser.parse_args(argv)
    out = args.out.absolute()
    if out.exists():
        shutil.rmtree(out)
    # One commit for every step: HEAD may move (another commit lands) while this runs.
    args.rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{args.rev}^{{commit}}"],
                              check=True, capture_output=True, text=True).stdout.strip()
    epoch = source_date_epoch(ROOT, args.rev)
    started = time.monotonic()
    try:
        files = build_all(ROOT, out, epoch, args.rev)
        print(f"built {len(files)} files of {args.rev[:12]} into {out} (SOURCE_DATE_EPOCH={epoch}) "
              f"in {time.monotonic() - started:.1f} s")
        if args.twice:
            with tempfile.TemporaryDirectory(prefix="eutaxy-build-again-") as again:
                build_all(ROOT, Path(again), epoch, args.rev)
                differ = differences(out, Path(again))
            if differ:
                print("build: two builds differ:\n  " + "\n  ".join(differ), file=sys.stderr)
                return 1
            print(f"built again: all {len(files)} files byte-identical ({time.monotonic() - started:.1f} s in all)")
    except BuildError as error:
        print(f"build: {error}", file=sys.stderr)
        return 2
    if args.no_checks:
        return 0
    failures = []
    bin_dir = Path(sys.executable).parent
    dists = [str(path) for path in files]
    wheels = [str(path) for path in files if path.suffix == ".whl"]
    for label, command in (("twine check --strict", [str(bin_dir / "twine"), "check", "--strict", *dists]),
                           ("check-wheel-contents", [str(bin_dir / "check-wheel-contents"), *wheels])):
        output = run_tool(*command)
        if output is not None:
            failures.append(f"{label} failed:\n{output}")
    problems = content_problems(ROOT, out, args.rev)
    if problems:
        failures.append("wheel contents:\n  " + "\n  ".join(problems))
    for failure in failures:
        print(f"build: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"checked: twine check --strict, check-wheel-contents and the runtime-file check pass for {len(wheels)} wheels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
