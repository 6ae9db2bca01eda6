#!/usr/bin/env bash
# Installs Python packages from PyPI into .build/python-NAME (once) for an integration test, and
# prints that directory (for PYTHONPATH). Exits 3, saying why, when they cannot be installed (no
# pip, no network to PyPI).
#   install-pypi.sh NAME IMPORTS PACKAGE...   (IMPORTS: the Python statement that proves them)
set -uo pipefail
cd "$(dirname "$0")/.."
name=$1 imports=$2
shift 2
target=.build/python-$name
if PYTHONPATH="$target" python3 -c "$imports" >/dev/null 2>&1; then
  echo "$PWD/$target"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "install-$name: python3 has no pip" >&2
  exit 3
fi
mkdir -p "$target"
if ! python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$target" "$@" >&2; then
  echo "install-$name: pip could not install $* from PyPI" >&2
  exit 3
fi
echo "$PWD/$target"
