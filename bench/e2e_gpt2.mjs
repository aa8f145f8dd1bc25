// End to end, GPT-2-small-shaped (issue 14): our engine (the page's WASM module under Node,
// through its C API) against onnxruntime-web's wasm backend, on the same random weights
// (bench/e2e_gpt2_files.py writes a Hugging Face GPT-2 folder and the same network as ONNX
// into build/e2e/ when they are missing).
//
//   node bench/e2e_gpt2.mjs [--threads 1] [--ort-threads 1] [--rounds 5] [--quick] [--dtype F32|F16|I8]
//                           [--precision f32|f16|int8] [--settle-ms 50]
//
// --dtype F16: our engine reads an F16 checkpoint (kept 16-bit in memory, widened inside
// the kernels); ORT runs the same values in f32 (its graph stores them widened).
// --dtype I8: our engine reads an int8 checkpoint (I8 matrices with per-output F32 scales, held
// as they are); ORT runs the dequantised values in f32.
//
// First both must agree: the logits of one 32-token forward are compared (max |Δ|). Then,
// in interleaved rounds (one warm-up round first, not counted), each engine in turn:
//   forward T = 1, 32, 128, 512 (every position's logits, no cache)
//   decode per token at context 128 and 512: the time of one more token after a prefill
//     of that many (ours: the generator's KV cache; ORT: the graph's past/present inputs)
// and once each: load time (files in memory → ready to run) and the memory held after a
// T = 512 forward (ours: the WASM heap, which only grows; ORT: the process's RSS growth,
// measured in a child process of its own). Prints medians, ratio = ours / ORT (< 1: we are
// faster), our decode step against ORT's T = 1 forward (what issue 14's decode targets
// compare), the machine and the load average. --ort-threads 2 runs ORT with two threads;
// --threads 2 runs ours on the threaded module (tfp_mt.mjs) with two threads (1: tfp.mjs,
// the single-threaded build). --quick: T = 1 and 32, context 128, 2 rounds.
// --precision: our engine holds the matrices in that precision (tfp_model_files_set_precision,
// model/precision.h; int8: per-output-channel scales), converted at load from the F32 folder; the
// logit check then reports the difference instead of requiring agreement (ORT stays f32).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { loadTfp } from '../tests/js/tfp_module.mjs';
import { loadTfpMt } from '../tests/js/tfp_module_mt.mjs';
import { withParams } from '../web/src/engine/params.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(k); return i < 0 ? d : args[i + 1]; };
const QUICK = args.includes('--quick');
const THREADS = Number(opt('--ort-threads', 1));
const OUR_THREADS = Number(opt('--threads', 1));  // > 1: tfp_mt.mjs on that many threads
const ROUNDS = Number(opt('--rounds', QUICK ? 2 : 5));
const SETTLE_MS = Number(opt('--settle-ms', 50));  // pause before each engine's turn
// Ours: the LM head's output a vocabulary block at a time, a block 1/32 of the weights as
// held (1 to 16 MiB), so a small int8 model is not dwarfed by its own logits buffer.
const logitsBlockBytes = (weightsBytes) => Math.min(16 << 20, Math.max(1 << 20, Math.floor(weightsBytes / 32)));
const DTYPE = opt('--dtype', 'F32');  // how our engine's copy is stored: F32, or F16 (kept 16-bit in memory)
const NAME = opt('--model', DTYPE === 'F16' ? 'gpt2-f16' : DTYPE === 'I8' ? 'gpt2-i8' : 'gpt2');
const MEMORY = opt('--memory-only', '');  // child process: 'ours' | 'ort'
const PRECISION = opt('--precision', '');  // '' = as stored
const DIR = join(ROOT, 'build/e2e');
const LENGTHS = QUICK ? [1, 32] : [1, 32, 128, 512];
const CONTEXTS = QUICK ? [128] : [128, 512];

if (!existsSync(join(DIR, `${NAME}.onnx`)) || !existsSync(join(DIR, NAME, 'model.safetensors'))) {
  console.log(`writing ${DIR}/${NAME} and ${NAME}.onnx (bench/e2e_gpt2_files.py)`);
  execFileSync('/usr/bin/python3', [join(ROOT, 'bench/e2e_gpt2_files.py'), '--out', DIR, '--name', NAME, '--dtype', DTYPE], { stdio: 'inherit' });
}
const config = JSON.parse(readFileSync(join(DIR, NAME, 'config.json'), 'utf8'));
const V = config.vocab_size, H = config.n_head, D = config.n_embd / config.n_head, L = config.n_layer;
const ids = (n, from = 0) => Int32Array.from({ length: n }, (_, i) => ((7919 * (i + from) + 13) % (V - 2)) + 1);

