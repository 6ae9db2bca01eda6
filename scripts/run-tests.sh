#!/usr/bin/env bash
# Runs the Swift Testing suite and ends with one plain summary line, "tests: N passed, N failed,
# N skipped", so that CI reads the result from the suite itself. Extra arguments are the
# `swift build` options of the build to test (`--sanitize=address --scratch-path .build/asan`);
# build the tests first (`make test` does).
#
# The suites run in two test processes side by side: CI has two cores, and one process left one
# of them idle much of the time (many suites wait on threads, servers or timeouts). Inside each
# process the tests run one at a time: suites that measure their own process's threads,
# descriptors and resident memory need that. The test binary is run directly, with the arguments
# `swift test` gives it, because two `swift test` runs on one build directory wait for each
# other's lock. YAJL_TEST_PROCESSES=1 runs every suite in one process.
set -uo pipefail
bin=$(swift build --show-bin-path "$@") || exit 1
tests="$bin/swift-yajlPackageTests.xctest"
if [ ! -x "$tests" ]; then
  echo "tests: $tests is missing: build the tests first (swift build --build-tests $*)"
  exit 1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NO_COLOR=1

# The first process's suites: the longest, about half of the suite's time (under AddressSanitizer
# too). The second process runs every other suite, so a suite added later always runs.
first='\.(ValidationVerdictTests|JSONPathMemoryTests|BulkDropTests|ReliabilityTests|DeepJSONValueTests|NetworkFaultTests|SegmentedDownloadTests|RecordDecodingTests|LeanReadAheadTests|ChunkInvarianceTests)/'

run() {  # run NAME ARGS...: one test process, its output in $dir/NAME.log, its status in $dir/NAME.status
  local name=$1 start=$SECONDS
  shift
  "$tests" --testing-library swift-testing --no-parallel "$@" >"$dir/$name.log" 2>&1
  echo $? >"$dir/$name.status"
  echo "tests: process '$name' ended after $((SECONDS - start)) s" >>"$dir/$name.log"
}

if [ "${YAJL_TEST_PROCESSES:-2}" = 1 ]; then
  names=(all)
  run all
else
  names=(first second)
  echo "tests: running the suites in two processes side by side; each prints its log when both are done"
  run first --filter "$first" &
  run second --skip "$first" &
  wait
fi

status=0
total=0
failed=0
skipped=0
for name in "${names[@]}"; do
  log="$dir/$name.log"
  cat "$log"
  code=$(cat "$dir/$name.status")
  [ "$code" = 0 ] || status=$code
  count=$(grep -Eo 'Test run with [0-9]+ tests?' "$log" | tail -1 | grep -Eo '[0-9]+')
  if [ -z "$count" ]; then
    echo "tests: process '$name' reported no result (exit status $code)"
    [ "$status" != 0 ] || status=1
    continue
  fi
  total=$((total + count))
  failed=$((failed + $(grep -E '^✘ Test .* failed after' "$log" | grep -vc '^✘ Test run with')))
  skipped=$((skipped + $(grep -E '^[^ ]+ Test .* skipped' "$log" | grep -vcE 'passed after|failed after|started\.$')))
done
echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
exit "$status"
