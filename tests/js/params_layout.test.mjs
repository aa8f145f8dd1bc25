// The C API's params structs (src/api/tfp_api.h "parameter structs") as the JavaScript side
// writes them (web/src/engine/params.mjs). Oracles: the C headers' own struct declarations
// (field names, order and types, read here from the text), the wasm32 layout rule they
// imply (every field 4 bytes, field i at 4*i), and the TypeScript field lists of
// params.d.mts — a struct added, a field renamed or reordered on one side only fails here.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { loadTfp } from './tfp_module.mjs';
import { paramsLayout, withParams, writeParams } from '../../web/src/engine/params.mjs';

const API = new URL('../../src/api/', import.meta.url);
const KIND = { int32_t: 'i32', uint32_t: 'u32', float: 'f32' };

/** struct name → [[field, kind], ...] in declaration order, from src/api/tfp_*api.h. */
function declaredStructs() {
  const out = new Map();
  for (const file of readdirSync(API).filter((f) => /^tfp_.*api\.h$/.test(f))) {
    const text = readFileSync(new URL(file, API), 'utf8').replace(/\/\*.*?\*\//gs, '');
    for (const [, name, body] of text.matchAll(/typedef struct (tfp_[a-z0-9_]+_params) \{([^}]*)\}/g)) {
      const fields = body.split(';').map((d) => d.trim()).filter(Boolean).map((d) => {
        const m = d.match(/^(?:const )?([a-z0-9_]+)\s*(\*?)\s*([A-Za-z0-9_]+)$/);
        assert.ok(m, `${name}: cannot read the field declaration '${d}'`);
        return [m[3], m[2] ? 'ptr' : KIND[m[1]] ?? `unsupported type ${m[1]}`];
      });
      out.set(name, fields);
    }
  }
  return out;
}

let m;
before(async () => {
  m = await loadTfp();
});

test('every params struct of the headers is in the module layout, field by field, at 4*i on wasm32', () => {
  const declared = declaredStructs();
  assert.ok(declared.size >= 5, `found only ${declared.size} params structs`);
  const all = JSON.parse(m.UTF8ToString(m._tfp_params_layout_json()));
  assert.deepEqual(Object.keys(all).sort(), [...declared.keys()].sort(), 'tfp_params_layout_json lists other structs');
  for (const [name, fields] of declared) {
    const layout = paramsLayout(m, name);
    const got = Object.entries(layout.fields).sort((a, b) => a[1][0] - b[1][0]).map(([f, [, kind]]) => [f, kind]);
    assert.deepEqual(got, fields, `${name}: fields differ from the header`);
    fields.forEach(([f], i) => assert.equal(layout.fields[f][0], 4 * i, `${name}.${f}: offset`));
    assert.equal(layout.size, 4 * fields.length, `${name}: size`);
    assert.equal(typeof m[`_${name}_init`], 'function', `${name}_init is not exported`);
  }
});

test('params.d.mts declares the same fields TypeScript callers may set', () => {
  const dts = readFileSync(new URL('../../web/src/engine/params.d.mts', import.meta.url), 'utf8');
  for (const [name, fields] of declaredStructs()) {
    const body = dts.match(new RegExp(`${name}: \\{([^}]*)\\}`))?.[1];
    assert.ok(body, `params.d.mts does not declare ${name}`);
    const names = [...body.matchAll(/([A-Za-z0-9_]+)\?: number/g)].map((x) => x[1]);
    assert.deepEqual(names, fields.map(([f]) => f), `params.d.mts: ${name}'s fields`);
  }
});

test('writeParams: the C defaults first, then the named fields; a wrong name or value throws', () => {
  const p = m._tfp_alloc(64);
  try {
    writeParams(m, 'tfp_generator_params', p, { n: 3, temperature: 0.5, seed: 0xffffffff, top_n: undefined });
    const v = new DataView(m.HEAPU8.buffer), at = (f) => p + paramsLayout(m, 'tfp_generator_params').fields[f][0];
    assert.equal(v.getInt32(at('n'), true), 3);
    assert.equal(v.getFloat32(at('temperature'), true), 0.5);
    assert.equal(v.getUint32(at('seed'), true), 0xffffffff);
    assert.equal(v.getInt32(at('max_tokens'), true), 20);  // tfp_generator_params_init's defaults
    assert.equal(v.getFloat32(at('top_p'), true), 1);
    assert.equal(v.getInt32(at('n_stop'), true), -1);
    assert.equal(v.getInt32(at('top_n'), true), 0);
    assert.throws(() => writeParams(m, 'tfp_generator_params', p, { topK: 3 }), /has no field 'topK'/);
    assert.throws(() => writeParams(m, 'tfp_generator_params', p, { top_k: 2.5 }), /top_k: 2.5 is not a i32 value/);
    assert.throws(() => writeParams(m, 'tfp_generator_params', p, { n: '3' }), /not a number/);
    assert.throws(() => writeParams(m, 'tfp_nothing_params', p, {}), /not a params struct/);
  } finally {
    m._tfp_free(p);
  }
  // withParams frees its block whatever the body does.
  assert.throws(() => withParams(m, 'tfp_forward_params', {}, () => { throw new Error('body'); }), /body/);
  assert.equal(withParams(m, 'tfp_forward_params', {}, (p) => m._tfp_model_forward(0, p, 0)), 1);
  assert.equal(m.UTF8ToString(m._tfp_last_error()), 'tfp_model_forward: out is NULL');
});
