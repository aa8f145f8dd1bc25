#!/usr/bin/env bash
# Builds the engine: native (tests, CLI, benchmarks) and/or WebAssembly (module, tests).
#   tools/build.sh native | wasm | all | test | module | types
# test: only what npm test runs (the doctest binaries, the CLI, the module), not the
# benchmark programs (npm run bench builds those with `all`).
# module: only the WASM module the pages load (what npm start / npm run build need);
# ninja rebuilds it only where a source changed. types: only the module's TypeScript
# declarations (what tsc needs to check web/ without building the module).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

native() {
  cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j"$jobs" "$@"
}
wasm() {
  # emcmake's default test emulator flag is rejected by Node 20: name node directly.
  [ -f build/wasm/build.ninja ] || emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  cmake --build build/wasm -j"$jobs" "$@"
}

# The threaded module (issue 14): every object built with -pthread, in its own folder;
# emitted as web/src/engine/wasm/tfp_mt.{mjs,wasm,worker.js}. The pages need both modules.
wasm_mt() {
  [ -f build/wasm-mt/build.ninja ] || emcmake cmake -S . -B build/wasm-mt -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTFP_PTHREADS=ON >/dev/null
  cmake --build build/wasm-mt -j"$jobs" --target tfp_module_mt
}

types() {
  mkdir -p web/src/engine/wasm && cp -u web/src/engine/tfp_module.d.mts web/src/engine/wasm/tfp.d.mts
  cp -u web/src/engine/tfp_module.d.mts web/src/engine/wasm/tfp_mt.d.mts  # same API, threaded build
}

case "${1:-all}" in
  native) native ;;
  wasm) wasm; wasm_mt; types ;;
  all) native; wasm; wasm_mt; types ;;
  test) native --target tfp_tests tfp; wasm --target tfp_tests tfp_module; wasm_mt; types ;;
  # The declarations are copied after every build: ninja relinks (and its post-build step
  # copies them) only when a source changed, not when only the declarations did.
  module) wasm --target tfp_module; wasm_mt; types ;;
  types) types ;;
  *) echo "usage: tools/build.sh native|wasm|all|test|module|types" >&2; exit 2 ;;
esac
