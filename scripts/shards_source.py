"""What the shard checks (duckdb-shards.py, dask-shards.py) compare an engine with: the source
document's records read with Python's json, as [count, sum of id, sum of score rounded to 2
places, distinct cities]. KIND is `results` (the source is {"results": [...]}) or `array`."""
import json


def expected(source, kind):
    with open(source, encoding="utf-8") as f:
        document = json.load(f)
    records = document["results"] if kind == "results" else document
    return [
        len(records),
        sum(r["id"] for r in records),
        round(sum(r["score"] for r in records), 2),
        len({r["address"]["city"] for r in records}),
    ]
