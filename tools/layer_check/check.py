"""Shows the layer rule failing `bazel build`, not only a test.

Copies the checkout (tracked and new files, not ignored ones) to a scratch
directory, builds //packages/core/... there (it must pass), plants
`import eutaxy.engine` in core and builds again: the build must fail with the
file, the line, the import and the rule. Uses its own Bazel output base and shuts
that server down afterwards. Run by tools/test.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLANTED = "packages/core/src/eutaxy/core/_planted.py"


def copy_checkout(dest: Path) -> None:
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, check=True, capture_output=True,
    ).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def python_repository() -> list[str]:
    """The checkout's own Python toolchain repository, if Bazel has made it, for the copy to use.

    Saves making a second venv from the same lock (minutes); the layer rule does not depend on it.
    """
    found = subprocess.run(["bazel", "info", "output_base"], cwd=ROOT, capture_output=True, text=True)
    repo = Path(found.stdout.strip()) / "external" / "eutaxy_python"
    if found.returncode != 0 or not (repo / "venv" / "eutaxy-venv.json").is_file():
        return []
    return [f"--override_repository=eutaxy_python={repo}"]


def bazel(scratch: Path, output_base: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bazel", f"--output_base={output_base}", *args],
        cwd=scratch, capture_output=True, text=True,
    )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="eutaxy-layers-") as tmp:
        scratch, output_base = Path(tmp) / "tree", Path(tmp) / "output_base"
        copy_checkout(scratch)
        build = ["build", *python_repository(), "//packages/core/..."]
        try:
            clean = bazel(scratch, output_base, *build)
            if clean.returncode != 0:
                print(clean.stderr[-3000:], file=sys.stderr)
                print("FAIL: the real tree does not build", file=sys.stderr)
                return 1
            (scratch / PLANTED).write_text('"""A planted layer violation."""\n\nimport eutaxy.engine\n')
            planted = bazel(scratch, output_base, *build)
        finally:
            bazel(scratch, output_base, "shutdown")
        expected = f"{PLANTED}:3: `import eutaxy.engine` breaks the layer rule: core may import only spec"
        if planted.returncode == 0 or expected not in planted.stderr:
            print(planted.stderr[-3000:], file=sys.stderr)
            print(f"FAIL: the planted import did not fail the build with: {expected}", file=sys.stderr)
            return 1
    print("ok: the real tree builds; a planted `import eutaxy.engine` in core fails bazel build with:")
    print("  " + expected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
