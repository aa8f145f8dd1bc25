// The package's elements on a page with no build step (examples/static/index.html, its
// strict Content-Security-Policy included), served by a bare static server, without and with
// the headers of cross-origin isolation: each element shows the numbers the engine computes
// for the same input (tokens, next-token probabilities, the attention matrix: compared as
// numbers, with the module called directly in Node), attribute changes redraw, events report
// the reader's clicks, lang="zh-CN" switches one element's language, and there is no console
// error or CSP violation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadTfp } from '../js/tfp_module.mjs';
import { CHECKPOINTS, ModelApi, readFixture, readShipped } from '../js/model_api.mjs';
import { startHub } from '../hub/hub_server.mjs';
import { installPackage, run, ROOT } from './installed.mjs';
import { serveFolder } from './static_server.mjs';

const TEXT = 'the jury said that the city';
let installed, browser, api, model;

before(async () => {
  installed = await installPackage();
  for (const f of ['index.html', 'page.css']) await copyFile(`${ROOT}examples/static/${f}`, join(installed.project, f));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  api = new ModelApi(await loadTfp());
  model = api.load(readShipped('brown-gpt'));
});
after(async () => {
  await browser?.close();
  await installed?.remove();
});

/** The engine's own numbers for `text`: ids, the next token's top 5 (id, probability) and
 *  head `head` of layer `layer` (from 1) as a (T, T) matrix. */
function reference(text, layer, head) {
  const { ids } = api.tokenize(model, text);
  const out = api.forward(model, ids, { attention: true });
  const T = ids.length, [, V] = out.logits.dims;
  const last = out.logits.data.subarray((T - 1) * V, T * V);
  const max = Math.max(...last);
  const z = last.reduce((s, x) => s + Math.exp(x - max), 0);
  const next = [...last.keys()].sort((a, b) => last[b] - last[a]).slice(0, 5).map((id) => ({ id, prob: Math.exp(last[id] - max) / z }));
  const map = out[`dec.${layer - 1}.attn.probs`];
  return { ids, next, matrix: Array.from(map.data.subarray((head - 1) * T * T, head * T * T)) };
}

const close = (got, want, what) => {
  assert.equal(got.length, want.length, `${what}: length`);
  got.forEach((x, i) => assert.ok(Math.abs(x - want[i]) < 1e-5, `${what}[${i}]: ${x} vs ${want[i]}`));
};

