// The playground's attention inspector at full context (brown-gpt, 4 layers × 4 heads,
// T = 128) in Chromium: what the fast drawing paints and the accessible alternatives.
//   - Model view: all L × H maps are drawn, the page's numbers equal the engine's, and
//     every device pixel of every tile has the colour the colour map gives the engine's
//     weight for the cells under it (max-pooled when a pixel covers several), masked
//     (causal) pixels hatched in neutral greys that no viridis colour has.
//     Oracle: the same model run here in Node on the same WASM module through the C API
//     (tests/js/model_api.mjs), tolerance 1e-6 (same code, same input); the colour table
//     is d3-scale-chromatic's interpolateViridis sampled at i/255 here, independently of
//     the page; colours must match exactly (putImageData of opaque pixels is lossless).
//   - A head switch in the model view moves the selection (aria-pressed) without
//     recreating or repainting any tile (same canvases, same pixels).
//   - Keyboard: arrow keys move between tiles, Enter opens the map; in the matrix view
//     arrow keys move a cell cursor and the aria-live readout says
//     "query i “tok” → key j “tok”: weight".
//   - Data tables: the matrix view's table (32-row pages at T = 128) lists the same
//     numbers as the map to 3 decimals ("masked" for masked cells); the head-statistics
//     table lists the engine's statistics to 3 decimals.
//   - Screenshots, light and dark, 1280×720 and 390 px wide: build/screenshots/inspector_*.png.
// Each test opens the page afresh (open(view): the model, text, view, screen and theme it
// needs): no test inherits another's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { interpolateViridis } from 'd3-scale-chromatic';
import { counter, counterAbove, freshPage, openSite, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readShipped } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';

const MODEL = 'brown-gpt';
// Plain prose, well over 128 tokens: the page (and the oracle) keep the first 128.
const TEXT = ('The committee said that the city government had done a fine job in the election, ' +
  'which was held last Friday after months of debate. Mrs. Williams told the jury that the ' +
  'new school would open in the fall, and that the teachers were ready for the children. ' +
  'He walked down the long road to the old house by the river, where his father had lived ' +
  'for many years before the war. The president asked the Congress to pass the bill before ' +
  'the end of the session, but the leaders of both parties were not sure that they had the votes.');

let site, page, api, model, want, T, L, H;

before(async () => {
  api = new ModelApi(await loadTfp());
  model = api.load(readShipped(MODEL), MODEL);
  const info = api.info(model);
  const ids = api.tokenize(model, TEXT).ids.slice(0, info.max_positions);
  T = ids.length;
  assert.equal(T, 128, 'the text fills the context');
  want = api.forward(model, ids, { attention: true });
  L = info.n_decoder_layers;
  H = info.n_heads;
  site = await openSite({ name: 'inspector-perf' });
  page = site.page;
}, { timeout: 240_000 });

after(async () => { await site?.close(); });

const renders = () => counter(page, 'renders');
const renderedAfter = (n) => counterAbove(page, 'renders', n, 30_000);
/** The state each test starts from: the playground loaded afresh on brown-gpt, the text and
 *  `view`, drawn; 1280 × 720, light, unless `opts` ({ viewport, colorScheme }) says otherwise. */
