// The attention lab page in Chromium (site built and served by harness.mjs); checks that
//   - the page draws one heatmap per head and its numbers equal the engine's — the same
//     request run here in Node on the same module (oracle; exact equality expected: the
//     same wasm code on the same inputs; tolerance 1e-6 allowed for engine differences
//     between V8 builds, none seen);
//   - changing heads / the mask redraws with the new engine result;
//   - masked cells are drawn grey-hatched (unsaturated), unlike any viridis colour;
//   - the data table and the keyboard readout show the same values;
//   - no request goes to any host but the page's own, and nothing logs an error.
// Screenshots go to build/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadTfp, Api } from '../js/tfp_module.mjs';
import { counterAbove, openSite, SHOTS, urlMatches } from './harness.mjs';
import { close } from '../js/compare.mjs';

let site, page, base, api, requests, problems;

before(async () => {
  api = new Api(await loadTfp());
  site = await openSite({ name: 'attention_lab' });
  ({ page, base, requests, problems } = site);
}, { timeout: 120_000 });

after(async () => { await site?.close(); });

/** Waits until the page has drawn more than `count` results; returns the new count. */
const renderedAfter = (count) => counterAbove(page, 'renders', count, 20_000);

/** The page's state and its last engine result, as plain arrays. */
function pageResult() {
  return page.evaluate(() => {
    const { state, result } = window.tfpLab;
    const t = (x) => ({ dims: x.dims, data: Array.from(x.data) });
    return { state, tokens: result.tokens, probs: t(result.probs), masked: t(result.masked), out: t(result.out) };
  });
}

function sameAsEngine(got) {
  const s = got.state;
  const padding = got.tokens.map((_, i) => (s.padding.includes(i) ? 1 : 0));
  const want = api.attention({ tokens: got.tokens, dModel: s.dModel, heads: s.heads, seed: s.seed,
                               causal: s.causal, window: s.window, padding });
  for (const name of ['probs', 'masked', 'out']) {
    assert.deepEqual(got[name].dims, want[name].dims, `${name} dims`);
    close(got[name].data, want[name].data, name);
  }
  return want;
}

test('the page draws every head with the engine\'s numbers and redraws on change', { timeout: 90_000 }, async () => {
  await page.goto(`${base}/lab.html?text=the+cat+sat+on+the+mat&heads=2&d=16&seed=5`);
  let renders = await renderedAfter(0);
  assert.equal(await page.locator('.head-grid-cells .heatmap canvas').count(), 2);
  let got = await pageResult();
  assert.deepEqual(got.tokens, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
  assert.deepEqual(got.probs.dims, [2, 6, 6]);
  sameAsEngine(got);
  assert.match(await page.locator('#status').textContent(), /6 tokens, 2 heads of 8 dimensions/);
  await page.screenshot({ path: `${SHOTS}attention_lab_1280x720.png` });

  // Four heads: four maps, new numbers from the engine.
  await page.locator('label[for="heads-4"]').click();
  renders = await renderedAfter(renders);
  assert.equal(await page.locator('.head-grid-cells .heatmap canvas').count(), 4);
  got = await pageResult();
  assert.equal(got.state.heads, 4);
  assert.deepEqual(got.probs.dims, [4, 6, 6]);
  sameAsEngine(got);
  await urlMatches(page, /heads=4/);

  // Causal mask: upper triangle masked, drawn hatched grey, listed as "masked".
  await page.locator('#causal').check();
  renders = await renderedAfter(renders);
  got = await pageResult();
  assert.equal(got.state.causal, true);
  const want = sameAsEngine(got);
  for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) assert.equal(got.masked.data[i * 6 + j], j > i ? 1 : 0);

  const first = page.locator('.heatmap').first();
  await first.locator('summary').click();
  // The table is drawn on the details' toggle event, a task after the click.
  await first.locator('tbody tr').first().waitFor();
  const cells = await first.locator('tbody tr').evaluateAll((rows) =>
    rows.map((r) => Array.from(r.querySelectorAll('td'), (td) => td.textContent)));
  assert.equal(cells.length, 6);
  for (let i = 0; i < 6; i++)
    for (let j = 0; j < 6; j++)
      assert.equal(cells[i][j], j > i ? 'masked' : want.probs.data[i * 6 + j].toFixed(3), `table cell ${i},${j}`);

  // Colour of a masked cell (query 1, key 6) vs an allowed one (query 6, key 1).
  const sampled = await first.locator('canvas').evaluate((canvas) => {
    // The hover readout names the cell under the pointer; scan for cell (row 1, col 6).
    const r = canvas.getBoundingClientRect();
    const hit = (x, y) => {
      canvas.dispatchEvent(new PointerEvent('pointermove', { clientX: r.left + x, clientY: r.top + y, bubbles: true }));
      return canvas.parentElement.querySelector('.heatmap-tooltip').textContent;
    };
    const found = {};
    for (let y = 2; y < r.height; y += 3)
      for (let x = 2; x < r.width; x += 3) {
        const t = hit(x, y);
        if (t.startsWith('query 1 ') && t.includes('key 6 ') && !found.masked) found.masked = [x, y];
        if (t.startsWith('query 6 ') && t.includes('key 1 ') && !found.allowed) found.allowed = [x, y];
      }
    canvas.dispatchEvent(new PointerEvent('pointerleave'));
    const ctx = canvas.getContext('2d');
    const s = canvas.width / r.width;
    const mean = ([x, y]) => {
      const d = ctx.getImageData(Math.round((x + 2) * s), Math.round((y + 2) * s), Math.round(12 * s), Math.round(12 * s)).data;
      const m = [0, 0, 0];
      for (let i = 0; i < d.length; i += 4) { m[0] += d[i]; m[1] += d[i + 1]; m[2] += d[i + 2]; }
      return m.map((v) => v / (d.length / 4));
    };
    return { masked: mean(found.masked), allowed: mean(found.allowed) };
  });
  const spread = (c) => Math.max(...c) - Math.min(...c);
  assert.ok(spread(sampled.masked) < 25, `masked cell is grey: ${sampled.masked}`);
  assert.ok(spread(sampled.allowed) > 40, `an allowed cell has a viridis colour: ${sampled.allowed}`);

  // Keyboard: focus the map, move right, the readout names the cell and its value.
  await first.locator('canvas').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  const readout = await first.locator('.heatmap-readout').textContent();
  assert.equal(readout, `query 2 “cat” → key 2 “cat”: ${want.probs.data[1 * 6 + 1].toFixed(3)}`);
  await page.screenshot({ path: `${SHOTS}attention_lab_causal_4_heads.png`, fullPage: true });

  // Padding by pressing a token: its column is masked for every query.
  await page.locator('.token-strip .token').nth(1).click();
  renders = await renderedAfter(renders);
  got = await pageResult();
  assert.deepEqual(got.state.padding, [1]);
  sameAsEngine(got);
  for (let i = 0; i < 6; i++) assert.equal(got.masked.data[i * 6 + 1], 1);

  // Typing new words recomputes (debounced).
  await page.locator('#text').fill('attention is all you need');
  renders = await renderedAfter(renders);
  got = await pageResult();
  assert.deepEqual(got.tokens, ['attention', 'is', 'all', 'you', 'need']);
  sameAsEngine(got);
});

