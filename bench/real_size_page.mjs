// The real-size checkpoints of bench/real_size_models.mjs opened in the playground itself
// (Debian Chromium, the production build), as a reader opens a folder: every file of
// build/real-models/<name>/ given to the file picker (sharded folders included).
//
//   node bench/real_size_page.mjs [--tokens 32] [name ...]
//
// Per model, in a fresh page (a fresh engine worker, so the heap is that model's):
//   load    from giving the files to the picker until the page has the model (the memory
//           estimate, streaming the files into the worker's heap, parse and bind)
//   heap    the engine worker's heap after loading, and after generating
//   decode  decoder-only models: 32 typed ids, greedy (temperature 0); the page's Generate
//           with max 1 token, then with 1 + --tokens; tokens/s from the difference
//           (encoder-decoders: load only; Translate has no token limit to time against)
// Prints a Markdown table. Needs the module (tools/build.sh module); builds the site.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { counter, counterAbove, openSite } from '../tests/browser/harness.mjs';
import { MODELS, writeModel } from './real_size_models.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'build/real-models');
const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(k); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
const TOKENS = Number(opt('--tokens', 32));
const list = args.filter((a) => !a.startsWith('--'));
const names = list.length ? list : Object.keys(MODELS);

const site = await openSite({ name: 'real-size-page' });
const { page, base } = site;
const mib = (b) => (b / 2 ** 20).toFixed(0);

/** Generate with `max` tokens at temperature 0; ms, or the page's error text. */
async function generate(max) {
  await page.locator('#gen-temp').fill('0');
  await page.locator('#gen-max').fill(String(max));
  const g = await counter(page, 'generations');
  const t0 = Date.now();
  await page.locator('#generate').click();
  try {
    await counterAbove(page, 'generations', g, 120_000);
  } catch {
    return { error: (await page.locator('#gen-status').innerText().catch(() => '')) || 'no result in 120 s' };
  }
  const gen = await page.evaluate(() => window.tfpPlay.outputs.generated);
  if (!gen || gen.ids.length === 0) return { error: (await page.evaluate(() => window.tfpPlay.errors.at(-1))) || 'no tokens' };
  return { ms: Date.now() - t0, n: gen.ids.length };
}

const rows = [];
for (const name of names) {
  const dir = join(OUT, name);
  if (!existsSync(join(dir, 'config.json'))) writeModel(name, OUT);
  await page.goto(`${base}/?model=fixture-gpt2_tiny`);
  await counterAbove(page, 'loads', 0, 60_000);
  const loads = await counter(page, 'loads'), errors = await counter(page, 'loadErrors');
  const t0 = Date.now();
  await page.locator('#model-files').setInputFiles(readdirSync(dir).map((f) => join(dir, f)));
  await page.waitForFunction(([l, e]) => Number(document.body.dataset.loads ?? 0) > l || Number(document.body.dataset.loadErrors ?? 0) > e,
    [loads, errors], { timeout: 180_000 });
  const loadMs = Date.now() - t0;
  const row = { name, files: readdirSync(dir).filter((f) => f.endsWith('.safetensors')).length, load_ms: loadMs };
  if (await counter(page, 'loadErrors') > errors) {
    row.error = await page.locator('#load-error').innerText();
    rows.push(row);
    console.log(JSON.stringify(row));
    continue;
  }
  row.estimate = await page.locator('#memory-estimate').innerText();
  row.heap_after_load = await page.evaluate(() => window.tfpPlay.heapBytes());
  const info = await page.evaluate(() => window.tfpPlay.modelInfo);
  if (info.architecture === 'decoder_only') {
    const ids = Array.from({ length: 32 }, (_, i) => ((7919 * i + 13) % (info.vocab_size - 2)) + 2);
    await page.locator('#text').fill(ids.join(' '));
    await page.waitForFunction((w) => window.tfpPlay.encoding?.ids.join(' ') === w, ids.join(' '), { timeout: 120_000 });
    const one = await generate(1);
    const many = one.error ? one : await generate(1 + TOKENS);
    if (many.error) row.gen_error = many.error;
    else {
      row.first_ms = one.ms;
      row.decode_tok_s = (many.n - 1) / ((many.ms - one.ms) / 1000);
    }
  }
  row.heap_peak = await page.evaluate(() => window.tfpPlay.heapBytes());
  rows.push(row);
  console.log(JSON.stringify(row));
}
await site.close();

console.log('\n| model | files | load in the page (ms) | heap after load (MiB) | heap at the end (MiB) | first token after 32 ids (ms) | decode (tok/s) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  if (r.error) { console.log(`| ${r.name} | ${r.files} | not loaded: ${r.error} | | | | |`); continue; }
  const gen = r.gen_error ? `generation failed: ${r.gen_error} | ` : r.decode_tok_s ? `${r.first_ms} | ${r.decode_tok_s.toFixed(1)} |` : '– | – |';
  console.log(`| ${r.name} | ${r.files} | ${r.load_ms} | ${mib(r.heap_after_load)} | ${mib(r.heap_peak)} | ${gen}`);
}
