// The Content-Security-Policy and "nothing leaves the machine" (issue 15, the page), in
// Chromium on the production build (web/plugins/csp_plugin.ts):
//   - every built page carries the policy in a <meta> right after its charset, before any
//     script or stylesheet; no inline <script>, no on…= handler, no javascript: URL; the
//     policy has no 'unsafe-inline' / 'unsafe-eval' for scripts ('wasm-unsafe-eval' only),
//     no source outside 'self' (data:/blob: for images only), workers and connect 'self';
//   - `vite preview` sends the same policy (plus frame-ancestors) as a header on the pages,
//     the scripts, the engine's worker, the .wasm and sw.js; the dev server (npm start)
//     sends and injects its dev policy (a nonce for Vite's <style> elements), and a Learn
//     chapter whose CSS Vite injects loads under it;
//   - every page of the build loads and starts its engine with no CSP violation and no
//     request to another origin;
//   - then, recording every request of the browser context (the workers' included: the
//     .wasm fetch is seen): the playground loads a shipped model and a folder of the
//     reader's own, takes typed text, generates and exports PNG, SVG and JSON; the training
//     page trains a few steps, exports the files and the zip and hands the model to the
//     playground. Every request is to the site's origin (data:/blob: allowed); no CSP
//     violation anywhere (the harness fails a test on any).
// Each test that uses the page navigates it itself (the last one from freshPage: 1280 × 720,
// nothing saved), so any of them runs alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { freshPage, openSite, openModelFiles, ROOT, counter, counterAbove } from './harness.mjs';

let site, page, base, dist;

before(async () => {
  site = await openSite({ name: 'csp_requests' });
  ({ page, base } = site);
  dist = process.env.TFP_WEB_DIST && readdirSync(process.env.TFP_WEB_DIST).includes('index.html')
    ? process.env.TFP_WEB_DIST : `${ROOT}build/web-test/csp_requests/`;
}, { timeout: 120_000 });

after(async () => {
  await site?.close();
});

const pagesOf = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  if (e.isDirectory()) return e.name === 'assets' ? [] : pagesOf(join(dir, e.name));
  return e.name.endsWith('.html') ? [join(dir, e.name)] : [];
});

/** The policy's directives: { 'script-src': ["'self'", ...], ... }. */
const directives = (policy) => Object.fromEntries(policy.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0])
  .map(([name, ...sources]) => [name, sources]));

/** What the playground may fetch beyond its own origin: the Hub (plugins/csp_plugin.ts). */
const HUB = ['https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co', 'https://hf-mirror.com', 'https://*.hf-mirror.com',
  ...(process.env.TFP_HUB_HOSTS ?? '').split(/\s+/).filter(Boolean)];

function checkPolicy(policy, what, hub = false) {
  const d = directives(policy);
  assert.deepEqual(d['script-src'], ["'self'", "'wasm-unsafe-eval'"], `${what}: script-src`);
  assert.deepEqual(d['default-src'], ["'self'"], `${what}: default-src`);
  assert.deepEqual(d['worker-src'], ["'self'"], `${what}: worker-src`);
  assert.deepEqual(d['connect-src'], ["'self'", ...(hub ? HUB : [])], `${what}: connect-src`);
  assert.deepEqual(d['object-src'], ["'none'"], `${what}: object-src`);
  // Inline styles: attributes only (KaTeX); no <style> element, no source outside the site.
  assert.deepEqual(d['style-src-attr'], ["'unsafe-inline'"], `${what}: style-src-attr`);
  for (const [name, sources] of Object.entries(d)) {
    for (const s of sources) {
      const ok = ["'self'", "'none'", "'wasm-unsafe-eval'"].includes(s) || (hub && name === 'connect-src' && HUB.includes(s)) || /^'nonce-[A-Za-z0-9+/=]+'$/.test(s)
        || (name === 'img-src' && ['data:', 'blob:'].includes(s)) || (name === 'style-src-attr' && s === "'unsafe-inline'");
      assert.ok(ok, `${what}: ${name} allows ${s}`);
    }
  }
}

