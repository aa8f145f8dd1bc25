// Random-weight checkpoints with the REAL shapes, names and Hugging Face layouts of five
// models people study (issue 19 item 6, issue 16's SmolLM-sized model), for load-time,
// memory and generation-speed measurements and for the page's sharded-folder test.
//
//   node bench/real_size_models.mjs [--out build/real-models] [--shard-mb 256] [--check] [name ...]
//
// Each model goes to <out>/<name>/: config.json (the real model's keys and values, with
// torch_dtype bfloat16) and its weights in BF16, as model.safetensors or, when larger than
// --shard-mb, as model-0000k-of-0000n.safetensors shards with model.safetensors.index.json
// (metadata.total_size = tensor bytes, weight_map name -> shard), as transformers writes
// them. No tokenizer.json: the weights are random, the page and the CLI read token ids.
// Weights: normal, std 0.02 (seeded per model and tensor name: a folder is the same on every
// run, sharded or not);
// biases 0; norm weights 1 (Gemma's (1 + w) norms: 0, so that they too scale by 1).
//
// The tensor names and shapes come from per-family tables below. --check (and every run)
// first builds each table for the tiny fixture of the same family in
// tests/fixtures/families/<case>/ from that fixture's config.json and compares it with the
// fixture's safetensors header (names, shapes): the real-size files follow the layout the
// engine's family tests already pin.
//
// Real configurations used (from the models' config.json on the Hugging Face hub):
//   pythia-70m       gpt_neox     hidden 512, 6 layers, 8 heads, intermediate 2048, vocab 50304,
//                                 rotary_pct 0.25, parallel residual, untied embed_out, 2048 positions
//   tinystories-33m  gpt_neo      hidden 768, 4 layers, 16 heads, intermediate null (3072),
//                                 vocab 50257, 2048 learned positions, global/local x2, window 256
//   flan-t5-small    t5           d_model 512, d_kv 64, 6 heads, d_ff 1024, 8 + 8 layers,
//                                 vocab 32128, gated-gelu, 32 buckets, max distance 128, untied lm_head
//   gemma-3-270m     gemma3_text  hidden 640, 18 layers, 4 heads, 1 KV head, head_dim 256,
//                                 intermediate 2048, vocab 262144, window 512 (5 local : 1 global),
//                                 RoPE 1e6 global / 1e4 local, query_pre_attn_scalar 256, tied
//   smollm-135m      llama        hidden 576, 30 layers, 9 heads, 3 KV heads, intermediate 1536,
//                                 vocab 49152, rope_theta 1e4, 2048 positions, tied
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIXTURES = join(ROOT, 'tests/fixtures/families');

// ---- the real configurations ------------------------------------------------------------

const gemmaLayerTypes = Array.from({ length: 18 }, (_, i) => ((i + 1) % 6 === 0 ? 'full_attention' : 'sliding_attention'));

