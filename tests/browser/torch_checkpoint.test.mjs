// PyTorch nn.Transformer checkpoints in the playground (web/src/pages/playground/vectors.ts):
// open the torch_transformer fixture's files (config.json + model.safetensors, no
// tokenizer.json) with the file picker, type text, and check that what the page shows is
// the engine's pass on what the page says it feeds in: the words of the text, each the
// engine's seeded vector (seed 1) plus sinusoidal positions, the decoder input the same
// text with a causal mask. Oracle: the same WASM module in Node (tests/js/model_api.mjs:
// tokenize, embeddingRows, forwardEmbeddings, attentionStepsEmbeddings) on the same
// inputs; tolerance 1e-6 (same code, same inputs: equality expected). Also: the encoder,
// decoder and cross maps, the outputs table (‖y‖ per token = the engine's hidden_norm),
// the positions and causal checkboxes, a decoder input of its own, the drill-down of a
// cross-attention row, the bare nn.TransformerDecoder and nn.TransformerEncoder fixtures.
// Each test opens the page afresh (freshPage: 1280 × 720, no language saved by an earlier
// test) and opens its checkpoint itself.
// Screenshots: build/screenshots/torch_checkpoint_{1280,qk,zh,390}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { attentionOn, freshPage, openModelFiles, openSite, playgroundProbes, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { CHECKPOINTS, ModelApi, readFixture } from '../js/model_api.mjs';
import { close, closeMaps } from '../js/compare.mjs';

const TEXT = 'The cat sat on the mat, and the dog sat too.';
const C = 16;

