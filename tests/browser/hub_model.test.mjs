// The playground opens models by their Hub name (pages/playground/hub_picker.ts,
// engine/hub_load.ts) from the local stand-in for the Hub (tests/hub/hub_server.mjs, on its
// own two origins): the same tokens and attention as the same folder opened from disk, the
// memory estimate before any weight byte, progress to the total, a second open that sends no
// file byte, the reload of ?model=hf:… with the hub unreachable, a flipped byte caught and
// named, the token of a gated repository (never in the URL), an architecture refused after
// config.json alone, and Cancel keeping the previous model.
// Each test opens the page afresh on the model it needs (fresh()); a test that checks what a
// second open reads does the first open itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshPage, openSite, ROOT, attentionOn, counter, counterAbove, SHOTS } from './harness.mjs';
import { startHub } from '../hub/hub_server.mjs';
import { twoShards } from '../js/shards.mjs';

// The test build lets the page reach the stand-in (plugins/csp_plugin.ts); tools/test.sh sets it too.
process.env.TFP_HUB_HOSTS ||= 'http://127.0.0.1:*';
const FIX = `${ROOT}tests/fixtures/checkpoints/`;
const TOKEN = 'hf_browser_test_token';
let hub, site, page, tmp;

before(async () => {
  // A repository of an architecture the engine does not read (weights and all).
  tmp = await mkdtemp(join(tmpdir(), 'tfp-hub-page-'));
  await writeFile(join(tmp, 'config.json'), JSON.stringify({ model_type: 'mamba', architectures: ['MambaForCausalLM'] }));
  await writeFile(join(tmp, 'model.safetensors'), await readFile(`${FIX}gpt2_tiny/model.safetensors`));
  // gpt2_tiny in two shards and their index, as a sharded repository holds it.
  const shardedDir = join(tmp, 'sharded');
  await mkdir(shardedDir);
  const { shards, index } = twoShards(new Uint8Array(await readFile(`${FIX}gpt2_tiny/model.safetensors`)));
  for (const sh of shards) await writeFile(join(shardedDir, sh.name), sh.bytes);
  await writeFile(join(shardedDir, 'model.safetensors.index.json'), index);
  await writeFile(join(shardedDir, 'config.json'), await readFile(`${FIX}gpt2_tiny/config.json`));
  hub = await startHub({ repos: {
    'test/bert-tiny': { dir: `${FIX}bert_tiny` },
    'test/gpt2-tiny': { dir: `${FIX}gpt2_tiny`, files: ['config.json', 'model.safetensors'] },
    'test/gated': { dir: `${FIX}bert_tiny`, token: TOKEN },
    'test/bert-tiny-cancel': { dir: `${FIX}bert_tiny` },
    'test/bert-tiny-corrupt': { dir: `${FIX}bert_tiny` },
    'test/bert-tiny-quota': { dir: `${FIX}bert_tiny` },
    'test/bert-tiny-offline': { dir: `${FIX}bert_tiny` },
    'test/unsupported': { dir: tmp, files: ['config.json', 'model.safetensors'] },
    'test/gpt2-sharded': { dir: join(tmp, 'sharded') },
  } });
  site = await openSite({ name: 'hub_model' });
  page = site.page;
}, { timeout: 180_000 });