export const MODELS = {
  'pythia-70m': {
    fixture: 'pythia_parallel',
    config: {
      architectures: ['GPTNeoXForCausalLM'], attention_bias: true, attention_dropout: 0.0, bos_token_id: 0,
      classifier_dropout: 0.1, eos_token_id: 0, hidden_act: 'gelu', hidden_dropout: 0.0, hidden_size: 512,
      initializer_range: 0.02, intermediate_size: 2048, layer_norm_eps: 1e-5, max_position_embeddings: 2048,
      model_type: 'gpt_neox', num_attention_heads: 8, num_hidden_layers: 6, rope_scaling: null,
      rotary_emb_base: 10000, rotary_pct: 0.25, tie_word_embeddings: false, torch_dtype: 'bfloat16',
      transformers_version: '4.24.0', use_cache: true, use_parallel_residual: true, vocab_size: 50304,
    },
  },
  'tinystories-33m': {
    fixture: 'gpt_neo_local',
    config: {
      activation_function: 'gelu_new', architectures: ['GPTNeoForCausalLM'], attention_dropout: 0,
      attention_layers: ['global', 'local', 'global', 'local'], attention_types: [[['global', 'local'], 2]],
      bos_token_id: 50256, embed_dropout: 0, eos_token_id: 50256, gradient_checkpointing: false, hidden_size: 768,
      initializer_range: 0.02, intermediate_size: null, layer_norm_epsilon: 1e-5, max_position_embeddings: 2048,
      model_type: 'gpt_neo', num_heads: 16, num_layers: 4, resid_dropout: 0, summary_activation: null,
      summary_first_dropout: 0.1, summary_proj_to_labels: true, summary_type: 'cls_index', summary_use_proj: true,
      torch_dtype: 'bfloat16', transformers_version: '4.28.0', use_cache: true, vocab_size: 50257, window_size: 256,
    },
  },
  'flan-t5-small': {
    fixture: 'flan_t5',
    config: {
      architectures: ['T5ForConditionalGeneration'], d_ff: 1024, d_kv: 64, d_model: 512, decoder_start_token_id: 0,
      dense_act_fn: 'gelu_new', dropout_rate: 0.1, eos_token_id: 1, feed_forward_proj: 'gated-gelu',
      initializer_factor: 1.0, is_encoder_decoder: true, is_gated_act: true, layer_norm_epsilon: 1e-6,
      model_type: 't5', n_positions: 512, num_decoder_layers: 8, num_heads: 6, num_layers: 8, output_past: true,
      pad_token_id: 0, relative_attention_max_distance: 128, relative_attention_num_buckets: 32,
      tie_word_embeddings: false, torch_dtype: 'bfloat16', transformers_version: '4.23.1', use_cache: true,
      vocab_size: 32128,
    },
  },
  'gemma-3-270m': {
    fixture: 'gemma3_text',
    config: {
      _sliding_window_pattern: 6, architectures: ['Gemma3ForCausalLM'], attention_bias: false, attention_dropout: 0.0,
      attn_logit_softcapping: null, bos_token_id: 2, eos_token_id: 1, final_logit_softcapping: null,
      head_dim: 256, hidden_activation: 'gelu_pytorch_tanh', hidden_size: 640, initializer_range: 0.02,
      intermediate_size: 2048, layer_types: gemmaLayerTypes, max_position_embeddings: 32768,
      model_type: 'gemma3_text', num_attention_heads: 4, num_hidden_layers: 18, num_key_value_heads: 1,
      pad_token_id: 0, query_pre_attn_scalar: 256, rms_norm_eps: 1e-6, rope_local_base_freq: 10000.0,
      rope_scaling: null, rope_theta: 1000000.0, sliding_window: 512, torch_dtype: 'bfloat16',
      transformers_version: '4.55.0.dev0', use_bidirectional_attention: false, use_cache: true, vocab_size: 262144,
    },
  },
  'smollm-135m': {
    fixture: 'llama3_scaled_tied',
    config: {
      architectures: ['LlamaForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 0,
      eos_token_id: 0, hidden_act: 'silu', hidden_size: 576, initializer_range: 0.02, intermediate_size: 1536,
      max_position_embeddings: 2048, mlp_bias: false, model_type: 'llama', num_attention_heads: 9,
      num_hidden_layers: 30, num_key_value_heads: 3, pretraining_tp: 1, rms_norm_eps: 1e-5, rope_scaling: null,
      rope_theta: 10000.0, tie_word_embeddings: true, torch_dtype: 'bfloat16', transformers_version: '4.42.3',
      use_cache: true, vocab_size: 49152,
    },
  },
};

// ---- tensor tables: [name, shape, kind] in the order the HF module registers them ------------
// kind: 'w' random normal, 'b' zeros (bias), 'n' norm weight (1; 0 for (1 + w) norms)

function gptNeoxTensors(c) {
  const H = c.hidden_size, I = c.intermediate_size, V = c.vocab_size, t = [['gpt_neox.embed_in.weight', [V, H], 'w']];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const p = `gpt_neox.layers.${l}.`;
    t.push([p + 'input_layernorm.weight', [H], 'n'], [p + 'input_layernorm.bias', [H], 'b'],
      [p + 'post_attention_layernorm.weight', [H], 'n'], [p + 'post_attention_layernorm.bias', [H], 'b'],
      [p + 'attention.query_key_value.weight', [3 * H, H], 'w'], [p + 'attention.query_key_value.bias', [3 * H], 'b'],
      [p + 'attention.dense.weight', [H, H], 'w'], [p + 'attention.dense.bias', [H], 'b'],
      [p + 'mlp.dense_h_to_4h.weight', [I, H], 'w'], [p + 'mlp.dense_h_to_4h.bias', [I], 'b'],
      [p + 'mlp.dense_4h_to_h.weight', [H, I], 'w'], [p + 'mlp.dense_4h_to_h.bias', [H], 'b']);
  }
  t.push(['gpt_neox.final_layer_norm.weight', [H], 'n'], ['gpt_neox.final_layer_norm.bias', [H], 'b'],
    ['embed_out.weight', [V, H], 'w']);
  return t;
}

