// The playground's masked-LM output in Chromium: pick the BERT masked-LM fixture in the
// model picker, type a sentence with [MASK] (and add a second one with the "Insert
// [MASK]" button at the cursor), and check that
//   - the tokenizer keeps "[MASK]" as one token (the strip shows it, ids as the engine's);
//   - for every [MASK] the page shows the top 10 predictions as bars, whose ids and
//     probabilities equal tfp_model_fill_mask run here in Node on the same WASM module
//     (tests/js/model_api.mjs) within 1e-6 (same code, same input: equality expected),
//     labels the vocabulary's spelling put in as text, percentages as the engine's;
//   - a text without [MASK] shows the hint and no bars; no console errors, no request
//     leaves the page's host.
// Screenshot: build/screenshots/fill_mask_1280x720.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSite, playgroundProbes } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readFixture } from '../js/model_api.mjs';

const MODEL = 'fixture-bert_mlm_tiny';
let site, page, base, api, mlm;

before(async () => {
  api = new ModelApi(await loadTfp());
  mlm = api.load(readFixture('bert_mlm_tiny'), 'bert_mlm_tiny');
  site = await openSite({ name: 'fill_mask' });
  ({ page, base } = site);
}, { timeout: 180_000 });

after(async () => {
  if (mlm) api.free(mlm);
  await site?.close();
});

const { num, after: after_ } = playgroundProbes(() => page);

/** What the page shows: the debug list and the bars as drawn. */
const pageFill = () => page.evaluate(() => ({
  list: window.tfpPlay.outputs.fillMask,
  ids: window.tfpPlay.encoding.ids,
  boxes: [...document.querySelectorAll('#fill-mask .mask-fill')].map((box) => ({
    title: box.querySelector('h4').textContent,
    bars: [...box.querySelectorAll('ol.prob-bars li')].map((li) => ({
      label: li.querySelector('.bar-label').textContent,
      labelElements: li.querySelector('.bar-label').children.length,
      value: li.querySelector('.bar-value').textContent,
      title: li.title,
    })),
  })),
  hint: document.querySelector('#fill-mask')?.textContent ?? null,
}));

/** Compares the page with tfp_model_fill_mask on the page's own ids. */
function checkAgainstEngine(shown, masks) {
  const want = api.fillMask(mlm, shown.ids, { topK: 10 });
  assert.equal(want.length, masks, 'masks in the input');
  assert.equal(shown.list.length, want.length);
  assert.equal(shown.boxes.length, want.length);
  want.forEach((w, r) => {
    const got = shown.list[r];
    assert.equal(got.position, w.position);
    assert.deepEqual(got.candidates.map((c) => c.id), w.ids);
    got.candidates.forEach((c, k) => assert.ok(Math.abs(c.prob - w.probs[k]) <= 1e-6, `mask ${r} rank ${k}`));
    const bars = shown.boxes[r].bars;
    assert.equal(bars.length, 10);
    bars.forEach((b, k) => {
      assert.equal(b.title, `id ${w.ids[k]}`);
      assert.equal(b.value, `${(100 * w.probs[k]).toFixed(1)}%`);
      assert.equal(b.labelElements, 0);  // text only
    });
    // Labels are the vocabulary's spelling of the engine's ids.
    assert.deepEqual(bars.map((b) => b.label), got.candidates.map((c) => c.token));
    assert.ok(shown.boxes[r].title.includes(`token #${w.position + 1}`));
  });
}

test('pick the masked-LM fixture, type [MASK]: top-10 bars equal the engine', { timeout: 120_000 }, async () => {
  await page.goto(`${base}/`);
  let loads = await after_('loads', 0, 60_000);
  // The picker offers the fixture, labelled as random weights.
  const label = await page.locator(`#model-select option[value="${MODEL}"]`).textContent();
  assert.match(label, /masked LM/);
  assert.match(label, /random weights/);
  await page.locator('#model-select').selectOption(MODEL);
  loads = await after_('loads', loads, 60_000);
  assert.equal(await page.evaluate(() => window.tfpPlay.modelInfo.head), 'masked_lm');
  await page.waitForSelector('#insert-mask');

  // No mask yet: the hint, no bars.
  let r = await num('renders');
  await page.locator('#text').fill('the cat sat on the mat.');
  r = await after_('renders', r);
  let shown = await pageFill();
  assert.equal(shown.boxes.length, 0);
  assert.match(shown.hint, /No \[MASK\] in the text yet/);

  // One mask, typed.
  const text = 'the [MASK] sat on the mat.';
  await page.locator('#text').fill(text);
  r = await after_('renders', r);
  shown = await pageFill();
  const enc = api.tokenize(mlm, text);
  assert.deepEqual(shown.ids, enc.ids);
  assert.equal(enc.tokens[2], '[MASK]');  // one special token, not "[", "mask", "]"
  checkAgainstEngine(shown, 1);

  // A second mask from the button, at the cursor (just before the final ".").
  await page.locator('#text').evaluate((box) => { box.focus(); box.setSelectionRange(box.value.length - 1, box.value.length - 1); });
  await page.locator('#insert-mask').click();
  r = await after_('renders', r);
  assert.equal(await page.locator('#text').inputValue(), 'the [MASK] sat on the mat [MASK].');
  shown = await pageFill();
  checkAgainstEngine(shown, 2);
  assert.deepEqual(site.problems, []);
  assert.deepEqual(site.foreignRequests(), []);
  await site.shot('fill_mask_1280x720', { fullPage: true });
});
