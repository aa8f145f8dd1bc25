// Learn, chapter 8 (the encoder layer), in Chromium:
//   - LayerNorm: the shown Y and per-row statistics equal tfp_learn_layer_norm called in
//     Node on the page's X, γ, β (oracle: the module loaded in Node, tests/js/tfp_module.mjs;
//     exact, the same wasm on the same inputs) and a LayerNorm written here in double
//     (1e-5); editing a cell of X recomputes; the exercise reveals the engine's answer
//     (every row mean 0, variance 1); the mistake box shows the engine's column statistics;
//   - RMSNorm beside LayerNorm: the rows x + b for every offset b, their LayerNorm and
//     their RMSNorm (the page's LayerNorm of (x + b, −(x + b))) equal tfp_learn_layer_norm
//     in Node (exact) and an RMSNorm written here in double, x/√(mean(x²) + ε) (1e-5);
//     the hand values of x = (1, 2, 3, 6) at b = 20; LayerNorm the same at every b, RMSNorm
//     equal to it where the mean is 0 (b = −3) and near 1 at b = 30; the slider and an edit
//     of x redraw it; the exercise "add 100" reveals the engine's answer (only RMSNorm's);
//   - depth: the pre-LN and post-LN profiles equal tfp_learn_encoder_depth in Node (exact);
//     post-LN rms stays 1 (1e-3), pre-LN grows; moving the slider recomputes;
//   - activations: equal tfp_learn_activation in Node (exact) and relu / x·Φ(x) written
//     here (1e-6, Φ from a series of erf);
//   - brown-pos: ids = the tokenizer's in Node, probs and every layer's ffn.hidden equal
//     tfp_learn_tagger_layers in Node (exact), the last lens row = softmax of
//     tfp_model_forward's logits (1e-6, double here); the tag table shows the argmax; the
//     tag exercise reveals the engine's first layer; a new sentence recomputes;
//   - padding: both maps equal the attention lab in Node with the same padding (exact);
//     padded key columns are 0 in every row, padded query rows sum to 1 (1e-6);
//   - the language switch rewrites the prose and keeps the inputs; 390 px without
//     sideways scrolling; no console error.
// Each test opens the chapter afresh (fresh()) and makes the changes it checks itself: no
// test inherits another's inputs, language, theme or screen size.
// Screenshots: build/screenshots/learn/encoder_layer_{en,zh}_{1280,390}.png, encoder_layer_en_1280_dark.png,
// and the RMSNorm figure alone: encoder_layer_rms_{en_1280,zh_390,en_390,en_1280_dark}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readShipped } from '../js/model_api.mjs';
import { withParams } from '../../web/src/engine/params.mjs';

let site, page, base, api, pos;
before(async () => {
  api = new ModelApi(await loadTfp());
  pos = api.load(readShipped('brown-pos'), 'brown-pos');
  site = await openSite({ name: 'learn_encoder_layer' });
  ({ page, base } = site);
  await mkdir(`${SHOTS}learn`, { recursive: true });
}, { timeout: 180_000 });
after(async () => {
  if (pos) api.free(pos);
  await site?.close();
});

const renders = () => page.evaluate(() => window.tfpLearn.renders);
async function rendersAbove(n) {
  await page.waitForFunction((k) => window.tfpLearn.renders > k, n, { timeout: 30_000 });
  await page.waitForTimeout(50);
}
const part = (name) => page.evaluate((k) => JSON.parse(JSON.stringify(window.tfpLearn.state[k] ?? null,
  (_, v) => (ArrayBuffer.isView(v) ? Array.from(v) : (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)))), name);