let site, page, base, api, problems;
before(async () => {
  api = new ModelApi(await loadTfp());
  site = await openSite({ name: 'torch-checkpoint' });
  ({ page, base, problems } = site);
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const { num, after: after_ } = playgroundProbes(() => page);

const openFixture = (name) => openModelFiles(page, `${CHECKPOINTS}${name}/`);

/** The page's maps once they are for `S` source tokens (and `T` decoder tokens). */
async function pageMaps(S, T) {
  await page.waitForFunction(([s, t]) => {
    const a = window.tfpPlay.attention;
    const enc = a.find((x) => x.name.startsWith('enc.')), cross = a.find((x) => x.name.includes('.cross.'));
    // (enc or cross: the maps of a vectors model, not those of the token model before it)
    return (enc || cross) && (!enc || enc.dims[1] === s) && (!cross || (cross.dims[1] === t && cross.dims[2] === s));
  }, [S, T], { timeout: 20_000 });
  return attentionOn(page);
}

/** The Node oracle: what the page says it feeds in, through the same module. */
function oracle(model, text, { tgtText = text, positions = true, causal = true, decoder = true } = {}) {
  const src = api.tokenize(model, text).tokens;
  const tgt = decoder ? api.tokenize(model, tgtText).tokens : [];
  const x = api.embeddingRows(src, C, { seed: 1, positions });
  const y = decoder ? api.embeddingRows(tgt, C, { seed: 1, positions }) : null;
  return { src, tgt, x, y, out: api.forwardEmbeddings(model, C, x, y, { causalTgt: decoder && causal }) };
}

const checkMaps = (maps, want, what) => closeMaps(maps, want.out, what);

test('nn.Transformer checkpoint: words → seeded vectors → the engine\'s maps, outputs, drill-down', { timeout: 180_000 }, async () => {
  await freshPage(page, `${base}/?model=fixture-gpt2_tiny`);
  await after_('loads', 0, 60_000);
  await openFixture('torch_transformer');
  const model = api.load(readFixture('torch_transformer'), 'torch_transformer');
  try {
    const info = await page.evaluate(() => window.tfpPlay.modelInfo);
    assert.equal(info.has_embeddings, false);
    assert.equal(info.tokenizer_fallback, 'words');
    assert.match(await page.locator('#model-info').textContent(), /nn\.Transformer .*reads vectors/);
    assert.match(await page.locator("#vector-explain").textContent(), /seed 1: the same word, the same vector/);
    assert.equal(await page.locator('#vec-positions').isChecked(), true);
    assert.equal(await page.locator('#vec-causal').isChecked(), true);
    // The logit lens of the token model opened before is not carried over: no LM head here.
    await page.locator('#tab-analyse').click();
    await page.locator('.analyse-kind').selectOption('lens');  // the lens is one of the Analyse view's analyses
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'analyse' && window.tfpPlay.shown.note === 'no lens');
    assert.match(await page.locator('#view .view-note').innerText(), /reads vectors and has no head/);
    await page.locator('#tab-model').click();

    await page.locator('#text').fill(TEXT);
    let want = oracle(model, TEXT);
    assert.deepEqual(want.src, ['The', 'cat', 'sat', 'on', 'the', 'mat', ',', 'and', 'the', 'dog', 'sat', 'too', '.']);
    const S = want.src.length;
    let maps = await pageMaps(S, S);
    checkMaps(maps, want, 'default inputs');
    const enc = await page.evaluate(() => window.tfpPlay.encoding);
    assert.deepEqual(enc.tokens, want.src);
    assert.deepEqual(enc.ids, api.tokenize(model, TEXT).ids);  // ids mark equal words: the = 4 and 8
    // The decoder's self-attention is causal: nothing above the diagonal.
    const d = maps['dec.1.attn.probs'];
    for (let h = 0; h < 4; h++) for (let i = 0; i < S; i++) for (let j = i + 1; j < S; j++) assert.equal(d.data[(h * S + i) * S + j], 0);

    // Outputs: ‖y‖ per decoder token, the engine's hidden_norm; no predictions.
    const rows = await page.evaluate(() => window.tfpPlay.outputs.vectors.rows);
    assert.deepEqual(rows.map((r) => r.token), want.tgt);
    close(rows.map((r) => r.norm), Array.from(want.out.hidden_norm.data), 'output lengths');
    assert.equal(await page.locator('.vector-outputs tbody tr').count(), S);
    assert.equal(await page.locator('.outputs .prob-bars, .outputs .next-token').count(), 0);

    // Every inspector view draws from these families.
    for (const view of ['model', 'matrix', 'lines', 'cross', 'stats', 'rollout', 'compare']) {
      const r = await num('renders');
      await page.locator(`#tab-${view}`).click();
      await after_('renders', r);
      const shown = await page.evaluate(() => window.tfpPlay.shown);
      assert.equal(shown.view, view);
      assert.ok(Object.keys(shown.panels).length > 0 || shown.note, `${view}: something is shown`);
    }
    const sets = await page.locator('#set-select option').evaluateAll((os) => os.map((o) => o.value));
    assert.deepEqual(sets, ['enc', 'dec', 'cross']);

    // Drill-down of a cross-attention row: the engine's steps on the same inputs.
    await page.locator('#tab-qk').click();
    await page.locator('#set-select').selectOption('cross');
    await page.locator('#layer-select').selectOption({ value: '1' });
    await page.locator('#head-select').selectOption({ value: '2' });
    await page.waitForFunction(() => {
      const s = window.tfpPlay.shown;
      return s && s.view === 'qk' && s.set === 'cross' && s.layer === 1 && s.head === 2 && s.panels.probs;
    }, null, { timeout: 30_000 });
    const s = await page.evaluate(() => {
      const x = window.tfpPlay.shown;
      return { note: x.note, panels: Object.fromEntries(Object.entries(x.panels).map(([k, v]) => [k, { dims: v.dims, data: Array.from(v.data) }])) };
    });
    const query = Number(/query (\d+)/.exec(s.note)[1]);
    const steps = api.attentionStepsEmbeddings(model, C, want.x, want.y, { set: 'cross', layer: 1, head: 2, query, causalTgt: true });
    for (const n of ['q', 'k', 'scores', 'probs', 'out']) close(s.panels[n].data, Array.from(steps[n].data), `drill-down ${n}`);
    const cross = want.out['dec.1.cross.probs'];
    close(s.panels.probs.data, Array.from(cross.data.subarray((2 * S + query) * S, (2 * S + query + 1) * S)), 'drill-down = cross map row');
    // Padding is none, so the source keys are all live: the row is a softmax over S keys.
    assert.equal(s.panels.probs.dims[0], S);
    await page.locator('#inspector').screenshot({ path: `${SHOTS}torch_checkpoint_qk.png` });
    await page.locator('#tab-model').click();
    await page.locator('#set-select').selectOption('cross');
    await page.screenshot({ path: `${SHOTS}torch_checkpoint_1280.png`, fullPage: true });

    // Positions off: the engine's plain seeded vectors (same word, same vector).
    let r = await num('renders');
    await page.locator('#vec-positions').uncheck();
    await after_('renders', r);
    want = oracle(model, TEXT, { positions: false });
    await page.waitForFunction(() => window.tfpPlay.state.positions === false);
    maps = await pageMaps(S, S);
    checkMaps(maps, want, 'no positions');
    // The URL is written at most every 150 ms: wait for it.
    await page.waitForFunction(() => /[?&]pos=0(&|$)/.test(location.search));

    // Causal off: the decoder sees every position.
    r = await num('renders');
    await page.locator('#vec-causal').uncheck();
    await after_('renders', r);
    want = oracle(model, TEXT, { positions: false, causal: false });
    maps = await pageMaps(S, S);
    checkMaps(maps, want, 'no causal mask');
    assert.ok(maps['dec.0.attn.probs'].data[1] > 0, 'query 1 now sees key 2');

    // A decoder input of its own: cross-attention is (H, T, S).
    const tgtText = 'a dog sat';
    await page.locator('#vec-tgt').fill(tgtText);
    want = oracle(model, TEXT, { tgtText, positions: false, causal: false });
    maps = await pageMaps(S, 3);
    checkMaps(maps, want, 'own decoder input');
    assert.deepEqual(maps['dec.0.cross.probs'].dims, [4, 3, S]);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('tgt') === 'a dog sat');

    // Chinese: the explanation, the controls and the table follow the locale (no reload).
    await page.selectOption('#lang-select', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    assert.match(await page.locator('#vector-explain').textContent(), /没有词表.*种子 1/);
    assert.match(await page.locator('label[for="vec-positions"]').textContent(), /正弦位置编码/);
    assert.match(await page.locator('.vector-outputs h3').textContent(), /解码器输出/);
    await page.screenshot({ path: `${SHOTS}torch_checkpoint_zh.png`, fullPage: true });
    await page.selectOption('#lang-select', 'en');

    await page.setViewportSize({ width: 390, height: 844 });
    // Charts redraw for the new width when they get to it: wait for that, not for a time.
    await page.waitForFunction(() => document.documentElement.scrollWidth - window.innerWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scroll at 390 px (overflow ${overflow}px)`);
    await page.screenshot({ path: `${SHOTS}torch_checkpoint_390.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });
  } finally {
    api.free(model);
  }
});

