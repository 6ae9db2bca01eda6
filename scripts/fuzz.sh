#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ with the toolchain's libFuzzer and AddressSanitizer, and
# runs them side by side, each for FUZZ_SECONDS (default 60) seconds.
#   scripts/fuzz.sh [target...]      targets: parser path writer (default: all three)
# Seeds come from Fuzz/corpus/<target> (committed); what the fuzzer finds grows in
# .build/fuzz/corpus-<target>; a crash leaves .build/fuzz/crash-<target>-* and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parser path writer)
out=.build/fuzz
mkdir -p "$out"

library_sources=$(find Sources/YAJLCore -name '*.swift' | sort)
yajl_flags=$(pkg-config --cflags-only-I yajl 2>/dev/null || true)
# The package's C target, compiled once with the same sanitizers, for every fuzz target.
clang=$(dirname "$(command -v swiftc)")/clang
support_objects=()
build_support() {
  local file object
  for file in Sources/CYAJLSupport/*.c; do
    object="$out/support-$(basename "$file" .c).o"
    # shellcheck disable=SC2086
    "$clang" -O2 -g -fsanitize=fuzzer-no-link,address -I Sources/CYAJLSupport/include $yajl_flags \
      -c "$file" -o "$object"
    support_objects+=("$object")
  done
}

build() {
  local target=$1 source
  case $target in
    parser) source=Fuzz/Parser/ParserFuzzer.swift ;;
    path) source=Fuzz/Path/PathFuzzer.swift ;;
    writer) source=Fuzz/Writer/WriterFuzzer.swift ;;
    *) echo "fuzz: unknown target '$target' (parser, path, writer)" >&2; exit 2 ;;
  esac
  echo "fuzz: building $target"
  # One module: the library's sources and the target's, so the target reaches internals too.
  # shellcheck disable=SC2086
  if ! swiftc -swift-version 6 -O -g -parse-as-library -module-name YAJLFuzz$target -package-name swift_yajl \
      -sanitize=fuzzer,address \
      -I Sources/CYAJL -I Sources/CYAJLSupport/include $yajl_flags \
      $library_sources Fuzz/Common/FuzzInput.swift "$source" "${support_objects[@]}" \
      -lyajl -o "$out/fuzz-$target" >"$out/build-$target.log" 2>&1; then
    grep -v "Cannot export local symbol" "$out/build-$target.log" >&2
    echo "fuzz: building $target failed" >&2
    exit 1
  fi
}

echo "fuzz: building the C target"
build_support
# The targets are built side by side (each is one whole-module compile, on one core), then run
# one after another.
pids=()
for target in "${targets[@]}"; do
  build "$target" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid" || { kill "${pids[@]}" 2>/dev/null; exit 1; }
done

# The targets run side by side, each for the same time (on two cores, three targets each get about
# two thirds of one); each one's outcome is reported once all have ended.
pids=()
for target in "${targets[@]}"; do
  mkdir -p "$out/corpus-$target"
  echo "fuzz: running $target for ${seconds}s"
  "$out/fuzz-$target" "$out/corpus-$target" "Fuzz/corpus/$target" \
    -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/crash-$target-" 2>"$out/$target.log" &
  pids+=($!)
done
status=0
for index in "${!targets[@]}"; do
  target=${targets[$index]}
  if ! wait "${pids[$index]}"; then
    echo "fuzz: $target FAILED: see $out/$target.log and $out/crash-$target-*" >&2
    tail -40 "$out/$target.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/$target.log" | sed "s/^/fuzz: $target: /"
    echo "fuzz: $target: no finding in ${seconds}s ($(ls "$out/corpus-$target" | wc -l) inputs in the grown corpus)"
  fi
done
exit $status
