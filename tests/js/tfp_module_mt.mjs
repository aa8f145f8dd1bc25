// Loads the threaded build of the engine (web/src/engine/wasm/tfp_mt.mjs: Emscripten
// pthreads, cmake/wasm_module.cmake) in Node, beside the single-threaded one (tfp_module.mjs).
// Its glue is built for web, worker and node; under Node it calls require() and reads
// __dirname, which an ES module does not have, so both are provided first. Its pool's
// workers (worker_threads) would keep the process alive: call m.terminateThreads() when
// done (cmake/wasm_module_mt_post.js).
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { WASM_DIR } from './tfp_module.mjs';

export async function loadTfpMt() {
  const mjs = new URL('tfp_mt.mjs', WASM_DIR);
  if (!existsSync(mjs)) throw new Error(`${mjs.pathname} is missing: run tools/build.sh module`);
  globalThis.require ??= createRequire(mjs);
  globalThis.__dirname ??= fileURLToPath(WASM_DIR);
  const { default: createTfpMt } = await import(mjs.href);
  const m = await createTfpMt({ wasmBinary: await readFile(new URL('tfp_mt.wasm', WASM_DIR)) });
  await m.tfpPoolLoaded();  // the pool loads in the background; threads may be asked for now
  return m;
}
