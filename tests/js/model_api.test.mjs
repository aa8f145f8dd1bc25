// Models through the built WebAssembly module's C API, as the page's worker calls it.
// Oracles: the native `tfp` CLI (build/native/tfp, built by tools/test.sh first) run on
// the same fixture folders — tokenisation and seeded generation must be identical,
// forward outputs within 1e-5 (the CLI prints ~9 significant digits and the two builds
// use different SIMD widths, so summation order differs: ~1e-7 seen); the definition of
// a softmax row (sums to 1 within 1e-5; causal rows exactly 0 above the diagonal).
// Without the CLI those comparisons are skipped (and say so); the rest still run.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadTfp } from './tfp_module.mjs';
import { CHECKPOINTS, ModelApi, hasShipped, nativeCli, readFixture, readShipped, runCli } from './model_api.mjs';
import { flat, maxDiff } from './compare.mjs';

let api;
const cli = nativeCli();
const needCli = cli ? {} : { skip: 'build/native/tfp is missing (run tools/build.sh native)' };
before(async () => {
  api = new ModelApi(await loadTfp());
});

test('info describes the fixture models', () => {
  const gpt2 = api.load(readFixture('gpt2_tiny'), 'gpt2_tiny');
  const bert = api.load(readFixture('bert_tiny'), 'bert_tiny');
  try {
    const g = api.info(gpt2), b = api.info(bert);
    assert.equal(g.family, 'gpt2');
    assert.equal(g.architecture, 'decoder_only');
    assert.deepEqual([g.d_model, g.n_heads, g.n_decoder_layers, g.vocab_size, g.max_positions], [16, 4, 2, 264, 32]);
    assert.equal(g.eos_token_id, 263);
    assert.ok(g.parameters > 0);
    assert.equal(b.family, 'bert');
    assert.equal(b.architecture, 'encoder_only');
    assert.ok(b.tokenizer.special.cls >= 0 && b.tokenizer.special.sep >= 0);
  } finally {
    api.free(gpt2);
    api.free(bert);
  }
});

test('a tagger\'s info carries its label names (config.json id2label), which the playground shows', { skip: !hasShipped('brown-pos') && 'brown-pos is not shipped' }, () => {
  const pos = api.load(readShipped('brown-pos'), 'brown-pos');
  try {
    const info = api.info(pos);
    assert.equal(info.head, 'token_classifier');
    const names = info.config.id2label;
    assert.equal(Object.keys(names).length, info.config.n_labels);
    assert.equal(names['0'], 'NOUN');
    assert.equal(names['1'], 'VERB');
  } finally {
    api.free(pos);
  }
});

for (const [fixture, text] of [['gpt2_tiny', 'Hello wörld, 1 + 2 = 3 ☃ 😀'], ['bert_tiny', 'The cat sat, unaffably.']]) {
  test(`tokenisation equals the native CLI: ${fixture}`, needCli, () => {
    const m = api.load(readFixture(fixture));
    try {
      const got = api.tokenize(m, text);
      const want = runCli(cli, ['tokenize', `${CHECKPOINTS}${fixture}`, text]);
      assert.deepEqual(got.ids, want.ids);
      assert.deepEqual(got.tokens, want.tokens);
      assert.deepEqual(got.offsets, want.offsets_utf16.flat());
      // UTF-16 offsets index the JavaScript string: every span lies inside it.
      for (let i = 0; i < got.ids.length; i++) assert.ok(got.offsets[2 * i + 1] <= text.length);
    } finally {
      api.free(m);
    }
  });
}

