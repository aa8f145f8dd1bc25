// Threads in the page (issue 14): the playground picks the engine's build by itself
// (web/src/engine/load_module.ts) and says which in its footer.
//   - served with COOP/COEP (vite preview, what npm start and npm run preview send) the
//     page is cross-origin isolated: the threaded module tfp_mt.mjs runs on
//     min(hardwareConcurrency, 4) threads (> 1 on any machine with 2 cores) once its pool
//     has loaded in the background, the footer says so, and brown-gpt's attention maps for
//     an 80-token text (GEMMs and heads split) are computed — recomputed after the pool is
//     up, so the threads compute them;
//   - served by a bare static host (no headers) it is not: tfp.mjs on 1 thread, and the
//     same text gives the same maps, bit for bit;
//   - no console error, no CSP violation in either (the harness).
// Each test opens its own site and page; the comparison test runs the isolated page itself
// when the first test has not (threadedRun()).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { attentionOn, openSite } from './harness.mjs';
import { hasShipped } from '../js/model_api.mjs';

const SKIP = hasShipped('brown-gpt') ? false : 'brown-gpt is not shipped';
// Long enough (> 64 tokens) that brown-gpt's attention is split by heads too (4 heads x
// T² x 64 >= 2^20 multiply-adds, kernels/parallel.cpp), not only its GEMMs.
const TEXT = 'The jury said the city of Atlanta had a fine election and that the new mayor would take '
  + 'office in the spring, after the county board met to count the votes again in the old hall. '
  + 'The committee also said that the state should pay for the new roads and the schools, and it '
  + 'asked the governor to act on the report before the end of the year.';

let site;  // one at a time: both serve build/web-test/threads/
after(async () => {
  await site?.close();
});

/** Opens the playground on TEXT; returns what the engine ran on and the maps it drew. */
async function run({ page, base, problems }) {
  await page.goto(`${base}/?model=brown-gpt&text=${encodeURIComponent('The jury said.')}`);
  await page.waitForFunction(() => (window.tfpPlay?.attention?.length ?? 0) > 0, null, { timeout: 60_000 });
  // The threaded build's pool loads in the background (load_module.ts): within seconds the
  // kernels run on every thread the footer names. TEXT is computed after that.
  await page.waitForFunction(async () => {
    const now = await window.tfpPlay.engineInfo();
    return now.threadsNow === now.threads;
  }, null, { timeout: 20_000, polling: 100 });
  await page.locator('#text').fill(TEXT);
  await page.waitForFunction(() => (window.tfpPlay.attention?.length ?? 0) > 0
    && (window.tfpPlay.encoding?.ids.length ?? 0) > 64
    && window.tfpPlay.attention[0].dims.at(-1) === window.tfpPlay.encoding.ids.length
    && document.getElementById('status')?.textContent?.includes('ms'), null, { timeout: 60_000 });
  const info = await page.evaluate(() => ({
    isolated: globalThis.crossOriginIsolated, cores: navigator.hardwareConcurrency,
    threads: window.tfpPlay.threads, footer: document.getElementById('engine-threads')?.textContent ?? '',
    tokens: window.tfpPlay.encoding.ids.length,
  }));
  assert.deepEqual(problems, []);
  return { ...info, maps: await attentionOn(page) };
}

// The isolated (threaded) run: deterministic, so made once, by the first test or, when that
// one did not get so far or is not run, by the test that compares with it.
let threaded;
async function threadedRun() {
  if (threaded) return threaded;
  site = await openSite({ name: 'threads' });
  const r = await run(site);
  await site.close();
  site = null;
  threaded = r;
  return threaded;
}

test('cross-origin isolated: the threaded module, its thread count in the footer', { skip: SKIP, timeout: 150_000 }, async () => {
  await threadedRun();
  assert.equal(threaded.isolated, true);
  assert.ok(threaded.cores > 1, `Chromium reports ${threaded.cores} core(s)`);
  assert.equal(threaded.threads, Math.min(threaded.cores, 4));
  assert.ok(threaded.threads > 1);
  assert.match(threaded.footer, new RegExp(`\\b${threaded.threads} threads\\b`));
  assert.ok(Object.keys(threaded.maps).length >= 4, 'a map per layer');
});

test('a static host: the single-threaded module, the same attention maps bit for bit', { skip: SKIP, timeout: 240_000 }, async () => {
  await threadedRun();  // the isolated page's maps to compare with (computed here if not yet)
  site = await openSite({ name: 'threads', server: 'static' });
  const single = await run(site);
  assert.equal(single.isolated, false);
  assert.equal(single.threads, 1);
  assert.match(single.footer, /\b1 thread\b/);
  assert.equal(single.tokens, threaded.tokens);
  assert.deepEqual(Object.keys(single.maps), Object.keys(threaded.maps));
  for (const [name, m] of Object.entries(threaded.maps)) {
    assert.deepEqual(single.maps[name].dims, m.dims, name);
    assert.ok(single.maps[name].data.every((x, i) => Object.is(x, m.data[i])), `${name} differs between tfp_mt.mjs and tfp.mjs`);
  }
});