async function open(view, opts = {}) {
  await freshPage(page, `${site.base}/?model=${MODEL}&view=${view}&text=${encodeURIComponent(TEXT)}`, opts);
  await page.waitForFunction((v) => window.tfpPlay?.shown?.view === v && window.tfpPlay.encoding?.ids.length === 128 &&
    Object.keys(window.tfpPlay.shown.panels).length > 0, view, { timeout: 60_000 });
}
const LUT = Array.from({ length: 256 }, (_, i) => {
  const m = /^#(..)(..)(..)$/.exec(interpolateViridis(i / 255));
  return [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
});
const name = (l) => `dec.${l}.attn.probs`;

/** Pixels of every model-view tile: { l, h, w, hgt, rgba (base64) }. */
const tilePixels = () => page.evaluate(() => Array.from(document.querySelectorAll('.lh-tile'), (b) => {
  const c = b.querySelector('canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let s = '';
  for (let i = 0; i < d.length; i += 8192) s += String.fromCharCode(...d.subarray(i, i + 8192));
  return { l: Number(b.dataset.layer), h: Number(b.dataset.head), w: c.width, hgt: c.height, rgba: btoa(s) };
}));

test('model view: every map drawn with the engine\'s numbers, pixel for pixel', { timeout: 120_000 }, async () => {
  await open('model');
  assert.equal(await page.locator('.lh-tile').count(), L * H);
  const panels = await page.evaluate(() => Object.fromEntries(Object.entries(window.tfpPlay.shown.panels)
    .map(([k, v]) => [k, { dims: v.dims, data: Array.from(v.data) }])));
  for (let l = 0; l < L; l++) {
    assert.deepEqual(panels[name(l)].dims, [H, T, T]);
    close(panels[name(l)].data, Array.from(want[name(l)].data), `model view layer ${l + 1}`);
  }
  const tiles = await tilePixels();
  assert.equal(tiles.length, L * H);
  let masked = 0, hatchColours = new Set();
  for (const t of tiles) {
    const px = Buffer.from(t.rgba, 'base64');
    const probs = want[name(t.l)].data, off = t.h * T * T;
    const span = (x, n) => { const a = Math.min(T - 1, Math.floor((x * T) / n)); return [a, Math.max(a + 1, Math.min(T, Math.floor(((x + 1) * T) / n)))]; };
    for (let y = 0; y < t.hgt; y++) {
      const [r0, r1] = span(y, t.hgt);
      for (let x = 0; x < t.w; x++) {
        const [c0, c1] = span(x, t.w);
        let best = -Infinity;
        for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) if (c <= r) best = Math.max(best, probs[off + r * T + c]);
        const i = 4 * (y * t.w + x), got = [px[i], px[i + 1], px[i + 2]];
        assert.equal(px[i + 3], 255);
        if (best === -Infinity) {  // every cell under the pixel is after the query: masked
          masked++;
          assert.ok(Math.max(...got) - Math.min(...got) < 12, `L${t.l + 1}H${t.h + 1} (${x},${y}) masked but coloured ${got}`);
          hatchColours.add(got.join());
        } else {
          assert.deepEqual(got, LUT[Math.max(0, Math.min(255, Math.round(best * 255)))],
            `L${t.l + 1}H${t.h + 1} pixel (${x},${y}) = cells ${r0}..${r1 - 1} × ${c0}..${c1 - 1}, weight ${best}`);
        }
      }
    }
  }
  assert.ok(masked > 0, 'the causal mask is drawn');
  assert.equal(hatchColours.size, 2, `masked pixels are hatched in two greys: ${[...hatchColours].join(' / ')}`);
  await site.shot('inspector_model_light_1280');
});

test('model view: a head switch only moves the selection; keyboard opens a map', { timeout: 60_000 }, async () => {
  await open('model');
  const before = await tilePixels();
  await page.evaluate(() => {
    document.querySelectorAll('.lh-tile canvas').forEach((c) => (c.dataset.mark = 'kept'));
    // Count what is put on tile canvases from now on.
    const put = CanvasRenderingContext2D.prototype.putImageData;
    window.__tilePuts = 0;
    CanvasRenderingContext2D.prototype.putImageData = function (...a) {
      if (this.canvas.closest('.lh-tile')) window.__tilePuts++;
      return put.apply(this, a);
    };
  });
  const r = await renders();
  await page.locator('#head-select').selectOption({ value: '2' });
  await renderedAfter(r);
  assert.equal(await page.evaluate(() => window.__tilePuts), 0, 'a head switch repaints no tile');
  const pressed = await page.locator('.lh-tile[aria-pressed="true"]').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
  assert.deepEqual(pressed, ['layer 1 head 3']);
  assert.equal(await page.locator('.lh-tile canvas[data-mark="kept"]').count(), L * H, 'tiles reused, not recreated');
  const after = await tilePixels();
  assert.deepEqual(after.map((t) => t.rgba), before.map((t) => t.rgba), 'no tile repainted');
  // Layer switch as well: the selection moves to layer 3, head 3.
  const r2 = await renders();
  await page.locator('#layer-select').selectOption({ value: '2' });
  await renderedAfter(r2);
  assert.deepEqual(await page.locator('.lh-tile[aria-pressed="true"]').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label'))),
    ['layer 3 head 3']);
  assert.equal(await page.evaluate(() => window.__tilePuts), 0, 'a layer switch repaints no tile');
  // Keyboard: the selected tile is the tab stop; arrows move, Enter opens the map.
  await page.locator('.lh-tile[aria-pressed="true"]').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'layer 4 head 4');
  const r3 = await renders();
  await page.keyboard.press('Enter');
  await renderedAfter(r3);
  const s = await page.evaluate(() => ({ view: window.tfpPlay.shown.view, layer: window.tfpPlay.shown.layer, head: window.tfpPlay.shown.head }));
  assert.deepEqual(s, { view: 'matrix', layer: 3, head: 3 });
});