test('forward equals the native CLI within 1e-5; attention shapes right, rows sum to 1', needCli, () => {
  for (const fixture of ['gpt2_tiny', 'bert_tiny']) {
    const m = api.load(readFixture(fixture));
    try {
      const info = api.info(m);
      const ids = fixture === 'gpt2_tiny' ? [72, 101, 108, 108, 111, 32, 119] : [2, 10, 11, 12, 3];
      const r = api.forward(m, ids, { attention: true });
      const want = runCli(cli, ['forward', `${CHECKPOINTS}${fixture}`, '--ids', ids.join(','), '--attention']);
      const main = info.architecture === 'decoder_only' ? 'logits' : 'hidden';
      assert.deepEqual(r[main].dims, [ids.length, main === 'logits' ? info.vocab_size : info.d_model]);
      assert.ok(maxDiff(r[main].data, flat(want[main])) < 1e-5, `${fixture} ${main}`);
      const stack = info.architecture === 'decoder_only' ? 'dec' : 'enc';
      const layers = stack === 'dec' ? info.n_decoder_layers : info.n_encoder_layers;
      const T = ids.length, H = info.n_heads;
      for (let l = 0; l < layers; l++) {
        const p = r[`${stack}.${l}.attn.probs`];
        assert.deepEqual(p.dims, [H, T, T]);
        assert.ok(maxDiff(p.data, flat(want.attention[l])) < 1e-5, `${fixture} layer ${l} attention`);
        for (let row = 0; row < H * T; row++) {
          let s = 0;
          for (let j = 0; j < T; j++) s += p.data[row * T + j];
          assert.ok(Math.abs(s - 1) < 1e-5, `row ${row} sums to ${s}`);
          if (stack === 'dec') for (let j = (row % T) + 1; j < T; j++) assert.equal(p.data[row * T + j], 0);
        }
      }
    } finally {
      api.free(m);
    }
  }
});

test('seeded generation is reproducible and equals `tfp generate`', needCli, () => {
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const prompt = 'Hello';
    const ids = api.tokenize(m, prompt).ids;
    for (const o of [{ temperature: 1, seed: 1 }, { temperature: 0.8, topK: 20, seed: 7 }, { temperature: 1.2, topP: 0.9, seed: 42 },
                     { temperature: 0, seed: 0 }]) {
      const opts = { maxTokens: 12, topK: 0, topP: 1, ...o };
      const a = api.generate(m, ids, opts), b = api.generate(m, ids, opts);
      assert.deepEqual(a.ids, b.ids);
      const want = runCli(cli, ['generate', `${CHECKPOINTS}gpt2_tiny`, '--prompt', prompt, '--max-tokens', '12',
        '--temperature', String(opts.temperature), '--top-k', String(opts.topK), '--top-p', String(opts.topP),
        '--seed', String(opts.seed)]);
      assert.deepEqual(a.ids, want.ids, JSON.stringify(o));
      assert.equal(a.reason, want.stop_reason);
      assert.ok(maxDiff(a.probs, want.probs) < 1e-6);
      assert.equal(a.text, want.text.replace(/\uFFFD+$/u, ''));  // a trailing partial character is held back
    }
  } finally {
    api.free(m);
  }
});

test('a generator stopped early stops: no more tokens, and freeing it mid-way leaks nothing', () => {
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const ids = api.tokenize(m, 'Hello').ids;
    const full = api.generate(m, ids, { maxTokens: 10, seed: 3 });
    const cut = api.generate(m, ids, { maxTokens: 10, seed: 3, limit: 3 });
    assert.deepEqual(cut.ids, full.ids.slice(0, 3));
    assert.equal(cut.reason, '');  // still running when freed
    const heap = api.m.HEAPU8.buffer.byteLength;
    for (let i = 0; i < 50; i++) api.generate(m, ids, { maxTokens: 10, seed: i, limit: 2 });
    assert.equal(api.m.HEAPU8.buffer.byteLength, heap);
  } finally {
    api.free(m);
  }
});

test('20 load/dispose cycles: the heap does not grow beyond the first', () => {
  const files = readFixture('gpt2_tiny');
  const cycle = () => {
    const m = api.load(files);
    api.forward(m, [1, 2, 3, 4], { attention: true });
    api.generate(m, [1, 2, 3], { maxTokens: 4 });
    api.free(m);
  };
  cycle();
  const after1 = api.m.HEAPU8.buffer.byteLength;
  for (let i = 0; i < 19; i++) cycle();
  assert.equal(api.m.HEAPU8.buffer.byteLength, after1);
});

