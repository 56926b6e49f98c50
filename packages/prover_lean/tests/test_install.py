"""``eutaxy prover install lean``'s machinery on local archives the tests build (no Lean can be fetched here).

The release table is held to the pin; an install checks the SHA-256 before
anything is unpacked (a mismatch deletes the download and installs nothing);
an archive entry that would escape the toolchain folder (an absolute path,
``..``, a link pointing out) refuses the whole archive; an installed toolchain
is what the engine and the status find, and is not fetched again.
"""

import hashlib
import io
import json
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from eutaxy.prover.toolchains import InstallError, ReleaseFile, install_dir, install_release
from eutaxy.prover_lean import toolchain
from eutaxy.prover_lean.toolchain import LEAN_VERSION, find_lean, release_files, status

HERE = Path(__file__).resolve().parent
PLATFORMS = {"linux-x64", "linux-arm64", "macos-x64", "macos-arm64", "windows-x64"}


def _lean_script() -> bytes:
    plan = json.dumps({"version": LEAN_VERSION})
    return (f"#!{sys.executable}\nimport sys\nprint('Lean (version {LEAN_VERSION}, stand-in, Release)')\n"
            f"# plan {plan}\n").encode()


def _add(tar, name, data=b"", kind=tarfile.REGTYPE, link="", mode=0o644):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode, info.size = kind, link, mode, len(data) if kind == tarfile.REGTYPE else 0
    tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def _archive(folder: Path, name: str, extra=()) -> Path:
    """A release-shaped archive: one top folder with bin/lean (a stand-in answering --version) and lib/."""
    path = folder / name
    top = f"lean-{LEAN_VERSION}-test"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        _add(tar, f"{top}/bin/lean", _lean_script(), mode=0o755)
        _add(tar, f"{top}/lib/lean/Init.olean", b"stand-in")
        _add(tar, f"{top}/bin/lean-link", kind=tarfile.SYMTYPE, link="lean")
        for member in extra:
            _add(tar, *member)
    data = raw.getvalue()
    if name.endswith(".tar.zst"):
        path.write_bytes(subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout)
    else:
        import gzip

        path.write_bytes(gzip.compress(data))
    return path


def _release(path: Path, digest=None) -> ReleaseFile:
    return ReleaseFile(platform="test", file=path.name, url="https://example.invalid/" + path.name,
                       sha256=digest or hashlib.sha256(path.read_bytes()).hexdigest(), size=None)


def test_the_table_is_held_to_the_pin():
    """Five platforms, each file of the pinned release under its release URL; a digest is 64 hex digits or none."""
    files = release_files()
    assert PLATFORMS == set(files)
    for key, entry in files.items():
        assert LEAN_VERSION in entry.file, key
        assert entry.url.endswith(f"/v{LEAN_VERSION}/{entry.file}"), key
        assert entry.sha256 is None or re.fullmatch(r"[0-9a-f]{64}", entry.sha256), key
        assert entry.file.endswith(".zip" if key.startswith("windows") else ".tar.zst"), key
    assert None is files["windows-x64"].sha256, "no verified digest was found for the Windows file"


def test_an_entry_without_a_verified_digest_is_never_installed(clean_env, tmp_path):
    """The Windows entry has no digest: the loader refuses it before fetching anything."""
    offline = tmp_path / "offline"
    offline.mkdir()
    (offline / f"lean-{LEAN_VERSION}-windows.zip").write_bytes(b"anything")
    with pytest.raises(InstallError, match="no verified SHA-256"):
        toolchain.install(str(offline), platform="windows-x64")
    assert not install_dir("lean", LEAN_VERSION).exists()


