# Sourced by tools/test and tools/check: installs what is missing, quietly when
# nothing is. Debian's bazel-bootstrap and nginx-light (apt-get), and a venv at
# .venv with requirements.lock (recreated when the lock changes).
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

eutaxy_venv() {
  local python=${EUTAXY_PYTHON:-python3} digest
  digest=$(sha256sum "$eutaxy_root/requirements.lock" | cut -c1-16)
  if [ ! -x "$eutaxy_root/.venv/bin/python3" ] || [ "$(cat "$eutaxy_root/.venv/.lock-digest" 2>/dev/null)" != "$digest" ]; then
    eutaxy_log "creating .venv from requirements.lock"
    rm -rf "$eutaxy_root/.venv"
    "$python" -m venv "$eutaxy_root/.venv"
    "$eutaxy_root/.venv/bin/pip" install -q --disable-pip-version-check -r "$eutaxy_root/requirements.lock"
    echo "$digest" > "$eutaxy_root/.venv/.lock-digest"
  fi
  EUTAXY_LOCK_DIGEST=$digest
}

# The checkout's packages on the path, as an install would put them.
eutaxy_pythonpath() {
  local p out=""
  for p in "$eutaxy_root"/packages/*/src; do out="$out${out:+:}$p"; done
  printf '%s' "$out"
}
