// Offline use of the built site (web/plugins/precache_plugin.ts, web/src/sw/), in Chromium:
//   - sw.js lists exactly the files of the build (the folder on disk, sw.js aside), so
//     the precache follows the bundle's real hashed names;
//   - served by a bare static server with no special headers, under a sub-path of the
//     host: the playground opens with its default model, the worker takes control, every
//     listed file is in the cache; then with the browser offline AND the server stopped,
//     a reload opens the playground again with the default model and draws its attention
//     maps, a link with its state in the query opens too, lab.html draws its heads, and
//     the Learn contents and a chapter (learn/, a sub-folder) open and compute.
//     Every response of the offline visits comes from the service worker, no request
//     fails, nothing goes to another host, no console error;
//   - served by vite preview (COOP/COEP): the page is cross-origin isolated online and
//     stays so when the same page comes from the cache offline; on the bare server it is
//     not isolated and works all the same (the page does not rely on it);
//   - the dev server (`npm start`) registers no worker.
// Screenshots: build/screenshots/offline_*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { openSite, ROOT } from './harness.mjs';

/** Every file under dir, as paths relative to it with '/' separators. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath ?? e.path, e.name)).split('\\').join('/')).sort();
}

/** The manifest sw.js carries (the plugin writes `self.TFP_PRECACHE = {...};`). */
function manifestOf(swText) {
  const m = /^self\.TFP_PRECACHE = (\{[\s\S]*?\n\});$/m.exec(swText);
  assert.ok(m, 'sw.js starts with its precache manifest');
  return JSON.parse(m[1]);
}

/** Opens the playground at `url` (null: the caller navigated) and waits for its model
 * and its first render. */
async function openPlayground(page, url) {
  if (url !== null) await page.goto(url);
  await page.waitForFunction(() => Number(document.body.dataset.loads ?? 0) > 0, null, { timeout: 60_000 });
  await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) > 0, null, { timeout: 30_000 });
  const s = await page.evaluate(() => ({
    model: window.tfpPlay.state.model, heads: window.tfpPlay.modelInfo?.n_heads ?? 0,
    panels: Object.values(window.tfpPlay.shown.panels).map((p) => ({ dims: p.dims, n: p.data.length })),
    canvases: document.querySelectorAll('#view canvas').length,
    isolated: window.crossOriginIsolated,
  }));
  assert.ok(s.heads > 0, 'a model is loaded');
  assert.ok(s.panels.length > 0 && s.panels.every((p) => p.n > 0), `attention maps shown: ${JSON.stringify(s.panels)}`);
  assert.ok(s.canvases > 0, 'the inspector draws its maps');
  return s;
}

/** Waits until the service worker controls the page and has finished installing. */
async function waitForControl(page) {
  await page.waitForFunction(() => navigator.serviceWorker?.controller !== null
    && navigator.serviceWorker.controller.state === 'activated', null, { timeout: 60_000 });
}

/** Records, from now on, each response's URL and whether the service worker gave it,
 * and each request that failed without a response. (A worker's script that was answered
 * is sometimes reported as aborted when the next navigation ends that worker: it was
 * answered, so it does not count.) */
function recordResponses(page) {
  const log = { responses: [], failed: [] };
  page.on('response', (r) => log.responses.push({ url: r.url(), fromSw: r.fromServiceWorker(), status: r.status() }));
  page.on('requestfailed', async (r) => {
    if (!(await r.response().catch(() => null))) log.failed.push(`${r.url()}: ${r.failure()?.errorText}`);
  });
  return log;
}

