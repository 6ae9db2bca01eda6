#!/usr/bin/env python3
"""The peers a user would pick instead of swift-yajl, run side by side on the same documents.

    python3 Benchmarks/peers.py [--rounds N] [--output Docs/Peers.md] DOCUMENT...

Each tool runs as its own process (wall time, and peak RSS from /usr/bin/time), interleaved round
by round, and the report gives medians and ratios to `yajl` in the same run:

- extract the records of `$.results[*]` (generated records and numbers documents): `yajl
  extract`, Python ijson (`items`, yajl2_c backend), orjson and json (whole document, then the
  list), `jq -c`;
- validate any document: `yajl validate`, `json_verify`, orjson, json, `jq empty`;
- minify: `yajl reformat --minify`, `json_reformat -m`, `jq -c .`;
- count events: `yajl stats` (typed events with paths, counted by kind), and a C program over
  Debian's shared libyajl counting with YAJL's own integer, double, string, key and container
  callbacks (`Benchmarks/count-events.c` over the benchmark's C baseline, built here with `cc -O2`);
- decode the records of `$.results[*]` (generated records documents) into typed values: a Swift
  program over the library (the benchmark's `records-decodable-1t` and `records-decodable` cases,
  into a `Decodable` struct, one and two threads), the same struct with `JSONDecoder` (the whole
  document), and ijson building a dict per record; on the numbers documents (GeoJSON polygons,
  half their coordinates of full precision) the same with the `geojson-decodable-1t`,
  `geojson-decodable` and `foundation-geojson` cases.

ijson and orjson are installed from PyPI into .build/bench-venv on first use; a peer that cannot
be installed or found is reported as skipped, with the reason, never silently left out.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".build" / "bench-venv"
YAJL = ROOT / ".build" / "release" / "yajl"
# Documents smaller than this get ten times the rounds (see `main`).
SMALL_DOCUMENT = 4 << 20
BENCH = ROOT / ".build" / "release" / "YAJLBenchmarks"
COUNT_EVENTS = ROOT / ".build" / "count-events"


def count_events():
    """Builds Benchmarks/count-events.c, with the C baseline's counting callbacks, against the
    system's libyajl; (path, why not)."""
    compiler = shutil.which("cc") or shutil.which("clang")
    if not compiler:
        return None, "no C compiler (cc or clang) on PATH"
    source = ROOT / "Benchmarks" / "count-events.c"
    baseline = ROOT / "Benchmarks" / "CBaseline"
    build = subprocess.run(
        [compiler, "-O2", "-I", str(baseline / "include"), "-o", str(COUNT_EVENTS), str(source),
         str(baseline / "baseline.c"), "-lyajl"],
        capture_output=True,
    )
    if build.returncode != 0:
        return None, f"{compiler} could not build {source.name}: " + build.stderr.decode(errors="replace")[-300:]
    return str(COUNT_EVENTS), None


def venv_python():
    """The benchmark's virtual environment with ijson and orjson, made on first use; (python, why not)."""
    python = VENV / "bin" / "python"
    if not python.exists():
        try:
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True)
        except subprocess.CalledProcessError as error:
            return None, f"cannot create {VENV}: {error.stderr.decode(errors='replace').strip()}"
    probe = subprocess.run([str(python), "-c", "import ijson, orjson"], capture_output=True)
    if probe.returncode != 0:
        install = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "ijson==3.3.0", "orjson==3.10.12"],
            capture_output=True,
        )
        if install.returncode != 0:
            return None, "pip could not install ijson and orjson: " + install.stderr.decode(errors="replace")[-300:]
    backend = subprocess.run(
        [str(python), "-c", "import ijson; print(ijson.backend)"], capture_output=True, text=True
    ).stdout.strip()
    if backend != "yajl2_c":
        return None, f"ijson's fastest backend is {backend or 'unknown'}, not yajl2_c"
    return str(python), None


PYTHON_EXTRACT = {
    "ijson": "import ijson,sys\nn=0\nwith open(sys.argv[1],'rb') as f:\n  for _ in ijson.items(f,'results.item'): n+=1\nprint(n)",
    "orjson": "import orjson,sys\nprint(len(orjson.loads(open(sys.argv[1],'rb').read())['results']))",
    "json": "import json,sys\nprint(len(json.load(open(sys.argv[1],'rb'))['results']))",
}
PYTHON_VALIDATE = {
    "orjson": "import orjson,sys\norjson.loads(open(sys.argv[1],'rb').read())",
    "json": "import json,sys\njson.load(open(sys.argv[1],'rb'))",
}


