// Bad input on the playground: each broken file, wrong file or awkward text gets a clear
// error (or a visible note) and loses nothing.
//   - files opened with the picker or dropped: config.json that is not JSON or not a model
//     config, nested 100,000 levels deep, declaring 1,000,000 layers, with an eos id outside
//     the vocabulary or a fraction (issue 32); model.safetensors truncated, with a tensor of the wrong shape, of an
//     unsupported dtype, empty; tokenizer.json malformed or not UTF-8; config.json alone;
//     an unrelated file. Each shows a message naming the file and what is wrong (no stack,
//     no "undefined"), says the previous model is still in use, and typing afterwards gives
//     the engine's tokens and maps for that model (compared with the Node oracle);
//   - a text far longer than brown-gpt's context is cut with a note of how many tokens were
//     left out, the kept tokens' maps are the engine's, the echo under the box stops at the
//     last character read; a 1 MB paste finishes;
//   - lone surrogates, emoji ZWJ sequences, combining marks and right-to-left text tokenise
//     and show spans (brown-gpt and the GPT-2 fixture);
//   - no uncaught page error or console error throughout.
// Each test opens the page afresh on the GPT-2 fixture (fresh()): none inherits the model or
// text another left. Screenshots go to build/screenshots/bad_inputs/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { freshPage, openSite, playgroundProbes, SHOTS } from './harness.mjs';
import { loadTfp } from '../js/tfp_module.mjs';
import { ModelApi, readFixture, readShipped, hasShipped, CHECKPOINTS } from '../js/model_api.mjs';
import { closeMaps } from '../js/compare.mjs';

const FIXTURE = 'fixture-gpt2_tiny';
const DIR = `${CHECKPOINTS}gpt2_tiny/`;
const SHOT_DIR = `${SHOTS}bad_inputs/`;

let site, page, base, problems, api, gpt2, files;

before(async () => {
  mkdirSync(SHOT_DIR, { recursive: true });
  api = new ModelApi(await loadTfp());
  gpt2 = api.load(readFixture('gpt2_tiny'), 'gpt2_tiny');
  files = {
    config: await readFile(`${DIR}config.json`),
    weights: await readFile(`${DIR}model.safetensors`),
    tokenizer: await readFile(`${DIR}tokenizer.json`),
  };
  site = await openSite({ name: 'bad_inputs' });
  ({ page, base, problems } = site);
}, { timeout: 180_000 });

after(async () => { await site?.close(); });

const { num, after: after_ } = playgroundProbes(() => page, { timeout: 30_000 });

/** The state each test starts from: the playground loaded afresh on the GPT-2 fixture (its
 *  default text drawn), 1280 × 720, light, nothing saved by an earlier test. */
async function fresh() {
  await freshPage(page, `${base}/?model=${FIXTURE}`);
  await after_('loads', 0, 60_000);
  await after_('renders', 0);
}

const file = (name, buffer, mimeType = 'application/octet-stream') => ({ name, mimeType, buffer: Buffer.from(buffer) });
/** The GPT-2 fixture's three files, with some replaced ({ 'config.json': bytes, ... }). */
function folder(replace = {}) {
  const out = [file('config.json', files.config, 'application/json'), file('model.safetensors', files.weights),
               file('tokenizer.json', files.tokenizer, 'application/json')];
  return out.map((f) => (f.name in replace ? file(f.name, replace[f.name], f.mimeType) : f));
}

/** A safetensors file rebuilt with `edit(name, entry, bytes)` -> { entry, bytes } applied
 * to each tensor (offsets recomputed, the header padded to 8 bytes). */
