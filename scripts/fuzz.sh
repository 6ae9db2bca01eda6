#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ with the toolchain's libFuzzer and AddressSanitizer (one
# binary, .build/fuzz/fuzz), and runs them side by side, each for FUZZ_SECONDS (default 60) seconds.
#   scripts/fuzz.sh [target...]      targets: parser path writer (default: all three)
#   scripts/fuzz.sh --build-only     builds the binary and runs nothing
# The binary is built again only when a source it is made of (Sources/YAJLCore, the C targets,
# Fuzz/) is newer than it, so that CI can build it beside the release build and run it later.
# Seeds come from Fuzz/corpus/<target> (committed); what the fuzzer finds grows in
# .build/fuzz/corpus-<target>; a crash leaves .build/fuzz/crash-<target>-* and fails the run.
# Replay one: YAJL_FUZZ_TARGET=<target> .build/fuzz/fuzz .build/fuzz/crash-<target>-...
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
build_only=0
if [ "${1:-}" = --build-only ]; then
  build_only=1
  shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parser path writer)
out=.build/fuzz
mkdir -p "$out"
root=$PWD

mapfile -t library_sources < <(find "$root/Sources/YAJLCore" -name '*.swift' | sort)
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
    support_objects+=("$root/$object")
  done
}

for target in "${targets[@]}"; do
  case $target in
    parser | path | writer) ;;
    *) echo "fuzz: unknown target '$target' (parser, path, writer)" >&2; exit 2 ;;
  esac
done

# Up to date: the binary exists and none of its sources (nor this script) is newer.
if [ -x "$out/fuzz" ] && [ -z "$(find Sources/YAJLCore Sources/CYAJL Sources/CYAJLSupport Fuzz scripts/fuzz.sh -newer "$out/fuzz" \
    -type f -print -quit)" ]; then
  echo "fuzz: $out/fuzz is up to date"
else
  rm -f "$out/fuzz"
  echo "fuzz: building the C target"
  build_support
  # One binary for the three targets, so that the library's sources are compiled once: one module
  # of the library's sources and the targets', so the targets reach internals too. YAJL_FUZZ_TARGET
  # picks the target a process runs (Fuzz/Common/FuzzMain.swift).
  echo "fuzz: building the targets"
  # Compiled in $out, where the whole-module compile leaves a module file beside the binary.
  # shellcheck disable=SC2086
  if ! (cd "$out" && swiftc -swift-version 6 -O -wmo -num-threads 2 -g -parse-as-library -module-name YAJLFuzz \
      -package-name swift_yajl -sanitize=fuzzer,address \
      -I "$root/Sources/CYAJL" -I "$root/Sources/CYAJLSupport/include" $yajl_flags \
      "${library_sources[@]}" "$root"/Fuzz/Common/*.swift "$root/Fuzz/Parser/ParserFuzzer.swift" \
      "$root/Fuzz/Path/PathFuzzer.swift" "$root/Fuzz/Writer/WriterFuzzer.swift" "${support_objects[@]}" \
      -lyajl -o fuzz >build.log 2>&1); then
    grep -v "Cannot export local symbol" "$out/build.log" >&2
    echo "fuzz: building the targets failed" >&2
    exit 1
  fi
fi
[ "$build_only" = 0 ] || exit 0

# The targets run side by side, each for the same time (on two cores, three targets each get about
# two thirds of one); each one's outcome is reported once all have ended.
pids=()
for target in "${targets[@]}"; do
  mkdir -p "$out/corpus-$target"
  echo "fuzz: running $target for ${seconds}s"
  YAJL_FUZZ_TARGET=$target "$out/fuzz" "$out/corpus-$target" "Fuzz/corpus/$target" \
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