const matrix = (prefix) => page.evaluate((p) => {
  const m = [...document.querySelectorAll('.number-matrix')].find((e) => e.querySelector('caption')?.textContent.startsWith(p));
  return m && [...m.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value ?? td.querySelector('input')?.value)));
}, prefix);
/** Offset of lens row 1 in a (R, T) tensor: T. */
const T0 = (r) => r.stream_rms.dims[1];
function sameArray(got, want, what, tol = 0) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < got.length; i++) assert.ok(Math.abs(Number(got[i]) - want[i]) <= tol, `${what}[${i}] = ${got[i]}, want ${want[i]}`);
}
const f32 = (a) => new Uint8Array(Float32Array.from(a).buffer);

function layerNormNode(x, T, C, gamma, beta) {
  return api.withHeap((put) => api.tensors(api.out((s) => api.m._tfp_learn_layer_norm(put(f32(x)), T, C, gamma ? put(f32(gamma)) : 0, beta ? put(f32(beta)) : 0, 1e-5, s))));
}

async function checkNorm() {
  const s = await part('norm');
  const T = 3, C = 4;
  const want = layerNormNode(s.x, T, C, s.gamma, s.beta);
  for (const [mine, theirs] of [['y', 'y'], ['rowIn', 'row_in'], ['rowOut', 'row_out'], ['colOut', 'col_out']])
    sameArray(s.result[mine].data, Array.from(want[theirs].data), mine);
  // LayerNorm in double, written here: (x - mean)/sqrt(var + eps)·γ + β per row.
  for (let t = 0; t < T; t++) {
    const row = s.x.slice(t * C, (t + 1) * C);
    const mean = row.reduce((a, b) => a + b, 0) / C;
    const v = row.reduce((a, b) => a + (b - mean) ** 2, 0) / C;
    row.forEach((x, c) => assert.ok(Math.abs(s.result.y.data[t * C + c] - ((x - mean) / Math.sqrt(v + 1e-5) * s.gamma[c] + s.beta[c])) < 1e-5, `y[${t},${c}]`));
    assert.ok(Math.abs(s.result.rowIn.data[2 * t] - mean) < 1e-5 && Math.abs(s.result.rowIn.data[2 * t + 1] - v) < 1e-4 * Math.max(1, v));
  }
  sameArray((await matrix('Y = LN(X)')).flat(), Array.from(want.y.data), 'shown Y');
  const shownStats = (await matrix('Per row')).flat();
  const wantStats = [];
  for (let t = 0; t < T; t++) wantStats.push(want.row_in.data[2 * t], want.row_in.data[2 * t + 1], want.row_out.data[2 * t], want.row_out.data[2 * t + 1]);
  sameArray(shownStats, wantStats, 'shown statistics');
  sameArray((await matrix('Y per column')).flat(), Array.from(want.col_out.data), 'shown column statistics');
  return s;
}

const CHAPTER = () => `${base}/learn/encoder-layer.html?lang=en`;
/** The state each test starts from: the chapter loaded afresh in English at its defaults
 *  (LayerNorm, brown-pos and the depth figure drawn), 1280 × 720, light, nothing saved by
 *  an earlier test. */
async function fresh() {
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.norm && window.tfpLearn.state.brown && window.tfpLearn.state.depth,
    null, { timeout: 60_000 });
}

