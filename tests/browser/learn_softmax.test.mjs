// Learn, chapter 4 (softmax), in Chromium:
//   - the first figure is drawn, its numbers equal what the engine's C API returns for the
//     same inputs (the module loaded in Node: tests/js/tfp_module.mjs) and an independent
//     double-precision softmax (1e-6);
//   - editing a score, masking keys, moving the temperature change the shown steps;
//   - large scores: the naive formula gives ∞/NaN, the engine's softmax stays finite and
//     equal to the double reference; a fully masked row gives 0s (sum 0), naive NaN;
//   - the exercise reveals the engine's answer; the "score 0 is not a mask" demo;
//   - entropy: the first figure's H equals the engine's head statistics in Node and a
//     double-precision −Σ p ln p (1e-6); a one-key row has H = 0, a uniform row of 4 ln 4;
//   - masking before the softmax against zeroing after it on the causal matrix: the rows
//     equal tfp_learn_softmax_row in Node; the zeroed rows sum to Σ_{j<=i} p_j < 1; the
//     renormalised ones equal masking before within 1e-6 (the page's count of float32
//     differences recomputed here); a visible key swamped by key 4 = 200 gives 0/0 = NaN;
//   - a finite mask value: −1e4 fills a fully masked row uniformly (Σ 1, H = ln 4), −∞ and
//     −1e9 in float16 (stored −∞) give the engine's 0s; −1e4 is −10000 in float16 and −9984
//     in bfloat16; −30 leaks about 1e-14 in float32 and 0 once held in float16; every row
//     equals the engine in Node on the stored values; a typed −65504 stays finite in float16,
//     −65520 becomes −∞;
//   - the f16/bf16 rounding (float16.mjs): every finite f16 and bf16 value maps to itself,
//     every midpoint to its even neighbour, ±1/8 ulp off a midpoint to the nearer one;
//     65520 → ∞ in f16;
//   - the language switch rewrites the prose and keeps the inputs; 390 px.
// Each test opens the chapter afresh (fresh()) and makes the changes it checks itself: no
// test inherits another's scores, masks, language or screen size.
// Screenshots: build/screenshots/learn/softmax_{en,zh}_{1280,390}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { loadTfp, Api } from '../js/tfp_module.mjs';
import { withParams } from '../../web/src/engine/params.mjs';
import { roundTo16, decode16 } from '../../web/src/learn/chapters/softmax/float16.mjs';

let site, page, base, api;
before(async () => {
  api = new Api(await loadTfp());
  site = await openSite({ name: 'learn_softmax' });
  ({ page, base } = site);
  await mkdir(`${SHOTS}learn`, { recursive: true });
});
after(async () => { await site?.close(); });

/** tfp_learn_softmax_row in Node: the engine's answer for the same inputs. */
function engineRow(scores, masked, tau, variant) {
  const m = api.m, n = scores.length;
  const s = api.put(Float32Array.from(scores));
  const k = api.put(Uint8Array.from(masked));
  const out = m._tfp_alloc((3 * n + 5) * 4);
  try {
    api.check(withParams(m, 'tfp_learn_softmax_params', { scores: s, n, temperature: tau, masked: k, variant: variant === 'naive' ? 1 : 0 },
      (p) => m._tfp_learn_softmax_row(p, out, out + 4 * n, out + 8 * n, out + 12 * n)));
    const f = (off, len) => Array.from(new Float32Array(m.HEAPU8.buffer, out + off * 4, len));
    const st = f(3 * n, 5);
    return { logits: f(0, n), exps: f(n, n), probs: f(2 * n, n), shift: st[0], sumExps: st[1], sumProbs: st[2], maxProb: st[3], argmax: st[4] };
  } finally {
    m._tfp_free(out); m._tfp_free(k); m._tfp_free(s);
  }
}

