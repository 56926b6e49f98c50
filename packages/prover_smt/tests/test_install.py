"""``eutaxy prover install smt``: the pinned wheel checked by SHA-256 before it is unpacked; status and install agree."""

import zipfile

import pytest

from eutaxy.prover.toolchains import InstallError, install_dir
from eutaxy.prover_smt import toolchain


def _fake_wheel(folder):
    """A wheel of the pinned name and version whose bytes are not the pinned wheel's."""
    path = folder / "z3_solver-5.4.1.0-py3-none-manylinux_2_27_x86_64.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("z3/__init__.py", "raise ImportError('not z3')\n")
        wheel.writestr("z3_solver-5.4.1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: z3-solver\nVersion: 5.4.1.0\n")
        wheel.writestr("z3_solver-5.4.1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nTag: py3-none-manylinux_2_27_x86_64\n")
        wheel.writestr("z3_solver-5.4.1.0.dist-info/RECORD", "")
    return path


def test_a_wheel_with_another_digest_is_deleted_and_nothing_installed(tmp_path, monkeypatch):
    """--from a folder holding a wheel of the pinned name but other bytes: refused, the cache left empty."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(toolchain, "_LOADED", "Z3 5.4.1 is not installed; run `eutaxy prover install smt`")
    offline = tmp_path / "offline"
    offline.mkdir()
    _fake_wheel(offline)
    if toolchain.platform_tag() is None:
        with pytest.raises(InstallError, match="no pinned z3-solver"):
            toolchain.install(str(offline))
        return
    with pytest.raises(InstallError, match="SHA-256 mismatch"):
        toolchain.install(str(offline))
    assert not install_dir("smt", toolchain.Z3_WHEEL_VERSION).exists()
    assert [] == list((tmp_path / "cache" / "downloads").iterdir())


def test_install_reports_the_z3_the_engine_uses(tmp_path, monkeypatch):
    """With the pinned Z3 importable, install fetches nothing and names the place status names."""
    monkeypatch.setenv("EUTAXY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(toolchain, "_LOADED", None)
    status = toolchain.status()
    assert status["installed"], status
    done = toolchain.install()
    assert (True, status["location"], status["source"]) == (done["already"], done["location"], done["source"])
    assert not (tmp_path / "cache" / "toolchains").exists()