/** The page, with its console errors and CSP violations recorded. */
async function openPage(url) {
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`); });
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (e) => console.error(`CSP: ${e.violatedDirective} ${e.blockedURI}`)));
  const started = Date.now();
  await page.goto(url);
  return { page, problems, started };
}

/** Waits until `selector`'s element shows numbers (its `shown`, as plain arrays) that pass
 *  `ok`, and returns them. (The page's policy forbids evaluating strings: `ok` runs here.) */
async function shownOf(page, selector, ok = () => true) {
  // A guard against a hang, not a measure: the page either shows it or the test says so.
  for (const until = Date.now() + 120_000; Date.now() < until;) {
    const v = await page.evaluate((s) => {
      const x = document.querySelector(s)?.shown;
      return x ? JSON.parse(JSON.stringify(x, (k, y) => (ArrayBuffer.isView(y) ? Array.from(y) : y))) : null;
    }, selector);
    if (v && ok(v)) return v;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const why = await page.evaluate((s) => document.querySelector(s)?.shadowRoot?.textContent ?? 'no element', selector);
  throw new Error(`${selector} never showed what the test waits for; it says: ${why.slice(0, 300)}`);
}

for (const isolated of [false, true]) {
  test(`the static example ${isolated ? 'cross-origin isolated (threads)' : 'on a plain static host'}: the numbers the engine computes, redrawn on attribute changes`, async (t) => {
    const server = await serveFolder(installed.project, { isolated });
    try {
      const { page, problems, started } = await openPage(server.url);
      const want = reference(TEXT, 4, 1);
      const attention = await shownOf(page, 'tfp-attention');
      t.diagnostic(`first attention map drawn ${Date.now() - started} ms after navigation (${isolated ? 'isolated' : 'plain'})`);
      assert.equal(await page.evaluate(() => crossOriginIsolated), isolated);
      const threads = await page.evaluate(async () => (await (await import('./node_modules/transformer-playground/dist/elements.js')).pageEngine()).info.threads);
      assert.ok(isolated ? threads > 1 : threads === 1, `threads ${threads}`);
      assert.deepEqual([attention.view, attention.layer, attention.head, attention.dims], ['matrix', 4, 1, [want.ids.length, want.ids.length]]);
      close(attention.data, want.matrix, 'layer 4 head 1');
      assert.deepEqual((await shownOf(page, 'tfp-tokens')).ids, want.ids);
      const next = (await shownOf(page, 'tfp-next')).next;
      assert.deepEqual(next.map((c) => c.id), want.next.map((c) => c.id));
      close(next.map((c) => c.prob), want.next.map((c) => c.prob), 'next-token probabilities');
      // The drill-down: the engine's steps of the last query's row, its softmax = the matrix's row.
      const drill = await shownOf(page, 'tfp-drilldown');
      const T = want.ids.length;
      assert.deepEqual([drill.set, drill.layer, drill.head, drill.query], ['dec', 4, 1, T]);
      const steps = api.attentionSteps(model, want.ids, { set: 'dec', layer: 3, head: 0, query: T - 1 });
      for (const name of ['q', 'k', 'v', 'scores', 'scaled', 'probs', 'weighted_v', 'out'])
        close(drill.panels[name].data, Array.from(steps[name].data), `drill-down ${name}`);
      close(drill.panels.probs.data, want.matrix.slice((T - 1) * T, T * T), 'drill-down softmax = the matrix row');
      // Its formula is MathML inside the shadow root; a query token pressed moves the row.
      assert.equal(await page.locator('tfp-drilldown').evaluate((el) => el.shadowRoot.querySelectorAll('.qk-formula math').length), 1);
      const asked = page.evaluate(() => new Promise((resolve) => document.querySelector('tfp-drilldown')
        .addEventListener('tfp-query-select', (e) => resolve(e.detail), { once: true })));
      await page.locator('tfp-drilldown').locator('button.qk-token').nth(2).click();
      assert.deepEqual(await asked, { query: 3 });
      const third = await shownOf(page, 'tfp-drilldown', (v) => v.query === 3);
      close(third.panels.probs.data, api.attentionSteps(model, want.ids, { set: 'dec', layer: 3, head: 0, query: 2 }).probs.data, 'query 3');

      // The status line names the model; the matrix has a caption with layer and head.
      assert.match(await page.locator('tfp-model').evaluate((el) => el.shadowRoot.textContent), /brown-gpt: .*4 layers/);

      // Attributes are live: another head, another text, another view.
      await page.locator('tfp-attention').evaluate((el) => { el.setAttribute('layer', '2'); el.setAttribute('head', '3'); });
      close((await shownOf(page, 'tfp-attention', (v) => v.layer === 2 && v.head === 3)).data, reference(TEXT, 2, 3).matrix, 'layer 2 head 3');
      const other = 'the city said';
      await page.evaluate((text) => document.querySelectorAll('tfp-tokens, tfp-attention').forEach((el) => el.setAttribute('text', text)), other);
      assert.deepEqual((await shownOf(page, 'tfp-tokens', (v) => v.ids.length === reference(other, 1, 1).ids.length)).ids, reference(other, 1, 1).ids);
      close((await shownOf(page, 'tfp-attention', (v) => v.rows.length === reference(other, 1, 1).ids.length)).data, reference(other, 2, 3).matrix, 'new text');
      await page.locator('tfp-attention').evaluate((el) => el.setAttribute('view', 'grid'));
      const grid = await shownOf(page, 'tfp-attention', (v) => v.view === 'grid');
      assert.deepEqual(grid.dims.slice(0, 2), [4, 4]);

      // A grid tile pressed: the event names it and the view follows.
      const picked = page.evaluate(() => new Promise((resolve) => document.querySelector('tfp-attention')
        .addEventListener('tfp-head-select', (e) => resolve(e.detail), { once: true })));
      await page.locator('tfp-attention').locator('button[aria-label="layer 1 head 2"]').click();
      assert.deepEqual(await picked, { layer: 1, head: 2 });
      assert.deepEqual(await page.locator('tfp-attention').evaluate((el) => [el.getAttribute('layer'), el.getAttribute('head')]), ['1', '2']);
      // The keyboard, inside the shadow root: an arrow key moves to the next tile, Enter opens it.
      const keyed = page.evaluate(() => new Promise((resolve) => document.querySelector('tfp-attention')
        .addEventListener('tfp-head-select', (e) => resolve(e.detail), { once: true })));
      await page.locator('tfp-attention').locator('button[aria-label="layer 1 head 2"]').focus();
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.locator('tfp-attention').evaluate((el) => el.shadowRoot.activeElement?.getAttribute('aria-label')), 'layer 2 head 2');
      await page.keyboard.press('Enter');
      assert.deepEqual(await keyed, { layer: 2, head: 2 });
      // A token pressed: its event, with the index from 1.
      const token = page.evaluate(() => new Promise((resolve) => document.querySelector('tfp-tokens')
        .addEventListener('tfp-token-select', (e) => resolve(e.detail), { once: true })));
      await page.locator('tfp-tokens').locator('button.token-span').nth(1).click();
      assert.equal((await token).index, 2);

      // One element in Chinese, the rest of the page in English.
      await page.locator('tfp-attention').evaluate((el) => { el.setAttribute('view', 'matrix'); el.setAttribute('lang', 'zh-CN'); });
      await shownOf(page, 'tfp-attention', (v) => v.view === 'matrix');
      await page.waitForFunction(() => /第 2 层，第 2 个头/.test(document.querySelector('tfp-attention').shadowRoot.textContent));
      // Its widgets' fixed labels too (the table toggle), while the page's stay in English.
      assert.equal(await page.locator('tfp-attention').evaluate((el) => el.shadowRoot.querySelector('details.data-table summary').textContent), '以表格显示数值');
      assert.match(await page.locator('tfp-next').evaluate((el) => el.shadowRoot.querySelector('ol').getAttribute('aria-label')), /next tokens/);
      await page.screenshot({ path: `${ROOT}build/screenshots/package_static_${isolated ? 'isolated' : 'plain'}.png`, fullPage: true });
      assert.deepEqual(problems, []);
      await page.close();
    } finally {
      await server.close();
    }
  });
}

test('the Vite example, built by Vite in the outside project, draws the engine\'s numbers and asks the same engine itself', async () => {
  const dir = join(installed.project, 'vite-example');
  await mkdir(dir);
  for (const f of ['index.html', 'main.js', 'vite.config.js']) await copyFile(`${ROOT}examples/vite/${f}`, join(dir, f));
  await run(process.execPath, [`${ROOT}node_modules/vite/bin/vite.js`, 'build', '--logLevel', 'error'], { cwd: dir });
  const server = await serveFolder(join(dir, 'dist'), { isolated: true });
  try {
    const { page, problems } = await openPage(server.url);
    const want = reference(TEXT, 1, 1);
    const grid = await shownOf(page, 'tfp-attention', (v) => v.view === 'grid');
    const { ids } = api.tokenize(model, TEXT);
    const all = api.forward(model, ids, { attention: true });
    grid.data.forEach((layer, l) => close(layer, Array.from(all[`dec.${l}.attn.probs`].data), `layer ${l + 1}`));
    assert.deepEqual((await shownOf(page, 'tfp-tokens')).ids, want.ids);
    await page.waitForFunction(() => document.getElementById('summary').textContent !== '');
    assert.match(await page.locator('#summary').textContent(), new RegExp(`^\\w+ on [2-4] thread\\(s\\): ${want.ids.length} tokens$`));
    // Typing in the page's own input redraws the elements.
    await page.locator('#text').fill('the city');
    assert.deepEqual((await shownOf(page, 'tfp-tokens', (v) => v.ids.length === reference('the city', 1, 1).ids.length)).ids, reference('the city', 1, 1).ids);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await server.close();
  }
});

test('an encoder–decoder in the elements: cross-attention over the model\'s own translation, as the engine computes it', async () => {
  // The static example's page with another model and one cross-attention view.
  const page0 = (await readFile(`${ROOT}examples/static/index.html`, 'utf8'))
    .replace(/<main>[\s\S]*<\/main>/, '<main><tfp-model id="n" src="numbers-transformer"></tfp-model>'
      + '<tfp-attention model="n" text="three hundred and forty-two" set="cross" layer="2" head="1"></tfp-attention></main>');
  await writeFile(join(installed.project, 'cross.html'), page0);
  const server = await serveFolder(installed.project);
  try {
    const { page, problems } = await openPage(`${server.url}cross.html`);
    const shown = await shownOf(page, 'tfp-attention');
    // The engine in Node: translate, then the teacher-forced pass over [start, ...translation].
    const m = api.load(readShipped('numbers-transformer'));
    const info = api.info(m);
    const { ids } = api.tokenize(m, 'three hundred and forty-two');
    const out = api.translate(m, ids);
    const bos = info.tokenizer?.special?.bos ?? -1;
    const start = info.decoder_start_token_id >= 0 ? info.decoder_start_token_id : bos >= 0 ? bos : info.eos_token_id;
    const fwd = api.forward(m, ids, { attention: true, tgtIds: [start, ...out.ids] });
    const cross = fwd['dec.1.cross.probs'];
    const [, Tq, Tk] = cross.dims;
    api.free(m);
    assert.deepEqual([shown.set, shown.dims], ['cross', [Tq, Tk]]);
    assert.equal(Tq, out.ids.length + 1);
    close(shown.data, Array.from(cross.data.subarray(0, Tq * Tk)), 'cross-attention layer 2 head 1');
    assert.equal(shown.rows[0], '⟨start⟩');
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await server.close();
  }
});

test('the elements loaded from another origin (a CDN): the worker starts through a same-origin module, the numbers are the engine\'s', async () => {
  const cdn = await serveFolder(installed.project, { cors: true });
  const site = join(installed.tmp, 'site');
  await mkdir(site, { recursive: true });
  const from = `${cdn.url}node_modules/transformer-playground/dist/`;
  const origin = cdn.url.replace(/\/$/, '');
  await writeFile(join(site, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; worker-src blob: ${origin}; connect-src ${origin}; style-src 'self'; img-src data:">
<link rel="icon" href="data:,"><script type="module" src="${from}elements.js"></script></head>
<body><tfp-model src="brown-gpt"></tfp-model><tfp-attention text="${TEXT}" layer="4" head="1"></tfp-attention></body></html>`);
  const server = await serveFolder(site);
  try {
    const { page, problems } = await openPage(server.url);
    const shown = await shownOf(page, 'tfp-attention');
    close(shown.data, reference(TEXT, 4, 1).matrix, 'layer 4 head 1 from the CDN');
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await server.close();
    await cdn.close();
  }
});