/** Softmax in double from the inputs: the independent oracle (masked keys -> 0; all masked -> 0s). */
function softmaxD(scores, masked, tau) {
  const z = scores.map((x, j) => (masked[j] ? -Infinity : Math.fround(x) / tau));
  const m = Math.max(...z);
  if (m === -Infinity) return z.map(() => 0);
  const e = z.map((v) => Math.exp(v - m));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

const state = () => page.evaluate(() => JSON.parse(JSON.stringify(window.tfpLearn.state, (k, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))));
const num = (v) => (typeof v === 'string' ? Number(v) : v);  // "Infinity", "NaN" back to numbers
const renders = () => page.evaluate(() => window.tfpLearn.renders);
async function rendersAbove(n) {
  await page.waitForFunction((k) => window.tfpLearn.renders > k, n, { timeout: 30_000 });
  await page.waitForTimeout(50);
}
/** The matrix whose caption starts with `prefix`: rows of its cells' values. */
const matrix = (prefix) => page.evaluate((p) => {
  const m = [...document.querySelectorAll('.number-matrix')].find((e) => e.querySelector('caption')?.textContent.startsWith(p));
  if (!m) return null;
  return [...m.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)));
}, prefix);
const texts = (prefix) => page.evaluate((p) => {
  const m = [...document.querySelectorAll('.number-matrix')].find((e) => e.querySelector('caption')?.textContent.startsWith(p));
  return [...m.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent));
}, prefix);

function same(got, want, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  got.forEach((v, j) => assert.ok(Object.is(num(v), want[j]) || num(v) === want[j], `${what}[${j}] = ${v}, engine ${want[j]}`));
}
function near(got, want, tol, what) {
  got.forEach((v, j) => assert.ok(Math.abs(num(v) - want[j]) <= tol, `${what}[${j}] = ${v}, want ${want[j]} (±${tol})`));
}

/** Checks the first figure against the engine in Node and the double oracle. */
async function checkMain() {
  const s = await state();
  const want = engineRow(s.scores, s.masked, s.tau, 'stable');
  const shown = await matrix('The engine');
  same(shown[0], want.logits, 'z');
  same(shown[1], want.exps, 'exp(z - m)');
  same(shown[2], want.probs, 'p');
  same(s.main.probs, want.probs, 'state p');
  near(shown[2], softmaxD(s.scores, s.masked, s.tau), 1e-6, 'p vs double');
  const sums = await page.locator('.fig').first().locator('.softmax-sums').innerText();
  if (s.masked.every((m) => m === 1)) assert.match(sums, /Every key is masked/);
  else assert.match(sums, new RegExp(`Σ p = ${want.sumProbs.toFixed(7)}`));
  return { s, want };
}

const CHAPTER = () => `${base}/learn/softmax.html?lang=en`;
/** The state each test starts from: chapter 4 loaded afresh in English at its defaults and
 *  drawn, 1280 × 720, light, nothing saved by an earlier test. */
async function fresh() {
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.renders > 0, null, { timeout: 30_000 });
}

