#!/usr/bin/env python3
"""Reads `yajl split` shards with DuckDB and the source document with Python's json, and prints
both counts and sums as one JSON object, for the split integration test:

    duckdb-shards.py DIR SOURCE.json JSONPATH-KIND

JSONPATH-KIND is `results` (the source is {"results": [...]}) or `array` (the source is [...]).
DuckDB comes from PyPI (scripts/install-duckdb.sh puts it in .build/python-duckdb).
"""
import json, sys

import duckdb

from shards_source import expected

directory, source, kind = sys.argv[1:4]
shards = f"{directory}/part-*.ndjson*"
row = duckdb.sql(
    f"SELECT count(*), sum(id), round(sum(score), 2), count(DISTINCT address.city) FROM read_json_auto('{shards}')"
).fetchall()[0]
print(json.dumps({"duckdb": [row[0], int(row[1]), float(row[2]), row[3]], "source": expected(source, kind)}))
