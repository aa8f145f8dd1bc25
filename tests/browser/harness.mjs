// What every browser test needs: the site built and served on a free port, Debian's
// Chromium launched through playwright-core, one page whose requests and console errors
// are recorded, and screenshots in build/screenshots/.
//
//   const site = await openSite({ name: 'drilldown' });
//   await site.page.goto(`${site.base}/index.html`); ... await site.shot('drilldown_light');
//   await site.close();
//
// Servers (option `server`):
//   'preview' (default)  the production build served by `vite preview` (COOP/COEP headers);
//   'static'             the same build served by a bare static server with no special
//                        headers, as any static host would;
//   'dev'                the Vite dev server on web/ (what `npm start` runs).
// Option `subPath` ('static' only, e.g. '/some/sub/path'): the build is served under that
// folder of the host, as a static host serving several sites would; `base` includes it.
// The build goes to build/web-test/<name>/ so tests running at once never share a folder;
// tools/test.sh builds once and passes TFP_WEB_DIST so the suite does not rebuild per file.
//
// Also the page helpers the tests share: freshPage (the known state a test starts from:
// the site's localStorage cleared, default viewport and colour scheme, a URL loaded),
// counter/counterAbove (document.body.dataset counters), shownOn/attentionOn
// (window.tfpPlay's shown view and maps as plain arrays), playgroundProbes (those bound to
// one page, plus translate), openModelFiles (the file picker) and openEngineTest
// (engine_test.html under the dev server). Numeric comparisons are in
// tests/js/compare.mjs, the Node oracle in tests/js/model_api.mjs.
import assert from 'node:assert/strict';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer as httpServer } from 'node:http';
import { createServer as netServer } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, createServer as viteServer, preview } from 'vite';
import { chromium } from 'playwright-core';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const WEB = `${ROOT}web/`;
export const SHOTS = `${ROOT}build/screenshots/`;
const CONFIG = `${WEB}vite.config.ts`;

const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
                      '--disable-component-update', '--no-first-run'];

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = netServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Builds web/ into build/web-test/<name>/ (or reuses $TFP_WEB_DIST); returns the folder. */
export async function buildSite(name) {
  const shared = process.env.TFP_WEB_DIST;
  if (shared && existsSync(join(shared, 'index.html'))) return shared;
  const outDir = `${ROOT}build/web-test/${name}/`;
  await build({ root: WEB, logLevel: 'warn', configFile: CONFIG, build: { outDir, emptyOutDir: true } });
  return outDir;
}

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf',
  '.md': 'text/markdown', '.webmanifest': 'application/manifest+json',
};

