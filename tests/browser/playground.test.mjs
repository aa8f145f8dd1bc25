// The playground page (web/index.html) in Chromium: builds the site, serves it with
// vite preview, and checks that
//   - it opens with a model loaded (a shipped model, else the bundled GPT-2 fixture);
//   - typing a sentence gives the token strip (ids, spans) and the outputs;
//   - every inspector view shows the engine's numbers for that input. Oracle: the same
//     fixture run here in Node on the same WASM module through the C API
//     (tests/js/model_api.mjs), and tfp_attention_rollout / tfp_attention_head_stats
//     on those maps. Tolerance 1e-6 (same code, same inputs: equality expected);
//   - next-token bars and generation agree with the engine's greedy/seeded generator,
//     generation streams and Stop stops it between tokens;
//   - a GPT-2 model opened as files loads and runs; a broken file shows an error and
//     the previous model keeps working; a "<script>" token shows as text;
//   - the URL reproduces the view; no request leaves the page's host; no console errors.
// Each test opens the page afresh with the URL it needs (fresh()): no test inherits another's
// model, text, view, theme or screen size.
// Screenshots of every view go to build/screenshots/playground_*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { freshPage, openSite, playgroundProbes, SHOTS, urlMatches } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readFixture, readShipped, CHECKPOINTS, MODELS } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';

const FIXTURE = 'fixture-gpt2_tiny';

let site, page, base, api, gpt2, requests, problems;

before(async () => {
  api = new ModelApi(await loadTfp());
  gpt2 = api.load(readFixture('gpt2_tiny'), 'gpt2_tiny');
  site = await openSite({ name: 'playground' });
  ({ page, base, requests, problems } = site);
}, { timeout: 180_000 });

after(async () => { await site?.close(); });

const { num, after: after_, shown } = playgroundProbes(() => page, { timeout: 20_000 });

/** The state each test starts from: the playground loaded afresh with `query` (its URL
 *  keys: model, text, view, layer, head, …), the model loaded and its first pass drawn;
 *  1280 × 720, light (or `opts`), no language or theme saved by an earlier test. Returns
 *  the renders counter. */
async function fresh(query = '', opts = {}) {
  await freshPage(page, `${base}/${query ? `?${query}` : ''}`, opts);
  await after_('loads', 0, 60_000);
  return after_('renders', 0);
}

/** Oracle forward of `model` on `text` (truncated to the context as the page does). */
function oracle(model, text) {
  const enc = api.tokenize(model, text);
  const max = api.info(model).max_positions;
  const ids = enc.ids.slice(0, max);
  return { enc, ids, out: api.forward(model, ids, { attention: true }) };
}

function headSlice(t, h) {
  const [, Tq, Tk] = t.dims;
  return Array.from(t.data.subarray(h * Tq * Tk, (h + 1) * Tq * Tk));
}

const oracleRollout = (layers) => api.rollout(layers, 0.5, 0);

function oracleStats(t, causal = false) {
  const [H, Tq, Tk] = t.dims, m = api.m;
  const p = api.put(t.data), o = m._tfp_alloc(H * 16);
  try {
    api.check(m._tfp_attention_head_stats_masked(p, H, Tq, Tk, causal ? 1 : 0, 0, o));
    return Array.from(new Float32Array(m.HEAPU8.buffer, o, H * 4));
  } finally { m._tfp_free(p); m._tfp_free(o); }
}

