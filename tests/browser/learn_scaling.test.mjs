// Learn, chapter 5 (why divide by √d_k), in Chromium:
//   - the first figure is drawn; its statistics are bit-equal to what the engine's C API
//     returns for the same inputs (the module loaded in Node: tests/js/tfp_module.mjs), the
//     shown table equals them formatted, and they agree with the theory the prose derives
//     (independent oracle: Var(q·k) = d_k unscaled and 1 divided by √d_k, within 12% at
//     8000 scores, where the relative SD is ≈ 1.7%);
//   - the sample row equals tfp_learn_scaling_row, its weights a double softmax of its
//     scores (1e-6);
//   - changing d_k, the keys, the sample and the seed changes what is shown, and the
//     same seed gives the same numbers again;
//   - the exercise reveals the engine's answer; the ÷d_k demo shows variance ≈ 1/d_k;
//   - the language switch rewrites the prose and keeps the inputs; 390 px; dark theme.
// Each test opens the chapter afresh (fresh()): no test inherits another's inputs,
// language, theme or screen size.
// Screenshots: build/screenshots/learn/scaling_{en,zh}_{1280,390}.png (+ _dark).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { loadTfp, Api } from '../js/tfp_module.mjs';

let site, page, base, api;
before(async () => {
  api = new Api(await loadTfp());
  site = await openSite({ name: 'learn_scaling', contextOptions: { locale: 'en-US', colorScheme: 'light' } });
  ({ page, base } = site);
  await mkdir(`${SHOTS}learn`, { recursive: true });
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const SCALINGS = ['none', 'sqrt', 'dk'];

/** tfp_learn_scaling_stats in Node: (n_dk, 3, 4) floats. */
function engineStats(dks, n, samples, seed) {
  const m = api.m;
  const d = api.put(Int32Array.from(dks));
  const out = m._tfp_alloc(dks.length * 12 * 4);
  try {
    api.check(m._tfp_learn_scaling_stats(d, dks.length, n, samples, seed >>> 0, out));
    return Array.from(new Float32Array(m.HEAPU8.buffer, out, dks.length * 12));
  } finally {
    m._tfp_free(out); m._tfp_free(d);
  }
}

/** tfp_learn_scaling_row in Node: scores (3, n) and probs (3, n). */
function engineRow(dK, n, sample, seed) {
  const m = api.m;
  const out = m._tfp_alloc(6 * n * 4);
  try {
    api.check(m._tfp_learn_scaling_row(dK, n, sample, seed >>> 0, out, out + 3 * n * 4));
    const all = Array.from(new Float32Array(m.HEAPU8.buffer, out, 6 * n));
    return { scores: all.slice(0, 3 * n), probs: all.slice(3 * n) };
  } finally {
    m._tfp_free(out);
  }
}

const softmaxD = (s) => {
  const mx = Math.max(...s);
  const e = s.map((v) => Math.exp(v - mx));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
};

const state = () => page.evaluate(() => JSON.parse(JSON.stringify(window.tfpLearn.state, (k, v) =>
  (ArrayBuffer.isView(v) ? Array.from(v) : v))));
const renders = () => page.evaluate(() => window.tfpLearn.renders);
async function rendersAbove(n) {
  await page.waitForFunction((k) => window.tfpLearn.renders > k, n, { timeout: 30_000 });
  await page.waitForTimeout(50);
}
/** The number matrix whose caption starts with `prefix`: rows of its cells' values. */
const matrix = (prefix) => page.evaluate((p) => {
  const m = [...document.querySelectorAll('.number-matrix')].find((e) => e.querySelector('caption')?.textContent.startsWith(p));
  if (!m) return null;
  return [...m.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)));
}, prefix);
/** The data table of figure `i` (opened): header and body rows as text. */
async function figureTable(i) {
  const fig = page.locator('figure.fig').nth(i);
  const details = fig.locator('details.data-table');
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await fig.locator('details.data-table table').waitFor();
  return fig.locator('details.data-table table').evaluate((tb) => ({
    caption: tb.caption?.textContent ?? '',
    head: [...tb.tHead.rows[0].cells].map((c) => c.textContent),
    rows: [...tb.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)),
  }));
}

const fmtVar = (v) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : v.toPrecision(4));
const fmtP = (v) => v.toFixed(3);

