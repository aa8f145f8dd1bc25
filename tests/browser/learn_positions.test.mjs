// Learn, chapter 7 (positional encoding), in Chromium:
//   - figure 1: the two attention outputs equal the engine's in Node (the attention lab,
//     tfp_attn_lab_*, no positions) for the reader's words and the shuffle the page shows;
//     row i of the shuffled output equals row perm[i] of the first (written here); new
//     words give new outputs;
//   - the sinusoidal tables, dot products and the rotation equal tfp_learn_sinusoidal_table
//     / tfp_learn_sinusoidal_shift in Node and the closed form written here (sin in 2i,
//     cos in 2i+1; halves: sines then cosines); moving the d_model slider redraws;
//   - brown-gpt's cosine matrix equals tfp_learn_position_similarity in Node and cosines
//     of its wpe rows written here;
//   - relative buckets and biases equal tfp_learn_relative_bias in Node; switching to T5
//     changes them;
//   - RoPE's rotated q, k and score equal tfp_learn_rope_score in Node; the shifted score
//     equals the unshifted one; the exercise reveals the engine's answer ("yes");
//   - ALiBi slopes for 6 heads equal the hand values (Press et al. for non-powers of two);
//     its exercise reveals head 5 (index 4, slope 1/2) as the steepest, heads labelled from 1;
//   - tensor2tensor's timing signal equals tfp_learn_sinusoidal_table layout 2 and the
//     closed form 10000^(−i/(n−1)) written here; only pair 0 shares the paper's frequency;
//   - the language switch rewrites the prose and keeps the inputs; 390 px without sideways
//     scrolling; no console error.
// Each test opens the chapter afresh (fresh()) and makes the changes it checks itself: no
// test inherits another's inputs, language or screen size.
// Screenshots: build/screenshots/learn/positions_{en,zh}_{1280,390}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { learnProbes, sameArray } from './learn_harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readShipped } from '../js/model_api.mjs';
import { withParams } from '../../web/src/engine/params.mjs';

let renders, rendersAbove, part, matrix;
let site, page, base, api, brown;
before(async () => {
  api = new ModelApi(await loadTfp());
  brown = api.load(readShipped('brown-gpt'), 'brown-gpt');
  site = await openSite({ name: 'learn_positions' });
  ({ page, base } = site);
  ({ renders, rendersAbove, part, matrix } = learnProbes(page));
  await mkdir(`${SHOTS}learn`, { recursive: true });
}, { timeout: 180_000 });
after(async () => {
  if (brown) api.free(brown);
  await site?.close();
});

/** Calls fn(ptrs...) with zeroed float buffers of the given lengths; returns their contents. */
function floatsOut(sizes, fn, bytes = 4) {
  const m = api.m;
  const ptrs = sizes.map((n) => m._tfp_alloc(Math.max(n * bytes, 1)));
  try {
    api.check(fn(...ptrs));
    return ptrs.map((p, i) => Array.from(bytes === 4 ? new Float32Array(m.HEAPU8.buffer, p, sizes[i]) : new Float64Array(m.HEAPU8.buffer, p, sizes[i])));
  } finally {
    ptrs.forEach((p) => m._tfp_free(p));
  }
}
const f32 = (a) => Float32Array.from(a);

const CHAPTER = () => `${base}/learn/positions.html?lang=en`;
/** The state each test starts from: the chapter loaded afresh in English at its defaults
 *  (the order figure and brown-gpt's learned positions drawn), 1280 × 720, light, nothing
 *  saved by an earlier test. */
async function fresh() {
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.order && window.tfpLearn.state.learned, null, { timeout: 60_000 });
}

