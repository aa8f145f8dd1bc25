// The playground's precision switch (issue 14, web/src/pages/playground/precision.ts):
// brown-gpt opens as stored (f32), then again as int8 and as f16 from the switch. Each
// reload: the engine says the weights are held in that precision and fewer bytes
// (int8 < f16 < f32), the line under the switch shows them, the most probable next token
// stays that of f32 (brown-gpt's int8 perplexity is within 0.1 % of f32: bench/RESULTS.md),
// the attention maps are finite and close to f32's. The precision is in the URL: a link
// opens the model in it; another model picked afterwards opens as stored.
// A folder of one's own too large for the heap as stored is refused with buttons for the
// precisions it fits in (the page's estimate, engine/checkpoint_memory.ts); each opens it so,
// and the bytes the estimate said it would hold are the engine's own count.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { attentionOn, counter, counterAbove, openSite, ROOT } from './harness.mjs';
import { hasShipped } from '../js/model_api.mjs';

const SKIP = hasShipped('brown-gpt') ? false : 'brown-gpt is not shipped';
const TEXT = 'The jury said the city of Atlanta had a fine election and that the';

let site, folderSite;
after(async () => {
  await site?.close();
  await folderSite?.close();
});

async function settled(page, loads) {
  await counterAbove(page, 'loads', loads, 60_000);
  await page.waitForFunction(() => (window.tfpPlay?.attention?.length ?? 0) > 0 && window.tfpPlay.outputs.nextTokens.length > 0
    && document.getElementById('precision-info')?.textContent?.includes('ms'), null, { timeout: 60_000 });
  return page.evaluate(() => ({
    precision: window.tfpPlay.modelInfo.precision, bytes: window.tfpPlay.modelInfo.weights_bytes,
    line: document.getElementById('precision-info').textContent, select: document.getElementById('precision-select').value,
    top: window.tfpPlay.outputs.nextTokens[0].token,
  }));
}

test('precision switch: f32 → int8 → f16 reloads brown-gpt, memory drops, predictions stay sensible', { skip: SKIP, timeout: 150_000 }, async () => {
  site = await openSite({ name: 'precision' });
  const { page, problems } = site;
  await page.goto(`${site.base}/?model=brown-gpt&text=${encodeURIComponent(TEXT)}`);
  const f32 = await settled(page, 0);
  const maps32 = await attentionOn(page);
  assert.equal(f32.precision, 'f32');
  assert.equal(f32.select, 'f32');
  assert.match(f32.line, /MB \(f32\)/);

  const results = { f32 };
  for (const p of ['int8', 'f16']) {
    await page.evaluate(() => { window.tfpPlay.attention = []; window.tfpPlay.outputs.nextTokens = []; });
    const loads = await counter(page, 'loads');
    await page.selectOption('#precision-select', p);
    const r = await settled(page, loads);
    results[p] = r;
    assert.equal(r.precision, p);
    assert.equal(r.select, p);
    assert.match(r.line, new RegExp(`MB \\(${p}\\)`));
    assert.equal(r.top, f32.top, `${p}: the most probable next token`);
    const maps = await attentionOn(page);
    assert.deepEqual(Object.keys(maps), Object.keys(maps32));
    for (const [name, m] of Object.entries(maps)) {
      assert.ok(m.data.every(Number.isFinite), `${p}: ${name} finite`);
      const d = Math.max(...m.data.map((x, i) => Math.abs(x - maps32[name].data[i])));
      assert.ok(d < 0.05, `${p}: ${name} differs from f32 by ${d}`);
    }
  }
  assert.ok(results.int8.bytes < results.f16.bytes && results.f16.bytes < f32.bytes,
    `bytes held: f32 ${f32.bytes}, f16 ${results.f16.bytes}, int8 ${results.int8.bytes}`);
  assert.ok(results.int8.bytes < 0.4 * f32.bytes);
  await site.shot('precision_switch');
  // The precision is in the URL: a link opens the model in it, and the switch shows it.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('precision') === 'f16', null, { timeout: 30_000 });
  await page.goto(`${site.base}/?model=brown-gpt&precision=int8&text=${encodeURIComponent(TEXT)}`);
  const linked = await settled(page, 0);
  assert.equal(linked.precision, 'int8');
  assert.equal(linked.select, 'int8');
  assert.equal(linked.bytes, results.int8.bytes);
  assert.equal(linked.top, results.int8.top);
  // Another model opens as its checkpoint stores it, and the URL says nothing of precision.
  const loads = await counter(page, 'loads');
  await page.selectOption('#model-select', 'brown-pos');
  await counterAbove(page, 'loads', loads, 60_000);
  await page.waitForFunction(() => window.tfpPlay.state.model === 'brown-pos'
    && !new URLSearchParams(location.search).has('precision'), null, { timeout: 10_000 });
  assert.notEqual(await page.evaluate(() => window.tfpPlay.modelInfo.precision), 'int8');
  assert.deepEqual(problems, []);
});