test('bare nn.TransformerDecoder (the text is its memory) and nn.TransformerEncoder', { timeout: 120_000 }, async () => {
  for (const [name, decoder] of [['torch_decoder', true], ['torch_encoder_prenorm', false]]) {
    await freshPage(page, `${base}/?model=fixture-gpt2_tiny&text=${encodeURIComponent(TEXT)}`);
    await after_('loads', 0, 60_000);
    await openFixture(name);
    const model = api.load(readFixture(name), name);
    try {
      const want = oracle(model, TEXT, { decoder });
      const S = want.src.length;
      const maps = await pageMaps(S, S);
      checkMaps(maps, want, name);
      const sets = await page.locator('#set-select option').evaluateAll((os) => os.map((o) => o.value));
      assert.deepEqual(sets, decoder ? ['dec', 'cross'] : ['enc'], `${name}: attention sets`);
      assert.equal(await page.locator('#vec-tgt').count(), decoder ? 1 : 0);
      const rows = await page.evaluate(() => window.tfpPlay.outputs.vectors.rows);
      close(rows.map((r) => r.norm), Array.from(want.out.hidden_norm.data), `${name}: output lengths`);
      // The drill-down works on the first set.
      await page.locator('#tab-qk').click();
      await page.waitForFunction(() => window.tfpPlay.shown?.view === 'qk' && !!window.tfpPlay.shown.panels.probs, null, { timeout: 30_000 });
      await page.locator('#tab-model').click();
    } finally {
      api.free(model);
    }
  }
  assert.deepEqual(problems, []);
});
