"""A user's install, proven offline: ``pip install eutaxy`` from a folder, then a real check.

    tools/release/install_check.py [--dist DIR] [--wheel-cache DIR] [--keep]

1. The ten distributions (``--dist``, as tools/release/build.py left them, or
   built here) and, beside them, the third-party wheels requirements.lock pins,
   form one folder: a package index on disk. The third-party wheels are fetched
   once with ``pip download --require-hashes`` into a cache (``--wheel-cache``,
   else ``$XDG_CACHE_HOME/eutaxy/release-wheels``) and reused: a pin whose file
   is already there, with one of the lock's SHA-256s, is not fetched again.
2. A fresh venv (no checkout on any path: an empty working directory outside the
   checkout, no PYTHONPATH, no user site, no pip configuration) gets
   ``pip install --no-index --find-links <folder> eutaxy``; ``pip check`` must pass,
   every ``eutaxy.*`` module must load from the venv and nothing on ``sys.path``
   may lie in the checkout, and ``eutaxy --version`` must print VERSION.
3. ``eutaxy toolchain install`` (the pinned Node toolchain into Eutaxy's usual
   cache, a no-op when there) and ``eutaxy check orders.sim.py`` on a copy of
   examples/orders in an empty temporary folder must give the verdict the
   example's README shows: ``BOUNDED  orders (cloudflare): bounded, not verified``,
   exit 0, and write nothing into the copy.

Run by tools/test, outside Bazel: the first run needs the package index (pip
download) and npm (the toolchain), and it reuses caches outside any sandbox.
Exit 0 passed, 1 the install or the check did not do what a user is promised,
2 could not run (no network for a first download, no Python).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import versions  # noqa: E402 - after sys.path gets this folder

ROOT = Path(__file__).resolve().parents[2]
#: The verdict line examples/orders/README.md shows.
EXPECTED_VERDICT = "BOUNDED  orders (cloudflare): bounded, not verified"
#: The ten top-level modules a user's install provides, each from the venv.
MODULES = ("eutaxy.spec", "eutaxy.core", "eutaxy.engine", "eutaxy.cloudflare", "eutaxy.aws", "eutaxy.prover",
           "eutaxy.prover_smt", "eutaxy.prover_lean", "eutaxy.report", "eutaxy.cli")
#: Bounds on the steps that could hang: pip, the toolchain's npm, the check.
INSTALL_TIMEOUT_S = 900
CHECK_TIMEOUT_S = 600


class Failed(Exception):
    """What a user would have met; the message says which step and shows its output."""


class CannotRun(Exception):
    """The check could not be set up (a first download failed); not a verdict on the install."""


def lock_pins(lock: Path) -> dict[str, tuple[str, set[str]]]:
    """name -> (version, SHA-256s) for every pin of a pip-compile --generate-hashes lock."""
    pins: dict[str, tuple[str, set[str]]] = {}
    current = None
    for line in lock.read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            name, _, version = line.split(" ", 1)[0].partition("==")
            current = name.lower()
            pins[current] = (version, set())
        if current is not None:
            pins[current][1].update(re.findall(r"--hash=sha256:([0-9a-f]{64})", line))
    return pins


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


#: Beside the cached wheels: name -> size, mtime and SHA-256, so a rerun hashes only what changed.
DIGESTS = "digests.json"


def _digests(cache: Path) -> dict[str, Path]:
    """SHA-256 -> file for every wheel or archive in the cache, rehashing only files whose size or mtime moved."""
    manifest_path = cache / DIGESTS
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    fresh, by_hash = {}, {}
    for path in sorted(cache.iterdir()):
        if not path.name.endswith((".whl", ".tar.gz", ".zip")):
            continue
        stat = path.stat()
        known = manifest.get(path.name)
        if known and known["size"] == stat.st_size and known["mtime_ns"] == stat.st_mtime_ns:
            digest = known["sha256"]
        else:
            digest = _sha256(path)
        fresh[path.name] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": digest}
        by_hash[digest] = path
    manifest_path.write_text(json.dumps(fresh, indent=1, sort_keys=True) + "\n")
    return by_hash


def third_party_wheels(lock: Path, cache: Path, python: str) -> list[Path]:
    """One cached file per pin of the lock, each with one of its hashes; fetches the missing ones once."""
    pins = lock_pins(lock)
    cache.mkdir(parents=True, exist_ok=True)
    by_hash = _digests(cache)
    missing = {name: pin for name, pin in pins.items() if not pin[1] & set(by_hash)}
    if missing:
        requirements = cache / ".missing-requirements.txt"
        requirements.write_text("".join(f"{name}=={version} " + " ".join(f"--hash=sha256:{h}" for h in sorted(hashes))
                                        + "\n" for name, (version, hashes) in sorted(missing.items())))
        print(f"install_check: fetching {len(missing)} pinned wheel(s) into {cache} (once)", file=sys.stderr)
        result = subprocess.run([python, "-m", "pip", "download", "--disable-pip-version-check", "-q", "--no-deps",
                                 "--only-binary=:all:", "--require-hashes", "-r", str(requirements), "-d", str(cache)],
                                capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        requirements.unlink()
        if result.returncode != 0:
            raise CannotRun(f"pip download of the lock's pins failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
        by_hash = _digests(cache)
    chosen = []
    for name, (version, hashes) in sorted(pins.items()):
        found = sorted(by_hash[h] for h in hashes & set(by_hash))
        if not found:
            raise CannotRun(f"{name}=={version}: no file with one of the lock's hashes in {cache} after pip download")
        chosen.append(found[0])
    return chosen


def clean_env() -> dict[str, str]:
    """The environment a user's shell would give: no Python, pip or Eutaxy overrides from this checkout."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "PIP_", "EUTAXY_NODE", "VIRTUAL_ENV", "BAZEL", "TEST_", "RUNFILES"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1",
               PYTHONDONTWRITEBYTECODE="1")
    return env


