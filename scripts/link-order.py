#!/usr/bin/env python3
"""Writes the symbol ordering file that the release build hands to lld (scripts/link-order.txt).

The release tool is one static executable of about 10 MB of code, of which a run of `yajl
extract` executes about 370 KB. The kernel maps a file's pages into a process 64 KiB at a time
around each page fault (fault-around), so functions scattered over the whole text made about
5.6 MiB of it resident. Laid out together, they and the archive sections that cannot be split
(the standard library's non-generic code is one) make about 3.1 MiB resident instead
(Docs/Architecture.md, section 8).

This script runs the tool under callgrind on small generated documents, once per command a
user runs on a local file (validate, stats, events, extract, reformat, to-ndjson, from-ndjson,
split, and the error path), sums each function's instructions over the runs, and writes the
executed symbols of the executable, most executed first, one per line. lld places those
sections first, in that order. A symbol it no longer finds (the code changed since) is skipped
without a warning (--no-warn-symbol-ordering), so a stale file costs resident memory, never
correctness: rerun `make link-order` after larger changes to the tool.

usage: scripts/link-order.py YAJL OUTPUT
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

COMMANDS = [
    ["validate", "{records}"],
    ["validate", "{numbers}"],
    ["validate", "-", "<{records}"],
    ["validate", "{invalid}"],
    ["stats", "{records}"],
    ["stats", "{numbers}"],
    ["events", "{small}"],
    ["extract", "$.results[*]", "{records}"],
    ["extract", "$.results[*].name", "$..id", "{records}", "--paths"],
    ["extract", "$.results[?@.id > 10]", "{records}", "--order", "rfc"],
    ["extract", "$.results[*]", "{invalid}"],
    ["extract", "$[*]", "{ndjson}", "--allow-multiple-values"],
    ["reformat", "{records}", "--minify"],
    ["reformat", "{numbers}", "--minify"],
    ["reformat", "{strings}"],
    ["to-ndjson", "$.results[*]", "{records}"],
    ["from-ndjson", "{ndjson}"],
    ["split", "$.results[*]", "{records}", "--shard-size", "64K", "--out", "{shards}"],
]


def executed(callgrind_file, symbols):
    """Instructions per function of the executable in one callgrind output (self cost)."""
    costs = Counter()
    names = {}
    current = None
    skip_next = False
    with open(callgrind_file, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if skip_next:  # the inclusive cost line of a call: not this function's own
                skip_next = False
                continue
            m = re.match(r"^(c?fn)=(?:\((\d+)\))?\s*(.*)$", line)
            if m:
                kind, ident, name = m.groups()
                if ident is not None and name:
                    names[ident] = name
                name = names.get(ident, name) if ident is not None else name
                if kind == "fn":
                    current = re.sub(r"'\d+$", "", name)
                continue
            if line.startswith("calls="):
                skip_next = True
                continue
            m = re.match(r"^(?:[+-]?\d+|\*)\s+(\d+)", line)
            if m and current in symbols:
                costs[current] += int(m.group(1))
    return costs


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    yajl, output = os.path.abspath(sys.argv[1]), sys.argv[2]
    if shutil.which("valgrind") is None:
        sys.exit("link-order: valgrind is missing (make deps installs it)")
    nm = subprocess.run(["nm", yajl], capture_output=True, text=True, check=True).stdout
    symbols = {p[2] for p in (l.split() for l in nm.splitlines()) if len(p) == 3 and p[1] in "tTwW"}
    total = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        docs = {}
        for kind, size in [("records", "512K"), ("numbers", "256K"), ("strings", "256K"), ("ndjson", "128K")]:
            docs[kind] = os.path.join(tmp, f"{kind}.json")
            subprocess.run([yajl, "generate", docs[kind], "--kind", kind, "--size", size],
                           check=True, stdout=subprocess.DEVNULL)
        docs["small"] = os.path.join(tmp, "small.json")
        with open(docs["small"], "w") as f:
            f.write('{"a": [1, 2.5, -3e10, true, false, null, "x\\u00e9"], "b": {"c": {}}}\n')
        docs["invalid"] = os.path.join(tmp, "invalid.json")
        with open(docs["invalid"], "w") as f:
            f.write('{"results": [{"id": 1}, {"id": 2,, }]}\n')
        docs["shards"] = os.path.join(tmp, "shards")
        for n, command in enumerate(COMMANDS):
            out = os.path.join(tmp, f"callgrind.{n}")
            args = [a.format(**docs) for a in command]
            stdin_path = args.pop()[1:] if args[-1].startswith("<") else os.devnull
            with open(stdin_path, "rb") as stdin:
                subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no",
                                f"--callgrind-out-file={out}", yajl] + args,
                               stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            costs = executed(out, symbols)
            if not costs:
                sys.exit(f"link-order: no function of {yajl} ran under callgrind for {' '.join(args)}")
            # Each run weighs the same: the short runs' start-up code counts as much as the
            # long runs' inner loops.
            run_total = sum(costs.values())
            for name, cost in costs.items():
                total[name] += cost / run_total
            print(f"link-order: {' '.join(command)}: {len(costs)} functions", file=sys.stderr)
    with open(output, "w") as f:
        for name, _ in total.most_common():
            f.write(name + "\n")
    print(f"link-order: {len(total)} symbols written to {output}", file=sys.stderr)


if __name__ == "__main__":
    main()