test('chapter 4: the first figure equals the engine and a double softmax; editing recomputes', { timeout: 90_000 }, async () => {
  const t0 = Date.now();
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.renders > 0, null, { timeout: 30_000 });
  console.log(`first figure drawn ${Date.now() - t0} ms after navigation (module not cached)`);
  const { s } = await checkMain();
  assert.deepEqual(s.scores.map(Math.fround), [2, 1, 0.1, -1].map(Math.fround));
  const before0 = await matrix('The engine');

  // Edit a score by typing.
  let n = await renders();
  const cell = page.getByRole('textbox', { name: /^Scores x .*: x, key 2$/ });
  await cell.fill('3');
  await cell.press('Enter');
  await rendersAbove(n);
  const after1 = await matrix('The engine');
  assert.notDeepEqual(after1, before0);
  const { s: s1 } = await checkMain();
  assert.equal(s1.scores[1], 3);
  assert.equal(s1.main.argmax, 1);

  // Mask key 1: weight exactly 0, the rest renormalised.
  n = await renders();
  await page.getByRole('checkbox', { name: 'mask key 1' }).check();
  await rendersAbove(n);
  const { s: s2 } = await checkMain();
  assert.equal(s2.main.probs[0], 0);
  assert.equal(num(s2.main.logits[0]), -Infinity);
  assert.equal((await texts('The engine'))[0][0], '−∞');

  // Temperature: ArrowLeft from τ = 1 five steps to 0.5.
  n = await renders();
  const slider = page.getByRole('slider');
  await slider.focus();
  for (let i = 0; i < 5; i++) await slider.press('ArrowLeft');
  await page.waitForFunction(() => window.tfpLearn.state.tau === 0.5);
  await rendersAbove(n);
  await checkMain();
  assert.match(await page.locator('.softmax-tau').innerText(), /τ = 0\.5/);
  // The temperature sweep is the engine's too: its τ = 0.5 row equals the single row.
  const s3 = await state();
  const i05 = s3.sweep.taus.findIndex((v) => Math.abs(v - 0.5) < 1e-6);
  same(s3.sweep.probs.slice(i05 * 4, i05 * 4 + 4), engineRow(s3.scores, s3.masked, 0.5, 'stable').probs, 'sweep at 0.5');

  // Every key masked: the engine writes 0s (sum 0).
  n = await renders();
  for (const k of [2, 3, 4]) await page.getByRole('checkbox', { name: `mask key ${k}` }).check();
  await page.waitForFunction(() => window.tfpLearn.state.masked.every((m) => m === 1));
  await rendersAbove(n);
  const { s: s4 } = await checkMain();
  assert.deepEqual(s4.main.probs, [0, 0, 0, 0]);
  assert.equal(s4.main.sumProbs, 0);
  for (const k of [1, 2, 3, 4]) await page.getByRole('checkbox', { name: `mask key ${k}` }).uncheck();
  await page.waitForFunction(() => window.tfpLearn.state.masked.every((m) => m === 0));
  await page.waitForTimeout(200);
  await checkMain();

  // A fifth key (score 0), then back to four.
  n = await renders();
  await page.getByRole('button', { name: 'Add a key' }).click();
  await rendersAbove(n);
  const { s: s5 } = await checkMain();
  assert.equal(s5.scores.length, 5);
  assert.equal((await matrix('The engine'))[2].length, 5);
  n = await renders();
  await page.getByRole('button', { name: 'Remove a key' }).click();
  await rendersAbove(n);
  assert.equal((await checkMain()).s.scores.length, 4);

  // Once the module is cached (this page loaded it): the page draws again after a reload. The
  // time is printed, not asserted (bench/learn_first_figure.mjs measures it).
  const t1 = Date.now();
  await page.reload();
  await page.waitForFunction(() => window.tfpLearn?.renders > 0, null, { timeout: 30_000 });
  const cached = Date.now() - t1;
  console.log(`first figure drawn ${cached} ms after a reload (module cached)`);
  assert.deepEqual(site.problems, []);
});

