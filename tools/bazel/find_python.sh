#!/bin/sh
# Finds the Python interpreter Eutaxy is built and tested with: $EUTAXY_PYTHON if it
# is set (and then only it), else the first of python3, python3.13, python3.12 and
# python3.11 on PATH that is Python 3.11 or newer. Used by the Bazel toolchain
# (tools/bazel/python_toolchain.bzl) and by tools/setup.sh, so both pick the same one.
#
# Prints key=value lines: python (the interpreter itself, sys.executable with links
# resolved), version, build (sys.version) and sha256 (of the interpreter's file),
# which together say when the interpreter changed.
# Exits 1 naming every candidate tried and what it was, when none will do.
set -u

probe='import hashlib, os, sys
exe = os.path.realpath(sys.executable)
print("python=" + exe)
print("version=%d.%d.%d" % sys.version_info[:3])
print("build=" + " ".join(sys.version.split()))
with open(exe, "rb") as f:
    print("sha256=" + hashlib.sha256(f.read()).hexdigest())
sys.exit(0 if sys.version_info >= (3, 11) else 3)'

if [ -n "${EUTAXY_PYTHON:-}" ]; then
  set -- "$EUTAXY_PYTHON"
else
  set -- python3 python3.13 python3.12 python3.11
fi

tried=""
for candidate in "$@"; do
  if ! command -v "$candidate" >/dev/null 2>&1; then
    tried="$tried
  $candidate: not found on PATH"
    continue
  fi
  out=$("$candidate" -c "$probe" 2>&1)
  case $? in
    0)
      printf '%s\n' "$out"
      exit 0
      ;;
    3)
      tried="$tried
  $candidate: Python $(printf '%s\n' "$out" | sed -n 's/^version=//p'), older than 3.11"
      ;;
    *)
      tried="$tried
  $candidate: does not run: $(printf '%s' "$out" | tail -n 1)"
      ;;
  esac
done

echo "no Python 3.11 or newer for Eutaxy; tried:$tried
Install Python 3.11+ (Debian: apt-get install python3 python3-venv) or set EUTAXY_PYTHON to one." >&2
exit 1