test('chapter 8, LayerNorm: Y and the row statistics are the engine\'s; edits recompute; the exercise', { timeout: 90_000 }, async () => {
  const t0 = Date.now();
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.norm, null, { timeout: 30_000 });
  console.log(`first figure drawn ${Date.now() - t0} ms after navigation (module not cached)`);
  await page.waitForFunction(() => window.tfpLearn.state.brown && window.tfpLearn.state.depth, null, { timeout: 60_000 });
  const t1 = Date.now();
  await page.reload();
  await page.waitForFunction(() => window.tfpLearn?.state?.norm, null, { timeout: 30_000 });
  const cached = Date.now() - t1;
  console.log(`first figure drawn ${cached} ms after navigation (module cached)`);
  const s0 = await checkNorm();
  // Every row of Y: mean 0, variance ≈ 1 (γ = 1, β = 0 at first).
  for (let t = 0; t < 3; t++) {
    assert.ok(Math.abs(s0.result.rowOut.data[2 * t]) < 1e-6);
    assert.ok(Math.abs(s0.result.rowOut.data[2 * t + 1] - 1) < 1e-3);
  }
  // The formula's X is tied to the X matrix.
  await page.locator('.enc-formula .katex [data-sym="X"]').first().hover();
  assert.equal(await page.locator('.number-matrix[data-sym="X"].sym-hot').count(), 1);

  // Edit X[1,1] and γ[2]: new numbers, still the engine's.
  let n = await renders();
  const cell = page.locator('.number-matrix[data-sym="X"] tbody tr').first().locator('input').first();
  await cell.fill('-4');
  await cell.press('Enter');
  await rendersAbove(n);
  n = await renders();
  const g = page.locator('.number-matrix[data-sym="gamma"] tbody tr').first().locator('input').nth(1);
  await g.fill('3');
  await g.press('Enter');
  await rendersAbove(n);
  const s1 = await checkNorm();
  assert.equal(s1.x[0], -4);
  assert.equal(s1.gamma[1], 3);
  assert.notDeepEqual(s1.result.y.data, s0.result.y.data);
  assert.match(await page.locator('.enc-worked').innerText(), /Row 1 with the engine's numbers/);

  // The exercise: every row mean 0, variance 1 (the engine's γ = 1, β = 0 run).
  const ex = page.locator('.exercise[data-exercise="layernorm-rows"]');
  await ex.locator('label.choice').first().click();
  await ex.locator('button[type="submit"]').click();
  await ex.locator('.verdict').waitFor({ timeout: 10_000 });
  assert.equal(await ex.locator('.verdict').innerText(), 'Right.');
  const e = await part('exercise');
  assert.equal(e.unit, true);
  const want = layerNormNode(s1.x, 3, 4, null, null);
  sameArray(e.rowOut, Array.from(want.row_out.data), 'exercise rows');
  assert.deepEqual(site.problems, []);
});

/** RMSNorm in double, written here: each row of C values over √(mean of squares + ε). */
function rmsNormDouble(rows, C, eps = 1e-5) {
  const out = [];
  for (let t = 0; t < rows.length / C; t++) {
    const r = rows.slice(t * C, (t + 1) * C);
    const ms = r.reduce((a, v) => a + v * v, 0) / C;
    out.push(...r.map((v) => v / Math.sqrt(ms + eps)));
  }
  return out;
}

const rmsFigure = () => page.locator('figure.fig', { has: page.locator('#enc-rms-offset') });

async function checkRms() {
  const s = await part('rms');
  const C = 4, K = s.offsets.length;
  assert.equal(K, 61);
  // The rows are x + b (in float32, as the page sends them).
  sameArray(s.rows, s.offsets.flatMap((b) => s.x.map((v) => Math.fround(v + b))), 'rows x + b');
  const ln = layerNormNode(s.rows, K, C, null, null);
  sameArray(s.ln, Array.from(ln.y.data), 'LayerNorm of x + b');
  sameArray(s.lnRowIn, Array.from(ln.row_in.data), 'LayerNorm row statistics');
  // RMSNorm: the page's numbers are the engine's LayerNorm of (row, −row)...
  const mirrored = [];
  for (let k = 0; k < K; k++) { const r = s.rows.slice(k * C, (k + 1) * C); mirrored.push(...r, ...r.map((v) => -v)); }
  const m = layerNormNode(mirrored, K, 2 * C, null, null);
  sameArray(s.rms, Array.from({ length: K * C }, (_, i) => m.y.data[Math.floor(i / C) * 2 * C + (i % C)]), 'RMSNorm = LN(x, −x)');
  sameArray(s.meanSquare, Array.from({ length: K }, (_, k) => m.row_in.data[2 * k + 1]), 'mean square');
  // ... and they are RMSNorm: x/√(mean(x²) + ε) in double, here.
  sameArray(s.rms, rmsNormDouble(s.rows, C), 'RMSNorm in double', 1e-5);
  s.offsets.forEach((_, k) => {
    const r = s.rows.slice(k * C, (k + 1) * C), ms = r.reduce((a, v) => a + v * v, 0) / C;
    assert.ok(Math.abs(s.meanSquare[k] - ms) <= 1e-5 * Math.max(1, ms), `mean square at row ${k}: ${s.meanSquare[k]}, ${ms}`);
  });
  // LayerNorm ignores the offset: every row's output equals that of b = 0 (1e-5).
  const k0 = s.offsets.indexOf(0);
  s.offsets.forEach((b, k) => sameArray(s.ln.slice(k * C, (k + 1) * C), s.ln.slice(k0 * C, (k0 + 1) * C), `LN at b = ${b}`, 1e-5));
  // The matrix shows x + b, LN and RMSNorm at the picked b, as the engine gave them.
  const k = s.offsets.indexOf(s.b);
  const shown = await matrix('x + b and its two normalisations');
  assert.deepEqual(shown, [s.rows, s.ln, s.rms].map((a) => a.slice(k * C, (k + 1) * C)));
  return s;
}