test('opens with a model loaded; typing gives tokens, outputs and the engine\'s attention', { timeout: 120_000 }, async () => {
  await fresh();
  const info = await page.evaluate(() => window.tfpPlay.modelInfo);
  assert.ok(info && info.n_heads > 0, 'a model is loaded when the page opens');
  // The default is the shipped Brown LM when it exists, else the GPT-2 fixture.
  const wantDefault = existsSync(`${MODELS}brown-gpt/model.safetensors`) ? 'brown-gpt' : FIXTURE;
  assert.equal(await page.evaluate(() => window.tfpPlay.state.model), wantDefault);
  assert.equal(await page.locator('#model-select').inputValue(), wantDefault);
  await page.screenshot({ path: `${SHOTS}playground_default_1280x720.png`, fullPage: true });
  // Next-token candidates spell a leading space as the token strip does ("·the"), never "Ġthe".
  if (info.architecture === 'decoder_only') {
    const labels = await page.locator('.prob-bars .bar-label').allInnerTexts();
    assert.ok(labels.length > 0 && labels.every((l) => !l.includes('Ġ')), `bar labels: ${labels}`);
  }
  // The picker offers every shipped model, the GRU encoder–decoder too (tests/browser/gru_model.test.mjs).
  const offered = await page.locator('#model-select option').evaluateAll((os) => os.map((o) => o.value));
  if (existsSync(`${MODELS}numbers-gru/config.json`)) {
    assert.ok(offered.includes('numbers-gru'), `numbers-gru not offered: ${offered}`);
    assert.ok(await page.locator('#left-out').isHidden());
  }
  if (existsSync(`${MODELS}numbers-transformer/config.json`)) assert.ok(offered.includes('numbers-transformer'));

  await page.goto(`${base}/?model=${FIXTURE}`);
  await after_('loads', 0, 60_000);
  let renders = await after_('renders', 0);
  const text = 'A cat sat on a mat.';
  await page.locator('#text').fill(text);
  renders = await after_('renders', renders);
  const want = oracle(gpt2, text);
  const enc = await page.evaluate(() => window.tfpPlay.encoding);
  assert.deepEqual(enc.ids, want.ids);
  assert.deepEqual(enc.tokens, want.enc.tokens.slice(0, want.ids.length));
  assert.deepEqual(enc.offsets, want.enc.offsets.slice(0, 2 * want.ids.length));
  assert.equal(await page.locator('.token-span').count(), want.ids.length);
  // Whitespace is visible: GPT-2's "Ġ" shows as "·"; ids and spans are shown.
  const first = await page.locator('.token-span').nth(1).textContent();
  assert.ok(first.includes('·') && first.includes(String(want.ids[1])), `token 2 reads ${first}`);
  // Hovering a token marks its characters in the text.
  await page.locator('.token-span').nth(1).hover();
  const [b, e] = want.enc.offsets.slice(2, 4);
  assert.equal(await page.locator('#text-echo mark').textContent(), text.slice(b, e));

  const att = await page.evaluate(() => window.tfpPlay.attention.map((a) => ({ name: a.name, dims: a.dims, data: Array.from(a.data) })));
  assert.deepEqual(att.map((a) => a.name).sort(), Object.keys(want.out).filter((n) => n.endsWith('.probs')).sort());
  for (const a of att) close(a.data, Array.from(want.out[a.name].data), a.name);

  // Next-token bars: the engine's greedy first step has the largest probability.
  const greedy = api.generate(gpt2, want.ids, { maxTokens: 1, temperature: 0 });
  const next = await page.evaluate(() => window.tfpPlay.outputs.nextTokens);
  assert.equal(next.length, 10);
  assert.equal(next[0].id, greedy.ids[0]);
  close([next[0].prob], greedy.probs, 'top next-token probability');
  assert.equal(await page.locator('.prob-bars li').count(), 10);
  await page.screenshot({ path: `${SHOTS}playground_1280x720.png` });
});

