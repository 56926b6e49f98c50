"""Where the engines' pinned toolchains live in Eutaxy's cache, and the marker that says one is installed.

``eutaxy prover install <engine>`` unpacks a pinned release into
``<cache>/toolchains/<engine>/<version>/`` beside a marker file,
``eutaxy-toolchain.json``, naming the file it came from, its SHA-256 and the
folder inside that holds the toolchain. The marker is written last, so a
folder without one is an install that did not finish and is not used. Both
engines and the install command read installs through :func:`installed`, so
what ``prover_status`` reports and what ``prover install`` finds agree.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from pathlib import Path
from typing import IO, Any, Callable, Optional

import attrs

MARKER = "eutaxy-toolchain.json"


def cache_dir() -> Path:
    """Eutaxy's cache directory: ``EUTAXY_CACHE_DIR``, else the platform's user cache.

    ``$XDG_CACHE_HOME/eutaxy`` or ``~/.cache/eutaxy`` on Linux, ``~/Library/Caches/eutaxy``
    on macOS, ``%LOCALAPPDATA%\\eutaxy\\Cache`` on Windows.
    """
    explicit = os.environ.get("EUTAXY_CACHE_DIR")
    if explicit:
        return Path(explicit)
    import sys

    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "eutaxy"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "eutaxy" / "Cache"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "eutaxy"


def install_dir(name: str, version: str) -> Path:
    """``<cache>/toolchains/<name>/<version>``: where one pinned release is unpacked."""
    return cache_dir() / "toolchains" / name / version


def installed(name: str, version: str) -> Optional[dict[str, Any]]:
    """The marker of an installed toolchain (``file``, ``sha256``, ``location``: the folder holding it), or None."""
    folder = install_dir(name, version)
    try:
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or not isinstance(marker.get("root"), str):
        return None
    location = (folder / marker["root"]).resolve()
    if not location.is_dir() or folder.resolve() not in (location, *location.parents):
        return None
    return {**marker, "location": str(location)}


def write_marker(folder: Path, *, name: str, version: str, file: str, sha256: str, root: str,
                 source: str) -> None:
    """The marker, written last and atomically (a crash before it leaves no install)."""
    data = {"name": name, "version": version, "file": file, "sha256": sha256, "root": root, "source": source}
    tmp = folder / (MARKER + ".partial")
    tmp.write_text(json.dumps(data, sort_keys=True, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, folder / MARKER)


# ---- installing a pinned release ------------------------------------------------------------


class InstallError(Exception):
    """A pinned toolchain could not be installed; nothing was left behind."""


@attrs.frozen(kw_only=True)
class ReleaseFile:
    """One upstream release file: for which platform, its name, where it is published, its SHA-256 and size.

    ``sha256`` is None where no digest could be verified: such an entry is never installed.
    ``size`` is None where it is not known; the digest is what is checked.
    """

    platform: str
    file: str
    url: str
    sha256: Optional[str]
    size: Optional[int]


def platform_key() -> Optional[str]:
    """This machine as the release tables name it: linux-x64, linux-arm64, macos-x64, macos-arm64, windows-x64."""
    import platform
    import sys

    machine = platform.machine().lower()
    cpu = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(machine)
    system = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(sys.platform)
    if cpu is None or system is None:
        return None
    return f"{system}-{cpu}"


def release_table(path: Path) -> tuple[str, str, dict[str, ReleaseFile]]:
    """A table of upstream release files (``name``, ``version``, ``files``): by platform."""
    data = json.loads(path.read_text(encoding="utf-8"))
    files = {}
    for entry in data["files"]:
        digest = entry.get("sha256")
        assert digest is None or re.fullmatch(r"[0-9a-f]{64}", digest), f"{path}: a malformed digest for {entry['file']}"
        files[entry["platform"]] = ReleaseFile(platform=entry["platform"], file=entry["file"], url=entry["url"],
                                               sha256=digest, size=entry.get("size"))
    return data["name"], data["version"], files


#: Bytes read at a time while downloading and hashing.
CHUNK_BYTES = 1 << 20


def fetch(release: ReleaseFile, source: Optional[str], into: Path) -> Path:
    """Download (or copy) ``release`` into ``into``, checking its SHA-256 before anything reads it.

    ``source`` replaces the upstream location: a directory holding the same file name, or a
    URL (a mirror) under which the file name is looked up. A wrong digest or size deletes the
    download and raises.
    """
    import urllib.parse
    import urllib.request

    if release.sha256 is None:
        raise InstallError(f"{release.file} has no verified SHA-256 in Eutaxy's table, and Eutaxy installs no file "
                           "it cannot check; install the toolchain by hand, where the engine also looks")
    if source is None:
        url = release.url
    elif Path(source).is_dir():
        url = (Path(source).resolve() / release.file).as_uri()
    else:
        url = source.rstrip("/") + "/" + urllib.parse.quote(release.file)
    into.mkdir(parents=True, exist_ok=True)
    target = into / release.file
    partial = into / (release.file + ".partial")
    digest = hashlib.sha256()
    size = 0
    try:
        with urllib.request.urlopen(url, timeout=600) as response, open(partial, "wb") as out:
            while True:
                chunk = response.read(CHUNK_BYTES)
                if not chunk:
                    break
                digest.update(chunk)
                size += len(chunk)
                out.write(chunk)
    except (OSError, ValueError) as error:
        partial.unlink(missing_ok=True)
        raise InstallError(f"could not fetch {release.file} from {url}: {error}") from None
    actual = digest.hexdigest()
    if actual != release.sha256 or (release.size is not None and size != release.size):
        partial.unlink(missing_ok=True)
        raise InstallError(f"SHA-256 mismatch for {release.file} from {url}: expected {release.sha256}, got {actual} "
                           f"({size} bytes); the download was deleted and nothing was installed")
    os.replace(partial, target)
    return target


def _inside(path: str) -> bool:
    """A relative archive path that stays inside the folder it is unpacked into."""
    if not path or path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", path):
        return False
    parts = [p for p in re.split(r"[/\\]+", path) if p not in ("", ".")]
    depth = 0
    for part in parts:
        depth += -1 if part == ".." else 1
        if depth < 0:
            return False
    return True


def _refuse_member(name: str, kind: str, link: Optional[str]) -> Optional[str]:
    """Why an archive entry may not be unpacked (None when it may)."""
    if not _inside(name) or ".." in re.split(r"[/\\]+", name):
        return f"the entry {name!r} would be written outside the toolchain folder"
    if kind in ("device", "fifo"):
        return f"the entry {name!r} is a {kind}"
    if link is not None:
        if kind == "symlink":
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(name), link))
            if link.startswith("/") or not _inside(joined) or joined.startswith(".."):
                return f"the link {name!r} points outside the toolchain folder ({link!r})"
        elif not _inside(link) or ".." in re.split(r"[/\\]+", link):
            return f"the hard link {name!r} points outside the toolchain folder ({link!r})"
    return None


def unpack(archive: Path, into: Path) -> None:
    """Unpack a .tar.zst, .tar.gz, .tar or .zip into ``into``, refusing any entry that would escape it."""
    import tarfile
    import zipfile

    name = archive.name
    if name.endswith(".zip") or name.endswith(".whl"):
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                mode = (info.external_attr >> 16) & 0o170000
                link = zipped.read(info).decode("utf-8", "replace") if mode == 0o120000 else None
                why = _refuse_member(info.filename, "symlink" if link is not None else "file", link)
                if why:
                    raise InstallError(f"{name}: {why}; nothing was installed")
            zipped.extractall(into)
        return
    stream, closer = _tar_stream(archive)
    try:
        with tarfile.open(fileobj=stream, mode="r|*") as tar:
            for member in tar:
                kind = ("symlink" if member.issym() else "hardlink" if member.islnk() else
                        "device" if member.ischr() or member.isblk() else "fifo" if member.isfifo() else "file")
                why = _refuse_member(member.name, kind, member.linkname if kind in ("symlink", "hardlink") else None)
                if why:
                    raise InstallError(f"{name}: {why}; nothing was installed")
                if hasattr(tarfile, "tar_filter"):
                    # Python's own check as a second line (3.11.4 and later); the one above names the entry.
                    tar.extract(member, into, set_attrs=True, filter="tar")
                else:  # pragma: no cover - Python 3.11.0 to 3.11.3
                    tar.extract(member, into, set_attrs=True)
    finally:
        closer()


def _tar_stream(archive: Path) -> tuple[IO[bytes], Callable[[], None]]:
    """A readable stream of the tar inside ``archive`` and a function closing it (zstd through the zstd tool)."""
    import importlib
    import shutil
    import subprocess

    if archive.name.endswith((".tar.zst", ".tzst")):
        try:
            zstandard = importlib.import_module("zstandard")
        except ImportError:
            zstandard = None
        if zstandard is not None:
            raw = open(archive, "rb")
            reader = zstandard.ZstdDecompressor().stream_reader(raw)

            def close_reader() -> None:
                reader.close()
                raw.close()

            return reader, close_reader
        tool = shutil.which("zstd")
        if tool is None:
            raise InstallError(f"{archive.name} is zstd-compressed and neither the zstandard module nor the zstd "
                               "tool is available to read it; install either and run the command again")
        process = subprocess.Popen([tool, "-dc", str(archive)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        stdout = process.stdout
        assert stdout is not None

        def close() -> None:
            stdout.close()
            process.kill()
            process.wait()

        return stdout, close
    raw = open(archive, "rb")
    return raw, raw.close


def install_release(name: str, version: str, release: ReleaseFile, source: Optional[str],
                    subfolder: Optional[str] = None) -> dict[str, Any]:
    """Fetch, check and unpack one pinned release into :func:`install_dir`, beside its marker.

    An installed toolchain is reported and not fetched again. The archive is checked by
    SHA-256 before anything is unpacked, unpacked into a staging folder that becomes the
    toolchain folder only once every entry is in and the marker is written, and deleted.
    ``subfolder`` unpacks into that folder instead (a wheel, which has no ``bin``).
    """
    import shutil

    found = installed(name, version)
    if found is not None:
        return {"engine": name, "version": version, "already": True, "location": found["location"],
                "file": found.get("file"), "sha256": found.get("sha256"), "source": "cache"}
    folder = install_dir(name, version)
    downloads = cache_dir() / "downloads"
    archive = fetch(release, source, downloads)
    staging = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        if subfolder is None:
            unpack(archive, staging)
            root = _toolchain_root(staging)
        else:
            # A release without a bin folder (a wheel): unpacked whole into a folder of its own.
            unpack(archive, staging / subfolder)
            root = subfolder
        write_marker(staging, name=name, version=version, file=release.file, sha256=str(release.sha256),
                     root=root, source=source or release.url)
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        archive.unlink(missing_ok=True)
    return {"engine": name, "version": version, "already": False, "location": str((folder / root).resolve()),
            "file": release.file, "sha256": release.sha256, "source": source or release.url}


def _toolchain_root(folder: Path) -> str:
    """The folder inside an unpacked release that holds ``bin`` (a release has one top folder)."""
    if (folder / "bin").is_dir():
        return "."
    tops = [p for p in folder.iterdir() if p.is_dir()]
    if len(tops) == 1 and (tops[0] / "bin").is_dir():
        return tops[0].name
    raise InstallError(f"the archive holds no bin folder at its top or under one top folder (found "
                       f"{', '.join(sorted(p.name for p in folder.iterdir())) or 'nothing'}); nothing was installed")
