// The threaded build (tfp_mt.mjs, Emscripten pthreads) against the single-threaded one
// (tfp.mjs), both loaded in this process: the same seeded model gives the same bits —
// logits, hidden states and every attention map at T = 1 and T = 64, and the same
// generated tokens and probabilities — on 2 and 3 threads. The model is large enough
// that every split runs (kernels/parallel.cpp: from 2^20 multiply-adds): GEMMs by columns
// (projections, MLP, LM head; at T = 1 the M = 1 GEMVs of the MLP and the LM head) and
// attention by heads (6 heads at T = 64: 3.1 M).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadTfp } from './tfp_module.mjs';
import { loadTfpMt } from './tfp_module_mt.mjs';
import { ModelApi, readFixture } from './model_api.mjs';

let st, mt, stModel, mtModel;
const config = JSON.stringify({
  model_type: 'tfp', architecture: 'decoder_only', d_model: 384, n_heads: 6, d_ff: 3072, n_decoder_layers: 2,
  vocab_size: 4096, max_positions: 128, positional: 'sinusoidal', norm_first: true, decoder_final_norm: true,
});

before(async () => {
  [st, mt] = (await Promise.all([loadTfp(), loadTfpMt()])).map((m) => new ModelApi(m));
  stModel = st.random(config, null, 11);
  mtModel = mt.random(config, null, 11);
});
after(() => {
  mt?.m.terminateThreads();
});

/** Every tensor of a forward, by name, as raw bytes (equal bytes = equal bits, NaN included). */
function bytesOf(out) {
  return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, { dims: t.dims, bytes: Buffer.from(t.data.buffer) }]));
}
function assertSameBits(a, b, what) {
  assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort(), `${what}: tensor names`);
  for (const k of Object.keys(a)) {
    assert.deepEqual(b[k].dims, a[k].dims, `${what}: ${k} dims`);
    assert.ok(a[k].bytes.equals(b[k].bytes), `${what}: ${k} differs between tfp.mjs and tfp_mt.mjs`);
  }
}

test('the builds report their threads: tfp.mjs 1, tfp_mt.mjs up to its pool', () => {
  assert.equal(st.m._tfp_max_threads(), 1);
  assert.equal(st.m._tfp_set_threads(4), 1);
  assert.equal(mt.m._tfp_max_threads(), 4);
  assert.equal(mt.m._tfp_set_threads(99), 4);
  assert.equal(mt.m._tfp_set_threads(2), 2);
  assert.equal(mt.m._tfp_threads(), 2);
});

for (const threads of [2, 3]) {
  test(`forward at T = 1 and T = 64 on ${threads} threads equals the single-threaded build bit for bit`, () => {
    assert.equal(mt.m._tfp_set_threads(threads), threads);
    for (const T of [1, 64]) {
      const ids = Array.from({ length: T }, (_, i) => (i * 37 + 5) % 4096);
      const a = bytesOf(st.forward(stModel, ids, { attention: true }));
      const b = bytesOf(mt.forward(mtModel, ids, { attention: true }));
      assert.ok(Object.keys(a).some((k) => k.includes('attn') || k.includes('attention')), `no attention maps in ${Object.keys(a)}`);
      assertSameBits(a, b, `T = ${T}`);
    }
  });
}

test('generation (KV cache, sampling) on 2 threads gives the same tokens and probabilities', () => {
  mt.m._tfp_set_threads(2);
  const opts = { maxTokens: 24, temperature: 1, topK: 50, seed: 5 };
  const prompt = Array.from({ length: 40 }, (_, i) => (i * 11 + 3) % 4096);
  const a = st.generate(stModel, prompt, opts), b = mt.generate(mtModel, prompt, opts);
  assert.equal(a.ids.length, 24);
  assert.deepEqual(b.ids, a.ids);
  assert.deepEqual(Float32Array.from(b.probs), Float32Array.from(a.probs));
});

test('errors keep their message in the threaded build (C++ exceptions caught by type)', () => {
  const f = readFixture('gpt2_tiny');
  const message = (api, files) => {
    try {
      api.free(api.load(files));
      return null;
    } catch (e) {
      return e.message;
    }
  };
  for (const files of [{ ...f, config: '[1,2]' }, { ...f, weights: f.weights.slice(0, 100) }]) {
    const want = message(st, files);
    assert.ok(want && !want.includes('unknown exception'), want);
    assert.equal(message(mt, files), want);
  }
});