function gptNeoTensors(c) {
  const H = c.hidden_size, I = c.intermediate_size ?? 4 * H, V = c.vocab_size;
  const t = [['transformer.wte.weight', [V, H], 'w'], ['transformer.wpe.weight', [c.max_position_embeddings, H], 'w']];
  for (let l = 0; l < c.num_layers; l++) {
    const p = `transformer.h.${l}.`;
    t.push([p + 'ln_1.weight', [H], 'n'], [p + 'ln_1.bias', [H], 'b'],
      [p + 'attn.attention.k_proj.weight', [H, H], 'w'], [p + 'attn.attention.v_proj.weight', [H, H], 'w'],
      [p + 'attn.attention.q_proj.weight', [H, H], 'w'], [p + 'attn.attention.out_proj.weight', [H, H], 'w'],
      [p + 'attn.attention.out_proj.bias', [H], 'b'], [p + 'ln_2.weight', [H], 'n'], [p + 'ln_2.bias', [H], 'b'],
      [p + 'mlp.c_fc.weight', [I, H], 'w'], [p + 'mlp.c_fc.bias', [I], 'b'],
      [p + 'mlp.c_proj.weight', [H, I], 'w'], [p + 'mlp.c_proj.bias', [H], 'b']);
  }
  t.push(['transformer.ln_f.weight', [H], 'n'], ['transformer.ln_f.bias', [H], 'b']);
  return t;
}

function t5Tensors(c) {
  const D = c.d_model, inner = c.num_heads * c.d_kv, F = c.d_ff, V = c.vocab_size, B = c.relative_attention_num_buckets;
  const gated = String(c.feed_forward_proj ?? 'relu').startsWith('gated-');
  const t = [['shared.weight', [V, D], 'w']];
  const attn = (p, rel) => {
    t.push([p + 'q.weight', [inner, D], 'w'], [p + 'k.weight', [inner, D], 'w'], [p + 'v.weight', [inner, D], 'w'],
      [p + 'o.weight', [D, inner], 'w']);
    if (rel) t.push([p + 'relative_attention_bias.weight', [B, c.num_heads], 'w']);
  };
  const ff = (p) => {
    if (gated) t.push([p + 'DenseReluDense.wi_0.weight', [F, D], 'w'], [p + 'DenseReluDense.wi_1.weight', [F, D], 'w']);
    else t.push([p + 'DenseReluDense.wi.weight', [F, D], 'w']);
    t.push([p + 'DenseReluDense.wo.weight', [D, F], 'w'], [p + 'layer_norm.weight', [D], 'n']);
  };
  for (let l = 0; l < c.num_layers; l++) {
    const p = `encoder.block.${l}.layer.`;
    attn(p + '0.SelfAttention.', l === 0);
    t.push([p + '0.layer_norm.weight', [D], 'n']);
    ff(p + '1.');
  }
  t.push(['encoder.final_layer_norm.weight', [D], 'n']);
  for (let l = 0; l < (c.num_decoder_layers ?? c.num_layers); l++) {
    const p = `decoder.block.${l}.layer.`;
    attn(p + '0.SelfAttention.', l === 0);
    t.push([p + '0.layer_norm.weight', [D], 'n']);
    attn(p + '1.EncDecAttention.', false);
    t.push([p + '1.layer_norm.weight', [D], 'n']);
    ff(p + '2.');
  }
  t.push(['decoder.final_layer_norm.weight', [D], 'n']);
  if (c.tie_word_embeddings === false) t.push(['lm_head.weight', [V, D], 'w']);
  return t;
}

