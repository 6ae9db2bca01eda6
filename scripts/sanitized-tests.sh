#!/usr/bin/env bash
# Runs the whole test suite once under AddressSanitizer (a separate build in .build/asan).
# Peak-memory assertions say they are skipped there (ASan's shadow memory dominates RSS); every
# other assertion runs. Ends with the suite's own summary line.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build/asan
echo "sanitize: building the tests with AddressSanitizer in $scratch"
swift build --build-tests --sanitize=address --scratch-path "$scratch"
# detect_leaks: LeakSanitizer also runs at exit; the Swift runtime's one-time caches are not leaks.
# malloc_context_size: a report names 8 frames of where the memory was allocated and freed, not
# 30; what is detected is the same, and the debug build's code allocates often, so unwinding fewer
# frames at each allocation shortens the run.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0:malloc_context_size=8}"
export YAJL_SANITIZER=address
echo "sanitize: running the suite under AddressSanitizer"
bash scripts/run-tests.sh --sanitize=address --scratch-path "$scratch"
