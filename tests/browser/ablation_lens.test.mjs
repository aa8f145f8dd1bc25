// Head ablation and the logit lens in the playground (Chromium), on the shipped brown-gpt:
//   - the "Logit lens" view: every cell's top token (as text) and the grid's numbers equal
//     tfp_model_logit_lens run here in Node on the same WASM module (ids exact,
//     probabilities within 1e-6); arrow keys move the focus and the readout shows the
//     engine's top 5; no "masked" swatch in its legend (nothing is masked there); the
//     data table has one row per (layer, position), 32 a page with the shared pager
//     (data_table.ts), each row the engine's top 5, and follows the keyboard cursor;
//   - the model view: a head toggle switches the head off, the URL keeps it, the model
//     runs again: the next-token bars and the "what changed" table equal
//     tfp_model_head_mask_effect with the same mask in Node (1e-6), and they differ from
//     the bars before; the matrix view's slider scales a head (URL "=0.5");
//   - reset restores the bars exactly; a link with ablate= reproduces the ablation;
//   - numbers-transformer with beam=4: "what changed" compares the translations decoded
//     with the page's beam - equal to tfp_model_translate with beam 4 without/with the
//     mask (exact ids) and to tfp_model_head_mask_effect(beam 4); the panel says "beam 4";
//     a beam of 1 re-runs it greedily;
//   - the masked-LM fixture with [MASK]s: each mask's fillers before/after equal
//     tfp_model_fill_mask without/with the mask (ids exact, probabilities 1e-6), and the
//     tables print them; without a [MASK] the per-position labels come back;
//   - no console errors; screenshots light/dark (build/screenshots/ablation_*.png, lens_*.png).
// Each test opens the page afresh with the URL it needs (freshPage: default screen and
// theme, nothing saved): no test inherits another's model, ablation, theme or screen size.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freshPage, openSite, playgroundProbes, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { hasShipped, ModelApi, readFixture, readShipped } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';

const TEXT = 'The jury said the city';
// Long enough for the lens table to need pages: (4 + 1) × T rows > 32.
const LENS_TEXT = 'The jury said the city of Atlanta had a good record in the election';
const HAVE = hasShipped('brown-gpt');
let site, page, base, api, gpt;

before(async () => {
  api = new ModelApi(await loadTfp());
  if (HAVE) {
    gpt = api.load(readShipped('brown-gpt'), 'brown-gpt');
  }
  site = await openSite({ name: 'ablation_lens' });
  ({ page, base } = site);
}, { timeout: 180_000 });

after(async () => {
  if (gpt) api.free(gpt);
  await site?.close();
});

const { after: after_, num } = playgroundProbes(() => page);
const bars = () => page.evaluate(() => window.tfpPlay.outputs.nextTokens.map((c) => ({ id: c.id, prob: c.prob })));

/** Waits until the page has rendered `view` for the current ablation text. */
async function settled(view, ablate) {
  await page.waitForFunction(([v, a]) => window.tfpPlay?.shown?.view === v && window.tfpPlay.state.ablate === a
    && !document.querySelector('.view-note'), [view, ablate], { timeout: 60_000 });
  // The bars, then the effect, come from the compute() for this ablation.
  await page.waitForFunction((a) => window.tfpPlay.ablation.effectFor === a, ablate);
}