function rewriteSafetensors(buf, edit) {
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const data = buf.subarray(8 + n);
  const out = {};
  const parts = [];
  let at = 0;
  const names = Object.keys(header).filter((k) => k !== '__metadata__')
    .sort((a, b) => header[a].data_offsets[0] - header[b].data_offsets[0]);
  if (header.__metadata__) out.__metadata__ = header.__metadata__;
  for (const name of names) {
    const [b, e] = header[name].data_offsets;
    const r = edit(name, { ...header[name] }, data.subarray(b, e));
    out[name] = { ...r.entry, data_offsets: [at, at + r.bytes.length] };
    parts.push(r.bytes);
    at += r.bytes.length;
  }
  let json = JSON.stringify(out);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([len, Buffer.from(json), ...parts]);
}

/** Drops `list` ([{ name, mimeType, buffer }]) on the page's drop zone. */
async function drop(list) {
  const dt = await page.evaluateHandle((fs) => {
    const d = new DataTransfer();
    for (const f of fs) d.items.add(new File([new Uint8Array(f.bytes)], f.name, { type: f.mimeType }));
    return d;
  }, list.map((f) => ({ name: f.name, mimeType: f.mimeType, bytes: Array.from(f.buffer) })));
  await page.locator('#dropzone').dispatchEvent('drop', { dataTransfer: dt });
}

/** The oracle's tokens and maps for `text` on `model`, cut to its context as the page does. */
function oracle(model, text) {
  const enc = api.tokenize(model, text);
  const max = api.info(model).max_positions;
  const ids = enc.ids.slice(0, max);
  return { enc, ids, out: api.forward(model, ids, { attention: true }) };
}

