// `npm start` serves the pages with the Vite dev server: the attention lab must work
// there too (TypeScript worker, Emscripten module imported from src/), with the
// COOP/COEP headers that make the page cross-origin isolated (for a threaded engine).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSite } from './harness.mjs';

let site, browser, base;

before(async () => {
  site = await openSite({ name: 'dev_server', server: 'dev' });
  ({ browser, base } = site);
}, { timeout: 60_000 });

after(async () => { await site?.close(); });

test('the dev server serves a working, cross-origin isolated attention lab', { timeout: 60_000 }, async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const response = await page.goto(`${base}/lab.html?heads=1&text=one+two+three`);
  assert.equal(response.headers()['cross-origin-opener-policy'], 'same-origin');
  assert.equal(response.headers()['cross-origin-embedder-policy'], 'require-corp');
  await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) > 0, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.crossOriginIsolated), true);
  assert.equal(await page.locator('.head-grid-cells canvas').count(), 1);
  const rowSums = await page.evaluate(() => {
    const { data, dims } = window.tfpLab.result.probs;
    const T = dims[1];
    return Array.from({ length: T }, (_, i) => data.slice(i * T, (i + 1) * T).reduce((a, b) => a + b, 0));
  });
  rowSums.forEach((s) => assert.ok(Math.abs(s - 1) < 1e-5, `row sums to ${s}`));
  assert.deepEqual(errors, []);
  await page.close();
});
