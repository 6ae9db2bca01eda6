#!/usr/bin/env bash
# Installs DuckDB's Python package from PyPI into .build/python-duckdb (once), for the `yajl split`
# integration test, and prints that directory (for PYTHONPATH). Exits 3, saying why, when it
# cannot be installed (no pip, no network to PyPI).
set -uo pipefail
cd "$(dirname "$0")/.."
target=.build/python-duckdb
if PYTHONPATH="$target" python3 -c "import duckdb" >/dev/null 2>&1; then
  echo "$PWD/$target"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "install-duckdb: python3 has no pip" >&2
  exit 3
fi
mkdir -p "$target"
if ! python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$target" duckdb >&2; then
  echo "install-duckdb: pip could not install duckdb from PyPI" >&2
  exit 3
fi
echo "$PWD/$target"
