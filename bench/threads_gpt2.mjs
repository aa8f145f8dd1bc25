// Threads (issue 14): our engine on 1 thread (tfp.mjs, the single-threaded build) against
// the threaded build (tfp_mt.mjs) on 1, 2, ... threads, in one Node process, interleaved
// rounds after a warm-up, on the GPT-2-small-shaped model of bench/e2e_gpt2.mjs
// (build/e2e/gpt2/, written by it). Target: prefill T = 128 on 2 threads >= 1.7x the
// 1-thread speed. Every run's logits are checked equal to tfp.mjs's first, bit for bit.
//
//   node bench/threads_gpt2.mjs [--threads 1,2] [--rounds 5] [--lengths 1,32,128]
//
// Prints medians in ms and the speed-up over tfp.mjs, with the CPU and the load average
// (the machine may be shared: a busy core makes the second thread wait).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadTfp } from '../tests/js/tfp_module.mjs';
import { loadTfpMt } from '../tests/js/tfp_module_mt.mjs';
import { ModelApi } from '../tests/js/model_api.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const opt = (k, d) => { const i = args.indexOf(k); return i < 0 ? d : args[i + 1]; };
const THREADS = opt('--threads', '1,2').split(',').map(Number);
const ROUNDS = Number(opt('--rounds', 5));
const LENGTHS = opt('--lengths', '1,32,128').split(',').map(Number);
const DIR = `${ROOT}build/e2e/gpt2/`;
if (!existsSync(`${DIR}model.safetensors`)) {
  execFileSync('/usr/bin/python3', [`${ROOT}bench/e2e_gpt2_files.py`, '--out', `${ROOT}build/e2e`, '--name', 'gpt2', '--dtype', 'F32'], { stdio: 'inherit' });
}
const files = { config: readFileSync(`${DIR}config.json`, 'utf8'), weights: new Uint8Array(readFileSync(`${DIR}model.safetensors`)), tokenizer: null };
const V = JSON.parse(files.config).vocab_size;
const ids = (n) => Array.from({ length: n }, (_, i) => ((7919 * i + 13) % (V - 2)) + 1);

const st = new ModelApi(await loadTfp()), mt = new ModelApi(await loadTfpMt());
const stModel = st.load(files, 'gpt2'), mtModel = mt.load(files, 'gpt2');
const engines = [{ label: 'tfp.mjs, 1 thread', api: st, model: stModel, threads: 0 },
  ...THREADS.map((t) => ({ label: `tfp_mt.mjs, ${t} thread${t > 1 ? 's' : ''}`, api: mt, model: mtModel, threads: t }))];

const cpu = (() => { try { return execFileSync('lscpu', { encoding: 'utf8' }).match(/^Model name:\s*(.*)$/m)?.[1] ?? '?'; } catch { return '?'; } })();
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`== ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC  ${cpu}, ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cpus, node ${process.version}, load ${load()}`);

// Same bits first: the logits of each engine at T = 32 against tfp.mjs's.
const logits = (e, n) => {
  if (e.threads) e.api.m._tfp_set_threads(e.threads);
  return Buffer.from(e.api.forward(e.model, ids(n)).logits.data.buffer);
};
const want = logits(engines[0], 32);
for (const e of engines.slice(1)) if (!logits(e, 32).equals(want)) throw new Error(`${e.label}: logits differ from tfp.mjs`);
console.log(`logits at T = 32 equal bit for bit: ${engines.map((e) => e.label).join(', ')}`);

const cases = LENGTHS.map((T) => ({ label: `forward T = ${T}`, run: (e) => { const t = performance.now(); e.api.forward(e.model, ids(T)); return performance.now() - t; } }));
cases.push({ label: 'generate 16 after 128', run: (e) => { const t = performance.now(); e.api.generate(e.model, ids(128), { maxTokens: 16, temperature: 0 }); return (performance.now() - t); } });
const times = cases.map(() => engines.map(() => []));
for (let round = 0; round <= ROUNDS; round++)
  for (const [i, c] of cases.entries())
    for (const [j, e] of (round % 2 ? [...engines.entries()].reverse() : [...engines.entries()])) {
      if (e.threads) e.api.m._tfp_set_threads(e.threads);
      const ms = c.run(e);
      if (round > 0) times[i][j].push(ms);
    }
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[s.length >> 1]; };
for (const [i, c] of cases.entries()) {
  const base = median(times[i][0]);
  console.log(`${c.label.padEnd(22)} ${engines.map((e, j) => `${e.label} ${median(times[i][j]).toFixed(1).padStart(7)} ms (${(base / median(times[i][j])).toFixed(2)}x)`).join('   ')}`);
}
console.log(`== load after: ${load()}`);
mt.m.terminateThreads();