test('matrix view: keyboard cursor announces the cell; the data table has the same numbers', { timeout: 90_000 }, async () => {
  await open('matrix');
  const s = await page.evaluate(() => {
    const sh = window.tfpPlay.shown;
    const [k, v] = Object.entries(sh.panels)[0];
    return { layer: sh.layer, head: sh.head, title: k, data: Array.from(v.data), tokens: window.tfpPlay.encoding.tokens };
  });
  const exp = Array.from(want[name(s.layer)].data.subarray(s.head * T * T, (s.head + 1) * T * T));
  close(s.data, exp, 'matrix view');
  const map = page.locator('#view .heatmap').first();
  const readout = map.locator('.heatmap-readout');
  assert.equal(await readout.getAttribute('aria-live'), 'polite');
  await map.locator('canvas').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  const text = await readout.textContent();
  assert.match(text, new RegExp(`^query 3 “.*” → key 2 “.*”: ${exp[2 * T + 1].toFixed(3).replace('.', '\\.')}$`));
  await page.keyboard.press('End');  // last key of row 3: after the query, masked
  assert.match(await readout.textContent(), /^query 3 “.*” → key 128 “.*”: masked$/);
  await page.keyboard.press('Home');

  // Open the table with the keyboard (Tab to its disclosure button, Enter).
  const summary = map.locator('summary');
  await summary.focus();
  await page.keyboard.press('Enter');
  await map.locator('tbody tr').first().waitFor();
  const readTable = () => map.locator('table').evaluate((t) => ({
    caption: t.caption.textContent,
    cols: Array.from(t.tHead.rows[0].cells).slice(1).map((c) => c.textContent),
    rows: Array.from(t.tBodies[0].rows, (r) => ({ head: r.cells[0].textContent, scope: r.cells[0].getAttribute('scope'),
      cells: Array.from(r.querySelectorAll('td'), (td) => td.textContent), cursor: Array.from(r.querySelectorAll('td')).findIndex((td) => td.classList.contains('cursor')) })),
  }));
  let tab = await readTable();
  assert.equal(tab.rows.length, 32, 'a page of 32 rows at T = 128');
  assert.equal(tab.cols.length, T);
  assert.match(tab.caption, /rows: query tokens 1–32 of 128; columns: key tokens/);
  const check = (tb, r0) => tb.rows.forEach((row, i) => {
    const r = r0 + i;
    assert.equal(row.scope, 'row');
    assert.ok(row.head.startsWith(`${r + 1} `), `row header ${row.head}`);
    row.cells.forEach((v, c) => assert.equal(v, c > r ? 'masked' : exp[r * T + c].toFixed(3), `table cell ${r + 1},${c + 1}`));
  });
  check(tab, 0);
  assert.equal(tab.rows[2].cursor, 0, 'the keyboard cursor (query 3, key 1) is marked in the table');
  // Next page of rows.
  await map.getByRole('button', { name: 'next rows' }).click();
  tab = await readTable();
  assert.match(tab.caption, /33–64 of 128/);
  check(tab, 32);
  // The cursor moving onto another page of rows takes the table with it.
  await map.locator('canvas').focus();
  for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowUp');
  tab = await readTable();
  assert.match(tab.caption, /1–32 of 128/);
  assert.equal(tab.rows[0].cursor, 0);
  await site.shot('inspector_matrix_table_light_1280');
});

