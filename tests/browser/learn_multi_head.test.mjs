// Learn, chapter 6 (multi-head attention), in Chromium:
//   - figure 1 (attention lab): the shown Q, per-head maps, concatenation and output equal
//     what the engine's C API returns in Node for the same words, h and seed (oracle: the
//     module loaded in Node, tests/js/tfp_module.mjs; exact, the same wasm on the same
//     inputs); the concatenation is checked against an index mapping written here (head h,
//     column c of (T, d_model) = head_out[h][t][c − h·d_k]); switching h to 4 redraws 4
//     maps with new weights while Q stays the same matrix (the weights depend on the seed
//     and d_model only); the "each head sees every token" demo shows T × T per head;
//   - figure 2 (brown-gpt): the tokens, the 16 maps and the head statistics equal the
//     engine's (Node: tfp_model_forward, tfp_attention_head_stats_masked, causal; exact),
//     the strongest previous-token and first-token heads are the argmax of those numbers,
//     clicking a head selects it and the playground link carries model, text, layer, head;
//     the exercise reveals the engine's previous-token head of the asked layer;
//   - figure 3 (costs): the table equals tfp_learn_mha_cost in Node and 4C² + 4C,
//     8TC² + 4T²C written here; the mistake demo shows the same parameters for every h;
//   - the language switch rewrites the prose and keeps the inputs; 390 px without sideways
//     scrolling; no console error.
// Each test opens the chapter afresh (fresh()) and makes the changes it checks itself: no
// test inherits another's inputs, language or screen size.
// Screenshots: build/screenshots/learn/multi_head_{en,zh}_{1280,390}.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { freshPage, openSite, SHOTS } from './harness.mjs';
import { learnProbes, sameArray } from './learn_harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readShipped } from '../js/model_api.mjs';

let renders, rendersAbove, part, matrix;
let site, page, base, api, brown;
before(async () => {
  api = new ModelApi(await loadTfp());
  brown = api.load(readShipped('brown-gpt'), 'brown-gpt');
  site = await openSite({ name: 'learn_multi_head' });
  ({ page, base } = site);
  ({ renders, rendersAbove, part, matrix } = learnProbes(page));
  await mkdir(`${SHOTS}learn`, { recursive: true });
}, { timeout: 180_000 });
after(async () => {
  if (brown) api.free(brown);
  await site?.close();
});


/** (H, T, D) → rows of (T, H·D): head h's row t in columns h·D … (h+1)·D − 1. */
function concatOracle(t) {
  const [H, T, D] = t.dims;
  return Array.from({ length: T }, (_, i) => Array.from({ length: H * D }, (_, c) => t.data[(Math.floor(c / D) * T + i) * D + (c % D)]));
}

/** Checks figure 1 against the engine in Node; returns the engine's result. */
async function checkLab() {
  const s = await part('lab');
  const want = api.attention({ tokens: s.tokens, dModel: s.dModel, heads: s.heads, seed: s.seed });
  for (const [mine, theirs] of [['q', 'q'], ['probs', 'probs'], ['headOut', 'head_out'], ['out', 'out']]) {
    assert.deepEqual(s.result[mine].dims, want[theirs].dims, `${mine} dims`);
    sameArray(s.result[mine].data, want[theirs].data, mine);
  }
  const [H, T] = want.probs.dims;
  sameArray((await matrix('Q = X W_Q')).flat(), concatOracle(want.q).flat(), 'shown Q');
  sameArray((await matrix('Concat(')).flat(), concatOracle(want.head_out).flat(), 'shown concat');
  sameArray((await matrix('Output =')).flat(), Array.from(want.out.data), 'shown output');
  assert.equal(await page.locator('.mh-maps .heatmap').count(), H);
  assert.equal(await page.locator('.mh-demo-lines p').count(), H);
  assert.match(await page.locator('.mh-demo-lines p').first().innerText(), new RegExp(`its map is ${T} × ${T}`));
  return { s, want };
}

const CHAPTER = () => `${base}/learn/multi-head.html?lang=en`;
/** The state each test starts from: the chapter loaded afresh in English at its defaults
 *  (the lab and brown-gpt's figure drawn), 1280 × 720, light, nothing saved by an earlier test. */
async function fresh() {
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.lab && window.tfpLearn.state.brown, null, { timeout: 60_000 });
}

