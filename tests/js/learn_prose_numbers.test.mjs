// The numbers the Learn chapters quote in their fixed prose (issue 34): one test per
// chapter. Each claim names the text key, the number as the prose writes it (it must be
// there, in English and in Chinese), and how we get it: the engine's own Learn call (the
// WASM build, through the same marshalling the pages use, loaded by Vite) or, for a fact
// of arithmetic or of a number format, an independent computation written here. A number
// the prose takes from a live figure is not in these lists: the browser tests check those.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';
import { loadTfp } from './tfp_module.mjs';
import { ModelApi, readShipped } from './model_api.mjs';

const WEB = fileURLToPath(new URL('../../web/', import.meta.url));
const MODELS = new URL('../../models/', import.meta.url);
let server, m, calls, L, f16, int8;
const texts = {};

before(async () => {
  server = await createServer({ root: WEB, configFile: false, logLevel: 'error', appType: 'custom',
                                server: { middlewareMode: true, hmr: false }, optimizeDeps: { noDiscovery: true, include: [] } });
  m = await loadTfp();
  const { Calls } = await server.ssrLoadModule('/src/engine/calls.ts');
  ({ LEARN_CALLS: L } = await server.ssrLoadModule('/src/engine/learn_calls/index.ts'));
  f16 = await server.ssrLoadModule('/src/learn/chapters/softmax/float16.mjs');
  int8 = await server.ssrLoadModule('/src/learn/chapters/efficiency/int8_rule.mjs');
  calls = new Calls(m, 1);
  for (const ch of ['softmax', 'scaling', 'training', 'multi-head', 'generation', 'encoder-layer', 'efficiency',
                    'additive-attention', 'positions', 'self-attention', 'decoder', 'why-attention']) {
    texts[ch] = (await server.ssrLoadModule(`/src/learn/chapters/${ch}/text.ts`)).TEXT;
  }
}, { timeout: 120_000 });
after(async () => { await server?.close(); });

const learn = (name, args) => L[name](calls, m, args, { modelPtr: () => 0 });

/** The prose of `key` quotes `quoted` in English and `zh` (default the same) in Chinese,
 *  maths and tags as written. */
function quotes(ch, key, quoted, zh = quoted) {
  for (const [lang, q] of [['en', quoted], ['zh-CN', zh]]) {
    const s = texts[ch][lang][key];
    assert.ok(s, `${ch}.${key} (${lang}) exists`);
    assert.ok(s.includes(q), `${ch}.${key} (${lang}) quotes “${q}”`);
  }
}
const fixed = (x, d) => x.toFixed(d);

