// Engine.rollout and Engine.headStats through the page's one engine worker in Chromium
// (web/engine_test.html and the playground under the Vite dev server):
//   - on the BERT fixture's encoder maps (non-causal, so every cell counts), rollout with
//     mean and max head fusion and head statistics equal tfp_attention_rollout /
//     tfp_attention_head_stats called here in Node on the same module (oracle; tolerance
//     1e-6, equality expected: the same wasm on the same inputs);
//   - the caller's maps stay usable (copied to the worker, not transferred);
//   - bad shapes reject with a message naming the layer and the dims, and the engine
//     keeps working;
//   - the playground, showing head statistics and rollout, runs one worker (the engine's).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadTfp } from '../js/tfp_module.mjs';
import { CHECKPOINTS, ModelApi, readFixture } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';
import { openEngineTest } from './harness.mjs';

let site, page, api;

before(async () => {
  api = new ModelApi(await loadTfp());
  site = await openEngineTest('engine_maths');
  page = site.page;
}, { timeout: 120_000 });

after(async () => { await site?.close(); });

test('rollout and head statistics from the engine worker equal the C API in Node', { timeout: 60_000 }, async () => {
  const ids = [2, 10, 11, 12, 13, 14, 3];
  const got = await page.evaluate(async ({ url, ids }) => {
    const engine = window.tfpEngine;
    const model = await engine.load(url);
    const out = await model.forward(ids, { attention: true });
    const maps = out.attention.filter((a) => a.name.endsWith('.attn.probs'));
    const mean = await engine.rollout(maps);
    const max = await engine.rollout(maps, { residual: 0.3, fusion: 'max' });
    const stats = await engine.headStats(maps);
    await model.dispose();
    const t = (x) => ({ dims: x.dims, data: Array.from(x.data) });
    return {
      maps: maps.map((m) => ({ name: m.name, ...t(m) })), mean: t(mean), max: t(max), stats: stats.map(t),
      kept: maps.every((m) => m.data.length === m.dims.reduce((a, b) => a * b, 1)),
    };
  }, { url: `/@fs${CHECKPOINTS}bert_tiny/`, ids });
  assert.ok(got.maps.length >= 2 && got.maps.every((m) => m.name.startsWith('enc.')), got.maps.map((m) => m.name).join());
  assert.ok(got.kept, 'the caller keeps its maps');
  const [H, T] = got.maps[0].dims;
  assert.equal(T, ids.length);

  // The same maps come out of the C API here (the oracle starts from Node's own forward).
  const m = api.load(readFixture('bert_tiny'));
  try {
    const want = api.forward(m, ids, { attention: true });
    got.maps.forEach((g) => close(g.data, Array.from(want[g.name].data), g.name));
  } finally { api.free(m); }

  const layers = got.maps.map((g) => ({ dims: g.dims, data: Float32Array.from(g.data) }));
  assert.deepEqual(got.mean.dims, [layers.length, T, T]);
  close(got.mean.data, api.rollout(layers, 0.5, 0), 'rollout (mean, residual 0.5)');
  close(got.max.data, api.rollout(layers, 0.3, 1), 'rollout (max, residual 0.3)');
  assert.notDeepEqual(got.mean.data, got.max.data);
  layers.forEach((l, i) => {
    assert.deepEqual(got.stats[i].dims, [H, 4]);
    close(got.stats[i].data, api.headStats(l), `head stats ${got.maps[i].name}`);
  });
});

test('bad shapes reject with the layer and its dims; the engine keeps working', { timeout: 30_000 }, async () => {
  const errors = await page.evaluate(async () => {
    const engine = window.tfpEngine;
    const map = (dims) => ({ dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(1 / dims[2]) });
    const fail = (p) => p.then(() => 'resolved', (e) => `${e.name}: ${e.message}`);
    return {
      mismatch: await fail(engine.rollout([map([2, 3, 3]), map([2, 4, 4])])),
      empty: await fail(engine.rollout([])),
      square: await fail(engine.rollout([map([2, 3, 4])])),
      length: await fail(engine.headStats([{ dims: [2, 3, 3], data: new Float32Array(5) }])),
      fusion: await fail(engine.rollout([map([1, 2, 2])], { fusion: 'median' })),
      after: Array.from((await engine.headStats([map([1, 2, 2])]))[0].data),
    };
  });
  assert.match(errors.mismatch, /^EngineError: rollout: layer 2 is \(2, 4, 4\), layer 1 \(2, 3, 3\)/);
  assert.match(errors.empty, /rollout: no layers/);
  assert.match(errors.square, /rollout: layer 1 is \(2, 3, 4\)/);
  assert.match(errors.length, /headStats: map 1: expected \(H, Tq, Tk\) maps, got dims \[2, 3, 3\] with 5 values/);
  assert.match(errors.fusion, /fusion 'median'/);
  // Uniform rows over 2 keys: entropy ln 2 (the engine's own numbers, checked for sanity).
  assert.ok(Math.abs(errors.after[0] - Math.log(2)) < 1e-6, `entropy ${errors.after[0]}`);
  assert.deepEqual(site.pageErrors, []);
});

test('the playground runs one worker: the engine\'s', { timeout: 90_000 }, async () => {
  const p = await site.newPage();
  try {
    for (const view of ['stats', 'rollout']) {
      await p.goto(`${site.base}/index.html?model=fixture-gpt2_tiny&view=${view}`);
      await p.waitForFunction((v) => window.tfpPlay?.shown?.view === v && Object.keys(window.tfpPlay.shown.panels).length > 0,
        view, { timeout: 60_000 });
      // Besides the engine's pthread pool (tfp_mt.worker.js: the threaded module's own threads).
      assert.deepEqual(p.workers().map((w) => w.url().replace(/\?.*$/, '').split('/').pop())
        .filter((f) => !f.startsWith('tfp_mt.worker')), ['worker.ts']);
    }
  } finally {
    await p.close();
  }
});
