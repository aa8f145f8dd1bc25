// Real-size models, measured (issue 19 item 6): for each of the five random-weight
// checkpoints of bench/real_size_models.mjs (generated into build/real-models/ if missing),
//   native  build/native/real_size_bench DIR (bench/real_size_bench.cpp, the C API)
//   wasm    the page's module (web/src/engine/wasm/tfp.mjs) in Node, a fresh instance per
//           model, staging the files exactly as the page's worker does (models.ts:
//           tfp_model_files_create(0) + tfp_model_files_add_shard per shard + the index, or
//           one model.safetensors), then the same calls as the native bench
// load time, peak memory, the prefill of a 32-token prompt and greedy tokens/s with the KV
// cache. Prints a Markdown table for bench/RESULTS.md with the machine and date.
//
//   node bench/real_size_models_bench.mjs [--prompt 32] [--tokens 32] [--repeat 1] [--native-only | --wasm-only] [name ...]
//
// --repeat N: each measurement N times, the best of each figure kept (load, prefill and
// decode separately: on a shared machine other work only ever slows a run down).
// Needs build/native/real_size_bench (tools/build.sh native) and the module
// (tools/build.sh module). Memory: native is the process's peak RSS; WASM is the heap's
// final size (it only grows), which is what the page's tab holds for the engine.
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MODELS, tensorTable, writeModel } from './real_size_models.mjs';
import { loadTfp } from '../tests/js/tfp_module.mjs';
import { withParams } from '../web/src/engine/params.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'build/real-models');
const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(k); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
const PROMPT = Number(opt('--prompt', 32)), TOKENS = Number(opt('--tokens', 32)), REPEAT = Number(opt('--repeat', 1));
const nativeOnly = args.includes('--native-only'), wasmOnly = args.includes('--wasm-only');
const names = args.filter((a) => !a.startsWith('--'));
const list = names.length ? names : Object.keys(MODELS);

const promptIds = (vocab) => Int32Array.from({ length: PROMPT }, (_, i) => ((7919 * i + 13) % (vocab - 2)) + 2);

/** config.json's bytes, with max_position_embeddings read as `context` when given. */
function configBytes(dir, context) {
  const text = readFileSync(join(dir, 'config.json'), 'utf8');
  if (!context) return Buffer.from(text);
  const c = JSON.parse(text);
  c.max_position_embeddings = context;
  return Buffer.from(JSON.stringify(c, null, 2));
}

/** The bench's calls on the page's module, as real_size_bench.cpp makes them natively. */
async function wasmRun(dir, context = 0) {
  const m = await loadTfp();
  const enc = new TextEncoder();
  const check = (s, what) => { if (s !== 0) throw new Error(`${what}: ${m.UTF8ToString(m._tfp_last_error())}`); };
  const put = (bytes) => { const p = m._tfp_alloc(Math.max(1, bytes.length)); m.HEAPU8.set(bytes, p); return p; };
  const slot = m._tfp_alloc(16);
  const u32 = (p) => new DataView(m.HEAPU8.buffer).getUint32(p, true);
  const i32 = (p) => new DataView(m.HEAPU8.buffer).getInt32(p, true);
  /** Streams a file into the heap at `at` in 8 MB chunks (the page streams File chunks). */
  const readInto = (file, at) => {
    const fd = openSync(file, 'r'), chunk = Buffer.alloc(8 << 20);
    let off = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, off);
      if (n === 0) break;
      m.HEAPU8.set(chunk.subarray(0, n), at + off);
      off += n;
    }
    closeSync(fd);
    return off;
  };
  const t0 = performance.now();
  const config = configBytes(dir, context);
  const indexFile = join(dir, 'model.safetensors.index.json');
  let files, shards = 0, fileBytes = 0;
  if (existsSync(indexFile)) {
    const index = readFileSync(indexFile);
    check(m._tfp_model_files_create(0, slot), 'tfp_model_files_create');
    files = u32(slot);
    const shardList = [...new Set(Object.values(JSON.parse(index.toString('utf8')).weight_map))].sort();
    for (const name of shardList) {
      const size = statSync(join(dir, name)).size, np = put(enc.encode(name + '\0'));
      check(m._tfp_model_files_add_shard(files, np, size, slot), 'tfp_model_files_add_shard');
      m._tfp_free(np);
      readInto(join(dir, name), u32(slot));
      fileBytes += size; shards += 1;
    }
    const ip = put(index);
    check(m._tfp_model_files_set_index(files, ip, index.length), 'tfp_model_files_set_index');
    m._tfp_free(ip);
  } else {
    const size = statSync(join(dir, 'model.safetensors')).size;
    check(m._tfp_model_files_create(size, slot), 'tfp_model_files_create');
    files = u32(slot);
    readInto(join(dir, 'model.safetensors'), m._tfp_model_files_weights(files));
    fileBytes = size; shards = 1;
  }
  const cp = put(config);
  check(m._tfp_model_files_set_config(files, cp, config.length), 'tfp_model_files_set_config');
  m._tfp_free(cp);
  check(m._tfp_model_load(files, slot), 'tfp_model_load');
  const model = u32(slot);
  m._tfp_model_files_free(files);
  const loadMs = performance.now() - t0;
  const mbAfterLoad = m.HEAPU8.buffer.byteLength / 2 ** 20;

  const loaded = { dir, context, shards, file_mb: fileBytes / 2 ** 20, load_ms: loadMs, mb_after_load: mbAfterLoad };
  try {
    return { ...loaded, ...generateOn(m, model, slot, put, check, u32, i32) };
  } catch (e) {
    // The model loaded; generation did not (the heap's size says how far it got).
    return { ...loaded, peak_mb: m.HEAPU8.buffer.byteLength / 2 ** 20, error: (e instanceof Error ? e.message : String(e)) };
  }
}