test('<tfp-generate> streams the tokens the engine generates for the same seed, and again on an attribute change', async () => {
  const html = (await readFile(`${ROOT}examples/static/index.html`, 'utf8'))
    .replace(/<main>[\s\S]*<\/main>/, '<main><tfp-model src="brown-gpt"></tfp-model>'
      + '<tfp-generate text="the jury said" max-tokens="8" seed="3" autostart></tfp-generate></main>');
  await writeFile(join(installed.project, 'generate.html'), html);
  const server = await serveFolder(installed.project);
  try {
    const { page, problems } = await openPage(`${server.url}generate.html`);
    const want = (seed) => api.generate(model, api.tokenize(model, 'the jury said').ids, { maxTokens: 8, seed });
    const first = await shownOf(page, 'tfp-generate', (v) => v.done);
    assert.deepEqual(first.ids, want(3).ids);
    assert.equal(first.text, want(3).text);
    assert.equal(await page.locator('tfp-generate').locator('.gen-new').textContent(), want(3).text);
    await page.locator('tfp-generate').evaluate((el) => el.setAttribute('seed', '4'));
    const again = await shownOf(page, 'tfp-generate', (v) => v.done && JSON.stringify(v.ids) !== JSON.stringify(first.ids));
    assert.deepEqual(again.ids, want(4).ids);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await server.close();
  }
});