/** A bare static file server (no COOP/COEP, no SPA fallback): what a plain host does. */
function staticServer(dir, port, subPath = '') {
  const server = httpServer((req, res) => {
    let path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (subPath) {
      if (!path.startsWith(`${subPath}/`)) { res.writeHead(404).end('not found'); return; }
      path = path.slice(subPath.length);
    }
    let file = join(dir, path);
    if (!file.startsWith(dir)) { res.writeHead(403).end(); return; }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) { res.writeHead(404).end('not found'); return; }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

async function startServer(kind, name, port, subPath) {
  if (kind === 'dev') {
    const dev = await viteServer({
      root: WEB, logLevel: 'warn', configFile: CONFIG,
      server: { port, strictPort: true, host: '127.0.0.1', open: false, hmr: false },
    });
    await dev.listen();
    return () => dev.close();
  }
  const outDir = await buildSite(name);
  if (kind === 'static') {
    const s = await staticServer(outDir, port, subPath);
    return () => new Promise((r) => s.close(r));
  }
  const p = await preview({
    root: WEB, logLevel: 'warn', configFile: CONFIG, build: { outDir },
    preview: { port, strictPort: true, host: '127.0.0.1', open: false },
  });
  return () => new Promise((r) => p.httpServer.close(r));
}

/**
 * Serves the site and opens one page in Chromium.
 * Returns { base, browser, context, page, requests, problems, cspViolations, shot, close }:
 * requests = every URL the context asked for; problems = console errors and page errors
 * (CSP violations included); cspViolations = those alone (close() throws if any).
 */
export async function openSite({ name, server = 'preview', viewport = { width: 1280, height: 720 },
                                  contextOptions = {}, subPath = '' } = {}) {
  if (!name) throw new Error('openSite: give the test a name (its build folder)');
  if (subPath && (server !== 'static' || !/^(\/[\w.-]+)+$/.test(subPath)))
    throw new Error(`openSite: subPath '${subPath}' needs server 'static' and the form '/a/b'`);
  const port = await freePort();
  const stop = await startServer(server, name, port, subPath);
  let stopped = null;
  const stopServer = () => (stopped ??= stop());
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
  const context = await browser.newContext({ viewport, acceptDownloads: true, ...contextOptions });
  const requests = [];
  const problems = [];
  // Content-Security-Policy violations (web/plugins/csp_plugin.ts): every page reports its
  // securitypolicyviolation events, and Chromium's own "Refused to …" console errors (pages
  // and their workers) count too. They go to `problems` and `cspViolations`; close() fails
  // the test if there is any, whether or not the test looked at `problems`.
  const cspViolations = [];
  const csp = (text) => { cspViolations.push(text); problems.push(`csp: ${text}`); };
  await context.exposeBinding('__tfpCspViolation', (_source, text) => csp(text));
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      void window.__tfpCspViolation?.(`${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
    }, true);
  });
  const cspConsole = (m) => { if (/Content Security Policy/i.test(m.text())) csp(`console: ${m.text()}`); };
  context.on('request', (r) => requests.push(r.url()));
  const watch = (page) => {
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      cspConsole(m);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('worker', (w) => w.on('console', cspConsole));
    return page;
  };
  const page = watch(await context.newPage());
  await mkdir(SHOTS, { recursive: true });
  return {
    base: `http://127.0.0.1:${port}${subPath}`,
    browser, context, page, requests, problems, cspViolations,
    /** Another page in the same context, watched like the first. */
    newPage: async () => watch(await context.newPage()),
    /** Saves build/screenshots/<file>.png of `target` (default: the first page). */
    shot: (file, { target = page, fullPage = false } = {}) =>
      target.screenshot({ path: `${SHOTS}${file}.png`, fullPage }),
    /** Stops the server (the browser stays): nothing answers on the port any more. */
    stopServer,
    /** Requests that left the site's own host. */
    foreignRequests: () => requests.filter((u) => !u.startsWith(`http://127.0.0.1:${port}/`)
                                               && !u.startsWith('data:') && !u.startsWith('blob:')),
    close: async () => {
      await browser.close();
      await stopServer();
      if (cspViolations.length) throw new Error(`Content-Security-Policy violations:\n  ${cspViolations.join('\n  ')}`);
    },
  };
}

/**
 * Brings `page` to a known state at the start of a test, whatever an earlier test left:
 * the site's localStorage cleared (the language, theme and learn progress a test saved),
 * the viewport and colour scheme at `viewport` / `colorScheme`, then `url` loaded. The
 * caller then waits for that page's own readiness signal. Tests that check what a reload
 * keeps do the saving and the reload inside the same test.
 *   async function fresh(query = '') { await freshPage(page, `${base}/?${query}`); ... }
 */
export async function freshPage(page, url, { viewport = { width: 1280, height: 720 }, colorScheme = 'light' } = {}) {
  // Through Chromium's DevTools protocol: works whatever the page shows now (another
  // origin, about:blank, a page still loading).
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Storage.clearDataForOrigin', { origin: new URL(url).origin, storageTypes: 'local_storage' });
  } finally { await cdp.detach(); }
  await page.setViewportSize(viewport);
  await page.emulateMedia({ colorScheme });
  await page.goto(url);
}

// ---- The playground's page state, read through what the page publishes for tests ----

/** document.body.dataset[key] as a number (0 when unset): the counters the pages move each
 * time they finish something (loads, renders, ...). */
export const counter = (page, key) => page.evaluate((k) => Number(document.body.dataset[k] ?? 0), key);

/** Waits until counter `key` is above `count`; returns its new value. */
export async function counterAbove(page, key, count, timeout = 30_000) {
  await page.waitForFunction(([k, n]) => Number(document.body.dataset[k] ?? 0) > n, [key, count], { timeout });
  return counter(page, key);
}

/** Waits until the page's URL matches `re` (pages write their URL state throttled, after
 * the view they describe); fails with the URL it last saw. */
export async function urlMatches(page, re, timeout = 10_000) {
  try {
    await page.waitForFunction(([src, flags]) => new RegExp(src, flags).test(location.href), [re.source, re.flags], { timeout });
  } catch {
    assert.match(page.url(), re);
  }
}

/** What the playground's inspector shows (window.tfpPlay.shown), each panel's data as a
 * plain array; null before its first view. */
export const shownOn = (page) => page.evaluate(() => {
  const s = window.tfpPlay.shown;
  return s && { ...s, panels: Object.fromEntries(Object.entries(s.panels).map(([k, v]) => [k, { dims: v.dims, data: Array.from(v.data) }])) };
});

/** The playground's last forward pass's maps (window.tfpPlay.attention) as
 * { name: { dims, data (a plain array) } }. */
export const attentionOn = (page) => page.evaluate(() => Object.fromEntries(window.tfpPlay.attention.map((a) => [a.name, { dims: a.dims, data: Array.from(a.data) }])));

/**
 * The helpers above bound to one page: `page` is the page, or a function that returns it
 * (for a test's `let page` that before() sets). `timeout` is after()'s default.
 *   const { num, after: after_, shown, translate } = playgroundProbes(() => page);
 */
export function playgroundProbes(page, { timeout = 30_000 } = {}) {
  const get = typeof page === 'function' ? page : () => page;
  const num = (key) => counter(get(), key);
  const after = (key, count, t = timeout) => counterAbove(get(), key, count, t);
  return {
    num, after,
    shown: () => shownOn(get()),
    /** Presses Translate; waits for the translation and the render after it; returns the
     * renders counter. */
    translate: async () => {
      const r = await num('renders');
      await get().locator('#translate').click();
      await get().waitForFunction(() => document.getElementById('translation')?.textContent !== '', null, { timeout: 20_000 });
      return after('renders', r);
    },
    /** Picks layer / head (0-based) in the inspector's selects and waits for each render. */
    pick: async (layer, head) => {
      for (const [sel, v] of [['#layer-select', layer], ['#head-select', head]]) {
        if (Number(await get().locator(sel).inputValue()) === v) continue;
        const r = await num('renders');
        await get().selectOption(sel, { value: String(v) });
        await after('renders', r);
      }
    },
  };
}

/** Opens the model folder `dir` (config.json + model.safetensors, no tokenizer) with
 * the playground's file picker and waits until the page has loaded it. */
export async function openModelFiles(page, dir, timeout = 30_000) {
  const loads = await counter(page, 'loads');
  await page.locator('#model-files').setInputFiles([
    { name: 'config.json', mimeType: 'application/json', buffer: await readFile(`${dir}config.json`) },
    { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: await readFile(`${dir}model.safetensors`) },
  ]);
  await counterAbove(page, 'loads', loads, timeout);
}

/**
 * The dev server's engine_test.html (window.tfpEngine, the page's engine client) ready in
 * one page; openSite's object plus `pageErrors`, that page's uncaught errors.
 */
export async function openEngineTest(name) {
  const site = await openSite({ name, server: 'dev' });
  const pageErrors = [];
  site.page.on('pageerror', (e) => pageErrors.push(`page error: ${e.message}`));
  await site.page.goto(`${site.base}/engine_test.html`);
  await site.page.evaluate(() => window.tfpEngineReady);
  return Object.assign(site, { pageErrors });
}