/** Prefill and greedy decoding on a loaded model (decoder-only: the generator;
 *  encoder-decoder: translate), as real_size_bench.cpp. */
function generateOn(m, model, slot, put, check, u32, i32) {
  const info = JSON.parse(m.UTF8ToString(m._tfp_model_info_json(model)));
  const prompt = promptIds(info.vocab_size), pp = put(new Uint8Array(prompt.buffer));
  const tokens = [];
  let prefillMs, decodeMs, decoded = 0;
  if (info.architecture !== 'encoder_decoder') {
    const t1 = performance.now();
    check(withParams(m, 'tfp_generator_params', { prompt: pp, n: PROMPT, max_tokens: 1 + TOKENS, temperature: 0 },
      (params) => m._tfp_generator_create(model, params, slot)), 'tfp_generator_create');
    const gen = u32(slot);
    check(m._tfp_generator_next(gen, slot, 0, slot + 4), 'tfp_generator_next');
    prefillMs = performance.now() - t1;
    tokens.push(i32(slot));
    const t2 = performance.now();
    while (!m._tfp_generator_finished(gen)) {
      check(m._tfp_generator_next(gen, slot, 0, slot + 4), 'tfp_generator_next');
      if (i32(slot + 4)) break;
      tokens.push(i32(slot));
      decoded += 1;
    }
    decodeMs = performance.now() - t2;
    m._tfp_generator_free(gen);
  } else {
    const cap = TOKENS + 4, out = m._tfp_alloc(4 * cap);
    const translate = (maxTokens) => withParams(m, 'tfp_translate_params', { src_ids: pp, n: PROMPT, max_tokens: maxTokens },
      (params) => m._tfp_model_translate(model, params, out, cap, slot, slot + 4));
    const t1 = performance.now();
    check(translate(1), 'tfp_model_translate');
    prefillMs = performance.now() - t1;
    m._tfp_tensors_free(u32(slot + 4));
    const t2 = performance.now();
    check(translate(1 + TOKENS), 'tfp_model_translate');
    const whole = performance.now() - t2;
    m._tfp_tensors_free(u32(slot + 4));
    const len = i32(slot);
    for (let i = 0; i < len; i++) tokens.push(i32(out + 4 * i));
    decoded = len - 1;
    decodeMs = whole - prefillMs;
  }
  m._tfp_model_free(model);
  return {
    peak_mb: m.HEAPU8.buffer.byteLength / 2 ** 20, prompt: PROMPT, prefill_ms: prefillMs, decoded,
    decode_ms: decodeMs, decode_tok_s: decoded / (decodeMs / 1000), tokens,
  };
}