test('every inspector view shows the engine\'s numbers', { timeout: 120_000 }, async () => {
  const text = 'A cat sat on a mat.';
  await fresh(`model=${FIXTURE}&text=${encodeURIComponent(text)}`);
  const want = oracle(gpt2, text);
  const layers = ['dec.0.attn.probs', 'dec.1.attn.probs'].map((n) => want.out[n]);
  const view = async (name, shot) => {
    const r = await num('renders');
    await page.locator(`#tab-${name}`).click();
    await after_('renders', r);
    const s = await shown();
    assert.equal(s.view, name);
    await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_${shot ?? name}.png` });
    return s;
  };

  let s = await view('model');
  assert.equal(await page.locator('.lh-tile').count(), 2 * 4);
  // Causal maps: the legend explains the hatched (masked) cells.
  assert.ok(await page.locator('#view .color-legend .legend-mask').isVisible());
  close(s.panels['dec.0.attn.probs'].data, Array.from(layers[0].data), 'model view layer 1');
  close(s.panels['dec.1.attn.probs'].data, Array.from(layers[1].data), 'model view layer 2');

  // Clicking layer 2 head 3 opens it in the matrix view.
  let r = await num('renders');
  await page.getByRole('button', { name: 'layer 2 head 3' }).click();
  await after_('renders', r);
  s = await shown();
  assert.equal(s.view, 'matrix');
  assert.deepEqual([s.layer, s.head], [1, 2]);
  close(Object.values(s.panels)[0].data, headSlice(layers[1], 2), 'matrix view L2 H3');
  // The URL is written at most every 150 ms (the last change after the pause).
  await page.waitForFunction(() => /view=matrix&layer=2&head=3/.test(location.search), null, { timeout: 30_000 });
  await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_matrix.png` });

  s = await view('lines');
  close(s.panels['lines'].data, Array.from(layers[1].data), 'lines view: every head of layer 2');
  // Selecting a query keeps only its lines: causal row 3 has at most 3 keys per head.
  r = await num('renders');
  await page.locator('.token-span').nth(2).click();
  await after_('renders', r);
  const drawn = await page.locator('.attention-lines line').count();
  assert.ok(drawn > 0 && drawn <= 3 * 4, `${drawn} lines for query 3`);
  await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_lines_query3.png` });

  // The query–key drill-down of the query chosen above (drilldown.test.mjs checks every step).
  s = await view('qk');
  assert.equal(s.note, 'query 2');
  close(s.panels.probs.data, headSlice(layers[1], 2).slice(2 * want.ids.length, 3 * want.ids.length), 'drill-down softmax L2 H3 q3');
  s = await view('cross');
  assert.equal(s.note, 'no cross-attention');

  s = await view('stats');
  close(s.panels['dec.0.attn.probs:stats'].data, oracleStats(layers[0], true), 'head stats layer 1');
  close(s.panels['dec.1.attn.probs:stats'].data, oracleStats(layers[1], true), 'head stats layer 2');
  // GPT-2 is causal: row 0 (one key) is left out, as the oracle below computes.
  for (let l = 0; l < 2; l++) {
    const want = maskedStatsOracle(layers[l], (i, j) => j <= i);
    s.panels[`dec.${l}.attn.probs:stats`].data.forEach((v, k) => assert.ok(Math.abs(v - want[k]) <= 1e-5, `GPT-2 L${l + 1}: ${v} vs oracle ${want[k]} (stat ${k % 4})`));
  }
  assert.equal(await page.locator('.head-stats circle').count(), 8);

  s = await view('rollout');
  close(s.panels['rollout'].data, oracleRollout(layers), 'rollout');

  s = await view('compare');
  close(s.panels['A'].data, headSlice(layers[1], 2), 'compare A');
  r = await num('renders');
  await page.getByLabel('Second layer').selectOption('0');
  await after_('renders', r);
  s = await shown();
  close(s.panels['B'].data, headSlice(layers[0], 1), 'compare B = layer 1 head 2');
  await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_compare.png` });

  // Export: PNG, SVG and JSON downloads of the current view.
  for (const [button, ext] of [['#export-png', '.png'], ['#export-svg', '.svg'], ['#export-json', '.json']]) {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator(button).click()]);
    assert.ok(dl.suggestedFilename().endsWith(ext), dl.suggestedFilename());
    const body = await readFile(await dl.path());
    if (ext === '.png') assert.deepEqual([...body.subarray(1, 4)], [0x50, 0x4e, 0x47]);
    if (ext === '.svg') assert.match(body.toString(), /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    if (ext === '.json') close(JSON.parse(body).data, Array.from(layers[1].data), 'exported tensor');
  }

  // The URL reproduces the view in a fresh page.
  await urlMatches(page, /[?&]view=compare(&|$)/);
  const url = page.url();
  const p2 = await site.newPage();
  await p2.goto(url);
  await p2.waitForFunction(() => window.tfpPlay?.shown?.view === 'compare' && Number(document.body.dataset.loads ?? 0) > 0, null, { timeout: 30_000 });
  const s2 = await p2.evaluate(() => ({ state: window.tfpPlay.state, A: Array.from(window.tfpPlay.shown.panels.A.data) }));
  assert.equal(s2.state.text, text);
  close(s2.A, headSlice(layers[1], 2), 'linked view');
  await p2.close();
});

test('generation streams, follows the seed, and Stop stops it', { timeout: 60_000 }, async () => {
  const prompt = 'A cat';
  let r = await fresh(`model=${FIXTURE}`);
  await page.locator('#text').fill(prompt);
  await after_('renders', r);
  await page.locator('#gen-max').fill('12');
  await page.locator('#gen-seed').fill('7');
  await page.locator('#gen-temp').fill('0.9');
  await page.locator('#gen-topk').fill('0');
  await page.locator('#gen-topp').fill('1');
  let g = await num('generations');
  await page.locator('#generate').click();
  await after_('generations', g);
  g += 1;
  const full = await page.evaluate(() => window.tfpPlay.outputs.generated);
  const ids = api.tokenize(gpt2, prompt).ids;
  const want = api.generate(gpt2, ids, { maxTokens: 12, temperature: 0.9, topK: 0, topP: 1, seed: 7 });
  assert.deepEqual(full.ids, want.ids);
  assert.equal(full.text, want.text);
  assert.equal(await page.locator('#gen-output .gen-new').textContent(), want.text);
  await page.locator('.generation').screenshot({ path: `${SHOTS}playground_generation.png` });

  // Stop after the first streamed token: a MutationObserver presses Stop as soon as text appears.
  await page.evaluate(() => {
    const out = document.getElementById('gen-output');
    const obs = new MutationObserver(() => {
      if (window.tfpPlay.outputs.generated.ids.length >= 1) { document.getElementById('stop').click(); obs.disconnect(); }
    });
    obs.observe(out, { childList: true, subtree: true, characterData: true });
  });
  await page.locator('#generate').click();
  await after_('generations', g);
  const stopped = await page.evaluate(() => window.tfpPlay.outputs.generated);
  assert.equal(stopped.stopReason, 'cancelled');
  assert.ok(stopped.ids.length >= 1 && stopped.ids.length < 12, `${stopped.ids.length} tokens before Stop`);
  assert.deepEqual(stopped.ids, want.ids.slice(0, stopped.ids.length));
  assert.match(await page.locator('#gen-status').textContent(), /stopped/);
});

