#!/usr/bin/env bash
# Fuzzes the engine's loaders with libFuzzer under ASan + UBSan (fuzz/, built with clang
# into build/fuzz), each target in turn for a set time, and prints per target: the run
# time, executions, coverage (cov: edges, ft: features), corpus size and findings.
#   tools/fuzz.sh                       every target, FUZZ_SECONDS (60) each
#   tools/fuzz.sh 300 fuzz_tokenize     one target for 300 s
# Seeds: fuzz/corpus/<target>/ (committed, from tests/fixtures; fuzz/make_corpus.py) and
# fuzz/regressions/<target>/; dictionaries of the JSON keys: fuzz/*.dict. The
# structure-aware JSON targets (fuzz_json_config, fuzz_json_safetensors, fuzz_json_tokenizer:
# fuzz/json_mutator.h, issue 32) are also seeded with every config.json + checkpoint and
# tokenizer.json of tests/fixtures/** and models/**, written at run time into
# build/fuzz/seeds/<target>/ (fuzz/json_seeds.py), and take inputs up to 1 MB from the
# start (-max_len=1048576 -len_control=0: deep nesting, long arrays). What the fuzzer
# learns goes to build/fuzz/corpus/<target>/
# (kept between runs, never committed); a crash, leak, timeout or out-of-memory input is
# saved as build/fuzz/findings/<target>/<kind>-<sha1>: reproduce it with
#   build/fuzz/<target> build/fuzz/findings/<target>/<file>
# and, once fixed, keep it as fuzz/regressions/<target>/<name>: npm test replays those.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_safetensors fuzz_config fuzz_tokenizer_json fuzz_tokenize fuzz_model_forward
                                     fuzz_json_config fuzz_json_safetensors fuzz_json_tokenizer)
json_max_len=1048576

echo "== building the fuzz targets (clang, ASan + UBSan + libFuzzer) in build/fuzz"
flock /tmp/tfp-build.lock bash -c '
  [ -f build/fuzz/build.ninja ] || cmake -S fuzz -B build/fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
    -DTFP_SAN_OPT=-O1 >/dev/null
  cmake --build build/fuzz -j"$(nproc)" --target "$@" >/dev/null' _ "${targets[@]}"

summary=()
status=0
case " ${targets[*]} " in
  *" fuzz_json_"*)  # written aside, then moved in per target: runs of other targets may be reading theirs
    tmp=build/fuzz/seeds.$$
    echo "== seeds from tests/fixtures and models: $(python3 fuzz/json_seeds.py "$tmp" "$json_max_len")"
    for t in "${targets[@]}"; do
      [ -d "$tmp/$t" ] && rm -rf "build/fuzz/seeds/$t" && mkdir -p build/fuzz/seeds && mv "$tmp/$t" "build/fuzz/seeds/$t"
    done
    rm -rf "$tmp" ;;
esac
for t in "${targets[@]}"; do
  work=build/fuzz/corpus/$t findings=build/fuzz/findings/$t log=build/fuzz/$t.log
  mkdir -p "$work" "$findings"
  before=$(ls "$findings" | wc -l)
  seeds=(fuzz/corpus/$t)
  [ -d fuzz/regressions/$t ] && seeds+=(fuzz/regressions/$t)
  [ -d build/fuzz/seeds/$t ] && seeds+=(build/fuzz/seeds/$t)
  sizes=()
  [[ $t == fuzz_json_* ]] && sizes=(-max_len="$json_max_len" -len_control=0)
  nseeds=0
  for s in "${seeds[@]}"; do [ -d "$s" ] && nseeds=$((nseeds + $(find "$s" -type f | wc -l))); done
  echo "== $t: ${seconds} s"
  start=$(date +%s)
  # New inputs go to $work (first folder); the committed seeds are read, never written.
  # A single allocation over 1 GiB is a finding: a size taken on trust from a file.
  rc=0 dict=()
  # JSON keys the readers look for (fuzz/<name>.dict; the model target reads config.json too).
  d=fuzz/${t#fuzz_}.dict
  case $t in
    fuzz_model_forward | fuzz_json_config | fuzz_json_safetensors) d=fuzz/config.dict ;;
    fuzz_json_tokenizer) d=fuzz/tokenizer_json.dict ;;
  esac
  [ -f "$d" ] && dict=(-dict="$d")
  "build/fuzz/$t" "$work" "${seeds[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 \
    -malloc_limit_mb=1024 -print_final_stats=1 "${dict[@]}" "${sizes[@]}" \
    -artifact_prefix="$findings/" >"$log" 2>&1 || rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
  last=$(grep -E '^#[0-9]+' "$log" | grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9]*/[0-9a-zA-Z]*' | tail -1)
  found=$(( $(ls "$findings" | wc -l) - before ))
  persec=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | awk '{print $2}' | tail -1)
  rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$log" | awk '{print $2}' | tail -1)
  # What is in the findings folder, by kind (crash-, leak-, timeout-, oom-, slow-unit-).
  kinds=$(ls "$findings" | sed -n 's/^\([a-z-]*\)-[0-9a-f]\{40\}$/\1/p' | sort | uniq -c | awk '{printf "%s%s %s", n++ ? ", " : "", $1, $2}')
  line="$t: ${took} s, ${execs} executions (${persec:-?}/s), ${last:-no coverage line}, ${nseeds} seeds"
  line+="${sizes:+, max_len $json_max_len}, peak ${rss:-?} MB, findings: ${found} new (folder: ${kinds:-none})"
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
    status=1
    line+=" (see $log; $(ls -t "$findings" | head -1))"
    grep -E 'ERROR: |runtime error|fuzz invariant|SUMMARY' "$log" | head -5 | sed 's/^/    /'
  fi
  echo "$line"
  summary+=("$line")
done
echo "== fuzz summary (${seconds} s per target)"
printf '  %s\n' "${summary[@]}"
exit $status
