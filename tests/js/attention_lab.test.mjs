// The attention lab through the built WebAssembly module, as the page's worker calls it.
// Oracles: the definition of softmax over the unmasked keys of each row, evaluated in
// double precision from the module's own scaled scores (tolerance 1e-6: float32
// softmax of values of size ~1); the mask rules (causal j <= i, window |i - j| <= w,
// padding) written out here; exact zeros for masked weights.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadTfp, Api } from './tfp_module.mjs';

let api;
before(async () => {
  api = new Api(await loadTfp());
});

const TOKENS = ['the', 'cat', 'sat', 'on', 'the', 'mat'];

function allowed(i, j, { causal = false, window = 0, padding = null }) {
  return !(causal && j > i) && !(window > 0 && Math.abs(i - j) > window) && !(padding && padding[j]);
}

function checkProbs(r, T, H, mask) {
  const probs = r.probs.data, scaled = r.scaled_scores.data, masked = r.masked.data;
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < T; i++) {
      const row = (h * T + i) * T;
      let mx = -Infinity;
      for (let j = 0; j < T; j++) if (allowed(i, j, mask)) mx = Math.max(mx, scaled[row + j]);
      let z = 0;
      for (let j = 0; j < T; j++) if (allowed(i, j, mask)) z += Math.exp(scaled[row + j] - mx);
      let sum = 0;
      for (let j = 0; j < T; j++) {
        const p = probs[row + j];
        sum += p;
        assert.equal(masked[i * T + j], allowed(i, j, mask) ? 0 : 1, `masked[${i},${j}]`);
        if (!allowed(i, j, mask)) assert.equal(p, 0, `head ${h} query ${i} key ${j} is masked: exactly 0`);
        else assert.ok(Math.abs(p - Math.exp(scaled[row + j] - mx) / z) < 1e-6, `softmax at ${h},${i},${j}`);
      }
      const anyAllowed = [...Array(T).keys()].some((j) => allowed(i, j, mask));
      assert.ok(Math.abs(sum - (anyAllowed ? 1 : 0)) < 1e-5, `row ${h},${i} sums to ${sum}`);
    }
  }
}

test('build info comes from the module', () => {
  assert.equal(api.m.UTF8ToString(api.m._tfp_version()), '0.1.0');
  assert.ok(api.m.UTF8ToString(api.m._tfp_simd_arch()).length > 0);
});

test('every result has its documented shape', () => {
  const r = api.attention({ tokens: TOKENS, dModel: 16, heads: 4, seed: 1 });
  const T = 6, H = 4, D = 4, C = 16;
  assert.deepEqual(Object.keys(r).sort(),
    ['head_out', 'k', 'masked', 'out', 'probs', 'q', 'scaled_scores', 'scores', 'v']);
  for (const n of ['q', 'k', 'v', 'head_out']) assert.deepEqual(r[n].dims, [H, T, D], n);
  for (const n of ['scores', 'scaled_scores', 'probs']) assert.deepEqual(r[n].dims, [H, T, T], n);
  assert.deepEqual(r.masked.dims, [T, T]);
  assert.deepEqual(r.out.dims, [T, C]);
  // scaled = scores / √D (the same product, scaled inside the kernel: float rounding only).
  r.scores.data.forEach((s, i) => assert.ok(Math.abs(s / 2 - r.scaled_scores.data[i]) < 1e-6 * (1 + Math.abs(s))));
});

for (const mask of [{}, { causal: true }, { window: 1 }, { causal: true, window: 2 },
                    { padding: [0, 0, 1, 0, 0, 1] }, { causal: true, padding: [1, 0, 0, 0, 0, 0] }]) {
  test(`probabilities are the softmax over allowed keys: ${JSON.stringify(mask)}`, () => {
    for (const heads of [1, 2, 4]) {
      const r = api.attention({ tokens: TOKENS, dModel: 16, heads, seed: 7, ...mask });
      checkProbs(r, TOKENS.length, heads, mask);
    }
  });
}

test('deterministic: same seed, same numbers; the same word, the same embedding', () => {
  const a = api.attention({ tokens: TOKENS, dModel: 8, heads: 2, seed: 3 });
  const b = api.attention({ tokens: TOKENS, dModel: 8, heads: 2, seed: 3 });
  const c = api.attention({ tokens: TOKENS, dModel: 8, heads: 2, seed: 4 });
  assert.deepEqual(a.probs.data, b.probs.data);
  assert.notDeepEqual(a.probs.data, c.probs.data);
  const x = api.embeddings(TOKENS, 8, 3);
  assert.deepEqual(x.subarray(0, 8), x.subarray(32, 40));  // "the" at positions 0 and 4
  // Without position information, the two "the" queries attend identically.
  const T = TOKENS.length;
  assert.deepEqual(a.probs.data.subarray(0, T), a.probs.data.subarray(4 * T, 5 * T));
});

test('errors come back as messages and the module stays usable', () => {
  assert.throws(() => api.createLab(10, 4, 1), (e) => e.status === 1 && /d_model 10 is not divisible by 4 heads/.test(e.message));
  assert.throws(() => api.createLab(0, 1, 1), (e) => e.status === 1 && /positive/.test(e.message));
  const lab = api.createLab(8, 2, 1);
  try {
    assert.throws(() => api.check(api.m._tfp_attn_lab_set_mask(lab, 0, -2)), /window/);
    // Padding for 3 keys, 6 tokens: the engine names the mismatch.
    api.setPadding(lab, [0, 1, 0]);
    const x = api.embeddings(TOKENS, 8, 1);
    assert.throws(() => api.run(lab, x, 6), (e) => e.status === 2 && /3/.test(e.message) && /6/.test(e.message));
    assert.throws(() => api.run(lab, x, 0), (e) => e.status === 1 && /at least one token/.test(e.message));
    assert.equal(api.m._tfp_alloc(0), 0);
    assert.match(api.lastError(), /0 bytes/);
    // Still usable: the same lab with the padding cleared runs and is correct.
    api.setPadding(lab, null);
    checkProbs(api.run(lab, x, 6), 6, 2, {});
  } finally {
    api.m._tfp_attn_lab_free(lab);
  }
  checkProbs(api.attention({ tokens: TOKENS, dModel: 16, heads: 2, seed: 1 }), 6, 2, {});
});

test('results stay right when the heap grows during a call', () => {
  const before = api.m.HEAPU8.buffer.byteLength;
  // 4 heads × 768² floats = 9.4 MB per (H, T, T) tensor, several of them: past 32 MB.
  const tokens = Array.from({ length: 768 }, (_, i) => `w${i % 50}`);
  const r = api.attention({ tokens, dModel: 16, heads: 4, seed: 2, causal: true });
  assert.ok(api.m.HEAPU8.buffer.byteLength > before, 'the heap grew');
  const T = tokens.length;
  for (const [h, i] of [[0, 0], [1, 100], [3, 766]]) {
    let s = 0;
    for (let j = 0; j < T; j++) s += r.probs.data[(h * T + i) * T + j];
    assert.ok(Math.abs(s - 1) < 1e-4, `row ${h},${i} sums to ${s}`);  // 768 float terms
    assert.equal(r.probs.data[(h * T + i) * T + i + 1], 0, 'causal: the next key is masked');
    assert.ok(r.probs.data[(h * T + i) * T + i] > 0, 'the query sees itself');
  }
});
