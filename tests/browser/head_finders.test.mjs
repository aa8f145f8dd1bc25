// The playground's head finders view (issue 33; pages/playground/head_finders.ts) in
// Chromium, on the shipped brown-gpt (else the bundled GPT-2 fixture):
//   - the sequence is engine/head_finders.mjs's repeatedSequence for the view's seed, R
//     and prefix (the tokenizer's bos, else the model's eos);
//   - every number in the table (data-value, and the text to 3 decimals) equals the
//     engine's: the same model run here in Node on the same WASM module through the C API
//     (tests/js/model_api.mjs) on that sequence, then tfp_attention_head_scores and
//     tfp_attention_head_stats_masked (causal) per layer (1e-6: same code, same inputs);
//   - pressing a column header sorts the rows by it (again: the other way);
//   - a new seed or R reruns the model on the new sequence, and the URL keeps them
//     (hfseed, hfr); an R too long for the context shows the engine's refusal;
//   - detect_head's exclude_bos / exclude_current_token boxes (URL hfx) change the TL
//     columns as the engine computes them with those flags; the table saves as CSV;
//   - pressing a row, or a head's pattern, opens that head in the matrix view;
//   - on the encoder–decoder numbers-transformer both sets' heads are listed, each with
//     the engine's numbers (the decoder reads the same sequence, teacher forcing);
//   - no console errors, no request off the page's host.
// Each test opens the page afresh with the URL it needs (freshPage): none inherits another's
// model, view or settings.
// Screenshot: build/screenshots/playground_view_heads.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { freshPage, openSite, playgroundProbes, SHOTS, urlMatches } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readFixture, readShipped, hasShipped } from '../js/model_api.mjs';
import { repeatedSequence } from '../../web/src/engine/head_finders.mjs';

const SHIPPED = hasShipped('brown-gpt');
const MODEL = SHIPPED ? 'brown-gpt' : 'fixture-gpt2_tiny';
const COLS = ['previousTL', 'previous', 'duplicateTL', 'duplicate', 'inductionTL', 'induction', 'firstToken', 'entropy', 'distance'];
// Where each column is in the engine's rows: [scores (H, 6) | stats (H, 4), index].
const WHERE = { previousTL: ['s', 0], duplicateTL: ['s', 1], inductionTL: ['s', 2], previous: ['s', 3], duplicate: ['s', 4],
                induction: ['s', 5], entropy: ['t', 0], distance: ['t', 1], firstToken: ['t', 2] };

let site, page, base, api, model, info;
before(async () => {
  api = new ModelApi(await loadTfp());
  model = api.load(SHIPPED ? readShipped('brown-gpt') : readFixture('gpt2_tiny'), MODEL);
  info = api.info(model);
  site = await openSite({ name: 'heads' });
  ({ page, base } = site);
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const { num, after: after_, shown } = playgroundProbes(() => page, { timeout: 30_000 });

function call(fn, map, n) {
  const [H] = map.dims;
  const p = api.put(map.data), o = api.m._tfp_alloc(H * n * 4);
  try {
    api.check(fn(p, o));
    const all = new Float32Array(api.m.HEAPU8.buffer, o, H * n).slice();
    return Array.from({ length: H }, (_, h) => all.subarray(h * n, (h + 1) * n));
  } finally { api.m._tfp_free(p); api.m._tfp_free(o); }
}
/** The engine's rows in Node: { 'layer,head': { column: value } }. */
function oracle(ids, repeat, flags = 0) {
  const f = api.forward(model, ids, { attention: true });
  const out = {};
  for (let l = 0; l < info.n_decoder_layers; l++) {
    const map = f[`dec.${l}.attn.probs`], T = ids.length;
    const t = api.put(Int32Array.from(ids));
    let scores;
    try {
      scores = call((p, o) => api.m._tfp_attention_head_scores(p, map.dims[0], T, t, repeat, flags, o), map, 6);
    } finally { api.m._tfp_free(t); }
    const stats = call((p, o) => api.m._tfp_attention_head_stats_masked(p, map.dims[0], T, T, 1, 0, o), map, 4);
    scores.forEach((row, h) => {
      out[`${l},${h}`] = Object.fromEntries(COLS.map((c) => [c, (WHERE[c][0] === 's' ? row : stats[h])[WHERE[c][1]]]));
    });
  }
  return out;
}
const tableRows = () => page.locator('.hf-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({
  layer: Number(tr.dataset.layer), head: Number(tr.dataset.head),
  cells: Object.fromEntries([...tr.children].map((c) => [c.dataset.col, { value: Number(c.dataset.value), text: c.textContent }])),
})));
async function waitHeads(seed) {
  await page.waitForFunction((seed) => window.tfpPlay?.shown?.view === 'heads' && window.tfpPlay.shown.note?.startsWith(`seed ${seed} `),
    seed, { timeout: 60_000 });
  return shown();
}

