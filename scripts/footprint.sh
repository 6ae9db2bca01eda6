#!/usr/bin/env bash
# The tool's peak memory on a local file stays within its budget (20 MiB, for the standard
# release build, `make release`): each command a user runs on a file, on 16 MiB of generated
# records, five runs each, the least peak RSS (GNU time's %M). Most of the peak is the process's
# base (the executable's code pages, the shared libraries), so a new dependency shows here first.
# The least of five, not the median: when the machine's cores are busy, extract's parsing thread
# runs ahead and fills its queue of parsed batches (eight, about half a megabyte of tapes).
#
# usage: scripts/footprint.sh YAJL   (`make footprint`; FOOTPRINT_LIMIT_KIB overrides the budget)
set -euo pipefail
yajl=${1:?usage: footprint.sh YAJL}
limit=${FOOTPRINT_LIMIT_KIB:-20480}
command -v /usr/bin/time > /dev/null || { echo "footprint: /usr/bin/time is missing (make deps)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$yajl" generate "$work/records.json" --kind records --size 16M > /dev/null

failed=0
run() {
  local peaks=() kib
  for _ in 1 2 3 4 5; do
    if ! /usr/bin/time -f '%M' -o "$work/peak" "$yajl" "$@" > /dev/null 2> "$work/err"; then
      echo "footprint: FAIL  yajl $*: the command failed: $(head -3 "$work/err")"
      failed=1
      return
    fi
    peaks+=("$(tail -1 "$work/peak")")
  done
  kib=$(printf '%s\n' "${peaks[@]}" | sort -n | head -1)
  if [ "$kib" -gt "$limit" ]; then
    echo "footprint: FAIL  yajl $*: peak ${kib} KiB (runs: ${peaks[*]}), over ${limit} KiB"
    failed=1
  else
    echo "footprint: ok    yajl $*: peak ${kib} KiB (runs: ${peaks[*]})"
  fi
}

doc="$work/records.json"
run validate "$doc"
run stats "$doc"
run extract '$.results[*]' "$doc"
run reformat --minify "$doc"
run to-ndjson '$.results[*]' "$doc"
if [ "$failed" -ne 0 ]; then
  echo "footprint: failed (above). A command over the budget of ${limit} KiB: see what the peak is made" \
    "of with make bench-size (Benchmarks/process-size.sh)."
  exit 1
fi
echo "footprint: every command's least peak was within ${limit} KiB"
