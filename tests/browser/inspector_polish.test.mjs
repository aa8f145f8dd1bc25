// The playground inspector's rough edges (issue 6), in Chromium:
//  1. matrix view: pressing a row label or a cell, or Enter on the keyboard cursor, picks
//     that query token — the same state as the token strip (strip, drill-down, lines);
//  2. encoder–decoder (numbers-transformer): in the cross set the token strip (the source)
//     picks a KEY, never the query; the drill-down's query buttons are the decoder rows;
//  3. cross-attention rows are labelled by the token each step produced ("→ 4"), the
//     decoder input in the hint;
//  4. every view exports a PNG and an SVG (the q·k drill-down included);
//  5. the URL is still written after rapid switches (writes are throttled);
//  6. a masked LM's [MASK] fillers come from the forward pass (no 'fill-mask' request to the
//     worker) and equal tfp_model_fill_mask in Node;
//  7. no page-level horizontal scroll at 390 px in any view of the shipped models.
// Oracles: the WASM module in Node through the C API (tests/js/model_api.mjs), tolerance
// 1e-6 (same code, same inputs); decoded tokens from the engine's own tokenizer.
// Each test opens the page afresh with the URL it needs (freshPage: 1280 × 720, light,
// nothing saved): no test inherits another's model, view, theme or screen size.
// Screenshots: build/screenshots/polish/<model>_<view>_<variant>.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { freshPage, openSite, playgroundProbes, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { hasShipped, ModelApi, MODELS, readFixture, readShipped } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';

const OUT = `${SHOTS}polish/`;
const VIEWS = ['model', 'matrix', 'lines', 'qk', 'cross', 'stats', 'rollout', 'compare'];

let site, page, base, api;
before(async () => {
  mkdirSync(OUT, { recursive: true });
  api = new ModelApi(await loadTfp());
  site = await openSite({ name: 'inspector_polish' });
  ({ page, base } = site);
  // Records the kind of every request the page sends to the engine worker.
  await site.context.addInitScript(() => {
    window.__workerKinds = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (msg, ...rest) {
      if (msg && typeof msg === 'object' && 'kind' in msg) window.__workerKinds.push(msg.kind);
      return post.call(this, msg, ...rest);
    };
  });
}, { timeout: 180_000 });
after(async () => { await site?.close(); });

const { num, after: after_, shown, translate } = playgroundProbes(() => page);
const state = () => page.evaluate(() => ({ ...window.tfpPlay.state }));
async function view(v) {
  const r = await num('renders');
  await page.locator(`#tab-${v}`).click();
  await page.waitForFunction(([v, n]) => window.tfpPlay.shown?.view === v && Number(document.body.dataset.renders) > n, [v, r], { timeout: 30_000 });
  return shown();
}
/** Where the canvas of the (only) heatmap in the view is, and its layout. */
async function heatmapBox() {
  const canvas = page.locator('#view .heatmap canvas').first();
  await canvas.evaluate((c) => c.scrollIntoView({ block: 'start' }));
  return { canvas, box: await canvas.boundingBox() };
}

async function exportsOf(v) {
  for (const [button, ext] of [['#export-png', '.png'], ['#export-svg', '.svg']]) {
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 15_000 }), page.locator(button).click()]);
    assert.ok(dl.suggestedFilename().endsWith(ext), `${v}: ${dl.suggestedFilename()}`);
    const body = await readFile(await dl.path());
    if (ext === '.png') {
      await dl.saveAs(`${OUT}export_${v.replace(/\W+/g, '_')}.png`);
      assert.deepEqual([...body.subarray(1, 4)], [0x50, 0x4e, 0x47], `${v}: a PNG`);
      assert.ok(body.length > 2000, `${v}: the PNG has a picture (${body.length} bytes)`);
    } else {
      assert.match(body.toString(), /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/, `${v}: an SVG`);
      assert.ok(/<(rect|line|circle)/.test(body.toString()), `${v}: the SVG draws something`);
    }
  }
}

const TEXT = 'The cat sat on the mat because it was tired.';

