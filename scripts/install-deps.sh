#!/usr/bin/env bash
# Installs the system packages swift-yajl needs, only those that are missing.
# Used by `make demo`, `make test` and CI; safe to run again.
#   libyajl-dev  - the C library the package wraps (pkg-config name `yajl`)
#   libcurl4-openssl-dev - HTTP(S) byte source (pkg-config name `libcurl`)
#   pkg-config   - lets SwiftPM find libyajl's flags
#   yajl-tools   - json_reformat / json_verify, used by tests and benchmarks as references
#   time         - /usr/bin/time, for the demo's peak-memory figure
#   python3      - the loopback test server
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in libyajl-dev libcurl4-openssl-dev pkg-config yajl-tools time; do
  have_pkg "$p" || need+=("$p")
done
command -v python3 >/dev/null 2>&1 || need+=(python3)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${need[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: need root (or sudo) to install: ${need[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# Update the package lists only when an install from the current lists fails.
if ! $SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null 2>&1; then
  $SUDO apt-get update -q >/dev/null
  $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi
