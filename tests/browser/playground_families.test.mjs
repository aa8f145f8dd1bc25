// Model families in the playground (issue 19 items 3-5, issue 16 "the page and the
// inspector"): the tiny real-layout folders of tests/fixtures/families/ (config.json +
// model.safetensors, no tokenizer.json) opened with the file picker, and by a drop on the
// drop zone, the text box then reading token ids. For each of gemma2 (GQA, local/global
// layers, soft-caps, its own scale), pythia_parallel (partial rotary, parallel residual),
// bloom_alibi (ALiBi) and t5_v1_0 (encoder–decoder, relative buckets, no scaling):
//   - the architecture summary says what the engine's description holds;
//   - the layer × head grid groups query heads by their KV head and marks local layers;
//   - the query·key drill-down marks the soft-capped step, the positional bias, the
//     rotated dimensions and the window, and its numbers are the engine's: the same
//     WASM module in Node (tests/js/model_api.mjs attentionSteps / forward) on the same
//     ids, tolerance 1e-6 (same code, same inputs);
//   - T5 shows encoder, decoder and cross-attention, the decoder starting from
//     decoder_start_token_id, and after Translate the cross rows of the output;
//   - no console errors; screenshots at 1280 and 390 px in English and Chinese
//     (build/screenshots/families_*.png).
// Each test opens the page afresh (fresh()) and its family folder itself: none inherits
// another's model, language or screen size.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { attentionOn, counter, counterAbove, freshPage, openModelFiles, openSite, playgroundProbes, ROOT, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';
import { withParams } from '../../web/src/engine/params.mjs';

const FAM = `${ROOT}tests/fixtures/families/`;

let site, page, base, api, problems;
before(async () => {
  api = new ModelApi(await loadTfp());
  site = await openSite({ name: 'playground-families' });
  ({ page, base, problems } = site);
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const { num, after: after_, shown, translate, pick } = playgroundProbes(() => page);

/** The state each test starts from: the playground opened afresh on the GPT-2 fixture
 *  (loaded), English, 1280 × 720, nothing saved by an earlier test; the test then opens
 *  its family folder itself. */
async function fresh() {
  await freshPage(page, `${base}/?model=fixture-gpt2_tiny`);
  await counterAbove(page, 'loads', 0, 60_000);
}

const files = (c) => ({ config: readFileSync(`${FAM}${c}/config.json`, 'utf8'),
                        weights: new Uint8Array(readFileSync(`${FAM}${c}/model.safetensors`)), tokenizer: null });
const expected = (c) => JSON.parse(readFileSync(`${FAM}${c}/expected.json`, 'utf8'));
const arch = (key) => page.locator(`#arch-summary dd[data-arch="${key}"]`).innerText();

/** Types `ids` into the text box and waits for the current model's maps of them. */
async function typeIds(ids) {
  const r = await num('renders');
  await page.locator('#text').fill(ids.join(' '));
  await page.waitForFunction(([n, want]) => {
    const p = window.tfpPlay, e = p.encoding, info = p.modelInfo;
    return e && e.ids.join(' ') === want && p.attention.length > 0 && p.attention.every((a) => a.dims[0] === info.n_heads)
      && p.attention.some((a) => a.dims[2] === n)
      && (info.architecture !== 'decoder_only' || p.attention.every((a) => a.name.startsWith('dec.')));
  }, [ids.length, ids.join(' ')], { timeout: 20_000 });
  await after_('renders', r);
}

/** Opens view `v` and waits for its render. */
async function view(v, patch = '') {
  const r = await num('renders');
  await page.locator(`#tab-${v}`).click();
  await after_('renders', r);
  if (patch) await page.waitForFunction((n) => window.tfpPlay.shown?.note === n, patch, { timeout: 20_000 });
  return shown();
}


/** Runs of four or more English words in the page's own visible text (as i18n.test.mjs
 *  looks for them; model text, tokens, formulas and the model line left out). */
function englishRuns() {
  return page.evaluate(() => {
    const skip = '#text, #text-echo, #tokens, .token-strip, .gen-output, .prob-bars, .per-token td, .qk-tokens, .qk-key, ' +
      '.heatmap-table th, #model-info, script, style, [hidden], .visually-hidden, input, textarea, option, code, .katex';
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest(skip) || !el.getClientRects().length) continue;
      for (const m of n.textContent.matchAll(/[A-Za-z][A-Za-z'’-]+(?:[ ,]+[A-Za-z][A-Za-z'’-]+){3,}/g)) out.push(m[0]);
    }
    return out;
  });
}

/** tfp_model_translate in Node with room for a whole context (random weights rarely stop
 *  early): the output ids. */
function translateIds(model, src, beam) {
  const m = api.m, cap = 1024, p = api.put(Int32Array.from(src)), buf = m._tfp_alloc(8 + 4 * cap);
  try {
    api.check(withParams(m, 'tfp_translate_params', { src_ids: p, n: src.length, beam_size: beam },
      (params) => m._tfp_model_translate(model, params, buf + 8, cap, buf, buf + 4)));
    m._tfp_tensors_free(api.u32(buf + 4));
    return Array.from(new Int32Array(m.HEAPU8.buffer, buf + 8, api.u32(buf)));
  } finally {
    m._tfp_free(p);
    m._tfp_free(buf);
  }
}

/** The drill-down's panels = the engine's steps in Node (1e-6). */
function sameSteps(s, want, what) {
  what = `${what} (page: layer ${s.layer} head ${s.head} ${s.note} set ${s.set} view ${s.view})`;
  for (const k of ['q', 'k', 'scores', 'scaled', 'bias', 'mask', 'probs', 'out'])
    close(s.panels[k].data, Array.from(want[k].data), `${what} ${k}`, 1e-6);
  close(s.panels.scale.data, Array.from(want.scale.data), `${what} scale`, 1e-6);
}

test('gemma2 by drop: summary, KV groups, local layers, soft-capped drill-down', { timeout: 60_000 }, async () => {
  await fresh();
  const c = 'gemma2';
  // Drop the folder's two files on the drop zone (a DataTransfer built in the page).
  const loads = await counter(page, 'loads');
  const cfg = await readFile(`${FAM}${c}/config.json`, 'utf8');
  const weights = (await readFile(`${FAM}${c}/model.safetensors`)).toString('base64');
  await page.evaluate(([config, w]) => {
    const bytes = Uint8Array.from(atob(w), (ch) => ch.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([config], 'config.json', { type: 'application/json' }));
    dt.items.add(new File([bytes], 'model.safetensors', { type: 'application/octet-stream' }));
    document.getElementById('dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [cfg, weights]);
  await counterAbove(page, 'loads', loads, 30_000);
  const info = await page.evaluate(() => window.tfpPlay.modelInfo);
  assert.equal(info.tokenizer, null);
  // The text box now reads ids (the default text was words); the strip says so.
  assert.match(await page.locator('#text').inputValue(), /^\d+( \d+)*$/);
  assert.match(await page.locator('#strip-help').innerText(), /no tokenizer\.json: type token ids \(0 to 63\)/);

  assert.equal(await arch('positions'), 'RoPE, base 10000');
  assert.equal(await arch('heads'), '4 query heads share 2 key/value heads (grouped-query attention)');
  assert.equal(await arch('headSize'), '12');
  assert.match(await arch('scale'), /^0\.3535\d* \(the model’s own, not 1\/√12\)$/);
  assert.match(await arch('norm'), /^RMSNorm with weight \(1 \+ w\), before and after each sub-block$/);
  assert.equal(await arch('layers'), 'local · 4, global, local · 4, global');
  assert.equal(await arch('softcaps'), 'attention logits c·tanh(x/c), c = 5; final logits c·tanh(x/c), c = 6');

  const ids = expected(c).input_ids;
  await typeIds(ids);
  const model = api.load(files(c), c);
  try {
    // The maps are the engine's on these ids.
    const want = api.forward(model, ids, { attention: true });
    const maps = await attentionOn(page);
    for (const [name, m] of Object.entries(maps)) close(m.data, Array.from(want[name].data), name, 1e-6);
    // Grid: two KV bands over heads 1-2 and 3-4; layers 1 and 3 marked local · 4.
    await view('model');
    assert.deepEqual(await page.locator('.lh-kv').allInnerTexts(), ['KV 1', 'KV 2']);
    const kv = await page.locator('.lh-tile[data-layer="0"]').evaluateAll((b) => b.map((x) => Number(x.dataset.kv)));
    assert.deepEqual(kv, [0, 0, 1, 1]);
    assert.match(await page.locator('.lh-tile[data-layer="0"][data-head="2"]').getAttribute('aria-label'), /shares key\/value head 2/);
    assert.deepEqual(await page.locator('#view .layer-head-grid .lh-row').evaluateAll((r) => r.map((x) => x.querySelector('.lh-note')?.textContent ?? '')),
      ['local · 4', '', 'local · 4', '']);
    await site.shot('families_gemma2_model_1280');

    // Drill-down: layer 1 (local), head 3 (KV head 2), last query.
    await pick(0, 2);
    let s = await view('qk');
    const T = ids.length;
    let steps = api.attentionSteps(model, ids, { set: 'dec', layer: 0, head: 2, query: T - 1 });
    sameSteps(s, steps, 'gemma2 L1H3');
    close(s.panels.capped.data, Array.from(steps.capped.data), 'capped', 1e-6);
    assert.equal(s.panels.softcap.data[0], 5);
    assert.equal(s.panels.window.data[0], 4);
    assert.equal(await page.locator('.qk-table thead th.qk-col-capped').innerText(), 'c·tanh(·/c)');
    const capCells = await page.locator('.qk-table tbody td.qk-col-capped').evaluateAll((t) => t.map((x) => Number(x.dataset.value)));
    close(capCells, Array.from(steps.capped.data), 'capped cells', 1e-6);
    assert.match(await page.locator('.qk-mark[data-mark="softcap"]').innerText(), /5·tanh\(x \/ 5\)/);
    assert.match(await page.locator('.qk-mark[data-mark="window"]').innerText(),
      new RegExp(`window of 4 keys\\. Query ${T} sees keys ${T - 3}–${T}`));
    assert.match(await page.locator('.qk-mark[data-mark="rotary"]').innerText(), /all 12 dimensions rotated/);
    assert.match(await page.locator('.qk-mark[data-mark="kv"]').innerText(), /query head 3 reads key\/value head 2, shared by query heads 3–4/);
    // The shared head: query heads 3 and 4 see the same keys and values.
    const other = api.attentionSteps(model, ids, { set: 'dec', layer: 0, head: 3, query: T - 1 });
    assert.deepEqual(Array.from(other.k.data), Array.from(steps.k.data));
    assert.equal(await page.locator('.qk-table tbody tr.outside-window').count(), T - 4);
    assert.match(await page.locator('.drilldown > p.help').innerText(), /own scale 0\.3536, not by 1\/√d_k/);
    assert.match(await page.locator('.qk-table thead').innerText(), /× s/);
    await page.locator('.drilldown').screenshot({ path: `${SHOTS}families_gemma2_qk_1280.png` });
    // The SVG export draws the same steps, the soft-capped column included.
    const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('#export-svg').click()]);
    const svg = (await readFile(await dl.path())).toString();
    assert.match(svg, /c·tanh\(·\/c\)/);
    assert.ok(svg.includes(`>${Array.from(steps.capped.data).at(-1).toFixed(3)}<`), 'the last key\'s capped score is drawn');
    // Layer 2 is global: no window note, nothing outside a window.
    await pick(1, 2);
    await page.waitForFunction(() => window.tfpPlay.shown?.layer === 1);
    s = await shown();
    steps = api.attentionSteps(model, ids, { set: 'dec', layer: 1, head: 2, query: T - 1 });
    sameSteps(s, steps, 'gemma2 L2H3');
    assert.equal(s.panels.window.data[0], 0);
    assert.equal(await page.locator('.qk-mark[data-mark="window"]').count(), 0);
  } finally {
    api.free(model);
  }
});

test('pythia_parallel: partial rotary marked; bloom_alibi: ALiBi bias column', { timeout: 60_000 }, async () => {
  await fresh();
  for (const c of ['pythia_parallel', 'bloom_alibi']) {
    await openModelFiles(page, `${FAM}${c}/`);
    const ids = expected(c).input_ids;
    await typeIds(ids);
    const model = api.load(files(c), c);
    try {
      await pick(1, 1);
      const s = await view('qk');
      const T = ids.length;
      const steps = api.attentionSteps(model, ids, { set: 'dec', layer: 1, head: 1, query: T - 1 });
      sameSteps(s, steps, `${c} L2H2`);
      if (c === 'pythia_parallel') {
        assert.equal(await arch('positions'), 'RoPE, base 10000; rotates a fraction 0.25 of each head’s dimensions, the rest unchanged');
        assert.equal(await arch('residual'), 'attention and MLP side by side on the same input (parallel)');
        assert.equal(s.panels.rotary_dims.data[0], 4);
        assert.match(await page.locator('.qk-mark[data-mark="rotary"]').innerText(), /dimensions 1–4 \(underlined\) rotated .* 5–16 passed unchanged/);
        assert.match(await page.locator('.qk-vector-label').first().innerText(), /^q after RoPE/);
        // q's strip and every key's: 4 rotated cells, then the rule.
        assert.equal(await page.locator('.qk-vector .partial-rotary .vb-rot').count(), 4);
        assert.equal(await page.locator('.qk-table tbody .partial-rotary').count(), T);
        assert.equal(await page.locator('.qk-table tbody .partial-rotary .vb-split').count(), T);
        assert.equal(await page.locator('.qk-mark[data-mark="bias"]').count(), 0);
        await page.locator('.drilldown').screenshot({ path: `${SHOTS}families_pythia_qk_1280.png` });
        // Generation from the typed ids streams ids (no spelling): the engine's generator.
        await page.locator('#gen-max').fill('6');
        await page.locator('#gen-seed').fill('7');
        let g = await num('generations');
        await page.locator('#generate').click();
        await after_('generations', g);
        const gen = await page.evaluate(() => window.tfpPlay.outputs.generated);
        const st = await page.evaluate(() => window.tfpPlay.state);
        const wantGen = api.generate(model, ids, { maxTokens: 6, temperature: st.temperature, topK: st.topK, topP: st.topP, seed: 7 });
        assert.deepEqual(gen.ids, wantGen.ids);
        assert.equal(gen.text, wantGen.ids.map((id) => ` ${id}`).join(''));
      } else {
        assert.equal(await arch('positions'), 'ALiBi: a linear bias on the distance, one slope per head (no position vectors)');
        assert.equal(await arch('heads'), '6 query heads, each with its own keys and values');
        assert.ok(Array.from(steps.bias.data).some((b) => b !== 0), 'ALiBi bias is non-zero');
        assert.equal(await page.locator('.qk-table thead th.qk-bias-on').innerText(), '+ ALiBi');
        const cells = await page.locator('.qk-table tbody td.qk-col-bias').evaluateAll((t) => t.map((x) => Number(x.dataset.value)));
        close(cells, Array.from(steps.bias.data), 'bias cells', 1e-6);
        assert.match(await page.locator('.qk-mark[data-mark="bias"]').innerText(), /ALiBi, a penalty growing with the distance/);
        assert.equal(await page.locator('.qk-mark[data-mark="rotary"]').count(), 0);
        assert.equal(await page.locator('.qk-col-capped').count(), 0);
        await page.locator('.drilldown').screenshot({ path: `${SHOTS}families_bloom_qk_1280.png` });
      }
    } finally {
      api.free(model);
    }
  }
});

test('t5_v1_0: encoder, decoder from the start id, cross-attention; relative bias; Chinese and 390 px', { timeout: 60_000 }, async () => {
  await fresh();
  const c = 't5_v1_0';
  await openModelFiles(page, `${FAM}${c}/`);
  const ex = expected(c);
  const ids = ex.input_ids;
  await typeIds(ids);
  assert.equal(await arch('positions'), 'relative position buckets: 8 buckets, max distance 16, a learned bias per head');
  assert.equal(await arch('scale'), '1 (scores are not scaled)');
  assert.equal(await arch('stacks'), '2 encoder and 2 decoder layers; the decoder starts from id 0');
  const model = api.load(files(c), c);
  try {
    // Before translating, the decoder reads the start token alone.
    let want = api.forward(model, ids, { attention: true, tgtIds: [0] });
    let maps = await attentionOn(page);
    assert.deepEqual(Object.keys(maps).sort(), Object.keys(want).filter((n) => n.endsWith('.probs')).sort());
    for (const [name, m] of Object.entries(maps)) close(m.data, Array.from(want[name].data), name, 1e-6);
    assert.ok(Object.keys(maps).some((n) => n.startsWith('enc.')) && Object.keys(maps).some((n) => n.includes('.cross.')));

    // Encoder drill-down: relative bias beside the scores, no scaling.
    let r = await num('renders');
    await page.selectOption('#set-select', 'enc');
    await after_('renders', r);
    await pick(0, 1);
    let s = await view('qk');
    let steps = api.attentionSteps(model, ids, { set: 'enc', layer: 0, head: 1, query: ids.length - 1, tgtIds: [0] });
    sameSteps(s, steps, 't5 enc L1H2');
    assert.equal(s.panels.scale.data[0], 1);
    assert.equal(await page.locator('.qk-table thead th.qk-bias-on').innerText(), '+ rel. bias');
    assert.match(await page.locator('.qk-mark[data-mark="bias"]').innerText(), /learned bias per bucket of relative distance/);
    assert.match(await page.locator('.drilldown > p.help').innerText(), /does not scale its scores \(scale 1\.0000\)/);
    await page.locator('.drilldown').screenshot({ path: `${SHOTS}families_t5_qk_1280.png` });

    // Translate (greedy): the decoder reads the start id then the output; cross rows follow it.
    await page.locator('#beam').fill('1');
    await page.locator('#beam').dispatchEvent('change');
    await translate();
    const beam = await page.evaluate(() => window.tfpPlay.state.beam);
    const tr = translateIds(model, ids, beam);
    const tgt = [0, ...tr];
    await page.waitForFunction((n) => window.tfpPlay.attention.some((a) => a.name === 'dec.0.cross.probs' && a.dims[1] === n), tgt.length);
    want = api.forward(model, ids, { attention: true, tgtIds: tgt });
    maps = await attentionOn(page);
    for (const [name, m] of Object.entries(maps)) close(m.data, Array.from(want[name].data), `${name} after translating`, 1e-6);
    assert.equal(await page.locator('#translation').innerText(), tr.join(' '));
    s = await view('cross');
    assert.equal(s.set, 'cross');
    await site.shot('families_t5_cross_1280');
    // The cross drill-down: queries are the output steps, labelled by their ids (no
    // spelling without tokenizer.json); its numbers are the engine's.
    r = await num('renders');
    await page.selectOption('#set-select', 'cross');
    await after_('renders', r);
    s = await view('qk');
    assert.equal(s.set, 'cross');
    assert.equal(await page.locator('.qk-token').first().innerText(), `→ ${tr[0]}`);
    assert.equal(await page.locator('.qk-token').count(), tgt.length);
    const q = Number(s.note.split(' ')[1]);
    sameSteps(s, api.attentionSteps(model, ids, { set: 'cross', layer: s.layer, head: s.head, query: q, tgtIds: tgt }), 't5 cross');

    // Chinese: the summary and the drill-down's marks in Chinese, nothing left in English.
    r = await num('renders');
    await page.selectOption('#lang-select', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await after_('renders', r);
    assert.equal(await page.locator('#arch-summary .arch-title').innerText(), '架构');
    assert.equal(await arch('scale'), '1（分数不缩放）');
    assert.deepEqual(await englishRuns(), [], 'English left on the Chinese page');
    await site.shot('families_t5_zh_1280', { fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    // Charts redraw for the new width when they get to it: wait for that, not for a time.
    await page.waitForFunction(() => document.documentElement.scrollWidth - window.innerWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `390 px: the page scrolls sideways by ${overflow} px`);
    await site.shot('families_t5_zh_390', { fullPage: true });
    await page.selectOption('#lang-select', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await site.shot('families_t5_390', { fullPage: true });
  } finally {
    api.free(model);
    await page.setViewportSize({ width: 1280, height: 720 });
  }
});

test('every family folder opens with the picker: ids in, the engine\'s maps out, its summary', { timeout: 90_000 }, async () => {
  await fresh();
  const want = {
    llama_gqa: { positions: 'RoPE, base 10000', heads: '4 query heads share 2 key/value heads (grouped-query attention)', headSize: '8' },
    llama3_scaled_tied: { positions: 'RoPE, base 500000; llama3 scaling ×8', headSize: '16' },
    llama_bf16: { norm: 'RMSNorm, before each sub-block' },
    qwen2: { residual: 'attention, then MLP' },
    qwen3: { norm: 'RMSNorm, before each sub-block; q and k normed per head', headSize: '16' },
    mistral_window: { layers: /^(\d+ × local · 4|local · 4, local · 4)$/ },
    pythia_sequential: { positions: 'RoPE, base 10000; rotates a fraction 0.5 of each head’s dimensions, the rest unchanged' },
    gpt_neo_local: { positions: 'learned position vectors added to the embeddings', scale: '1 (scores are not scaled)',
                     layers: 'global, local · 4, global, local · 4' },
    gemma3_text: { positions: 'RoPE, base 1000000; linear scaling ×8; local layers: base 10000, not scaled',
                   heads: '4 query heads share one key/value head (multi-query attention)', layers: 'local · 4, local · 4, global, local · 4, local · 4' },
    flan_t5: { stacks: '2 encoder and 3 decoder layers; the decoder starts from id 0' },
  };
  for (const [c, rows] of Object.entries(want)) {
    await openModelFiles(page, `${FAM}${c}/`);
    for (const [key, text] of Object.entries(rows)) {
      const got = await arch(key);
      if (text instanceof RegExp) assert.match(got, text, `${c} ${key}`);
      else assert.equal(got, text, `${c} ${key}`);
    }
    const ids = expected(c).input_ids;
    await typeIds(ids);
    const model = api.load(files(c), c);
    try {
      const info = api.info(model);
      const out = api.forward(model, ids, { attention: true, ...(info.architecture === 'encoder_decoder' ? { tgtIds: [info.decoder_start_token_id] } : {}) });
      const maps = await attentionOn(page);
      assert.deepEqual(Object.keys(maps).sort(), Object.keys(out).filter((n) => n.endsWith('.probs')).sort(), c);
      for (const [name, m] of Object.entries(maps)) close(m.data, Array.from(out[name].data), `${c} ${name}`, 1e-6);
    } finally {
      api.free(model);
    }
  }
});

test('gemma2 in Chinese at 1280 and 390 px: grid marks and drill-down notes', { timeout: 60_000 }, async () => {
  await fresh();
  await openModelFiles(page, `${FAM}gemma2/`);
  await typeIds(expected('gemma2').input_ids);
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  let r = await num('renders');
  await view('model');
  assert.deepEqual(await page.locator('.lh-note').allInnerTexts(), ['局部 · 4', '局部 · 4']);
  assert.match(await page.locator('.lh-tile[data-layer="0"][data-head="3"]').getAttribute('aria-label'), /共享第 2 个键\/值头/);
  await site.shot('families_gemma2_zh_1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  await site.shot('families_gemma2_zh_390', { fullPage: true });
  await page.locator('#arch-summary').screenshot({ path: `${SHOTS}families_gemma2_arch_zh_390.png` });
  await page.locator('#view').screenshot({ path: `${SHOTS}families_gemma2_grid_zh_390.png` });
  await pick(0, 0);
  r = await num('renders');
  await view('qk');
  assert.match(await page.locator('.qk-mark[data-mark="window"]').innerText(), /局部层：窗口为 4 个键/);
  assert.match(await page.locator('.qk-mark[data-mark="softcap"]').innerText(), /软上限/);
  assert.deepEqual(await englishRuns(), [], 'English left on the Chinese page');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `390 px: the page scrolls sideways by ${overflow} px`);
  await site.shot('families_gemma2_qk_zh_390', { fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  await site.shot('families_gemma2_qk_390', { fullPage: true });
  await page.locator('.drilldown').screenshot({ path: `${SHOTS}families_gemma2_qk_390_part.png` });
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(problems, [], 'no console or page errors');
});
