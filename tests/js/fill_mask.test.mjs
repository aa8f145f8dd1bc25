// Masked-LM fill-mask through the built WebAssembly module's C API (tfp_model_fill_mask),
// as the page's worker calls it.
// Oracles: the golden lists of tests/fixtures/checkpoints/bert_mlm_tiny/expected.json (a
// plain-torch BertForMaskedLM, softmax in float64): ids exact, probabilities within 1e-6;
// the golden logits within 2e-5 (f32 in WASM's 4-wide SIMD vs float64: ~4e-6 seen);
// the model info's "head" / "mask_token_id".
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadTfp } from './tfp_module.mjs';
import { CHECKPOINTS, ModelApi, readFixture } from './model_api.mjs';

let api;
before(async () => {
  api = new ModelApi(await loadTfp());
});

const expected = (name) => JSON.parse(readFileSync(`${CHECKPOINTS}${name}/expected.json`, 'utf8'));

test('BERT MLM fixture: info, tokenised [MASK], logits and top-10 fillers equal the torch reference', () => {
  const want = expected('bert_mlm_tiny');
  const m = api.load(readFixture('bert_mlm_tiny'), 'bert_mlm_tiny');
  try {
    const info = api.info(m);
    assert.equal(info.head, 'masked_lm');
    assert.equal(info.mask_token_id, want.mask_token_id);
    const enc = api.tokenize(m, want.text);
    assert.deepEqual(enc.ids, want.input_ids);
    assert.equal(enc.tokens.filter((t) => t === '[MASK]').length, 2);

    const out = api.forward(m, enc.ids);
    assert.deepEqual(out.logits.dims, [enc.ids.length, info.vocab_size]);
    const gold = want.logits.flat();
    let worst = 0;
    for (let i = 0; i < gold.length; i++) worst = Math.max(worst, Math.abs(out.logits.data[i] - gold[i]));
    assert.ok(worst < 2e-5, `logits max abs diff ${worst}`);

    const filled = api.fillMask(m, enc.ids, { topK: 10 });
    assert.equal(filled.length, want.fill_mask.length);
    filled.forEach((f, r) => {
      const g = want.fill_mask[r];
      assert.equal(f.position, g.position);
      assert.deepEqual(f.ids, g.ids);
      f.probs.forEach((p, k) => assert.ok(Math.abs(p - g.probs[k]) < 1e-6, `mask ${r} rank ${k}: ${p} vs ${g.probs[k]}`));
    });
    // More than the vocabulary: the whole distribution, summing to 1.
    const all = api.fillMask(m, enc.ids, { topK: 50 });
    assert.equal(all[0].ids.length, info.vocab_size);
    assert.ok(Math.abs(all[0].probs.reduce((a, b) => a + b, 0) - 1) < 1e-5);
  } finally {
    api.free(m);
  }
});

test('fill-mask on a model without the head is an error with a message; no mask is an empty list', () => {
  const bert = api.load(readFixture('bert_tiny_f16'), 'bert_tiny_f16');
  try {
    assert.equal(api.info(bert).head, 'none');
    assert.throws(() => api.fillMask(bert, [2, 4, 3]), /has no masked-LM head/);
  } finally {
    api.free(bert);
  }
  const m = api.load(readFixture('bert_mlm_tiny'), 'bert_mlm_tiny');
  try {
    assert.deepEqual(api.fillMask(m, [2, 5, 6, 3]), []);
    assert.throws(() => api.fillMask(m, [2, 4, 3], { topK: 0 }), /top_k must be at least 1/);
  } finally {
    api.free(m);
  }
});