test('every built page: the policy first in <head>, no inline script or handler', () => {
  const files = pagesOf(dist);
  assert.ok(files.length >= 16, `pages in the build: ${files.length}`);
  const policies = new Set();
  for (const file of files) {
    const name = relative(dist, file);
    const html = readFileSync(file, 'utf8');
    const metas = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)];
    assert.equal(metas.length, 1, `${name}: one CSP meta`);
    const at = metas[0].index;
    assert.ok(at < html.search(/<meta\s+name=|<title|<link|<script/), `${name}: the policy precedes every script, stylesheet and link`);
    assert.ok(html.search(/<meta\s+charset/i) < at, `${name}: after the charset`);
    if (name === 'index.html') checkPolicy(metas[0][1], 'the playground\'s meta', true);  // it may ask the Hub
    else policies.add(metas[0][1]);
    for (const m of html.matchAll(/<script\b([^>]*)>/g)) assert.match(m[1], /\bsrc=/, `${name}: an inline <script${m[1]}>`);
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, `${name}: an inline event handler`);
    assert.doesNotMatch(html, /javascript:/i, `${name}: a javascript: URL`);
    assert.doesNotMatch(html, /<style\b/i, `${name}: a <style> element`);
  }
  assert.equal(policies.size, 1, 'one policy for every other page');
  checkPolicy([...policies][0], 'meta');
});

test('vite preview sends the policy on pages, scripts, the worker, the .wasm and sw.js; the dev server too', { timeout: 60_000 }, async () => {
  const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(readFileSync(join(dist, 'index.html'), 'utf8'))[1];
  const assets = readdirSync(join(dist, 'assets'));
  const files = ['index.html', 'learn/softmax.html', 'train.html', 'sw.js',
    ...['worker-', 'index-', 'tfp-'].map((p) => `assets/${assets.find((a) => a.startsWith(p) && /\.(js|wasm)$/.test(a))}`)];
  assert.ok(assets.some((a) => a.endsWith('.wasm')), 'the .wasm is a file of the build');
  for (const f of [...files, `assets/${assets.find((a) => a.endsWith('.wasm'))}`]) {
    const r = await fetch(`${base}/${f}`);
    assert.equal(r.status, 200, f);
    const header = r.headers.get('content-security-policy');
    assert.equal(header, `${meta}; frame-ancestors 'self'`, `${f}: the header is the playground's policy (+ frame-ancestors)`);
  }

  // npm start: the dev server's policy, as header and meta, with the nonce Vite puts on its <style>s.
  const dev = await openSite({ name: 'csp_requests_dev', server: 'dev' });
  try {
    const r = await fetch(`${dev.base}/learn/softmax.html`);
    const header = r.headers.get('content-security-policy');
    const html = await r.text();
    checkPolicy(header, 'dev header', true);
    assert.match(header, /style-src 'self' 'nonce-[^']+'/);
    const devMeta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
    checkPolicy(devMeta, 'dev meta');  // a Learn page: its meta narrows the header to its own origin
    assert.equal(devMeta.replace(/connect-src [^;]*/, ''), header.replace(/connect-src [^;]*/, '').replace(/; frame-ancestors 'self'$/, ''),
      'dev: the meta is the header but for connect-src');
    assert.doesNotMatch(html.replace(/<script type="module" src="[^"]*"( nonce="[^"]*")?><\/script>/g, ''), /<script/, 'dev: no inline script');
    await dev.page.goto(`${dev.base}/learn/softmax.html`);
    await dev.page.waitForFunction(() => document.querySelectorAll('style[nonce]').length > 0 && document.querySelector('.katex'), null, { timeout: 30_000 });
    await dev.page.waitForLoadState('networkidle');
    assert.deepEqual(dev.cspViolations, []);
    assert.deepEqual(dev.foreignRequests(), []);
  } finally {
    await dev.close();
  }
});

