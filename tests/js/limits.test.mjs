// Limits, measured (issue 15), through the page's WebAssembly module and its C API as the
// worker calls it (tests/js/model_api.mjs): each either works or stops with a clear
// message, and the module's heap stays bounded across all of them.
//   - 1,000 load/dispose cycles of a tiny model (gpt2_tiny): no growth after the first
//   - 10,000 generated tokens from a model with a 10,240-token context
//   - a 1 MB paste tokenised (the shipped brown-gpt BPE when present, else gpt2_tiny's)
//   - weights that exceed the memory limit: a 3 GiB staging request, and a 100-byte
//     safetensors file whose header declares 16 GiB of tensors — refused by name, the heap
//     not grown, the engine usable afterwards
// The heap (WebAssembly memory) never shrinks, so its size after each step is the high-
// water mark; the budgets below are ~2-4x what these steps use (printed with the times).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadTfp } from './tfp_module.mjs';
import { ModelApi, hasShipped, readFixture, readShipped } from './model_api.mjs';

const MB = 1 << 20;
let api, m;
const heap = () => m.HEAPU8.buffer.byteLength;
const report = [];
const note = (line) => { report.push(line); console.log(`# limits: ${line}`); };

before(async () => {
  m = await loadTfp();
  api = new ModelApi(m);
});
after(() => {
  // The whole run's high-water mark: every step below together.
  note(`heap at the end ${(heap() / MB).toFixed(1)} MiB`);
  assert.ok(heap() <= 256 * MB, `heap grew to ${heap() / MB} MiB across the limit tests`);
});

test('1,000 load/dispose cycles of a tiny model do not grow the heap', () => {
  const files = readFixture('gpt2_tiny');
  const ids = [5, 17, 42, 7];
  const cycle = () => {
    const model = api.load(files, 'gpt2_tiny');
    try {
      const out = api.forward(model, ids);
      assert.equal(out.logits.data.length, ids.length * 264);
    } finally {
      api.free(model);
    }
  };
  for (let i = 0; i < 10; i++) cycle();  // warm-up: the allocator's pools settle
  const start = heap(), t0 = performance.now();
  for (let i = 0; i < 1000; i++) cycle();
  const ms = performance.now() - t0;
  note(`1000 load+forward+free cycles in ${(ms / 1000).toFixed(1)} s (${(ms / 1000).toFixed(2)} ms each); ` +
       `heap ${(start / MB).toFixed(1)} -> ${(heap() / MB).toFixed(1)} MiB`);
  // One leaked copy of the weights per cycle would be 46 MiB by now.
  assert.ok(heap() - start <= 4 * MB, `heap grew by ${(heap() - start) / MB} MiB over 1000 cycles`);
});

test('10,000 generated tokens from a long-context model', () => {
  const config = JSON.stringify({
    model_type: 'tfp', architecture: 'decoder_only', d_model: 32, n_heads: 4, d_ff: 64, n_decoder_layers: 2,
    vocab_size: 64, max_positions: 10240, positional: 'sinusoidal', norm_first: true, decoder_final_norm: true,
  });
  const model = api.random(config, null, 7);
  try {
    const start = heap(), t0 = performance.now();
    const r = api.generate(model, [1, 2, 3], { maxTokens: 10000, temperature: 1, seed: 3 });
    const ms = performance.now() - t0;
    note(`10000 tokens generated in ${(ms / 1000).toFixed(1)} s (${(10000 / (ms / 1000)).toFixed(0)} tok/s); ` +
         `heap ${(start / MB).toFixed(1)} -> ${(heap() / MB).toFixed(1)} MiB; stop: ${r.reason}`);
    assert.equal(r.ids.length, 10000);
    assert.equal(r.reason, 'max_tokens');
    assert.ok(r.ids.every((id) => id >= 0 && id < 64));
    assert.ok(r.probs.every((p) => Number.isFinite(p) && p >= 0 && p <= 1));
    // The KV cache for 10,003 positions is 2 layers x 2 x 10003 x 32 floats = 5 MiB.
    assert.ok(heap() - start <= 64 * MB, `generation grew the heap by ${(heap() - start) / MB} MiB`);
  } finally {
    api.free(model);
  }
  // Asking for more than the context holds: it stops with its reason instead of failing.
  const small = api.random(config.replace('"max_positions":10240', '"max_positions":64'), null, 7);
  try {
    const full = api.generate(small, [1], { maxTokens: 20000, temperature: 0, limit: 100 });
    assert.equal(full.reason, 'context_full');
    assert.equal(full.ids.length, 64);  // 1 prompt + 63 fed; the last is sampled, never fed
  } finally {
    api.free(small);
  }
});

