// Page benchmark: the playground (web/index.html) in Debian Chromium, measured in the
// real page (not a timed test). Run: `npm run bench:page [-- options]`.
//
//   1. Time to first attention map: open the URL (no model in it, so the page's default
//      model) with a 20-token text, until the first attention map is drawn and the next
//      frame has been painted. Median of --loads fresh page loads (a new browser context
//      each: no HTTP cache, no compiled-wasm cache). Split into
//        module   navigation start → engine worker ready (HTML, JS, wasm fetch + compile)
//        model    → model loaded (weights fetched, parsed, bound)
//        forward  → attention maps back on the page (tokenize + forward + transfer)
//        next     → next-token bars computed (decoder models: one more engine call)
//        draw     → inspector render finished (the DOM/SVG of the view is built)
//        paint    → the next frame after the render (rAF, then a message: after paint)
//   2. Inspector redraw when switching heads and layers at T=128 on --model (default
//      brown-gpt, the largest shipped token model), in the matrix view (one head) and
//      the model view (every layer × head map): from the <select> change to render done
//      and to the next painted frame (rAF, then a message); median and p95 over
//      --switches switches of each kind.
//   3. Forward pass in the engine worker (the page's own `workerMs`, shown in its status
//      line) at T=20 and T=128, median over --forwards recomputes.
//
// How the page is timed: an init script wraps the page's debug object
// (window.tfpPlay, see web/src/pages/playground/main.ts) with setters that stamp
// performance.now() the moment the page assigns `attention`, `loads` and `renders`,
// and the #status element's text (engine ready, forward time). Nothing in web/ changes.
//
// Options: --loads N (7) --switches N (60) --forwards N (10) --model ID (brown-gpt)
//          --out FILE (write the results as JSON too)
//          --query PARAMS (added to the cold loads' URL, e.g. threads=1: the single-threaded build)
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { execFileSync } from 'node:child_process';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';
import { chromium } from 'playwright-core';

const WEB = fileURLToPath(new URL('../web/', import.meta.url));
const OUT_DIR = fileURLToPath(new URL('../build/pbench-dist/', import.meta.url));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}
const LOADS = Number(option('loads', 7));
const SWITCHES = Number(option('switches', 60));
const FORWARDS = Number(option('forwards', 10));
const BIG_MODEL = option('model', 'brown-gpt');
const JSON_OUT = option('out', '');
const QUERY = option('query', '');  // more URL parameters for the cold loads, e.g. threads=1
const TARGET_MS = 50;

// Plain English to cut the 20- and 128-token inputs from (enough for 128 tokens of any
// of the shipped tokenizers, even a character-level one is cut to its context).
const PROSE = 'The committee said that the city government had done a fine job in the election, ' +
  'which was held last Friday after months of debate. Mrs. Williams told the jury that the ' +
  'new school would open in the fall, and that the teachers were ready for the children. ' +
  'He walked down the long road to the old house by the river, where his father had lived ' +
  'for many years before the war. The president asked the Congress to pass the bill before ' +
  'the end of the session, but the leaders of both parties were not sure that they had the ' +
  'votes. In the morning the men went out to the fields, and in the evening they came home ' +
  'tired and hungry, and sat by the fire to talk about the day and the weather and the price ' +
  'of corn. She could not remember when she had last seen so many people in one place.';

const BROWSER_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run'];