@pytest.mark.parametrize("suffix", [".tar.gz", ".tar.zst"])
def test_a_good_archive_is_installed_found_and_not_fetched_again(clean_env, tmp_path, suffix):
    """Checked, unpacked beside its marker, the archive deleted; the engine and status find it in the cache."""
    if suffix == ".tar.zst" and shutil.which("zstd") is None:
        pytest.fail("this machine's zstd tool is needed to build the .tar.zst archive (apt-get install zstd)")
    offline = tmp_path / "offline"
    offline.mkdir()
    archive = _archive(offline, f"lean-{LEAN_VERSION}-test{suffix}")
    done = install_release("lean", LEAN_VERSION, _release(archive), str(offline))
    assert not done["already"]
    folder = install_dir("lean", LEAN_VERSION)
    marker = json.loads((folder / "eutaxy-toolchain.json").read_text())
    assert (archive.name, hashlib.sha256(archive.read_bytes()).hexdigest()) == (marker["file"], marker["sha256"])
    assert [] == list((clean_env / "cache" / "downloads").iterdir()), "the archive is deleted once unpacked"
    assert (folder / f"lean-{LEAN_VERSION}-test" / "bin" / "lean-link").is_symlink()
    found = find_lean()
    assert ("cache", LEAN_VERSION) == (found.source, found.version)
    again = toolchain.install(str(offline))
    assert (True, "cache") == (again["already"], again["source"])
    assert status()["location"] == again["location"] == str(found.lean)


def test_a_wrong_digest_deletes_the_download_and_installs_nothing(clean_env, tmp_path):
    """The digest is checked before unpacking: a mismatch names both digests and leaves nothing behind."""
    offline = tmp_path / "offline"
    offline.mkdir()
    archive = _archive(offline, f"lean-{LEAN_VERSION}-test.tar.gz")
    with pytest.raises(InstallError, match="SHA-256 mismatch .* expected 0{64}, got [0-9a-f]{64}"):
        install_release("lean", LEAN_VERSION, _release(archive, digest="0" * 64), str(offline))
    assert [] == list((clean_env / "cache" / "downloads").iterdir())
    assert not install_dir("lean", LEAN_VERSION).exists()
    assert isinstance(find_lean(), str)


ESCAPES = {
    "dot-dot": (f"lean-{LEAN_VERSION}-test/../../evil", b"x"),
    "absolute": ("/tmp/eutaxy-evil-absolute", b"x"),
    "symlink out": (f"lean-{LEAN_VERSION}-test/bin/out", b"", tarfile.SYMTYPE, "../../../outside"),
    "absolute symlink": (f"lean-{LEAN_VERSION}-test/bin/abs", b"", tarfile.SYMTYPE, "/etc/passwd"),
    "hard link out": (f"lean-{LEAN_VERSION}-test/bin/hard", b"", tarfile.LNKTYPE, "../outside"),
}


@pytest.mark.parametrize("escape", sorted(ESCAPES))
def test_an_entry_escaping_the_toolchain_folder_refuses_the_archive(clean_env, tmp_path, escape):
    """Each escape (.., an absolute path, a link pointing out) refuses the whole archive; nothing is installed."""
    offline = tmp_path / "offline"
    offline.mkdir()
    archive = _archive(offline, f"lean-{LEAN_VERSION}-test.tar.gz", extra=[ESCAPES[escape]])
    with pytest.raises(InstallError, match="outside the toolchain folder"):
        install_release("lean", LEAN_VERSION, _release(archive), str(offline))
    assert not install_dir("lean", LEAN_VERSION).exists()
    assert not (clean_env / "cache" / "toolchains" / "evil").exists()
    assert not Path("/tmp/eutaxy-evil-absolute").exists()
    assert [] == [p for p in (clean_env / "cache" / "toolchains" / "lean").iterdir()]


def test_a_zip_entry_escaping_is_refused_too(clean_env, tmp_path):
    """A .zip (Windows' release format) with a ../ entry is refused the same way."""
    offline = tmp_path / "offline"
    offline.mkdir()
    path = offline / f"lean-{LEAN_VERSION}-test.zip"
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr(f"lean-{LEAN_VERSION}-test/bin/lean", "x")
        zipped.writestr("../evil", "x")
        link = zipfile.ZipInfo(f"lean-{LEAN_VERSION}-test/bin/out")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zipped.writestr(link, "../../..")
    with pytest.raises(InstallError, match="outside the toolchain folder"):
        install_release("lean", LEAN_VERSION, _release(path), str(offline))
    assert not install_dir("lean", LEAN_VERSION).exists()