test('chapter 7, figure 1: two orders, permuted copies of the same rows (engine\'s numbers)', { timeout: 90_000 }, async () => {
  const t0 = Date.now();
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.order, null, { timeout: 30_000 });
  console.log(`first figure drawn ${Date.now() - t0} ms after navigation (module not cached)`);
  await page.waitForFunction(() => window.tfpLearn.state.learned, null, { timeout: 60_000 });
  const t1 = Date.now();
  await page.reload();
  await page.waitForFunction(() => window.tfpLearn?.state?.order, null, { timeout: 30_000 });
  const cached = Date.now() - t1;
  console.log(`first figure drawn ${cached} ms after navigation (module cached)`);
  const check = async () => {
    const o = await part('order');
    const a = api.attention({ tokens: o.tokens, dModel: 8, heads: 2, seed: 1 });
    const b = api.attention({ tokens: o.shuffled, dModel: 8, heads: 2, seed: 1 });
    sameArray(o.a.data, Array.from(a.out.data), 'output A');
    sameArray(o.b.data, Array.from(b.out.data), 'output B');
    sameArray((await matrix('Output, your order')).flat(), Array.from(a.out.data), 'shown A');
    sameArray((await matrix('Output, shuffled')).flat(), Array.from(b.out.data), 'shown B');
    assert.deepEqual(o.shuffled, o.perm.map((i) => o.tokens[i]));
    assert.ok(o.perm.some((v, i) => v !== i), 'the shuffle moves something');
    o.perm.forEach((pi, i) => sameArray(Array.from(b.out.data.slice(i * 8, i * 8 + 8)), Array.from(a.out.data.slice(pi * 8, pi * 8 + 8)), `row ${i} = row ${pi}`, 1e-5));
    return o;
  };
  const o1 = await check();
  assert.deepEqual(o1.tokens, ['dog', 'bites', 'man', 'in', 'the', 'park']);
  assert.match(await page.locator('.pos-order .prose').first().innerText(), /largest difference is/);
  const n = await renders();
  await page.locator('#pos-words').fill('one two three four');
  await rendersAbove(n);
  const o2 = await check();
  assert.deepEqual(o2.tokens, ['one', 'two', 'three', 'four']);
  // With the causal mask: the engine's causal outputs; a row stays only where its word
  // sees the same words before it in both orders; the largest difference is not rounding.
  await page.locator('#pos-causal').check();
  await page.waitForFunction(() => window.tfpLearn.state.order?.causal === true, null, { timeout: 30_000 });
  const o3 = await part('order');
  const a = api.attention({ tokens: o3.tokens, dModel: 8, heads: 2, seed: 1, causal: true });
  const b = api.attention({ tokens: o3.shuffled, dModel: 8, heads: 2, seed: 1, causal: true });
  sameArray(o3.a.data, Array.from(a.out.data), 'causal output A');
  sameArray(o3.b.data, Array.from(b.out.data), 'causal output B');
  let worst = 0;
  o3.perm.forEach((pi, i) => {
    const d = Math.max(...Array.from({ length: 8 }, (_, c) => Math.abs(b.out.data[i * 8 + c] - a.out.data[pi * 8 + c])));
    worst = Math.max(worst, d);
    const sameBefore = i === pi && o3.perm.slice(0, i + 1).every((x) => x <= i);
    if (sameBefore) assert.ok(d <= 1e-5, `row ${i} sees the same words: unchanged`);
  });
  assert.ok(worst > 1e-3, `the causal mask breaks the permutation: ${worst}`);
  assert.ok(Math.abs(o3.maxDiff - worst) <= 1e-6 * Math.max(1, worst));
  assert.match(await page.locator('.pos-order .prose:not([hidden])').first().innerText(), /with the causal mask/);
  await page.locator('#pos-causal').uncheck();
  await page.waitForFunction(() => window.tfpLearn.state.order?.causal === false, null, { timeout: 30_000 });
  assert.deepEqual(site.problems, []);
});

/** Hugging Face's T5 _relative_position_bucket, written here from its source (float32 steps). */
function t5Bucket(d, bidirectional, N, D) {
  let ret = 0, n = N, a;
  if (bidirectional) { n = N / 2; if (d > 0) ret += n; a = Math.abs(d); } else a = Math.max(-d, 0);
  const e = n / 2;
  if (a < e) return ret + a;
  const f = Math.fround, scaled = f(f(f(Math.log(f(a / e))) / f(Math.log(D / e))) * (n - e));
  return ret + Math.min(e + Math.trunc(scaled), n - 1);
}

test('chapter 7: T5\'s bucket rule, spelled out; the engine\'s buckets at T5\'s sizes equal Hugging Face\'s rule', { timeout: 60_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn?.state?.t5Buckets, null, { timeout: 60_000 });
  const t = await part('t5Buckets');
  t.offsets.forEach((d, i) => {
    assert.equal(t.bi[i], t5Bucket(d, true, 32, 128), `bidirectional, offset ${d}`);
    assert.equal(t.causal[i], t5Bucket(d, false, 32, 128), `causal, offset ${d}`);
  });
  // Landmarks of the rule: exact below 8 in each half, log-spaced after; future keys share bucket 0 (causal).
  assert.deepEqual([t.bi[t.offsets.indexOf(7)], t.bi[t.offsets.indexOf(-7)], t.bi[t.offsets.indexOf(8)], t.bi[t.offsets.indexOf(63)]],
                   [16 + 7, 7, 16 + 8, 16 + t5Bucket(63, true, 32, 128) - 16]);
  assert.equal(t.causal[t.offsets.indexOf(63)], 0);
  assert.equal(t.causal[t.offsets.indexOf(-63)], t5Bucket(-63, false, 32, 128));
  assert.ok(t.bi[t.offsets.indexOf(63)] < 31, 'below the max distance: not yet the last bucket');
  assert.match(await page.locator('.chapter-section', { hasText: "T5's bucket rule" }).innerText(), /_relative_position_bucket/);
  assert.match(await page.locator('table', { hasText: 'Offset j − i' }).innerText(), /max distance 128/);
  assert.deepEqual(site.problems, []);
});

