#!/usr/bin/env bash
# Builds the engine: native (tests, CLI, benchmarks) and/or WebAssembly (module, tests).
#   tools/build.sh native | wasm | all | wasm-if-missing
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

native() {
  cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native -j"$jobs"
}
wasm() {
  # emcmake's default test emulator flag is rejected by Node 20: name node directly.
  emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
  cmake --build build/wasm -j"$jobs"
}

case "${1:-all}" in
  native) native ;;
  wasm) wasm ;;
  all) native; wasm ;;
  wasm-if-missing) [ -f web/src/engine/wasm/tfp.mjs ] || wasm ;;
  *) echo "usage: tools/build.sh native|wasm|all|wasm-if-missing" >&2; exit 2 ;;
esac