function checkTable(rows, want, what) {
  assert.equal(rows.length, info.n_decoder_layers * info.n_heads, `${what}: one row per head`);
  for (const r of rows) {
    const w = want[`${r.layer},${r.head}`];
    assert.equal(r.cells.layer.value, r.layer + 1);
    assert.equal(r.cells.head.value, r.head + 1);
    for (const c of COLS) {
      assert.ok(Math.abs(r.cells[c].value - w[c]) <= 1e-6, `${what} L${r.layer + 1} H${r.head + 1} ${c}: page ${r.cells[c].value}, engine ${w[c]}`);
      assert.equal(r.cells[c].text, w[c].toFixed(3));
    }
  }
}

test('head finders: the table shows the engine\'s scores on the seeded repeated sequence', { timeout: 180_000 }, async () => {
  await freshPage(page, `${base}/?model=${MODEL}&view=heads`);
  await after_('loads', 0, 60_000);
  let s = await waitHeads(0);
  const [, seed, repeat, prefix] = /^seed (\d+) repeat (\d+) prefix (\d+)$/.exec(s.note).map(Number);
  const bos = info.tokenizer?.special?.bos ?? -1;
  assert.equal(prefix, bos >= 0 ? bos : info.eos_token_id);
  assert.equal(repeat, Math.min(24, Math.floor((info.max_positions - 1) / 2)));
  const ids = repeatedSequence({ seed, repeat, prefixId: prefix, vocabSize: info.vocab_size });
  assert.deepEqual(s.panels['heads.ids'].data, Array.from(ids));
  const want = oracle(ids, repeat);
  checkTable(await tableRows(), want, 'seed 0');
  // The small multiples: one pattern per head, the maps of that same pass.
  assert.equal(await page.locator('.hf-multiples .hf-pattern').count(), info.n_decoder_layers * info.n_heads);
  const f = api.forward(model, ids, { attention: true });
  for (let l = 0; l < info.n_decoder_layers; l++) {
    const d = s.panels[`dec.${l}.attn.probs`].data, o = f[`dec.${l}.attn.probs`].data;
    assert.ok(d.every((v, k) => Math.abs(v - o[k]) <= 1e-6), `layer ${l + 1} patterns`);
  }
  // The page says whose conventions these are.
  assert.match(await page.locator('.head-finders .help').first().innerText(), /TransformerLens/);
  await page.locator('#inspector').screenshot({ path: `${SHOTS}playground_view_heads.png` });

  // Sorting: default induction, highest first; pressing it again: lowest first; another column.
  const sortedBy = (rows, c, desc) => rows.every((r, i) => i === 0 ||
    (desc ? rows[i - 1].cells[c].value >= r.cells[c].value : rows[i - 1].cells[c].value <= r.cells[c].value));
  let rows = await tableRows();
  assert.ok(sortedBy(rows, 'induction', true), 'default: induction descending');
  assert.equal(await page.locator('.hf-table th[data-col="induction"]').getAttribute('aria-sort'), 'descending');
  await page.locator('.hf-table th[data-col="induction"] button').click();
  rows = await tableRows();
  assert.ok(sortedBy(rows, 'induction', false), 'pressed again: induction ascending');
  await page.locator('.hf-table th[data-col="previousTL"] button').click();
  rows = await tableRows();
  assert.ok(sortedBy(rows, 'previousTL', true), 'previous (TL) descending');
  assert.equal(await page.locator('.hf-table th[data-col="previousTL"]').getAttribute('aria-sort'), 'descending');
  assert.equal(await page.locator('.hf-table th[data-col="induction"]').getAttribute('aria-sort'), 'none');
  await page.locator('.hf-table th[data-col="entropy"] button').click();
  assert.ok(sortedBy(await tableRows(), 'entropy', true), 'entropy descending');

  // A new seed: a new sequence, the engine's numbers on it.
  await page.locator('.hf-seed').fill('5');
  await page.locator('.hf-seed').dispatchEvent('change');
  s = await waitHeads(5);
  const ids5 = repeatedSequence({ seed: 5, repeat, prefixId: prefix, vocabSize: info.vocab_size });
  assert.deepEqual(s.panels['heads.ids'].data, Array.from(ids5));
  assert.notDeepEqual(Array.from(ids5), Array.from(ids));
  checkTable(await tableRows(), oracle(ids5, repeat), 'seed 5');
  // The URL keeps the seed (hfseed) and R (hfr): opened again, the same sequence.
  await page.waitForFunction(() => /[?&]hfseed=5(&|$)/.test(location.search), null, { timeout: 5_000 });
  await page.goto(page.url());
  s = await waitHeads(5);
  assert.deepEqual(s.panels['heads.ids'].data, Array.from(ids5));
  // An R that does not fit the context: the engine's refusal, and the fields to change it back.
  const tooLong = Math.floor(info.max_positions / 2) + 1;
  await page.locator('.hf-repeat').fill(String(tooLong));
  await page.locator('.hf-repeat').dispatchEvent('change');
  await page.waitForFunction(() => window.tfpPlay.shown?.note === 'error', null, { timeout: 30_000 });
  assert.match(await page.locator('#view .view-note').innerText(), /do not fit/);
  await page.locator('.hf-repeat').fill('10');
  await page.locator('.hf-repeat').dispatchEvent('change');
  s = await waitHeads(5);
  assert.match(s.note, / repeat 10 /);
  const ids10 = repeatedSequence({ seed: 5, repeat: 10, prefixId: prefix, vocabSize: info.vocab_size });
  assert.deepEqual(s.panels['heads.ids'].data, Array.from(ids10));
  checkTable(await tableRows(), oracle(ids10, 10), 'seed 5, R 10');
  await urlMatches(page, /[?&]hfr=10(&|$)/);
  // detect_head's flags: exclude BOS, then also the current token; the TL columns follow,
  // the plain ones and the statistics do not change.
  for (const [box, flags] of [['.hf-exclude-bos', 1], ['.hf-exclude-current', 3]]) {
    await page.locator(box).check();
    await page.waitForFunction((x) => window.tfpPlay.shown?.note?.endsWith(` exclude ${x}`), flags, { timeout: 30_000 });
    checkTable(await tableRows(), oracle(ids10, 10, flags), `flags ${flags}`);
    await urlMatches(page, new RegExp(`[?&]hfx=${flags}(&|$)`));
  }
  // The table as CSV: its rows in the table's order, every number in full.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.hf-csv').click()]);
  const csv = (await readFile(await download.path(), 'utf8')).trim().split('\n').map((l) => l.split(','));
  assert.deepEqual(csv[0], ['set', 'layer', 'head', ...COLS]);
  const shownRows = await tableRows();
  assert.equal(csv.length - 1, shownRows.length);
  shownRows.forEach((r, k) => {
    assert.deepEqual(csv[k + 1].slice(0, 3), ['dec', String(r.layer + 1), String(r.head + 1)]);
    COLS.forEach((c, j) => assert.equal(Number(csv[k + 1][3 + j]), r.cells[c].value));
  });
  // The picture buttons save the small multiples: one panel per head.
  const [svgFile] = await Promise.all([page.waitForEvent('download'), page.locator('#export-svg').click()]);
  const svgText = await readFile(await svgFile.path(), 'utf8');
  assert.match(svgText, /^<svg|<\?xml/);
  assert.equal((svgText.match(/>L\d+ H\d+</g) ?? []).length, info.n_decoder_layers * info.n_heads);
  assert.deepEqual(site.problems, [], 'no console errors');
});

