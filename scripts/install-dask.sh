#!/usr/bin/env bash
# Installs Dask with dask.distributed from PyPI into .build/python-dask (once), for the test that
# reads `yajl split` shards on a two-worker LocalCluster, and prints that directory (for
# PYTHONPATH). Exits 3, saying why, when it cannot be installed (no pip, no network to PyPI).
set -uo pipefail
cd "$(dirname "$0")/.."
target=.build/python-dask
if PYTHONPATH="$target" python3 -c "import dask.bag, distributed" >/dev/null 2>&1; then
  echo "$PWD/$target"
  exit 0
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "install-dask: python3 has no pip" >&2
  exit 3
fi
mkdir -p "$target"
if ! python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$target" \
  "dask[bag,distributed]" >&2; then
  echo "install-dask: pip could not install dask and distributed from PyPI" >&2
  exit 3
fi
echo "$PWD/$target"
