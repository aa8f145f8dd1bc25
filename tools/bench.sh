#!/usr/bin/env bash
# Benchmarks: builds native + WASM (tools/build.sh all), then runs the GEMM benchmark
# natively and as WASM under Node, and the onnxruntime-web comparison.
#   tools/bench.sh [--quick]
# Environment: TFP_BENCH_NO_BUILD=1 skips the build; TFP_NATIVE_DIR / TFP_WASM_DIR pick
# other build folders (default build/native, build/wasm). Figures go to stdout; record
# them in bench/RESULTS.md with the machine and date.
set -euo pipefail
cd "$(dirname "$0")/.."
native_dir=${TFP_NATIVE_DIR:-build/native}
wasm_dir=${TFP_WASM_DIR:-build/wasm}
[ "${TFP_BENCH_NO_BUILD:-0}" = 1 ] || bash tools/build.sh all

echo "== $(date -u '+%Y-%m-%d %H:%M UTC')  $(lscpu | sed -n 's/^Model name: *//p')  $(nproc) cpus, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== native: $native_dir/bench_gemm $*"
"$native_dir/bench_gemm" "$@"
echo
echo "== wasm: node $wasm_dir/bench_gemm.js $* (node $(node --version))"
node "$wasm_dir/bench_gemm.js" "$@"
echo
echo "== onnxruntime-web: node bench/gemm_ort.mjs $wasm_dir/bench_gemm.js $*"
node bench/gemm_ort.mjs "$wasm_dir/bench_gemm.js" "$@"
# Real-size random-weight checkpoints (issue 19 item 6): load, memory, prefill, tokens/s,
# natively and in the page's module under Node (bench/real_size_models_bench.mjs writes the
# five folders into build/real-models/ first if they are missing; ~1.2 GB, ~30 s). Skipped
# by --quick.
# End to end against onnxruntime-web (issue 14): GPT-2-small-shaped random weights written as
# an HF folder and as ONNX (Debian's python3-onnx) into build/e2e/, logits compared first;
# ORT at 1 and 2 threads; our F32 and F16 copies.
if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
  apt-get install -y -qq python3-onnx >/dev/null
fi
e2e_quick=""
[[ " $* " == *" --quick "* ]] && e2e_quick="--quick"
for e2e in "--ort-threads 1" "--ort-threads 2" "--dtype F16"; do
  echo
  echo "== end to end: node bench/e2e_gpt2.mjs $e2e $e2e_quick"
  node bench/e2e_gpt2.mjs $e2e $e2e_quick 2>&1 | grep -v 'W:onnxruntime'
done
if [[ " $* " != *" --quick "* ]]; then
  echo
  echo "== real-size models: node bench/real_size_models_bench.mjs"
  node bench/real_size_models_bench.mjs
  echo
  echo "== real-size models in the page: node bench/real_size_page.mjs"
  node bench/real_size_page.mjs
fi