/** Checks everything the page shows against the engine in Node and the theory. */
async function checkAgainstEngine() {
  const s = await state();
  const { dK, nKeys, samples, seed, sample } = s.inputs;
  assert.deepEqual(s.stats.dks, s.dks);
  assert.ok(s.dks.includes(dK), `the reader's d_k ${dK} is among ${s.dks}`);
  const want = engineStats(s.dks, nKeys, samples, seed);
  assert.deepEqual(s.stats.raw, want, 'page statistics = tfp_learn_scaling_stats in Node, bit for bit');
  // Theory (the prose's derivation): Var = d_k unscaled, 1 scaled, 1/d_k for ÷d_k.
  const N = samples * nKeys;
  s.dks.forEach((d, i) => {
    const v = (c) => want[(i * 3 + c) * 4 + 1];
    const tol = 7 * Math.sqrt(2.4 / N);  // relative, > 5 SD (kurtosis ≤ 3.24, shared q)
    assert.ok(Math.abs(v(0) / d - 1) < tol, `Var unscaled at d_k ${d}: ${v(0)}`);
    assert.ok(Math.abs(v(1) - 1) < tol, `Var ÷√d_k at d_k ${d}: ${v(1)}`);
    assert.ok(Math.abs(v(2) * d - 1) < tol, `Var ÷d_k at d_k ${d}: ${v(2)}`);
  });
  // The shown table: the same numbers, formatted.
  const tb = await figureTable(0);
  assert.equal(tb.rows.length, s.dks.length);
  tb.rows.forEach((r, i) => {
    const w = (c, k) => want[(i * 3 + c) * 4 + k];
    assert.deepEqual(r, [s.dks[i] === dK ? `★ ${dK}` : String(s.dks[i]), fmtVar(w(0, 1)), fmtVar(w(1, 1)),
      fmtP(w(0, 2)), fmtP(w(1, 2)), fmtP(w(0, 3)), fmtP(w(1, 3))]);
  });
  // The sample row: the engine's, and a softmax of its own scores.
  const row = engineRow(dK, nKeys, sample, seed);
  assert.deepEqual(s.row.scores, row.scores);
  assert.deepEqual(s.row.probs, row.probs);
  const scores = await matrix('Scores');
  const probs = await matrix('Softmax weights');
  assert.deepEqual(scores, [row.scores.slice(0, nKeys), row.scores.slice(nKeys, 2 * nKeys)]);
  assert.deepEqual(probs, [row.probs.slice(0, nKeys), row.probs.slice(nKeys, 2 * nKeys)]);
  for (let c = 0; c < 3; c++) {
    const p = softmaxD(row.scores.slice(c * nKeys, (c + 1) * nKeys));
    p.forEach((v, j) => assert.ok(Math.abs(v - row.probs[c * nKeys + j]) < 1e-6, `p[${c}][${j}]`));
  }
  // The mistake demo: ÷d_k row of the table at the reader's d_k.
  const i = s.dks.indexOf(dK);
  const demo = await page.locator('.mistake .scaling-demo-table table').evaluate((tb) => [...tb.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent)));
  SCALINGS.forEach((_, c) => {
    assert.equal(demo[c][1], fmtVar(want[(i * 3 + c) * 4 + 1]));
    assert.equal(demo[c][3], fmtP(want[(i * 3 + c) * 4 + 2]));
  });
  return { s, want };
}

async function setField(selector, value) {
  const n = await renders();
  await page.fill(selector, String(value));
  await page.press(selector, 'Enter');
  await rendersAbove(n);
}

const CHAPTER = () => `${base}/learn/scaling.html?lang=en`;
/** The state each test starts from: the chapter loaded afresh in English at its defaults
 *  (drawn, the noise band's 20 repeats done), 1280 × 720, light, nothing saved by an earlier test. */
async function fresh() {
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.renders > 0 && window.tfpLearn.state?.noise, null, { timeout: 90_000 });
}