test('the built site works offline from a bare static host under a sub-path', { timeout: 240_000 }, async () => {
  const site = await openSite({ name: 'offline-static', server: 'static', subPath: '/some/sub/path' });
  const { page, base, context, problems } = site;
  try {
    // The manifest is the build's actual file list.
    const dist = process.env.TFP_WEB_DIST ?? `${ROOT}build/web-test/offline-static/`;
    const swText = readFileSync(join(dist, 'sw.js'), 'utf8');
    const manifest = manifestOf(swText);
    assert.deepEqual(manifest.files, filesUnder(dist).filter((f) => f !== 'sw.js'));
    for (const want of ['index.html', 'lab.html', 'learn/index.html', 'learn/self-attention.html'])
      assert.ok(manifest.files.includes(want), `${want} precached`);
    for (const ext of ['.wasm', '.safetensors', '.js', '.css'])
      assert.ok(manifest.files.some((f) => f.endsWith(ext)), `a ${ext} file precached`);
    assert.match(manifest.version, /^[0-9a-f]{16}$/);

    const online = await openPlayground(page, `${base}/`);
    assert.equal(online.isolated, false, 'a bare static host sends no COOP/COEP: not isolated, and the page works');
    await waitForControl(page);
    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    assert.equal(scope, `${base}/`, 'the worker\'s scope is the site\'s folder');
    // Every listed file is in this build's cache.
    const cached = await page.evaluate(async (version) => {
      const name = (await caches.keys()).find((n) => n.endsWith(` ${version}`));
      if (!name) return null;
      return (await (await caches.open(name)).keys()).map((r) => r.url);
    }, manifest.version);
    assert.ok(cached, `a cache named after version ${manifest.version}`);
    assert.deepEqual(new Set(cached), new Set(manifest.files.map((f) => `${base}/${f}`)));
    const defaultModel = online.model;

    // Offline for real: the browser's network is off and nothing listens on the port.
    await context.setOffline(true);
    await site.stopServer();
    const log = recordResponses(page);
    await page.reload();
    const reloaded = await openPlayground(page, null);
    assert.equal(reloaded.model, defaultModel, 'offline, the playground opens with its default model');
    await site.shot('offline_playground', { fullPage: true });
    // A shared link (state in the query) opens offline too.
    const linked = await openPlayground(page, `${base}/?text=The+dog+ran.&view=matrix`);
    assert.equal(await page.evaluate(() => window.tfpPlay.state.view), 'matrix');
    assert.ok(linked.panels.length > 0);
    // The attention lab, never opened online, comes from the cache.
    await page.goto(`${base}/lab.html`);
    await page.waitForFunction(() => Number(document.body.dataset.renders ?? 0) > 0, null, { timeout: 30_000 });
    assert.ok(await page.locator('.head-grid-cells .heatmap canvas').count() > 0, 'the lab draws its heads offline');
    await site.shot('offline_lab');
    // The Learn contents and a chapter (in a sub-folder), never opened online: the engine
    // computes the chapter's figure from the cached module.
    await page.goto(`${base}/learn/index.html`);
    await page.locator('.toc li').first().waitFor();
    await page.goto(`${base}/learn/self-attention.html`);
    await page.waitForFunction(() => (window.tfpLearn?.renders ?? 0) > 0, null, { timeout: 30_000 });
    assert.ok(await page.locator('.number-matrix td[data-value]').count() > 0, 'the chapter draws its matrices offline');

    const own = log.responses.filter((r) => r.url.startsWith('http'));
    assert.ok(own.some((r) => r.url.endsWith('.wasm')) && own.some((r) => r.url.endsWith('.safetensors')),
      'the offline visit loaded the module and a model');
    assert.deepEqual(own.filter((r) => !r.fromSw || r.status !== 200), [], 'every offline response comes from the worker');
    assert.deepEqual(log.failed, [], 'no request failed offline');
    assert.deepEqual(site.foreignRequests(), []);
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

test('COOP/COEP isolation stays when the page comes from the cache (vite preview)', { timeout: 180_000 }, async () => {
  const site = await openSite({ name: 'offline-preview' });
  const { page, base, context, problems } = site;
  try {
    const online = await openPlayground(page, `${base}/`);
    assert.equal(online.isolated, true, 'vite preview sends COOP/COEP');
    await waitForControl(page);
    await context.setOffline(true);
    await site.stopServer();
    await page.reload();
    const offline = await openPlayground(page, null);
    assert.equal(offline.isolated, true, 'the cached page keeps the headers that isolate it');
    assert.deepEqual(site.foreignRequests(), []);
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

test('the dev server registers no service worker (it would serve stale code)', { timeout: 90_000 }, async () => {
  const site = await openSite({ name: 'offline-dev', server: 'dev' });
  const { page, base } = site;
  try {
    await openPlayground(page, `${base}/`);
    await page.waitForTimeout(500);  // past the load event, when the built pages register
    const s = await page.evaluate(async () => ({
      meta: document.querySelector('meta[name="tfp-sw"]') !== null,
      registrations: (await navigator.serviceWorker.getRegistrations()).length,
      controlled: navigator.serviceWorker.controller !== null,
    }));
    assert.deepEqual(s, { meta: false, registrations: 0, controlled: false });
  } finally {
    await site.close();
  }
});