test('head finders on an encoder–decoder (numbers-transformer): both sets\' heads, the engine\'s numbers',
  { timeout: 120_000, skip: !hasShipped('numbers-transformer') }, async () => {
  const nt = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  try {
    const ni = api.info(nt);
    await freshPage(page, `${base}/?model=numbers-transformer&view=heads`);
    const s = await waitHeads(0);
    const ids = s.panels['heads.ids'].data;
    const [, , repeat] = /^seed (\d+) repeat (\d+)/.exec(s.note).map(Number);
    // The decoder reads the same sequence (teacher forcing): its maps are square too.
    const f = api.forward(nt, ids, { attention: true, tgtIds: ids });
    const rows = await tableRows();
    assert.equal(rows.length, (ni.n_encoder_layers + ni.n_decoder_layers) * ni.n_heads);
    const sets = await page.locator('.hf-table tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.set));
    rows.forEach((r, k) => {
      const set = sets[k], map = f[`${set}.${r.layer}.attn.probs`], T = ids.length;
      assert.ok(r.cells.layer.text.startsWith(`${set} `), `layer cell names its set: ${r.cells.layer.text}`);
      const t = api.put(Int32Array.from(ids));
      let sc;
      try {
        sc = call((p, o) => api.m._tfp_attention_head_scores(p, map.dims[0], T, t, repeat, 0, o), map, 6)[r.head];
      } finally { api.m._tfp_free(t); }
      const st = call((p, o) => api.m._tfp_attention_head_stats_masked(p, map.dims[0], T, T, set === 'dec' ? 1 : 0, 0, o), map, 4)[r.head];
      for (const c of COLS) {
        const w = (WHERE[c][0] === 's' ? sc : st)[WHERE[c][1]];
        assert.ok(Math.abs(r.cells[c].value - w) <= 1e-6, `${set} L${r.layer + 1} H${r.head + 1} ${c}: page ${r.cells[c].value}, engine ${w}`);
      }
    });
    assert.deepEqual(site.problems, [], 'no console errors');
  } finally {
    api.free(nt);
  }
});

test('head finders: a row, or a pattern, opens that head in the matrix view', { timeout: 120_000 }, async () => {
  await freshPage(page, `${base}/?model=${MODEL}&view=heads`);
  await waitHeads(0);
  const pick = page.locator('.hf-table tbody tr').nth(2);
  const layer = Number(await pick.getAttribute('data-layer')), head = Number(await pick.getAttribute('data-head'));
  let r = await num('renders');
  await pick.click();
  await after_('renders', r);
  let s = await shown();
  assert.equal(s.view, 'matrix');
  assert.deepEqual([s.layer, s.head], [layer, head]);
  assert.deepEqual(await page.evaluate(() => [window.tfpPlay.state.view, window.tfpPlay.state.layer, window.tfpPlay.state.head]),
    ['matrix', layer, head]);
  await urlMatches(page, /view=matrix/);
  // Back to the head finders; the last pattern (last layer, last head) opens its head.
  r = await num('renders');
  await page.locator('#tab-heads').click();
  await waitHeads(0);
  r = await num('renders');
  await page.locator('.hf-multiples .hf-pattern').last().click();
  await after_('renders', r);
  s = await shown();
  assert.equal(s.view, 'matrix');
  assert.deepEqual([s.layer, s.head], [info.n_decoder_layers - 1, info.n_heads - 1]);
  // Keyboard: Enter on a focused row opens it too.
  await page.locator('#tab-heads').click();
  await waitHeads(0);
  const row = page.locator('.hf-table tbody tr').first();
  const l0 = Number(await row.getAttribute('data-layer')), h0 = Number(await row.getAttribute('data-head'));
  r = await num('renders');
  await row.focus();
  await page.keyboard.press('Enter');
  await after_('renders', r);
  s = await shown();
  assert.deepEqual([s.view, s.layer, s.head], ['matrix', l0, h0]);
  assert.deepEqual(site.problems, [], 'no console errors');
});