test('a 1 MB paste is tokenised, offsets inside the text', () => {
  const shipped = hasShipped('brown-gpt');
  const model = api.load(shipped ? readShipped('brown-gpt') : readFixture('gpt2_tiny'), 'tokenizer');
  try {
    const unit = 'The jury said it did find that the city\u2019s "over-all" records \u2014 caf\u00e9, na\u00efve, 1,234.5 \u00d7 2 ' +
      '\u4e2d\u6587 \u{1F642}\n\tand    spaces. ';
    const text = unit.repeat(Math.ceil(MB / new TextEncoder().encode(unit).length));
    const start = heap(), t0 = performance.now();
    const e = api.tokenize(model, text);
    const ms = performance.now() - t0;
    note(`1 MiB paste (${text.length} UTF-16 units) -> ${e.ids.length} tokens (${shipped ? 'brown-gpt' : 'gpt2_tiny'}) ` +
         `in ${(ms / 1000).toFixed(2)} s; heap ${(start / MB).toFixed(1)} -> ${(heap() / MB).toFixed(1)} MiB`);
    assert.ok(e.ids.length > 100000);
    assert.equal(e.offsets.length, 2 * e.ids.length);
    let bad = -1;
    for (let i = 0; i < e.offsets.length && bad < 0; i += 2)
      if (!(e.offsets[i] <= e.offsets[i + 1] && e.offsets[i + 1] <= text.length)) bad = i / 2;
    assert.equal(bad, -1, `token ${bad}'s span is outside the text`);
    // Again: the first run's memory is reused, not added to.
    const again = heap();
    api.tokenize(model, text);
    assert.ok(heap() - again <= 2 * MB, `a second 1 MB tokenisation grew the heap by ${(heap() - again) / MB} MiB`);
    assert.ok(heap() - start <= 160 * MB);
  } finally {
    api.free(model);
  }
});

test('weights beyond the memory limit are refused by name with nothing allocated, and the engine still works', () => {
  const start = heap();
  // The page's worker stages a file's bytes first: 3 GiB cannot be staged (WASM32 heap limit 2 GiB).
  const slot = m._tfp_alloc(4);
  try {
    const status = m._tfp_model_files_create(3 * 1024 * MB, slot);
    assert.equal(status, 3 /* TFP_ERR_OUT_OF_MEMORY */);
    assert.match(api.lastError(), /tfp_model_files_create: out of memory/);
    assert.equal(api.u32(slot), 0);
  } finally {
    m._tfp_free(slot);
  }
  // A small file whose header declares 16 GiB (a [65536, 65536] F32 tensor): the reader
  // checks every offset against the file before anything points into it or is allocated.
  const header = JSON.stringify({ 'wte.weight': { dtype: 'F32', shape: [65536, 65536], data_offsets: [0, 2 ** 34] } });
  const padded = header + ' '.repeat((8 - (header.length % 8)) % 8);
  const bytes = new Uint8Array(8 + padded.length + 64);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(padded.length), true);
  bytes.set(new TextEncoder().encode(padded), 8);
  const tiny = readFixture('gpt2_tiny');
  assert.throws(() => api.load({ config: tiny.config, weights: bytes, tokenizer: null }, 'huge'),
    (e) => /huge\/model\.safetensors/.test(e.message) && /wte\.weight/.test(e.message));
  note(`3 GiB staging and a 16 GiB declared tensor refused; heap ${(start / MB).toFixed(1)} -> ${(heap() / MB).toFixed(1)} MiB`);
  assert.equal(heap(), start, 'refusing them grew the heap');
  // Still usable: the same fixture loads and runs.
  const model = api.load(tiny, 'gpt2_tiny');
  try {
    assert.equal(api.forward(model, [1, 2]).logits.data.length, 2 * 264);
  } finally {
    api.free(model);
  }
});

test('tfp_memory_stats: heap size >= its high-water mark >= bytes in use; a grown heap at most 16 MiB ahead', () => {
  const read = () => { const p = m._tfp_alloc(24); m._tfp_memory_stats(p); const s = Array.from(new Float64Array(m.HEAPU8.buffer, p, 3)); m._tfp_free(p); return s; };
  const model = api.load(readFixture('gpt2_tiny'), 'gpt2_tiny');
  try {
    // 64 MiB held on top of the model (beyond the initial 32 MiB heap, so it grows): the
    // high-water mark and the in-use count see it.
    const before = read(), big = m._tfp_alloc(64 * MB), during = read();
    m._tfp_free(big);
    const after_ = read();
    for (const [size, high, used] of [before, during, after_]) {
      assert.ok(size === heap() && size >= high && high >= used && used > 0, `stats ${[size, high, used]}`);
    }
    assert.ok(during[2] - before[2] >= 64 * MB, 'the 64 MiB block is counted as in use');
    assert.ok(after_[2] <= during[2] - 64 * MB + 4096, 'freeing lowers the bytes in use');
    assert.equal(after_[1], during[1], 'the high-water mark stays');
    assert.ok(during[0] - during[1] <= 16 * MB + 64 * 1024 && during[0] > 64 * MB, `heap ${during[0]} runs ${(during[0] - during[1]) / MB} MiB ahead of its high-water mark`);
  } finally {
    api.free(model);
  }
});