test('chapter 5: the figures equal the engine and the theory; every input recomputes', { timeout: 120_000 }, async () => {
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.renders > 0, null, { timeout: 60_000 });
  // Once the module is cached: reload and time the first figure.
  const t0 = Date.now();
  await page.reload();
  await page.waitForFunction(() => window.tfpLearn?.renders > 0, null, { timeout: 30_000 });
  const firstMs = Date.now() - t0;
  console.log(`first figure drawn ${firstMs} ms after a reload (module cached)`);
  const { s: s0, want: w0 } = await checkAgainstEngine();
  assert.deepEqual(s0.inputs, { dK: 64, nKeys: 8, samples: 1000, seed: 1, sample: 0 });
  await page.locator('main').evaluate((e) => e.scrollIntoView());
  await site.shot('learn/scaling_en_1280');
  await page.screenshot({ path: `${SHOTS}learn/scaling_en_1280_full.png`, fullPage: true });

  // The reader's own d_k joins the list; the shown intermediates change.
  const rowBefore = await matrix('Scores');
  await setField('#scaling-dk', 300);
  const { s: s1 } = await checkAgainstEngine();
  assert.equal(s1.inputs.dK, 300);
  assert.ok(s1.dks.includes(300));
  assert.notDeepEqual(await matrix('Scores'), rowBefore);
  assert.match(await page.locator('.katex').filter({ hasText: 'softmax' }).first().innerText(), /300/);

  // Keys per row: 4 columns.
  let n = await renders();
  await page.selectOption('#scaling-keys', '4');
  await rendersAbove(n);
  const { s: s2 } = await checkAgainstEngine();
  assert.equal((await matrix('Scores'))[0].length, 4);
  assert.notDeepEqual(s2.stats.raw, s1.stats.raw);

  // Another sample changes the row, not the statistics.
  n = await renders();
  await page.click('#scaling-another');
  await rendersAbove(n);
  const { s: s3 } = await checkAgainstEngine();
  assert.equal(s3.inputs.sample, 1);
  assert.deepEqual(s3.stats.raw, s2.stats.raw);
  assert.notDeepEqual(s3.row.scores, s2.row.scores);

  // A new seed changes everything; the old seed gives the same numbers back.
  await setField('#scaling-seed', 7);
  const { s: s4 } = await checkAgainstEngine();
  assert.notDeepEqual(s4.stats.raw, s3.stats.raw);
  await setField('#scaling-seed', 1);
  const { s: s5 } = await checkAgainstEngine();
  assert.deepEqual(s5.stats.raw, s3.stats.raw);

  // Back to the defaults: the first numbers again.
  n = await renders();
  await page.selectOption('#scaling-keys', '8');
  await rendersAbove(n);
  await setField('#scaling-dk', 64);
  await setField('#scaling-sample', 0);
  const s6 = await state();
  assert.deepEqual(s6.stats.raw.slice(0, 12 * s0.dks.length), w0.slice(0, 12 * s0.dks.length));

  // The logarithmic slider by keyboard: one step is ×2^0.25, 64 → round(2^6.25) = 76.
  n = await renders();
  await page.focus('#scaling-dk-slider');
  await page.keyboard.press('ArrowRight');
  await rendersAbove(n);
  const { s: s7 } = await checkAgainstEngine();
  assert.equal(s7.inputs.dK, 76);
  assert.equal(await page.inputValue('#scaling-dk'), '76');
  assert.equal(await page.getAttribute('#scaling-dk-slider', 'aria-valuetext'), 'd_k = 76');
  assert.deepEqual(site.problems, []);
});

test('chapter 5: the noise band is the spread of 20 repeats of the experiment with other seeds, from the engine', { timeout: 120_000 }, async () => {
  await fresh();
  const s = await state();
  const { nKeys, samples, seed } = s.inputs;
  assert.deepEqual(s.noise.seeds, Array.from({ length: 20 }, (_, i) => seed + 1 + i));
  const runs = s.noise.seeds.map((x) => engineStats(s.noise.dks, nKeys, samples, x));
  s.noise.dks.forEach((d, i) => {
    for (const [c, key] of [[0, 'none'], [1, 'sqrt']]) {
      const v = runs.map((w) => w[(i * 3 + c) * 4 + 1]).sort((a, b) => a - b);
      assert.deepEqual(s.noise[key][i], [v[1], v[18]], `${key} band at d_k ${d}`);
      // The main run's variance is one more draw of the same experiment: inside or near the band.
      const main = s.stats.raw[(i * 3 + c) * 4 + 1];
      const width = v[18] - v[1];
      assert.ok(main > v[1] - width && main < v[18] + width, `${key} at d_k ${d}: ${main} vs band ${v[1]}..${v[18]}`);
    }
  });
  assert.equal(await page.locator('.line-chart .chart-band').count(), 2, 'two bands on the variance chart');
  const at = s.noise.dks.indexOf(s.inputs.dK);
  assert.match(await page.locator('#scaling-noise').innerText(), new RegExp(`^Sampling noise at your d_k = ${s.inputs.dK}: 20 repeats`));
  assert.ok(at >= 0);
  assert.match(await page.locator('figcaption', { hasText: 'sampling noise' }).first().innerText(), /20 other seeds/);
});

