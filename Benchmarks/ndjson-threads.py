#!/usr/bin/env python3
"""NDJSON on several threads: `yajl stats|validate|extract --allow-multiple-values` with and
without `--threads N`, on the same generated NDJSON, in interleaved rounds (the machine is shared
and noisy: compare the medians' ratio, not absolute times). Usage:

    python3 Benchmarks/ndjson-threads.py [YAJL] [SIZE] [ROUNDS] [THREADS]
    (defaults: .build/release/yajl 256M 5 <cores>)
"""
import os, resource, statistics, subprocess, sys, tempfile, time

yajl = sys.argv[1] if len(sys.argv) > 1 else ".build/release/yajl"
size = sys.argv[2] if len(sys.argv) > 2 else "256M"
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
threads = sys.argv[4] if len(sys.argv) > 4 else str(os.cpu_count())

with tempfile.TemporaryDirectory() as work:
    path = os.path.join(work, "doc.ndjson")
    subprocess.run([yajl, "generate", path, "--kind", "ndjson", "--size", size], check=True, stdout=subprocess.DEVNULL)
    commands = {"stats": ["stats"], "validate": ["validate"], "extract": ["extract", "$.address.city", "--quiet"]}
    cases = {}
    for name, command in commands.items():
        cases[(name, "1 thread")] = [yajl] + command + [path, "--allow-multiple-values"]
        cases[(name, f"--threads {threads}")] = [yajl] + command + [path, "--allow-multiple-values", "--threads", threads]
    outputs, times, peaks = {}, {key: [] for key in cases}, {}
    for _ in range(rounds):
        for key, argv in cases.items():
            start = time.perf_counter()
            result = subprocess.run(argv, stdout=subprocess.PIPE, check=True)
            times[key].append(time.perf_counter() - start)
            peaks[key] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the largest so far
            outputs.setdefault(key[0], result.stdout)
            if result.stdout != outputs[key[0]]:
                sys.exit(f"ndjson-threads: {key} printed something else than the serial run")
    print(f"{os.path.getsize(path)} bytes of NDJSON, {rounds} interleaved rounds, {os.cpu_count()} cores")
    print("| command | mode | median s | × one thread |")
    print("|---|---|---:|---:|")
    for name in commands:
        base = statistics.median(times[(name, "1 thread")])
        for mode in ("1 thread", f"--threads {threads}"):
            median = statistics.median(times[(name, mode)])
            print(f"| {name} | {mode} | {median:.2f} | {base / median:.2f} |")
