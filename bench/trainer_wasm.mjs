// The toy trainer in the WebAssembly module (web/src/engine/wasm/tfp.mjs) through the C
// API, timed like its native twin bench/trainer_api.cpp (same arguments, same JSON):
//
//   node bench/trainer_wasm.mjs TASK OPTIONS_JSON SEED STEPS [CHUNK]
//
// Training time excludes evaluation; tokens/second uses tokens_per_step from
// tfp_trainer_info_json (B times the padded input length, as `tfp train` counts them).
import { cpuUsage } from 'node:process';
import { loadTfp } from '../tests/js/tfp_module.mjs';
import { TrainerApi } from '../tests/js/trainer_api.mjs';

const [task, optionsText, seedText, stepsText, chunkText] = process.argv.slice(2);
if (!stepsText) {
  console.error('usage: node bench/trainer_wasm.mjs TASK OPTIONS_JSON SEED STEPS [CHUNK]');
  process.exit(2);
}
const options = JSON.parse(optionsText), seed = Number(seedText), steps = Number(stepsText);
const chunk = Number(chunkText ?? 10);
const api = new TrainerApi(await loadTfp());
const t = api.create(task, options, seed);
const before = api.evaluate(t);
const losses = [];
const c0 = cpuUsage(), w0 = performance.now();
while (losses.length < steps) losses.push(...api.step(t, Math.min(chunk, steps - losses.length)));
const wall = (performance.now() - w0) / 1000;
const c1 = cpuUsage(c0), cpu = (c1.user + c1.system) / 1e6;
const after = api.evaluate(t);
const info = api.info(t);
const tokens = info.tokens_per_step * steps;
console.log(JSON.stringify({
  task, options, seed, steps, simd: api.m.UTF8ToString(api.m._tfp_simd_arch()), info, losses,
  held_out_before: { sequence_accuracy: before.sequence },
  held_out_after: { sequence_accuracy: after.sequence, token_accuracy: after.token, loss: after.loss },
  seconds: wall, cpu_seconds: cpu, tokens_per_second: Math.round(tokens / wall),
  tokens_per_cpu_second: Math.round(tokens / cpu),
}));
api.m._tfp_trainer_free(t);
