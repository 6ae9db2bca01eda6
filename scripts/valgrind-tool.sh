#!/usr/bin/env bash
# Runs the `yajl` tool under valgrind on valid and invalid documents, through every command and
# its error and early-stop paths. Fails if valgrind finds a memory error or a "definitely lost"
# block (the Swift runtime's one-time allocations are "still reachable", which is fine).
#   scripts/valgrind-tool.sh [path/to/yajl]
set -uo pipefail
cd "$(dirname "$0")/.."
yajl=${1:-.build/release/yajl}
if ! command -v valgrind >/dev/null; then
  echo "valgrind: not installed (run scripts/install-deps.sh)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind 3.19 (Debian 12) cannot read the DWARF 5 debug information that the toolchain's clang
# writes for the C target, and gives up on the whole executable: it runs a copy without debug
# information instead (its symbols stay, so reports still name functions).
objcopy --strip-debug "$yajl" "$work/yajl"
yajl="$work/yajl"

"$yajl" generate "$work/records.json" --kind records --size 256K >/dev/null
"$yajl" generate "$work/lines.ndjson" --kind ndjson --size 64K >/dev/null
head -c 5000 "$work/records.json" > "$work/truncated.json"
printf '{"results": [{"id": 1}, {"id": 2 "x"}]}' > "$work/bad-grammar.json"
printf '{"k\xff": 1}' > "$work/bad-utf8.json"
printf '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[' > "$work/deep.json"

runs=(
  "valid: validate|0|validate $work/records.json"
  "valid: stats|0|stats $work/records.json"
  "error: events on truncated input|1|events $work/truncated.json"
  "valid: extract|0|extract \$.results[*].address $work/records.json"
  "early stop: extract --limit 3|0|extract \$.results[*] $work/records.json --limit 3"
  "early stop: extract \$.meta|0|extract \$.meta $work/records.json"
  "valid: reformat|0|reformat $work/records.json"
  "valid: to-ndjson|0|to-ndjson \$.results[*] $work/records.json"
  "valid: from-ndjson|0|from-ndjson $work/lines.ndjson"
  "valid: ndjson extract|0|extract \$.id $work/lines.ndjson --allow-multiple-values"
  "error: truncated validate|1|validate $work/truncated.json"
  "error: truncated extract|1|extract \$.results[*] $work/truncated.json"
  "error: grammar|1|extract \$.results[*].id $work/bad-grammar.json"
  "error: invalid UTF-8|1|validate $work/bad-utf8.json"
  "error: depth limit|1|validate $work/deep.json --max-depth 16"
  "error: reformat truncated|1|reformat $work/truncated.json"
  "error: bad JSONPath|2|extract \$.[ $work/records.json"
  "error: missing file|2|validate $work/missing.json"
)

# One run, by its index in `runs`: its exit status and valgrind's log in $work/<index>.*.
check() {
  local name expected arguments
  IFS='|' read -r name expected arguments <<<"${runs[$1]}"
  # shellcheck disable=SC2086
  valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
    --error-exitcode=99 --log-file="$work/$1.valgrind" "$yajl" $arguments >/dev/null 2>"$work/$1.stderr"
  echo $? >"$work/$1.status"
}

# Two runs at a time (valgrind runs a program on one core; CI has two), reported in order.
for index in "${!runs[@]}"; do
  [ "$(jobs -rp | wc -l)" -lt 2 ] || wait -n
  check "$index" &
done
wait

failed=0
for index in "${!runs[@]}"; do
  IFS='|' read -r name expected arguments <<<"${runs[$index]}"
  status=$(cat "$work/$index.status" 2>/dev/null)
  log="$work/$index.valgrind"
  lost=$(grep -Eo "definitely lost: [0-9,]+ bytes" "$log" 2>/dev/null | head -1)
  if ! [[ "$status" =~ ^[0-9]+$ ]]; then
    echo "valgrind: FAIL  $name: the run left no exit status"
    failed=1
  elif [ "$status" -eq 99 ] || grep -q "ERROR SUMMARY: [1-9]" "$log"; then
    echo "valgrind: FAIL  $name (yajl $arguments)"
    sed 's/^/    /' "$log" | head -60
    failed=1
  elif [ "$status" -ne "$expected" ]; then
    echo "valgrind: FAIL  $name: exit $status, expected $expected"
    sed 's/^/    /' "$work/$index.stderr" | head -5
    failed=1
  else
    echo "valgrind: ok    $name (exit $status${lost:+, $lost})"
  fi
done
[ "$failed" -eq 0 ] && echo "valgrind: ${#runs[@]} runs, no memory error, nothing definitely lost"
exit "$failed"