# The benchmark cases that decode each shape of document (1 thread, 2 threads, JSONDecoder).
DECODE_CASES = {
    "records": ("records-decodable-1t", "records-decodable", "foundation-decoder"),
    "numbers": ("geojson-decodable-1t", "geojson-decodable", "foundation-geojson"),
}


def commands(document, python, shape, counter):
    """(task, tool, argv) for every peer that applies to `document`; skipped peers with reasons.
    `shape` is the generated document's kind when it holds `$.results[*]` (a key of DECODE_CASES),
    else None."""
    runs, skipped = [], []
    d = str(document)
    if shape:
        runs.append(("extract", "yajl extract", [str(YAJL), "extract", "$.results[*]", d]))
        for name, code in PYTHON_EXTRACT.items():
            if python or name == "json":
                runs.append(("extract", f"python {name}", [python or sys.executable, "-c", code, d]))
        if shutil.which("jq"):
            runs.append(("extract", "jq -c", ["jq", "-c", ".results[]", d]))
        if BENCH.exists():
            # One run of the case per process (the benchmark repeats small documents otherwise).
            spec = json.dumps({"name": document.name, "path": str(Path(d).resolve()),
                               "bytes": document.stat().st_size, "kind": shape})
            one, two, foundation = DECODE_CASES[shape]
            for tool, case in (("yajl Decodable, 1 thread", one),
                               ("yajl Decodable, 2 threads", two),
                               ("swift JSONDecoder", foundation)):
                runs.append(("decode", tool, ["env", "YAJL_BENCH_MIN_BYTES=1", str(BENCH), "--child", case, spec]))
            if python:
                runs.append(("decode", "python ijson (dicts)", [python, "-c", PYTHON_EXTRACT["ijson"], d]))
        else:
            skipped.append(f"the decode rows ({BENCH} not built: swift build -c release --product YAJLBenchmarks)")
    runs.append(("validate", "yajl validate", [str(YAJL), "validate", d]))
    if shutil.which("json_verify"):
        runs.append(("validate", "json_verify", ["<" + d, "json_verify", "-q"]))
    for name, code in PYTHON_VALIDATE.items():
        if python or name == "json":
            runs.append(("validate", f"python {name}", [python or sys.executable, "-c", code, d]))
    if shutil.which("jq"):
        runs.append(("validate", "jq empty", ["jq", "empty", d]))
    runs.append(("minify", "yajl reformat --minify", [str(YAJL), "reformat", "--minify", d]))
    if shutil.which("json_reformat"):
        runs.append(("minify", "json_reformat -m", ["<" + d, "json_reformat", "-m"]))
    if shutil.which("jq"):
        runs.append(("minify", "jq -c .", ["jq", "-c", ".", d]))
    runs.append(("count", "yajl stats", [str(YAJL), "stats", d]))
    if counter:
        runs.append(("count", "C count-events (libyajl)", [counter, d]))
    if not python:
        skipped.append("python ijson and orjson")
    if not shutil.which("jq"):
        skipped.append("jq (not installed)")
    return runs, skipped


def read_through(path):
    """Reads the document once, untimed, so that every run starts with it in the page cache (the
    machine may have reclaimed pages of it since the last run)."""
    with open(path, "rb", buffering=0) as f:
        while f.read(1 << 20):
            pass


