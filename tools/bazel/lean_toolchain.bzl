"""The pinned Lean toolchain as a Bazel repository, for the Lean engine's tests.

The release file and its SHA-256 come from the engine's own table,
packages/prover_lean/src/eutaxy/prover_lean/releases.json (the file for this
platform of the pinned release), so the table is written once. The rule uses a
Lean that `eutaxy prover install lean` already put in Eutaxy's cache; else it
downloads the release file, which Bazel checks against the digest, and unpacks
it. It never fails the build: when the file cannot be reached (these machines
are offline), has no verified digest, or does not unpack into a Lean of the
pinned version, location.txt says so in one plain sentence, and the tests that
need Lean are skipped with that sentence as their reason.
"""

_UNAVAILABLE = "unavailable: "

def _platform(rctx):
    os = rctx.os.name.lower()
    system = "linux" if os.startswith("linux") else "macos" if os.startswith("mac") else "windows" if os.startswith("windows") else None
    arch = ""
    uname = rctx.execute(["uname", "-m"]) if system != "windows" else None
    if uname != None and uname.return_code == 0:
        arch = uname.stdout.strip().lower()
    cpu = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(arch, "x64" if system == "windows" else None)
    if system == None or cpu == None:
        return None
    return "%s-%s" % (system, cpu)

def _cached_lean(rctx, version):
    """The lean executable `eutaxy prover install lean` left in Eutaxy's cache, or None."""
    cache = rctx.os.environ.get("EUTAXY_CACHE_DIR")
    if not cache:
        home = rctx.os.environ.get("HOME", "")
        xdg = rctx.os.environ.get("XDG_CACHE_HOME")
        cache = ("%s/eutaxy" % xdg) if xdg else ("%s/.cache/eutaxy" % home)
    folder = rctx.path("%s/toolchains/lean/%s" % (cache, version))
    marker = folder.get_child("eutaxy-toolchain.json")
    if not marker.exists:
        return None
    root = json.decode(rctx.read(marker)).get("root", ".")
    lean = folder.get_child(root).get_child("bin").get_child("lean")
    return lean if lean.exists else None

def _version_of(rctx, lean):
    result = rctx.execute([str(lean), "--version"], timeout = 60)
    if result.return_code != 0:
        return None
    text = result.stdout
    marker = "version "
    at = text.find(marker)
    if at < 0:
        return None
    return text[at + len(marker):].split(",")[0].strip()

def _impl(rctx):
    table = json.decode(rctx.read(Label("@//packages/prover_lean:src/eutaxy/prover_lean/releases.json")))
    version = table["version"]
    location = None
    platform = _platform(rctx)
    entry = None
    for candidate in table["files"]:
        if candidate["platform"] == platform:
            entry = candidate
    cached = _cached_lean(rctx, version)
    if cached != None and _version_of(rctx, cached) == version:
        location = str(cached)
        why = None
    elif entry == None:
        why = "no Lean %s release file for this platform (%s) in releases.json" % (version, platform)
    elif entry.get("sha256") == None:
        why = "%s has no verified SHA-256 in releases.json, so it is not fetched" % entry["file"]
    else:
        rctx.report_progress("fetching %s (SHA-256 %s)" % (entry["file"], entry["sha256"]))
        got = rctx.download(url = entry["url"], output = entry["file"], sha256 = entry["sha256"], allow_fail = True)
        if not got.success:
            why = "%s could not be fetched from %s (SHA-256 %s); install Lean %s with `eutaxy prover install lean` (--from an offline copy) and fetch again" % (entry["file"], entry["url"], entry["sha256"], version)
        else:
            if entry["file"].endswith(".zip"):
                rctx.extract(entry["file"], output = "lean")
                unpacked = rctx.execute(["true"])
            else:
                rctx.execute(["mkdir", "-p", "lean"])
                unpacked = rctx.execute(["sh", "-c", "zstd -dc \"$0\" | tar -x -C lean", entry["file"]], timeout = 1800)
            rctx.delete(entry["file"])
            found = rctx.execute(["sh", "-c", "ls -d lean/*/bin/lean 2>/dev/null | head -n 1"])
            lean = found.stdout.strip()
            if unpacked.return_code != 0 or not lean:
                why = "%s was fetched and its SHA-256 checked, but it did not unpack into a bin/lean (%s)" % (entry["file"], unpacked.stderr.strip()[:300])
            elif _version_of(rctx, rctx.path(lean)) != version:
                why = "%s unpacked into a lean that does not report version %s" % (entry["file"], version)
            else:
                # Relative to location.txt (see node_toolchain.bzl: no output base in a test's inputs).
                location = lean
                why = None
    if location == None:
        print("eutaxy_lean: " + why)
    rctx.file("WORKSPACE", "")
    rctx.file("location.txt", (location if location != None else _UNAVAILABLE + why) + "\n")
    rctx.file("BUILD", """
filegroup(
    name = "location",
    srcs = ["location.txt"],
    visibility = ["//visibility:public"],
)
""")

lean_toolchain = repository_rule(
    implementation = _impl,
    environ = ["EUTAXY_CACHE_DIR", "XDG_CACHE_HOME", "HOME"],
)
