"""Makes a Python environment from requirements.lock, every distribution hash-checked.

The one way this repository makes a venv: Bazel's Python toolchain (inside the
output base, tools/bazel/python_toolchain.bzl), the checkout's .venv that
tools/check runs in (tools/setup.sh) and the release workflow's build venv. pip installs the lock in hash-checking mode
(--require-hashes): a distribution whose SHA-256 is not one the lock lists for it
is refused before anything is installed, and the error names the package. Every
dependency must be pinned in the lock too, or pip refuses the lock.

    python3.11 tools/bazel/make_venv.py --lock requirements.lock --dest DIR [--reuse]

Run it with the interpreter the venv is for (tools/bazel/find_python.sh picks it).
--reuse keeps DIR when it was made from the same lock by the same interpreter.
Exit 0 made (or kept), 1 pip refused or failed, 2 bad arguments.
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
import venv
from pathlib import Path

#: Written into the venv: what it was made from, for --reuse.
STAMP = "eutaxy-venv.json"


class VenvError(Exception):
    """pip refused the lock or failed; the message says why, naming the packages."""


def identity(lock: Path) -> dict[str, str]:
    return {
        "lock_sha256": hashlib.sha256(lock.read_bytes()).hexdigest(),
        "python": os.path.realpath(sys.executable),
        "version": sys.version,
    }


def up_to_date(dest: Path, lock: Path) -> bool:
    """dest was made from this lock by this interpreter."""
    return _read_json(dest / STAMP) == identity(lock)


def create(dest: Path, lock: Path, pip_args: tuple[str, ...] = ()) -> None:
    """Makes dest afresh from lock, with the interpreter running this."""
    if dest.exists():
        shutil.rmtree(dest)
    venv.create(dest, with_pip=True, symlinks=True)
    install(dest / "bin" / "python3", lock, pip_args)
    (dest / STAMP).write_text(json.dumps(identity(lock), indent=1) + "\n")


def install(python: Path, lock: Path, pip_args: tuple[str, ...] = ()) -> None:
    """pip install -r lock into python's environment, in hash-checking mode."""
    cmd = [str(python), "-m", "pip", "install", "--require-hashes", "--no-input",
           "--disable-pip-version-check", "-q", *pip_args, "-r", str(lock)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise VenvError(explain(result.stdout + result.stderr, lock))


def hash_mismatches(pip_output: str) -> list[str]:
    """'NAME==VERSION (line N)' for each distribution pip refused for its hash."""
    if "DO NOT MATCH THE HASHES" not in pip_output:
        return []
    found = []
    for match in re.finditer(r"^\s+(\S+==\S+) from .*?\(line (\d+)\)\)?:$", pip_output, re.MULTILINE):
        found.append(f"{match.group(1)} (line {match.group(2)})")
    return found


def explain(pip_output: str, lock: Path) -> str:
    lines = [line for line in pip_output.splitlines() if line.strip() and "is ignored" not in line]
    details = "\n".join(lines[-40:])
    refused = hash_mismatches(pip_output)
    if refused:
        return (f"{lock}: pip refused {', '.join(refused)}: the downloaded file's SHA-256 is none of "
                f"the lock's for it (a changed or tampered distribution, or a wrong lock entry; "
                f"regenerate the lock with tools/lock if the pin changed on purpose)\n{details}")
    return f"{lock}: pip could not install the lock\n{details}"


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lock", required=True, type=Path)
    parser.add_argument("--dest", required=True, type=Path)
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args(argv)
    if not args.lock.is_file():
        print(f"make_venv: no lock file at {args.lock}", file=sys.stderr)
        return 2
    dest = args.dest.absolute()
    if args.reuse and up_to_date(dest, args.lock):
        return 0
    print(f"== making {dest} from {args.lock} with Python {sys.version.split()[0]} ({sys.executable})",
          file=sys.stderr)
    try:
        create(dest, args.lock)
    except VenvError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