// Runs in the page before its scripts: stamps the moments the page reaches each stage.
function initScript() {
  const b = { marks: {}, workerMs: [], renderWaiters: [], forwardWaiters: [] };
  window.__bench = b;
  const mark = (k) => { if (!(k in b.marks)) b.marks[k] = performance.now(); };
  const afterPaint = (k) => requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => mark(k);
    ch.port2.postMessage(0);
  });
  const desc = Object.getOwnPropertyDescriptor(Node.prototype, 'textContent');
  Object.defineProperty(Node.prototype, 'textContent', {
    configurable: true, enumerable: desc.enumerable, get: desc.get,
    set(v) {
      if (this.id === 'status' && typeof v === 'string') {
        if (v.startsWith('Loading the model')) mark('engine');
        const m = /Forward pass ([\d.]+) ms in the engine worker/.exec(v);
        if (m) {
          mark('status');
          b.workerMs.push(Number(m[1]));
          b.forwardWaiters.splice(0).forEach((w) => w(Number(m[1])));
        }
      }
      desc.set.call(this, v);
    },
  });
  let debug;
  const hook = (obj, key, on) => {
    let value = obj[key];
    Object.defineProperty(obj, key, { configurable: true, enumerable: true, get: () => value, set: (v) => { value = v; on(v); } });
  };
  Object.defineProperty(window, 'tfpPlay', {
    configurable: true, get: () => debug,
    set(v) {
      debug = v;
      hook(v, 'loads', () => mark('loaded'));
      hook(v, 'attention', (a) => { if (a.length) mark('forward'); });
      hook(v, 'renders', () => {
        const now = performance.now();
        if ('forward' in b.marks && !('rendered' in b.marks) && (v.shown?.panels && Object.keys(v.shown.panels).length)) {
          mark('rendered');
          afterPaint('painted');
        }
        b.renderWaiters.splice(0).forEach((w) => w(now));
      });
    },
  });
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : NaN; };
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] : NaN; };
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function waitLoaded(page, timeout = 120_000) {
  await page.waitForFunction(() => window.__bench?.marks.painted !== undefined, null, { timeout });
}

/** A prefix of PROSE that the model at `url` tokenizes to exactly `T` tokens. */
async function textOfTokens(browser, base, query, T) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await ctx.addInitScript(initScript);
  const page = await ctx.newPage();
  try {
    let text = PROSE;
    for (let attempt = 0; attempt < 6; attempt++) {
      await page.goto(`${base}/?${query}&text=${encodeURIComponent(text)}`);
      await waitLoaded(page);
      const e = await page.evaluate(() => ({ n: window.tfpPlay.encoding.ids.length, truncated: window.tfpPlay.encoding.truncated, offsets: window.tfpPlay.encoding.offsets, max: window.tfpPlay.modelInfo.max_positions }));
      if (e.n === T && !e.truncated) return text;
      if (e.n < T) throw new Error(`bench: the text gives only ${e.n} tokens, ${T} wanted`);
      text = text.slice(0, e.offsets[2 * (T - 1) + 1] - attempt);  // end of token T (shrink on retries)
    }
    throw new Error(`bench: no prefix of the text gives exactly ${T} tokens`);
  } finally { await ctx.close(); }
}

async function firstMap(browser, base, text) {
  const rows = [];
  let label = '';
  for (let i = 0; i < LOADS; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    await ctx.addInitScript(initScript);
    const page = await ctx.newPage();
    await page.goto(`${base}/?${QUERY ? `${QUERY}&` : ''}text=${encodeURIComponent(text)}`);
    await waitLoaded(page);
    const r = await page.evaluate(() => ({ m: window.__bench.marks, w: window.__bench.workerMs[0], T: window.tfpPlay.encoding.ids.length, label: window.tfpPlay.modelLabel }));
    label = r.label;
    if (r.T !== 20) throw new Error(`bench: first-map input has ${r.T} tokens`);
    const m = r.m;
    rows.push({ module: m.engine, model: m.loaded - m.engine, forward: m.forward - m.loaded, workerMs: r.w,
                next: m.status - m.forward, draw: m.rendered - m.status, paint: m.painted - m.rendered, total: m.painted });
    await ctx.close();
  }
  return { label, rows };
}

/** Loads `model` with `text` in the matrix view; returns the open page. */
async function openPage(browser, base, model, text, view) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  await ctx.addInitScript(initScript);
  const page = await ctx.newPage();
  await page.goto(`${base}/?model=${model}&view=${view}&text=${encodeURIComponent(text)}`);
  await waitLoaded(page);
  return { ctx, page };
}

