// The query–key drill-down through the built WebAssembly module's C API, as the page's
// worker calls it (web/src/engine/attention_steps.ts; the same call is ModelApi's
// attentionSteps in model_api.mjs, which the browser test uses as its oracle).
// Oracles and tolerances:
//  * tfp_model_forward on the same inputs in the same module: the steps' softmax equals
//    the forward pass's attention row (max abs 1e-6);
//  * definitions: scaled = scores·scale, masked keys weigh exactly 0, out = Σ weighted_v
//    (1e-6), probs sum to 1 (1e-6);
//  * tests/fixtures/attention_steps/expected.json from gen_attention_steps.py (plain torch,
//    float64): q, k, v, scores, probs, out within 1e-5 for GPT-2 and BERT (with padding).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadTfp } from './tfp_module.mjs';
import { ModelApi, readFixture, readShipped } from './model_api.mjs';
import { maxDiff } from './compare.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ORACLE = JSON.parse(readFileSync(`${ROOT}tests/fixtures/attention_steps/expected.json`, 'utf8'));
let api;
before(async () => {
  api = new ModelApi(await loadTfp());
});

/** Every (layer, head, query) of one attention family against the forward pass. */
function checkFamily(model, ids, fwd, { set, prefix, block, layers, heads, opts = {} }) {
  for (let l = 0; l < layers; l++) {
    const probs = fwd[`${prefix}.${l}.${block}.probs`];
    const [H, Tq, Tk] = probs.dims;
    assert.equal(H, heads);
    for (let h = 0; h < H; h++) {
      for (let i = 0; i < Tq; i++) {
        const s = api.attentionSteps(model, ids, { set, layer: l, head: h, query: i, ...opts });
        const row = probs.data.subarray((h * Tq + i) * Tk, (h * Tq + i + 1) * Tk);
        assert.ok(maxDiff(s.probs.data, row) <= 1e-6, `${set} L${l} H${h} q${i}: probs differ from the forward pass`);
        const D = s.q.dims[0], scale = s.scale.data[0];
        assert.deepEqual(s.k.dims, [Tk, D]);
        assert.ok(Math.abs(scale - 1 / Math.sqrt(D)) < 1e-7);
        let sum = 0;
        for (let j = 0; j < Tk; j++) {
          assert.ok(Math.abs(s.scaled.data[j] - s.scores.data[j] * scale) <= 1e-6 * Math.max(1, Math.abs(s.scores.data[j])));
          if (s.mask.data[j]) {
            assert.equal(s.probs.data[j], 0);
            assert.equal(s.logits.data[j], -Infinity);
          }
          sum += s.probs.data[j];
        }
        assert.ok(Math.abs(sum - 1) < 1e-6);
        for (let d = 0; d < D; d++) {
          let acc = 0;
          for (let j = 0; j < Tk; j++) acc += s.weighted_v.data[j * D + d];
          assert.ok(Math.abs(acc - s.out.data[d]) < 1e-6);
        }
      }
    }
  }
}

function checkOracle(s, c) {
  for (const name of ['q', 'k', 'v', 'scores', 'scaled', 'probs', 'out'])
    assert.ok(maxDiff(s[name].data, c[name].flat()) < 1e-5, `${c.model}: ${name} differs from torch`);
  assert.deepEqual(Array.from(s.mask.data), c.mask);
}

test('GPT-2 fixture: every row equals the forward pass; layer 1 head 2 query 4 equals torch', () => {
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const c = ORACLE.cases.find((x) => x.model === 'gpt2_tiny');
    const fwd = api.forward(m, c.ids, { attention: true });
    checkFamily(m, c.ids, fwd, { set: 'dec', prefix: 'dec', block: 'attn', layers: 2, heads: 4 });
    checkOracle(api.attentionSteps(m, c.ids, c), c);
  } finally {
    api.free(m);
  }
});

test('BERT fixture with padding: padded keys masked, rows equal the forward pass and torch', () => {
  const m = api.load(readFixture('bert_tiny'));
  try {
    const c = ORACLE.cases.find((x) => x.model === 'bert_tiny');
    const opts = { tokenTypeIds: c.token_type_ids, attentionMask: c.attention_mask };
    const fwd = api.forward(m, c.ids, { attention: true, ...opts });
    checkFamily(m, c.ids, fwd, { set: 'enc', prefix: 'enc', block: 'attn', layers: 2, heads: 4, opts });
    const s = api.attentionSteps(m, c.ids, { ...c, ...opts });
    checkOracle(s, c);
    assert.deepEqual(Array.from(s.mask.data), c.attention_mask.map((a) => 1 - a));
  } finally {
    api.free(m);
  }
});

test('numbers-transformer (encoder-decoder): encoder, decoder and cross-attention rows', () => {
  const m = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  try {
    const info = api.info(m);
    const src = api.tokenize(m, 'forty-two').ids, tgt = [1, 5, 6];
    const fwd = api.forward(m, src, { attention: true, tgtIds: tgt });
    const common = { heads: info.n_heads, opts: { tgtIds: tgt } };
    checkFamily(m, src, fwd, { set: 'enc', prefix: 'enc', block: 'attn', layers: info.n_encoder_layers, ...common });
    checkFamily(m, src, fwd, { set: 'dec', prefix: 'dec', block: 'attn', layers: info.n_decoder_layers, ...common });
    checkFamily(m, src, fwd, { set: 'cross', prefix: 'dec', block: 'cross', layers: info.n_decoder_layers, ...common });
  } finally {
    api.free(m);
  }
});

test('bad indices are errors naming the valid range; the model stays usable', () => {
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const ids = [256, 72, 101];
    const fails = (pick, re) => assert.throws(() => api.attentionSteps(m, ids, pick), (e) => e.status === 1 && re.test(e.message));
    fails({ set: 'dec', layer: 0, head: 9, query: 0 }, /head 9 is out of range: the model has 4 heads \(0\.\.3\)/);
    fails({ set: 'dec', layer: 5, head: 0, query: 0 }, /layer 5 is out of range: the model has 2 decoder layers/);
    fails({ set: 'dec', layer: 0, head: 0, query: 3 }, /query 3 is out of range: the input has 3 tokens/);
    fails({ set: 'cross', layer: 0, head: 0, query: 0 }, /set "cross" does not exist in this decoder_only model/);
    const ok = api.attentionSteps(m, ids, { set: 'dec', layer: 1, head: 3, query: 2 });
    assert.deepEqual(ok.k.dims, [3, 4]);
  } finally {
    api.free(m);
  }
});
