// Learn, chapter 9 (the decoder and cross-attention), in Chromium:
//   - causal mask: brown-gpt on two sentences that differ only at the end; the page's
//     ids, layer-1 head-1 map and final hidden rows equal tfp_model_forward in Node (the
//     module loaded in Node, tests/js/model_api.mjs; exact: the same wasm on the same
//     ids); the map's upper triangle is exactly 0; every row before the first differing
//     token is bit-identical between the two sentences and the page says so; editing B's
//     start moves the first differing position; the mistake box shows the engine's first
//     row (1 on key 1) and last row;
//   - cross-attention: the dates model's output, alignment and every layer's maps equal
//     tfp_model_translate in Node (exact); the output is the ISO date; the alignment leaves
//     the diagonal (the year's first digit looks at the end of "3 March 2021"); a new date
//     recomputes; numbers-transformer in the same figure; the map picker shows a head;
//   - the exercise reveals the engine's answer (the part holding the argmax of the second
//     month digit's alignment row, recomputed here from the Node alignment);
//   - the mistake box's shapes are the engine's (T×T self, T×S cross);
//   - the language switch rewrites the prose and keeps the inputs; 390 px without
//     sideways scrolling; no console error.
// Each test opens the chapter afresh (fresh()) and makes the changes it checks itself: no
// test inherits another's inputs, model, language, theme or screen size.
// Screenshots: build/screenshots/learn/decoder_{en,zh}_{1280,390}.png, decoder_en_1280_dark.png,
// decoder_numbers_figure.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { learnProbes, sameArray } from './learn_harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readShipped } from '../js/model_api.mjs';

let site, page, base, api, gpt, dates, numbers, probes;
before(async () => {
  api = new ModelApi(await loadTfp());
  gpt = api.load(readShipped('brown-gpt'), 'brown-gpt');
  dates = api.load(readShipped('dates'), 'dates');
  numbers = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  site = await openSite({ name: 'learn_decoder' });
  ({ page, base } = site);
  probes = learnProbes(page);
  await mkdir(`${SHOTS}learn`, { recursive: true });
}, { timeout: 180_000 });
after(async () => {
  for (const m of [gpt, dates, numbers]) if (m) api.free(m);
  await site?.close();
});

const CHAPTER = () => `${base}/learn/decoder.html?lang=en`;
/** The state each test starts from: the chapter loaded afresh in English at its defaults
 *  (both figures drawn), 1280 × 720, light, nothing saved by an earlier test. */
async function fresh() {
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.cross && window.tfpLearn.state.causal, null, { timeout: 60_000 });
}

const firstSelf = (t) => t[Object.keys(t).find((k) => /(^|\.)0\.attn\.probs$/.test(k))];

async function checkCausal() {
  const c = await probes.part('causal');
  const want = {};
  for (const k of ['a', 'b']) {
    const tok = api.tokenize(gpt, c[k].text);
    assert.deepEqual(c[k].ids, tok.ids, `${k} ids`);
    want[k] = api.forward(gpt, tok.ids, { attention: true });
    sameArray(c[k].hidden.data, Array.from(want[k].hidden.data), `${k} hidden`);
  }
  const self = firstSelf(want.a);
  sameArray(c.a.probs.data, Array.from(self.data), 'A layer 1 probs');
  const T = c.a.ids.length, C = want.a.hidden.dims[1];
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) assert.equal(self.data[i * T + j], 0, `masked (${i}, ${j}) is 0`);
  // Rows before the first differing token: bit-identical in Node's numbers too.
  let first = 0;
  while (first < T && first < c.b.ids.length && c.a.ids[first] === c.b.ids[first]) first++;
  assert.equal(c.first, first);
  for (let i = 0; i < first; i++) {
    for (let d = 0; d < C; d++) assert.ok(Object.is(want.a.hidden.data[i * C + d], want.b.hidden.data[i * C + d]), `row ${i} bit-identical`);
    assert.equal(c.rows[i].same, true);
  }
  if (first < Math.min(T, c.b.ids.length)) assert.equal(c.rows[first].same, false);
  return { c, first, T, self };
}

