#!/usr/bin/env bash
# Installs Dask with dask.distributed from PyPI into .build/python-dask (once), for the test that
# reads `yajl split` shards on a two-worker LocalCluster, and prints that directory (for
# PYTHONPATH); exits 3 when it cannot.
exec bash "$(dirname "$0")/install-pypi.sh" dask "import dask.bag, distributed" "dask[bag,distributed]"