test('every page loads (engines, fonts, models) under the policy, asking nothing of another origin', { timeout: 120_000 }, async () => {
  const names = pagesOf(dist).map((f) => relative(dist, f).split('\\').join('/')).sort();
  const started = Date.now();
  // Three tabs at a time (each page's engine starts in its own worker).
  const tabs = [page, await site.newPage(), await site.newPage()];
  const queue = [...names];
  await Promise.all(tabs.map(async (tab) => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      await tab.goto(`${base}/${name}`);
      await tab.waitForLoadState('networkidle');
    }
  }));
  await Promise.all(tabs.slice(1).map((t) => t.close()));
  assert.ok(site.requests.some((u) => u.endsWith('.wasm')), 'the workers\' requests are seen (the .wasm fetch)');
  assert.ok(site.requests.some((u) => u.includes('KaTeX_')), 'KaTeX\'s fonts are files of the site');
  assert.deepEqual(site.cspViolations, []);
  assert.deepEqual(site.foreignRequests(), []);
  assert.deepEqual(site.problems, []);
  console.log(`${names.length} pages loaded in ${Date.now() - started} ms, ${site.requests.length} requests, all to ${base}`);
});

test('loading models, typing, generating, training and exporting: every request same-origin', { timeout: 120_000 }, async () => {
  const downloads = [];
  site.context.on('page', (p) => p.on('download', (d) => downloads.push(d.suggestedFilename())));
  page.on('download', (d) => downloads.push(d.suggestedFilename()));

  // The playground: a shipped model (picked), typing, generating, exporting.
  await freshPage(page, `${base}/index.html`);
  await counterAbove(page, 'loads', 0, 60_000);
  const options = await page.locator('#model-select option').evaluateAll((os) => os.map((o) => o.value));
  const pick = async (id) => {
    const loads = await counter(page, 'loads');
    await page.locator('#model-select').selectOption(id);
    await counterAbove(page, 'loads', loads, 60_000);
  };
  const decoder = options.includes('brown-gpt') ? 'brown-gpt' : 'fixture-gpt2_tiny';
  await pick(options.find((v) => v !== 'local' && v !== decoder));
  await pick(decoder);
  const renders = await counter(page, 'renders');
  await page.locator('#text').fill('The jury said');
  await page.locator('#text').pressSequentially(' the city', { delay: 20 });
  await counterAbove(page, 'renders', renders);
  const g = await counter(page, 'generations');
  await page.locator('#generate').click();
  await counterAbove(page, 'generations', g, 30_000);
  for (const button of ['#export-png', '#export-svg', '#export-json']) {
    await Promise.all([page.waitForEvent('download'), page.locator(button).click()]);
  }
  // A folder of the reader's own, by the file picker.
  await openModelFiles(page, `${ROOT}tests/fixtures/checkpoints/gpt2_tiny/`);

  // The training page: a few steps, the files, the zip, the hand-over to the playground.
  await page.goto(`${base}/train.html?lang=en`);
  await page.waitForFunction(() => ['idle', 'done'].includes(document.body.dataset.trainState));
  await page.fill('#f-steps', '20');
  await page.click('#run');
  await page.waitForFunction(() => document.body.dataset.trainState === 'done', null, { timeout: 60_000 });
  await page.click('#export-files');
  await page.waitForFunction(() => window.tfpTrain.exported !== undefined);
  await page.click('#export-zip');
  await page.waitForFunction(() => window.tfpTrain.zip !== undefined);
  const [play] = await Promise.all([site.context.waitForEvent('page'), page.click('#open-playground')]);
  await play.waitForFunction(() => Number(document.body.dataset.loads ?? 0) >= 1 && window.tfpPlay?.attention.length > 0, null, { timeout: 60_000 });
  await play.close();

  // The zip's download arrives (no deadline of its own: the test's timeout bounds the wait).
  while (!downloads.some((n) => n.endsWith('.zip'))) await page.waitForTimeout(50);
  for (const want of [/\.png$/, /\.svg$/, /^[^/]*-L\d+H\d+\.json$/, /^config\.json$/, /^model\.safetensors$/, /^tokenizer\.json$/, /\.zip$/])
    assert.ok(downloads.some((n) => want.test(n)), `a download ${want}: ${downloads.join(', ')}`);
  assert.deepEqual(site.cspViolations, []);
  assert.deepEqual(site.foreignRequests(), [], 'every request to the site\'s own origin');
  console.log(`${site.requests.length} requests in all, none to another origin; downloads: ${downloads.join(', ')}`);
});