test('brown-gpt: logit lens view = tfp_model_logit_lens; keyboard; table', { timeout: 180_000, skip: HAVE ? false : 'no models/brown-gpt' }, async () => {
  await freshPage(page, `${base}/?model=brown-gpt&view=analyse&ps=lens&text=${encodeURIComponent(LENS_TEXT)}`);
  await after_('loads', 0, 60_000);
  await page.waitForFunction(() => window.tfpPlay?.shown?.view === 'analyse' && window.tfpPlay.shown.panels['lens.ids'], null, { timeout: 60_000 });
  const ids = await page.evaluate(() => window.tfpPlay.encoding.ids);
  const want = api.logitLens(gpt, ids, { topK: 5 });
  const shown = await page.evaluate(() => {
    const p = window.tfpPlay.shown.panels;
    return { ids: Array.from(p['lens.ids'].data), probs: Array.from(p['lens.probs'].data), dims: p['lens.ids'].dims };
  });
  const T = ids.length, L = 4;
  assert.deepEqual(shown.dims, [L + 1, T, 5]);
  assert.deepEqual(shown.ids, Array.from(want.ids.data));
  close(shown.probs, Array.from(want.probs.data), 'lens probs');
  // Each cell: the engine's top id, as the vocabulary spells it (text, no markup).
  const cells = await page.locator('.lens-cell').evaluateAll((els) => els.map((e) => ({
    id: Number(e.dataset.id), p: Number(e.dataset.p), text: e.textContent, kids: e.children.length })));
  assert.equal(cells.length, (L + 1) * T);
  cells.forEach((c, i) => {
    assert.equal(c.id, want.ids.data[i * 5]);
    assert.ok(Math.abs(c.p - want.probs.data[i * 5]) <= 1e-6);
    assert.equal(c.kids, 0);
    assert.ok(c.text.length > 0);
  });
  // The last row is the model's own next-token prediction: its last cell is the top bar.
  const top = await bars();
  assert.equal(cells[L * T + T - 1].id, top[0].id);
  await page.screenshot({ path: `${SHOTS}lens_light.png`, fullPage: true });

  // Keyboard: one tab stop; ArrowDown/ArrowRight move it; the readout lists the top 5.
  await page.locator('.lens-cell[tabindex="0"]').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  const focus = await page.evaluate(() => ({ row: document.activeElement?.dataset.row, col: document.activeElement?.dataset.col,
                                             readout: document.querySelector('.lens-readout').textContent,
                                             outline: getComputedStyle(document.activeElement).outlineStyle }));
  assert.deepEqual([focus.row, focus.col], ['1', '1']);
  assert.equal(focus.outline, 'solid');
  const k = (1 * T + 1) * 5;
  for (let j = 0; j < 5; j++) assert.ok(focus.readout.includes(`${(100 * want.probs.data[k + j]).toFixed(1)}%`), focus.readout);
  // Nothing is masked in the lens: its legend has the colour scale only.
  assert.equal(await page.locator('.lens-view .color-legend .legend-scale').count(), 1);
  assert.equal(await page.locator('.lens-view .color-legend .legend-mask').count(), 0);
  // The data table: one row per layer and position, 32 a page (the shared pager).
  const N = (L + 1) * T, PAGE = 32;
  assert.ok(N > PAGE, `${N} rows: the text should need more than one page`);
  const tableRows = () => page.locator('.lens-view details.data-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => ({ at: Number(tr.dataset.at), cursor: tr.classList.contains('cursor'), cells: [...tr.children].map((c) => c.textContent) })));
  const checkRows = (rows, from) => rows.forEach((r, i) => {
    const at = from + i, t = at % T;
    assert.equal(r.at, at);
    assert.equal(r.cells[1], String(t + 1));
    for (let j = 0; j < 5; j++) assert.ok(r.cells[3].includes(`${(100 * want.probs.data[at * 5 + j]).toFixed(1)}%`), `row ${at}: ${r.cells[3]}`);
  });
  await page.locator('.lens-view details.data-table summary').click();
  await page.waitForFunction((n) => document.querySelectorAll('.lens-view details.data-table tbody tr').length === n, PAGE);
  let rows = await tableRows();
  checkRows(rows, 0);
  const pager = page.locator('.lens-view .table-pager');
  assert.equal(await pager.locator('option').count(), Math.ceil(N / PAGE));
  assert.ok(await pager.getByRole('button', { name: 'previous rows' }).isDisabled());
  // The row of the cursor (layer 1, position 2) is marked.
  assert.deepEqual(rows.filter((r) => r.cursor).map((r) => r.at), [1 * T + 1]);
  await pager.getByRole('button', { name: 'next rows' }).click();
  await page.waitForFunction((a) => document.querySelector('.lens-view details.data-table tbody tr')?.dataset.at === String(a), PAGE);
  rows = await tableRows();
  assert.equal(rows.length, Math.min(PAGE, N - PAGE));
  checkRows(rows, PAGE);
  await pager.getByRole('button', { name: 'previous rows' }).click();
  await page.waitForFunction(() => document.querySelector('.lens-view details.data-table tbody tr')?.dataset.at === '0');
  // The table follows the keyboard cursor to the page of its row: the last cell of the output row.
  await page.locator('.lens-cell[tabindex="0"]').focus();
  for (let i = 0; i < L; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  const last = N - 1, lastPage = Math.floor(last / PAGE);
  await page.waitForFunction((a) => document.querySelector('.lens-view details.data-table tbody tr')?.dataset.at === String(a), lastPage * PAGE);
  rows = await tableRows();
  checkRows(rows, lastPage * PAGE);
  assert.deepEqual(rows.filter((r) => r.cursor).map((r) => r.at), [last]);
  assert.equal(await pager.locator('select').inputValue(), String(lastPage));
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: `${SHOTS}lens_dark.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  // A 390 px phone: the grid scrolls inside its box, the page does not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth) <= 0, 'lens at 390 px');
  await page.setViewportSize({ width: 1280, height: 720 });
  assert.deepEqual(site.problems, []);
});

test('brown-gpt: ablating a head changes the bars as the engine says; reset restores them', { timeout: 180_000, skip: HAVE ? false : 'no models/brown-gpt' }, async () => {
  await freshPage(page, `${base}/?model=brown-gpt&view=model&text=${encodeURIComponent(TEXT)}`);
  await after_('loads', 0, 60_000);
  await settled('model', '');
  // The causal maps' legend keeps its "masked" swatch (only the lens drops it).
  assert.equal(await page.locator('#inspector .color-legend .legend-mask').count(), 1);
  const ids = await page.evaluate(() => window.tfpPlay.encoding.ids);
  const plain = await bars();
  api.setHeadMask(gpt, []);
  const base0 = api.headMaskEffect(gpt, ids, 10);
  // Without ablation the bars are the model's own top 10 (= "before" = "after").
  plain.forEach((b) => {
    const i = Array.from(base0.ids.data).indexOf(b.id);
    assert.ok(i >= 0 && Math.abs(base0.after.data[i] - b.prob) <= 1e-6);
  });

  // Switch off layer 1 head 1 and layer 4 head 3 with the toggles under the grid.
  await page.locator('.abl-toggle[data-layer="0"][data-head="0"]').click();
  await settled('model', 'dec.1.1=0');
  await page.locator('.abl-toggle[data-layer="3"][data-head="2"]').click();
  await settled('model', 'dec.1.1=0,dec.4.3=0');
  // The URL is written at most every 150 ms (main.ts): wait for it.
  await page.waitForFunction(() => /[?&]ablate=dec\.1\.1%3D0%2Cdec\.4\.3%3D0(&|$)/.test(location.search));
  assert.equal(await page.locator('.abl-toggle[aria-pressed="true"]').count(), 2);
  assert.equal(await page.locator('.lh-tile.ablated').count(), 2);
  api.setHeadMask(gpt, [{ set: 'dec', layer: 0, scales: [0, 1, 1, 1] }, { set: 'dec', layer: 3, scales: [1, 1, 0, 1] }]);
  const eff = api.headMaskEffect(gpt, ids, 8);
  const eff10 = api.headMaskEffect(gpt, ids, 10);
  const ablated = await bars();
  ablated.forEach((b) => {
    const i = Array.from(eff10.ids.data).indexOf(b.id);
    assert.ok(i >= 0, `bar id ${b.id} is in the engine's top 10`);
    assert.ok(Math.abs(eff10.after.data[i] - b.prob) <= 1e-6, `bar ${b.id}`);
  });
  assert.notDeepEqual(ablated, plain);
  // "What changed": the engine's union of top 8, before and after, with Δ.
  const pageEff = await page.evaluate(() => {
    const e = window.tfpPlay.ablation.effect;
    return { kind: e.kind, ids: Array.from(e.ids), before: Array.from(e.before), after: Array.from(e.after) };
  });
  assert.equal(pageEff.kind, 'next-token');
  assert.deepEqual(pageEff.ids, Array.from(eff.ids.data));
  close(pageEff.before, Array.from(eff.before.data), 'effect before');
  close(pageEff.after, Array.from(eff.after.data), 'effect after');
  const rows = await page.locator('.abl-next tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.equal(rows.length, eff.ids.data.length);
  rows.forEach((r, i) => {
    assert.equal(r[1], `${(100 * eff.before.data[i]).toFixed(1)}%`);
    assert.equal(r[2], `${(100 * eff.after.data[i]).toFixed(1)}%`);
  });
  await page.screenshot({ path: `${SHOTS}ablation_light.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: `${SHOTS}ablation_dark.png`, fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth) <= 0, 'ablation at 390 px');
  await page.screenshot({ path: `${SHOTS}ablation_390.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 720 });

  // A link reproduces the ablation.
  const p2 = await site.newPage();
  await p2.goto(page.url());
  await p2.waitForFunction(() => window.tfpPlay?.ablation?.effectFor === 'dec.1.1=0,dec.4.3=0', null, { timeout: 60_000 });
  assert.deepEqual(await p2.evaluate(() => window.tfpPlay.outputs.nextTokens.map((c) => ({ id: c.id, prob: c.prob }))), ablated);
  await p2.close();

  // The matrix view's slider scales the selected head (layer 1 head 1 → × 0.5).
  await page.locator('#tab-matrix').click();
  await page.waitForFunction(() => window.tfpPlay.shown.view === 'matrix' && document.querySelector('#abl-scale'));
  await page.locator('#abl-scale').evaluate((el) => { el.value = '0.5'; el.dispatchEvent(new Event('change')); });
  await settled('matrix', 'dec.1.1=0.5,dec.4.3=0');
  api.setHeadMask(gpt, [{ set: 'dec', layer: 0, scales: [0.5, 1, 1, 1] }, { set: 'dec', layer: 3, scales: [1, 1, 0, 1] }]);
  const half = api.headMaskEffect(gpt, ids, 10);
  for (const b of await bars()) {
    const i = Array.from(half.ids.data).indexOf(b.id);
    assert.ok(i >= 0 && Math.abs(half.after.data[i] - b.prob) <= 1e-6);
  }

  // Reset: every head back; the bars are exactly the first ones again.
  await page.locator('.abl-reset').first().click();
  await settled('matrix', '');
  assert.deepEqual(await bars(), plain);
  await page.waitForFunction(() => !location.search.includes('ablate='));
  assert.deepEqual(site.problems, []);
});

test('another model picked starts without the ablated heads and on its own attention set', { timeout: 180_000, skip: HAVE ? false : 'no models/brown-gpt' }, async () => {
  await freshPage(page, `${base}/?model=brown-gpt&view=model&set=dec&ablate=${encodeURIComponent('dec.1.1=0')}&text=${encodeURIComponent(TEXT)}`);
  await after_('loads', 0, 60_000);
  await settled('model', 'dec.1.1=0');
  const loads = await num('loads');
  await page.locator('#model-select').selectOption('fixture-gpt2_tiny');
  await after_('loads', loads, 60_000);
  await page.waitForFunction(() => window.tfpPlay.state.model === 'fixture-gpt2_tiny' && window.tfpPlay.attention.length > 0);
  const s = await page.evaluate(() => window.tfpPlay.state);
  assert.equal(s.ablate, '');
  assert.equal(s.set, '');
  await page.waitForFunction(() => !location.search.includes('ablate='));
  assert.deepEqual(site.problems, []);
});

const HAVE_NT = hasShipped('numbers-transformer');
const pageEffect = () => page.evaluate(() => {
  const e = window.tfpPlay.ablation.effect;
  const arr = (x) => (x ? Array.from(x) : null);
  return { ...e, before: arr(e.before), after: arr(e.after), positions: arr(e.positions), beforeIds: arr(e.beforeIds),
           afterIds: arr(e.afterIds), beforeProbs: arr(e.beforeProbs), afterProbs: arr(e.afterProbs) };
});

test('numbers-transformer: "what changed" translates with the page\'s beam', { timeout: 180_000, skip: HAVE_NT ? false : 'no models/numbers-transformer' }, async () => {
  const nt = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  try {
    const text = 'three hundred and forty two';
    // Cross-attention of layer 1 off, of layer 2 halved (1-based in the URL).
    const ablate = 'cross.1.1=0,cross.1.2=0,cross.1.3=0,cross.1.4=0,cross.2.1=0.5,cross.2.2=0.5,cross.2.3=0.5,cross.2.4=0.5';
    const mask = [{ set: 'cross', layer: 0, scales: [0, 0, 0, 0] }, { set: 'cross', layer: 1, scales: [0.5, 0.5, 0.5, 0.5] }];
    await freshPage(page, `${base}/?model=numbers-transformer&view=model&beam=4&text=${encodeURIComponent(text)}&ablate=${encodeURIComponent(ablate)}`);
    await after_('loads', 0, 60_000);
    await page.waitForFunction((a) => window.tfpPlay?.ablation?.effectFor === a && window.tfpPlay.ablation.effect, ablate, { timeout: 60_000 });
    const ids = await page.evaluate(() => window.tfpPlay.encoding.ids);
    const src = api.tokenize(nt, text).ids;
    assert.deepEqual(ids, src);
    api.setHeadMask(nt, []);
    const plain4 = api.translate(nt, src, { beamSize: 4 }).ids, plain1 = api.translate(nt, src).ids;
    api.setHeadMask(nt, mask);
    const masked4 = api.translate(nt, src, { beamSize: 4 }).ids, masked1 = api.translate(nt, src).ids;
    const eff4 = api.headMaskEffect(nt, src, 8, 4);
    assert.deepEqual(Array.from(eff4.before.data), plain4);
    assert.deepEqual(Array.from(eff4.after.data), masked4);
    let e = await pageEffect();
    assert.equal(e.kind, 'translation');
    assert.equal(e.beamSize, 4);
    assert.deepEqual(e.before, plain4);
    assert.deepEqual(e.after, masked4);
    assert.notDeepEqual(masked4, plain4);
    const decoding = await page.locator('.abl-changes .abl-decoding').textContent();
    assert.match(decoding, /beam 4/);
    await site.shot('ablation_translation_beam4', { fullPage: true });
    // Beam 1 in the translate form: the panel re-runs greedily.
    await page.locator('#beam').fill('1');
    await page.locator('#beam').dispatchEvent('change');
    await page.waitForFunction(() => window.tfpPlay.ablation.effect?.beamSize === 1, null, { timeout: 30_000 });
    e = await pageEffect();
    assert.deepEqual(e.before, plain1);
    assert.deepEqual(e.after, masked1);
    assert.match(await page.locator('.abl-changes .abl-decoding').textContent(), /greedy/);
    assert.deepEqual(site.problems, []);
  } finally {
    api.free(nt);
  }
});

test('masked-LM fixture: "what changed" shows each [MASK]\'s fillers = tfp_model_fill_mask without/with the mask', { timeout: 180_000 }, async () => {
  const mlm = api.load(readFixture('bert_mlm_tiny'), 'bert_mlm_tiny');
  try {
    const text = 'the [MASK] sat on the [MASK].';
    const ablate = 'enc.1.1=0,enc.1.2=0,enc.1.4=0,enc.2.1=0,enc.2.2=0,enc.2.4=0';
    const mask = [{ set: 'enc', layer: 0, scales: [0, 0, 1, 0] }, { set: 'enc', layer: 1, scales: [0, 0, 1, 0] }];
    await freshPage(page, `${base}/?model=fixture-bert_mlm_tiny&view=model&text=${encodeURIComponent(text)}&ablate=${encodeURIComponent(ablate)}`);
    await after_('loads', 0, 60_000);
    await page.waitForFunction((a) => window.tfpPlay?.ablation?.effectFor === a && window.tfpPlay.ablation.effect, ablate, { timeout: 60_000 });
    const ids = await page.evaluate(() => window.tfpPlay.encoding.ids);
    const K = 8;
    api.setHeadMask(mlm, []);
    const before = api.fillMask(mlm, ids, { topK: K });
    api.setHeadMask(mlm, mask);
    const after = api.fillMask(mlm, ids, { topK: K });
    assert.equal(before.length, 2);
    const e = await pageEffect();
    assert.equal(e.kind, 'fill-mask');
    assert.equal(e.k, K);
    assert.deepEqual(e.positions, before.map((w) => w.position));
    assert.deepEqual(e.beforeIds, before.flatMap((w) => w.ids));
    assert.deepEqual(e.afterIds, after.flatMap((w) => w.ids));
    close(e.beforeProbs, before.flatMap((w) => w.probs), 'fillers before');
    close(e.afterProbs, after.flatMap((w) => w.probs), 'fillers after');
    assert.notDeepEqual(e.afterProbs, e.beforeProbs);
    // One table per mask, K rows: "token (p%)" before and after, as the engine's numbers.
    const tables = await page.locator('.abl-fills').evaluateAll((ts) => ts.map((t) => ({
      position: Number(t.dataset.position),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((c) => c.textContent)) })));
    assert.equal(tables.length, 2);
    tables.forEach((t, r) => {
      assert.equal(t.position, before[r].position);
      assert.equal(t.rows.length, K);
      t.rows.forEach((row, k) => {
        assert.ok(row[1].endsWith(`(${(100 * before[r].probs[k]).toFixed(1)}%)`), row[1]);
        assert.ok(row[2].endsWith(`(${(100 * after[r].probs[k]).toFixed(1)}%)`), row[2]);
      });
    });
    assert.equal(await page.locator('.abl-tags').count(), 0);
    await site.shot('ablation_fill_mask', { fullPage: true });
    // No [MASK]: every position's most probable token, as before.
    const r = await num('renders');
    await page.locator('#text').fill('the cat sat on the mat.');
    await after_('renders', r);
    await page.waitForFunction(() => window.tfpPlay.ablation.effect?.kind === 'per-token', null, { timeout: 30_000 });
    assert.deepEqual(site.problems, []);
  } finally {
    api.free(mlm);
  }
});
