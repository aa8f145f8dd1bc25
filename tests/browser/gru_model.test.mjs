// The recurrent encoder–decoder (models/numbers-gru) in the playground: picked from the
// model picker, number words typed in, translated with beam 4 to "342", and its additive
// attention drawn by the cross-attention view; the views that read self-attention maps
// (model grid, head statistics, rollout, query–key drill-down) say that this model has
// none, and the page logs no error.
// Oracle: the same WASM module in Node through the C API (tests/js/model_api.mjs):
// translate with the engine's defaults (start and end marks from config.json), then the
// teacher-forced forward pass over [start, translation...] that the page draws; 1e-6
// (same code, same inputs: equality expected). Screenshots: build/screenshots/gru_*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSite, playgroundProbes, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { hasShipped, ModelApi, readShipped } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';

const skip = hasShipped('numbers-gru') ? false : 'no models/numbers-gru';
const TEXT = 'three hundred and forty two';

let site, page, api, gru;

before(async () => {
  if (skip) return;
  api = new ModelApi(await loadTfp());
  gru = api.load(readShipped('numbers-gru'), 'numbers-gru');
  site = await openSite({ name: 'gru_model' });
  ({ page } = site);
}, { timeout: 180_000 });

after(async () => {
  if (gru) api.free(gru);
  await site?.close();
});

const { num, after: after_, shown, translate } = playgroundProbes(() => page, { timeout: 20_000 });
test('numbers-gru: pick it, translate with beam 4, the cross view shows the engine\'s alignment', { timeout: 120_000, skip }, async () => {
  await page.goto(`${site.base}/?view=model`);
  let loads = await after_('loads', 0, 60_000);
  assert.ok((await page.locator('#model-select option').evaluateAll((os) => os.map((o) => o.value))).includes('numbers-gru'));
  await page.locator('#model-select').selectOption('numbers-gru');
  loads = await after_('loads', loads, 60_000);
  const info = await page.evaluate(() => window.tfpPlay.modelInfo);
  assert.equal(info.model_type, 'tfp_gru_seq2seq');
  assert.match(await page.locator('#model-info').innerText(), /recurrent encoder–decoder.*GRU.*additive/);

  let r = await num('renders');
  await page.locator('#text').fill(TEXT);
  r = await after_('renders', r);
  await page.waitForFunction((t) => window.tfpPlay.state.text === t && window.tfpPlay.encoding?.tokens.length === t.length, TEXT);

  // Views that need self-attention say the model has none (no error, no empty grid).
  for (const view of ['model', 'stats', 'rollout', 'qk']) {
    const before_ = await num('renders');
    await page.locator(`#tab-${view}`).click();
    await after_('renders', before_);
    const s = await shown();
    assert.equal(s.view, view);
    assert.equal(s.note, 'no self-attention', `${view} view`);
    assert.match(await page.locator('#view .view-note').innerText(), /no self-attention maps/);
    if (view === 'model') await page.locator('#inspector').screenshot({ path: `${SHOTS}gru_model_view_note.png` });
  }
  // The logit lens has no layer stack to read (a note, not the engine's refusal).
  await page.locator('#tab-analyse').click();
  await page.locator('.analyse-kind').selectOption('lens');  // the lens is one of the Analyse view's analyses
  await page.waitForFunction(() => window.tfpPlay.shown?.view === 'analyse' && window.tfpPlay.shown.note === 'no lens');
  assert.match(await page.locator('#view .view-note').innerText(), /single recurrent layer/);
  // The note's button opens the cross view (before any translation: the start row only).
  let before_ = await num('renders');
  await page.locator('#tab-model').click();
  before_ = await after_('renders', before_);
  await page.getByRole('button', { name: 'Open the cross-attention view' }).click();
  await after_('renders', before_);
  assert.equal((await shown()).view, 'cross');
  await page.locator('#tab-model').click();

  // Translate with beam 4.
  await page.locator('#beam').fill('4');
  await page.locator('#beam').dispatchEvent('change');
  r = await translate();
  assert.equal(await page.locator('#translation').innerText(), '342');
  assert.equal(await page.evaluate(() => window.tfpPlay.state.beam), 4);

  // Oracle in Node: the engine's translation, then the teacher-forced pass the page draws.
  const src = api.tokenize(gru, TEXT).ids;
  const tr = api.translate(gru, src, { beamSize: 4 });
  assert.deepEqual(tr.ids, [...api.tokenize(gru, '342').ids, info.eos_token_id]);
  const tgt = [info.decoder_start_token_id, ...tr.ids];
  const cross = api.forward(gru, src, { attention: true, tgtIds: tgt })['dec.0.cross.probs'];
  assert.deepEqual(cross.dims, [1, tgt.length, src.length]);
  // The page: the translation switched the model view to the cross view, layer 1 head 1.
  await page.waitForFunction(() => window.tfpPlay.shown?.view === 'cross');
  const s = await shown();
  assert.equal(s.set, 'cross');
  assert.deepEqual([s.layer, s.head], [0, 0]);
  const panel = Object.values(s.panels)[0];
  assert.deepEqual(panel.dims, [tgt.length, src.length]);
  close(panel.data, Array.from(cross.data), 'cross view');
  // Rows are labelled by the token each step produced ("→ 3" is the step that read the
  // start mark), as alignment is taught; the row after the end token says so.
  await page.locator('#view .heatmap .data-table summary').click();
  await page.locator('#view .heatmap .data-table tbody th').first().waitFor();
  const rowLabels = await page.locator('#view .heatmap .data-table tbody th').allTextContents();
  assert.deepEqual(rowLabels.slice(0, 3), ['1 → 3', '2 → 4', '3 → 2']);
  assert.match(rowLabels[3], /^4 → ./);
  assert.equal(rowLabels[4], '5 (after end)');
  await page.locator('#view .heatmap .data-table summary').click();
  // Rows 0..T-1 are where the decoder looked while choosing each output token: the decoding's own alignment.
  close(panel.data.slice(0, tr.ids.length * src.length), Array.from(tr.tensors.alignment.data), 'decoding alignment');
  // Drawn (a heatmap: canvas or svg), with no note in its place.
  assert.ok(await page.locator('#view canvas, #view svg').count() > 0, 'the cross view draws a map');
  assert.equal(await page.locator('#view .view-note').count(), 0);

  await page.screenshot({ path: `${SHOTS}gru_translate_cross_1280x720.png`, fullPage: true });
  assert.deepEqual(site.problems, []);
  assert.deepEqual(site.foreignRequests(), []);
});
