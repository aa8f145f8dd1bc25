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
//   - the gradient figure: the lengths, gate factors and g^k reference the page shows equal
//     tfp_learn_gradient_steps in Node bit for bit, and independently the reference is g^k
//     (1e-12) and the tanh RNN's lengths stay under it (|tanh'| <= 1); its table, chart
//     axis (powers of 10) and summary line are those numbers; gain, cell and the GRU's
//     update-gate bias recompute it; its exercise reveals the engine's category;
//   - the order demo: both outputs equal the attention lab in Node bit for bit, and row i
//     of the reordered output is row perm[i] of the first (checked here); positions shown
//     from 1; typing and another reordering recompute;
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
const GRAD_FIG = 2;  // the figures in order: timing, translators, gradients (2), order (3)
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

/** tfp_learn_gradient_steps in Node (T = 100, H = 32, seed 1, as the page). */
const CELLS = { linear: 0, tanh: 1, gru: 2 };
function engineGradient(cell, gain, bias = 0) {
  const m = api.m, T = 100;
  const out = m._tfp_alloc(2 * T * 8);
  try {
    api.check(m._tfp_learn_gradient_steps(CELLS[cell], 32, T, gain, bias, 1, out, out + T * 8));
    const v = Array.from(new Float64Array(m.HEAPU8.buffer, out, 2 * T));
    return { norms: v.slice(0, T), gates: v.slice(T) };
  } finally {
    m._tfp_free(out);
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
  await waitState(() => window.tfpLearn?.state.sweeps >= 1 && window.tfpLearn.state.translations >= 1
    && window.tfpLearn.state.grad?.runs >= 1 && window.tfpLearn.state.order?.runs >= 1);
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
  const ex = page.locator('.exercise[data-exercise="t256"]');
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
  // The new sections in Chinese, their engine numbers kept.
  const h2 = await page.locator('h2').allInnerTexts();
  assert.ok(h2.includes('梯度穿过许多步') && h2.includes('注意力本身不管顺序'), h2.join(' | '));
  assert.deepEqual([after_.grad, after_.order], [before.grad, before.order]);
  assert.match(await page.locator('.wa-grad-line').innerText(), /这次运行（tanh RNN/);
  assert.match((await figureTable(GRAD_FIG)).caption, /梯度长度/);
  assert.match(await page.locator('figure.fig').nth(GRAD_FIG + 1).locator('.prose').innerText(), /最大的差是/);
  await showGradientFigure();
  await site.shot('learn/why_attention_gradients_zh_1280');
  await page.locator('figure.fig').first().scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_zh_1280');
  await page.setViewportSize({ width: 390, height: 844 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 1, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `page wider than 390 px by ${overflow}`);
  await page.locator('figure.fig').first().scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_zh_390');
  await showGradientFigure();
  await site.shot('learn/why_attention_gradients_zh_390');
  await page.screenshot({ path: `${SHOTS}learn/why_attention_zh_390_full.png`, fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.locator('.prose').first().innerText(), proseEn);
  await page.locator('figure.fig').nth(1).scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_en_390');
  await page.locator('figure.fig').nth(GRAD_FIG + 1).scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_order_en_390');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('figure.fig').first().scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_en_1280_dark');
  await page.locator('figure.fig').nth(1).scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_en_1280_dark_models');
  await showGradientFigure();
  await site.shot('learn/why_attention_gradients_en_1280_dark');
  assert.deepEqual(site.problems, []);
});

// ---- gradients through many steps ---------------------------------------------------------
// The page's length format (gradients.ts fmtLen), to compare its table and prose.
const SUP = { '-': '⁻', 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
const sup = (n) => String(n).replace(/./g, (c) => SUP[c] ?? c);
function fmtLen(v) {
  if (v === 0) return '0';
  if (v >= 1e-3 && v < 1e4) return String(Number(v.toPrecision(3)));
  const [m, e] = v.toExponential(2).split('e');
  return `${m} × 10${sup(Number(e))}`;
}

/** Scrolls the gradient figure's controls to the top of the window (for a screenshot). */
const showGradientFigure = () => page.locator('figure.fig').nth(GRAD_FIG).evaluate((f) => f.scrollIntoView());

/** What the gradient figure shows, against the engine in Node and an independent check. */
async function checkGradient(cell, gain, bias) {
  const g = (await state()).grad;
  const r = g.shown;
  assert.deepEqual([r.cell, r.gain, r.bias], [cell, gain, bias]);
  const want = engineGradient(cell, gain, bias), lin = engineGradient('linear', gain);
  assert.deepEqual(r.norms, want.norms, 'lengths, bit for bit');
  assert.deepEqual(r.gates, want.gates, 'gate factors, bit for bit');
  assert.deepEqual(r.linear, lin.norms, 'the no-tanh reference, bit for bit');
  // Independently: W_hh = g·Q with Q orthogonal keeps ‖(gQ)^k u‖ = g^k; tanh' <= 1 keeps
  // the tanh RNN under it; the gradient at h_T is the unit vector u.
  r.linear.forEach((v, k) => assert.ok(Math.abs(v / gain ** k - 1) < 1e-12, `g^k at k ${k}: ${v} vs ${gain ** k}`));
  assert.ok(Math.abs(r.norms[0] - 1) < 1e-12);
  if (cell === 'tanh') r.norms.forEach((v, k) => assert.ok(v <= gain ** k * (1 + 1e-12), `tanh under g^k at k ${k}`));
  r.gates.forEach((z) => assert.ok(z > 0 && z <= 1, `a gate factor in (0, 1]: ${z}`));
  // The table: every step, formatted.
  const tb = await figureTable(GRAD_FIG);
  assert.equal(tb.rows.length, 100);
  assert.deepEqual(tb.rows, r.norms.map((v, k) => [String(k), String(100 - k), fmtLen(v), fmtLen(r.linear[k]), r.gates[k].toFixed(3)]));
  assert.match(tb.caption, new RegExp(`g = ${gain.toFixed(2)}`));
  // The chart: two lines; the y ticks are whole powers of 10 spanning the data.
  const fig = page.locator('figure.fig').nth(GRAD_FIG);
  assert.equal(await fig.locator('svg path[stroke-width="2"]').count(), 2);
  const ticks = await fig.locator('svg g.axis').nth(1).locator('text').evaluateAll((ts) => ts.map((t) => t.textContent));
  const pow = ticks.filter(Boolean).map((t) => (t === '1' ? 0 : Number(t.replace(/^10/, '').replace(/./g, (c) => Object.keys(SUP).find((k) => SUP[k] === c) ?? c))));
  assert.ok(pow.length >= 2 && pow.every(Number.isInteger), `ticks ${ticks}`);
  // The axis spans the data: from the power of 10 below the smallest length to the one
  // above the largest (at least 4 of them); the ticks lie in it, evenly, the last at its top
  // and the first less than one spacing above its bottom.
  const logs = [...r.norms, ...r.linear].map(Math.log10);
  const hi = Math.ceil(Math.max(...logs) - 1e-9), lo = Math.min(Math.floor(Math.min(...logs) + 1e-9), hi - 4);
  const step = pow[1] - pow[0];
  assert.ok(pow.every((p, i) => p >= lo && p <= hi && (i === 0 || p - pow[i - 1] === step)), `ticks ${pow} in [${lo}, ${hi}]`);
  assert.ok(Math.max(...pow) === hi && Math.min(...pow) - lo < step, `ticks ${pow} reach [${lo}, ${hi}]`);
  // The line under it: the engine's lengths at 1, 10 and 99 steps, and the verdict of their ratio.
  const line = await fig.locator('.wa-grad-line').innerText();
  for (const k of [1, 10, 99]) assert.ok(line.includes(fmtLen(r.norms[k])), `${line} names ${fmtLen(r.norms[k])}`);
  const ratio = r.norms[99] / r.norms[0];
  assert.match(line, ratio < 0.01 ? /vanished/ : ratio > 100 ? /exploded/ : /within a factor of 100/);
  const meanGate = r.gates.reduce((a, b) => a + b, 0) / r.gates.length;
  assert.ok(line.includes(meanGate.toFixed(3)), line);
  return r;
}

test('chapter 1: gradients through many steps equal the engine; gain, cell and bias recompute', { timeout: 120_000 }, async () => {
  await fresh();
  await showGradientFigure();
  await site.shot('learn/why_attention_gradients_en_1280');
  const r0 = await checkGradient('tanh', 1, 0);
  console.log(`tanh RNN, g = 1: |grad| after 1, 10, 99 steps back: ${[1, 10, 99].map((k) => fmtLen(r0.norms[k])).join(', ')}`);
  assert.ok(await page.locator('#wa-bias').isDisabled(), 'the update-gate bias is the GRU\'s only');

  // A larger gain: a new run; at g = 2 the tanh RNN's gradient explodes (Node says so too).
  let runs = (await state()).grad.runs;
  await page.locator('#wa-gain').fill('2');
  await waitState((n) => window.tfpLearn.state.grad.runs > n && window.tfpLearn.state.grad.shown.gain === 2, runs);
  const r1 = await checkGradient('tanh', 2, 0);
  assert.ok(r1.norms[99] > 100, `g = 2 explodes: ${r1.norms[99]}`);
  assert.match(await page.locator('label[for="wa-gain"]').innerText(), /2\.00/);

  // The GRU, then its update-gate bias: z ≈ 1 keeps the gradient.
  runs = (await state()).grad.runs;
  await page.locator('label[for="wa-cell-gru"]').click();
  await waitState((n) => window.tfpLearn.state.grad.runs > n && window.tfpLearn.state.grad.shown.cell === 'gru', runs);
  await page.locator('#wa-gain').fill('1');
  await waitState(() => window.tfpLearn.state.grad.shown.gain === 1 && window.tfpLearn.state.grad.shown.cell === 'gru');
  const r2 = await checkGradient('gru', 1, 0);
  // The prose says: at gain 1 the GRU with its starting bias shrinks faster than the tanh RNN.
  assert.ok(r2.norms[99] < r0.norms[99], `GRU ${r2.norms[99]} vs tanh ${r0.norms[99]} at g = 1`);
  assert.ok(await page.locator('#wa-bias').isEnabled());
  runs = (await state()).grad.runs;
  await page.locator('#wa-bias').fill('4');
  await waitState((n) => window.tfpLearn.state.grad.runs > n && window.tfpLearn.state.grad.shown.bias === 4, runs);
  const r3 = await checkGradient('gru', 1, 4);
  assert.ok(r3.norms[60] > 100 * r2.norms[60], `bias 4 keeps the gradient: ${r3.norms[60]} vs ${r2.norms[60]}`);
  // The help text says bias 4 makes z ≈ σ(4) ≈ 0.98: the engine's mean gate, and σ(4) here.
  const z4 = r3.gates.reduce((a, b) => a + b, 0) / r3.gates.length;
  assert.ok(Math.abs(z4 - 1 / (1 + Math.exp(-4))) < 0.02, `mean z at bias 4: ${z4}`);
  assert.equal((1 / (1 + Math.exp(-4))).toFixed(2), '0.98');
  assert.match(await page.locator('.wa-grad-line').innerText(), /update gate/);
  assert.match((await figureTable(GRAD_FIG)).caption, /update-gate bias 4\.0/);
  assert.deepEqual(site.problems, []);
});

test('chapter 1: the gradient exercise reveals the engine\'s answer', { timeout: 90_000 }, async () => {
  await fresh();
  const ex = page.locator('.exercise[data-exercise="gradient60"]');
  assert.match(await ex.locator('.question').innerText(), /1\.2/);
  await ex.getByRole('radio').first().check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor({ timeout: 30_000 });
  const shown = (await state()).grad.exercise;
  const want = engineGradient('tanh', 1.2), lin = engineGradient('linear', 1.2);
  assert.deepEqual(shown.norms, want.norms);
  assert.deepEqual(shown.linear, lin.norms);
  const n60 = want.norms[60];
  assert.ok(n60 <= 1.2 ** 60, 'under the no-tanh bound');
  const correct = n60 >= 100 ? 0 : n60 >= 1 ? 1 : n60 > 0.01 ? 2 : 3;
  assert.equal(shown.correct, correct);
  const labels = await ex.locator('.choice').allInnerTexts();
  assert.equal(await ex.locator('.choice.is-answer').innerText(), labels[correct]);
  assert.equal(await ex.locator('.verdict').innerText(), correct === 0 ? 'Right.' : `Not quite: the engine says “${labels[correct].trim()}”.`);
  const text = await ex.locator('.exercise-result').innerText();
  assert.ok(text.includes(fmtLen(n60)) && text.includes(fmtLen(lin.norms[60])), text);
  console.log(`exercise: tanh RNN at g = 1.2, 60 steps back: ${fmtLen(n60)} (no tanh: ${fmtLen(lin.norms[60])})`);
  assert.deepEqual(site.problems, []);
});

// ---- attention ignores order -----------------------------------------------------------
/** What the order figure shows, against the attention lab in Node; the permutation checked here. */
async function checkOrder(tokens, reordered, perm) {
  const o = (await state()).order.shown;
  assert.deepEqual([o.tokens, o.reordered, o.perm], [tokens, reordered, perm]);
  const a = api.attention({ tokens, dModel: 8, heads: 2, seed: 1 });
  const b = api.attention({ tokens: reordered, dModel: 8, heads: 2, seed: 1 });
  assert.deepEqual(o.a, Array.from(a.out.data), 'first output, bit for bit');
  assert.deepEqual(o.b, Array.from(b.out.data), 'reordered output, bit for bit');
  // Attn(PX) = P Attn(X): row i of the reordered output is row perm[i] of the first, up to
  // float32 rounding (each weighted sum adds the same terms in another order: 1e-6 on
  // values of size 1 is a few ulps of each of the T terms).
  let diff = 0;
  perm.forEach((p, i) => { for (let c = 0; c < 8; c++) diff = Math.max(diff, Math.abs(o.b[i * 8 + c] - o.a[p * 8 + c])); });
  assert.ok(diff < 1e-6, `rows permuted: ${diff}`);
  assert.equal(o.maxDiff, diff);
  // And not a trivially equal pair: the two outputs differ row by row where words moved.
  assert.notDeepEqual(o.a, o.b);
  const fig = page.locator('figure.fig').nth(GRAD_FIG + 1);
  const heads = await fig.locator('.number-matrix').nth(1).locator('tbody th').allInnerTexts();
  assert.deepEqual(heads, reordered.map((t, i) => `${i + 1} ${t}`), 'rows numbered by position from 1');
  assert.match(await fig.locator('.number-matrix').first().locator('thead').innerText(), /dim 1\b[\s\S]*dim 8\b/);
  const line = await fig.locator('.prose').innerText();
  const diffText = diff === 0 ? '0' : `${fmtLen(diff)} — float rounding`;
  assert.ok(line.includes(`“${reordered.join(' ')}”`) && line.includes(`all ${tokens.length * 8} numbers is ${diffText}`), line);
}

test('chapter 1: attention without positions gives the same rows, permuted', { timeout: 90_000 }, async () => {
  await fresh();
  await checkOrder(['dog', 'bites', 'man'], ['man', 'bites', 'dog'], [2, 1, 0]);
  await page.locator('figure.fig').nth(GRAD_FIG + 1).scrollIntoViewIfNeeded();
  await site.shot('learn/why_attention_order_en_1280');
  let runs = (await state()).order.runs;
  await page.fill('#wa-order-words', 'the cat sat on a mat');
  await waitState((n) => window.tfpLearn.state.order.runs > n && window.tfpLearn.state.order.shown.tokens.length === 6, runs);
  await checkOrder(['the', 'cat', 'sat', 'on', 'a', 'mat'], ['mat', 'a', 'on', 'sat', 'cat', 'the'], [5, 4, 3, 2, 1, 0]);
  runs = (await state()).order.runs;
  await page.locator('label[for="wa-reorder-rotate"]').click();
  await waitState((n) => window.tfpLearn.state.order.runs > n, runs);
  await checkOrder(['the', 'cat', 'sat', 'on', 'a', 'mat'], ['cat', 'sat', 'on', 'a', 'mat', 'the'], [1, 2, 3, 4, 5, 0]);
  // The table alternative: both outputs.
  const tb = await figureTable(GRAD_FIG + 1);
  assert.equal(tb.rows.length, 6);
  assert.equal(tb.rows[0][0], '1 the');
  // Forward to chapter 7.
  assert.equal(await page.locator('a[href="positions.html"]').count(), 1);
  assert.deepEqual(site.problems, []);
});
