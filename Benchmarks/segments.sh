#!/usr/bin/env bash
# Segmented download against a loopback server limited per connection (as object stores are):
# `yajl stats URL` with 1 connection, then with --segments 2 and 4, on the same generated document.
# Prints wall time, throughput, the ratio to one connection and peak RSS. Usage:
#   bash Benchmarks/segments.sh [YAJL] [SIZE] [RATE_PER_CONNECTION]     (default .build/release/yajl 64M 8000000)
set -euo pipefail
cd "$(dirname "$0")/.."
yajl=${1:-.build/release/yajl}
size=${2:-64M}
rate=${3:-8000000}
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
"$yajl" generate "$work/doc.json" --kind records --size "$size" >/dev/null
python3 scripts/test-http-server.py "$work/doc.json" --throttle "$rate" --idle 30 --log "$work/log" >"$work/port" &
server=$!
for _ in $(seq 50); do [ -s "$work/port" ] && break; sleep 0.1; done
url="http://127.0.0.1:$(awk '{print $2}' "$work/port")/doc.json"
bytes=$(stat -c %s "$work/doc.json")
expected=$("$yajl" stats "$work/doc.json")
echo "document: $bytes bytes; server: $rate bytes/s per connection"
echo "| connections | seconds | MB/s | × one connection | peak RSS (MiB) |"
echo "|---|---:|---:|---:|---:|"
base=""
for segments in 1 2 4; do
  start=$(date +%s.%N)
  got=$(/usr/bin/time -f "%M" -o "$work/rss" "$yajl" stats "$url" --segments "$segments" --segment-size 4M)
  end=$(date +%s.%N)
  [ "$got" = "$expected" ] || { echo "bench-segments: --segments $segments gave different stats" >&2; exit 1; }
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  [ -z "$base" ] && base=$seconds
  awk -v n="$segments" -v s="$seconds" -v bytes="$bytes" -v base="$base" -v rss="$(cat "$work/rss")" \
    'BEGIN { printf "| %d | %.2f | %.1f | %.2f | %.1f |\n", n, s, bytes / s / 1e6, base / s, rss / 1024 }'
done