test('chapter 6, figure 1: the lab\'s Q, maps, concatenation and output are the engine\'s', { timeout: 90_000 }, async () => {
  const t0 = Date.now();
  await freshPage(page, CHAPTER());
  await page.waitForFunction(() => window.tfpLearn?.state?.lab, null, { timeout: 30_000 });
  console.log(`first figure drawn ${Date.now() - t0} ms after navigation (module not cached)`);
  // Again with the module cached: the time to the first figure is printed, not asserted
  // (a test that asserts a time fails on a busy machine; bench/learn_first_figure.mjs measures it).
  await page.waitForFunction(() => window.tfpLearn.state.brown, null, { timeout: 60_000 });
  const t1 = Date.now();
  await page.reload();
  await page.waitForFunction(() => window.tfpLearn?.state?.lab, null, { timeout: 30_000 });
  const cached = Date.now() - t1;
  console.log(`first figure drawn ${cached} ms after navigation (module cached)`);
  const { s, want } = await checkLab();
  assert.deepEqual(s.tokens, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  assert.equal(s.heads, 2);
  assert.match(await page.locator('.mh-shape').innerText(), /heads of/);
  const q2 = await matrix('Q = X W_Q');
  // The formula's Q is tied to the Q matrix: pointing at one marks both.
  await page.locator('.mh-lab-formula .katex [data-sym="Q"]').first().hover();
  assert.equal(await page.locator('.number-matrix[data-sym="Q"].sym-hot').count(), 1);

  // Four heads: four maps; the same Q (weights depend on seed and d_model), new maps.
  let n = await renders();
  await page.locator('label[for="mh-heads-4"]').click();
  await rendersAbove(n);
  const { s: s4, want: want4 } = await checkLab();
  assert.equal(s4.heads, 4);
  assert.deepEqual(s4.result.probs.dims, [4, 6, 6]);
  assert.deepEqual(await matrix('Q = X W_Q'), q2, 'Q does not depend on h');
  assert.notDeepEqual(Array.from(want4.out.data), Array.from(want.out.data), 'the output does');
  assert.match(await page.locator('.mh-maps .heatmap figcaption').nth(3).innerText(), /Head i = 4: columns 7–8/, "counted from 1");

  // New words: new tokens, the engine's new numbers.
  n = await renders();
  await page.locator('#mh-words').fill('one two three');
  await rendersAbove(n);
  const { s: s3 } = await checkLab();
  assert.deepEqual(s3.tokens, ['one', 'two', 'three']);
  assert.deepEqual(site.problems, []);
});

test('chapter 6, figure 2: brown-gpt\'s maps and head statistics are the engine\'s; heads found and opened', { timeout: 90_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.brown, null, { timeout: 60_000 });
  const check = async () => {
    const b = await part('brown');
    const tok = api.tokenize(brown, b.text);
    assert.deepEqual(b.ids, tok.ids, 'ids');
    const out = api.forward(brown, tok.ids, { attention: true });
    const T = tok.ids.length;
    const stats = [];
    b.maps.forEach((m, l) => {
      const want = out[`dec.${l}.attn.probs`];
      assert.equal(m.name, `dec.${l}.attn.probs`);
      assert.deepEqual(m.dims, [4, T, T]);
      sameArray(m.data, want.data, `layer ${l} maps`);
      // Head statistics of a causal map, in Node.
      const p = api.put(want.data), o = api.m._tfp_alloc(4 * 16);
      try {
        api.check(api.m._tfp_attention_head_stats_masked(p, 4, T, T, 1, 0, o));
        stats.push(Array.from(new Float32Array(api.m.HEAPU8.buffer, o, 16)));
      } finally {
        api.m._tfp_free(p);
        api.m._tfp_free(o);
      }
      sameArray(b.stats[l].data, stats[l], `layer ${l} stats`);
    });
    assert.equal(b.maps.length, 4);
    // The strongest heads: argmax of the engine's shares (column 3 previous, 2 first).
    const best = (col) => {
      let r = null;
      stats.forEach((s, layer) => s.forEach((v, i) => {
        if (i % 4 === col && Number.isFinite(v) && (!r || v > r.share)) r = { layer, head: (i - col) / 4, share: v };
      }));
      return r;
    };
    for (const [kind, col] of [['prev', 3], ['first', 2]]) {
      const w = best(col);
      assert.deepEqual({ layer: b[kind].layer, head: b[kind].head }, { layer: w.layer, head: w.head }, kind);
      assert.match(await page.locator(`.mh-found p[data-kind="${kind}"]`).innerText(), new RegExp(`layer ${w.layer + 1}, head ${w.head + 1}`));
    }
    return { b, stats };
  };
  const { b, stats } = await check();
  assert.match(b.text, /^The jury said/);
  assert.equal(await page.locator('.mh-stats-table tbody tr').count(), 16);
  // The statistics table shows the engine's numbers (Node), row by row.
  const pctText = (v) => new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 }).format(v);
  const rows = await page.locator('.mh-stats-table tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  rows.forEach((cells, i) => {
    const l = Math.floor(i / 4), h = i % 4, st = stats[l].slice(h * 4, h * 4 + 4);
    assert.deepEqual(cells, [String(l + 1), String(h + 1), st[0].toFixed(2), st[1].toFixed(2), pctText(st[2]), pctText(st[3])], `stats row ${i}`);
  });
  assert.equal(await page.locator('.mh-grid .lh-tile').count(), 16);

  // Open the first-token head with its button, then a tile of the grid.
  let n = await renders();
  await page.locator('button.mh-show[data-kind="first"]').click();
  await rendersAbove(n);
  let sel = (await part('brown')).selected;
  assert.deepEqual(sel, { layer: b.first.layer, head: b.first.head });
  assert.match(await page.locator('.mh-big .heatmap figcaption').innerText(), new RegExp(`Layer ${b.first.layer + 1}, head ${b.first.head + 1}`));
  n = await renders();
  await page.locator('.mh-grid .lh-tile[data-layer="2"][data-head="1"]').click();
  await rendersAbove(n);
  sel = (await part('brown')).selected;
  assert.deepEqual(sel, { layer: 2, head: 1 });
  const href = await page.locator('a.playground-link').getAttribute('href');
  const url = new URL(href, base);
  assert.equal(url.searchParams.get('model'), 'brown-gpt');
  assert.equal(url.searchParams.get('text'), b.text);
  assert.equal(url.searchParams.get('layer'), '3');
  assert.equal(url.searchParams.get('head'), '2');
  // The link opens the playground on the same model, text, layer and head, with the same maps.
  const play = await site.newPage();
  await play.goto(url.href);
  await play.waitForFunction(() => window.tfpPlay?.shown && window.tfpPlay.attention.length > 0, null, { timeout: 60_000 });
  const shown = await play.evaluate(() => ({ layer: window.tfpPlay.shown.layer, head: window.tfpPlay.shown.head, model: window.tfpPlay.state.model,
    ids: window.tfpPlay.encoding.ids, map: Array.from(window.tfpPlay.attention.find((a) => a.name === 'dec.2.attn.probs').data) }));
  assert.deepEqual([shown.model, shown.layer, shown.head], ['brown-gpt', 2, 1]);
  assert.deepEqual(shown.ids, b.ids);
  sameArray(shown.map, b.maps[2].data, 'playground layer 3 maps');
  await play.close();

  // The exercise: the engine's previous-token head of the layer it asks about.
  const ex = page.locator('.exercise');
  assert.match(await ex.locator('.question').innerText(), new RegExp(`layer ${b.exLayer + 1}`));
  const shares = [0, 1, 2, 3].map((h) => stats[b.exLayer][h * 4 + 3]);
  const correct = shares.indexOf(Math.max(...shares));
  await ex.getByRole('radio', { name: 'Head 1' }).check();
  await ex.getByRole('button', { name: 'Check' }).click();
  await ex.locator('.verdict').waitFor();
  assert.equal(await ex.locator('.choice.is-answer').innerText(), `Head ${correct + 1}`);
  const verdict = await ex.locator('.verdict').innerText();
  if (correct === 0) assert.equal(verdict, 'Right.');
  else assert.notEqual(verdict, 'Right.');
  assert.match(await ex.locator('.exercise-result').innerText(), new RegExp(`Head ${correct + 1} is highest`));
  assert.deepEqual((await part('exercise')).correct, correct);

  // Another sentence: new tokens, maps and statistics, still the engine's.
  n = await renders();
  await page.locator('#mh-sentence').fill('Mary and John went to the store, and then Mary gave a book to John.');
  await page.waitForFunction(() => window.tfpLearn.state.brown.text.startsWith('Mary'), null, { timeout: 20_000 });
  await rendersAbove(n);
  await check();
  assert.deepEqual(site.problems, []);
});

