// Head ablation, the drill-down's decoder note and the token strip's help on PyTorch
// nn.Transformer checkpoints (models that read vectors, web/src/pages/playground/vectors.ts):
//   - the model view's toggles and the matrix view's slider ablate heads of the
//     torch_transformer fixture; the page's maps then equal the engine's masked pass on
//     the same inputs, run here in Node through the same WASM module (tfp_model_set_head_mask
//     + tfp_model_forward_embeddings, tests/js/model_api.mjs), within 1e-6; they differ from
//     the unmasked maps; the cross drill-down equals tfp_model_attention_steps_embeddings
//     under the mask; reset gives the unmasked maps back exactly;
//   - "What changed" (tfp_model_head_mask_effect reads token ids through a head, which these
//     models lack) is one note, no table, no error;
//   - the drill-down's note on the dec/cross sets says the rows are the decoder input
//     text's tokens (not "the output so far", which is for translations), and names the
//     strip's tokens as a bare decoder's memory there; en and zh-CN;
//   - the token strip's help says what the words fallback's ids are (first appearance,
//     the engine's seeded vector), and still says vocabulary ids for a token model.
// Each test opens the page afresh (freshPage: 1280 × 720, no language saved by an earlier
// test) and opens its checkpoint itself.
// Screenshots: build/screenshots/torch_ablation/*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { attentionOn, freshPage, openModelFiles, openSite, playgroundProbes, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { CHECKPOINTS, ModelApi, readFixture } from '../js/model_api.mjs';
import { close, closeMaps, maxDiff } from '../js/compare.mjs';

const TEXT = 'The cat sat on the mat, and the dog sat too.';
const C = 16, H = 4;
const DIR = `${SHOTS}torch_ablation/`;