test('ch. 4 Softmax: entropy of a uniform row, float32 overflow and underflow of exp, 16-bit masks, the temperature example', () => {
  // ln 4 for four keys: the engine's stable softmax of four equal scores, then −Σ p ln p.
  const u = learn('softmaxRow', { scores: new Float32Array([0.3, 0.3, 0.3, 0.3]) });
  quotes('softmax', 'entropy', '1.386');
  assert.equal(fixed(-Array.from(u.probs).reduce((s, p) => s + p * Math.log(p), 0), 3), '1.386');
  // e^88 fits in float32, e^89 does not (the naive formula in the engine); 3.4e38 ≈ e^88.72.
  quotes('softmax', 'stable', '88.72');
  assert.ok(Number.isFinite(learn('softmaxRow', { scores: new Float32Array([88, 0]), variant: 'naive' }).sumExps));
  assert.equal(learn('softmaxRow', { scores: new Float32Array([89, 0]), variant: 'naive' }).sumExps, Infinity);
  assert.equal(fixed(Math.log(3.4028234663852886e38), 2), '88.72');
  // Below about −104 every exp rounds to 0 in float32 (naive), just above it does not.
  quotes('softmax', 'underNote', '104');
  assert.equal(learn('softmaxRow', { scores: new Float32Array([-104.5, -104.5]), variant: 'naive' }).sumExps, 0);
  assert.ok(learn('softmaxRow', { scores: new Float32Array([-103.5, -103.5]), variant: 'naive' }).sumExps > 0);
  // float16: the largest finite 65504, −1e9 overflows, −1e4 exact in f16 and −9984 in bf16; exp underflows
  // below ln(2^-25) ≈ −17.3, 2^-24 ≈ 6.0e-8, e^-30 ≈ 9.4e-14; 2 + (−1e4) = −9998 held as −10000 / −9984.
  quotes('softmax', 'finite', '65504');
  assert.equal(f16.roundTo16(65504, 'f16'), 65504);
  assert.equal(f16.roundTo16(-1e9, 'f16'), -Infinity);
  assert.equal(f16.roundTo16(-1e4, 'f16'), -1e4);
  quotes('softmax', 'finite', '-9984');
  assert.equal(f16.roundTo16(-1e4, 'bf16'), -9984);
  quotes('softmax', 'finite', '-17.3');
  assert.equal(fixed(-25 * Math.LN2, 1), '-17.3');
  assert.equal(f16.roundTo16(Math.exp(-17.4), 'f16'), 0);
  assert.ok(f16.roundTo16(Math.exp(-17.2), 'f16') > 0);
  quotes('softmax', 'finite', '6.0 \\times 10^{-8}');
  assert.equal(fixed(2 ** -24 * 1e8, 1), '6.0');
  quotes('softmax', 'finite', '9.4 \\times 10^{-14}');
  assert.equal(fixed(Math.exp(-30) * 1e14, 1), '9.4');
  quotes('softmax', 'finite', '-9998');
  assert.equal(f16.roundTo16(2 - 1e4, 'f16'), -10000);
  assert.equal(f16.roundTo16(2 - 1e4, 'bf16'), -9984);
  // The temperature example: scores [2, 1, 0.1] at τ = 0.5 are logits [4, 2, 0.2] in the engine.
  quotes('softmax', 'exExplain', 'z = [4,\\ 2,\\ 0.2]');
  const t = learn('softmaxRow', { scores: new Float32Array([2, 1, 0.1]), temperature: 0.5 });
  assert.deepEqual(Array.from(t.logits, (x) => Number(x.toFixed(5))), [4, 2, 0.2]);
});

test('ch. 5 Scaling: the raw score\'s spread is √d_k (2 at 4, 32 at 1024, 22.6 at 512) in the engine\'s experiment', () => {
  const r = learn('scalingStats', { dks: [4, 512, 1024], nKeys: 8, samples: 4000, seed: 1 });
  const sd = r.stats.map((s) => Math.sqrt(s.none.variance));
  quotes('scaling', 'variance', 'about 2 at $d_k=4$, but 32 at $d_k=1024$', '$d_k=4$ 时约为 2，$d_k=1024$ 时就到了 32');
  quotes('scaling', 'exWhy', '22.6');
  // The sampled spread within 5 % of √d_k: what "about" promises.
  [[0, 2], [1, 22.6], [2, 32]].forEach(([i, want]) => assert.ok(Math.abs(sd[i] / want - 1) < 0.05, `sd at ${r.dks[i]}: ${sd[i]}`));
  assert.equal(fixed(Math.sqrt(512), 1), '22.6');
});

test('ch. 6 Multi-head: brown-gpt\'s 66,048 attention parameters per layer (engine count)', () => {
  quotes('multi-head', 'figCostCaption', '66,048');
  const r = learn('mhaCost', { dModel: 128, heads: 4, tokens: 16 });
  assert.equal(r.paramsTotal, 66048);
  assert.equal(r.headDim, 32);
});

test('ch. 8 Encoder layer: GELU\'s minimum about −0.17 near x = −0.75 (the engine\'s kernel)', () => {
  quotes('encoder-layer', 'figActCaption', '−0.17');
  quotes('encoder-layer', 'figActCaption', '−0.75');
  const x = Float32Array.from({ length: 401 }, (_, i) => -2 + i * 0.005);
  const y = learn('activation', { kind: 1, x });
  let k = 0;
  y.forEach((v, i) => { if (v < y[k]) k = i; });
  assert.equal(fixed(y[k], 2), '-0.17');
  assert.ok(Math.abs(x[k] + 0.75) < 0.01, `argmin ${x[k]}`);
});

