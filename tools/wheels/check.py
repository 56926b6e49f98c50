"""Builds every distribution's wheel and installs `eutaxy` from them into a fresh venv.

This is the documented pip install (README "Install"), checked: the ten wheels
are built from the checkout; a new venv is made from requirements.lock the way
every venv here is (tools/bazel/make_venv.py: each distribution hash-checked),
the ten wheels go in beside it, `pip check` must find every dependency they
declare satisfied by the lock's pins, and `eutaxy --version` and `eutaxy --help`
must work. Run by tools/test, outside Bazel, because pip needs the package index
for third-party wheels.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "bazel"))

import make_venv  # noqa: E402

#: Files beside the Python code that an installed Eutaxy needs (paths under site-packages/eutaxy).
PACKAGE_DATA = [
    "cloudflare/runtime/host.mjs",
    "cloudflare/runtime/entry.mjs",
    "cloudflare/runtime/host/bundler.mjs",
    "cloudflare/node/package-lock.json",
    "cloudflare/node/sha256.json",
    "core/prng_vectors.json",
    "prover/reader/reader.mjs",
    "prover/reader/evaluator.mjs",
    "prover/reader/bodies.mjs",
    "prover/reader/eval_worker.mjs",
    "spec/js/spec.js",
    "spec/js/spec.d.ts",
    "spec/js/package.json",
]


def run(*cmd: str | Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], check=True, text=True, capture_output=True, **kw)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="eutaxy-wheels-") as tmp:
        dist, env = Path(tmp) / "dist", Path(tmp) / "venv"
        packages = sorted(p for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").exists())
        for pkg in packages:
            with tempfile.TemporaryDirectory(prefix="eutaxy-build-") as build:
                # Build from a copy so no build/ or egg-info lands in the checkout.
                run("cp", "-r", pkg, build)
                run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", dist, Path(build) / pkg.name)
        wheels = sorted(dist.glob("*.whl"))
        assert len(wheels) == len(packages), f"built {len(wheels)} wheels for {len(packages)} packages"
        make_venv.create(env, ROOT / "requirements.lock")
        py = env / "bin" / "python3"
        run(py, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "--no-index", *wheels)
        run(py, "-m", "pip", "check")
        version = run(env / "bin" / "eutaxy", "--version").stdout.strip()
        assert version == "eutaxy 0.1.0", version
        help_text = run(env / "bin" / "eutaxy", "--help").stdout
        assert "check" in help_text, help_text
        site = Path(run(py, "-c", "import eutaxy.cli, os; print(os.path.dirname(os.path.dirname(eutaxy.cli.__file__)))").stdout.strip())
        shipped = [site / rel for rel in PACKAGE_DATA]
        absent = [str(path) for path in shipped if not path.is_file()]
        assert not absent, f"package data missing from the wheels: {absent}"
        installed = run(py, "-m", "pip", "list", "--format=freeze").stdout
        missing = [p.name for p in packages if f"{_dist_name(p)}==0.1.0" not in installed]
        assert not missing, f"not installed from the wheels: {missing}"
    print(f"ok: {len(wheels)} wheels built; `eutaxy` installed in a fresh venv; --version says {version!r}")
    return 0


def _dist_name(pkg: Path) -> str:
    import tomllib
    return tomllib.loads((pkg / "pyproject.toml").read_text())["project"]["name"]


if __name__ == "__main__":
    sys.exit(main())