/** Llama and Gemma 3 text (gemma: four norms per layer, q/k norms, (1 + w) norms set to 0). */
function llamaLikeTensors(c, gemma) {
  const H = c.hidden_size, Nq = c.num_attention_heads, Nk = c.num_key_value_heads ?? Nq;
  const D = c.head_dim ?? H / Nq, I = c.intermediate_size, V = c.vocab_size, norm = gemma ? 'z' : 'n';
  const t = [['model.embed_tokens.weight', [V, H], 'w']];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    t.push([p + 'self_attn.q_proj.weight', [Nq * D, H], 'w'], [p + 'self_attn.k_proj.weight', [Nk * D, H], 'w'],
      [p + 'self_attn.v_proj.weight', [Nk * D, H], 'w'], [p + 'self_attn.o_proj.weight', [H, Nq * D], 'w']);
    if (gemma) t.push([p + 'self_attn.q_norm.weight', [D], norm], [p + 'self_attn.k_norm.weight', [D], norm]);
    t.push([p + 'mlp.gate_proj.weight', [I, H], 'w'], [p + 'mlp.up_proj.weight', [I, H], 'w'],
      [p + 'mlp.down_proj.weight', [H, I], 'w'], [p + 'input_layernorm.weight', [H], norm],
      [p + 'post_attention_layernorm.weight', [H], norm]);
    if (gemma) t.push([p + 'pre_feedforward_layernorm.weight', [H], norm], [p + 'post_feedforward_layernorm.weight', [H], norm]);
  }
  t.push(['model.norm.weight', [H], norm]);
  if (c.tie_word_embeddings === false) t.push(['lm_head.weight', [V, H], 'w']);
  return t;
}

export function tensorTable(config) {
  switch (config.model_type) {
    case 'gpt_neox': return gptNeoxTensors(config);
    case 'gpt_neo': return gptNeoTensors(config);
    case 't5': return t5Tensors(config);
    case 'gemma3_text': return llamaLikeTensors({ tie_word_embeddings: true, ...config }, true);
    case 'llama': return llamaLikeTensors(config, false);
    default: throw new Error(`no tensor table for model_type ${config.model_type}`);
  }
}

/** Names and shapes of a safetensors file's header, as { name: shape }. */
function headerShapes(file) {
  const buf = readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  const h = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  delete h.__metadata__;
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, v.shape]));
}

/** The family's table, built for its tiny fixture's config.json, equals that fixture's header. */
export function checkAgainstFixture(name) {
  const fx = join(FIXTURES, MODELS[name].fixture);
  const config = JSON.parse(readFileSync(join(fx, 'config.json'), 'utf8'));
  const mine = Object.fromEntries(tensorTable(config).map(([n, s]) => [n, s]));
  const theirs = headerShapes(join(fx, 'model.safetensors'));
  const problems = [];
  for (const [n, s] of Object.entries(theirs))
    if (!(n in mine)) problems.push(`missing ${n}`);
    else if (JSON.stringify(mine[n]) !== JSON.stringify(s)) problems.push(`${n}: ${JSON.stringify(mine[n])} vs fixture ${JSON.stringify(s)}`);
  for (const n of Object.keys(mine)) if (!(n in theirs)) problems.push(`extra ${n}`);
  if (problems.length) throw new Error(`${name}: tensor table differs from ${MODELS[name].fixture}: ${problems.slice(0, 5).join('; ')}`);
}

// ---- random BF16 values -------------------------------------------------------------------

/** xorshift128 (32-bit words; fast, seeded, good enough for random weights). */
function rng(seed) {
  let a = seed >>> 0 || 1, b = 0x9e3779b9, c = 0x243f6a88, d = 0xb7e15162;
  const next = () => {
    const t = a ^ (a << 11);
    a = b; b = c; c = d;
    d = (d ^ (d >>> 19) ^ (t ^ (t >>> 8))) >>> 0;
    return (d + 0.5) / 4294967296;  // (0, 1)
  };
  for (let i = 0; i < 16; i++) next();  // mix the seed through before the first value
  return next;
}

const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
/** f32 -> bf16 bits, round to nearest even (values here are finite). */
function bf16(x) {
  f32[0] = x;
  const bits = u32[0];
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}
const BF16_ONE = bf16(1);

function fill(out, kind, next, std) {
  if (kind === 'b' || kind === 'z') { out.fill(0); return; }
  if (kind === 'n') { out.fill(BF16_ONE); return; }
  // Box–Muller: two normals per pair of uniforms.
  for (let i = 0; i < out.length; i += 2) {
    const r = std * Math.sqrt(-2 * Math.log(next())), th = 2 * Math.PI * next();
    out[i] = bf16(r * Math.cos(th));
    if (i + 1 < out.length) out[i + 1] = bf16(r * Math.sin(th));
  }
}

// ---- writing ---------------------------------------------------------------------------

const numel = (shape) => shape.reduce((a, b) => a * b, 1);

/** A safetensors header for `tensors` (sorted by name, as safetensors writes them), padded
 *  with spaces to a multiple of 8 bytes; returns the header bytes and the data order. */