test('chapter 4: large scores: the naive formula overflows, the engine\'s softmax does not', { timeout: 60_000 }, async () => {
  await fresh();
  const n = await renders();
  await page.getByRole('button', { name: 'c = 1000' }).click();
  await rendersAbove(n);
  const s = await state();
  assert.equal(s.offset, 1000);
  const shifted = s.scores.map((x) => x + 1000);
  const naive = engineRow(shifted, s.masked, s.tau, 'naive'), stable = engineRow(shifted, s.masked, s.tau, 'stable');
  const [nz, ne, np] = await matrix('Naive');
  const [sz, se, sp] = await matrix('Engine');
  same(nz, naive.logits, 'naive z');
  same(ne, naive.exps, 'naive exp');
  ne.forEach((v) => assert.equal(v, Infinity));
  np.forEach((v) => assert.ok(Number.isNaN(v)));
  assert.deepEqual((await texts('Naive'))[2], ['NaN', 'NaN', 'NaN', 'NaN']);
  assert.match(await page.locator('.softmax-side.naive .softmax-note').innerText(), /overflowed/);
  same(sz, stable.logits, 'stable z');
  same(se, stable.exps, 'stable exp');
  same(sp, stable.probs, 'stable p');
  near(sp, softmaxD(shifted, s.masked, s.tau), 1e-6, 'stable p vs double at 1000');
  // softmax(x + c) = softmax(x), up to the rounding of x + 1000 in float32 (6e-5 · 2 = 1.2e-4 in z).
  near(sp, s.main.probs, 2e-4, 'shifted vs unshifted');
  // Very negative scores: every naive exp rounds to 0 and 0/0 = NaN; the engine's is fine.
  const n1 = await renders();
  await page.getByRole('button', { name: 'c = −200' }).click();
  await rendersAbove(n1);
  const low = s.scores.map((x) => x - 200);
  const lowNaive = engineRow(low, s.masked, s.tau, 'naive');
  same((await matrix('Naive'))[1], lowNaive.exps, 'naive exp at c = -200');
  (await matrix('Naive'))[2].forEach((v) => assert.ok(Number.isNaN(v)));
  assert.match(await page.locator('.softmax-side.naive .softmax-note').innerText(), /rounded to 0/);
  same((await matrix('Engine'))[2], engineRow(low, s.masked, s.tau, 'stable').probs, 'stable p at c = -200');
  const n2 = await renders();
  await page.getByRole('button', { name: 'c = 0', exact: true }).click();
  await rendersAbove(n2);
  assert.equal(await page.locator('.softmax-side.naive .softmax-note').innerText(), '');
  same((await matrix('Naive'))[2], engineRow(s.scores, s.masked, s.tau, 'naive').probs, 'naive p at c = 0');

  // The fully masked row (figure 3): engine 0s, naive NaN.
  const [eng, nai] = await matrix('A fully masked row');
  assert.deepEqual(eng, [0, 0, 0, 0]);
  nai.forEach((v) => assert.ok(Number.isNaN(v)));
  assert.match(await page.locator('.fig').nth(2).locator('.softmax-sums').innerText(), /engine: Σ p = 0 · naive: Σ p = NaN/);
  // The link into the playground carries the model, text, layer, head and view.
  const href = await page.getByRole('link', { name: /Open brown-gpt’s attention matrix/ }).getAttribute('href');
  const q = new URL(href, base).searchParams;
  assert.deepEqual([q.get('model'), q.get('layer'), q.get('head'), q.get('view')], ['brown-gpt', '1', '1', 'matrix']);
  assert.match(q.get('text'), /jury/);
  assert.deepEqual(site.problems, []);
});