test('chapter 7, sinusoidal: tables, dot products and the rotation are the engine\'s (and the closed form)', { timeout: 60_000 }, async () => {
  await fresh();
  const check = async () => {
    const s = await part('sin');
    const [T, C] = [s.T, s.C];
    const [ti, di] = floatsOut([T * C, T * T], (o, d) => api.m._tfp_learn_sinusoidal_table(T, C, 0, o, d));
    const [th, dh] = floatsOut([T * C, T * T], (o, d) => api.m._tfp_learn_sinusoidal_table(T, C, 1, o, d));
    sameArray(s.inter.data, ti, 'interleaved table');
    sameArray(s.halves.data, th, 'halves table');
    for (const p of [0, 1, T - 1])
      for (let i = 0; i < C / 2; i++) {
        const w = Math.pow(10000, -2 * i / C);
        assert.ok(Math.abs(s.inter.data[p * C + 2 * i] - Math.sin(p * w)) < 1e-6);
        assert.ok(Math.abs(s.inter.data[p * C + 2 * i + 1] - Math.cos(p * w)) < 1e-6);
        assert.ok(Math.abs(s.halves.data[p * C + i] - Math.sin(p * w)) < 1e-6);
        assert.ok(Math.abs(s.halves.data[p * C + C / 2 + i] - Math.cos(p * w)) < 1e-6);
      }
    const d = await part('dots');
    sameArray(d.inter, di.slice(d.p * T, d.p * T + T), 'dots interleaved');
    sameArray(d.halves, dh.slice(d.p * T, d.p * T + T), 'dots halves');
    const mk = await part('mistake');
    sameArray((await matrix('PE(')).flat(), [...ti.slice(mk.p * C, mk.p * C + C), ...th.slice(mk.p * C, mk.p * C + C)], 'mistake rows shown');
    assert.ok(mk.same < C, 'the layouts differ');
    return s;
  };
  const s1 = await check();
  assert.deepEqual([s1.T, s1.C], [50, 64]);
  assert.equal(await page.locator('.pos-two .heatmap').count() >= 2, true);
  // Rotation: the engine's M·PE(p) equals its own PE(p + k).
  const r = await part('rotation');
  const [out] = floatsOut([10], (o) => api.m._tfp_learn_sinusoidal_shift(r.C, r.pair, r.p, r.k, o), 8);
  sameArray([r.shift.omega, r.shift.angle, ...r.shift.matrix, ...r.shift.pe, ...r.shift.rotated], out, 'shift');
  sameArray(r.shift.rotated, r.target, 'M·PE(p) = PE(p+k)', 1e-6);
  assert.match(await page.locator('.fig', { hasText: 'as a rotation' }).locator('.formula').innerText(), /0\.1000|θ/);
  // d_model 32 through the slider: the engine's new table.
  const n = await renders();
  await page.locator('#pos-sin-C').fill('32');
  await rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.sin.C === 32);
  await check();
  assert.deepEqual(site.problems, []);
});