test('<tfp-model src="hf:…" hub="…"> opens a repository from a Hub (the local stand-in): the views show the engine\'s numbers for the same folder', async () => {
  const hub = await startHub({ repos: { 'test/gpt2-tiny': { dir: `${CHECKPOINTS}gpt2_tiny` } } });
  const origins = [hub.url, hub.cdnUrl].map((u) => u.replace(/\/$/, '')).join(' ');
  const text = 'hello world';
  const html = (await readFile(`${ROOT}examples/static/index.html`, 'utf8'))
    .replace("connect-src 'self'", `connect-src 'self' ${origins}`)
    .replace(/<main>[\s\S]*<\/main>/, `<main><tfp-model src="hf:test/gpt2-tiny" hub="${hub.url}"></tfp-model>`
      + `<tfp-tokens text="${text}"></tfp-tokens><tfp-attention text="${text}" layer="2" head="2"></tfp-attention></main>`);
  await writeFile(join(installed.project, 'hub.html'), html);
  const server = await serveFolder(installed.project);
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const { page, problems } = await openPage(`${server.url}hub.html`);
    const { ids } = api.tokenize(m, text);
    const map = api.forward(m, ids, { attention: true })['dec.1.attn.probs'];
    const T = ids.length;
    const shown = await shownOf(page, 'tfp-attention');
    close(shown.data, Array.from(map.data.subarray(T * T, 2 * T * T)), 'hf: layer 2 head 2');
    assert.deepEqual((await shownOf(page, 'tfp-tokens')).ids, Array.from(ids));
    assert.match(await page.locator('tfp-model').evaluate((el) => el.shadowRoot.textContent), /test\/gpt2-tiny/);
    assert.ok(hub.bytesSentFor('test/gpt2-tiny', 'model.safetensors') > 0, 'the weights came from the hub');
    // A repository the hub does not have: the model element says so by name.
    await page.locator('tfp-model').evaluate((el) => el.setAttribute('src', 'hf:test/absent'));
    await page.waitForFunction(() => /test\/absent/.test(document.querySelector('tfp-model').shadowRoot.textContent)
      && document.querySelector('tfp-model').shadowRoot.querySelector('.error'));
    assert.deepEqual(problems.filter((p) => !/404/.test(p)), []);
    await page.close();
  } finally {
    api.free(m);
    await server.close();
    await hub.close();
  }
});