test('dark theme and a narrow screen', { timeout: 60_000 }, async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`${base}/lab.html?text=the+restaurant+refused+to+serve+me+a+ham+sandwich&heads=4&d=32&causal=1&seed=2`);
  await renderedAfter(0);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(18, 18, 22)');
  await page.screenshot({ path: `${SHOTS}attention_lab_dark_1280x720.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForTimeout(300);
  // Nothing wider than the screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `page overflows a 390 px screen by ${overflow} px`);
  // The Heads buttons keep their natural size: not stretched to the grid row's height
  // (the d_model field beside them is taller) nor to the column's width.
  const heads = await page.evaluate(() => {
    const box = (e) => { const r = e.getBoundingClientRect(); return { w: r.width, h: r.height, top: r.top }; };
    const input = box(document.getElementById('seed'));
    return { group: box(document.querySelector('.segmented')), labels: [...document.querySelectorAll('.segmented label')].map(box),
             column: box(document.querySelector('.segmented').parentElement), input };
  });
  assert.equal(heads.labels.length, 3);
  for (const l of heads.labels) {
    assert.ok(l.w >= 24 && l.w <= 80, `a Heads button is ${l.w} px wide`);
    assert.ok(l.h >= 24 && l.h <= 48, `a Heads button is ${l.h} px tall`);
  }
  assert.ok(heads.group.h <= Math.max(...heads.labels.map((l) => l.h)) + 2, `Heads group ${heads.group.h} px tall: stretched`);
  assert.ok(heads.group.w < heads.column.w, 'Heads group stretched to the column');
  assert.ok(heads.input.h <= 48, `the seed input is ${heads.input.h} px tall: stretched`);
  await page.screenshot({ path: `${SHOTS}attention_lab_390_narrow.png`, fullPage: true });
  await page.locator('#results').scrollIntoViewIfNeeded();
  await page.screenshot({ path: `${SHOTS}attention_lab_390_narrow_results.png` });
  sameAsEngine(await pageResult());
});

test('only the page\'s own host was contacted and nothing logged an error', () => {
  assert.ok(requests.length > 0);
  const foreign = requests.filter((u) => !u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(foreign, []);
  assert.ok(requests.some((u) => u.endsWith('.wasm')), 'the module was fetched from the page\'s host');
  assert.deepEqual(problems, []);
});