test('chapter 7, tensor2tensor: its own frequencies (the engine\'s and the closed form), not the paper\'s rearranged', { timeout: 60_000 }, async () => {
  await fresh();
  const check = async () => {
    const s = await part('t2t');
    const [T, C, n] = [s.T, s.C, s.C / 2];
    const [tt] = floatsOut([T * C], (o) => api.m._tfp_learn_sinusoidal_table(T, C, 2, o, 0));
    const [th] = floatsOut([T * C], (o) => api.m._tfp_learn_sinusoidal_table(T, C, 1, o, 0));
    sameArray(s.table.data, tt, 'tensor2tensor table');
    sameArray(s.halves.data, th, 'halves table');
    const [wt] = floatsOut([n], (o) => api.m._tfp_learn_sinusoidal_frequencies(C, 2, o), 8);
    sameArray(s.omegas, wt, 'tensor2tensor frequencies');
    let same = 0, differ = 0;
    for (let i = 0; i < n; i++) {
      const w = Math.exp(-i * Math.log(10000) / (n - 1)), paper = Math.pow(10000, -2 * i / C);
      assert.ok(Math.abs(s.omegas[i] - w) <= 1e-12 * Math.max(1, w), `ω_${i}`);
      assert.ok(Math.abs(s.paperOmegas[i] - paper) <= 1e-12, `paper ω_${i}`);
      if (Math.abs(w / paper - 1) < 1e-12) same++;
      for (const p of [0, 1, T - 1]) {
        assert.ok(Math.abs(s.table.data[p * C + i] - Math.sin(p * w)) < 1e-6);
        assert.ok(Math.abs(s.table.data[p * C + n + i] - Math.cos(p * w)) < 1e-6);
      }
    }
    for (let k = 0; k < T * C; k++) if (Math.abs(tt[k] - th[k]) > 1e-3) differ++;
    assert.equal(s.samePairs, same);
    assert.equal(same, 1, 'only pair 0 (ω = 1) is shared');
    assert.equal(s.worst, n - 1, 'the widest gap is at the last pair');
    assert.equal(s.differ, differ);
    assert.ok(Math.abs(s.omegas[n - 1] - 1e-4) < 1e-16, 'tensor2tensor ends at exactly 1/10000');
    const line = await page.locator('.prose', { hasText: 'have the same frequency in both' }).first().innerText();
    assert.match(line, new RegExp(`d_model = ${C} \\(${n} pairs\\): 1 of ${n} pairs`));
    return s;
  };
  const s1 = await check();
  assert.deepEqual([s1.T, s1.C], [50, 64]);
  // The first section's prose: the last pair's period is 2π/ω from the engine, short of 10000·2π.
  const sin = await part('sin');
  const expect = (2 * Math.PI) / Math.pow(10000, -(sin.C - 2) / sin.C);
  assert.ok(Math.abs(sin.lastPeriod - expect) < 1e-6 * expect);
  assert.ok(sin.lastPeriod < 10000 * 2 * Math.PI);
  assert.match(await page.locator('.prose', { hasText: 'turns once every' }).first().innerText(), new RegExp(`every ${Math.round(expect).toLocaleString('en')} positions`));
  const n = await renders();
  await page.locator('#pos-t2t-C').fill('16');
  await rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.t2t.C === 16);
  await check();
  assert.deepEqual(site.problems, []);
});

