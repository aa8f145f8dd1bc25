// Learn, chapter 1 (why attention), in Chromium:
//   - the timing figure fills in over T = 8 … 512; its sequential steps and multiply-adds
//     equal what tfp_learn_time_gru_attention returns in Node for the same d (the module
//     loaded as tests/js/tfp_module.mjs does) and an independent count (6·T·d² for the
//     GRU, 4·T·d² + 2·T²·d for attention; T steps vs 1); its times are positive with
//     min <= median <= max; the shown table and the "doubling" demo are those numbers
//     formatted (timings themselves have no oracle: they are the machine's);
//   - both translations and their attention maps equal tfp_model_translate in Node on
//     the same source (ids exact, maps bit for bit); every map row sums to 1 (1e-5);
//   - typing another source and picking another d recompute what is shown;
//   - the exercise reveals the engine's answer: the category of its own T = 256 timing;
//   - the language switch rewrites the prose and keeps the inputs; 390 px; dark theme.
// Each test opens the chapter afresh (fresh()) and makes the changes it checks itself: no
// test inherits another's inputs, language, theme or screen size.
// Screenshots: build/screenshots/learn/why_attention_{en,zh}_{1280,390}.png (+ _dark).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readShipped } from '../js/model_api.mjs';

const LENGTHS = [8, 16, 32, 64, 128, 256, 512];
let site, page, base, api, gru, transformer;
before(async () => {
  api = new ModelApi(await loadTfp());
  gru = api.load(readShipped('numbers-gru'), 'numbers-gru');
  transformer = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  site = await openSite({ name: 'learn_why_attention', contextOptions: { locale: 'en-US', colorScheme: 'light' } });
  ({ page, base } = site);
  await mkdir(`${SHOTS}learn`, { recursive: true });
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

/** tfp_learn_time_gru_attention in Node: rows of 10 doubles. */
function engineTiming(d, lengths, repeats = 1) {
  const m = api.m;
  const lp = api.put(Int32Array.from(lengths));
  const out = m._tfp_alloc(lengths.length * 10 * 8);
  try {
    api.check(m._tfp_learn_time_gru_attention(d, 4, lp, lengths.length, repeats, 1, out));
    const v = Array.from(new Float64Array(m.HEAPU8.buffer, out, lengths.length * 10));
    return lengths.map((_, i) => v.slice(i * 10, i * 10 + 10));
  } finally {
    m._tfp_free(out); m._tfp_free(lp);
  }
}

const state = () => page.evaluate(() => JSON.parse(JSON.stringify(window.tfpLearn.state, (k, v) =>
  (ArrayBuffer.isView(v) ? Array.from(v) : v))));
const waitState = (fn, arg, timeout = 60_000) => page.waitForFunction(fn, arg, { timeout });

/** The data table of figure `i` (opened): caption, header and body rows as text. */
async function figureTable(i) {
  const fig = page.locator('figure.fig').nth(i);
  const details = fig.locator('details.data-table').last();
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await details.locator('table').first().waitFor();
  return details.locator('table').first().evaluate((tb) => ({
    caption: tb.caption?.textContent ?? '',
    head: [...tb.tHead.rows[0].cells].map((c) => c.textContent),
    rows: [...tb.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)),
  }));
}

// The page's display formats (main.ts), to compare its tables with the engine's numbers.
const fmtMs = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const fmtInt = (v) => Math.round(v).toLocaleString('en');
const fmtRatio = (v) => (v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** The timing rows the page shows, against the engine in Node and the hand counts. */
async function checkTiming(d) {
  const s = await state();
  assert.equal(s.rowsD, d);
  assert.deepEqual(s.rows.map((r) => r.T), LENGTHS);
  const want = engineTiming(d, LENGTHS);
  s.rows.forEach((r, i) => {
    const T = r.T;
    // Counts: the engine in Node, and independently by hand.
    assert.deepEqual([r.gruSteps, r.attnSteps, r.gruMacs, r.attnMacs], want[i].slice(6, 10), `counts at T ${T}`);
    assert.deepEqual([r.gruSteps, r.attnSteps, r.gruMacs, r.attnMacs], [T, 1, 6 * T * d * d, 4 * T * d * d + 2 * T * T * d]);
    for (const [lo, mid, hi] of [[r.gruMinMs, r.gruMs, r.gruMaxMs], [r.attnMinMs, r.attnMs, r.attnMaxMs]]) {
      assert.ok(lo > 0 && Number.isFinite(hi), `times at T ${T}: ${lo} ${hi}`);
      assert.ok(lo <= mid && mid <= hi, `min <= median <= max at T ${T}: ${lo} ${mid} ${hi}`);
    }
  });
  // The figure's table: the same numbers formatted.
  const tb = await figureTable(0);
  assert.match(tb.caption, new RegExp(`d = ${d}\\b`));
  assert.deepEqual(tb.rows, s.rows.map((r) => [String(r.T), `${fmtMs(r.gruMs)} (${fmtMs(r.gruMinMs)}–${fmtMs(r.gruMaxMs)})`,
    `${fmtMs(r.attnMs)} (${fmtMs(r.attnMinMs)}–${fmtMs(r.attnMaxMs)})`, fmtRatio(r.gruMs / r.attnMs),
    fmtInt(r.gruSteps), fmtInt(r.attnSteps), fmtInt(r.gruMacs), fmtInt(r.attnMacs)]));
  // The chart: 7 points per series.
  assert.equal(await page.locator('figure.fig').first().locator('circle.chart-point').count(), 2 * LENGTHS.length);
  // The mistake's demo: each doubling's ratios, and the line under it for 256 → 512.
  const demo = await page.locator('.mistake .wa-doubling table').evaluate((t) => [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(demo, s.rows.slice(1).map((q, i) => {
    const p = s.rows[i];
    return [`${p.T} → ${q.T}`, fmtRatio(q.gruMacs / p.gruMacs), fmtRatio(q.gruMs / p.gruMs), fmtRatio(q.attnMacs / p.attnMacs), fmtRatio(q.attnMs / p.attnMs)];
  }));
  const a = s.rows[5], b = s.rows[6];
  const line = await page.locator('.mistake .prose').filter({ hasText: /grew ×/ }).innerText();
  assert.ok(line.includes(`×${fmtRatio(b.attnMacs / a.attnMacs)}`) && line.includes(`${fmtRatio(b.attnMacs / b.gruMacs)}×`), line);
  // The formula's readout: the counts at T = 512.
  assert.equal(await page.locator('.wa-work-readout span[data-sym="gruWork"]').innerText(), `GRU ${fmtInt(b.gruMacs)} in 512 sequential steps`);
  return s;
}

/** tfp_model_translate in Node: ids and the alignment map. */
function nodeTranslate(model, text) {
  const ids = api.tokenize(model, text).ids;
  const r = api.translate(model, ids);
  return { src: ids, ids: r.ids, alignment: r.tensors.alignment };
}

async function checkTranslations(text) {
  const s = await state();
  assert.equal(s.source, text);
  for (const [key, model] of [['gru', gru], ['transformer', transformer]]) {
    const shown = s[key];
    const want = nodeTranslate(model, text);
    assert.deepEqual(shown.ids, want.ids, `${key} ids`);
    assert.equal(shown.sourceTokens.length, want.src.length);
    assert.deepEqual(shown.alignment.dims, want.alignment.dims);
    assert.deepEqual(shown.alignment.data, Array.from(want.alignment.data), `${key} map, bit for bit`);
    const [rows, cols] = want.alignment.dims;
    assert.equal(rows, want.ids.length);
    assert.equal(cols, want.src.length);
    for (let i = 0; i < rows; i++) {
      let sum = 0;
      for (let j = 0; j < cols; j++) sum += want.alignment.data[i * cols + j];
      assert.ok(Math.abs(sum - 1) < 1e-5, `${key} row ${i} sums to ${sum}`);
    }
    const panel = page.locator(key === 'gru' ? '#wa-gru' : '#wa-transformer');
    assert.equal(await panel.locator('.wa-output').innerText(), `Output: ${shown.text}`);
  }
  // The bottleneck paragraph counts this source: S characters, S + T_out steps.
  const S = s.gru.sourceTokens.length, Tout = s.gru.ids.length;
  const para = await page.locator('.wa-bottleneck').innerText();
  assert.ok(para.includes(`needs ${S} sequential steps`) && para.includes(`${S + Tout} steps`), para);
  const tb = await figureTable(1);
  assert.deepEqual(tb.rows[0], ['numbers-gru', s.gru.text, String(S), String(S), String(S + Tout)]);
  assert.deepEqual(tb.rows[1].slice(0, 4), ['numbers-transformer', s.transformer.text, String(S), '2 layers']);
  return s;
}

const CHAPTER = () => `${base}/learn/why-attention.html?lang=en`;
/** The state each test starts from: chapter 1 loaded afresh in English at its defaults
 *  (a first timing sweep and translation done), 1280 × 720, light, nothing saved by an
 *  earlier test. */
async function fresh() {
  await freshPage(page, CHAPTER());
  await waitState(() => window.tfpLearn?.state.sweeps >= 1 && window.tfpLearn.state.translations >= 1);
}

test('chapter 1: timing and translations equal the engine; inputs recompute', { timeout: 150_000 }, async () => {
  await fresh();
  // Once the module is cached: reload and time the first figure (its first point).
  const t0 = Date.now();
  await page.reload();
  await page.waitForFunction(() => document.querySelector('figure.fig circle.chart-point'), null, { timeout: 30_000 });
  const firstMs = Date.now() - t0;
  console.log(`first figure point drawn ${firstMs} ms after a reload (module cached)`);
  await waitState(() => window.tfpLearn.state.sweeps >= 1 && window.tfpLearn.state.translations >= 1);

  const s0 = await checkTiming(64);
  console.log(`d = 64 medians (ms), T: GRU / attention: ${s0.rows.map((r) => `${r.T}: ${fmtMs(r.gruMs)} / ${fmtMs(r.attnMs)}`).join(', ')}`);
  await checkTranslations('three hundred and forty-two thousand five');
  assert.equal((await state()).gru.text, '342005');
  await page.locator('main').evaluate((e) => e.scrollIntoView());
  await site.shot('learn/why_attention_en_1280');
  await page.screenshot({ path: `${SHOTS}learn/why_attention_en_1280_full.png`, fullPage: true });

  // Another source: both translations and maps change, and still equal the engine's.
  const before = await state();
  await page.fill('#wa-source', 'nine hundred and one');
  await waitState((n) => window.tfpLearn.state.translations > n && window.tfpLearn.state.source === 'nine hundred and one', before.translations);
  const s1 = await checkTranslations('nine hundred and one');
  assert.equal(s1.transformer.text, '901');
  assert.notDeepEqual(s1.gru.alignment.dims, before.gru.alignment.dims);
  const href = await page.locator('a.playground-link').getAttribute('href');
  assert.match(href, /model=numbers-transformer/);
  assert.match(href, /text=nine\+hundred\+and\+one/);

  // Another width: a new sweep, counts for d = 32.
  await page.selectOption('#wa-width', '32');
  await waitState((n) => window.tfpLearn.state.sweeps > n && window.tfpLearn.state.rowsD === 32 && window.tfpLearn.state.measuring === null, s0.sweeps);
  const s2 = await checkTiming(32);
  assert.notDeepEqual(s2.rows.map((r) => r.gruMacs), s0.rows.map((r) => r.gruMacs));
  assert.deepEqual(site.problems, []);
});

test('chapter 1: the exercise reveals the engine\'s answer', { timeout: 120_000 }, async () => {
  await fresh();
  // The exercise asks about the width the reader picked: 32 here (the default is 64).
  const s0 = await state();
  await page.selectOption('#wa-width', '32');
  await waitState((n) => window.tfpLearn.state.sweeps > n && window.tfpLearn.state.rowsD === 32 && window.tfpLearn.state.measuring === null, s0.sweeps);
  const ex = page.locator('.exercise');
  assert.match(await ex.locator('.question').innerText(), /d=32 \(the width/);
  await ex.getByRole('radio').first().check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor({ timeout: 30_000 });
  const r = (await state()).exercise;
  assert.equal(r.T, 256);
  const want = engineTiming(32, [256])[0];
  assert.deepEqual([r.gruSteps, r.attnSteps, r.gruMacs, r.attnMacs], want.slice(6, 10));
  const ratio = r.gruMs / r.attnMs;
  const correct = ratio >= 1.5 ? 0 : ratio >= 1 ? 1 : ratio > 1 / 1.5 ? 2 : 3;
  const labels = await ex.locator('.choice').allInnerTexts();
  assert.equal(await ex.locator('.choice.is-answer').innerText(), labels[correct]);
  assert.equal(await ex.locator('.verdict').innerText(), correct === 0 ? 'Right.' : `Not quite: the engine says “${labels[correct].trim()}”.`);
  const text = await ex.locator('.exercise-result').innerText();
  assert.ok(text.includes(`GRU ${fmtMs(r.gruMs)} ms`) && text.includes(`attention ${fmtMs(r.attnMs)} ms`), text);
  assert.ok(text.includes("The GRU took 256 sequential steps, attention 1"), text);
  console.log(`exercise at T = 256, d = 32: GRU ${fmtMs(r.gruMs)} ms, attention ${fmtMs(r.attnMs)} ms`);
  assert.deepEqual(site.problems, []);
});

test('chapter 1: language switch, 390 px, dark theme', { timeout: 150_000 }, async () => {
  await fresh();
  // Another source and width than the defaults, their translations and sweep done: the
  // switch must keep them and recompute nothing.
  const s0 = await state();
  await page.fill('#wa-source', 'nine hundred and one');
  await waitState((n) => window.tfpLearn.state.translations > n && window.tfpLearn.state.source === 'nine hundred and one', s0.translations);
  await page.selectOption('#wa-width', '32');
  await waitState((n) => window.tfpLearn.state.sweeps > n && window.tfpLearn.state.rowsD === 32 && window.tfpLearn.state.measuring === null, s0.sweeps);
  const before = await state();
  assert.deepEqual([before.rowsD, before.source], [32, 'nine hundred and one']);
  const renders = await page.evaluate(() => window.tfpLearn.renders);
  const proseEn = await page.locator('.prose').first().innerText();
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  const proseZh = await page.locator('.prose').first().innerText();
  assert.notEqual(proseZh, proseEn);
  assert.match(proseZh, /循环神经网络/);
  assert.match(await page.locator('h2').first().innerText(), /一步/);
  // The inputs and the engine's numbers stay; nothing was recomputed.
  const after_ = await state();
  assert.deepEqual([after_.rowsD, after_.source, after_.rows], [before.rowsD, before.source, before.rows]);
  assert.equal(await page.evaluate(() => window.tfpLearn.renders), renders);
  assert.match((await figureTable(0)).caption, /单线程/);
  assert.match(await page.locator('.wa-bottleneck').innerText(), /瓶颈/);
  await page.locator('figure.fig').first().scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_zh_1280');
  await page.setViewportSize({ width: 390, height: 844 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 1, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `page wider than 390 px by ${overflow}`);
  await page.locator('figure.fig').first().scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_zh_390');
  await page.screenshot({ path: `${SHOTS}learn/why_attention_zh_390_full.png`, fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.locator('.prose').first().innerText(), proseEn);
  await page.locator('figure.fig').nth(1).scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_en_390');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('figure.fig').first().scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_en_1280_dark');
  await page.locator('figure.fig').nth(1).scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_en_1280_dark_models');
  assert.deepEqual(site.problems, []);
});