test('opening a GPT-2 model as files; a broken file; a <script> token', { timeout: 90_000 }, async () => {
  await fresh(`model=${FIXTURE}`);
  // A GPT-2 folder whose tokenizer spells its special token "<script>".
  const dir = `${CHECKPOINTS}gpt2_tiny/`;
  const tok = JSON.parse(await readFile(`${dir}tokenizer.json`, 'utf8'));
  const old = tok.added_tokens[0].content;
  tok.added_tokens[0].content = '<script>';
  tok.model.vocab['<script>'] = tok.model.vocab[old];
  delete tok.model.vocab[old];
  const files = [
    { name: 'config.json', mimeType: 'application/json', buffer: await readFile(`${dir}config.json`) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: await readFile(`${dir}model.safetensors`) },
    { name: 'tokenizer.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(tok)) },
  ];
  let loads = await num('loads');
  await page.locator('#model-files').setInputFiles(files);
  loads = await after_('loads', loads, 30_000);
  assert.match(await page.evaluate(() => window.tfpPlay.modelLabel), /your files/);
  assert.equal(await page.locator('#model-select').inputValue(), 'local');

  let r = await num('renders');
  const text = 'hi <script>alert(1)</script>';
  await page.locator('#text').fill(text);
  r = await after_('renders', r);
  const local = api.load({ config: files[0].buffer.toString(), weights: new Uint8Array(files[1].buffer), tokenizer: files[2].buffer.toString() }, 'local');
  const want = oracle(local, text);
  // The render counted above may be the load's own (of the previous text): wait for this text's.
  await page.waitForFunction((T) => window.tfpPlay.attention[0]?.dims[1] === T, want.ids.length, { timeout: 20_000 });
  assert.ok(want.enc.tokens.includes('<script>'), 'the tokenizer has a <script> token');
  const att = await page.evaluate(() => window.tfpPlay.attention.map((a) => ({ name: a.name, data: Array.from(a.data) })));
  for (const a of att) close(a.data, Array.from(want.out[a.name].data), `opened model ${a.name}`);
  const texts = await page.locator('.token-span .tok-text').allTextContents();
  assert.ok(texts.includes('<script>'), `tokens shown: ${texts.join(' | ')}`);
  assert.equal(await page.locator('#tokens script').count(), 0, 'no script element was created');
  api.free(local);
  await page.locator('.text-panel').screenshot({ path: `${SHOTS}playground_script_token.png` });

  // A broken safetensors file: a clear error, and the page keeps the model it had.
  const broken = Buffer.from(files[1].buffer);
  broken.writeUInt32LE(0xffffff, 0);  // header length far past the end of the file
  const errors = await num('loadErrors');
  await page.locator('#model-files').setInputFiles([files[0], { ...files[1], buffer: broken }, files[2]]);
  await after_('loadErrors', errors);
  const message = await page.locator('#load-error').textContent();
  assert.match(message, /Could not load your files .*safetensors/i);
  assert.match(message, /Still using your files/);
  await page.locator('.model-panel').screenshot({ path: `${SHOTS}playground_load_error.png` });
  // r may be behind already (renders since it was read): wait for this text's encoding.
  r = await num('renders');
  await page.locator('#text').fill('still working');
  await after_('renders', r);
  const want2 = api.tokenize(gpt2, 'still working').ids;
  await page.waitForFunction((w) => window.tfpPlay.encoding?.ids.join(' ') === w, want2.join(' '), { timeout: 20_000 });
  const enc = await page.evaluate(() => window.tfpPlay.encoding.ids);
  assert.deepEqual(enc, want2);

  // Back to a bundled model through the picker.
  await page.locator('#model-select').selectOption(FIXTURE);
  await after_('loads', loads, 30_000);
});

test('an encoder model (the BERT fixture): per-token outputs and encoder attention', { timeout: 60_000 }, async () => {
  const text = 'the cat sat';
  await fresh(`model=fixture-bert_tiny&text=${encodeURIComponent(text)}&view=matrix&layer=2&head=4`);
  const bert = api.load(readFixture('bert_tiny'), 'bert_tiny');
  try {
    const want = oracle(bert, text);
    const enc = await page.evaluate(() => window.tfpPlay.encoding);
    assert.deepEqual(enc.ids, want.ids);
    const att = await page.evaluate(() => window.tfpPlay.attention.map((a) => ({ name: a.name, data: Array.from(a.data) })));
    assert.deepEqual(att.map((a) => a.name), ['enc.0.attn.probs', 'enc.1.attn.probs']);
    for (const a of att) close(a.data, Array.from(want.out[a.name].data), a.name);
    const s = await shown();
    assert.equal(s.set, 'enc');
    // Nothing is masked in these maps: no "masked" swatch in the legend.
    assert.ok(await page.locator('#view .color-legend .legend-mask').isHidden());
    // The pickers show what the URL asked for (layer 2, head 4; values are 0-based).
    assert.equal(await page.locator('#layer-select').inputValue(), '1');
    assert.equal(await page.locator('#head-select').inputValue(), '3');
    close(Object.values(s.panels)[0].data, headSlice(want.out['enc.1.attn.probs'], 3), 'BERT matrix L2 H4');
    // No id2label in this config: each token's hidden-state length, from the engine's hidden states.
    const rows = await page.evaluate(() => window.tfpPlay.outputs.perToken);
    const [T, C] = want.out.hidden.dims;
    assert.equal(rows.length, T);
    rows.forEach((r, t) => {
      let sq = 0;
      for (let c = 0; c < C; c++) sq += want.out.hidden.data[t * C + c] ** 2;
      assert.equal(r.value, Math.sqrt(sq).toFixed(3), `token ${t} norm`);
    });
    assert.equal(await page.locator('table.per-token tbody tr').count(), T);
    await page.screenshot({ path: `${SHOTS}playground_bert_1280x720.png`, fullPage: true });
  } finally {
    api.free(bert);
  }
});

test('dark theme and a 390 px screen: no horizontal scroll', { timeout: 60_000 }, async () => {
  await fresh(`model=${FIXTURE}&text=The+cat+sat+on+the+mat.&view=lines&layer=2`, { colorScheme: 'dark' });
  await page.screenshot({ path: `${SHOTS}playground_dark_1280x720.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  for (const v of ['model', 'matrix', 'lines', 'stats', 'rollout', 'compare']) {
    const r = await num('renders');
    await page.locator(`#tab-${v}`).click();
    await after_('renders', r);
    // Charts redraw for the new width when they get to it: wait for that, not for a time.
    await page.waitForFunction(() => document.documentElement.scrollWidth - window.innerWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${v} view overflows a 390 px screen by ${overflow} px`);
    if (v === 'stats') {
      // The chart is scaled down to the screen; its text stays readable (rendered px).
      const px = await page.evaluate(() => {
        const h = (sel) => Math.min(...[...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect().height));
        return { ticks: h('.head-stats text:not(.point-label)'), labels: h('.head-stats text.point-label') };
      });
      assert.ok(px.ticks >= 11 && px.labels >= 9, `head stats text at 390 px: ticks ${px.ticks} px, labels ${px.labels} px high`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: `${SHOTS}playground_390_narrow.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  // Keyboard: the view tabs move with the arrow keys and show a focus ring.
  await page.locator('#tab-compare').focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-rollout');
  const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.equal(ring, 'solid');
});

test('the encoder–decoder (numbers-transformer): translate, then cross-attention equals the engine\'s', {
  timeout: 60_000, skip: existsSync(`${MODELS}numbers-transformer/model.safetensors`) ? false : 'no models/numbers-transformer',
}, async () => {
  const text = 'forty-two thousand';
  const nt = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  const cfg = JSON.parse(readFileSync(`${MODELS}numbers-transformer/config.json`, 'utf8'));
  try {
    let r = await fresh(`model=numbers-transformer&text=${encodeURIComponent(text)}&view=cross&layer=2&head=3&beam=4`);
    await page.locator('#translate').click();
    await page.waitForFunction(() => document.getElementById('translation')?.textContent !== '', null, { timeout: 20_000 });
    r = await after_('renders', r);
    assert.equal(await page.locator('#translation').innerText(), '42000');

    // Oracle: the same module in Node, translating from config.json's start mark; then a
    // teacher-forced forward pass over [start, translation...], which the page draws.
    const src = api.tokenize(nt, text).ids;
    const tr = api.translate(nt, src, { beamSize: 4, startId: cfg.decoder_start_token_id });
    assert.deepEqual(tr.ids, [...api.tokenize(nt, '42000').ids, cfg.eos_token_id]);
    const tgt = [cfg.decoder_start_token_id, ...tr.ids];
    const fwd = api.forward(nt, src, { attention: true, tgtIds: tgt });
    const cross = fwd['dec.1.cross.probs'];
    assert.deepEqual(cross.dims, [cfg.n_heads, tgt.length, src.length]);
    const s = await shown();
    assert.equal(s.view, 'cross');
    assert.equal(s.set, 'cross');
    assert.deepEqual([s.layer, s.head], [1, 2]);
    const panel = Object.values(s.panels)[0];
    assert.deepEqual(panel.dims, [tgt.length, src.length]);
    close(panel.data, headSlice(cross, 2), 'cross view L2 H3');
    assert.ok(await page.locator('#view .color-legend .legend-mask').isHidden(), 'no masked cells in the cross map');
    // Rows are labelled by the token each decoder step produced (4, 2, 0, 0, 0, then the
    // end token); the last row read the end token and produced nothing of the output.
    await page.locator('#view .heatmap .data-table summary').click();
    await page.locator('#view .heatmap .data-table tbody th').first().waitFor();
    const rowLabels = await page.locator('#view .heatmap .data-table tbody th').allTextContents();
    assert.deepEqual(rowLabels.slice(0, 5), ['1 → 4', '2 → 2', '3 → 0', '4 → 0', '5 → 0']);
    assert.equal(rowLabels.length, tgt.length);
    assert.equal(rowLabels[tgt.length - 1], `${tgt.length} (after end)`);
    await page.locator('#view .heatmap .data-table summary').click();
    // While choosing output token t the (winning) hypothesis saw rows 0..t of the teacher-forced pass:
    // the decoding's own cross-attention rows are the first T rows of it.
    const own = tr.tensors['dec.1.cross.probs'];
    const T = tr.ids.length;
    for (let h = 0; h < cfg.n_heads; h++) {
      const rows = headSlice(cross, h).slice(0, T * src.length);
      const mine = Array.from(own.data.subarray(h * T * src.length, (h + 1) * T * src.length));
      let worst = 0;
      for (let i = 0; i < rows.length; i++) worst = Math.max(worst, Math.abs(rows[i] - mine[i]));
      assert.ok(worst <= 1e-5, `head ${h + 1}: greedy decoding and teacher forcing differ by ${worst}`);
    }
    await page.screenshot({ path: `${SHOTS}playground_numbers_cross_1280x720.png`, fullPage: true });
  } finally {
    api.free(nt);
  }
});

/** Head statistics computed here from the maps over the keys a query may attend to
 *  (independent of the engine's code): entropy, mean |i − j|, share on key 0, share on
 *  key i − 1. `allowed(i, j)` says whether the mask lets query i see key j; the maps must
 *  be exactly 0 elsewhere (a masked key contributes nothing). Only rows with a choice
 *  count: at least two allowed keys (a causal map's row 0 sees only itself); the
 *  previous-token share averages the counted rows with i ≥ 1 whose key i − 1 is allowed.
 *  NaN where no row counts (one token). Self-attention maps (Tq = Tk). */
function maskedStatsOracle(t, allowed) {
  const [H, Tq, Tk] = t.dims;
  const out = [];
  for (let h = 0; h < H; h++) {
    let e = 0, d = 0, f = 0, pr = 0, rows = 0, prevRows = 0;
    for (let i = 0; i < Tq; i++) {
      const row = t.data.subarray((h * Tq + i) * Tk, (h * Tq + i + 1) * Tk);
      let keys = 0;
      for (let j = 0; j < Tk; j++) {
        if (!allowed(i, j)) { assert.equal(row[j], 0, `masked key ${j} of query ${i} has weight ${row[j]}`); continue; }
        keys++;
      }
      if (keys < 2) continue;
      rows++;
      for (let j = 0; j < Tk; j++) {
        if (!allowed(i, j)) continue;
        if (row[j] > 0) e -= row[j] * Math.log(row[j]);
        d += row[j] * Math.abs(i - j);
      }
      f += row[0];
      if (i >= 1 && allowed(i, i - 1)) { pr += row[i - 1]; prevRows++; }
    }
    out.push(e / rows, d / rows, f / rows, pr / prevRows);  // 0/0 = NaN: no row counts
  }
  return out;
}

/** Engine value = oracle value within `tol`, or both NaN. */
const sameStat = (got, want, tol = 1e-5) => (Number.isNaN(want) ? Number.isNaN(got) : Math.abs(got - want) <= tol);

test('numbers-transformer head statistics: enc and dec = the engine\'s, masked keys add nothing; cross has no distance', {
  timeout: 90_000, skip: existsSync(`${MODELS}numbers-transformer/model.safetensors`) ? false : 'no models/numbers-transformer',
}, async () => {
  const text = 'forty-two thousand';
  const nt = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  const cfg = JSON.parse(readFileSync(`${MODELS}numbers-transformer/config.json`, 'utf8'));
  try {
    let r = await fresh(`model=numbers-transformer&text=${encodeURIComponent(text)}&view=stats&set=dec&beam=4`);
    // Before a translation the decoder has read only the start mark (T = 1). The URL's set
    // (dec) is the one shown, and no decoder row has a choice: every statistic is NaN,
    // which the table shows as n/a, and the chart has no point.
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'stats' && Object.keys(window.tfpPlay.shown.panels).length > 0,
      null, { timeout: 20_000 });
    const s0 = await shown();
    assert.equal(s0.set, 'dec', 'the URL\'s set=dec survives loading');
    assert.equal(await page.evaluate(() => window.tfpPlay.state.set), 'dec');
    for (const [k, v] of Object.entries(s0.panels)) assert.ok(v.data.every(Number.isNaN), `${k} of one decoder token: ${v.data}`);
    assert.equal(await page.locator('#view .head-stats circle').count(), 0);
    assert.match(await page.locator('#view .head-stats .stats-none').innerText(), /no query token had two or more tokens/);
    assert.ok(await page.locator('#view .head-stats svg').isHidden(), 'a note instead of an empty chart');
    await page.locator('#view .head-stats details.data-table summary').click();
    await page.locator('#view .head-stats tbody tr').first().waitFor();  // built on the toggle event, a task later
    const naCells = await page.locator('#view .head-stats tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].slice(2).map((c) => c.textContent)));
    assert.equal(naCells.length, cfg.n_decoder_layers * cfg.n_heads);
    naCells.forEach((row) => assert.deepEqual(row, ['n/a', 'n/a', 'n/a', 'n/a']));
    await page.locator('#view .head-stats details.data-table summary').click();
    await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_numbers_stats_dec_one_token.png` });
    r = await num('renders');
    await page.locator('#translate').click();
    await page.waitForFunction(() => document.getElementById('translation')?.textContent !== '', null, { timeout: 20_000 });
    r = await after_('renders', r);
    // Translating keeps the set the URL asked for (it used to switch to cross).
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'stats'
      && Object.values(window.tfpPlay.shown.panels).some((p) => !Number.isNaN(p.data[0])), null, { timeout: 20_000 });
    assert.equal((await shown()).set, 'dec', 'set=dec survives the translation');
    assert.equal(await page.evaluate(() => window.tfpPlay.state.set), 'dec');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('set') === 'dec', null, { timeout: 30_000 });
    await page.locator('#set-select').selectOption('dec');
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'stats' && window.tfpPlay.shown.set === 'dec'
      && window.tfpPlay.shown.panels['dec.0.attn.probs:stats'], null, { timeout: 20_000 });
    r = await num('renders');
    const src = api.tokenize(nt, text).ids;
    const tr = api.translate(nt, src, { beamSize: 4, startId: cfg.decoder_start_token_id });
    const tgt = [cfg.decoder_start_token_id, ...tr.ids];
    const fwd = api.forward(nt, src, { attention: true, tgtIds: tgt });
    const H = cfg.n_heads;
    const tableOf = async () => {
      const details = page.locator('#view .head-stats details.data-table');
      if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
      await page.locator('#view .head-stats tbody tr').first().waitFor();
      return page.locator('#view .head-stats tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    };
    // enc (no mask) and dec (causal): the chart's points and the table are the engine's
    // numbers, and those equal the oracle over the unmasked keys only.
    for (const [set, allowed] of [['dec', (i, j) => j <= i], ['enc', () => true]]) {
      if (set === 'enc') {
        await page.locator('#set-select').selectOption('enc');
        r = await after_('renders', r);
        await page.waitForFunction(() => window.tfpPlay.shown.set === 'enc' && window.tfpPlay.shown.view === 'stats');
      }
      const s = await shown();
      const table = await tableOf();
      assert.equal(table.length, cfg.n_decoder_layers * H);
      for (let l = 0; l < 2; l++) {
        const name = `${set}.${l}.attn.probs`;
        const got = s.panels[`${name}:stats`].data;
        close(got, oracleStats(fwd[name], set === 'dec'), `${set} stats layer ${l + 1} = engine`);
        const want = maskedStatsOracle(fwd[name], allowed);
        for (let k = 0; k < got.length; k++) assert.ok(sameStat(got[k], want[k]), `${set} L${l + 1}: ${got[k]} vs oracle ${want[k]} (stat ${k % 4})`);
        for (let h = 0; h < H; h++) {
          const row = table[l * H + h];
          assert.deepEqual(row.slice(0, 2), [String(l + 1), String(h + 1)]);
          assert.deepEqual(row.slice(2), Array.from(got.slice(h * 4, h * 4 + 4), (v) => v.toFixed(3)), `${set} table L${l + 1}H${h + 1}`);
        }
      }
      assert.match(await page.locator('#view .head-stats svg').textContent(), /mean attention distance/);
      await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_numbers_stats_${set}.png` });
    }
    // A set the user picked (enc) survives another translation too.
    r = await num('renders');
    await page.locator('#translate').click();
    r = await after_('renders', r);
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'stats' && window.tfpPlay.shown.panels['enc.0.attn.probs:stats'],
      null, { timeout: 20_000 });
    assert.equal((await shown()).set, 'enc', 'the user\'s set survives a translation');
    assert.equal(await page.evaluate(() => window.tfpPlay.state.set), 'enc');
    // cross: queries are output steps, keys source positions: no distance, no previous token.
    await page.locator('#set-select').selectOption('cross');
    r = await after_('renders', r);
    await page.waitForFunction(() => window.tfpPlay.shown.set === 'cross' && window.tfpPlay.shown.view === 'stats');
    const s = await shown();
    assert.equal(s.note, 'cross: distance not applicable');
    const svgText = await page.locator('#view .head-stats svg').textContent();
    assert.doesNotMatch(svgText, /distance/);
    assert.match(svgText, /share on the first source token/);
    assert.match(await page.locator('#view .help').textContent(), /means nothing/);
    const labels = await page.locator('#view .head-stats circle').evaluateAll((cs) => cs.map((c) => c.getAttribute('aria-label')));
    assert.equal(labels.length, cfg.n_decoder_layers * H);
    labels.forEach((a) => assert.doesNotMatch(a, /distance/));
    const table = await tableOf();
    assert.match(await page.locator('#view .head-stats caption').textContent(), /do not apply to cross-attention/);
    for (let l = 0; l < 2; l++) {
      const got = s.panels[`dec.${l}.cross.probs:stats`].data;
      close(got, oracleStats(fwd[`dec.${l}.cross.probs`]), `cross stats layer ${l + 1} = engine`);
      for (let h = 0; h < H; h++) {
        const row = table[l * H + h];
        // entropy and first-source-token share are the engine's; distance and previous: n/a.
        assert.deepEqual(row.slice(2), [got[h * 4].toFixed(3), 'n/a', got[h * 4 + 2].toFixed(3), 'n/a'], `cross table L${l + 1}H${h + 1}`);
        assert.match(labels[l * H + h], new RegExp(`entropy ${got[h * 4].toFixed(3)}, first source token ${got[h * 4 + 2].toFixed(3)}`));
      }
    }
    await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_numbers_stats_cross.png` });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_numbers_stats_cross_dark.png` });
    await page.emulateMedia({ colorScheme: 'light' });
  } finally {
    api.free(nt);
  }
});

test('only the page\'s own host was contacted and nothing logged an error', { timeout: 60_000 }, async () => {
  // Every request and error of the tests run before this one, and of its own page load
  // (so that it has something to check when run alone).
  await fresh(`model=${FIXTURE}`);
  const foreign = requests.filter((u) => !u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  assert.ok(requests.some((u) => u.endsWith('.safetensors')), 'the bundled model came from the page\'s host');
  assert.deepEqual(problems, []);
});
