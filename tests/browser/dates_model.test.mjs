// The shipped dates model (models/dates, src/train/seq_dates.*) in the playground: offered
// by the model picker (found under models/ by web/src/shell/catalog.ts), a written date
// typed in and translated to its ISO form, and the cross view drawing the engine's
// cross-attention, no error logged.
// Oracle: the same WASM module in Node through the C API (tests/js/model_api.mjs):
// tfp_model_translate with the engine's defaults (start and end marks from config.json),
// then the teacher-forced forward pass over [start, translation...] that the page draws
// (same code, same inputs: equality expected, compared within 1e-6).
// Screenshot: build/screenshots/dates_translate_cross_1280x720.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSite, playgroundProbes, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { hasShipped, ModelApi, readShipped } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';

const skip = hasShipped('dates') ? false : 'no models/dates';
const TEXT = 'Wednesday, March 3, 2021';
let site, page, api, dates;

before(async () => {
  if (skip) return;
  api = new ModelApi(await loadTfp());
  dates = api.load(readShipped('dates'), 'dates');
  site = await openSite({ name: 'dates_model' });
  ({ page } = site);
}, { timeout: 180_000 });

after(async () => {
  if (dates) api.free(dates);
  await site?.close();
});

const { num, after: after_, shown, translate } = playgroundProbes(() => page, { timeout: 20_000 });
test('dates: picked in the playground, translated to ISO, the cross view shows the engine\'s map', { timeout: 120_000, skip }, async () => {
  await page.goto(`${site.base}/?view=model`);
  let loads = await after_('loads', 0, 60_000);
  assert.ok((await page.locator('#model-select option').evaluateAll((os) => os.map((o) => o.value))).includes('dates'));
  await page.locator('#model-select').selectOption('dates');
  loads = await after_('loads', loads, 60_000);
  const info = await page.evaluate(() => window.tfpPlay.modelInfo);
  assert.equal(info.decoder_start_token_id, 2);
  assert.equal(info.eos_token_id, 1);
  let r = await num('renders');
  await page.locator('#text').fill(TEXT);
  r = await after_('renders', r);
  await page.waitForFunction((t) => window.tfpPlay.state.text === t, TEXT);
  r = await translate();
  assert.equal(await page.locator('#translation').innerText(), '2021-03-03');

  const src = api.tokenize(dates, TEXT).ids;
  const tr = api.translate(dates, src);
  assert.deepEqual(tr.ids, [...api.tokenize(dates, '2021-03-03').ids, info.eos_token_id]);
  const tgt = [info.decoder_start_token_id, ...tr.ids];
  const fw = api.forward(dates, src, { attention: true, tgtIds: tgt });
  await page.waitForFunction(() => window.tfpPlay.shown?.view === 'cross');
  const s = await shown();
  assert.equal(s.set, 'cross');
  const panel = Object.values(s.panels)[0];
  const cross = fw[`dec.${s.layer}.cross.probs`];
  const [, T, S] = cross.dims;
  assert.deepEqual(panel.dims, [T, S]);
  close(panel.data, Array.from(cross.data.slice(s.head * T * S, (s.head + 1) * T * S)), 'cross view');
  await page.screenshot({ path: `${SHOTS}dates_translate_cross_1280x720.png`, fullPage: true });
  assert.deepEqual(site.problems, []);
});
