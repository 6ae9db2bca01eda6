#!/usr/bin/env bash
# Runs the Swift Testing suite and ends with one plain summary line, "tests: N passed, N failed",
# so that CI reads the result from the suite itself (XCTest, which has no tests here, prints its own
# "Executed 0 tests" line). Extra arguments go to `swift test`.
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift test --skip-build --no-parallel "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
total=$(grep -Eo 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -Eo '[0-9]+')
failed=$(grep -E '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with')
skipped=$(grep -E '^[^ ]+ Test .* skipped' "$log" | grep -vcE 'passed after|failed after|started\.$')
if [ -z "$total" ]; then
  echo "tests: the test runner reported no result (exit status $status)"
  exit $(( status == 0 ? 1 : status ))
fi
echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
exit "$status"
