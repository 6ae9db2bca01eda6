#!/usr/bin/env python3
"""Documents of unusual shapes, where per-token costs differ from the generated records, side by side.

    python3 Benchmarks/shapes.py [--size MiB] [--rounds N] [--output Docs/Shapes.md]

The benchmark's documents (records, numbers, strings, dates, the corpus) are what users mostly
read; a user's own documents can be made of something else entirely. This makes seven documents
of one shape each (in .build/bench-data/shapes, made again when the script or the size changes):

- cjk: records whose strings are Chinese, Japanese, Korean and emoji text (UTF-8 of 2 to 4 bytes);
- escapes: strings made of escapes (\\n, \\", \\\\, \\/, \\t, \\u00e9, surrogate pairs), one every
  few bytes;
- ints: arrays of 50 small integers;
- deep: arrays nested 20 to 60 deep around a small object (nearly one event per byte);
- literals: arrays of 50 true, false and null;
- longstr: objects with one 2,000-byte string each;
- pretty: small records indented by two spaces (as `json.dumps(indent=2)` writes them);

and runs on each, interleaved round by round, as whole processes (medians, output discarded):
`yajl validate` beside `json_verify -q`, `yajl reformat --minify` beside `json_reformat -m`, and
the benchmark's own `events-paths` case (typed events with paths, as `yajl stats` counts them)
beside `c-counting` and `c-noop` (C over libyajl with counting callbacks, numbers converted by
YAJL, and with callbacks that do nothing), each one pass in its own process, timed inside it.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import BENCH, ROOT, YAJL, measure, read_through  # noqa: E402

SHAPES = ["cjk", "escapes", "ints", "deep", "literals", "longstr", "pretty"]
# Changing a generator below must change this, so that documents made by the old one are made again.
GENERATOR_VERSION = 1


def generator(shape, rng):
    """A function that returns the next element of the document's top-level array."""
    if shape == "cjk":
        text = "中文字符测试数据日本語のテキスト한국어텍스트🙂🚀ÄÖÜéèê"
        return lambda: json.dumps(
            {"id": rng.randint(0, 10**6), "name": "".join(rng.choice(text) for _ in range(20)),
             "text": "".join(rng.choice(text) for _ in range(60))}, ensure_ascii=False)
    if shape == "escapes":
        escapes = ["\\n", '\\"', "\\\\", "\\u00e9", "\\t", "\\ud83d\\ude00", "abc", " ", "\\/"]
        return lambda: ('{"k":"' + "".join(rng.choice(escapes) for _ in range(40)) + '","v":"'
                        + "".join(rng.choice(escapes) for _ in range(20)) + '"}')
    if shape == "ints":
        return lambda: "[" + ",".join(str(rng.randint(0, 999)) for _ in range(50)) + "]"
    if shape == "deep":
        def deep():
            depth = rng.randint(20, 60)
            return "[" * depth + '{"a":[1,{"b":null}]}' + "]" * depth
        return deep
    if shape == "literals":
        return lambda: "[" + ",".join(rng.choice(["true", "false", "null"]) for _ in range(50)) + "]"
    if shape == "longstr":
        return lambda: json.dumps({"body": "".join(rng.choice("abcdefghij klmnop") for _ in range(2000))})
    if shape == "pretty":
        return lambda: json.dumps({"id": rng.randint(0, 10**9), "tags": ["x", "y", "z"],
                                   "nested": {"a": 1.5, "b": [True, None]}}, indent=2)
    raise ValueError(shape)