function nativeRun(dir, context = 0) {
  const bin = join(ROOT, 'build/native/real_size_bench');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run tools/build.sh native`);
  return JSON.parse(execFileSync(bin, [dir, '--prompt', String(PROMPT), '--tokens', String(TOKENS), '--context', String(context)],
    { encoding: 'utf8' }));
}

const cpu = (() => { try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/^Model name:\s*(.*)$/m)?.[1] ?? '?'; } catch { return '?'; } })();
console.log(`== ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC  ${cpu}, ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cpus, `
  + `node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; prompt ${PROMPT} tokens, ${TOKENS} generated greedily`);
/** The best of two runs per figure (a shared machine's noise only ever slows a run down). */
function fastest(a, b) {
  if (a.error || b.error) return a.error ? b : a;
  return { ...a, load_ms: Math.min(a.load_ms, b.load_ms), prefill_ms: Math.min(a.prefill_ms, b.prefill_ms),
           decode_ms: Math.min(a.decode_ms, b.decode_ms), decode_tok_s: Math.max(a.decode_tok_s, b.decode_tok_s) };
}

// Gemma 3's 32768-position context makes the generator's KV cache 1.2 GB (18 layers x K and
// V x 256 x 32768 x 4 bytes): it is also measured with the context read as 4096.
const CONTEXTS = { 'gemma-3-270m': [0, 4096] };
const rows = [];
for (const name of list) {
  const dir = join(OUT, name);
  if (!existsSync(join(dir, 'config.json'))) {
    const r = writeModel(name, OUT);
    console.log(`generated ${name} (${(r.ms / 1000).toFixed(1)} s)`);
  }
  for (const context of CONTEXTS[name] ?? [0]) {
    for (const where of ['native', 'wasm']) {
      if ((where === 'native' && wasmOnly) || (where === 'wasm' && nativeOnly)) continue;
      let r;
      for (let k = 0; k < REPEAT; k++) {
        let x;
        try {
          x = where === 'native' ? nativeRun(dir, context) : await wasmRun(dir, context);
        } catch (e) {
          x = { error: (e instanceof Error ? e.message : String(e)).split('\n')[0] };
        }
        r = r ? fastest(r, x) : x;
      }
      rows.push({ name, where, context, ...r });
      console.log(JSON.stringify({ name, where, ...r, tokens: r.tokens?.slice(0, 8) }));
    }
  }
}
// Native and WASM greedy tokens agree (the same engine; a near-tie could differ).
for (const name of list) {
  const [n, w] = ['native', 'wasm'].map((k) => rows.find((r) => r.name === name && r.where === k && r.tokens));
  if (n?.tokens && w?.tokens) {
    const same = n.tokens.filter((x, i) => x === w.tokens[i]).length;
    console.log(`${name}: native and wasm greedy tokens agree on ${same} of ${n.tokens.length}`);
  }
}
const f = (x, d = 0) => (x === undefined ? '–' : Number(x).toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d }));
console.log('\n| model | params | files | where | load (ms) | memory after load (MiB) | peak memory (MiB) | prefill 32 tok (ms) | decode (tok/s) |');
console.log('| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  const params = MODELS[r.name] ? `${(tensorTable(MODELS[r.name].config).reduce((a, [, s]) => a + s.reduce((x, y) => x * y, 1), 0) / 1e6).toFixed(1)}M` : '';
  const label = r.context ? `${r.name} (context read as ${r.context})` : r.name;
  const filesCol = r.shards ? `${r.shards > 1 ? `${r.shards} shards` : '1 file'}, ${f(r.file_mb)} MiB` : '';
  if (r.error && r.load_ms === undefined) { console.log(`| ${label} | ${params} | ${filesCol} | ${r.where} | ${r.error} | | | | |`); continue; }
  if (r.error) {
    console.log(`| ${label} | ${params} | ${filesCol} | ${r.where} | ${f(r.load_ms)} | ${f(r.mb_after_load)} | ${f(r.peak_mb)} | `
      + `generation refused: ${r.error} | |`);
    continue;
  }
  console.log(`| ${label} | ${params} | ${filesCol} | ${r.where} | ${f(r.load_ms)} | `
    + `${f(r.mb_after_load)} | ${f(r.peak_mb)} | ${f(r.prefill_ms)} | ${f(r.decode_tok_s, 1)} |`);
}