/** Switches `which` (head-select or layer-select) n times; per switch: ms to render done, to painted frame. */
function switches(page, which, n) {
  return page.evaluate(async ([id, n]) => {
    const sel = document.getElementById(id);
    const b = window.__bench;
    const k = sel.options.length;
    const out = [];
    for (let i = 0; i < n; i++) {
      const rendered = new Promise((res) => b.renderWaiters.push(res));
      const t0 = performance.now();
      sel.value = String((Number(sel.value) + 1) % k);
      sel.dispatchEvent(new Event('change'));
      const t1 = await rendered;
      const t2 = await new Promise((res) => requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => res(performance.now());
        ch.port2.postMessage(0);
      }));
      out.push({ render: t1 - t0, frame: t2 - t0 });
      await new Promise((res) => setTimeout(res, 20));
    }
    return { options: k, out };
  }, [which, n]);
}

/** Recomputes the same text n times (an input event on the text box); worker forward ms each. */
function forwards(page, n) {
  return page.evaluate(async (n) => {
    const box = document.getElementById('text');
    const b = window.__bench;
    const out = [];
    for (let i = 0; i < n; i++) {
      const done = new Promise((res) => b.forwardWaiters.push(res));
      box.dispatchEvent(new Event('input'));
      out.push(await done);
      await new Promise((res) => setTimeout(res, 50));
    }
    return out;
  }, n);
}

const summary = (xs) => ({ median: median(xs), p95: pct(xs, 0.95), min: Math.min(...xs), max: Math.max(...xs), n: xs.length });

async function main() {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const chromiumVersion = execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const loadBefore = loadavg();
  console.error(`bench: building the site into ${OUT_DIR}`);
  await build({ root: WEB, logLevel: 'warn', configFile: `${WEB}vite.config.ts`, build: { outDir: OUT_DIR, emptyOutDir: true } });
  const port = await freePort();
  const server = await preview({ root: WEB, logLevel: 'warn', configFile: `${WEB}vite.config.ts`, build: { outDir: OUT_DIR },
                                 preview: { port, strictPort: true, host: '127.0.0.1', open: false } });
  const base = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: BROWSER_ARGS });
  const res = { date: new Date().toISOString(), commit, chromium: chromiumVersion, node: process.version,
                cpu: cpus()[0]?.model, cpus: cpus().length, command: `npm run bench:page -- ${process.argv.slice(2).join(' ')}`.trim() };
  try {
    // 1. First attention map on the default model, 20 tokens.
    const text20default = await textOfTokens(browser, base, 'x=1', 20);
    console.error('bench: first map (fresh loads)…');
    const first = await firstMap(browser, base, text20default);
    res.first = { model: first.label, text: text20default, rows: first.rows };

    // 2 + 3. The big model: forward at T=20 and T=128, switches at T=128.
    const text20 = await textOfTokens(browser, base, `model=${BIG_MODEL}`, 20);
    const text128 = await textOfTokens(browser, base, `model=${BIG_MODEL}`, 128);
    console.error(`bench: ${BIG_MODEL} forwards and switches…`);
    let { ctx, page } = await openPage(browser, base, BIG_MODEL, text20, 'matrix');
    const info = await page.evaluate(() => ({ ...window.tfpPlay.modelInfo, label: window.tfpPlay.modelLabel }));
    const fw20 = await forwards(page, FORWARDS);
    await ctx.close();
    ({ ctx, page } = await openPage(browser, base, BIG_MODEL, text128, 'matrix'));
    const fw128 = await forwards(page, FORWARDS);
    const T = await page.evaluate(() => window.tfpPlay.encoding.ids.length);
    const headM = await switches(page, 'head-select', SWITCHES);
    const layerM = await switches(page, 'layer-select', SWITCHES);
    await ctx.close();
    ({ ctx, page } = await openPage(browser, base, BIG_MODEL, text128, 'model'));
    const headG = await switches(page, 'head-select', SWITCHES);
    const layerG = await switches(page, 'layer-select', SWITCHES);
    await ctx.close();
    res.big = { model: BIG_MODEL, T, layers: info.n_encoder_layers + info.n_decoder_layers, heads: info.n_heads,
                parameters: info.parameters, d_model: info.d_model,
                forward20: summary(fw20), forward128: summary(fw128),
                switches: {
                  'matrix view, head': { render: summary(headM.out.map((x) => x.render)), frame: summary(headM.out.map((x) => x.frame)) },
                  'matrix view, layer': { render: summary(layerM.out.map((x) => x.render)), frame: summary(layerM.out.map((x) => x.frame)) },
                  'model view (all maps), head': { render: summary(headG.out.map((x) => x.render)), frame: summary(headG.out.map((x) => x.frame)) },
                  'model view (all maps), layer': { render: summary(layerG.out.map((x) => x.render)), frame: summary(layerG.out.map((x) => x.frame)) },
                } };
  } finally {
    await browser.close();
    await new Promise((r) => server.httpServer.close(r));
  }
  res.loadavg = { before: loadBefore, after: loadavg() };
  report(res);
  if (JSON_OUT) await writeFile(JSON_OUT, JSON.stringify(res, null, 2));
}