test('head statistics: the table lists the engine\'s numbers to 3 decimals', { timeout: 60_000 }, async () => {
  await open('stats');
  const panels = await page.evaluate(() => Object.fromEntries(Object.entries(window.tfpPlay.shown.panels)
    .map(([k, v]) => [k, Array.from(v.data)])));
  const chart = page.locator('.head-stats');
  await chart.locator('summary').click();
  await chart.locator('tbody tr').first().waitFor();
  const rows = await chart.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.cells, (c) => c.textContent)));
  assert.equal(rows.length, L * H);
  rows.forEach((row, k) => {
    const l = Math.floor(k / H), h = k % H, st = panels[`${name(l)}:stats`];
    assert.deepEqual(row, [String(l + 1), String(h + 1), ...[0, 1, 2, 3].map((j) => st[h * 4 + j].toFixed(3))]);
  });
});

test('screenshots: light and dark, desktop and phone width', { timeout: 90_000 }, async () => {
  for (const scheme of ['light', 'dark']) {
    for (const [w, h] of [[1280, 720], [390, 844]]) {
      const screen = { viewport: { width: w, height: h }, colorScheme: scheme };
      await open('model', screen);
      // The hatch of masked cells uses this theme's greys (--mask-bg, --mask-line).
      const hatch = await page.evaluate(() => {
        const css = getComputedStyle(document.documentElement);
        const c = document.querySelector('.lh-tile canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        const seen = new Set();
        for (let y = 0; y < c.height; y++) for (let x = y + 2; x < c.width; x++) {  // above the diagonal
          const i = 4 * (y * c.width + x);
          seen.add('#' + [d[i], d[i + 1], d[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join(''));
        }
        return { seen: [...seen].sort(), want: [css.getPropertyValue('--mask-bg').trim(), css.getPropertyValue('--mask-line').trim()].sort() };
      });
      assert.deepEqual(hatch.seen, hatch.want, `${scheme}: masked cells hatched in the theme's greys`);
      await page.locator('#inspector').scrollIntoViewIfNeeded();
      await site.shot(`inspector_model_${scheme}_${w}`);
      await page.locator('#inspector').screenshot({ path: `${SHOTS}inspector_model_${scheme}_${w}_panel.png` });
      await open('matrix', screen);
      await page.locator('#view .heatmap summary').click();
      await page.locator('#view .heatmap tbody tr').first().waitFor();
      await page.locator('#inspector').screenshot({ path: `${SHOTS}inspector_matrix_${scheme}_${w}_panel.png` });
    }
  }
  assert.deepEqual(site.problems, []);
  assert.deepEqual(site.foreignRequests(), []);
});

test('device pixel ratio 2: canvases have two device pixels per CSS pixel', { timeout: 60_000 }, async () => {
  const ctx = await site.browser.newContext({ viewport: { width: 1280, height: 720 }, deviceScaleFactor: 2 });
  const p2 = await ctx.newPage();
  try {
    for (const view of ['model', 'matrix']) {
      await p2.goto(`${site.base}/?model=${MODEL}&view=${view}&text=${encodeURIComponent(TEXT)}`);
      await p2.waitForFunction((v) => window.tfpPlay?.shown?.view === v && window.tfpPlay.encoding?.ids.length === 128, view, { timeout: 60_000 });
      const sizes = await p2.evaluate(() => Array.from(document.querySelectorAll('#view canvas'), (c) => {
        const r = c.getBoundingClientRect();
        return { w: c.width, h: c.height, cssW: r.width, cssH: r.height };
      }).filter((s) => s.cssW > 20));
      assert.ok(sizes.length > 0);
      for (const s of sizes) {
        assert.ok(Math.abs(s.w - 2 * s.cssW) <= 1 && Math.abs(s.h - 2 * s.cssH) <= 1, `${view}: canvas ${s.w}×${s.h} for ${s.cssW}×${s.cssH} CSS px`);
      }
      await p2.locator('#inspector').screenshot({ path: `${SHOTS}inspector_${view}_light_dpr2_panel.png` });
    }
  } finally { await ctx.close(); }
});
