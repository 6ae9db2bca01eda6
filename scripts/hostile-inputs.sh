#!/usr/bin/env bash
# Feeds hostile documents to the `yajl` tool, streamed from a generator through a pipe (so a 2 GiB
# string is never on disk), and checks what Docs/Security.md promises for each: it ends in time
# (under 5 s, or under 3× what YAJL's own json_verify takes on the heaviest document on this
# machine, whichever is longer: the machines are shared and their speed varies 2× from run to
# run), with its exit status (1 and a located error, unless the case says otherwise: documents
# deep or quadratic that the options allow are read, exit 0), at most 64 MiB of peak RSS.
#   scripts/hostile-inputs.sh [path/to/yajl]
set -uo pipefail
cd "$(dirname "$0")/.."
yajl=${1:-.build/release/yajl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# generate KIND: writes the hostile document to stdout (stops quietly when the reader is gone).
cat > "$work/generate.py" <<'PY'
import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # the tool stops reading early: just end
out = sys.stdout.buffer
kind = sys.argv[1]
def repeat(prefix, unit, count, suffix, batch=1 << 20):
    out.write(prefix)
    block = unit * max(1, batch // len(unit))
    per = len(block) // len(unit)
    while count > 0:
        n = min(count, per)
        out.write(block if n == per else unit * n)
        count -= n
    out.write(suffix)
if kind == "brackets":      repeat(b"", b"[", 10_000_000, b"")
elif kind == "string-2g":   repeat(b'{"blob": "', b"abcdefgh", (2 << 30) // 8, b'"}')
elif kind == "keys-100m":   repeat(b"{", b'"k":0,', 100_000_000, b'"last":')           # ends inside the object
elif kind == "utf8-keys":   repeat(b'{"ok": 1, ', b'"caf\xc3\xa9": 1, ', 100_000, b'"bad\xc3\x28key": 1}')
elif kind == "nul":         repeat(b'{"a": [', b'1, ', 1_000_000, b'\x00]}')
elif kind == "endless":     repeat(b"[", b"1,", 1 << 62, b"")                          # never ends
elif kind == "digits":      repeat(b"[", b"7", 100_000, b", 1e" + b"9" * 100_000 + b"]x")
elif kind == "deep-mixed":  repeat(b"", b'{"a":[', 600, b"")
elif kind == "deep-100k":   out.write(b"[" * 100_000 + b"1" + b"]" * 100_000)
elif kind == "nested-strings": out.write(b''.join([b'["' + b"x" * 400 + b'",'] * 2_000) + b"1" + b"]" * 2_000)
elif kind == "long-string": out.write(b'["' + b"ab" * 100_000 + b'"]')
out.flush()
PY

# The time budget: 3× json_verify (C YAJL, no paths, no events) on the 100,000,000 keys, measured
# here and now, and never under 5 s.
python3 "$work/generate.py" keys-100m | /usr/bin/time -f "%e" -o "$work/reference" json_verify -q >/dev/null 2>&1
reference=$(tail -1 "$work/reference")
budget=$(awk -v r="$reference" 'BEGIN { b = 3 * r; if (b < 5) b = 5; printf "%.1f", b }')
echo "hostile: json_verify takes ${reference} s on the 100,000,000 keys here: each case must end in under ${budget} s"

cases=(
  "10,000,000 opening brackets|brackets|validate"
  "a 2 GiB string (streamed)|string-2g|validate"
  "100,000,000 small keys in one object, cut short|keys-100m|stats"
  "invalid UTF-8 in a key|utf8-keys|validate"
  "a NUL byte|nul|validate"
  "a stream that never ends (--max-document-bytes 64M)|endless|validate --max-document-bytes 64M"
  "numbers with 100,000 digits, then garbage|digits|extract \$[*]"
  "1,200 levels of objects and arrays|deep-mixed|extract \$..a"
  "100,000 nested arrays, as deep as --max-depth allows|deep-100k|extract \$ --max-depth 100010|0"
  "100,000 nested arrays to NDJSON|deep-100k|to-ndjson \$ --max-depth 100010|0"
  "100,000 nested arrays as a JSONValue, built and released on two threads|deep-100k|stats --threads 2 --allow-multiple-values --max-depth 100010|0"
  "\$..* on 2,000 nested arrays of 400-byte strings|nested-strings|extract \$..* --max-depth 3000|0"
  "a pattern past the I-Regexp cap|long-string|extract \$[?search(@,'[ab]{1,9000}x')]|2"
  "a pattern under the cap on a 200 KB string|long-string|extract \$[?search(@,'([ab]b){1,200}x')]|0"
)

failed=0
for entry in "${cases[@]}"; do
  IFS='|' read -r name kind command expected <<<"$entry"
  expected=${expected:-1}
  # shellcheck disable=SC2086
  python3 "$work/generate.py" "$kind" | /usr/bin/time -f "%e %M" -o "$work/time" \
    timeout 30 "$yajl" $command - >"$work/out" 2>"$work/err"
  status=${PIPESTATUS[1]}  # /usr/bin/time exits with the tool's status
  # Its last line is "seconds KiB" (a "Command exited with non-zero status" line may precede it).
  read -r seconds kib < <(tail -1 "$work/time")
  mib=$((kib / 1024))
  error=$(head -1 "$work/err" | cut -c1-110)
  if [ "$status" -ne "$expected" ] || [ "$mib" -gt 64 ] || awk "BEGIN { exit !($seconds >= $budget) }"; then
    echo "hostile: FAIL  $name: exit $status, ${seconds} s, ${mib} MiB (want exit $expected, < ${budget} s, <= 64 MiB)"
    sed 's/^/    /' "$work/err" | head -3
    failed=1
  else
    echo "hostile: ok    $name: exit $status in ${seconds} s, ${mib} MiB: $error"
  fi
done
[ "$failed" -eq 0 ] && echo "hostile: ${#cases[@]} documents, each answered as expected in under ${budget} s within 64 MiB"
exit "$failed"