test('ch. 10 Generation: a 32-layer, 4,096-wide cache holds 1 MiB per position in float32 (the engine\'s size); beam search\'s V^L', async () => {
  const brownVocab = JSON.parse(await readFile(new URL('brown-gpt/config.json', MODELS), 'utf8')).vocab_size;
  quotes('generation', 'figCache', '1 MiB');
  const config = JSON.stringify({ model_type: 'llama', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32,
                                  num_key_value_heads: 32, intermediate_size: 11008, vocab_size: 32000, max_position_embeddings: 4096 });
  const r = learn('kvCacheSizeConfig', { config, positions: 1 });
  assert.equal(r.bytes, 1024 * 1024);
  quotes('generation', 'figCache', '512 KiB');
  assert.equal(r.bytes / 2, 512 * 1024);
  // Beam search: V^L continuations of five tokens of brown-gpt (its vocabulary from the shipped config).
  quotes('generation', 'beamIntro', '$2048^5 \\approx 3.6 \\times 10^{16}$');
  assert.equal(brownVocab, 2048);
  assert.equal(fixed(2048 ** 5 / 1e16, 1), '3.6');
});

test('ch. 11 Efficiency: the int8 rule\'s examples (ties away from zero, ±127) as the page replays the engine\'s rule', () => {
  quotes('efficiency', 'int8Rule', '2.5 \\to 3');
  quotes('efficiency', 'int8Rule', '-2.5 \\to -3');
  quotes('efficiency', 'int8Rule', '0.5 \\to 1');
  // s = 1 (max |x| = 127): exact halves round away from zero; the extreme lands on ±127, never −128.
  const g = int8.quantiseGroup([2.5, -2.5, 0.5, 127, -127]);
  assert.equal(g.scale, 1);
  assert.deepEqual(g.q, [3, -3, 1, 127, -127]);
});

test('ch. 12 Training: the first loss near ln 15 ≈ 2.708 (engine cross-entropy), warm-up from peak/W, the paper\'s 7.0e-4 peak', () => {
  quotes('training', 'loss', '2.708');
  const V = 15;
  const l = learn('trainingLoss', { logits: new Float32Array(V), targets: [3], V, smoothing: 0 });
  assert.equal(fixed(l[0], 3), '2.708');
  // The trainer's warm-up: peak/W at step 0, the peak at step W − 1.
  const W = 10, lr = learn('trainingSchedule', { peak: 1, floor: 0.1, warmup: W, total: 100, decay: 1, n: 100 });
  assert.ok(Math.abs(lr[0] - 1 / W) < 1e-12, `step 0: ${lr[0]}`);
  assert.ok(Math.abs(lr[W - 1] - 1) < 1e-12);
  quotes('training', 'scheduleOriginal', '7.0\\cdot10^{-4}');
  assert.equal(fixed(512 ** -0.5 * Math.min(4000 ** -0.5, 4000 * 4000 ** -1.5) * 1e4, 1), '7.0');
});

test('ch. 2 Additive attention: numbers-gru\'s sizes as the prose gives them equal the shipped config', async () => {
  const cfg = JSON.parse(await readFile(new URL('numbers-gru/config.json', MODELS), 'utf8'));
  quotes('additive-attention', 'model', 'encoder states\nof 128', '编码器状态 128 维');
  assert.equal(cfg.encoder_hidden * (cfg.bidirectional ? 2 : 1), 128);
  quotes('additive-attention', 'model', 'decoder states of 128', '解码器状态 128 维');
  assert.equal(cfg.decoder_hidden, 128);
  quotes('additive-attention', 'model', '$A = 64$');
  assert.equal(cfg.attention_dim, 64);
});

test('ch. 9 Decoder: the shipped translators give the examples the prose quotes (engine, greedy)', async () => {
  const api = new ModelApi(m);
  const run = async (name, source) => {
    const cfg = JSON.parse(await readFile(new URL(`${name}/config.json`, MODELS), 'utf8'));
    const h = api.load(readShipped(name), name);
    try {
      const out = api.translate(h, api.tokenize(h, source).ids, { beamSize: 1 });
      return out.ids.filter((id) => id !== cfg.eos_token_id).map((id) => m.UTF8ToString(m._tfp_model_id_to_token(h, id))).join('');
    } finally {
      api.free(h);
    }
  };
  quotes('decoder', 'crossWhat', '→ 342', '→ 342');
  assert.equal(await run('numbers-transformer', 'three hundred and forty-two'), '342');
  quotes('decoder', 'crossWhat', '→ 2021-03-03', '→ 2021-03-03');
  assert.equal(await run('dates', '3 March 2021'), '2021-03-03');
  quotes('decoder', 'crossWhat', '04/03/21 is 4 March 2021', '04/03/21');
  assert.equal(await run('dates', '04/03/21'), '2021-03-04');
});