test('chapter 4: the exercise reveals the engine\'s answer; score 0 is not a mask', { timeout: 60_000 }, async () => {
  await fresh();
  const ex = page.locator('.exercise[data-exercise="temperature"]');
  await ex.getByRole('radio', { name: 'About 0.86' }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  assert.equal(await ex.locator('.verdict').innerText(), 'Right.');
  const want = engineRow([2, 1, 0.1], [0, 0, 0], 0.5, 'stable');
  assert.match(await ex.locator('.exercise-result').innerText(), new RegExp(want.maxProb.toFixed(4).replace('.', '\\.')));
  assert.equal(await ex.locator('.choice.is-answer').innerText(), 'About 0.86');

  // The mistake box: key 4 hidden with −∞ gets 0, with a score of 0 it keeps weight.
  const s = await state();
  const k = s.hideKey;
  const inf = engineRow(s.scores, s.masked.map((m, j) => (j === k ? 1 : m)), s.tau, 'stable');
  const zero = engineRow(s.scores.map((x, j) => (j === k ? 0 : x)), s.masked.map((m, j) => (j === k ? 0 : m)), s.tau, 'stable');
  same(s.hideInf.probs, inf.probs, 'hidden with -inf');
  same(s.hideZero.probs, zero.probs, 'score set to 0');
  assert.equal(inf.probs[k], 0);
  assert.ok(zero.probs[k] > 0, `score 0 keeps weight ${zero.probs[k]}`);
  assert.match(await page.locator('.mistake').first().innerText(), new RegExp(`still gets ${zero.probs[k].toFixed(4)}`));
  assert.deepEqual(site.problems, []);
});

/** tfp_attention_head_stats in Node: the entropy (nats) of each row of `rows` (as heads of (R, 1, N)). */
function engineEntropy(rows) {
  const m = api.m, R = rows.length, N = rows[0].length;
  const p = api.put(Float32Array.from(rows.flat())), out = m._tfp_alloc(R * 16);
  try {
    api.check(m._tfp_attention_head_stats(p, R, 1, N, out));
    return Array.from({ length: R }, (_, i) => new Float32Array(m.HEAPU8.buffer, out + i * 16, 1)[0]);
  } finally {
    m._tfp_free(out); m._tfp_free(p);
  }
}
const entropyD = (row) => row.reduce((h, p) => (p > 0 ? h - p * Math.log(p) : h), 0);
const causalRow = (N, i) => Array.from({ length: N }, (_, j) => (j > i ? 1 : 0));

test('chapter 4: float16.mjs rounds to f16 and bf16 to nearest, ties to even', () => {
  for (const fmt of ['f16', 'bf16']) {
    const top = fmt === 'f16' ? 0x7c00 : 0x7f80;  // +∞'s pattern: every finite positive below it
    let prev = null;
    for (let b = 0; b < top; b++) {
      const v = decode16(b, fmt);
      assert.equal(roundTo16(v, fmt), v, `${fmt} ${b}`);
      assert.equal(roundTo16(-v, fmt), -v);
      if (prev !== null) {
        const mid = (prev + v) / 2, q = (v - prev) / 8;
        assert.equal(roundTo16(mid, fmt), (b - 1) % 2 === 0 ? prev : v, `${fmt} midpoint below ${b}: ties to even`);
        assert.equal(roundTo16(mid - q, fmt), prev);
        assert.equal(roundTo16(mid + q, fmt), v);
      }
      prev = v;
    }
  }
  assert.equal(roundTo16(65504, 'f16'), 65504);
  assert.equal(roundTo16(65519.99, 'f16'), 65504);
  assert.equal(roundTo16(65520, 'f16'), Infinity);   // the tie above 65504 goes to "even" 2^16 = ∞
  assert.equal(roundTo16(-1e9, 'f16'), -Infinity);
  assert.equal(roundTo16(-1e4, 'f16'), -10000);
  assert.equal(roundTo16(-1e4, 'bf16'), -9984);      // 64 apart there: 156 · 64
  assert.equal(roundTo16(-9998, 'f16'), -10000);     // 8 apart: 1250 · 8
  assert.equal(roundTo16(0.1, 'f16'), 0.0999755859375);
  assert.equal(roundTo16(2 ** -25, 'f16'), 0);        // the tie with the smallest subnormal goes to 0 (even)
  assert.equal(roundTo16(1.27e-14, 'f16'), 0);
  assert.ok(Object.is(roundTo16(-0, 'f16'), -0));
  assert.ok(Number.isNaN(roundTo16(NaN, 'bf16')));
});

test('chapter 4: entropy, masking before vs zeroing after, a finite mask value in 32 and 16 bits', { timeout: 90_000 }, async () => {
  await fresh();
  let s = await state();
  const N = s.scores.length;
  assert.equal(s.tau, 1);
  // Entropy of the first figure's row: the engine's head statistics, a double −Σ p ln p.
  const [hEngine] = engineEntropy([s.main.probs]);
  assert.equal(s.mainH, hEngine);
  assert.ok(Math.abs(s.mainH - entropyD(s.main.probs)) < 1e-6, `H ${s.mainH} vs double ${entropyD(s.main.probs)}`);
  const sums = await page.locator('.fig').first().locator('.softmax-sums').innerText();
  assert.match(sums, new RegExp(`H = ${s.mainH.toFixed(4)} nats \\(at most ln k = 1\\.3863`));

  // Before vs after on the causal matrix.
  const full = engineRow(s.scores, s.scores.map(() => 0), s.tau, 'stable');
  let diffs = 0;
  for (let i = 0; i < N; i++) {
    const want = engineRow(s.scores, causalRow(N, i), s.tau, 'stable');
    same(s.after.before[i], want.probs, `masked before, query ${i + 1}`);
    assert.equal(s.after.beforeSums[i], want.sumProbs);
    same(s.after.zeroed[i], full.probs.map((p, j) => (j > i ? 0 : p)), `zeroed after, query ${i + 1}`);
    const kept = full.probs.slice(0, i + 1).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(s.after.zeroedSums[i] - kept) < 1e-6, `query ${i + 1} keeps ${s.after.zeroedSums[i]} vs ${kept}`);
    if (i < N - 1) assert.ok(s.after.zeroedSums[i] < 0.99, `query ${i + 1}: zeroed row sums below 1`);
    near(s.after.renorm[i], want.probs, 1e-6, `renormalised = masked before, query ${i + 1}`);
    s.after.renorm[i].forEach((p, j) => { if (p !== want.probs[j]) diffs++; });
    assert.ok(Math.abs(s.after.renormSums[i] - 1) < 1e-6);
  }
  assert.equal(s.after.diffs, diffs, 'the count of float32 differences');
  console.log(`renormalised vs masked before: ${diffs} of ${N * N} weights differ, by at most ${s.after.maxDiff}`);
  assert.equal(s.after.beforeH[0], 0, 'query 1 sees one key: H = 0');
  assert.deepEqual(s.after.beforeH, engineEntropy(s.after.before));
  assert.deepEqual(s.after.zeroedH, engineEntropy(s.after.zeroed));
  near(s.after.beforeH, s.after.before.map(entropyD), 1e-6, 'H vs double');
  const shownBefore = await matrix('Masked before the softmax');
  assert.equal(shownBefore.length, N);
  assert.equal(shownBefore[0].length, N + 2);
  same(shownBefore[1].slice(0, N), s.after.before[1].map(Math.fround), 'shown row 2');
  assert.equal(shownBefore[1][N], Math.fround(s.after.beforeSums[1]));
  assert.match(await page.locator('.fig').nth(3).locator('.softmax-sums').innerText(), new RegExp(`query 1 keeps Σ p = ${s.after.zeroedSums[0].toFixed(7)}`));

  // Key 4 = 200: query 1's kept weight underflows to 0, renormalising gives 0/0.
  let n = await renders();
  const cell = page.getByRole('textbox', { name: /^Scores x .*: x, key 4$/ });
  await cell.fill('200');
  await cell.press('Enter');
  await rendersAbove(n);
  s = await state();
  assert.equal(s.after.zeroedSums[0], 0);
  assert.ok(Number.isNaN(num(s.after.renorm[0][0])), 'renormalised 0/0 is NaN');
  assert.equal(s.after.before[0][0], 1, 'masking before is unharmed');
  n = await renders();
  await cell.fill('-1');
  await cell.press('Enter');
  await rendersAbove(n);

  // A finite mask value: −1e4 in float32 by default.
  const finiteCheck = async (value, dtype) => {
    await page.waitForFunction(([v, d]) => window.tfpLearn.state.finite?.dtype === d && String(window.tfpLearn.state.finite.value) === v,
      [String(value), dtype], { timeout: 20_000 });
    await page.waitForTimeout(50);
    const f = (await state()).finite;
    f.stored.forEach((r, i) => {
      const want = engineRow(r.map(num), r.map(() => 0), 1, 'stable');
      same(f.probs[i], want.probs, `${value} ${dtype} row ${i + 1}`);
      assert.equal(f.sums[i], want.sumProbs);
    });
    return f;
  };
  let f = await finiteCheck(-1e4, 'f32');
  assert.equal(f.storedValue, -10000);
  assert.deepEqual(f.probs[N], [0.25, 0.25, 0.25, 0.25], 'fully masked with −1e4: uniform');
  assert.equal(f.sums[N], 1);
  assert.ok(Math.abs(f.H[N] - Math.log(4)) < 1e-6, `H of the uniform row ${f.H[N]} = ln 4`);
  assert.equal(f.leak, 0, 'exp(−1e4 − m) is 0 in float32');
  assert.match(await page.locator('.fig').nth(4).locator('.softmax-sums').innerText(), /uniform: 0\.2500 per key, Σ p = 1\.0000000, H = 1\.3863/);
  await page.locator('label[for="softmax-mv-__"]').click();
  f = await finiteCheck(-Infinity, 'f32');
  assert.deepEqual(f.probs[N], [0, 0, 0, 0], '−∞: the engine gives 0s');
  assert.equal(f.sums[N], 0);
  await page.locator('label[for="softmax-mv-_1e9"]').click();
  await page.locator('label[for="softmax-dt-f16"]').click();
  f = await finiteCheck(-1e9, 'f16');
  assert.equal(num(f.storedValue), -Infinity, '−1e9 overflows float16');
  assert.deepEqual(f.probs[N], [0, 0, 0, 0]);
  assert.equal(f.stored[2][2], 0.0999755859375, '0.1 held in float16');
  assert.match(await page.locator('.fig').nth(4).locator('.softmax-sums').innerText(), /−1e9 in float16 is stored as −∞/);
  await page.locator('label[for="softmax-mv-_1e4"]').click();
  f = await finiteCheck(-1e4, 'f16');
  assert.equal(f.storedValue, -10000);
  assert.equal(f.sums[N], 1);
  await page.locator('label[for="softmax-dt-bf16"]').click();
  f = await finiteCheck(-1e4, 'bf16');
  assert.equal(f.storedValue, -9984);
  assert.deepEqual(f.probs[N], [0.25, 0.25, 0.25, 0.25]);
  // −30 leaks e^(−30 − 2)/(1 + …) ≈ 1.3e-14 in float32; held in float16 that is 0.
  await page.locator('label[for="softmax-mv-_30"]').click();
  await page.locator('label[for="softmax-dt-f16"]').click();
  f = await finiteCheck(-30, 'f16');
  assert.ok(f.leak > 1e-14 && f.leak < 2e-14, `leak ${f.leak}`);
  assert.equal(f.leakDtype, 0);
  await page.locator('label[for="softmax-mv-_5"]').click();
  f = await finiteCheck(-5, 'f16');
  assert.ok(f.leak > 9e-4 && f.leak < 1e-3, `−5 leaks ${f.leak}`);  // e^−7 / (1 + 3e^−7)
  const fig = page.locator('.fig').nth(4);
  await fig.screenshot({ path: `${SHOTS}learn/softmax_finite_en_light.png` });
  await page.emulateMedia({ colorScheme: 'dark' });
  await fig.screenshot({ path: `${SHOTS}learn/softmax_finite_en_dark.png` });
  await page.locator('.fig').nth(3).screenshot({ path: `${SHOTS}learn/softmax_after_en_dark.png` });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.locator('.fig').nth(3).screenshot({ path: `${SHOTS}learn/softmax_after_en_light.png` });
  // A typed value: float16's largest finite number still fits, the next tie goes to −∞.
  await page.locator('#softmax-mv-typed').fill('-65504');
  await page.locator('#softmax-mv-typed').press('Enter');
  f = await finiteCheck(-65504, 'f16');
  assert.equal(f.storedValue, -65504);
  assert.equal(f.sums[N], 1, 'still finite: a uniform row');
  await page.locator('#softmax-mv-typed').fill('-65520');
  await page.locator('#softmax-mv-typed').press('Enter');
  f = await finiteCheck(-65520, 'f16');
  assert.equal(num(f.storedValue), -Infinity, '−65520 rounds to −∞ in float16 (the tie goes to the even 2^16)');
  assert.equal(f.sums[N], 0);
  assert.equal(await page.locator('input[name="softmax-mv"]:checked').count(), 0, 'no preset is checked');
  await page.locator('label[for="softmax-mv-_1e4"]').click();
  assert.equal(await page.locator('#softmax-mv-typed').inputValue(), '');
  await page.locator('label[for="softmax-dt-f32"]').click();
  await finiteCheck(-1e4, 'f32');
  assert.deepEqual(site.problems, []);
});

