#!/usr/bin/env python3
"""Reads `yajl split` shards on a dask.distributed cluster (a LocalCluster of two worker
processes), the shard list taken from the manifest, and the source document with Python's json;
prints both counts and sums, and the workers that did the work, as one JSON object:

    dask-shards.py DIR SOURCE.json JSONPATH-KIND

JSONPATH-KIND is `results` (the source is {"results": [...]}) or `array` (the source is [...]).
Dask comes from PyPI (scripts/install-dask.sh puts it in .build/python-dask). The same read on a
real cluster is `Client("scheduler:8786")` in place of the LocalCluster.
"""
import json, os, sys

from shards_source import expected


def main():
    import dask.bag as db
    from distributed import Client, LocalCluster

    directory, source, kind = sys.argv[1:4]
    with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    paths = [os.path.join(directory, shard["name"]) for shard in manifest["shards"]]
    compression = "gzip" if manifest["compression"] == "gzip" else None
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            records = db.read_text(paths, compression=compression).map(json.loads)
            count, ids, score, cities = client.compute(
                [
                    records.count(),
                    records.pluck("id").sum(),
                    records.pluck("score").sum(),
                    records.map(lambda r: r["address"]["city"]).distinct().count(),
                ],
                sync=True,
            )
            workers = len(client.scheduler_info()["workers"])
            # How many worker processes ran tasks: the shards' tasks are spread over both.
            executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
            busy = sum(1 for tasks in executed.values() if tasks > 0)
    print(json.dumps({
        "dask": [count, int(ids), round(float(score), 2), cities],
        "source": expected(source, kind),
        "workers": workers,
        "workers_that_ran_tasks": busy,
        "shards": len(paths),
    }))


if __name__ == "__main__":
    main()