def measure(argv):
    """(seconds, peak RSS in KiB) of one run, output discarded; raises when the tool fails. The
    peak comes from /usr/bin/time, a small C parent (a child forked from this Python process
    would start with Python's resident pages); the time is measured here, around it."""
    stdin = None
    if argv[0].startswith("<"):  # the document on standard input
        stdin, argv = open(argv[0][1:], "rb"), argv[1:]
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        result = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", report.name] + argv,
            stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        seconds = time.perf_counter() - start
        if stdin:
            stdin.close()
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {result.stderr.decode(errors='replace')[-300:]}")
        return seconds, int(report.read().split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("documents", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default=str(ROOT / "Docs" / "Peers.md"))
    arguments = parser.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("peers: /usr/bin/time is missing (scripts/install-deps.sh installs it)")
    if not YAJL.exists():
        sys.exit(f"peers: {YAJL} not built (swift build -c release --product yajl)")
    python, why = venv_python()
    if why:
        print(f"peers: SKIPPING ijson and orjson: {why}", file=sys.stderr)
    counter, why_no_counter = count_events()
    if why_no_counter:
        print(f"peers: SKIPPING the C event counter: {why_no_counter}", file=sys.stderr)

    rows, notes = [], []
    for document in arguments.documents:
        path = Path(document)
        with open(path, "rb") as f:
            head = f.read(4096)
        kind = path.name.split("-")[0]
        shape = kind if b'"results"' in head and kind in DECODE_CASES else None
        runs, skipped = commands(path, python, shape, counter)
        if why_no_counter:
            skipped.append(f"the C event counter ({why_no_counter})")
        for name in skipped:
            notes.append(f"{path.name}: skipped {name}")
        times = {(task, tool): [] for task, tool, _ in runs}
        peaks = {(task, tool): 0 for task, tool, _ in runs}
        # A process on a small document lasts a few milliseconds, where the shared machine's noise
        # is as large as the differences: ten times the rounds there.
        rounds = arguments.rounds * (10 if path.stat().st_size < SMALL_DOCUMENT else 1)
        for _ in range(rounds):  # interleaved: every tool once per round
            for task, tool, argv in runs:
                read_through(path)
                seconds, kib = measure(argv)
                times[(task, tool)].append(seconds)
                peaks[(task, tool)] = max(peaks[(task, tool)], kib)
        size = path.stat().st_size / (1 << 20)
        for task in ("extract", "decode", "validate", "minify", "count"):
            ours = [key for key in times if key[0] == task and key[1].startswith("yajl")]
            if not ours:
                continue
            base = statistics.median(times[ours[0]])
            for (t, tool), values in times.items():
                if t != task:
                    continue
                median = statistics.median(values)
                ratio = median / base if base > 0 else float("nan")
                rows.append((path.name, size, rounds, task, tool, median, ratio, peaks[(t, tool)] / 1024))
        print(f"peers: {path.name} done", file=sys.stderr)

    lines = [
        "# Peers, side by side",
        "",
        "Written by `python3 Benchmarks/peers.py` (`make bench-peers`): each tool as its own process on",
        "the same file, interleaved round by round, median wall time and the highest peak RSS; the time",
        "ratio is to swift-yajl's own command for the same task in the same run (below 1: the peer is",
        "faster). Python peers run in a virtual environment with ijson (yajl2_c backend) and orjson",
        "from PyPI. Machine: the project's shared 2-core machine, so times move by up to 2× from run to",
        "run; compare ratios within a table. Documents under 4 MiB, where a process lasts a few",
        "milliseconds, get ten times the rounds. Before each run the document is read through once,",
        "untimed, so that every tool starts from the page cache.",
        "",
        "| document | MiB | rounds | task | tool | ms (median) | × yajl's time | peak RSS (MiB) |",
        "|---|---:|---:|---|---|---:|---:|---:|",
    ]
    for name, size, rounds, task, tool, median, ratio, peak in rows:
        lines.append(
            f"| {name} | {size:.1f} | {rounds} | {task} | {tool} | {median * 1000:.2f} | {ratio:.2f} | {peak:.1f} |"
        )
    lines += ["", "Commands (FILE is the document):", ""]
    lines += [
        "- extract: `yajl extract '$.results[*]' FILE`; ijson `for item in ijson.items(f, 'results.item')`;",
        "  orjson / json: load the whole document, then `len(doc['results'])`; `jq -c '.results[]' FILE`.",
        "- validate: `yajl validate FILE`; `json_verify -q < FILE`; `orjson.loads` / `json.load`; `jq empty FILE`.",
        "- minify: `yajl reformat --minify FILE`; `json_reformat -m < FILE`; `jq -c . FILE`.",
        "- count: `yajl stats FILE`; `count-events FILE` (`Benchmarks/count-events.c` over the benchmark's C",
        "  baseline, `cc -O2 -I CBaseline/include count-events.c CBaseline/baseline.c -lyajl`: YAJL's own",
        "  callbacks counting, integers and doubles converted by YAJL, 64 KiB reads).",
        "- decode: `YAJLBenchmarks --child records-decodable-1t SPEC` (and `records-decodable`,",
        "  `foundation-decoder`; on the numbers documents `geojson-decodable-1t`, `geojson-decodable`,",
        "  `foundation-geojson`), SPEC being `{\"name\":…,\"path\":FILE,\"bytes\":…,\"kind\":KIND}`",
        "  (KIND `records` or `numbers`), with `YAJL_BENCH_MIN_BYTES=1` (one pass); ijson as for",
        "  extract (a dict per record).",
    ]
    if notes:
        lines += ["", "Skipped:", ""] + [f"- {note}" for note in notes]
    Path(arguments.output).write_text("\n".join(lines) + "\n")
    print(f"peers: wrote {arguments.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
