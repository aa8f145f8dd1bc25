// GEMM reference point: the same matmul shapes as bench/bench_gemm.cpp run through
// onnxruntime-web's WASM backend (single thread, SIMD) under Node, and our ratio to it.
//
//   node bench/gemm_ort.mjs [path/to/our/bench_gemm.js] [--quick]
//
// The ONNX models are built here by writing the small protobuf by hand (no helper ships
// in the package): one MatMul node, A a graph input (M, K), B either an initializer
// (constant weights: ORT may pre-pack them once, as inference does) or a second graph
// input (packed per call, like our kernels::matmul). For the NK layout, a Gemm node
// with transB = 1 and B (N, K).
// Timing: best CPU time (process.cpuUsage) of session.run after warm-up, as in
// bench_gemm; it includes ORT's per-run JS overhead (tens of microseconds), which
// matters only at M = 1.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as ort from 'onnxruntime-web';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const ourBench = args.find((a) => !a.startsWith('--')) ?? 'build/wasm/bench_gemm.js';
const minSeconds = quick ? 0.3 : 1.0;

// ---- protobuf, by hand ------------------------------------------------------------
// wire types: 0 varint, 2 length-delimited. Field numbers from onnx/onnx.proto3.
const enc = new TextEncoder();
function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}
const cat = (parts) => {
  const len = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
};
const fInt = (field, n) => Uint8Array.from([...varint((field << 3) | 0), ...varint(n)]);
const fBytes = (field, bytes) =>
  cat([Uint8Array.from([...varint((field << 3) | 2), ...varint(bytes.length)]), bytes]);
const fStr = (field, s) => fBytes(field, enc.encode(s));

const FLOAT = 1;
// ValueInfoProto{name=1, type=2: TypeProto{tensor_type=1: {elem_type=1, shape=2: {dim=1: {dim_value=1}}}}}
function valueInfo(name, dims) {
  const shape = cat(dims.map((d) => fBytes(1, fInt(1, d))));
  const tensorType = cat([fInt(1, FLOAT), fBytes(2, shape)]);
  return cat([fStr(1, name), fBytes(2, fBytes(1, tensorType))]);
}
// TensorProto{dims=1, data_type=2, name=8, raw_data=9}
function tensor(name, dims, data) {
  return cat([...dims.map((d) => fInt(1, d)), fInt(2, FLOAT), fStr(8, name),
    fBytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength))]);
}
// NodeProto{input=1, output=2, name=3, op_type=4, attribute=5: {name=1, i=3, type=20 (INT=2)}}
function node(op, inputs, outputs, intAttrs = {}) {
  const attrs = Object.entries(intAttrs).map(([k, v]) =>
    fBytes(5, cat([fStr(1, k), fInt(3, v), fInt(20, 2)])));
  return cat([...inputs.map((i) => fStr(1, i)), ...outputs.map((o) => fStr(2, o)),
    fStr(3, 'n0'), fStr(4, op), ...attrs]);
}
// ModelProto{ir_version=1, graph=7, opset_import=8: {domain=1, version=2}}
// GraphProto{node=1, name=2, initializer=5, input=11, output=12}
function matmulModel(M, K, N, layout, bConst, bData) {
  const bDims = layout === 'KN' ? [K, N] : [N, K];
  const n = layout === 'KN' ? node('MatMul', ['A', 'B'], ['C'])
    : node('Gemm', ['A', 'B'], ['C'], { transB: 1 });
  const graph = cat([
    fBytes(1, n), fStr(2, 'g'),
    ...(bConst ? [fBytes(5, tensor('B', bDims, bData))] : []),
    fBytes(11, valueInfo('A', [M, K])),
    ...(bConst ? [] : [fBytes(11, valueInfo('B', bDims))]),
    fBytes(12, valueInfo('C', [M, N])),
  ]);
  return cat([fInt(1, 8), fBytes(7, graph), fBytes(8, cat([fStr(1, ''), fInt(2, 13)]))]);
}

// ---- timing -----------------------------------------------------------------------
const cpuSeconds = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
async function bestSeconds(run) {
  for (let i = 0; i < 3; i++) await run();  // warm-up: V8 tiers, ORT allocations
  const times = [];
  const start = performance.now();
  while (times.length < 5 || performance.now() - start < minSeconds * 1000) {
    const t0 = cpuSeconds();
    await run();
    times.push(cpuSeconds() - t0);
  }
  times.sort((a, b) => a - b);
  return { best: times[0], median: times[times.length >> 1], reps: times.length };
}

// ---- our figures, from our WASM bench (same shapes, same timing rule) -------------
function ourFigures() {
  if (!existsSync(ourBench)) {
    console.log(`(${ourBench} not found: build it to print our ratio)`);
    return new Map();
  }
  const out = execFileSync('node', [ourBench, ...(quick ? ['--quick'] : [])], { encoding: 'utf8' });
  const m = new Map();
  for (const line of out.split('\n')) {
    const r = /^\[(\d+),(\d+)\]x\[\d+,(\d+)\]\s+(KN|NK)\s+([\d.]+)/.exec(line);
    if (r) m.set(`${r[1]},${r[2]},${r[3]},${r[4]}`, Number(r[5]));
  }
  return m;
}

ort.env.wasm.numThreads = 1;
ort.env.wasm.simd = true;
ort.env.logLevel = 'error';

const shapes = [[1, 768, 768], [1, 768, 3072], [128, 768, 768], [128, 768, 3072]];
const ours = ourFigures();
console.log(`onnxruntime-web ${ort.env.versions?.web ?? ''} wasm backend, 1 thread, SIMD`);
console.log('shape [M,K]x[K,N]      B   ORT B-const GF/s  ORT B-input GF/s   ours GF/s  ours/ORT(const)');
for (const [M, K, N] of shapes) {
  const a = Float32Array.from({ length: M * K }, () => Math.random() * 2 - 1);
  const b = Float32Array.from({ length: K * N }, () => Math.random() * 2 - 1);
  const flops = 2 * M * N * K;
  for (const layout of ['KN', 'NK']) {
    const bDims = layout === 'KN' ? [K, N] : [N, K];
    const res = {};
    for (const bConst of [true, false]) {
      const session = await ort.InferenceSession.create(matmulModel(M, K, N, layout, bConst, b),
        { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
      const feeds = { A: new ort.Tensor('float32', a, [M, K]) };
      if (!bConst) feeds.B = new ort.Tensor('float32', b, bDims);
      const t = await bestSeconds(() => session.run(feeds));
      res[bConst ? 'const' : 'input'] = flops / t.best * 1e-9;
      await session.release();
    }
    const our = ours.get(`${M},${K},${N},${layout}`);
    const name = `[${M},${K}]x[${K},${N}]`;
    console.log(`${name.padEnd(22)} ${layout}  ${res.const.toFixed(2).padStart(16)}  ${res.input.toFixed(2).padStart(16)}` +
      `  ${our ? our.toFixed(2).padStart(10) : '       n/a'}  ${our ? (our / res.const).toFixed(2).padStart(15) : ''}`);
  }
}
