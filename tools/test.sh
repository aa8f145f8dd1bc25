#!/usr/bin/env bash
# Every test: the engine suite natively and as WASM under Node (ctest), the JS API tests
# (node --test) and the browser tests (Playwright + Debian Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/build.sh test  # not the benchmark programs
node tests/fixtures/make_gpt2_tokenizer.mjs  # GPT-2 tokenizer.json + golden ids (generated, gitignored)
echo "== native engine tests"; ctest --test-dir build/native --output-on-failure
echo "== sanitizer tests (clang ASan + UBSan: fuzz inputs, loader/tokenizer/model cases)"; bash tools/sanitize.sh
echo "== wasm engine tests";   ctest --test-dir build/wasm --output-on-failure
if [ -f web/tsconfig.json ]; then
  echo "== web typecheck"; npx --no-install tsc -p web
fi
# Test processes compile the WebAssembly module with TurboFan up front and never tier up
# in the background: twice in CI (under load) a test file's process hung for good after
# its last test passed, idle, the known Node/V8 exit hang with wasm compile jobs still
# pending (nodejs/node#36616, #47748). Costs ~5 s over the JS tests (compile time).
NODE_WASM_FLAGS="--no-liftoff --no-wasm-tier-up"
if compgen -G "tests/js/*.test.mjs" >/dev/null; then
  # --test-force-exit: a test file whose process stays alive after its last test (an open
  # handle; seen once in CI, head_mask_lens.test.mjs idle for 17 min) cannot stall the run.
  echo "== JS API tests"; node $NODE_WASM_FLAGS --test --test-force-exit --test-timeout=300000 tests/js/
fi
# The Hub road in Node against the local stand-in for the Hub (no internet).
echo "== Hub road tests"; node --test --test-force-exit tests/hub/
# The npm package as an outside project installs it (tools/package.mjs, npm pack, npm install).
echo "== package tests"; node --test --test-force-exit tests/package/
if compgen -G "tests/browser/*.test.mjs" >/dev/null; then
  # One production build of the site for every browser test (tests/browser/harness.mjs).
  export TFP_WEB_DIST="$PWD/build/web-test/suite/"
  # The playground of the test build may also reach the local stand-in for the Hub (tests/hub).
  export TFP_HUB_HOSTS="http://127.0.0.1:*"
  echo "== site build"; npx --no-install vite build web --logLevel warn --outDir "$TFP_WEB_DIST" --emptyOutDir
  echo "== browser tests"; node $NODE_WASM_FLAGS --test --test-concurrency=1 --test-force-exit tests/browser/
fi
