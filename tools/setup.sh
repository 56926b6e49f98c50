# Sourced by tools/test, tools/check and tools/lock: installs what is missing,
# quietly when nothing is. Debian's bazel-bootstrap and nginx-light (apt-get),
# and for tools/check a venv at .venv from requirements.lock, made the way
# Bazel makes its own (tools/bazel/make_venv.py: hash-checked, re-made when the
# lock or the interpreter changes).
# shellcheck shell=bash
eutaxy_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

eutaxy_log() { printf '== %s\n' "$*" >&2; }
eutaxy_sudo() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

eutaxy_apt() {
  local need=() pkg cmd
  for pair in "$@"; do
    pkg=${pair%%:*}; cmd=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || need+=("$pkg")
  done
  if [ ${#need[@]} -gt 0 ]; then
    eutaxy_log "installing ${need[*]} from Debian's packages"
    eutaxy_sudo apt-get update -qq
    eutaxy_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
}

# The Python 3.11+ interpreter Bazel's toolchain uses too (tools/bazel/find_python.sh).
eutaxy_python() {
  local found
  found=$(sh "$eutaxy_root/tools/bazel/find_python.sh") || return 1
  printf '%s\n' "$found" | sed -n 's/^python=//p'
}

eutaxy_venv() {
  local python
  python=$(eutaxy_python) || return 1
  "$python" -P "$eutaxy_root/tools/bazel/make_venv.py" --reuse \
    --lock "$eutaxy_root/requirements.lock" --dest "$eutaxy_root/.venv"
}

# The checkout's packages on the path, as an install would put them.
eutaxy_pythonpath() {
  local p out=""
  for p in "$eutaxy_root"/packages/*/src; do out="$out${out:+:}$p"; done
  printf '%s' "$out"
}