// ---- ours: the page's module, staged as the page's worker does ---------------------------
async function ours() {
  const m = OUR_THREADS > 1 ? await loadTfpMt() : await loadTfp();
  if (OUR_THREADS > 1 && m._tfp_set_threads(OUR_THREADS) !== OUR_THREADS)
    throw new Error(`tfp_mt.mjs runs at most ${m._tfp_max_threads()} threads, not ${OUR_THREADS}`);
  const slot = m._tfp_alloc(32);
  const u32 = (p) => new DataView(m.HEAPU8.buffer).getUint32(p, true);
  const check = (s, what) => { if (s !== 0) throw new Error(`${what}: ${m.UTF8ToString(m._tfp_last_error())}`); };
  const put = (bytes) => { const p = m._tfp_alloc(Math.max(1, bytes.length)); m.HEAPU8.set(bytes, p); return p; };
  const weights = readFileSync(join(DIR, NAME, 'model.safetensors'));
  const configBytes = readFileSync(join(DIR, NAME, 'config.json'));
  const t0 = performance.now();
  check(m._tfp_model_files_create(0, slot), 'tfp_model_files_create');
  const files = u32(slot);
  const cp = put(configBytes);
  check(m._tfp_model_files_set_config(files, cp, configBytes.length), 'tfp_model_files_set_config');
  m._tfp_free(cp);
  if (PRECISION) {
    const pp = put(new TextEncoder().encode(PRECISION + '\0'));
    check(m._tfp_model_files_set_precision(files, pp), 'tfp_model_files_set_precision');
    m._tfp_free(pp);
  }
  // The weights streamed in 1 MiB pieces, as the page streams a file (at f16/int8 the F32
  // matrices are narrowed as they arrive: the heap never holds the F32 file).
  check(m._tfp_model_files_stream_begin(files, weights.length), 'tfp_model_files_stream_begin');
  for (let at = 0; at < weights.length; at += 1 << 20) {
    const piece = weights.subarray(at, at + (1 << 20));
    check(m._tfp_model_files_stream_next(files, piece.length, slot), 'tfp_model_files_stream_next');
    m.HEAPU8.set(piece, u32(slot));
    check(m._tfp_model_files_stream_commit(files, piece.length), 'tfp_model_files_stream_commit');
  }
  check(m._tfp_model_load(files, slot), 'tfp_model_load');
  const model = u32(slot);
  m._tfp_model_files_free(files);
  const loadMs = performance.now() - t0;
  const idsAt = (a) => put(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  const weightsBytes = JSON.parse(m.UTF8ToString(m._tfp_model_info_json(model))).weights_bytes;
  return {
    name: 'ours', loadMs, weightsBytes, close: () => m.terminateThreads?.(), heapBytes: () => m.HEAPU8.buffer.byteLength,
    /** The heap's high-water mark (tfp_memory_stats out[1]): the peak of what the engine held. */
    heapPeak: () => { m._tfp_memory_stats(slot); return new Float64Array(m.HEAPU8.buffer, slot, 2)[1]; },
    /** Every position's logits (T, V), copied out: the pass keeps only "hidden" (logits_last
     *  -1), then the LM head runs on it a block of the vocabulary at a time (tfp_model_logits),
     *  each block copied out, so the heap never holds (T, V) floats at once. */
    forward(x) {
      const p = idsAt(x);
      let list = 0, block = 0;
      try {
        check(withParams(m, 'tfp_forward_params', { ids: p, n: x.length, logits_last: -1 }, (params) => m._tfp_model_forward(model, params, slot)),
          'tfp_model_forward');
        list = u32(slot);
        const name = put(new TextEncoder().encode('hidden\0'));
        const hidden = m._tfp_tensors_data(list, m._tfp_tensors_find(list, name));
        m._tfp_free(name);
        const T = x.length, out = new Float32Array(T * V);
        const width = Math.min(V, Math.max(16, Math.floor(logitsBlockBytes(weightsBytes) / (4 * T) / 16) * 16));
        block = m._tfp_alloc(4 * T * width);
        for (let v0 = 0; v0 < V; v0 += width) {
          const w = Math.min(width, V - v0);
          check(m._tfp_model_logits(model, hidden, T, v0, v0 + w, block), 'tfp_model_logits');
          const got = new Float32Array(m.HEAPU8.buffer, block, T * w);
          if (w === V) out.set(got);
          else for (let t = 0; t < T; t++) out.set(got.subarray(t * w, (t + 1) * w), t * V + v0);
        }
        return out;
      } finally {
        m._tfp_free(p);
        if (block) m._tfp_free(block);
        if (list) m._tfp_tensors_free(list);
      }
    },
    /** Prefill `context` tokens, then the time of each of `steps` greedy tokens (ms). */
    decode(context, steps) {
      const p = idsAt(ids(context));
      check(withParams(m, 'tfp_generator_params', { prompt: p, n: context, max_tokens: steps + 1, temperature: 0, n_stop: 0 },
        (params) => m._tfp_generator_create(model, params, slot)), 'tfp_generator_create');
      m._tfp_free(p);
      const gen = u32(slot);
      check(m._tfp_generator_next(gen, slot, 0, slot + 4), 'prefill');
      const times = [];
      for (let s = 0; s < steps; s++) {
        const t = performance.now();
        check(m._tfp_generator_next(gen, slot, 0, slot + 4), 'tfp_generator_next');
        times.push(performance.now() - t);
      }
      m._tfp_generator_free(gen);
      return times;
    },
  };
}

// ---- onnxruntime-web --------------------------------------------------------------------
async function onnx() {
  ort.env.wasm.numThreads = THREADS;
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  const bytes = readFileSync(join(DIR, `${NAME}.onnx`));
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const loadMs = performance.now() - t0;
  const empty = new ort.Tensor('float32', new Float32Array(0), [1, H, 0, D]);
  const feeds = (x, past, P) => {
    const T = x.length, bias = new Float32Array(T * (P + T));
    for (let i = 0; i < T; i++) for (let j = P + i + 1; j < P + T; j++) bias[i * (P + T) + j] = -1e9;
    const f = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(x, BigInt), [1, T]),
      position_ids: new ort.Tensor('int64', BigInt64Array.from({ length: T }, (_, i) => BigInt(P + i)), [1, T]),
      attn_bias: new ort.Tensor('float32', bias, [T, P + T]),
    };
    for (let l = 0; l < L; l++) { f[`past_k.${l}`] = past?.[`present_k.${l}`] ?? empty; f[`past_v.${l}`] = past?.[`present_v.${l}`] ?? empty; }
    return f;
  };
  const argmax = (data, from, n) => { let k = 0; for (let j = 1; j < n; j++) if (data[from + j] > data[from + k]) k = j; return k; };
  return {
    name: 'ort', loadMs,
    async forward(x) { return (await session.run(feeds(x, null, 0))).logits.data; },
    async decode(context, steps) {
      let out = await session.run(feeds(ids(context), null, 0)), P = context;
      let next = argmax(out.logits.data, (context - 1) * V, V);
      const times = [];
      for (let s = 0; s < steps; s++) {
        const t = performance.now();
        out = await session.run(feeds(Int32Array.of(next), out, P));
        next = argmax(out.logits.data, 0, V);
        times.push(performance.now() - t);
        P += 1;
      }
      return times;
    },
  };
}

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };

// A child process that only measures memory: load, one T = 512 forward, report.
if (MEMORY) {
  const rss0 = process.memoryUsage().rss;
  const e = MEMORY === 'ours' ? await ours() : await onnx();
  await e.forward(ids(Math.min(512, config.n_positions)));
  console.log(JSON.stringify({ rss_growth: process.memoryUsage().rss - rss0, max_rss_kb: process.resourceUsage().maxRSS, heap: e.heapBytes?.() ?? null, peak: e.heapPeak?.() ?? null, weights: e.weightsBytes ?? null }));
  e.close?.();
  process.exit(0);
}

const cpu = (() => { try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/^Model name:\s*(.*)$/m)?.[1] ?? '?'; } catch { return '?'; } })();
console.log(`== ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC  ${cpu}, ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cpus, `
  + `node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
console.log(`== ${NAME} (ours ${DTYPE}${PRECISION ? ` held as ${PRECISION}` : ''}): ${L} layers, d_model ${config.n_embd}, ${H} heads, vocab ${V}; onnxruntime-web ${ort.env.versions?.web ?? ''} wasm, `
  + `${THREADS} thread(s), graph optimisation 'all'; ours: ${OUR_THREADS} thread(s) (${OUR_THREADS > 1 ? 'tfp_mt.mjs' : 'tfp.mjs'}); ${ROUNDS} rounds after a warm-up`);

const a = await ours(), b = await onnx();
{
  const x = ids(32), la = a.forward(x), lb = await b.forward(x);
  let diff = 0, scale = 0;
  for (let i = 0; i < la.length; i++) { diff = Math.max(diff, Math.abs(la[i] - lb[i])); scale = Math.max(scale, Math.abs(lb[i])); }
  console.log(`logits agree: max |ours - ort| = ${diff.toExponential(2)} over T = 32 (max |logit| ${scale.toFixed(3)})`);
  if (PRECISION && PRECISION !== 'f32') console.log(`  (ours holds ${PRECISION} weights: the difference is its accuracy cost)`);
  else if (DTYPE === 'I8') console.log('  (both run the int8 weights; ours also rounds the activations to int16 at M <= 4)');
  else if (!(diff < (DTYPE === 'I8' ? 1e-2 : 1e-3) * Math.max(1, scale))) throw new Error('the two engines disagree: the comparison would be meaningless');
}

const cases = [...LENGTHS.map((T) => ({ label: `forward T = ${T}`, run: async (e) => { const t = performance.now(); await e.forward(ids(T)); return [performance.now() - t]; } })),
  ...CONTEXTS.map((C) => ({ label: `decode / token, context ${C}`, run: (e) => e.decode(C, 8) }))];
const times = cases.map(() => ({ ours: [], ort: [] }));
for (let round = 0; round <= ROUNDS; round++) {
  for (const [i, c] of cases.entries()) {
    for (const e of round % 2 ? [b, a] : [a, b]) {
      // Each turn starts on a quiet machine: the other engine's pool threads may still be
      // spinning for its next job (ORT's and ours both spin before they sleep).
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      const t = await c.run(e);
      if (round > 0) times[i][e.name].push(...t);
    }
  }
}
const row = (label, x, y, unit = 'ms') => console.log(`${label.padEnd(28)} ours ${x.toFixed(1).padStart(8)} ${unit}   ort ${y.toFixed(1).padStart(8)} ${unit}   ratio ${(x / y).toFixed(2)}`);
row('load (bytes in memory)', a.loadMs, b.loadMs);
cases.forEach((c, i) => row(c.label, median(times[i].ours), median(times[i].ort)));
// Issue 14's decode targets compare our decode step with ORT's full T = 1 forward.
const t1 = cases.findIndex((c) => c.label === 'forward T = 1');
cases.forEach((c, i) => {
  if (t1 >= 0 && c.label.startsWith('decode'))
    console.log(`${`${c.label.replace('decode / token', 'our decode')} vs ORT's T = 1 forward`.padEnd(56)} ratio ${(median(times[i].ours) / median(times[t1].ort)).toFixed(2)}`);
});

const mem = (which) => JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--memory-only', which, '--model', NAME, '--dtype', DTYPE, '--ort-threads', String(THREADS), '--threads', String(OUR_THREADS), ...(PRECISION ? ['--precision', PRECISION] : [])], { encoding: 'utf8' }).trim().split('\n').pop());
const mo = mem('ours'), mr = mem('ort');
const weightsMb = mo.weights / 2 ** 20;  // the matrices as held (tfp_model_info_json's weights_bytes)
console.log(`memory after a T = ${Math.min(512, config.n_positions)} forward (weights as held ${weightsMb.toFixed(0)} MiB): ours heap ${(mo.heap / 2 ** 20).toFixed(0)} MiB, `
  + `peak held ${(mo.peak / 2 ** 20).toFixed(0)} MiB (${(mo.peak / 2 ** 20 / weightsMb).toFixed(2)}× the weights; the ${Math.min(512, config.n_positions)} rows of logits, copied out a vocabulary block at a time, would be `
  + `${(Math.min(512, config.n_positions) * V * 4 / 2 ** 20).toFixed(0)} MiB), RSS growth ours ${(mo.rss_growth / 2 ** 20).toFixed(0)} MiB, ort ${(mr.rss_growth / 2 ** 20).toFixed(0)} MiB, `
  + `ratio ${(mo.rss_growth / mr.rss_growth).toFixed(2)}`);
a.close();  // the threaded module's workers would keep Node running