test('bad input comes back as a message; the same module then loads and runs a good model', () => {
  const good = readFixture('gpt2_tiny');
  const truncated = { ...good, weights: good.weights.subarray(0, good.weights.length - 100) };
  assert.throws(() => api.load(truncated, 'cut'), (e) => e.status === 2 && /cut\/model\.safetensors/.test(e.message));
  const header = { ...good, weights: good.weights.subarray(0, 5) };
  assert.throws(() => api.load(header, 'tiny'), (e) => e.status === 2 && /safetensors/.test(e.message));
  assert.throws(() => api.load({ ...good, tokenizer: good.tokenizer.slice(0, 200) }, 'tok'),
    (e) => e.status === 2 && /tok\/tokenizer\.json/.test(e.message));
  assert.throws(() => api.load({ ...good, config: '{"model_type": "gpt2"' }, 'cfg'), (e) => /config\.json/.test(e.message));
  const m = api.load(good);
  try {
    assert.throws(() => api.forward(m, Array(33).fill(5)), (e) => e.status === 2 && /32/.test(e.message));
    assert.throws(() => api.forward(m, [1, 264]), (e) => e.status === 2 && /264/.test(e.message));
    assert.throws(() => api.forward(m, []), (e) => e.status === 1);
    assert.throws(() => api.generate(m, Array(33).fill(5)), /context/);
    // Invalid UTF-8 straight into the C API (a JS string is always valid, bytes need not be).
    const bad = new Uint8Array([0x6f, 0x6b, 0x20, 0xc3, 0x28]);
    assert.throws(() => api.withBytes(bad, (p, n) => api.out((s) => api.m._tfp_model_tokenize(m, p, n, 1, s))),
      (e) => e.status === 2 && /UTF-8/.test(e.message));
    assert.equal(api.forward(m, [1, 2, 3]).logits.dims.join(), '3,264');
  } finally {
    api.free(m);
  }
});

test('a model larger than the heap can hold is TFP_ERR_OUT_OF_MEMORY, then the module still works', () => {
  // wasm32 with growth: at most 2 GiB by default; 3.5 GiB cannot be had.
  assert.throws(() => api.out((s) => api.m._tfp_model_files_create(3.5 * 2 ** 30, s)),
    (e) => e.status === 3 && /out of memory/.test(e.message));
  const m = api.load(readFixture('gpt2_tiny'));
  assert.equal(api.forward(m, [1, 2]).logits.dims.join(), '2,264');
  api.free(m);
});

test('translate: greedy and beam search on a random encoder-decoder model, with alignment', () => {
  const config = JSON.stringify({
    model_type: 'tfp', architecture: 'encoder_decoder', d_model: 16, n_heads: 2, n_encoder_layers: 1,
    n_decoder_layers: 2, d_ff: 32, vocab_size: 264, max_positions: 16, positional: 'learned',
    encoder_final_norm: true, decoder_final_norm: true,
  });
  const m = api.random(config, readFixture('gpt2_tiny').tokenizer, 9);
  try {
    const src = api.tokenize(m, 'abc').ids;
    const greedy = api.translate(m, src, { beamSize: 1, maxTokens: 6, startId: 263, eosId: 263 });
    assert.ok(greedy.ids.length >= 1 && greedy.ids.length <= 6);
    const T = greedy.ids.length, S = src.length;
    assert.deepEqual(greedy.tensors.alignment.dims, [T, S]);
    assert.deepEqual(greedy.tensors['dec.1.cross.probs'].dims, [2, T, S]);
    for (let t = 0; t < T; t++) {
      let s = 0;
      for (let j = 0; j < S; j++) s += greedy.tensors.alignment.data[t * S + j];
      assert.ok(Math.abs(s - 1) < 1e-5);
    }
    // Greedy = argmax of teacher-forced forward passes.
    let tgt = [263];
    for (const id of greedy.ids) {
      const lg = api.forward(m, src, { tgtIds: tgt }).logits;
      const V = lg.dims[1], row = lg.data.subarray((tgt.length - 1) * V, tgt.length * V);
      assert.equal(row.indexOf(Math.max(...row)), id);
      tgt = [...tgt, id];
    }
    const beam = api.translate(m, src, { beamSize: 4, maxTokens: 6, startId: 263, eosId: 263 });
    assert.ok(beam.ids.length >= 1);
  } finally {
    api.free(m);
  }
});
