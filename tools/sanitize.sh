#!/usr/bin/env bash
# The sanitizer stage of npm test (issue 15): builds, with clang under AddressSanitizer +
# UndefinedBehaviorSanitizer (-fno-sanitize-recover: any report fails), the fuzz targets
# and the loader/tokenizer/model doctest cases (fuzz/CMakeLists.txt, fuzz/san_tests.cmake)
# into build/sanitize (-O0 but for the kernels: quick to build), then
#   - replays every committed input of each fuzz target once (fuzz/corpus/<target>/ and
#     fuzz/regressions/<target>/): no fuzzing, only the inputs, each must pass;
#   - runs tfp_san_tests (the doctest cases fuzz/san_tests.cmake lists).
# Prints one summary line; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
flock /tmp/tfp-build.lock bash -c '
  [ -f build/sanitize/build.ninja ] ||
    cmake -S fuzz -B build/sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DTFP_SAN_TESTS=ON >/dev/null
  out=$(cmake --build build/sanitize -j"$(nproc)" 2>&1) || { echo "$out" >&2; exit 1; }
  echo "$out" | grep -vE "^\[[0-9]+/[0-9]+\] (Building|Linking|Re-checking)|^ninja: no work to do" || true'
t1=$(date +%s)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
inputs=0 targets=0
for bin in build/sanitize/fuzz_*; do
  [ -x "$bin" ] || continue
  t=$(basename "$bin")
  files=()
  for d in fuzz/corpus/$t fuzz/regressions/$t; do
    [ -d "$d" ] && while IFS= read -r f; do files+=("$f"); done < <(find "$d" -type f | sort)
  done
  [ ${#files[@]} -gt 0 ] || continue
  # Given files (not folders), libFuzzer runs each once and exits: a plain replay.
  if ! "$bin" "${files[@]}" >"build/sanitize/$t.replay.log" 2>&1; then
    echo "sanitizers: $t failed on a committed input (build/sanitize/$t.replay.log):" >&2
    grep -E 'Running:|ERROR|runtime error|fuzz invariant|SUMMARY' "build/sanitize/$t.replay.log" | tail -6 >&2
    exit 1
  fi
  inputs=$((inputs + ${#files[@]})) targets=$((targets + 1))
done
t2=$(date +%s)
build/sanitize/tfp_san_tests >build/sanitize/san_tests.log 2>&1 || { tail -40 build/sanitize/san_tests.log >&2; exit 1; }
cases=$(grep -o 'test cases: *[0-9]*' build/sanitize/san_tests.log | grep -o '[0-9]*$')
t3=$(date +%s)
echo "sanitizers (ASan+UBSan): ${targets} fuzz targets replayed ${inputs} inputs, ${cases} doctest cases passed;" \
     "build $((t1 - t0)) s, replay $((t2 - t1)) s, doctest $((t3 - t2)) s"
