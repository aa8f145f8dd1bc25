// A real-size checkpoint opened BY NAME in the playground (Debian Chromium, the production
// build) from the local stand-in for the Hub (tests/hub/hub_server.mjs), beside the same
// folder given to the file picker and a plain fetch of the same bytes in the same page:
//   fetch      MB/s of a plain fetch() of the weights from the stand-in's file host
//   hub        first open by name (download, SHA-256, store, streamed into the engine): ms, MB/s,
//              the worker's heap after it (the heap only grows: the load's peak)
//   again      the second open (from the browser's store: no file byte sent)
//   files      the same folder through the file picker, in the same precision: ms, heap
// Each open in a fresh page (a fresh worker: the heap is that model's alone).
//   node bench/hub_page.mjs [--precision int8] [name]     (default smollm-135m, bench/real_size_models.mjs)
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import { counter, counterAbove, openSite } from '../tests/browser/harness.mjs';
import { startHub } from '../tests/hub/hub_server.mjs';
import { writeModel } from './real_size_models.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'build/real-models');
const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(k); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
const precision = opt('--precision', 'int8');
const name = args.find((a) => !a.startsWith('--')) ?? 'smollm-135m';
const dir = join(OUT, name);
if (!existsSync(join(dir, 'config.json'))) writeModel(name, OUT);
const weights = readdirSync(dir).filter((f) => f.endsWith('.safetensors'));
const bytes = weights.reduce((a, f) => a + statSync(join(dir, f)).size, 0);

process.env.TFP_HUB_HOSTS ||= 'http://127.0.0.1:*';  // the site build lets the page reach the stand-in
const hub = await startHub({ repos: { [`bench/${name}`]: { dir } } });
const site = await openSite({ name: 'hub-page-bench' });
const mb = (b, ms) => Number((b / 1e6 / (ms / 1000)).toFixed(1));
const mib = (b) => Math.round(b / 2 ** 20);

async function fresh(url) {
  const page = await site.newPage();
  await page.goto(url);
  await page.waitForFunction(() => Number(document.body.dataset.loads ?? 0) > 0 || Number(document.body.dataset.loadErrors ?? 0) > 0,
    null, { timeout: 600_000 });
  return page;
}
const row = { name, precision, bytes, cpu: cpus()[0]?.model };
try {
  const start = await fresh(`${site.base}/?model=fixture-gpt2_tiny`);
  const urls = await start.evaluate(async ({ hubUrl, repo, files }) =>
    files.map((f) => `${hubUrl}/${repo}/resolve/main/${f}`), { hubUrl: hub.url, repo: `bench/${name}`, files: weights });
  const t0 = Date.now();
  await start.evaluate(async (list) => { for (const u of list) { const r = await fetch(u); for await (const _ of r.body) { /* read */ } } }, urls);
  row.fetch_MBps = mb(bytes, Date.now() - t0);
  await start.evaluate(async () => { const d = await navigator.storage.getDirectory(); await d.removeEntry('tfp-hub', { recursive: true }).catch(() => {}); });
  await start.close();

  for (const run of ['hub', 'again']) {
    hub.reset();
    const t = Date.now();
    const page = await fresh(`${site.base}/?model=${encodeURIComponent(`hf:bench/${name}`)}&hub=${encodeURIComponent(hub.url)}&precision=${precision}&text=1+2+3`);
    const ms = Date.now() - t;
    const label = await page.evaluate(() => window.tfpPlay.modelLabel);
    if (label !== `hf:bench/${name}`) row[`${run}_error`] = await page.locator('#hub-error').innerText().catch(() => label);
    row[`${run}_ms`] = ms;
    row[`${run}_MBps`] = mb(bytes, ms);
    row[`${run}_heap_MiB`] = mib(await page.evaluate(() => window.tfpPlay.heapBytes()));
    row[`${run}_sent_MB`] = Number((hub.bytesSent() / 1e6).toFixed(1));
    row[`${run}_held`] = await page.evaluate(() => `${window.tfpPlay.modelInfo?.precision} ${window.tfpPlay.modelInfo?.weights_bytes}`);
    await page.close();
  }

  const page = await fresh(`${site.base}/?model=fixture-gpt2_tiny`);
  const loads = await counter(page, 'loads');
  // The folder in the same precision: refused as stored under a page limit below its size,
  // then opened with the refusal's button for that precision (pages/playground/open_files.ts).
  if (precision) await page.evaluate((b) => { window.tfpPlay.heapLimitBytes = b; }, Math.floor(bytes * 0.9));
  const t1 = Date.now();
  await page.locator('#model-files').setInputFiles(readdirSync(dir).map((f) => join(dir, f)));
  if (precision) await page.locator(`#narrower-choices button[data-precision="${precision}"]`).click({ timeout: 600_000 });
  await counterAbove(page, 'loads', loads, 600_000);
  row.files_held = await page.evaluate(() => `${window.tfpPlay.modelInfo?.precision} ${window.tfpPlay.modelInfo?.weights_bytes}`);
  row.files_ms = Date.now() - t1;
  row.files_heap_MiB = mib(await page.evaluate(() => window.tfpPlay.heapBytes()));
  await page.close();
} finally {
  console.log(JSON.stringify(row));
  await site.close();
  await hub.close();
}