function header(tensors) {
  const sorted = [...tensors].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const h = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const [name, shape] of sorted) {
    const bytes = 2 * numel(shape);
    h[name] = { dtype: 'BF16', shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  let text = JSON.stringify(h);
  text += ' '.repeat((8 - ((8 + Buffer.byteLength(text)) % 8)) % 8);
  const json = Buffer.from(text, 'utf8'), len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return { bytes: Buffer.concat([len, json]), order: sorted };
}

/** Each tensor draws from its own stream (seeded by the model's and the tensor's names), so
 *  its values do not depend on how the checkpoint is sharded. */
function writeSafetensors(file, tensors, model, std) {
  const { bytes, order } = header(tensors);
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, bytes);
    for (const [name, shape, kind] of order) {
      const data = new Uint16Array(numel(shape));
      fill(data, kind, rng(seedOf(`${model}/${name}`)), std);
      writeSync(fd, new Uint8Array(data.buffer));
    }
  } finally {
    closeSync(fd);
  }
}

function seedOf(name) {
  let h = 2166136261;
  for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h >>> 0;
}

/**
 * Writes <out>/<name>/ and returns { dir, params, weightBytes, shards, ms }.
 * shardMb: shards of at most that many MB (1e6 bytes) of tensor data when the model is
 * larger (0: always one model.safetensors); force: shard even when it would fit in one.
 */
export function writeModel(name, out, { shardMb = 256, force = false } = {}) {
  const m = MODELS[name];
  if (!m) throw new Error(`unknown model ${name}; known: ${Object.keys(MODELS).join(', ')}`);
  checkAgainstFixture(name);
  const started = performance.now();
  const dir = join(out, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tensors = tensorTable(m.config);
  const params = tensors.reduce((a, [, s]) => a + numel(s), 0), weightBytes = 2 * params;
  const limit = shardMb * 1e6;
  const groups = [];
  if (shardMb > 0 && (force || weightBytes > limit)) {
    let cur = [], size = 0;
    for (const t of tensors) {
      const b = 2 * numel(t[1]);
      if (cur.length && size + b > limit) { groups.push(cur); cur = []; size = 0; }
      cur.push(t); size += b;
    }
    if (cur.length) groups.push(cur);
  } else {
    groups.push(tensors);
  }
  writeFileJson(join(dir, 'config.json'), m.config);
  if (groups.length === 1 && !force) {
    writeSafetensors(join(dir, 'model.safetensors'), tensors, name, 0.02);
  } else {
    const n = groups.length, pad = (k) => String(k).padStart(5, '0');
    const weightMap = {};
    groups.forEach((g, i) => {
      const file = `model-${pad(i + 1)}-of-${pad(n)}.safetensors`;
      writeSafetensors(join(dir, file), g, name, 0.02);
      for (const [t] of g) weightMap[t] = file;
    });
    const sortedMap = Object.fromEntries(Object.keys(weightMap).sort().map((k) => [k, weightMap[k]]));
    writeFileJson(join(dir, 'model.safetensors.index.json'), { metadata: { total_size: weightBytes }, weight_map: sortedMap });
  }
  return { dir, params, weightBytes, shards: groups.length, ms: performance.now() - started };
}

function writeFileJson(file, value) {
  const fd = openSync(file, 'w');
  writeSync(fd, JSON.stringify(value, null, 2) + '\n');
  closeSync(fd);
}

// ---- command line ------------------------------------------------------------------------

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const opt = (k, d) => { const i = args.indexOf(k); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
  const out = opt('--out', join(ROOT, 'build/real-models'));
  const shardMb = Number(opt('--shard-mb', 256));
  const checkOnly = args.includes('--check');
  const force = args.includes('--force-shards');
  const names = args.filter((a) => !a.startsWith('--'));
  const list = names.length ? names : Object.keys(MODELS);
  for (const name of list) {
    if (checkOnly) { checkAgainstFixture(name); console.log(`${name}: table matches ${MODELS[name].fixture}`); continue; }
    const r = writeModel(name, out, { shardMb, force });
    console.log(`${name}: ${(r.params / 1e6).toFixed(1)}M params, ${(r.weightBytes / 1e6).toFixed(1)} MB BF16, `
      + `${r.shards} file${r.shards > 1 ? 's' : ''} -> ${r.dir} (${(r.ms / 1000).toFixed(1)} s)`);
  }
  if (!checkOnly && existsSync(out)) console.log(`folders in ${out}: ${readdirSync(out).join(', ')}`);
}