test('chapter 7, learned, relative, RoPE, ALiBi: the engine\'s numbers; the exercise', { timeout: 60_000 }, async () => {
  await fresh();
  // Learned: brown-gpt's cosines.
  const l = await part('learned');
  const [cos] = floatsOut([l.P * l.P, l.P * 128], (o, rows) => api.m._tfp_learn_position_similarity(brown, l.P, o, rows));
  sameArray(l.cos.data, cos, 'learned cosines');
  assert.ok(Math.abs(l.cos.data[0] - 1) < 1e-6);
  // Relative: clip k = 3 bidirectional by default, then T5.
  let rel = await part('relative');
  const relativeBias = (bucketing, numBuckets, maxDistance) => (t, b, v) => withParams(api.m, 'tfp_learn_relative_bias_params', {
    bucketing, bidirectional: 1, num_buckets: numBuckets, max_distance: maxDistance, T: 12, seed: 1,
  }, (p) => api.m._tfp_learn_relative_bias(p, t, b, v));
  let [table, buckets, bias] = floatsOut([7, 144, 144], relativeBias(0, 7, 3));
  sameArray(rel.buckets.data, buckets, 'clip buckets');
  sameArray(rel.bias.data, bias, 'clip bias');
  for (let i = 0; i < 12; i++) for (let j = 0; j < 12; j++) assert.equal(rel.buckets.data[i * 12 + j], Math.min(3, Math.max(-3, j - i)) + 3);
  let n = await renders();
  await page.locator('label[for="pos-rel-bucketing-t5"]').click();
  await rendersAbove(n);
  rel = await part('relative');
  [table, buckets, bias] = floatsOut([8, 144, 144], relativeBias(1, 8, 16));
  assert.equal(rel.bucketing, 't5');
  sameArray(rel.table, table, 't5 table');
  sameArray(rel.buckets.data, buckets, 't5 buckets');
  // RoPE.
  const check = async () => {
    const r = await part('rope');
    const pairing = r.pairing === 'interleaved' ? 0 : 1;
    const run = (m, nn) => api.withHeap((put) => floatsOut([18], (o) => api.m._tfp_learn_rope_score(put(f32(r.q)), put(f32(r.k)), 8, pairing, m, nn, o))[0]);
    const a = run(r.m, r.n), b = run(r.m + r.s, r.n + r.s);
    sameArray([...r.base.qRot, ...r.base.kRot, r.base.raw, r.base.score], a, 'rope');
    sameArray((await matrix('q rotated at m')).flat(), a.slice(0, 8), 'shown q rotated');
    assert.ok(Math.abs(r.shifted.score - b[17]) === 0);
    assert.ok(Math.abs(r.shifted.score - r.base.score) < 1e-4, 'shifting both keeps the score');
    return r;
  };
  await check();
  n = await renders();
  await page.locator('#pos-rope-m').fill('9');
  await rendersAbove(n);
  const r2 = await check();
  assert.equal(r2.m, 9);
  await page.locator('[data-exercise="rope-offset"] label.choice').nth(1).click();
  await page.locator('[data-exercise="rope-offset"] button[type="submit"]').click();
  await page.waitForSelector('[data-exercise="rope-offset"] .exercise-result.wrong');
  const ex = await part('exercise');
  const score = (m, nn) => api.withHeap((put) => floatsOut([18], (o) => api.m._tfp_learn_rope_score(put(f32(r2.q)), put(f32(r2.k)), 8, 0, m, nn, o))[0][17]);
  assert.equal(ex.a, score(5, 3));
  assert.equal(ex.b, score(12, 10));
  assert.equal(ex.equal, true);
  assert.match(await page.locator('[data-exercise="rope-offset"] .exercise-result').innerText(), /Yes: both have offset 2/);
  // ALiBi: 6 heads by default.
  const al = await part('alibi');
  sameArray(al.slopes, [0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125], 'slopes for 6 heads', 1e-9);
  const [slopes, abias] = floatsOut([6, 6 * 64], (s, b) => api.m._tfp_learn_alibi(6, 8, 0, s, b));
  sameArray(al.bias.data, abias, 'alibi bias');
  sameArray(al.slopes, slopes, 'alibi slopes');
  assert.equal(await page.locator('.pos-alibi-grid .heatmap').count(), 6);
  // The ALiBi exercise: with 6 heads the steepest is index 4 (slope 1/2), labelled head 5
  // (heads count from 1 in every label), not the first head.
  await page.locator('[data-exercise="alibi-steepest"] label.choice').nth(0).click();
  await page.locator('[data-exercise="alibi-steepest"] button[type="submit"]').click();
  await page.waitForSelector('[data-exercise="alibi-steepest"] .exercise-result.wrong');
  assert.equal((await part('alibiExercise')).steepest, 4);
  assert.match(await page.locator('[data-exercise="alibi-steepest"] .exercise-result').innerText(), /steepest is head 5 \(/);
  assert.match(await page.locator('.pos-alibi-grid .heatmap').first().innerText(), /head 1:/);
  assert.deepEqual(site.problems, []);
});

test('chapter 7: the language switch rewrites the prose and keeps the inputs; 390 px; screenshots', { timeout: 90_000 }, async () => {
  await fresh();
  // Words other than the default: the switch must keep them.
  const n = await renders();
  await page.locator('#pos-words').fill('one two three four');
  await rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.order.tokens?.join(' ') === 'one two three four', null, { timeout: 20_000 });
  await site.shot('learn/positions_en_1280', { fullPage: true });
  const enFirst = await page.locator('.chapter-section').first().innerText();
  const order = await part('order');
  assert.deepEqual(order.tokens, ['one', 'two', 'three', 'four']);
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.querySelector('.chapter-section h2').textContent.includes('顺序'));
  const zhFirst = await page.locator('.chapter-section').first().innerText();
  assert.notEqual(zhFirst, enFirst);
  assert.match(zhFirst, /置换等变性/);
  assert.deepEqual((await part('order')).tokens, order.tokens);
  assert.equal(await page.locator('.katex-error').count(), 0);
  await page.waitForTimeout(300);
  await site.shot('learn/positions_zh_1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `sideways scroll at 390 px: ${overflow}`);
  await site.shot('learn/positions_zh_390', { fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await page.waitForTimeout(300);
  assert.equal(await page.locator('.katex-error').count(), 0);
  await site.shot('learn/positions_en_390', { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(site.problems, []);
});
