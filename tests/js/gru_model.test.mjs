// The recurrent encoder–decoder models/numbers-gru through the built WebAssembly module's
// C API, as the page's worker calls it (tests/js/model_api.mjs): load, info, tokenize,
// translate (greedy and beam), forward, and the refusals.
// Oracles: the task's own answers (the value of the number words, by construction of the
// examples: the model card reports 100 % exact match on 1,000 held-out examples, so every
// one must come out right; the C++ doctest tests/test_api_gru.cpp compares with the
// native decoding on the held-out split); the definition of a softmax row (sums to 1
// within 1e-5); translate's alignment equals the teacher-forced forward's map (1e-6:
// the same code on the same inputs); the gold word of each digit (the word that produced
// it gets the most attention mass, as the card's 99.7 % alignment score measures).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadTfp } from './tfp_module.mjs';
import { hasShipped, ModelApi, readShipped } from './model_api.mjs';

const skip = hasShipped('numbers-gru') ? {} : { skip: 'no models/numbers-gru' };
const START = 2, END = 1;

let api, m;
before(async () => {
  if (skip.skip) return;
  api = new ModelApi(await loadTfp());
  m = api.load(readShipped('numbers-gru'), 'numbers-gru');
});
after(() => { if (m) api.free(m); });

const digits = (ids) => ids.filter((id) => id !== END).map((id) => api.m.UTF8ToString(api.m._tfp_model_id_to_token(m, id))).join('');
const rowSums = (t) => {
  const [, T, S] = t.dims;
  return Array.from({ length: T }, (_, r) => t.data.subarray(r * S, (r + 1) * S).reduce((a, b) => a + b, 0));
};

test('info: an encoder–decoder with 1 cross-attention layer of 1 head, recurrent, no self-attention', skip, () => {
  const i = api.info(m);
  assert.equal(i.architecture, 'encoder_decoder');
  assert.equal(i.model_type, 'tfp_gru_seq2seq');
  assert.equal(i.self_attention, false);
  assert.deepEqual([i.recurrent.cell, i.recurrent.attention, i.recurrent.bidirectional_encoder], ['gru', 'additive', true]);
  assert.deepEqual([i.n_encoder_layers, i.n_decoder_layers, i.n_heads], [0, 1, 1]);
  assert.equal(i.parameters, 193187);
  assert.deepEqual([i.decoder_start_token_id, i.eos_token_id, i.max_positions], [START, END, 72]);
  assert.equal(i.tokenizer.vocab_size, 67);
});

const CASES = [
  ['three hundred and forty two', '342'],
  ['three hundred and forty-two thousand five', '342005'],
  ['Nine Thousand And Twelve', '9012'],
  ['SEVENTY SEVEN', '77'],
  ['Ninety-One Thousand Eighty-Eight', '91088'],
  ['zero', '0'],
];

test('translate: number words to digits, greedy and beam 4; alignment rows are distributions', skip, () => {
  for (const [words, want] of CASES) {
    const src = api.tokenize(m, words).ids;
    assert.equal(src.length, words.length, 'one token per character');
    for (const beamSize of [1, 4]) {
      const tr = api.translate(m, src, { beamSize });  // start and eos: the engine's defaults from config.json
      assert.equal(digits(tr.ids), want, `${words} (beam ${beamSize})`);
      assert.equal(tr.ids.at(-1), END);
      const cross = tr.tensors['dec.0.cross.probs'];
      assert.deepEqual(cross.dims, [1, tr.ids.length, src.length]);
      assert.deepEqual(tr.tensors.alignment.dims, [tr.ids.length, src.length]);
      assert.deepEqual(Array.from(tr.tensors.alignment.data), Array.from(cross.data));
      for (const s of rowSums(cross)) assert.ok(Math.abs(s - 1) <= 1e-5, `row sum ${s}`);
    }
  }
});

test('forward: teacher forcing gives the greedy output and translate\'s alignment', skip, () => {
  const words = 'three hundred and forty two';
  const src = api.tokenize(m, words).ids;
  const tr = api.translate(m, src);
  const tgt = [START, ...tr.ids.slice(0, -1)];
  const out = api.forward(m, src, { attention: true, tgtIds: tgt });
  assert.deepEqual(Object.keys(out).sort(), ['argmax', 'dec.0.cross.probs', 'hidden', 'hidden_norm', 'logits']);
  assert.deepEqual(out.logits.dims, [tgt.length, 67]);
  assert.deepEqual(out.hidden.dims, [tgt.length, 128]);
  for (let t = 0; t < tgt.length; t++) {
    const row = Array.from(out.logits.data.subarray(t * 67, (t + 1) * 67));
    assert.equal(row.indexOf(Math.max(...row)), tr.ids[t]);
    assert.equal(out.argmax.data[t], tr.ids[t], 'the engine\'s argmax');
  }
  const a = out['dec.0.cross.probs'].data, b = tr.tensors['dec.0.cross.probs'].data;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  assert.ok(worst <= 1e-6, `forward and translate differ by ${worst}`);
  // Each digit's most-attended word (mass summed over its characters) is the word that produced it.
  const S = src.length, wordOf = [];
  let w = 0;
  for (const ch of words) { if (ch === ' ') w++; wordOf.push(ch === ' ' ? -1 : w); }
  const words_ = words.split(' ');
  const gold = { 0: 'three', 1: 'forty', 2: 'two' };
  for (const [t, word] of Object.entries(gold)) {
    const mass = new Array(words_.length).fill(0);
    for (let j = 0; j < S; j++) if (wordOf[j] >= 0) mass[wordOf[j]] += b[Number(t) * S + j];
    assert.equal(words_[mass.indexOf(Math.max(...mass))], word, `digit ${Number(t) + 1}`);
  }
});

test('operations that do not apply and bad inputs are statuses with messages', skip, () => {
  const src = api.tokenize(m, 'seven').ids;
  assert.throws(() => api.generate(m, src, { maxTokens: 3 }), /tfp_generator_create.*GRU/);
  assert.throws(() => api.forward(m, src, { attention: true }), /tgt_ids/);
  assert.throws(() => api.forward(m, [5, 99], { tgtIds: [START] }), /position 1/);
  assert.throws(() => api.translate(m, new Array(80).fill(5)), /80/);
  assert.throws(() => api.translate(m, src, { beamSize: 0 }), /beam_size/);
  // Still usable afterwards.
  assert.equal(digits(api.translate(m, src).ids), '7');
});
