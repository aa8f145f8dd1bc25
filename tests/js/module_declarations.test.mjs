// The module's TypeScript declarations (web/src/engine/tfp_module.d.mts) checked against
// the functions the WASM module exports: cmake/wasm_module.cmake exports every function
// declared at column 0 in src/api/tfp_*api.h, so every one of them must be declared for
// the worker, with as many parameters as the C declaration, and nothing else may be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

// name → parameter count, from the C headers (declarations may span lines up to ");").
function exported() {
  const out = new Map();
  const dir = join(root, 'src', 'api');
  for (const file of readdirSync(dir).filter((f) => /^tfp_.*api\.h$/.test(f))) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/^[a-z][^\n(]*?[ *](tfp_[a-z0-9_]+)\(([^;]*?)\);/gms)) {
      const params = m[2].replace(/\/\*.*?\*\//gs, '').trim();
      out.set(m[1], params === '' || params === 'void' ? 0 : params.split(',').length);
    }
  }
  return out;
}

function declared() {
  const text = readFileSync(join(root, 'web', 'src', 'engine', 'tfp_module.d.mts'), 'utf8');
  const out = new Map();
  for (const m of text.matchAll(/^\s*_(tfp_[a-z0-9_]+)\(([^)]*)\)/gm)) {
    const params = m[2].trim();
    out.set(m[1], params === '' ? 0 : params.split(',').length);
  }
  return out;
}

test('every exported C API function is declared for TypeScript with its parameter count', () => {
  const c = exported(), ts = declared();
  assert.ok(c.size > 100, `found only ${c.size} exported functions`);
  const missing = [...c.keys()].filter((f) => !ts.has(f));
  assert.deepEqual(missing, [], 'exported but not declared in tfp_module.d.mts');
  const extra = [...ts.keys()].filter((f) => !c.has(f));
  assert.deepEqual(extra, [], 'declared in tfp_module.d.mts but not exported');
  const wrong = [...c].filter(([f, n]) => ts.get(f) !== n).map(([f, n]) => `${f}: C ${n}, TS ${ts.get(f)}`);
  assert.deepEqual(wrong, [], 'parameter counts differ');
});
