#!/usr/bin/env bash
# The resident memory of `yajl validate` beside `json_verify`, and what it is made of: for each
# binary, the process is held on an open standard input (the parse has started, nothing is read
# yet), its /proc/PID/smaps_rollup is read, and its resident pages are summed by mapped file. Then
# the peak RSS of a whole run on FILE (GNU time's %M).
#
# usage: Benchmarks/process-size.sh FILE YAJL [YAJL ...]
#   e.g. Benchmarks/process-size.sh ../shared/corpus/twitter.json .build/release/yajl
# (`make bench-size` passes the release build; give a second, dynamically linked build, made with
# `make release RELEASE_FLAGS=`, to compare the two ways of linking.)
set -euo pipefail
file=${1:?usage: process-size.sh FILE YAJL [YAJL ...]}
shift
[ $# -gt 0 ] || { echo "usage: process-size.sh FILE YAJL [YAJL ...]" >&2; exit 2; }
command -v /usr/bin/time > /dev/null || { echo "process-size: /usr/bin/time is missing (make deps)" >&2; exit 2; }

# Prints the breakdown of the process `$@` reading a held standard input.
breakdown() {
  local fifo pid
  fifo=$(mktemp -u)
  mkfifo "$fifo"
  "$@" < "$fifo" > /dev/null 2>&1 &
  pid=$!
  exec 3> "$fifo"  # the writer end: the process blocks in its first read
  sleep 0.5
  echo
  echo "\`$*\` waiting on standard input (pid $pid):"
  echo
  echo '```'
  grep -E '^(Rss|Pss|Shared_Clean|Private_Clean|Private_Dirty|Anonymous):' "/proc/$pid/smaps_rollup"
  echo "resident KiB by mapping:"
  awk '/^[0-9a-f]+-[0-9a-f]+ /{name = (NF >= 6 ? $6 : "[anonymous]")} /^Rss:/{rss[name] += $2}
       END {for (n in rss) if (rss[n] >= 16) printf "%8d  %s\n", rss[n], n}' "/proc/$pid/smaps" | sort -rn
  echo '```'
  echo '[1]' >&3
  exec 3>&-
  wait "$pid" || true
  rm -f "$fifo"
}

peak() {
  local kib
  kib=$( { /usr/bin/time -f '%M' "$@" > /dev/null; } 2>&1 | tail -1)
  printf '| `%s` | %s |\n' "$*" "$kib"
}

echo "## Process size"
echo
echo "| command | peak RSS (KiB) |"
echo "|---|---:|"
for yajl in "$@"; do peak "$yajl" validate "$file"; done
kib=$( { /usr/bin/time -f '%M' json_verify -q < "$file" > /dev/null; } 2>&1 | tail -1)
printf '| `json_verify -q < %s` | %s |\n' "$file" "$kib"
for yajl in "$@"; do breakdown "$yajl" validate -; done
breakdown json_verify -q
