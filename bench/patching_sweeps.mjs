// How long activation patching takes (issue 33): the page's WASM module under Node at one
// thread, through its C API (tfp_model_activation_patching, one layer per call as the page
// asks), on the shipped brown-gpt and on a GPT-2-small-shaped model with random weights
// (12 layers, 12 heads, d_model 768; tfp_model_create_random), at T = 20 and T = 128.
//
//   node bench/patching_sweeps.mjs [--quick]
//
// Prints, per model and T, the seconds of the residual-stream sweep (resid × position,
// (L+1)·T patched passes, each from its own block on: the blocks before a patch are not
// run again) and of the heads sweep (head_all, L·H passes), and one plain forward pass for
// scale. The whole sweep is always timed (GPT-2 small at T = 128: minutes). Also the
// gradient attribution (tfp_model_gradient_attribution): gradient × input alone (one
// forward and backward pass) and with 64 integrated-gradient steps.
// --quick: T = 20 only. Names the CPU and load average.
import { cpus, loadavg } from 'node:os';
import { loadTfp } from '../tests/js/tfp_module.mjs';
import { ModelApi, readShipped } from '../tests/js/model_api.mjs';

const quick = process.argv.includes('--quick');
const api = new ModelApi(await loadTfp());

const GPT2_SMALL = JSON.stringify({ model_type: 'gpt2', architectures: ['GPT2LMHeadModel'], n_embd: 768, n_head: 12, n_layer: 12,
  n_positions: 1024, vocab_size: 50257, layer_norm_epsilon: 1e-5, activation_function: 'gelu_new', bos_token_id: 50256, eos_token_id: 50256 });

function seconds(fn) {
  const t = performance.now();
  fn();
  return (performance.now() - t) / 1000;
}

function run(name, model, T) {
  const info = api.info(model);
  const L = info.n_decoder_layers, V = info.vocab_size;
  const clean = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % V);
  const corrupted = clean.slice();
  corrupted[Math.floor(T / 2)] = (clean[Math.floor(T / 2)] + 1) % V;
  const o = { answer: 1, foil: 2 };
  const forward = seconds(() => api.forward(model, clean));
  const heads = seconds(() => api.activationPatching(model, clean, corrupted, { ...o, kinds: 8 }));
  let resid = 0;
  for (let l = 0; l <= L; l++) resid += seconds(() => api.activationPatching(model, clean, corrupted, { ...o, kinds: 1, layer: l }));
  const grad = seconds(() => api.gradientAttribution(model, clean, { ...o, steps: 0 }));
  const ig = seconds(() => api.gradientAttribution(model, clean, { ...o, steps: 64 }));
  console.log(`${name.padEnd(12)} T=${String(T).padStart(3)}  forward ${(forward * 1000).toFixed(1).padStart(7)} ms   ` +
    `resid sweep ${resid.toFixed(2).padStart(7)} s (${(L + 1) * T} passes)   ` +
    `heads sweep ${heads.toFixed(2).padStart(6)} s (${L * info.n_heads} passes)   ` +
    `gradient ${(grad * 1000).toFixed(0).padStart(6)} ms   64-step IG ${ig.toFixed(2).padStart(6)} s`);
}

console.log(`CPU: ${cpus()[0]?.model} × ${cpus().length}; load ${loadavg().map((x) => x.toFixed(2)).join(' ')}; WASM, 1 thread`);
const brown = api.load(readShipped('brown-gpt'), 'brown-gpt');
const small = api.random(GPT2_SMALL, null, 1);
for (const T of quick ? [20] : [20, 128]) {
  run('brown-gpt', brown, Math.min(T, api.info(brown).max_positions));
  run('gpt2-small', small, T);
}
