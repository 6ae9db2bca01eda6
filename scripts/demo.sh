#!/usr/bin/env bash
# The README's demo: generate a ~256 MiB records document (once), then run `yajl stats` on it and
# show the counts, the time and the peak memory.
set -euo pipefail
yajl=$1 dir=$2 size=$3
mkdir -p "$dir"
doc="$dir/records-$size.json"
if [ ! -s "$doc" ]; then
  echo "demo: generating $doc ..."
  "$yajl" generate "$doc" --kind records --size "$size" >/dev/null
fi
bytes=$(stat -c %s "$doc")
echo "demo: yajl stats $doc  ($((bytes / 1048576)) MiB)"
report=$(mktemp)
trap 'rm -f "$report"' EXIT
/usr/bin/time -f "%e %M" -o "$report" "$yajl" stats "$doc"
read -r seconds peak_kib < "$report"
awk -v s="$seconds" -v k="$peak_kib" -v b="$bytes" 'BEGIN {
  printf "demo: %.2f s, %.0f MB/s, peak memory %.1f MiB for a %.0f MiB document\n", s, (s > 0 ? b / 1e6 / s : 0), k / 1024, b / 1048576 }'