test('brown-gpt: matrix row labels, cells and Enter pick the query token like the token strip; every view exports', {
  timeout: 180_000, skip: hasShipped('brown-gpt') ? false : 'no models/brown-gpt',
}, async () => {
  await freshPage(page, `${base}/?model=brown-gpt&view=matrix&layer=2&head=2&text=${encodeURIComponent(TEXT)}`);
  await after_('loads', 0, 60_000);
  await page.waitForFunction(() => window.tfpPlay.shown?.view === 'matrix');
  const T = (await page.evaluate(() => window.tfpPlay.encoding.ids.length));
  const { canvas, box } = await heatmapBox();
  // The grid's geometry, as the widget laid it out (CSS px from the canvas's corner).
  const g = await canvas.evaluate((c) => ({ left: Number(c.dataset.left), top: Number(c.dataset.top), cell: Number(c.dataset.cell) }));
  assert.ok(g.cell >= 3 && g.left > 0 && g.top > 0, JSON.stringify(g));
  const cs = g.cell, x0 = box.x + g.left, y0 = box.y + g.top;
  assert.equal((await state()).token, null);

  // 1a. A cell (row 3, col 2) picks query 3.
  let r = await num('renders');
  await page.mouse.click(x0 + 1.5 * cs, y0 + 2.5 * cs);
  r = await after_('renders', r);
  assert.equal((await state()).token, 2);
  assert.equal(await page.locator('.token-span[aria-pressed="true"]').getAttribute('data-index'), '2', 'the strip shows the same token');
  // 1b. The row label of row 6 (left of the cells) picks query 6.
  await page.mouse.click(x0 - 12, y0 + 5.5 * cs);
  r = await after_('renders', r);
  assert.equal((await state()).token, 5);
  assert.equal(await page.locator('.token-span[aria-pressed="true"]').getAttribute('data-index'), '5');
  // 1c. The keyboard: focus the map, cursor down twice from (0,0), Enter picks row 3.
  await canvas.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  r = await after_('renders', r);
  assert.equal((await state()).token, 2);
  // The drill-down and the lines view use that query.
  let s = await view('qk');
  assert.equal(s.note, 'query 2');
  await page.waitForFunction(() => /[?&]token=3(&|$)/.test(location.search), null, { timeout: 30_000 });
  s = await view('lines');
  const drawn = await page.locator('.attention-lines line').count();
  assert.ok(drawn > 0 && drawn <= 3 * 4, `${drawn} lines for query 3 (causal: at most 3 keys a head)`);

  // 4. Every view exports a picture (cross has none in a decoder-only model: a note).
  for (const v of VIEWS.filter((v) => v !== 'cross')) {
    await view(v);
    await exportsOf(v);
  }

  // 5. Rapid head switches: the URL ends up with the last one.
  await view('matrix');
  for (let i = 0; i < 4; i++) await page.locator('#head-select').selectOption({ value: String(i % 4) });
  await page.locator('#head-select').selectOption({ value: '3' });
  await page.waitForFunction(() => /[?&]head=4(&|$)/.test(location.search), null, { timeout: 30_000 });
});

test('numbers-transformer: the strip picks source keys in the cross set, rows are labelled by the produced token, exports', {
  timeout: 120_000, skip: hasShipped('numbers-transformer') ? false : 'no models/numbers-transformer',
}, async () => {
  const text = 'forty-two thousand';
  const nt = api.load(readShipped('numbers-transformer'), 'numbers-transformer');
  const cfg = JSON.parse(readFileSync(`${MODELS}numbers-transformer/config.json`, 'utf8'));
  try {
    await freshPage(page, `${base}/?model=numbers-transformer&text=${encodeURIComponent(text)}&view=qk&set=cross&layer=2&head=3&beam=4`);
    await after_('loads', 0, 60_000);
    await after_('renders', 0);
    let r = await translate();
    const src = api.tokenize(nt, text).ids;
    const tr = api.translate(nt, src, { beamSize: 4, startId: cfg.decoder_start_token_id });
    const tgt = [cfg.decoder_start_token_id, ...tr.ids];
    // The tokens the decoder produced (the translation; then its end token).
    const outText = await page.locator('#translation').innerText();
    const produced = api.tokenize(nt, outText).tokens;
    assert.deepEqual([...api.tokenize(nt, outText).ids, cfg.eos_token_id], tr.ids);

    // 2. Query buttons are the decoder rows, labelled by the produced tokens.
    await page.waitForFunction(() => window.tfpPlay.shown?.view === 'qk' && window.tfpPlay.shown.set === 'cross');
    // No query picked: the drill-down opens on the step that produced the end token.
    assert.equal((await shown()).note, `query ${tgt.length - 2}`);
    assert.equal(await page.locator('.qk-token[aria-pressed="true"]').textContent(), `→ ${api.tokenize(nt, '.').tokens[0]}`);
    const buttons = await page.locator('.qk-token').allTextContents();
    assert.equal(buttons.length, tgt.length);
    assert.deepEqual(buttons.slice(0, produced.length), produced.map((p) => `→ ${p}`));
    assert.match(buttons[produced.length], /^→ ./, 'the step that produced the end token');
    assert.equal(buttons[tgt.length - 1], '(after end)');
    assert.match(await page.locator('.qk-token').first().getAttribute('aria-label'), /decoder input “⟨start⟩”/);
    assert.match(await page.locator('.qk-note').innerText(), /decoder positions/);
    const before_ = await state();
    // A source token in the strip picks a key: the query stays, the key row is marked.
    await page.locator('.token-span').nth(1).click();
    r = await after_('renders', r);
    const after1 = await state();
    assert.equal(after1.key, 1);
    assert.equal(after1.token, before_.token, 'the strip did not move the decoder query');
    assert.equal(await page.locator('.token-span[aria-pressed="true"]').getAttribute('data-index'), '1');
    assert.equal(await page.locator('.qk-table tbody tr.picked').count(), 1);
    assert.equal(await page.locator('.qk-table tbody tr').nth(1).getAttribute('class'), 'picked');
    // The drill-down's own buttons pick the decoder query (query 2 = the step that produced token 2).
    await page.locator('.qk-token').nth(1).click();
    r = await after_('renders', r);
    assert.equal((await state()).token, 1);
    assert.equal((await state()).key, 1);
    const s = await shown();
    const want = api.attentionSteps(nt, src, { set: 'cross', layer: 1, head: 2, query: 1, tgtIds: tgt });
    close(s.panels.probs.data, Array.from(want.probs.data), 'cross drill-down softmax');
    await page.screenshot({ path: `${OUT}numbers-transformer_qk_cross_key.png`, fullPage: true });
    await exportsOf('qk (cross)');

    // 3. The cross view: rows labelled "→ token", the input in the hint; a row press picks that query.
    await view('cross');
    await page.locator('#view .heatmap .data-table summary').click();
    await page.locator('#view .heatmap .data-table tbody th').first().waitFor();
    const rows = await page.locator('#view .heatmap .data-table tbody th').allTextContents();
    assert.deepEqual(rows.slice(0, produced.length), produced.map((p, i) => `${i + 1} → ${p}`));
    assert.equal(rows.length, tgt.length);
    assert.equal(rows[tgt.length - 1], `${tgt.length} (after end)`);
    await page.locator('#view .heatmap canvas').focus();
    await page.keyboard.press('ArrowRight');
    assert.match(await page.locator('#view .heatmap-readout').innerText(), /→ .*\(decoder input “⟨start⟩”\)/);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    r = await after_('renders', r);
    assert.equal((await state()).token, 2, 'Enter on row 3 picks decoder query 3');
    assert.equal((await state()).set, 'cross');
    await exportsOf('cross');
    await page.screenshot({ path: `${OUT}numbers-transformer_cross_labels.png`, fullPage: true });
    // Encoder self-attention: the strip picks the query again (source rows).
    await page.locator('#set-select').selectOption('enc');
    await page.locator('#tab-matrix').click();
    await page.locator('.token-span').nth(2).click();
    await page.waitForFunction(() => window.tfpPlay.state.token === 2);
  } finally {
    api.free(nt);
  }
});