test('chapter 4: the language switch rewrites the prose and keeps the inputs; 390 px; screenshots', { timeout: 60_000 }, async () => {
  await fresh();
  // A score other than the default: the switch must keep it.
  const n = await renders();
  const cell = page.getByRole('textbox', { name: /^Scores x .*: x, key 2$/ });
  await cell.fill('3');
  await cell.press('Enter');
  await rendersAbove(n);
  assert.equal(await page.locator('.katex-error').count(), 0, 'every formula renders');
  await site.shot('learn/softmax_en_1280', { fullPage: true });
  const enFirst = await page.locator('.chapter-section').first().innerText();
  const scores = (await state()).scores;
  assert.equal(scores[1], 3);
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.querySelector('.chapter-section h2').textContent.includes('从分数到权重'));
  const zhFirst = await page.locator('.chapter-section').first().innerText();
  assert.notEqual(zhFirst, enFirst);
  assert.match(zhFirst, /查询/);
  assert.deepEqual((await state()).scores, scores);
  assert.match(await page.locator('.exercise h3').first().innerText(), /先预测/);
  assert.equal(await page.locator('.katex-error').count(), 0, 'every formula renders (zh-CN)');
  await site.shot('learn/softmax_zh_1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `sideways scroll at 390 px: ${overflow}`);
  await site.shot('learn/softmax_zh_390', { fullPage: true });
  assert.match(await page.locator('.fig').nth(4).innerText(), /全部掩蔽/);
  await page.locator('.fig').nth(3).screenshot({ path: `${SHOTS}learn/softmax_after_zh_390.png` });
  await page.locator('.fig').nth(4).screenshot({ path: `${SHOTS}learn/softmax_finite_zh_390.png` });
  await page.selectOption('#lang-select', 'en');
  await page.waitForTimeout(200);
  await site.shot('learn/softmax_en_390', { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(site.problems, []);
});

test('chapter 4: the temperature question is qualitative — τ = 4 flattens the reader\'s row and never changes its largest key (engine rows, entropy in double)', { timeout: 60_000 }, async () => {
  await fresh();
  const ex = page.locator('.exercise[data-exercise="temperature-sharpness"]');
  const H = (p) => -p.reduce((s, x) => s + (x > 0 ? x * Math.log(x) : 0), 0);
  const ask = async (pick) => {
    await ex.getByRole('radio', { name: pick }).check();
    await ex.getByRole('button', { name: 'Check' }).click();
    await ex.locator('.verdict').waitFor();
    return (await state()).sharpness;
  };
  assert.match(await ex.locator('.question').innerText(), /\[2, 1, 0\.1, −1\]/);
  let s = await ask('It gets sharper (its entropy falls)');
  assert.match(await ex.locator('.verdict').innerText(), /^Not quite: the engine says “It gets flatter \(its entropy rises\), and the same key/);
  const cur = await state();
  const one = engineRow(cur.scores, cur.masked, 1, 'stable'), four = engineRow(cur.scores, cur.masked, 4, 'stable');
  assert.ok(Math.abs(s.h1 - H(one.probs)) < 1e-5 && Math.abs(s.h4 - H(four.probs)) < 1e-5, `${s.h1} ${s.h4}`);
  assert.ok(s.h4 > s.h1);
  assert.equal(s.correct, 0);
  // Mask the largest key: the question follows the inputs, key 2 is now the largest at both temperatures.
  await page.getByRole('checkbox', { name: 'mask key 1' }).check();
  await page.waitForFunction(() => document.querySelector('[data-exercise="temperature-sharpness"] .exercise-result')?.textContent.includes('changed'));
  s = await ask('It gets flatter, and another key takes the largest weight');
  assert.equal(s.correct, 0);
  assert.deepEqual([s.argmax1, s.argmax4], [1, 1]);
  assert.match(await ex.locator('.exercise-result').innerText(), /key 2’s/);
  assert.deepEqual(site.problems, []);
});