test('chapter 6, figure 3: parameter and FLOP counts are the engine\'s, the same for every h', { timeout: 60_000 }, async () => {
  await fresh();
  await page.waitForFunction(() => window.tfpLearn.state.cost, null, { timeout: 20_000 });
  const engineCost = (C, H, T) => {
    const o = api.m._tfp_alloc(12 * 8);
    try {
      api.check(api.m._tfp_learn_mha_cost(C, H, T, 1, o));
      return Array.from(new Float64Array(api.m.HEAPU8.buffer, o, 12));
    } finally {
      api.m._tfp_free(o);
    }
  };
  const KEYS = ['headDim', 'paramsQ', 'paramsK', 'paramsV', 'paramsOut', 'paramsTotal', 'flopsQkv', 'flopsScores', 'flopsMix', 'flopsOut', 'flopsTotal', 'mapEntries'];
  const check = async () => {
    const c = await part('cost');
    const want = engineCost(c.dModel, c.heads, c.tokens);
    KEYS.forEach((k, i) => assert.equal(c.result[k], want[i], k));
    const C = c.dModel, T = c.tokens;
    assert.equal(c.result.paramsTotal, 4 * C * C + 4 * C);
    assert.equal(c.result.flopsTotal, 8 * T * C * C + 4 * T * T * C);
    // The table shows the engine's numbers (en: comma grouping).
    const shown = await page.locator('.mh-cost-table tbody tr[data-field="paramsTotal"] td.num').innerText();
    assert.equal(shown, want[5].toLocaleString('en'));
    assert.equal(await page.locator('.mh-cost-table tbody tr[data-field="flopsTotal"] td.num').innerText(), want[10].toLocaleString('en'));
    // Every h that divides d_model: the same parameters and FLOPs, h·T² weights.
    const rows = await page.locator('.mh-sweep-table tbody tr').count();
    assert.ok(rows >= 2);
    c.sweep.forEach(({ heads, result }) => {
      const w = engineCost(C, heads, T);
      assert.equal(result.paramsTotal, w[5]);
      assert.equal(result.paramsTotal, c.result.paramsTotal);
      assert.equal(result.flopsTotal, c.result.flopsTotal);
      assert.equal(result.mapEntries, heads * T * T);
    });
    return c;
  };
  const c0 = await check();
  assert.deepEqual([c0.dModel, c0.heads, c0.tokens], [512, 8, 128]);
  let n = await renders();
  await page.selectOption('#mh-dmodel', '768');
  await rendersAbove(n);
  n = await renders();
  await page.selectOption('#mh-h', '12');
  await rendersAbove(n);
  n = await renders();
  await page.locator('#mh-tokens').fill('1024');
  await rendersAbove(n);
  const c1 = await check();
  assert.deepEqual([c1.dModel, c1.heads, c1.tokens], [768, 12, 1024]);
  assert.equal(c1.result.headDim, 64);
  assert.match(await page.locator('.mistake').nth(1).innerText(), /768/);
  assert.deepEqual(site.problems, []);
});