test('chapter 8, RMSNorm beside LayerNorm: the engine\'s numbers for every offset; slider, edit, exercise', { timeout: 60_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.rms?.ln, null, { timeout: 30_000 });
  let s = await checkRms();
  assert.deepEqual(s.x, [1, 2, 3, 6]);
  assert.equal(s.b, 20);
  // By hand: x + 20 = (21, 22, 23, 26), mean square (441 + 484 + 529 + 676)/4 = 532.5,
  // √(532.5 + 1e-5) = 23.07596…, so RMSNorm = (0.91004, 0.95337, 0.99671, 1.12671);
  // LayerNorm: mean 23, variance (4 + 1 + 0 + 9)/4 = 3.5, (−2, −1, 0, 3)/√3.50001.
  const k20 = s.offsets.indexOf(20);
  sameArray(s.rms.slice(k20 * 4, k20 * 4 + 4), [0.91004, 0.95337, 0.99671, 1.12671], 'RMSNorm of (21, 22, 23, 26)', 1e-5);
  assert.ok(Math.abs(s.meanSquare[k20] - 532.5) < 1e-3);
  sameArray(s.ln.slice(k20 * 4, k20 * 4 + 4), [-2, -1, 0, 3].map((v) => v / Math.sqrt(3.5 + 1e-5)), 'LayerNorm of (21, 22, 23, 26)', 1e-5);
  const fig = rmsFigure();
  assert.match(await fig.locator('.enc-rms-worked').innerText(), /532\.5000/);
  assert.equal(await fig.locator('.enc-rms-summary').innerText(),
    `At b = 20: LayerNorm's outputs run from −1.069 to 1.604, the same at every b; RMSNorm's run from 0.910 to 1.127.`);
  assert.equal(await fig.locator('.enc-rms-charts .line-chart').count(), 2);
  // Where x + b has mean 0 (b = −3: (−2, −1, 0, 3)) the two agree; at b = 30 RMSNorm is near 1.
  const k3 = s.offsets.indexOf(-3), k30 = s.offsets.indexOf(30);
  sameArray(s.rms.slice(k3 * 4, k3 * 4 + 4), s.ln.slice(k3 * 4, k3 * 4 + 4), 'RMSNorm = LayerNorm at mean 0', 1e-5);
  assert.ok(s.rms.slice(k30 * 4, k30 * 4 + 4).every((v) => v > 0.9 && v < 1.1), 'RMSNorm of x + 30 is near 1');

  // The slider picks another row (no new engine call needed): the matrix follows.
  let n = await renders();
  await page.locator('#enc-rms-offset').fill('-3');
  await rendersAbove(n);
  s = await checkRms();
  assert.equal(s.b, -3);
  const shown = await matrix('x + b and its two normalisations');
  sameArray(shown[2], shown[1], 'shown RMSNorm = LayerNorm at b = −3', 1e-5);

  // An edit of x: the grid is recomputed by the engine.
  n = await renders();
  const cell = fig.locator('.number-matrix[data-sym="xv"] tbody tr').first().locator('input').nth(1);
  await cell.fill('5');
  await cell.press('Enter');
  await rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.rms.x[1] === 5, null, { timeout: 10_000 });
  s = await checkRms();
  assert.deepEqual(s.x, [1, 5, 3, 6]);

  // The exercise: add 100 to every feature; only RMSNorm's outputs change.
  const ex = page.locator('.exercise[data-exercise="rms-offset"]');
  await ex.locator('label.choice').first().click();
  await ex.locator('button[type="submit"]').click();
  await ex.locator('.verdict').waitFor({ timeout: 10_000 });
  assert.equal(await ex.locator('.verdict').innerText(), 'Right.');
  const e = await part('exerciseRms');
  assert.deepEqual(e.x, [1, 5, 3, 6]);
  assert.equal(e.correct, 0);
  const rows = [...e.x, ...e.x.map((v) => Math.fround(v + 100))];
  sameArray(e.ln, Array.from(layerNormNode(rows, 2, 4, null, null).y.data), 'exercise LayerNorm');
  sameArray(e.rms, rmsNormDouble(rows, 4), 'exercise RMSNorm', 1e-5);
  assert.match(await ex.locator('.exercise-result').innerText(), /LayerNorm gives \(−1\.[0-9]{3}, /);
  // Back to the first x and b = 20 for the screenshots.
  await cell.fill('2');
  await cell.press('Enter');
  await page.waitForFunction(() => window.tfpLearn.state.rms.x[1] === 2, null, { timeout: 10_000 });
  await page.locator('#enc-rms-offset').fill('20');
  await page.waitForFunction(() => window.tfpLearn.state.rms.b === 20, null, { timeout: 10_000 });
  assert.deepEqual(site.problems, []);
});

