// Head ablation and the logit lens through the built WebAssembly module's C API, as the
// page's worker calls them (web/src/engine/interventions.ts; ModelApi's setHeadMask,
// headMaskEffect and logitLens in model_api.mjs are the browser test's oracle).
// Oracles and tolerances:
//  * tests/fixtures/head_mask/gpt2_tiny.json (gen_head_mask.py: plain torch, float64, HF
//    head_mask semantics): logits within 1e-5, attention maps within 1e-6; the torch
//    logit lens (rows 0 and 1, full softmax) within 1e-6;
//  * the forward pass in the same module: the lens's last row is its softmax (computed
//    here in float64 from the logits, 1e-6; argmax exact); the effect's "after" is the
//    masked pass's softmax, "before" the unmasked one (1e-6);
//  * the shipped numbers-transformer: the effect's "before" translation equals
//    tfp_model_translate without a mask, "after" equals it with the mask (exact ids).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadTfp } from './tfp_module.mjs';
import { ModelApi, readFixture } from './model_api.mjs';
import { flat, maxDiff } from './compare.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const GOLDEN = JSON.parse(readFileSync(`${ROOT}tests/fixtures/head_mask/gpt2_tiny.json`, 'utf8'));
let api;
before(async () => {
  api = new ModelApi(await loadTfp());
});

function softmax(row) {
  const mx = Math.max(...row);
  const e = Array.from(row, (v) => Math.exp(v - mx));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
}
const entriesOf = (mask) => Object.entries(mask).map(([layer, scales]) => ({ set: 'dec', layer: Number(layer), scales }));

test('GPT-2 fixture: logits and maps under each head mask equal the torch HF head_mask oracle', () => {
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    for (const c of GOLDEN.cases) {
      api.setHeadMask(m, entriesOf(c.mask));
      const f = api.forward(m, GOLDEN.input_ids, { attention: true });
      assert.ok(maxDiff(f.logits.data, flat(c.logits)) <= 1e-5, `${c.name}: logits`);
      c.attentions.forEach((a, l) => assert.ok(maxDiff(f[`dec.${l}.attn.probs`].data, flat(a)) <= 1e-6, `${c.name}: layer ${l} map`));
    }
    // The masks matter: the unmasked logits are far from the ablated golden ones.
    api.setHeadMask(m, []);
    assert.ok(maxDiff(api.forward(m, GOLDEN.input_ids).logits.data, flat(GOLDEN.cases[1].logits)) > 1e-2);
  } finally {
    api.free(m);
  }
});

test('GPT-2 fixture: the logit lens (torch rows 0-1; last row = the model\'s softmax)', () => {
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const ids = GOLDEN.input_ids, T = ids.length, V = 264;
    for (const c of GOLDEN.cases.filter((x) => x.lens_rows)) {
      api.setHeadMask(m, entriesOf(c.mask));
      const lens = api.logitLens(m, ids, { topK: V });
      assert.deepEqual(lens.ids.dims, [3, T, V]);
      c.lens_rows.forEach((r, j) => {
        const full = new Float64Array(T * V);
        for (let t = 0; t < T; t++)
          for (let k = 0; k < V; k++) {
            const i = (r * T + t) * V + k;
            full[t * V + lens.ids.data[i]] = lens.probs.data[i];
          }
        assert.ok(maxDiff(full, flat(c.lens_probs[j])) <= 1e-6, `${c.name}: lens row ${r}`);
      });
      const logits = api.forward(m, ids).logits.data;
      for (let t = 0; t < T; t++) {
        const p = softmax(logits.subarray(t * V, (t + 1) * V));
        const best = p.indexOf(Math.max(...p));
        assert.equal(lens.ids.data[(2 * T + t) * V], best);
        for (let k = 0; k < V; k++) {
          const i = (2 * T + t) * V + k;
          assert.ok(Math.abs(lens.probs.data[i] - p[lens.ids.data[i]]) <= 1e-6);
        }
      }
    }
    assert.throws(() => api.logitLens(m, ids, { topK: 0 }), /top_k/);
  } finally {
    api.free(m);
  }
});

test('head mask effect: before = unmasked, after = masked next-token softmax; errors name the range', () => {
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const ids = [256, 72, 101, 108], V = 264;
    const probsOf = () => { const l = api.forward(m, ids).logits.data; return softmax(l.subarray(3 * V, 4 * V)); };
    const before = probsOf();
    api.setHeadMask(m, [{ set: 'dec', layer: 0, scales: [0, 1, 0.5, 1] }]);
    const after = probsOf();
    const e = api.headMaskEffect(m, ids, 5);
    assert.ok(e.ids.data.length >= 5 && e.ids.data.length <= 10);
    e.ids.data.forEach((id, i) => {
      assert.ok(Math.abs(e.before.data[i] - before[id]) <= 1e-6);
      assert.ok(Math.abs(e.after.data[i] - after[id]) <= 1e-6);
    });
    assert.ok(e.ids.data.some((id, i) => Math.abs(e.before.data[i] - e.after.data[i]) > 1e-3));
    assert.throws(() => api.setHeadMask(m, [{ set: 'dec', layer: 5, scales: [0, 1, 1, 1] }]), /layer 5 is out of range/);
    assert.throws(() => api.setHeadMask(m, [{ set: 'enc', layer: 0, scales: [0, 1, 1, 1] }]), /valid: "dec"/);
  } finally {
    api.free(m);
  }
});

test('numbers-transformer: translation before/after a cross-attention mask; decoder lens shapes', () => {
  const dir = `${ROOT}models/numbers-transformer/`;
  const m = api.load({ config: readFileSync(`${dir}config.json`, 'utf8'), weights: new Uint8Array(readFileSync(`${dir}model.safetensors`)),
                       tokenizer: readFileSync(`${dir}tokenizer.json`, 'utf8') }, 'numbers-transformer');
  try {
    const src = api.tokenize(m, 'three hundred and forty two').ids;
    const plain = api.translate(m, src).ids;
    const mask = [{ set: 'cross', layer: 1, scales: [0, 0, 0, 0] }, { set: 'cross', layer: 0, scales: [0, 0, 0, 0] }];
    api.setHeadMask(m, mask);
    const masked = api.translate(m, src).ids;
    const e = api.headMaskEffect(m, src);
    assert.deepEqual(Array.from(e.before.data), plain);
    assert.deepEqual(Array.from(e.after.data), masked);
    assert.notDeepEqual(masked, plain);  // without any cross-attention the source is unseen
    const lens = api.logitLens(m, src, { topK: 3, tgtIds: [2, ...plain.slice(0, 2)] });
    assert.deepEqual(lens.probs.dims, [3, 3, 3]);
  } finally {
    api.free(m);
  }
});