test('chapter 9, causal mask: the map and hidden rows are the engine\'s; earlier rows are bit-identical', { timeout: 90_000 }, async () => {
  const t0 = Date.now();
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.cross, null, { timeout: 60_000 });
  console.log(`first figure drawn ${Date.now() - t0} ms after navigation (models not cached)`);
  await page.waitForFunction(() => window.tfpLearn.state.causal, null, { timeout: 60_000 });
  const { first, T } = await checkCausal();
  assert.ok(first >= 5 && first < T, `the default sentences share ${first} tokens`);
  assert.match(await page.locator('.dec-summary').innerText(), new RegExp(`${first} of ${first}\\s+rows bit-identical`));
  // The mistake box: row 1 = [1, 0, …], the last row spreads over every key.
  const c = await probes.part('causal');
  const row1 = (await probes.matrix('Row 1 (query')).flat();
  sameArray(row1, Array.from(c.a.probs.data.slice(0, T)), 'first row shown');
  assert.equal(row1[0], 1);
  const rowT = (await probes.matrix(`Row ${T} (query`)).flat();
  sameArray(rowT, Array.from(c.a.probs.data.slice((T - 1) * T, T * T)), 'last row shown');
  assert.ok(rowT.every((w) => w > 0));

  // Change B's start: nothing is protected any more.
  const n = await probes.renders();
  await page.locator('#dec-causal-b').fill('A jury said the election was over');
  await probes.rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.causal.b.text.startsWith('A jury'), null, { timeout: 20_000 });
  const again = await checkCausal();
  assert.equal(again.first, 0);
  assert.match(await page.locator('.dec-summary').innerText(), /already differ at the first token/);
  await page.locator('#dec-causal-b').fill('The jury said the election was over');
  await page.waitForFunction(() => window.tfpLearn.state.causal.first > 0, null, { timeout: 20_000 });
  assert.deepEqual(site.problems, []);
});

function nodeTranslate(model, text) {
  const tok = api.tokenize(model, text);
  const r = api.translate(model, tok.ids);
  return { tok, ...r };
}

async function checkCross(model) {
  const c = await probes.part('cross');
  const r = nodeTranslate(model, c.text);
  assert.deepEqual(c.srcIds, r.tok.ids, 'source ids');
  assert.deepEqual(c.ids, r.ids, 'output ids');
  sameArray(c.alignment.data, Array.from(r.tensors.alignment.data), 'alignment');
  c.cross.forEach((t) => sameArray(t.data, Array.from(r.tensors[t.name].data), t.name));
  return { c, r };
}

test('chapter 9, cross-attention: the dates model\'s output and maps are the engine\'s; the alignment reorders', { timeout: 90_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.cross?.model === 'dates', null, { timeout: 30_000 });
  const { c } = await checkCross(dates);
  assert.equal(c.text, '3 March 2021');
  assert.equal(c.out, '2021-03-03');
  // The year's first digit (row 0) looks at the year at the end of the source (characters 9..12).
  const [T, S] = c.alignment.dims;
  const argmax = (row) => { let b = 0; for (let j = 1; j < S; j++) if (c.alignment.data[row * S + j] > c.alignment.data[row * S + b]) b = j; return b; };
  assert.ok(argmax(0) >= 8, `year digit looks at column ${argmax(0)}`);
  assert.ok(argmax(9) <= 1, `the day digit looks at column ${argmax(9)}`);
  assert.equal(T, 11);
  assert.match(await page.locator('.dec-output').innerText(), /2021-03-03/);
  assert.match(await page.locator('.dec-argmax').innerText(), /2←2/);
  // Shapes in the mistake box: the decoder's self-attention T×T, cross T×S.
  assert.deepEqual(c.selfDims.slice(1), [T, T]);
  assert.deepEqual(c.crossDims.slice(1), [T, S]);
  assert.match(await page.locator('.dec-shapes').innerText(), new RegExp(`${T}×${T}.*${T}×${S}`));

  // A Chinese date: recomputed, still the engine's.
  let n = await probes.renders();
  await page.locator('.dec-examples button', { hasText: '2021年3月3日' }).click();
  await probes.rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.cross.text === '2021年3月3日', null, { timeout: 20_000 });
  assert.equal((await checkCross(dates)).c.out, '2021-03-03');
  // Day/month/year: 04/03/21 is 4 March 2021.
  await page.locator('#dec-source').fill('04/03/21');
  await page.waitForFunction(() => window.tfpLearn.state.cross.text === '04/03/21', null, { timeout: 20_000 });
  assert.equal((await checkCross(dates)).c.out, '2021-03-04');
  // One head of layer 1 instead of the alignment.
  n = await probes.renders();
  await page.selectOption('#dec-map', '0,1');
  await probes.rendersAbove(n);
  assert.match(await page.locator('.dec-cross-view .heatmap').first().innerText(), /./);

  // numbers-transformer in the same figure.
  await page.locator('label[for="dec-model-numbers-transformer"]').click();
  await page.waitForFunction(() => window.tfpLearn.state.cross.model === 'numbers-transformer', null, { timeout: 30_000 });
  const num = await checkCross(numbers);
  assert.equal(num.c.out, '342005');
  assert.equal(await page.locator('.dec-examples').isVisible(), false, 'the date examples hide for numbers-transformer');
  await page.locator('figure.fig', { has: page.locator('.dec-cross-view') }).screenshot({ path: `${SHOTS}learn/decoder_numbers_figure.png` });
  await page.locator('label[for="dec-model-dates"]').click();
  await page.waitForFunction(() => window.tfpLearn.state.cross.model === 'dates', null, { timeout: 30_000 });
  await page.locator('#dec-source').fill('3 March 2021');
  await page.waitForFunction(() => window.tfpLearn.state.cross.text === '3 March 2021', null, { timeout: 20_000 });
  assert.deepEqual(site.problems, []);
});