/** Types `text` (set in the page, so lone surrogates stay as they are) and waits for its pass. */
async function typeText(text, timeout = 30_000) {
  const r = await num('renders');
  await page.evaluate((t) => {
    const box = document.getElementById('text');
    box.value = t;
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await page.waitForFunction((t) => window.tfpPlay.state.text === t, text, { timeout });
  await after_('renders', r, timeout);
}

/** The page's tokens and maps equal the oracle's for `text`; each map's rows sum to 1. */
async function sameAsEngine(model, text, what) {
  const want = oracle(model, text);
  await page.waitForFunction((T) => window.tfpPlay.encoding?.ids.length === T
    && window.tfpPlay.attention[0]?.dims[1] === T, want.ids.length, { timeout: 30_000 });
  const enc = await page.evaluate(() => window.tfpPlay.encoding);
  assert.deepEqual(enc.ids, want.ids, `${what}: ids`);
  assert.deepEqual(enc.tokens, want.enc.tokens.slice(0, want.ids.length), `${what}: tokens`);
  assert.deepEqual(enc.offsets, want.enc.offsets.slice(0, 2 * want.ids.length), `${what}: offsets`);
  const maps = await page.evaluate(() => Object.fromEntries(window.tfpPlay.attention.map((a) => [a.name, { dims: a.dims, data: Array.from(a.data) }])));
  closeMaps(maps, want.out, what);
  for (const [name, m] of Object.entries(maps)) {
    const Tk = m.dims[2];
    for (let r = 0; r < m.data.length / Tk; r++) {
      const s = m.data.slice(r * Tk, (r + 1) * Tk).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(s - 1) < 1e-4, `${what}: ${name} row ${r} sums to ${s}`);
    }
  }
  assert.equal(await page.locator('.token-span').count(), want.ids.length, `${what}: one span a token`);
  return { want, enc };
}

const NOT_RAW = [/undefined/, /\bnull\b/, /\[object /, /\n\s+at /, /\.(ts|js|mjs):\d+/, /wasm-function/, /RuntimeError/, /TypeError/, /SyntaxError/];
let textNo = 0;

/**
 * Opens `list` (picker, or dropped with `how: 'drop'`), expects the load to fail with a
 * message matching each of `expect`, the GPT-2 fixture still loaded and said to be, and a
 * new text afterwards to give the engine's tokens and maps.
 */
async function rejected(shot, list, expect, { how = 'pick' } = {}) {
  const loads = await num('loads');
  const errors = await num('loadErrors');
  const label = await page.evaluate(() => window.tfpPlay.modelLabel);
  if (how === 'drop') await drop(list);
  else await page.locator('#model-files').setInputFiles(list);
  await after_('loadErrors', errors);
  const message = await page.locator('#load-error').textContent();
  console.log('#', shot, '|', message);
  assert.ok(await page.locator('#load-error').isVisible(), `${shot}: the error is shown`);
  for (const re of expect) assert.match(message, re, `${shot}: ${message}`);
  for (const re of NOT_RAW) assert.doesNotMatch(message, re, `${shot}: raw text in ${message}`);
  assert.match(message, new RegExp(`Still using ${label.replace(/[()]/g, '\\$&')}\\.`), `${shot}: ${message}`);
  assert.equal(await num('loads'), loads, `${shot}: nothing else was loaded`);
  assert.equal(await page.evaluate(() => window.tfpPlay.modelLabel), label);
  assert.equal(await page.locator('#model-select').inputValue(), FIXTURE);
  assert.ok(await page.locator('#load-progress').isHidden(), `${shot}: no progress bar left behind`);
  await page.locator('.model-panel').screenshot({ path: `${SHOT_DIR}${shot}.png` });
  const text = `still working ${++textNo}: the cat sat`;
  await typeText(text);
  await sameAsEngine(gpt2, text, shot);
  assert.deepEqual(problems, [], `${shot}: no page errors`);
  return message;
}

test('starts on the GPT-2 fixture', { timeout: 90_000 }, async () => {
  await fresh();
  await typeText('the cat sat on the mat');
  await sameAsEngine(gpt2, 'the cat sat on the mat', 'start');
});

test('config.json that is not JSON, or JSON but not a model config', { timeout: 120_000 }, async () => {
  await fresh();
  const cut = files.config.subarray(0, Math.floor(files.config.length / 2));
  await rejected('config_truncated', folder({ 'config.json': cut }), [/config\.json/, /JSON|parse/i]);
  await rejected('config_array', folder({ 'config.json': '[]' }), [/config\.json/, /object/i]);
  const c = JSON.parse(files.config.toString());
  delete c.n_embd;
  delete c.n_layer;
  await rejected('config_missing_sizes', folder({ 'config.json': JSON.stringify(c) }), [/config\.json/, /n_embd|n_layer|d_model/]);
});

test('issue 32\'s configs dropped: nested 100,000 levels deep, 1,000,000 layers, ids outside the vocabulary or not integers', { timeout: 150_000 }, async () => {
  await fresh();
  const c = JSON.parse(files.config.toString());
  const deep = JSON.stringify({ ...c, n_embd: 0 }).replace('"n_embd":0', `"n_embd":${'['.repeat(100_000)}${']'.repeat(100_000)}`);
  await rejected('config_deep', folder({ 'config.json': deep }), [/config\.json/, /nested 100001 levels deep/, /at most 128/], { how: 'drop' });
  await rejected('config_layers', folder({ 'config.json': JSON.stringify({ ...c, n_layer: 1_000_000 }) }),
    [/config\.json/, /1000000 layers/, /28 tensors/], { how: 'drop' });
  await rejected('config_eos_outside', folder({ 'config.json': JSON.stringify({ ...c, eos_token_id: 264 }) }),
    [/config\.json/, /eos_token_id/, /outside the vocabulary \(0\.\.263\)/], { how: 'drop' });
  await rejected('config_eos_fraction', folder({ 'config.json': JSON.stringify({ ...c, eos_token_id: 1.5 }) }),
    [/config\.json/, /eos_token_id/, /must be a token id/, /1\.5/], { how: 'drop' });
});

test('model.safetensors truncated, wrong shape, unsupported dtype, empty', { timeout: 150_000 }, async () => {
  await fresh();
  const half = files.weights.subarray(0, Math.floor(files.weights.length / 2));
  await rejected('weights_truncated', folder({ 'model.safetensors': half }), [/model\.safetensors/, /truncat|past the end|end of the file|short/i]);
  const shape = rewriteSafetensors(files.weights, (name, entry, bytes) => (name === 'h.0.attn.c_proj.weight'
    ? { entry: { ...entry, shape: [16, 8] }, bytes: bytes.subarray(0, 16 * 8 * 4) } : { entry, bytes }));
  await rejected('weights_shape', folder({ 'model.safetensors': shape }), [/model\.safetensors/, /h\.0\.attn\.c_proj\.weight/, /shape|\[16, ?8\]|16x8|16 x 8/i]);
  const f64 = rewriteSafetensors(files.weights, (name, entry, bytes) => {
    if (name !== 'h.0.ln_1.bias') return { entry, bytes };
    const f = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    return { entry: { ...entry, dtype: 'F64' }, bytes: Buffer.from(Float64Array.from(f).buffer) };
  });
  await rejected('weights_f64', folder({ 'model.safetensors': f64 }), [/model\.safetensors/, /F64/, /dtype|type/i]);
  const i64 = rewriteSafetensors(files.weights, (name, entry, bytes) => (name === 'h.0.ln_1.bias'
    ? { entry: { ...entry, dtype: 'I64' }, bytes: Buffer.concat([bytes, bytes]) } : { entry, bytes }));
  await rejected('weights_i64', folder({ 'model.safetensors': i64 }), [/model\.safetensors/, /I64/]);
  await rejected('weights_empty', folder({ 'model.safetensors': Buffer.alloc(0) }), [/model\.safetensors/, /empty|0 bytes/i]);
});

test('tokenizer.json malformed, or not UTF-8', { timeout: 90_000 }, async () => {
  await fresh();
  const cut = files.tokenizer.subarray(0, Math.floor(files.tokenizer.length * 0.6));
  await rejected('tokenizer_truncated', folder({ 'tokenizer.json': cut }), [/tokenizer\.json/, /JSON|parse/i]);
  // Two bytes that are never UTF-8 (0xFF 0xFE) inside a vocabulary entry's name.
  const at = files.tokenizer.indexOf('"vocab":{"') + '"vocab":{"'.length;
  assert.ok(at > 20, 'the fixture\'s tokenizer.json has a vocabulary');
  const bad = Buffer.concat([files.tokenizer.subarray(0, at), Buffer.from([0xff, 0xfe]), files.tokenizer.subarray(at)]);
  await rejected('tokenizer_not_utf8', folder({ 'tokenizer.json': bad }), [/tokenizer\.json/, /UTF-8/]);
});

test('config.json alone; an unrelated file (dropped)', { timeout: 90_000 }, async () => {
  await fresh();
  await rejected('config_alone', [file('config.json', files.config, 'application/json')],
    [/config\.json/, /safetensors/], { how: 'drop' });
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f2a3d40000000049454e44ae426082', 'hex');
  await rejected('png_dropped', [file('picture.png', png, 'image/png')], [/picture\.png/, /config\.json/, /safetensors/], { how: 'drop' });
  await rejected('text_picked', [file('notes.txt', 'hello', 'text/plain')], [/notes\.txt/, /config\.json/, /safetensors/]);
});

/** Texts a tokenizer meets rarely: lone surrogates (they become U+FFFD on the way to
 * UTF-8), emoji sequences, combining marks, right-to-left and bidi controls,
 * CJK, half-width kana and invisible characters. */
const UNUSUAL = [
  'a\uD800b \uDC00 x\uDBFF', 'family 👨‍👩‍👧‍👦', 'flag 🇫🇷 skin 👋🏽', 'cafe\u0301 e\u0301\u0302\u0303 Z\u0351\u0352',
  'שלום עולם مرحبا', '\u202Eabc\u202C \u200F!', '漢字 ｶﾀｶﾅ \u200B\u2060\uFEFF end',
];
const units = (s) => s.split('').map((c) => c.charCodeAt(0));

/** Each unusual text on the page's model `model`: the engine's tokens and maps, spans inside the text. */
async function unusualTexts(model, what) {
  for (const text of [...UNUSUAL, UNUSUAL.join(' ')]) {
    await typeText(text);
    // The page holds the very UTF-16 units (lone surrogates too), read back as numbers.
    assert.deepEqual(await page.evaluate(() => window.tfpPlay.state.text.split('').map((c) => c.charCodeAt(0))), units(text));
    const { enc } = await sameAsEngine(model, text, `${what}: ${JSON.stringify(text)}`);
    assert.ok(await page.locator('#error').isHidden(), 'no error line');
    for (let i = 0; i < enc.offsets.length; i += 2)
      assert.ok(enc.offsets[i] <= enc.offsets[i + 1] && enc.offsets[i + 1] <= text.length, `span ${i / 2}`);
  }
  assert.deepEqual(problems, []);
}

test('unusual Unicode on the GPT-2 fixture: tokens, spans, the engine\'s maps', { timeout: 60_000 }, async () => {
  await fresh();
  await unusualTexts(gpt2, 'gpt2');
  await page.locator('.text-panel').screenshot({ path: `${SHOT_DIR}unicode_gpt2.png` });
});

test('brown-gpt: a text past the context is cut with a note; a 1 MB paste; unusual Unicode', { timeout: 240_000 }, async (t) => {
  if (!hasShipped('brown-gpt')) return t.skip('models/brown-gpt is not in this checkout');
  await fresh();
  const brown = api.load(readShipped('brown-gpt'), 'brown-gpt');
  try {
    const loads = await num('loads');
    await page.locator('#model-select').selectOption('brown-gpt');
    await after_('loads', loads, 60_000);
    const max = api.info(brown).max_positions;
    const long = Array.from({ length: 60 }, (_, i) => `The man ${i} said that the city was quiet.`).join(' ');
    await typeText(long);
    const { want } = await sameAsEngine(brown, long, 'long text');
    const total = want.enc.ids.length;
    assert.ok(total > max + 50 && want.ids.length === max, `${total} tokens, ${max} kept`);
    assert.equal(await page.evaluate(() => window.tfpPlay.encoding.truncated), true);
    const status = await page.locator('#status').textContent();
    assert.match(status, new RegExp(`\\b${total - max}\\b.*(left out|dropped)`), `status: ${status}`);
    await page.locator('#status').screenshot({ path: `${SHOT_DIR}long_text_status.png` });
    // The echo under the box shows what the model read, up to its last kept character, then "…".
    const keptEnd = Math.max(...want.enc.offsets.slice(0, 2 * max).filter((_, k) => k % 2 === 1));
    assert.equal(await page.locator('#text-echo').textContent(), `${long.slice(0, keptEnd)} …`);

    // A 1 MB paste: the page tokenises it, keeps the first `max` tokens and stays usable.
    const big = 'The man said that the city was quiet. '.repeat(Math.ceil((1 << 20) / 38));
    const started = Date.now();
    await typeText(big, 120_000);
    await sameAsEngine(brown, big, '1 MB text');
    t.diagnostic(`1 MB text: maps after ${Date.now() - started} ms`);
    assert.match(await page.locator('#status').textContent(), /left out|dropped/);
    assert.ok((await page.locator('#text-echo').textContent()).length < 2000, 'a 1 MB paste is not echoed in full');
    await typeText('short again');
    await sameAsEngine(brown, 'short again', 'after the 1 MB text');
    assert.equal(await page.locator('#text-echo').textContent(), 'short again');

    await unusualTexts(brown, 'brown-gpt');
    await page.locator('.text-panel').screenshot({ path: `${SHOT_DIR}unicode_brown.png` });
  } finally {
    api.free(brown);
  }
});