test('chapter 8, depth: pre-LN and post-LN profiles are the engine\'s; the slider recomputes', { timeout: 90_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.depth, null, { timeout: 60_000 });
  const check = async () => {
    const d = await part('depth');
    for (const [nf, mine] of [[1, d.pre], [0, d.post]]) {
      const rows = d.layers + 1, o = api.m._tfp_alloc(rows * 24);
      try {
        api.check(withParams(api.m, 'tfp_learn_encoder_depth_params', {
          C: d.dModel, H: d.heads, F: d.dFF, T: d.tokens, L: d.layers, activation: d.activation, norm_first: nf, seed: d.seed,
        }, (p) => api.m._tfp_learn_encoder_depth(p, o)));
        const v = new Float64Array(api.m.HEAPU8.buffer, o, rows * 3);
        sameArray(mine.streamRms, Array.from({ length: rows }, (_, l) => v[3 * l]), `rms ${nf}`);
        sameArray(mine.updateRms, Array.from({ length: rows }, (_, l) => v[3 * l + 1]), `update ${nf}`);
        sameArray(mine.inputCos, Array.from({ length: rows }, (_, l) => v[3 * l + 2]), `cos ${nf}`);
      } finally {
        api.m._tfp_free(o);
      }
    }
    for (let l = 1; l <= d.layers; l++) assert.ok(Math.abs(d.post.streamRms[l] - 1) < 1e-3, `post-LN rms at ${l}`);
    assert.ok(d.pre.streamRms[d.layers] > 1.5 * d.pre.streamRms[1], 'pre-LN grows');
    return d;
  };
  const d0 = await check();
  assert.equal(d0.layers, 24);
  assert.match(await page.locator('.enc-summary').innerText(), /After 24 layers: pre-LN stream rms/);
  assert.equal(await page.locator('.enc-charts .line-chart').count(), 2);
  const n = await renders();
  await page.locator('#enc-layers').fill('48');
  await rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.depth.layers === 48, null, { timeout: 20_000 });
  const d1 = await check();
  assert.equal(d1.pre.streamRms.length, 49);
  assert.ok(d1.pre.streamRms[48] > d1.pre.streamRms[24]);
  assert.deepEqual(site.problems, []);
});

