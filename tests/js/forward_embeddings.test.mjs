// Models that read vectors (PyTorch nn.Transformer checkpoints) through the built
// WebAssembly module, as the page's worker calls it (web/src/engine/embeddings.ts; the
// same calls are ModelApi's forwardEmbeddings / attentionStepsEmbeddings / embeddingRows
// in model_api.mjs, which the browser test uses as its oracle).
// Oracles and tolerances:
//  * PyTorch: the fixtures' expected.json (gen_checkpoints.py, float64 torch modules) on
//    their inputs.safetensors, max abs 1e-4 as the native checkpoint tests;
//  * the forward pass in the same module: the drill-down's softmax row equals the map's
//    row (1e-6); definitions: every probs row sums to 1 (1e-5), causal rows put exactly 0
//    on future keys, hidden_norm is each hidden row's length (1e-5 relative);
//  * the words split spelled out by hand.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadTfp } from './tfp_module.mjs';
import { CHECKPOINTS, ModelApi, readFixture } from './model_api.mjs';
import { flat, maxDiff } from './compare.mjs';

let api;
before(async () => {
  api = new ModelApi(await loadTfp());
});

/** The tensors of a safetensors file (F32 and BOOL, all the fixtures' inputs use). */
function readSafetensors(path) {
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const out = {};
  for (const [name, e] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [a, b] = e.data_offsets;
    const bytes = buf.subarray(8 + n + a, 8 + n + b);
    out[name] = { dtype: e.dtype, shape: e.shape,
      data: e.dtype === 'F32' ? new Float32Array(new Uint8Array(bytes).buffer) : Uint8Array.from(bytes) };
  }
  return out;
}

function load(name) {
  const f = readFixture(name);
  assert.equal(f.tokenizer, null);  // a PyTorch state_dict comes without one
  return api.load(f, name);
}

test('nn.Transformer and nn.TransformerDecoder through the module equal PyTorch (1e-4)', () => {
  for (const [name, srcName] of [['torch_transformer', 'src'], ['torch_decoder', 'memory']]) {
    const model = load(name);
    try {
      const info = api.info(model);
      assert.equal(info.has_embeddings, false);
      assert.equal(info.tokenizer_fallback, 'words');
      const inputs = readSafetensors(`${CHECKPOINTS}${name}/inputs.safetensors`);
      const want = JSON.parse(readFileSync(`${CHECKPOINTS}${name}/expected.json`, 'utf8'));
      // The fixtures' masks: a causal tgt_mask (float -inf or BOOL) and key padding.
      const srcPadding = inputs.src_key_padding_mask?.data ?? null;
      if (inputs.memory_key_padding_mask) assert.deepEqual(inputs.memory_key_padding_mask.data, srcPadding);
      const out = api.forwardEmbeddings(model, 16, inputs[srcName].data, inputs.tgt.data, {
        srcPadding, tgtPadding: inputs.tgt_key_padding_mask?.data ?? null, causalTgt: true });
      assert.ok(maxDiff(out.hidden.data, flat(want.output)) < 1e-4, `${name}: output differs from torch`);
      if (want.memory) assert.ok(maxDiff(out.memory.data, flat(want.memory)) < 1e-4, `${name}: memory differs`);
      for (const [k, v] of Object.entries(want.attentions))
        assert.ok(maxDiff(out[k].data, flat(v)) < 1e-4, `${name}: ${k} differs from torch`);
    } finally {
      api.free(model);
    }
  }
});

test('text → words → seeded vectors + sinusoidal positions → maps; the drill-down equals them (1e-6)', () => {
  const model = load('torch_transformer');
  try {
    const enc = api.tokenize(model, 'The cat sat on the mat. The cat!');
    assert.deepEqual(enc.tokens, ['The', 'cat', 'sat', 'on', 'the', 'mat', '.', 'The', 'cat', '!']);
    assert.deepEqual(enc.ids, [0, 1, 2, 3, 4, 5, 6, 0, 1, 7]);
    assert.deepEqual(enc.offsets.slice(0, 4), [0, 3, 4, 7]);
    const S = enc.tokens.length, tgtTokens = ['The', 'cat'], T = 2, C = 16;
    const src = api.embeddingRows(enc.tokens, C, { seed: 1, positions: true });
    const plain = api.embeddingRows(enc.tokens, C, { seed: 1, positions: false });
    // Same text, same vector without positions; positions make them differ.
    assert.deepEqual(plain.subarray(0, C), plain.subarray(7 * C, 8 * C));
    assert.notDeepEqual(src.subarray(0, C), src.subarray(7 * C, 8 * C));
    assert.deepEqual(Array.from(src.subarray(0, 2)), [plain[0], Math.fround(plain[1] + 1)]);  // PE[0] = (0, 1, ...), added in float32
    const tgt = api.embeddingRows(tgtTokens, C, { seed: 1, positions: true });
    const out = api.forwardEmbeddings(model, C, src, tgt, { causalTgt: true });
    assert.deepEqual(out.hidden.dims, [T, C]);
    assert.deepEqual(out.memory.dims, [S, C]);
    assert.deepEqual(out['enc.1.attn.probs'].dims, [4, S, S]);
    assert.deepEqual(out['dec.0.attn.probs'].dims, [4, T, T]);
    assert.deepEqual(out['dec.1.cross.probs'].dims, [4, T, S]);
    for (let t = 0; t < T; t++) {
      let ss = 0;
      for (let j = 0; j < C; j++) ss += out.hidden.data[t * C + j] ** 2;
      assert.ok(Math.abs(out.hidden_norm.data[t] - Math.sqrt(ss)) <= 1e-5 * Math.sqrt(ss));
    }
    for (const h of [0, 3]) assert.equal(out['dec.1.attn.probs'].data[h * T * T + 1], 0);  // query 0 never sees key 1
    for (const [set, name, Tq, Tk] of [['enc', 'enc.1.attn.probs', S, S], ['dec', 'dec.1.attn.probs', T, T],
      ['cross', 'dec.0.cross.probs', T, S]]) {
      const p = out[name].data;
      for (let r = 0; r < 4 * Tq; r++) {
        const row = p.subarray(r * Tk, (r + 1) * Tk);
        assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
      }
      for (const [head, query] of [[0, 0], [3, Tq - 1]]) {
        const layer = Number(name.split('.')[1]);
        const s = api.attentionStepsEmbeddings(model, C, src, tgt, { set, layer, head, query, causalTgt: true });
        assert.ok(maxDiff(s.probs.data, p.subarray((head * Tq + query) * Tk, (head * Tq + query + 1) * Tk)) <= 1e-6,
          `${set} H${head} q${query}: drill-down differs from the map`);
      }
    }
    // Shapes are checked against d_model, with the engine's message.
    assert.throws(() => api.forwardEmbeddings(model, 8, src, tgt), {
      message: "tfp_model_forward_embeddings: the inputs' rows have C = 8 values but 'torch_transformer' has d_model = 16 (src is (S, 16), tgt (T, 16))" });
    assert.throws(() => api.forwardEmbeddings(model, C, src, null), /needs the decoder's input tgt/);
    assert.equal(api.forwardEmbeddings(model, C, src, tgt).hidden.dims[0], T);  // still usable
  } finally {
    api.free(model);
  }
});