test('masked LM: the [MASK] fillers come with the forward pass, no second pass', { timeout: 90_000 }, async () => {
  const mlm = api.load(readFixture('bert_mlm_tiny'), 'bert_mlm_tiny');
  try {
    await freshPage(page, `${base}/?model=fixture-bert_mlm_tiny&text=${encodeURIComponent('the [MASK] sat on the [MASK] .')}`);
    await after_('loads', 0, 60_000);
    await page.waitForFunction(() => (window.tfpPlay.outputs.fillMask ?? []).length === 2, null, { timeout: 30_000 });
    const kinds = await page.evaluate(() => window.__workerKinds);
    assert.ok(kinds.includes('forward'), kinds.join(','));
    assert.ok(!kinds.includes('fill-mask'), `no fill-mask request: ${kinds.join(',')}`);
    const { ids, list } = await page.evaluate(() => ({ ids: Array.from(window.tfpPlay.encoding.ids), list: window.tfpPlay.outputs.fillMask }));
    const want = api.fillMask(mlm, ids, { topK: 10 });
    assert.equal(list.length, want.length);
    want.forEach((m, i) => {
      assert.equal(list[i].position, m.position);
      assert.deepEqual(list[i].candidates.map((c) => c.id), m.ids);
      close(list[i].candidates.map((c) => c.prob), m.probs, `mask ${i + 1}`);
    });
  } finally {
    api.free(mlm);
  }
});

for (const model of ['brown-gpt', 'brown-pos', 'numbers-transformer', 'numbers-gru']) {
  test(`${model}: every view at 1280×720 light and dark and at 390 px, no horizontal page scroll`, {
    timeout: 240_000, skip: hasShipped(model) ? false : `no models/${model}`,
  }, async () => {
    const text = model.startsWith('numbers') ? 'three hundred and forty two' : TEXT;
    await freshPage(page, `${base}/?model=${model}&text=${encodeURIComponent(text)}`);
    await after_('loads', 0, 60_000);
    await page.waitForFunction(() => window.tfpPlay.shown !== null);
    if (model.startsWith('numbers')) {
      await translate();
    }
    for (const v of VIEWS) {
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.emulateMedia({ colorScheme: 'light' });
      await view(v);
      await page.locator('#inspector').screenshot({ path: `${OUT}${model}_${v}_light.png` });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.waitForTimeout(100);
      await page.locator('#inspector').screenshot({ path: `${OUT}${model}_${v}_dark.png` });
      await page.setViewportSize({ width: 390, height: 844 });
      // Charts redraw for the new width when they get to it: wait for that, not for a time.
      await page.waitForFunction(() => document.documentElement.scrollWidth - window.innerWidth <= 0, null, { timeout: 30_000 }).catch(() => {});
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${model} ${v}: the page scrolls sideways by ${overflow} px at 390 px`);
      await page.screenshot({ path: `${OUT}${model}_${v}_390.png`, fullPage: true });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 720 });
  });
}

test('nothing logged an error and only the page\'s host was contacted', () => {
  assert.deepEqual(site.problems, []);
  assert.deepEqual(site.foreignRequests(), []);
});