test('chapter 8, feed-forward and brown-pos: curves, hidden activations, tags per layer are the engine\'s', { timeout: 90_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.brown && window.tfpLearn.state.activation, null, { timeout: 60_000 });
  const a = await part('activation');
  for (const [kind, name] of [[0, 'relu'], [1, 'gelu'], [2, 'geluTanh']]) {
    const want = api.withHeap((put) => {
      const y = api.m._tfp_alloc(a.x.length * 4);
      try {
        api.check(api.m._tfp_learn_activation(kind, put(f32(a.x)), a.x.length, y));
        return Array.from(new Float32Array(api.m.HEAPU8.buffer, y, a.x.length));
      } finally {
        api.m._tfp_free(y);
      }
    });
    sameArray(a[name], want, name);
  }
  // relu and x·Φ(x) in double here; erf by its Maclaurin series (|x| <= 4/√2: 60 terms converge).
  const erf = (z) => { let s = 0, term = z; for (let n = 0; n < 60; n++) { s += term / (2 * n + 1); term *= -z * z / (n + 1); } return 2 / Math.sqrt(Math.PI) * s; };
  a.x.forEach((x, i) => {
    assert.equal(a.relu[i], Math.max(0, x));
    assert.ok(Math.abs(a.gelu[i] - x * 0.5 * (1 + erf(x / Math.SQRT2))) < 1e-6, `gelu(${x})`);
  });

  const check = async () => {
    const b = await part('brown');
    const tok = api.tokenize(pos, b.text);
    assert.deepEqual(b.ids, tok.ids, 'ids');
    const r = api.withHeap((put) => api.tensors(api.out((s) => api.m._tfp_learn_tagger_layers(pos, put(api.ints(tok.ids)), tok.ids.length, s))));
    assert.deepEqual(b.probs.dims, r.probs.dims);
    sameArray(b.probs.data, Array.from(r.probs.data), 'lens probs');
    b.hidden.forEach((h, l) => sameArray(h.data, Array.from(r[`enc.${l}.ffn.hidden`].data), `hidden ${l}`));
    for (const [mine, theirs] of [['stream', 'stream'], ['attnOut', 'attn_out'], ['ffnOut', 'ffn_out'], ['streamRms', 'stream_rms'], ['attnRms', 'attn_rms'], ['ffnRms', 'ffn_rms']])
      sameArray(b[mine].data, Array.from(r[theirs].data), mine);
    // The stream figure: h0, + a, + f, = h1, ... of the picked token, with the engine's rms.
    const pieces = await page.locator('.enc-stream-piece p').allInnerTexts();
    const L = r.attn_out.dims[0], t = b.token;
    assert.equal(pieces.length, 1 + 3 * L);
    assert.ok(pieces[0].endsWith(`rms ${r.stream_rms.data[t].toFixed(3)}`), pieces[0]);
    assert.ok(pieces[1].endsWith(`rms ${r.attn_rms.data[t].toFixed(3)}`), pieces[1]);
    assert.ok(pieces[3].endsWith(`rms ${r.stream_rms.data[T0(r) + t].toFixed(3)}`), pieces[3]);
    const [R, T, N] = r.probs.dims;
    const logits = api.forward(pos, tok.ids).logits;
    for (let t = 0; t < T; t++) {
      const z = Array.from(logits.data.subarray(t * N, (t + 1) * N)), mx = Math.max(...z);
      const e = z.map((v) => Math.exp(v - mx)), sum = e.reduce((x, y) => x + y, 0);
      e.forEach((v, k) => assert.ok(Math.abs(r.probs.data[((R - 1) * T + t) * N + k] - v / sum) < 1e-6, `last row = model (${t}, ${k})`));
    }
    // The table shows each row's most probable label.
    const shown = await page.evaluate(() => [...document.querySelectorAll('.enc-tag-table tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.dataset.label)));
    const best = Array.from({ length: R }, (_, row) => Array.from({ length: T }, (_, t) => {
      let k = 0;
      for (let j = 1; j < N; j++) if (r.probs.data[(row * T + t) * N + j] > r.probs.data[(row * T + t) * N + k]) k = j;
      return b.labels[k];
    }));
    assert.deepEqual(shown, best);
    assert.equal(await page.locator('.enc-hidden .vector-bars, .enc-hidden-layer').count() >= 2, true);
    return { b, r, best };
  };
  const { best } = await check();
  // The default sentence: the two "run"s are told apart after layer 1 (VERB, then NOUN).
  assert.equal(best[2][2], 'VERB');
  assert.equal(best[2][6], 'NOUN');

  // The tag exercise: the engine's first layer for the picked token.
  const ex = page.locator('.exercise[data-exercise="first-layer-tag"]');
  await ex.locator('label.choice').nth(1).click();
  await ex.locator('button[type="submit"]').click();
  await ex.locator('.verdict').waitFor({ timeout: 10_000 });
  const e = await part('exercise2');
  const col = best.map((row) => row[e.token]);
  let first = col.length - 1;
  while (first > 0 && col[first - 1] === col[col.length - 1]) first--;
  assert.equal(e.first, first);
  assert.equal(await ex.locator('.verdict').innerText() === 'Right.', first === 1);
  assert.match(await ex.locator('.exercise-result').innerText(), /The engine's lens for “run”/);
  // The playground link carries the model and the sentence.
  const href = await page.locator('.playground-link').getAttribute('href');
  assert.match(href, /model=brown-pos/);
  assert.match(decodeURIComponent(href.replace(/\+/g, ' ')), /The dogs run fast/);

  // A new sentence: new tokens, the engine's new numbers.
  const n = await renders();
  await page.locator('#enc-sentence').fill('I like to run every morning.');
  await page.waitForFunction(() => window.tfpLearn.state.brown.text.startsWith('I like'), null, { timeout: 20_000 });
  await rendersAbove(n);
  await check();
  await page.selectOption('#enc-token', '3');
  // The hidden strips' table alternative: the picked token's values, layer by layer.
  const fig = page.locator('figure.fig', { has: page.locator('.enc-hidden') });
  await fig.locator('details.data-table summary').click();
  await fig.locator('details.data-table tbody tr td').first().waitFor();  // built on the toggle event, a task later
  const cells = await fig.locator('details.data-table tbody tr').first().locator('td').allInnerTexts();
  const b2 = await part('brown');
  const F = b2.hidden[0].dims[1];
  assert.equal(cells.length, F);
  cells.forEach((c, f) => assert.ok(Math.abs(Number(c.replace('−', '-')) - b2.hidden[0].data[3 * F + f]) <= 5e-4, `hidden table [${f}] ${c}`));  // 3 decimals shown
  assert.match(await page.locator('.enc-hidden-layer p').first().innerText(), /Layer 1: \d+ of 512 units positive/);
  assert.deepEqual(site.problems, []);
});

test('chapter 8, padding: padded key columns are 0 in every row, padded rows still computed', { timeout: 60_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.padding, null, { timeout: 30_000 });
  const p = await part('padding');
  const T = p.seqs[0].tokens.length;
  p.seqs.forEach((q, i) => {
    const pad = q.padding.some((x) => x) ? q.padding : null;
    const want = api.attention({ tokens: q.tokens, dModel: p.dModel, heads: p.heads, seed: p.seed, padding: pad });
    sameArray(q.probs.data, Array.from(want.probs.data), `sentence ${i + 1} probs`);
    sameArray(q.masked.data, Array.from(want.masked.data), `sentence ${i + 1} masked`);
  });
  const q = p.seqs[p.shorter];
  const nReal = q.padding.indexOf(1);
  assert.ok(nReal > 0 && nReal < T, 'the default batch pads the short sentence');
  for (let h = 0; h < p.heads; h++)
    for (let i = 0; i < T; i++) {
      let sum = 0;
      for (let j = 0; j < T; j++) {
        const w = q.probs.data[(h * T + i) * T + j];
        sum += w;
        if (j >= nReal) assert.equal(w, 0, `head ${h}, row ${i}: padded column ${j} is 0`);
      }
      assert.ok(Math.abs(sum - 1) < 1e-6, `head ${h}, row ${i} sums to 1 (padded query rows too)`);
    }
  // The real rows equal the sentence run alone.
  const alone = api.attention({ tokens: p.alone.tokens, dModel: p.dModel, heads: p.heads, seed: p.seed });
  sameArray(q.out.data.slice(0, nReal * p.dModel), Array.from(alone.out.data), 'real rows = alone', 1e-6);
  assert.match(await page.locator('.enc-pad-same').innerText(), /equal those of the same sentence run alone/);
  // The mistake demo shows the engine's first padded row: non-zero on the real keys.
  const row = (await matrix('Row of query [PAD]')).flat();
  sameArray(row, Array.from(q.probs.data.slice(nReal * T, (nReal + 1) * T)), 'padded row shown');
  assert.ok(row.slice(0, nReal).every((w) => w > 0));
  assert.equal(await page.locator('.enc-pad-maps .heatmap').count(), 2);
  assert.deepEqual(site.problems, []);
});

test('chapter 8: the language switch rewrites the prose and keeps the inputs; 390 px; screenshots', { timeout: 90_000 }, async () => {
  await fresh();
  // X[1,1] changed from its default: the switch must keep it.
  const n = await renders();
  const cell = page.locator('.number-matrix[data-sym="X"] tbody tr').first().locator('input').first();
  await cell.fill('-4');
  await cell.press('Enter');
  await rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.norm.x[0] === -4, null, { timeout: 20_000 });
  await site.shot('learn/encoder_layer_en_1280', { fullPage: true });
  await rmsFigure().screenshot({ path: `${SHOTS}learn/encoder_layer_rms_en_1280.png` });
  const enFirst = await page.locator('.chapter-section').first().innerText();
  const norm = await part('norm');
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.querySelector('.chapter-section h2').textContent.includes('残差'));
  const zhFirst = await page.locator('.chapter-section').first().innerText();
  assert.notEqual(zhFirst, enFirst);
  assert.match(zhFirst, /残差流/);
  assert.deepEqual((await part('norm')).x, norm.x);
  assert.match(await page.locator('.enc-summary').innerText(), /层之后/);
  assert.equal(await page.locator('.katex-error').count(), 0);
  await page.waitForTimeout(300);
  await site.shot('learn/encoder_layer_zh_1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `sideways scroll at 390 px: ${overflow}`);
  await site.shot('learn/encoder_layer_zh_390', { fullPage: true });
  await rmsFigure().screenshot({ path: `${SHOTS}learn/encoder_layer_rms_zh_390.png` });
  await page.selectOption('#lang-select', 'en');
  await page.waitForTimeout(300);
  assert.equal(await page.locator('.katex-error').count(), 0);
  await site.shot('learn/encoder_layer_en_390', { fullPage: true });
  await rmsFigure().screenshot({ path: `${SHOTS}learn/encoder_layer_rms_en_390.png` });
  await page.setViewportSize({ width: 1280, height: 720 });
  // Dark: the charts, matrices, strips and the tag table redraw in the dark palette.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(300);
  await site.shot('learn/encoder_layer_en_1280_dark', { fullPage: true });
  await rmsFigure().screenshot({ path: `${SHOTS}learn/encoder_layer_rms_en_1280_dark.png` });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(site.problems, []);
});