function report(r) {
  const cols = ['module', 'model', 'forward', 'workerMs', 'next', 'draw', 'paint', 'total'];
  const lines = [];
  lines.push(`Chromium: ${r.chromium}; node ${r.node}; ${r.cpus} × ${r.cpu}; commit ${r.commit}; ${r.date}`);
  lines.push(`Load average before ${r.loadavg.before.map((x) => x.toFixed(2)).join(' ')}, after ${r.loadavg.after.map((x) => x.toFixed(2)).join(' ')}`);
  lines.push('');
  lines.push(`First attention map, default model "${r.first.model}", 20 tokens, ${r.first.rows.length} fresh loads (ms)`);
  lines.push('');
  lines.push(`| stage | ${cols.map((c) => (c === 'workerMs' ? '(worker fwd)' : c)).join(' | ')} |`);
  lines.push(`|---|${cols.map(() => '---:').join('|')}|`);
  lines.push(`| median | ${cols.map((c) => f1(median(r.first.rows.map((x) => x[c])))).join(' | ')} |`);
  lines.push(`| min | ${cols.map((c) => f1(Math.min(...r.first.rows.map((x) => x[c])))).join(' | ')} |`);
  lines.push(`| max | ${cols.map((c) => f1(Math.max(...r.first.rows.map((x) => x[c])))).join(' | ')} |`);
  lines.push('');
  const b = r.big;
  lines.push(`Model "${b.model}": ${b.layers} layers × ${b.heads} heads, d_model ${b.d_model}, ${b.parameters} parameters`);
  lines.push('');
  lines.push('| forward pass in the engine worker (ms) | median | p95 | min | max | n |');
  lines.push('|---|---:|---:|---:|---:|---:|');
  for (const [k, s] of [['T=20', b.forward20], ['T=128', b.forward128]]) lines.push(`| ${k} | ${f1(s.median)} | ${f1(s.p95)} | ${f1(s.min)} | ${f1(s.max)} | ${s.n} |`);
  lines.push('');
  lines.push(`| redraw at T=${b.T} (ms, change → …) | render median | render p95 | painted-frame median | painted-frame p95 | n | < ${TARGET_MS} ms (p95 frame)? |`);
  lines.push('|---|---:|---:|---:|---:|---:|---|');
  for (const [k, s] of Object.entries(b.switches)) {
    lines.push(`| ${k} | ${f1(s.render.median)} | ${f1(s.render.p95)} | ${f1(s.frame.median)} | ${f1(s.frame.p95)} | ${s.render.n} | ${s.frame.p95 < TARGET_MS ? 'yes' : 'no'} |`);
  }
  console.log(lines.join('\n'));
}

main().catch((e) => { console.error(e); process.exit(1); });