test('chapter 9: the exercise reveals the engine\'s answer', { timeout: 60_000 }, async () => {
  await fresh();
  const ex = page.locator('.exercise[data-exercise="month-digit"]');
  // Choices: the parts of "3 March 2021": "3", "March", "2021".
  const labels = await ex.locator('label.choice').allInnerTexts();
  assert.equal(labels.length, 3);
  assert.match(labels[1], /March/);
  await ex.locator('label.choice').nth(1).click();
  await ex.locator('button[type="submit"]').click();
  await ex.locator('.verdict').waitFor({ timeout: 10_000 });
  const e = await probes.part('exercise');
  // Recompute the answer from Node's alignment: the argmax of row 6 (0-based) among the parts' columns.
  const r = nodeTranslate(dates, '3 March 2021');
  const [, S] = r.tensors.alignment.dims;
  const row = Array.from(r.tensors.alignment.data.slice(6 * S, 7 * S));
  sameArray(e.weights, row, 'exercise row');
  const inPart = (j) => e.parts.findIndex((p) => j >= p.begin && j < p.end);
  const order = row.map((w, j) => [w, j]).sort((x, y) => y[0] - x[0]);
  const best = order.find(([, j]) => inPart(j) >= 0);
  assert.equal(e.col, best[1]);
  assert.equal(e.correct, inPart(best[1]));
  assert.equal(e.correct, 1, 'the month digit looks at "March"');
  assert.equal(await ex.locator('.verdict').innerText() === 'Right.', e.correct === 1);
  assert.match(await ex.locator('.exercise-result').innerText(), /Row 7 of the alignment/);
  assert.deepEqual(site.problems, []);
});

test('chapter 9: the language switch rewrites the prose and keeps the inputs; 390 px; screenshots', { timeout: 90_000 }, async () => {
  await fresh();
  // B's sentence changed from its default (its start kept): the switch must keep it.
  const edited = 'The jury said the election was long';
  await page.locator('#dec-causal-b').fill(edited);
  await page.waitForFunction((t) => window.tfpLearn.state.causal.b.text === t && window.tfpLearn.state.causal.first > 0, edited, { timeout: 20_000 });
  await site.shot('learn/decoder_en_1280', { fullPage: true });
  const enFirst = await page.locator('.chapter-section').nth(1).innerText();
  const causal = await probes.part('causal');
  assert.equal(causal.b.text, edited);
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.querySelector('.chapter-section h2').textContent.includes('解码器'));
  const zhFirst = await page.locator('.chapter-section').nth(1).innerText();
  assert.notEqual(zhFirst, enFirst);
  assert.match(zhFirst, /因果掩码/);
  assert.equal((await probes.part('causal')).b.text, causal.b.text);
  assert.match(await page.locator('.dec-summary').innerText(), /逐比特相同/);
  assert.equal(await page.locator('.katex-error').count(), 0);
  await page.waitForTimeout(300);
  await site.shot('learn/decoder_zh_1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `sideways scroll at 390 px: ${overflow}`);
  await site.shot('learn/decoder_zh_390', { fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await page.waitForTimeout(300);
  await site.shot('learn/decoder_en_390', { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(300);
  await site.shot('learn/decoder_en_1280_dark', { fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(site.problems, []);
});
