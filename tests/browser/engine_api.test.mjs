// The JS API through the page's worker in Chromium (web/engine_test.html under the Vite
// dev server): a fixture model loads from a folder URL (weights streamed into the heap,
// progress reported) and from transferred ArrayBuffers; forward results equal the same
// C API call made here in Node on the same module (oracle; equality within 1e-6 — the
// same wasm on the same inputs, exact in practice); generation is seeded, yields tokens
// one at a time and stops when the loop breaks or its AbortSignal fires (the worker then
// holds no generator); a disposed model rejects with a clear Error; a truncated file
// rejects with a message and the same engine then loads and runs a good model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadTfp } from '../js/tfp_module.mjs';
import { CHECKPOINTS, ModelApi, readFixture } from '../js/model_api.mjs';
import { close } from '../js/compare.mjs';
import { openEngineTest } from './harness.mjs';

let site, page, api;

before(async () => {
  api = new ModelApi(await loadTfp());
  site = await openEngineTest('engine_api');
  page = site.page;
}, { timeout: 120_000 });

after(async () => { await site?.close(); });

// The fixtures, served by the dev server from outside web/ (Vite's /@fs/ prefix).
const fixtureUrl = (name) => `/@fs${CHECKPOINTS}${name}/`;

test('load from a folder URL with progress, forward equals the C API in Node', { timeout: 60_000 }, async () => {
  const ids = [72, 101, 108, 108, 111, 32, 119];
  const got = await page.evaluate(async ({ url, ids }) => {
    const stages = [];
    const model = await window.tfpEngine.load(url, { onProgress: (p) => stages.push(p) });
    const out = await model.forward(ids, { attention: true });
    const enc = await model.tokenize('Hello wörld');
    await model.dispose();
    const t = (x) => ({ dims: x.dims, data: Array.from(x.data) });
    return {
      info: model.info, stages, logits: t(out.logits), hidden: t(out.hidden),
      attention: out.attention.map((a) => ({ name: a.name, ...t(a) })),
      isFloat32: out.logits.data instanceof Float32Array, enc: { ids: Array.from(enc.ids), tokens: enc.tokens },
    };
  }, { url: fixtureUrl('gpt2_tiny'), ids });
  assert.equal(got.info.family, 'gpt2');
  assert.ok(got.isFloat32);
  const size = readFileSync(`${CHECKPOINTS}gpt2_tiny/model.safetensors`).length;
  const reading = got.stages.filter((s) => s.stage === 'reading');
  assert.ok(reading.length >= 1);
  assert.equal(reading.at(-1).bytes, size);
  assert.equal(reading.at(-1).total, size);
  assert.deepEqual(got.stages.slice(-2).map((s) => s.stage), ['parsing', 'binding']);

  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const want = api.forward(m, ids, { attention: true });
    assert.deepEqual(got.logits.dims, want.logits.dims);
    close(got.logits.data, want.logits.data, 'logits');
    assert.deepEqual(got.attention.map((a) => a.name), ['dec.0.attn.probs', 'dec.1.attn.probs']);
    for (const a of got.attention) {
      assert.deepEqual(a.dims, [4, ids.length, ids.length]);
      close(a.data, want[a.name].data, a.name);
    }
    assert.deepEqual(got.enc.ids, api.tokenize(m, 'Hello wörld').ids);
  } finally {
    api.free(m);
  }
});

test('a pass on a text the worker tokenizes, with the next token: forwardText = forward on the cut ids, next = a generation\'s first step', { timeout: 60_000 }, async () => {
  const r = await page.evaluate(async (url) => {
    const model = await window.tfpEngine.load(url);
    const text = 'Hello wörld, hello';
    const enc = await model.tokenize(text);
    const cut = Array.from(enc.ids.slice(0, 4));
    const ahead = await model.forwardText(text, 4, { attention: true, next: { topN: 5 }, logits: 'none' });
    const plain = await model.forward(cut, { attention: true });
    const it = model.generate(cut, { maxTokens: 1, temperature: 0, topN: 5 });
    const first = (await it.next()).value;
    await it.return();
    let empty = '';
    try { await model.forwardText('', 4, { attention: true }); } catch (e) { empty = e.message; }
    const again = await model.forwardText(text, 100, { next: { topN: 3 } });  // the model still runs
    await model.dispose();
    return {
      cut, total: enc.ids.length, aheadIds: Array.from(ahead.ids), logits: ahead.logits === undefined, argmax: ahead.argmax === undefined,
      aheadAtt: ahead.attention.map((a) => Array.from(a.data)), plainAtt: plain.attention.map((a) => Array.from(a.data)),
      hidden: [Array.from(ahead.hidden.data), Array.from(plain.hidden.data)], next: ahead.next, top: first.top, empty,
      againIds: Array.from(again.ids), againNext: again.next.length,
    };
  }, fixtureUrl('gpt2_tiny'));
  assert.ok(r.total > 4, 'the text is longer than the cut');
  assert.deepEqual(r.aheadIds, r.cut);
  assert.ok(r.logits && r.argmax, 'logits "none": the row made for next is not returned');
  assert.deepEqual(r.aheadAtt, r.plainAtt);
  assert.deepEqual(r.hidden[0], r.hidden[1]);
  assert.deepEqual(r.next.map((c) => c.id), r.top.map((c) => c.id));
  assert.deepEqual(r.next.map((c) => c.token), r.top.map((c) => c.token));
  close(r.next.map((c) => c.prob), r.top.map((c) => c.prob), 'next-token probabilities');
  assert.match(r.empty, /\S/, 'an empty text is refused with a message');
  assert.equal(r.againIds.length, r.total);
  assert.equal(r.againNext, 3);
});

