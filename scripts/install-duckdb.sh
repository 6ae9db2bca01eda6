#!/usr/bin/env bash
# Installs DuckDB's Python package from PyPI into .build/python-duckdb (once), for the `yajl split`
# integration test, and prints that directory (for PYTHONPATH); exits 3 when it cannot.
exec bash "$(dirname "$0")/install-pypi.sh" duckdb "import duckdb" duckdb