let site, page, base, api, problems;
before(async () => {
  await mkdir(DIR, { recursive: true });
  api = new ModelApi(await loadTfp());
  site = await openSite({ name: 'torch-ablation' });
  ({ page, base, problems } = site);
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const { after: after_ } = playgroundProbes(() => page);

const openFixture = (name) => openModelFiles(page, `${CHECKPOINTS}${name}/`);

/** The page's maps once it has run (and shown the effect panel) for `ablate` on the
 * fixture (both have cross-attention; the token model opened first has none). */
async function mapsFor(ablate) {
  await page.waitForFunction((a) => window.tfpPlay.state.ablate === a && window.tfpPlay.ablation.effectFor === a
    && window.tfpPlay.attention.some((x) => x.name.includes('.cross.')), ablate, { timeout: 30_000 });  // not gpt2_tiny's
  // ... and the view is drawn from this pass (the model and matrix views show its arrays).
  await page.waitForFunction(() => {
    const { shown, attention } = window.tfpPlay;
    if (!shown || !['model', 'matrix'].includes(shown.view)) return true;
    return Object.values(shown.panels).every((p) => attention.some((a) => a.data.buffer === p.data.buffer));
  }, null, { timeout: 30_000 });
  return attentionOn(page);
}

/** The Node oracle: the page's inputs (words → seeded vectors + positions, the same text
 * as decoder input, causal tgt) through the same module under `mask`. */
function oracle(model, mask) {
  const src = api.tokenize(model, TEXT).tokens;
  const x = api.embeddingRows(src, C, { seed: 1, positions: true });
  const y = api.embeddingRows(src, C, { seed: 1, positions: true });
  api.setHeadMask(model, mask);
  try {
    return { x, y, out: api.forwardEmbeddings(model, C, x, y, { causalTgt: true }) };
  } finally {
    api.setHeadMask(model, []);
  }
}

const checkMaps = (maps, want, what) => closeMaps(maps, want.out, what);
const off = (h, scale = 0) => Array.from({ length: H }, (_, i) => (i === h ? scale : 1));

test('nn.Transformer checkpoint: ablated heads = the engine\'s masked pass; drill-down note; strip help', { timeout: 180_000 }, async () => {
  await freshPage(page, `${base}/?model=fixture-gpt2_tiny&text=${encodeURIComponent(TEXT)}`);
  await after_('loads', 0, 60_000);
  // A token model: the strip's ids are vocabulary ids.
  assert.match(await page.locator('#strip-help').textContent(), /vocabulary's spelling/);
  await openFixture('torch_transformer');
  const model = api.load(readFixture('torch_transformer'), 'torch_transformer');
  try {
    // 3. The words fallback: ids number the words by first appearance, vectors are seeded.
    const help = await page.locator('#strip-help').textContent();
    assert.match(help, /order of first appearance/);
    assert.match(help, /seeded vector/);
    assert.doesNotMatch(help, /vocabulary's spelling/);

    const plain = oracle(model, []);
    const S = api.tokenize(model, TEXT).tokens.length;
    let maps = await mapsFor('');
    checkMaps(maps, plain, 'no ablation');
    assert.ok(await page.locator('.abl-changes').isHidden(), 'no "what changed" without an ablation');

    // 1. Model view, encoder set: one toggle per head under the grid.
    await page.locator('#tab-model').click();
    await page.locator('#set-select').selectOption('enc');
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'model' && window.tfpPlay.shown.set === 'enc');
    assert.equal(await page.locator('.abl-toggle').count(), 2 * H);
    await page.locator('.abl-toggle[data-layer="0"][data-head="1"]').click();
    maps = await mapsFor('enc.1.2=0');
    let want = oracle(model, [{ set: 'enc', layer: 0, scales: off(1) }]);
    checkMaps(maps, want, 'enc L1 H2 off');
    // A head's own map stays its softmax; the maps after it change.
    close(maps['enc.0.attn.probs'].data, Array.from(plain.out['enc.0.attn.probs'].data), 'enc.0 unchanged');
    assert.ok(maxDiff(maps['enc.1.attn.probs'].data, plain.out['enc.1.attn.probs'].data) > 1e-4, 'enc.1 changed');
    assert.ok(maxDiff(maps['dec.1.cross.probs'].data, plain.out['dec.1.cross.probs'].data) > 1e-4, 'cross.1 changed');
    assert.equal(await page.locator('.abl-toggle[aria-pressed="true"]').count(), 1);
    await page.waitForFunction(() => document.querySelectorAll('.lh-tile.ablated').length === 1);
    // "What changed": a note (no head to compare predictions with), no table, no error.
    assert.ok(await page.locator('.abl-changes').isVisible());
    assert.match(await page.locator('.abl-no-effect').textContent(), /no prediction head/);
    assert.equal(await page.locator('.abl-changes table').count(), 0);
    assert.ok(await page.locator('#error').isHidden());

    // Cross-attention set: layer 2 head 4 off as well.
    await page.locator('#set-select').selectOption('cross');
    await page.waitForFunction(() => window.tfpPlay.shown?.set === 'cross');
    await page.locator('.abl-toggle[data-layer="1"][data-head="3"]').click();
    maps = await mapsFor('enc.1.2=0,cross.2.4=0');
    const both = [{ set: 'enc', layer: 0, scales: off(1) }, { set: 'cross', layer: 1, scales: off(3) }];
    want = oracle(model, both);
    checkMaps(maps, want, 'enc L1 H2 + cross L2 H4 off');
    await page.waitForFunction(() => /[?&]ablate=enc\.1\.2%3D0%2Ccross\.2\.4%3D0(&|$)/.test(location.search));
    await page.screenshot({ path: `${DIR}model_ablated.png`, fullPage: true });

    // Matrix view, decoder self-attention layer 2 head 3: the slider scales it to × 0.5.
    await page.locator('#tab-matrix').click();
    await page.locator('#set-select').selectOption('dec');
    await page.locator('#layer-select').selectOption({ value: '1' });
    await page.locator('#head-select').selectOption({ value: '2' });
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'matrix' && window.tfpPlay.shown.set === 'dec'
      && window.tfpPlay.shown.layer === 1 && window.tfpPlay.shown.head === 2 && document.querySelector('#abl-scale'));
    await page.locator('#abl-scale').evaluate((el) => { el.value = '0.5'; el.dispatchEvent(new Event('change')); });
    maps = await mapsFor('enc.1.2=0,dec.2.3=0.5,cross.2.4=0');
    const three = [...both, { set: 'dec', layer: 1, scales: off(2, 0.5) }];
    want = oracle(model, three);
    checkMaps(maps, want, 'with dec L2 H3 × 0.5');
    // The matrix shown is the engine's map of that head.
    const shown = await page.evaluate(() => Array.from(window.tfpPlay.shown.panels[Object.keys(window.tfpPlay.shown.panels)[0]].data));
    const T = S, d = want.out['dec.1.attn.probs'].data;
    close(shown, Array.from(d.subarray(2 * T * T, 3 * T * T)), 'matrix panel = dec.1 head 3');
    await page.locator('#inspector').screenshot({ path: `${DIR}matrix_slider.png` });

    // The cross drill-down runs under the same mask.
    await page.locator('#tab-qk').click();
    await page.locator('#set-select').selectOption('cross');
    await page.locator('#layer-select').selectOption({ value: '1' });
    await page.locator('#head-select').selectOption({ value: '1' });
    await page.waitForFunction(() => {
      const s = window.tfpPlay.shown;
      return s && s.view === 'qk' && s.set === 'cross' && s.layer === 1 && s.head === 1 && s.panels.probs;
    }, null, { timeout: 30_000 });
    const qk = await page.evaluate(() => {
      const x = window.tfpPlay.shown;
      return { note: x.note, panels: Object.fromEntries(Object.entries(x.panels).map(([k, v]) => [k, Array.from(v.data)])) };
    });
    const query = Number(/query (\d+)/.exec(qk.note)[1]);
    api.setHeadMask(model, three);
    const steps = api.attentionStepsEmbeddings(model, C, want.x, want.y, { set: 'cross', layer: 1, head: 1, query, causalTgt: true });
    api.setHeadMask(model, []);
    for (const n of ['q', 'k', 'scores', 'probs', 'out']) close(qk.panels[n], Array.from(steps[n].data), `masked drill-down ${n}`);

    // 2. The note: the rows are the decoder input text's tokens, nothing generated.
    let note = await page.locator('.qk-note').textContent();
    assert.match(note, /the tokens of the decoder input text \(tgt\)/);
    assert.match(note, /\(the encoder's input\) are the keys/);
    assert.doesNotMatch(note, /so far|produced/);
    await page.locator('#set-select').selectOption('dec');
    await page.waitForFunction(() => window.tfpPlay.shown?.set === 'dec' && window.tfpPlay.shown.panels.probs);
    note = await page.locator('.qk-note').textContent();
    assert.match(note, /Queries and keys here are decoder positions: the tokens of the decoder input text/);
    assert.doesNotMatch(note, /translation|start mark/);
    await page.locator('#set-select').selectOption('enc');
    await page.waitForFunction(() => window.tfpPlay.shown?.set === 'enc' && window.tfpPlay.shown.panels.probs);
    assert.ok(await page.locator('.qk-note').isHidden(), 'no decoder note on the encoder set');
    await page.locator('#set-select').selectOption('cross');
    await page.waitForFunction(() => window.tfpPlay.shown?.set === 'cross' && window.tfpPlay.shown.panels.probs);
    await page.locator('#inspector').screenshot({ path: `${DIR}qk_note_en.png` });

    // zh-CN: the note, the strip's help and the "what changed" note follow the locale.
    await page.selectOption('#lang-select', 'zh-CN');
    await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
    await page.waitForFunction(() => /解码器输入文本/.test(document.querySelector('.qk-note')?.textContent ?? ''));
    note = await page.locator('.qk-note').textContent();
    assert.match(note, /解码器输入文本（tgt）中的词元/);
    assert.doesNotMatch(note, /目前的输出/);
    // The rows keep their tokens (a translation's "→ …" labels are not for these models).
    const words = api.tokenize(model, TEXT).tokens;
    assert.deepEqual(await page.locator('.qk-tokens button').allTextContents(), words);
    assert.doesNotMatch(await page.locator('.drilldown').textContent(), /→/);
    assert.match(await page.locator('#strip-help').textContent(), /第一次出现的顺序/);
    assert.match(await page.locator('.abl-no-effect').textContent(), /没有预测头/);
    await page.screenshot({ path: `${DIR}zh.png`, fullPage: true });
    await page.selectOption('#lang-select', 'en');
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    assert.match(await page.locator('#strip-help').textContent(), /order of first appearance/);

    // Reset: every head back, the unmasked maps exactly.
    await page.locator('#tab-model').click();
    await page.waitForFunction(() => document.querySelector('.abl-reset'));
    await page.locator('.abl-reset').first().click();
    maps = await mapsFor('');
    for (const n of Object.keys(maps)) assert.deepEqual(maps[n].data, Array.from(plain.out[n].data), `reset: ${n}`);
    assert.ok(await page.locator('.abl-changes').isHidden());
  } finally {
    api.free(model);
  }
  assert.deepEqual(problems, []);
});

test('bare nn.TransformerDecoder: the drill-down names the text as the memory; a dec head ablates', { timeout: 120_000 }, async () => {
  await freshPage(page, `${base}/?model=fixture-gpt2_tiny&text=${encodeURIComponent(TEXT)}`);
  await after_('loads', 0, 60_000);
  await openFixture('torch_decoder');
  const model = api.load(readFixture('torch_decoder'), 'torch_decoder');
  try {
    await page.locator('#tab-qk').click();
    await page.locator('#set-select').selectOption('cross');
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'qk' && window.tfpPlay.shown.set === 'cross'
      && window.tfpPlay.shown.panels.probs, null, { timeout: 30_000 });
    const note = await page.locator('.qk-note').textContent();
    assert.match(note, /decoder input text \(tgt\)/);
    assert.match(note, /\(the decoder's memory\) are the keys/);

    // A decoder self-attention head off: the maps = the masked pass on the memory.
    await page.locator('#tab-model').click();
    await page.locator('#set-select').selectOption('dec');
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'model' && window.tfpPlay.shown.set === 'dec');
    await page.locator('.abl-toggle[data-layer="0"][data-head="0"]').click();
    const maps = await mapsFor('dec.1.1=0');
    const src = api.tokenize(model, TEXT).tokens;
    const x = api.embeddingRows(src, C, { seed: 1, positions: true });
    api.setHeadMask(model, [{ set: 'dec', layer: 0, scales: off(0) }]);
    const out = api.forwardEmbeddings(model, C, x, x, { causalTgt: true });
    api.setHeadMask(model, []);
    const plain = api.forwardEmbeddings(model, C, x, x, { causalTgt: true });
    for (const n of Object.keys(out).filter((k) => k.endsWith('.probs'))) close(maps[n].data, Array.from(out[n].data), `decoder: ${n}`);
    assert.ok(maxDiff(maps['dec.1.attn.probs'].data, plain['dec.1.attn.probs'].data) > 1e-4, 'dec.1 changed');
  } finally {
    api.free(model);
  }
  assert.deepEqual(problems, []);
});