test('generation streams seeded tokens and stops on break and on abort', { timeout: 60_000 }, async () => {
  const r = await page.evaluate(async (url) => {
    const engine = window.tfpEngine;
    const model = await engine.load(url);
    const opts = { maxTokens: 12, temperature: 0.9, seed: 5 };
    const all = [];
    const full = model.generate('Hello', opts);
    for await (const t of full) all.push(t);
    // Break after 3 tokens: the loop calls return(), the worker frees the generator.
    const broken = [];
    const it = model.generate('Hello', { ...opts, maxTokens: 30 });
    for await (const t of it) {
      broken.push(t.id);
      if (broken.length === 3) break;
    }
    const afterBreak = await engine.memory();
    // Abort after 2 tokens.
    const ac = new AbortController();
    const aborted = [];
    const gen = model.generate('Hello', { ...opts, maxTokens: 30, signal: ac.signal });
    for await (const t of gen) {
      aborted.push(t.id);
      if (aborted.length === 2) ac.abort();
    }
    const afterAbort = await engine.memory();
    await model.dispose();
    return { all, fullReason: full.stopReason, broken, brokenReason: it.stopReason, afterBreak, aborted,
             abortReason: gen.stopReason, afterAbort };
  }, fixtureUrl('gpt2_tiny'));
  assert.equal(r.all.length, 12);
  assert.equal(r.fullReason, 'max_tokens');
  assert.equal(r.all.at(-1).stopReason, 'max_tokens');
  for (const t of r.all) {
    assert.equal(typeof t.text, 'string');
    assert.ok(t.top.length === 5 && t.top[0].prob >= t.prob);
  }
  // The same seed and options in Node give the same ids.
  const m = api.load(readFixture('gpt2_tiny'));
  try {
    const want = api.generate(m, api.tokenize(m, 'Hello').ids, { maxTokens: 12, temperature: 0.9, seed: 5 });
    assert.deepEqual(r.all.map((t) => t.id), want.ids);
    assert.deepEqual(r.broken, want.ids.slice(0, 3));
    assert.deepEqual(r.aborted, want.ids.slice(0, 2));
  } finally {
    api.free(m);
  }
  assert.equal(r.brokenReason, 'cancelled');
  assert.equal(r.afterBreak.generators, 0);
  assert.equal(r.abortReason, 'cancelled');
  assert.equal(r.afterAbort.generators, 0);
});

test('disposed models reject; bad files reject with a message; the engine then works', { timeout: 60_000 }, async () => {
  const good = readFixture('gpt2_tiny');
  const r = await page.evaluate(async ({ config, weights, tokenizer }) => {
    const engine = window.tfpEngine;
    const bytes = new Uint8Array(weights);
    const errors = {};
    const model = await engine.load({ config, weights: bytes.slice().buffer, tokenizer, name: 'given' });
    await model.dispose();
    errors.disposed = await model.forward([1, 2]).then(() => 'resolved', (e) => `${e.name}: ${e.message}`);
    errors.truncated = await engine.load({ config, weights: bytes.slice(0, bytes.length - 64).buffer, tokenizer, name: 'cut' })
      .then(() => 'resolved', (e) => e.message);
    errors.tokenizer = await engine.load({ config, weights: bytes.slice().buffer, tokenizer: tokenizer.slice(0, 100), name: 'tok' })
      .then(() => 'resolved', (e) => e.message);
    const again = await engine.load({ config, weights: bytes.slice().buffer, tokenizer, name: 'again' });
    errors.tooLong = await again.forward(new Array(40).fill(5)).then(() => 'resolved', (e) => e.message);
    const ok = await again.forward([1, 2, 3]);
    const buffer = bytes.slice().buffer;
    const m2 = await engine.load({ config, weights: buffer, tokenizer });
    const transferred = buffer.byteLength;  // 0: the bytes went to the worker, none kept here
    await m2.dispose();
    await again.dispose();
    return { errors, okDims: ok.logits.dims, info: again.info.source, transferred, memory: await engine.memory() };
  }, { config: good.config, weights: Array.from(good.weights), tokenizer: good.tokenizer });
  assert.match(r.errors.disposed, /^Error: model 'given' was disposed/);
  assert.match(r.errors.truncated, /cut\/model\.safetensors/);
  assert.match(r.errors.tokenizer, /tok\/tokenizer\.json/);
  assert.match(r.errors.tooLong, /32/);
  assert.deepEqual(r.okDims, [3, 264]);
  assert.equal(r.info, 'again');
  assert.equal(r.transferred, 0);
  assert.equal(r.memory.models, 0);
  assert.deepEqual(site.pageErrors, []);
});