test('ch. 1 Why attention: the gradient section\'s fixed numbers — σ(4) ≈ 0.98, the 1/√3 ≈ 0.58 eigenvalue disc, and g^k without the tanh (engine)', () => {
  quotes('why-attention', 'biasHelp', 'σ(4) ≈ 0.98');
  assert.equal(fixed(1 / (1 + Math.exp(-4)), 2), '0.98');
  quotes('why-attention', 'gradWhy', '1/\\sqrt{3} \\approx 0.58');
  // uniform(±1/√H) entries have variance 1/(3H): the circular law's radius √(H · 1/(3H)) = 1/√3.
  assert.equal(fixed(Math.sqrt(1 / 3), 2), '0.58');
  // The engine's cell without tanh: W_hh = g·Q with Q orthogonal, so the length k steps back is g^k.
  const r = learn('gradientSteps', { cell: 'linear', H: 32, T: 61, gain: 1.2, updateBias: 0, seed: 1 });
  assert.ok(Math.abs(r.norms[60] / 1.2 ** 60 - 1) < 1e-9, `k = 60: ${r.norms[60]}`);
});

test('ch. 3 Self-attention: the trained model the prose names is brown-gpt, d_model 128 in 4 heads of 32 (shipped config)', async () => {
  const cfg = JSON.parse(await readFile(new URL('brown-gpt/config.json', MODELS), 'utf8'));
  quotes('self-attention', 'model', '$d_{\\text{model}} = 128$ (brown-gpt, linked below, in 4 heads of 32)',
         '$d_{\\text{model}}$ 是 128（下面链接的 brown-gpt，分成 4 个 32 维的头）');
  quotes('self-attention', 'playLink', 'brown-gpt');
  assert.deepEqual([cfg.d_model, cfg.n_heads, cfg.d_model / cfg.n_heads], [128, 4, 32]);
});

test('ch. 7 Positions: 2π ≈ 6.3, 10000·2π ≈ 62,832 and the last pair short of it (engine ω); tensor2tensor from 1 to 1/10000; ALiBi\'s slopes; brown-gpt stops at 128', async () => {
  quotes('positions', 'sinWhat', '$2\\pi \\approx 6.3$');
  quotes('positions', 'sinWhat', 'short of $10000 \\cdot 2\\pi \\approx 62{,}832$', '不到 $10000 \\cdot 2\\pi \\approx 62{,}832$');
  assert.equal(fixed(2 * Math.PI, 1), '6.3');
  assert.equal(Math.round(10000 * 2 * Math.PI), 62832);
  for (const C of [8, 64, 512]) {
    const paper = learn('sinusoidal', { positions: 2, dModel: C, layout: 'interleaved' }).omegas;
    assert.equal(paper[0], 1, 'pair 0 turns once every 2π positions');
    const last = (2 * Math.PI) / paper[C / 2 - 1];
    assert.ok(last < 10000 * 2 * Math.PI, `d_model ${C}: the last pair's period ${last} is short of 62,832`);
    if (C === 512) assert.ok(last > 0.95 * 10000 * 2 * Math.PI, `d_model 512: the last pair approaches it (${last})`);
    const t2t = learn('sinusoidal', { positions: 2, dModel: C, layout: 'tensor2tensor' }).omegas;
    assert.equal(t2t[0], 1);
    assert.ok(Math.abs(t2t[C / 2 - 1] - 1e-4) < 1e-16, 'tensor2tensor ends at exactly 1/10000');
  }
  quotes('positions', 'alibiWhat', '$m_h = 2^{-8(h+1)/H}$');
  assert.deepEqual(Array.from(learn('alibi', { heads: 8, positions: 2 }).slopes), [1, 2, 3, 4, 5, 6, 7, 8].map((k) => 2 ** -k));
  // Six heads: the 4 slopes of 4 heads, then every other slope of 8 heads (2^-1, 2^-3).
  assert.deepEqual(Array.from(learn('alibi', { heads: 6, positions: 2 }).slopes), [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3]);
  quotes('positions', 'learnedWhat', 'this model stops at 128', '这个模型最多 128 个位置');
  const cfg = JSON.parse(await readFile(new URL('brown-gpt/config.json', MODELS), 'utf8'));
  assert.equal(cfg.max_positions, 128);
});