after(async () => {
  await site?.close();
  await hub?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const weightGets = () => hub.requests.filter((r) => r.path.endsWith('.safetensors') && r.method === 'GET' && !/^bytes=(0-7|8-\d+)$/.test(r.range ?? ''));
const hubUrl = (model, extra = '') => `${site.base}/index.html?model=${encodeURIComponent(model)}&hub=${encodeURIComponent(hub.url)}&text=${encodeURIComponent('the cat sat')}${extra}`;
const loaded = async (before_) => counterAbove(page, 'loads', before_, 60_000);
const state = () => page.evaluate(() => ({ encoding: window.tfpPlay.encoding && { ids: window.tfpPlay.encoding.ids, tokens: window.tfpPlay.encoding.tokens },
  label: window.tfpPlay.modelLabel, estimate: window.tfpPlay.hub?.lastEstimate ?? null, url: location.href }));
async function waitRendered() {
  await page.waitForFunction(() => window.tfpPlay?.attention.length > 0 && window.tfpPlay.encoding?.ids.length > 0, null, { timeout: 30_000 });
}
/** The state each test starts from: the playground opened afresh on `model` from the
 *  stand-in hub, loaded and drawn; 1280 × 720 (or `opts`), nothing in localStorage. The
 *  models this browser stored stay stored (the Hub's own cache, what a second open reads). */
async function fresh(model, extra = '', opts = {}) {
  await freshPage(page, hubUrl(model, extra), opts);
  await page.waitForFunction((m) => window.tfpPlay?.modelLabel === m, model, { timeout: 60_000 })
    .catch(async (e) => { throw new Error(`${e.message}: ${await page.evaluate(() => [window.tfpPlay?.modelLabel, window.tfpPlay?.errors.join(' | '), document.getElementById('hub-error')?.textContent].join(' / '))}`); });
  await waitRendered();
}

test('a model opened by name: the tokens and attention of the same folder opened from disk; estimate first; progress to the total', { timeout: 120_000 }, async () => {
  hub.reset();
  await fresh('hf:test/bert-tiny');
  const fromHub = await state();
  const hubMaps = await attentionOn(page);
  assert.ok(fromHub.estimate, 'the memory estimate was shown');
  assert.ok(await page.locator('#hub-estimate').isVisible());
  assert.match(fromHub.url, /model=hf%3Atest%2Fbert-tiny/);
  const bytes = (await readFile(`${FIX}bert_tiny/model.safetensors`)).length;
  assert.equal(hub.bytesSentFor('test/bert-tiny', 'model.safetensors') >= bytes, true);
  // The weights were asked for after the config and the header's two Range reads.
  const order = hub.requests.filter((r) => r.method === 'GET').map((r) => `${r.path.split('/').pop()}${r.range ? ` ${r.range}` : ''}`);
  const first = order.findIndex((o) => o.startsWith('model.safetensors') && !/bytes=(0-7|8-)/.test(o));
  assert.ok(order.indexOf('config.json') < order.indexOf('model.safetensors bytes=0-7'), order.join(' | '));
  assert.ok(first > order.indexOf('model.safetensors bytes=0-7'), order.join(' | '));
  await page.locator('.model-panel').screenshot({ path: `${SHOTS}hub_model/opened.png` });

  // The same folder from disk.
  const loads = await counter(page, 'loads');
  await page.locator('#model-files').setInputFiles(await Promise.all(['config.json', 'model.safetensors', 'tokenizer.json'].map(async (name) => (
    { name, mimeType: 'application/octet-stream', buffer: await readFile(`${FIX}bert_tiny/${name}`) }))));
  await loaded(loads);
  await waitRendered();
  const fromDisk = await state();
  assert.deepEqual(fromDisk.encoding, fromHub.encoding);
  assert.deepEqual(await attentionOn(page), hubMaps);
});

test('a second open sends no file byte; with the hub unreachable ?model=hf:… reopens from this browser', { timeout: 120_000 }, async () => {
  // The first open (it sends nothing either where an earlier test stored the model), then
  // the second, counted from here.
  await fresh('hf:test/bert-tiny');
  hub.reset();
  await fresh('hf:test/bert-tiny');
  assert.equal(hub.bytesSent(), 0);
  // Both of the hub's origins unreachable: the stored revision opens.
  const block = (route) => route.abort('internetdisconnected');
  await page.route(`${hub.url}/**`, block);
  await page.route(`${hub.cdnUrl}/**`, block);
  try {
    await page.reload();
    await page.waitForFunction(() => window.tfpPlay?.modelLabel === 'hf:test/bert-tiny', null, { timeout: 60_000 });
    await waitRendered();
  } finally {
    await page.unroute(`${hub.url}/**`, block);
    await page.unroute(`${hub.cdnUrl}/**`, block);
  }
  // The stored list names it, with its size.
  await page.locator('#hub-stored > summary').click();
  await page.waitForSelector('#hub-stored li[data-repo="test/bert-tiny"]');
});

test('refusals beside the field, the open model kept: an unsupported architecture after config.json alone, a flipped byte named', { timeout: 120_000 }, async () => {
  await fresh('hf:test/gpt2-tiny');
  hub.reset();
  let errors = await counter(page, 'loadErrors');
  await page.fill('#hub-repo', 'test/unsupported');
  await page.click('#hub-open');
  await counterAbove(page, 'loadErrors', errors, 30_000);
  assert.match(await page.locator('#hub-error').textContent(), /architecture|model_type/);
  assert.deepEqual(weightGets(), []);
  assert.equal(await page.evaluate(() => window.tfpPlay.modelLabel), 'hf:test/gpt2-tiny');

  // A byte flipped in transit (the stand-in serves it so; the hub publishes the true SHA-256).
  hub.corrupt('test/bert-tiny-corrupt', 'model.safetensors', 300);
  errors = await counter(page, 'loadErrors');
  await page.fill('#hub-repo', 'test/bert-tiny-corrupt');
  await page.click('#hub-open');
  await counterAbove(page, 'loadErrors', errors, 30_000);
  assert.match(await page.locator('#hub-error').textContent(), /model\.safetensors.*checksum/);
  assert.equal(await page.evaluate(() => window.tfpPlay.modelLabel), 'hf:test/gpt2-tiny');
});

test('a gated repository asks for a token; with it the model opens; the token is never in the address', { timeout: 120_000 }, async () => {
  await fresh('hf:test/gpt2-tiny');
  const errors = await counter(page, 'loadErrors');
  await page.fill('#hub-repo', 'test/gated');
  await page.click('#hub-open');
  await counterAbove(page, 'loadErrors', errors, 30_000);
  assert.match(await page.locator('#hub-error').textContent(), /access token/);
  assert.ok(await page.locator('#hub-token').isVisible());
  await page.locator('.model-panel').screenshot({ path: `${SHOTS}hub_model/gated.png` });
  const loads = await counter(page, 'loads');
  await page.fill('#hub-token', TOKEN);
  await page.click('#hub-use-token');
  await loaded(loads);
  assert.equal(await page.evaluate(() => window.tfpPlay.modelLabel), 'hf:test/gated');
  assert.ok(!page.url().includes(TOKEN));
  for (const r of hub.requests.filter((x) => x.origin === 'cdn')) assert.equal(r.authorization, null);
});

test('Cancel during a slow download keeps the previous model; opening again resumes', { timeout: 120_000 }, async () => {
  await fresh('hf:test/gpt2-tiny');
  const before_ = await page.evaluate(() => window.tfpPlay.modelLabel);
  hub.slow(20_000);
  try {
    const errors = await counter(page, 'loadErrors');
    await page.fill('#hub-repo', 'test/bert-tiny-cancel');
    await page.fill('#hub-revision', '');
    await page.click('#hub-open');
    await page.waitForFunction(() => Number(document.getElementById('hub-bar')?.value ?? 0) > 0, null, { timeout: 30_000 });
    await page.click('#hub-cancel');
    await counterAbove(page, 'loadErrors', errors, 30_000);
    assert.match(await page.locator('#hub-error').textContent(), /Cancelled/);
    assert.equal(await page.evaluate(() => window.tfpPlay.modelLabel), before_);
  } finally {
    hub.slow(null);
  }
  const loads = await counter(page, 'loads');
  await page.click('#hub-open');
  await loaded(loads);
  assert.equal(await page.evaluate(() => window.tfpPlay.modelLabel), 'hf:test/bert-tiny-cancel');
});

test('the Hub panel in Chinese at 390 px: translated, no sideways scroll, usable from the keyboard', { timeout: 120_000 }, async () => {
  try {
    await fresh('hf:test/bert-tiny', '&lang=zh-CN', { viewport: { width: 390, height: 844 } });
    await page.evaluate(() => { document.getElementById('hub-panel').open = true; document.querySelector('#hub-stored').open = true; });
    await page.waitForSelector('#hub-stored li[data-repo]');
    const panel = await page.locator('#hub-panel').innerText();
    assert.match(panel, /从 Hugging Face Hub 打开/);
    assert.match(panel, /保存在这个浏览器里的模型/);
    assert.doesNotMatch(panel, /Open from|Models stored|Cancel|Delete/);
    await page.waitForFunction(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1, null, { timeout: 30_000 });
    // Keyboard: the repository field, Enter opens.
    const loads = await counter(page, 'loads');
    await page.locator('#hub-repo').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('test/gpt2-tiny');
    await page.keyboard.press('Enter');
    await loaded(loads);
    assert.equal(await page.evaluate(() => window.tfpPlay.modelLabel), 'hf:test/gpt2-tiny');
    await page.locator('.model-panel').screenshot({ path: `${SHOTS}hub_model/zh-390.png` });
  } finally {
    await page.setViewportSize({ width: 1280, height: 720 });
  }
});

test('every other failure is a sentence beside the field, the open model kept: no such repository or revision, offline, storage full', { timeout: 120_000 }, async () => {
  await fresh('hf:test/gpt2-tiny');
  const fails = async (repo, revision, pattern) => {
    const errors = await counter(page, 'loadErrors');
    await page.fill('#hub-repo', repo);
    await page.fill('#hub-revision', revision);
    await page.click('#hub-open');
    await counterAbove(page, 'loadErrors', errors, 30_000);
    const said = await page.locator('#hub-error').textContent();
    assert.match(said, pattern, said);
    assert.match(said, /Still using hf:test\/gpt2-tiny/, said);
    assert.equal(await page.evaluate(() => window.tfpPlay.modelLabel), 'hf:test/gpt2-tiny');
  };
  await fails('test/no-such-model', '', /No such repository/);
  await fails('test/bert-tiny', 'no-such-branch', /no such revision/);
  // Storage: the browser says there is no room for what must be downloaded.
  await page.evaluate(() => { navigator.storage.estimate = async () => ({ quota: 1000, usage: 900 }); });
  await fails('test/bert-tiny-quota', '', /Not enough room/);
  const block = (route) => route.abort('internetdisconnected');
  await page.route(`${hub.url}/**`, block);
  try {
    await fails('test/bert-tiny-offline', '', /could not be reached/);
  } finally {
    await page.unroute(`${hub.url}/**`, block);
  }
});

test('a sharded repository: the index, then each shard streamed in, the same attention as the single file', { timeout: 120_000 }, async () => {
  await fresh('hf:test/gpt2-tiny');
  const single = await attentionOn(page);
  hub.reset();
  await page.goto(hubUrl('hf:test/gpt2-sharded'));
  await page.waitForFunction(() => window.tfpPlay?.modelLabel === 'hf:test/gpt2-sharded', null, { timeout: 60_000 });
  await waitRendered();
  assert.deepEqual(await attentionOn(page), single);
  assert.ok(hub.requests.some((r) => r.path.endsWith('model-00002-of-00002.safetensors')));
  assert.deepEqual((await page.evaluate(() => window.tfpPlay.hub.lastPlan.weights.map((w) => w.name))),
    ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
});

test('a repository too large for the page is refused from its headers, with the precisions it fits in; one opens it so', { timeout: 120_000 }, async () => {
  await fresh('hf:test/gpt2-tiny');
  const bytes = (await readFile(`${FIX}bert_tiny/model.safetensors`)).length;
  // A page limit below the file as stored (F32) but above it in int8.
  await page.evaluate((b) => { window.tfpPlay.heapLimitBytes = b; }, Math.floor(bytes * 0.8));
  hub.reset();
  const errors = await counter(page, 'loadErrors');
  await page.fill('#hub-repo', 'test/bert-tiny');
  await page.fill('#hub-revision', '');
  await page.click('#hub-open');
  await counterAbove(page, 'loadErrors', errors, 30_000);
  assert.match(await page.locator('#hub-error').textContent(), /was not opened|needs about/);
  assert.deepEqual(weightGets(), []);
  const loads = await counter(page, 'loads');
  await page.locator('#hub-narrower button[data-precision="int8"]').click();
  await loaded(loads);
  assert.equal(await page.evaluate(() => window.tfpPlay.modelInfo.precision), 'int8');
  await page.evaluate(() => { delete window.tfpPlay.heapLimitBytes; });
});