def make(shape, size, directory):
    """The document of `shape` of about `size` bytes, made unless an identical one exists."""
    path = directory / f"{shape}.json"
    stamp = directory / f"{shape}.stamp"
    wanted = f"{GENERATOR_VERSION} {size}"
    if path.exists() and stamp.exists() and stamp.read_text() == wanted:
        return path
    rng = random.Random(7)
    next_element = generator(shape, rng)
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write("[")
        while written < size:
            element = next_element()
            if written:
                f.write(",")
            f.write(element)
            written += len(element.encode("utf-8")) + 1
        f.write("]")
    stamp.write_text(wanted)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=32, help="MiB per document (default 32)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default=str(ROOT / "Docs" / "Shapes.md"))
    arguments = parser.parse_args()
    for tool, path in (("yajl", YAJL), ("YAJLBenchmarks", BENCH)):
        if not path.exists():
            sys.exit(f"shapes: {path} not built (make release; swift build -c release --product {tool})")
    missing = [tool for tool in ("json_verify", "json_reformat") if not shutil.which(tool)]
    if missing:
        sys.exit(f"shapes: {', '.join(missing)} missing (scripts/install-deps.sh installs yajl-tools)")
    directory = ROOT / ".build" / "bench-data" / "shapes"
    directory.mkdir(parents=True, exist_ok=True)

    rows = []
    for shape in SHAPES:
        path = make(shape, arguments.size << 20, directory)
        spec = json.dumps({"name": path.name, "path": str(path), "bytes": path.stat().st_size, "kind": "corpus"})
        runs = {
            ("validate", "yajl validate"): [str(YAJL), "validate", str(path)],
            ("validate", "json_verify -q"): ["<" + str(path), "json_verify", "-q"],
            ("minify", "yajl reformat --minify"): [str(YAJL), "reformat", "--minify", str(path)],
            ("minify", "json_reformat -m"): ["<" + str(path), "json_reformat", "-m"],
        }
        children = ("events-paths", "c-counting", "c-noop")
        times = {key: [] for key in list(runs) + [("events", case) for case in children]}
        for _ in range(arguments.rounds):
            for key, argv in runs.items():
                read_through(path)
                times[key].append(measure(argv)[0])
            for case in children:
                read_through(path)
                result = subprocess.run([str(BENCH), "--child", case, spec], capture_output=True, text=True,
                                        env=dict(os.environ, YAJL_BENCH_MIN_BYTES="1"))
                if result.returncode != 0:
                    sys.exit(f"shapes: {case} on {path.name} failed: {result.stderr.strip()[-300:]}")
                times[("events", case)].append(json.loads(result.stdout)["seconds"])
        median = {key: statistics.median(values) for key, values in times.items()}
        size = path.stat().st_size / (1 << 20)

        def ratio(a, b):
            return median[b] / median[a]
        rows.append((shape, size,
                     median[("validate", "yajl validate")], ratio(("validate", "yajl validate"), ("validate", "json_verify -q")),
                     median[("minify", "yajl reformat --minify")],
                     ratio(("minify", "yajl reformat --minify"), ("minify", "json_reformat -m")),
                     median[("events", "events-paths")], ratio(("events", "events-paths"), ("events", "c-counting")),
                     ratio(("events", "events-paths"), ("events", "c-noop"))))
        print(f"shapes: {shape} done", file=sys.stderr)

    lines = [
        "# Documents of unusual shapes",
        "",
        "Written by `python3 Benchmarks/shapes.py` (`make bench-shapes`, also run by `make bench-report`):",
        "seven generated documents of one shape each (see the script's header), each task as its own",
        "process, interleaved round by round, medians. A ratio is the peer's time over ours: above 1, ours",
        "is faster. Machine: the project's shared 2-core machine, whose times move by up to 2× from run",
        "to run; ratios from the same run are what to compare. Each document is read through once, untimed,",
        "before each run.",
        "",
        "| document | MiB | validate s | × json_verify -q | minify s | × json_reformat -m | events with paths s | × C counting | × C no-op |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for shape, size, validate, v_ratio, minify, m_ratio, events, c_ratio, noop_ratio in rows:
        lines.append(f"| {shape} | {size:.1f} | {validate:.3f} | {v_ratio:.2f} | {minify:.3f} | {m_ratio:.2f} "
                     f"| {events:.3f} | {c_ratio:.2f} | {noop_ratio:.2f} |")
    lines += [
        "",
        f"Rounds: {arguments.rounds}. Commands (FILE is the document): `yajl validate FILE`; `json_verify -q < FILE`;",
        "`yajl reformat --minify FILE`; `json_reformat -m < FILE`; `YAJL_BENCH_MIN_BYTES=1 YAJLBenchmarks --child",
        "CASE SPEC` for CASE `events-paths`, `c-counting`, `c-noop` (timed inside the process, one pass), SPEC",
        "being `{\"name\":…,\"path\":FILE,\"bytes\":…,\"kind\":\"corpus\"}`.",
    ]
    Path(arguments.output).write_text("\n".join(lines) + "\n")
    print(f"shapes: wrote {arguments.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