test('a folder too large as stored offers f16 and int8; each opens it, holding the bytes estimated', { skip: SKIP, timeout: 120_000 }, async () => {
  folderSite = await openSite({ name: 'precision-folder' });
  const { page, problems } = folderSite;
  await page.goto(`${folderSite.base}/?model=fixture-gpt2_tiny`);
  await counterAbove(page, 'loads', 0, 60_000);
  // brown-gpt's folder (F16, 2.1 MB): as stored the file stays and its tensors are widened beside it (6.4 MB); a 3 MB limit
  // refuses that, not f16 (as stored, 2.2 MB) nor int8 (1.1 MB).
  await page.evaluate(() => { window.tfpPlay.heapLimitBytes = 3_000_000; });
  const dir = `${ROOT}models/brown-gpt/`;
  const files = await Promise.all(['config.json', 'model.safetensors', 'tokenizer.json'].map(async (name) =>
    ({ name, mimeType: 'application/octet-stream', buffer: await readFile(dir + name) })));
  for (const precision of ['f16', 'int8']) {
    const errors = await counter(page, 'loadErrors');
    await page.locator('#model-files').setInputFiles(files);
    await counterAbove(page, 'loadErrors', errors, 10_000);
    assert.match(await page.locator('#load-error').innerText(), /^your files \(.*\) was not opened: it needs about 6 MB of memory .*more than the 3 MB/);
    const stored = await page.evaluate(() => window.tfpPlay.memoryEstimate);
    assert.equal(stored.precision, '');
    assert.ok(stored.totalBytes > 3_000_000, `as stored: ${stored.totalBytes}`);
    const buttons = page.locator('#narrower-choices button');
    assert.deepEqual(await buttons.evaluateAll((bs) => bs.map((b) => b.dataset.precision)), ['f16', 'int8']);
    assert.match(await buttons.nth(1).innerText(), /^Open it in int8 instead \(about 1 MB; 1 MB once loaded\)$/);
    if (precision === 'f16') { await buttons.first().scrollIntoViewIfNeeded(); await folderSite.shot('precision_refusal_choices'); }
    const loads = await counter(page, 'loads');
    await page.locator(`#narrower-choices button[data-precision="${precision}"]`).click();
    await counterAbove(page, 'loads', loads, 60_000);
    const r = await page.evaluate(() => ({ info: window.tfpPlay.modelInfo, estimate: window.tfpPlay.memoryEstimate,
      line: document.getElementById('memory-estimate').textContent, choices: document.getElementById('narrower-choices').hidden,
      errorHidden: document.getElementById('load-error').hidden }));
    assert.equal(r.info.precision, precision);
    assert.equal(r.estimate.precision, precision);
    assert.equal(r.estimate.heldBytes, r.info.weights_bytes, `${precision}: bytes held, estimated and the engine's`);
    assert.ok(r.estimate.totalBytes <= 3_000_000);
    assert.match(r.line, new RegExp(`^Memory with its matrices in ${precision}: about \\d MB at the peak of loading`));
    assert.ok(r.choices && r.errorHidden);
    assert.equal(await page.evaluate(() => document.getElementById('precision-select').value), precision);
  }
  assert.deepEqual(problems, []);
});