def run(step: str, command: list[str], *, cwd: Path, env: dict[str, str], timeout: int,
        codes: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if result.returncode not in codes:
        raise Failed(f"{step}: `{' '.join(command)}` exited {result.returncode} in {cwd}\n"
                     f"--- stdout\n{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}")
    return result


def check(dist: Path, wheel_cache: Path, work: Path) -> list[str]:
    """Steps 1 to 3 in work (empty, outside the checkout); returns what was measured, one line each."""
    measured = []
    ours = sorted(dist.glob("*.whl")) + sorted(dist.glob("*.tar.gz"))
    if len(ours) != 20:
        raise Failed(f"{dist}: expected the ten wheels and ten sdists, found {len(ours)} files")
    index = work / "index"
    index.mkdir()
    started = time.monotonic()
    for path in ours + third_party_wheels(ROOT / "requirements.lock", wheel_cache, sys.executable):
        try:
            os.link(path, index / path.name)  # the cache and the temp folder usually share a file system
        except OSError:
            shutil.copyfile(path, index / path.name)
    measured.append(f"index folder: {len(list(index.iterdir()))} files in {time.monotonic() - started:.1f} s")

    env = clean_env()
    home = work / "home"
    home.mkdir()
    venv = work / "venv"
    started = time.monotonic()
    base_python = getattr(sys, "_base_executable", sys.executable)
    run("venv", [base_python, "-m", "venv", str(venv)], cwd=home, env=env, timeout=INSTALL_TIMEOUT_S)
    python, eutaxy = str(venv / "bin" / "python3"), str(venv / "bin" / "eutaxy")
    # --no-compile: byte-compiling botocore's thousands of modules is most of the time and no part of the check.
    run("pip install", [python, "-m", "pip", "install", "-q", "--no-compile", "--no-index", "--find-links", str(index),
                        "eutaxy"],
        cwd=home, env=env, timeout=INSTALL_TIMEOUT_S)
    run("pip check", [python, "-m", "pip", "check"], cwd=home, env=env, timeout=120)
    measured.append(f"pip install --no-index --find-links <folder> eutaxy: {time.monotonic() - started:.1f} s")

    probe = ("import importlib, json, sys\n"
             f"modules = {list(MODULES)!r}\n"
             "print(json.dumps({'path': sys.path, 'files': {m: importlib.import_module(m).__file__ for m in modules}}))\n")
    seen = json.loads(run("import", [python, "-c", probe], cwd=home, env=env, timeout=120).stdout)
    root = str(ROOT)
    on_path = [entry for entry in seen["path"] if entry and (entry == root or entry.startswith(root + os.sep))]
    if on_path:
        raise Failed(f"the checkout is on the installed Python's path: {on_path}")
    site = str(venv)
    outside = {m: f for m, f in seen["files"].items() if not f or not f.startswith(site + os.sep)}
    if outside:
        raise Failed(f"modules not loaded from the venv: {outside}")
    version = run("--version", [eutaxy, "--version"], cwd=home, env=env, timeout=60).stdout.strip()
    if version != f"eutaxy {versions.read_version(ROOT)}":
        raise Failed(f"eutaxy --version says {version!r}, expected 'eutaxy {versions.read_version(ROOT)}'")

    started = time.monotonic()
    toolchain = run("eutaxy toolchain install", [eutaxy, "toolchain", "install"], cwd=home, env=env,
                    timeout=INSTALL_TIMEOUT_S)
    measured.append(f"eutaxy toolchain install: {time.monotonic() - started:.1f} s "
                    f"({toolchain.stdout.strip().splitlines()[0] if toolchain.stdout.strip() else 'no output'})")

    project = work / "empty" / "orders"
    project.parent.mkdir()
    shutil.copytree(ROOT / "examples" / "orders", project)
    before = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    started = time.monotonic()
    result = run("eutaxy check", [eutaxy, "check", "orders.sim.py"], cwd=project, env=env, timeout=CHECK_TIMEOUT_S,
                 codes=(0, 1, 2, 3))
    first = result.stdout.splitlines()[0] if result.stdout else ""
    if result.returncode != 0 or first != EXPECTED_VERDICT:
        raise Failed(f"eutaxy check orders.sim.py exited {result.returncode} with {first!r}; expected exit 0 and "
                     f"{EXPECTED_VERDICT!r}\n--- stdout\n{result.stdout[-4000:]}\n--- stderr\n{result.stderr[-4000:]}")
    after = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    if after != before:
        raise Failed(f"eutaxy check wrote into the project: {sorted(set(after) - set(before))}")
    measured.append(f"eutaxy check orders.sim.py: exit 0, {first!r}, {time.monotonic() - started:.1f} s")
    return measured


def default_wheel_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "eutaxy" / "release-wheels"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, help="the ten wheels and sdists (default: build them here)")
    parser.add_argument("--wheel-cache", type=Path, default=default_wheel_cache())
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and say where")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="eutaxy-install-check-"))
    assert not str(work).startswith(str(ROOT)), work
    try:
        dist = args.dist.absolute() if args.dist else work / "dist"
        if args.dist is None:
            subprocess.run([sys.executable, str(ROOT / "tools/release/build.py"), "--out", str(dist), "--no-checks"],
                           check=True)
        for line in check(dist, args.wheel_cache.absolute(), work):
            print(f"install_check: {line}")
    except CannotRun as error:
        print(f"install_check: could not run: {error}", file=sys.stderr)
        return 2
    except (Failed, subprocess.TimeoutExpired, subprocess.CalledProcessError) as error:
        print(f"install_check: FAILED: {error}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"install_check: kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("install_check: ok: eutaxy installed offline from the folder, and checked examples/orders as the README shows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