test('chapter 5: the exercise reveals the engine\'s answer', { timeout: 120_000 }, async () => {
  await fresh();
  const ex = page.locator('.exercise[data-exercise="max-weight-512"]');
  await ex.getByRole('radio').first().check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  const s = await state();
  const [w] = [engineStats([512], 8, s.inputs.samples, s.inputs.seed)];
  const unscaled = w[2], scaled = w[4 + 2];
  const choices = [0.125, 0.35, 0.6, 0.95];
  const correct = choices.reduce((best, c, i) => (Math.abs(c - unscaled) < Math.abs(choices[best] - unscaled) ? i : best), 0);
  assert.equal(s.exercise.correct, correct);
  assert.equal(s.exercise.unscaled, unscaled);
  const text = await ex.locator('.exercise-result').innerText();
  assert.ok(text.includes(fmtP(unscaled)) && text.includes(fmtP(scaled)), text);
  const labels = await ex.locator('.choice').allInnerTexts();
  assert.equal(await ex.locator('.choice.is-answer').innerText(), labels[correct]);
  assert.equal(await ex.locator('.verdict').innerText(), correct === 0 ? 'Right.' : `Not quite: the engine says “${labels[correct].trim()}”.`);
  assert.ok(unscaled > 0.9, `max p at d_k 512 unscaled: ${unscaled}`);
  assert.deepEqual(site.problems, []);
});

test('chapter 5: language switch, 390 px, dark theme', { timeout: 120_000 }, async () => {
  await fresh();
  const before = await state();
  const renderCount = await renders();
  const proseEn = await page.locator('.prose').first().innerText();
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  const proseZh = await page.locator('.prose').first().innerText();
  assert.notEqual(proseZh, proseEn);
  assert.match(proseZh, /注意力/);
  assert.match(await page.locator('h2').first().innerText(), /维度/);
  // The inputs and the engine's numbers stay; nothing was recomputed.
  assert.deepEqual((await state()).inputs, before.inputs);
  assert.equal(await renders(), renderCount);
  const tb = await figureTable(0);
  assert.match(tb.caption, /引擎的统计结果/);
  await site.shot('learn/scaling_zh_1280');
  await page.setViewportSize({ width: 390, height: 844 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 1, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `page wider than 390 px by ${overflow}`);
  await page.locator('figure.fig').first().scrollIntoViewIfNeeded();
  await site.shot('learn/scaling_zh_390');
  await page.screenshot({ path: `${SHOTS}learn/scaling_zh_390_full.png`, fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  assert.equal(await page.locator('.prose').first().innerText(), proseEn);
  await page.locator('figure.fig').first().scrollIntoViewIfNeeded();
  await site.shot('learn/scaling_en_390');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.locator('figure.fig').nth(1).scrollIntoViewIfNeeded();
  await site.shot('learn/scaling_en_1280_dark');
  await checkAgainstEngine();
  assert.deepEqual(site.problems, []);
});

test('chapter 5: the qualitative question — from d_k 16 to 512 the unscaled row goes one-hot, the scaled one stays (the engine\'s experiment)', { timeout: 120_000 }, async () => {
  await fresh();
  const ex = page.locator('.exercise[data-exercise="max-weight-growth"]');
  await ex.getByRole('radio', { name: 'Both climb toward 1' }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  const s = await state();
  const w = engineStats([16, 512], s.inputs.nKeys, s.inputs.samples, s.inputs.seed);
  assert.deepEqual(s.growth.raw, [w[2], w[12 + 2]]);
  assert.deepEqual(s.growth.scaled, [w[4 + 2], w[12 + 4 + 2]]);
  assert.ok(w[14] - w[2] > 0.05 && Math.abs(w[18] - w[6]) <= 0.05, `raw ${w[2]} → ${w[14]}, scaled ${w[6]} → ${w[18]}`);
  assert.equal(s.growth.correct, 0);
  assert.match(await ex.locator('.verdict').innerText(), /^Not quite: the engine says “Unscaled it climbs toward 1/);
  assert.ok((await ex.locator('.exercise-result').innerText()).includes(w[14].toFixed(3)));
  assert.deepEqual(site.problems, []);
});