test('chapter 6: the language switch rewrites the prose and keeps the inputs; 390 px; screenshots', { timeout: 90_000 }, async () => {
  await fresh();
  // Words other than the default: the switch must keep them.
  const n = await renders();
  await page.locator('#mh-words').fill('one two three');
  await rendersAbove(n);
  await page.waitForFunction(() => window.tfpLearn.state.lab.tokens?.join(' ') === 'one two three', null, { timeout: 20_000 });
  await site.shot('learn/multi_head_en_1280', { fullPage: true });
  const enFirst = await page.locator('.chapter-section').first().innerText();
  const lab = await part('lab');
  assert.deepEqual(lab.tokens, ['one', 'two', 'three']);
  await page.selectOption('#lang-select', 'zh-CN');
  await page.waitForFunction(() => document.querySelector('.chapter-section h2').textContent.includes('个头'));
  const zhFirst = await page.locator('.chapter-section').first().innerText();
  assert.notEqual(zhFirst, enFirst);
  assert.match(zhFirst, /查询/);
  assert.deepEqual((await part('lab')).tokens, lab.tokens);
  assert.match(await page.locator('.exercise h3').innerText(), /先预测/);
  assert.match(await page.locator('.mh-found').innerText(), /前一词元头/);
  await page.waitForTimeout(300);
  await site.shot('learn/multi_head_zh_1280', { fullPage: true });
  await page.setViewportSize({ width: 390, height: 800 });
  // Charts redraw for the new width when they get to it: wait for that, not for a time.
  await page.waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `sideways scroll at 390 px: ${overflow}`);
  await site.shot('learn/multi_head_zh_390', { fullPage: true });
  await page.selectOption('#lang-select', 'en');
  await page.waitForTimeout(300);
  await site.shot('learn/multi_head_en_390', { fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(site.problems, []);
});
