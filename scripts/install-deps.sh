#!/usr/bin/env bash
# Installs the system packages swift-yajl needs, only those that are missing.
# Used by `make demo`, `make test` and CI; safe to run again.
#   libyajl-dev  - the C library the package wraps (pkg-config name `yajl`)
#   libcurl4-openssl-dev - HTTP(S) byte source (pkg-config name `libcurl`)
#   pkg-config   - lets SwiftPM find libyajl's flags
#   yajl-tools   - json_reformat / json_verify, used by tests and benchmarks as references
#   time         - /usr/bin/time, for the demo's peak-memory figure
#   python3      - the loopback test server
#   openssl      - a self-signed certificate for the HTTPS test
#   valgrind     - leak checks of the tool (`make hardening`)
#   jq           - a peer in the benchmark report (`make bench-peers`)
#   zlib1g-dev   - gzip shards of `yajl split --gzip`
# It also warns when the installed libyajl lacks the fixes for CVE-2022-24795 and CVE-2023-33460
# (see Docs/Security.md).
set -euo pipefail

need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in libyajl-dev libcurl4-openssl-dev pkg-config yajl-tools time valgrind jq zlib1g-dev; do
  have_pkg "$p" || need+=("$p")
done
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v openssl >/dev/null 2>&1 || need+=(openssl)

# libyajl's version, against the first Debian revision with both CVE fixes. Only dpkg knows the
# revision (yajl_version() says 2.1.0 with or without them), so the check needs a Debian system.
# The tool links the shared libyajl2, so an upgrade reaches it without a rebuild.
check_yajl_version() {
  local package version fixed="2.1.0-3+deb12u2"
  for package in libyajl2 libyajl-dev; do
    version=$(dpkg-query -W -f='${Version}' "$package" 2>/dev/null) || continue
    if dpkg --compare-versions "$version" lt "$fixed"; then
      echo "install-deps: WARNING: $package $version is older than $fixed, which fixes CVE-2022-24795" >&2
      echo "install-deps:          and CVE-2023-33460; upgrade it (apt-get install --only-upgrade libyajl2" >&2
      echo "install-deps:          libyajl-dev), then run 'make release' again." >&2
    fi
  done
}

if [ ${#need[@]} -eq 0 ]; then
  check_yajl_version
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
check_yajl_version
