// The model side of the C API, called from Node the way the page's worker calls it
// (web/src/engine/models.ts): staged loads with the weights written into the heap once,
// tokenize, forward, generators, translate. Heap views are made at each use.
import { readFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Api } from './tfp_module.mjs';
import { withParams } from '../../web/src/engine/params.mjs';

export const CHECKPOINTS = fileURLToPath(new URL('../fixtures/checkpoints/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const MODELS = `${ROOT}models/`;
const enc = new TextEncoder();

/** The native CLI (tools/test.sh builds build/native first); null when absent. */
export function nativeCli() {
  const path = process.env.TFP_CLI ?? `${ROOT}build/native/tfp`;
  return existsSync(path) ? path : null;
}
export function runCli(cli, args) {
  return JSON.parse(execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

/** A model folder's files as ModelApi.load takes them (tokenizer null when it has none). */
function readModelFiles(dir) {
  return {
    config: readFileSync(`${dir}config.json`, 'utf8'),
    weights: new Uint8Array(readFileSync(`${dir}model.safetensors`)),
    tokenizer: existsSync(`${dir}tokenizer.json`) ? readFileSync(`${dir}tokenizer.json`, 'utf8') : null,
  };
}
/** A test fixture's files (tests/fixtures/checkpoints/<name>/). */
export const readFixture = (name) => readModelFiles(`${CHECKPOINTS}${name}/`);
/** A shipped model's files (models/<name>/). */
export const readShipped = (name) => readModelFiles(`${MODELS}${name}/`);
/** Whether models/<name>/ has its weights (the shipped models are not in every checkout). */
export const hasShipped = (name) => existsSync(`${MODELS}${name}/model.safetensors`);

export class ModelApi extends Api {
  out(fn) {
    const slot = this.m._tfp_alloc(4);
    try {
      this.check(fn(slot));
      return this.u32(slot);
    } finally {
      this.m._tfp_free(slot);
    }
  }
  withBytes(bytes, fn) {
    const p = this.put(bytes);
    try {
      return fn(p, bytes.byteLength);
    } finally {
      this.m._tfp_free(p);
    }
  }
  /** `a` as Int32Array (null stays null: an absent optional input). */
  ints(a) {
    return a ? Int32Array.from(a) : null;
  }
  /** Runs fn(put): put(bytes) copies a typed array into the heap (null/undefined -> 0,
   * the C API's "absent"); everything put is freed when fn returns or throws. */
  withHeap(fn) {
    const ptrs = [];
    try {
      return fn((a) => {
        if (!a) return 0;
        const p = this.put(a);
        ptrs.push(p);
        return p;
      });
    } finally {
      ptrs.forEach((p) => this.m._tfp_free(p));
    }
  }

  /** Loads { config, weights, tokenizer } through the staged path; returns the model pointer. */
  load({ config, weights, tokenizer }, name = 'fixture', precision = '') {
    const files = this.out((s) => this.m._tfp_model_files_create(weights.byteLength, s));
    try {
      this.m.HEAPU8.set(weights, this.m._tfp_model_files_weights(files));
      this.withBytes(enc.encode(config), (p, n) => this.check(this.m._tfp_model_files_set_config(files, p, n)));
      if (tokenizer !== null && tokenizer !== undefined)
        this.withBytes(enc.encode(tokenizer), (p, n) => this.check(this.m._tfp_model_files_set_tokenizer(files, p, n)));
      this.withBytes(enc.encode(name + '\0'), (p) => this.check(this.m._tfp_model_files_set_name(files, p)));
      if (precision) this.withBytes(enc.encode(precision + '\0'), (p) => this.check(this.m._tfp_model_files_set_precision(files, p)));
      return this.out((s) => this.m._tfp_model_load(files, s));
    } finally {
      this.m._tfp_model_files_free(files);
    }
  }
  /** The same, the weights streamed in `piece`-byte pieces (tfp_model_files_stream_*) as the
   * page streams a file, held in `precision`. */
  loadStreamed({ config, weights, tokenizer }, { name = 'fixture', precision = '', piece = 4096 } = {}) {
    const files = this.out((s) => this.m._tfp_model_files_create(0, s));
    try {
      this.withBytes(enc.encode(config), (p, n) => this.check(this.m._tfp_model_files_set_config(files, p, n)));
      if (tokenizer !== null && tokenizer !== undefined)
        this.withBytes(enc.encode(tokenizer), (p, n) => this.check(this.m._tfp_model_files_set_tokenizer(files, p, n)));
      this.withBytes(enc.encode(name + '\0'), (p) => this.check(this.m._tfp_model_files_set_name(files, p)));
      if (precision) this.withBytes(enc.encode(precision + '\0'), (p) => this.check(this.m._tfp_model_files_set_precision(files, p)));
      this.check(this.m._tfp_model_files_stream_begin(files, weights.byteLength));
      for (let at = 0; at < weights.byteLength; at += piece) {
        const part = weights.subarray(at, at + piece);
        const where = this.out((s) => this.m._tfp_model_files_stream_next(files, part.length, s));
        this.m.HEAPU8.set(part, where);  // a view made after the call: the heap may have grown
        this.check(this.m._tfp_model_files_stream_commit(files, part.length));
      }
      return this.out((s) => this.m._tfp_model_load(files, s));
    } finally {
      this.m._tfp_model_files_free(files);
    }
  }
  /** A sharded checkpoint ({ name, bytes } shards and the index's text), each shard reserved
   * whole (tfp_model_files_add_shard) or, with `stream`, streamed in `piece`-byte pieces
   * (tfp_model_files_stream_shard_begin) as the page streams them; held in `precision`. */
  loadShards({ config, shards, index }, { name = 'fixture', precision = '', stream = false, piece = 4096 } = {}) {
    const files = this.out((s) => this.m._tfp_model_files_create(0, s));
    try {
      this.withBytes(enc.encode(config), (p, n) => this.check(this.m._tfp_model_files_set_config(files, p, n)));
      this.withBytes(enc.encode(name + '\0'), (p) => this.check(this.m._tfp_model_files_set_name(files, p)));
      if (precision) this.withBytes(enc.encode(precision + '\0'), (p) => this.check(this.m._tfp_model_files_set_precision(files, p)));
      for (const shard of shards) {
        const n = enc.encode(shard.name + '\0');
        if (!stream) {
          const data = this.withBytes(n, (p) => this.out((s) => this.m._tfp_model_files_add_shard(files, p, shard.bytes.length, s)));
          this.m.HEAPU8.set(shard.bytes, data);  // a view made after the call: the heap may have grown
          continue;
        }
        this.withBytes(n, (p) => this.check(this.m._tfp_model_files_stream_shard_begin(files, p, shard.bytes.length)));
        for (let at = 0; at < shard.bytes.length; at += piece) {
          const part = shard.bytes.subarray(at, at + piece);
          const where = this.out((s) => this.m._tfp_model_files_stream_next(files, part.length, s));
          this.m.HEAPU8.set(part, where);
          this.check(this.m._tfp_model_files_stream_commit(files, part.length));
        }
      }
      this.withBytes(enc.encode(index), (p, n) => this.check(this.m._tfp_model_files_set_index(files, p, n)));
      return this.out((s) => this.m._tfp_model_load(files, s));
    } finally {
      this.m._tfp_model_files_free(files);
    }
  }
  random(config, tokenizer, seed) {
    const c = enc.encode(config), t = tokenizer ? enc.encode(tokenizer) : null;
    return this.withBytes(c, (pc, nc) => (t
      ? this.withBytes(t, (pt, nt) => this.out((s) => this.m._tfp_model_create_random(pc, nc, pt, nt, seed, s)))
      : this.out((s) => this.m._tfp_model_create_random(pc, nc, 0, 0, seed, s))));
  }
  free(model) {
    this.m._tfp_model_free(model);
  }
  info(model) {
    return JSON.parse(this.m.UTF8ToString(this.m._tfp_model_info_json(model)));
  }

  tokenize(model, text) {
    const e = this.withBytes(enc.encode(text), (p, n) => this.out((s) => this.m._tfp_model_tokenize(model, p, n, 1, s)));
    try {
      const n = this.m._tfp_encoding_count(e), b = this.m.HEAPU8.buffer;
      return {
        ids: Array.from(new Int32Array(b, this.m._tfp_encoding_ids(e), n)),
        offsets: Array.from(new Int32Array(b, this.m._tfp_encoding_offsets_utf16(e), 2 * n)),
        tokens: JSON.parse(this.m.UTF8ToString(this.m._tfp_encoding_tokens_json(e))),
      };
    } finally {
      this.m._tfp_encoding_free(e);
    }
  }

  forward(model, ids, { attention = false, tokenTypeIds = null, attentionMask = null, tgtIds = null } = {}) {
    return this.withHeap((put) => this.tensors(this.out((s) => withParams(this.m, 'tfp_forward_params', {
      ids: put(this.ints(ids)), n: ids.length, token_type_ids: put(this.ints(tokenTypeIds)),
      attention_mask: put(this.ints(attentionMask)), tgt_ids: put(this.ints(tgtIds)), n_tgt: tgtIds ? tgtIds.length : 0,
      want_attention: attention ? 1 : 0,
    }, (params) => this.m._tfp_model_forward(model, params, s)))));
  }

  /** tfp_model_fill_mask: per mask { position, ids, probs } (topK each, fewer when V < topK). */
  fillMask(model, ids, { topK = 10, maskId = -1 } = {}) {
    const n = ids.length, p = this.put(this.ints(ids));
    const buf = this.m._tfp_alloc(4 + 4 * n + 8 * n * topK);
    try {
      const pos = buf + 4, outIds = pos + 4 * n, outProbs = outIds + 4 * n * topK;
      this.check(withParams(this.m, 'tfp_fill_mask_params', { ids: p, n, mask_id: maskId, top_k: topK },
        (params) => this.m._tfp_model_fill_mask(model, params, pos, outIds, outProbs, buf)));
      const count = this.u32(buf), heap = this.m.HEAPU8.buffer;
      const all = new Int32Array(heap, outIds, count * topK), probs = new Float32Array(heap, outProbs, count * topK);
      return Array.from(new Int32Array(heap, pos, count), (position, r) => {
        const row = Array.from(all.subarray(r * topK, (r + 1) * topK));
        const k = row.includes(-1) ? row.indexOf(-1) : topK;
        return { position, ids: row.slice(0, k), probs: Array.from(probs.subarray(r * topK, r * topK + k)) };
      });
    } finally {
      this.m._tfp_free(p);
      this.m._tfp_free(buf);
    }
  }

  /** tfp_model_attention_steps: every step of one attention row, { name: { dims, data } }
   * (q, k, v, scores, scaled, bias, mask, logits, probs, weighted_v, out, scale). */
  attentionSteps(model, ids, { set, layer, head, query, tgtIds = null, tokenTypeIds = null, attentionMask = null }) {
    return this.withHeap((put) => this.tensors(this.out((slot) => withParams(this.m, 'tfp_forward_params', {
      ids: put(this.ints(ids)), n: ids.length, token_type_ids: put(this.ints(tokenTypeIds)),
      attention_mask: put(this.ints(attentionMask)), tgt_ids: put(this.ints(tgtIds)), n_tgt: tgtIds ? tgtIds.length : 0,
    }, (params) => this.m._tfp_model_attention_steps(model, params, put(this.cstrBytes(set)), layer, head, query, slot)))));
  }

  /** The rows a model that reads vectors gets for `tokens`, as the page's worker makes them
   * (web/src/engine/embeddings.ts): the engine's seeded vector per token text, plus, with
   * `positions`, tfp_sinusoidal_positions added in the engine. (T, C) Float32Array. */
  embeddingRows(tokens, C, { seed = 1, positions = true } = {}) {
    const x = this.embeddings(tokens, C, seed);
    if (!positions || tokens.length === 0) return x;
    const p = this.put(x);
    try {
      this.check(this.m._tfp_sinusoidal_positions(0, tokens.length, C, 1, p));
      return new Float32Array(this.m.HEAPU8.buffer, p, x.length).slice();
    } finally {
      this.m._tfp_free(p);
    }
  }

  /** tfp_model_forward_embeddings (src (S, C), tgt (T, C) or null; padding 1 = pad):
   * { hidden, hidden_norm, memory?, '*.probs' } as { dims, data }. */
  forwardEmbeddings(model, C, src, tgt = null, { srcPadding = null, tgtPadding = null, causalSrc = false, causalTgt = false } = {}) {
    const flags = (causalSrc ? 1 : 0) | (causalTgt ? 2 : 0);
    return this.withHeap((put) => this.tensors(this.out((s) => withParams(this.m, 'tfp_embeddings_params', {
      C, src: put(src), S: src.length / C, tgt: put(tgt), T: tgt ? tgt.length / C : 0,
      src_padding: put(srcPadding && Uint8Array.from(srcPadding)), tgt_padding: put(tgtPadding && Uint8Array.from(tgtPadding)),
      flags,
    }, (params) => this.m._tfp_model_forward_embeddings(model, params, s)))));
  }

  /** tfp_model_attention_steps_embeddings: the drill-down of one row on those inputs. */
  attentionStepsEmbeddings(model, C, src, tgt, { set, layer, head, query, causalSrc = false, causalTgt = false }) {
    const flags = (causalSrc ? 1 : 0) | (causalTgt ? 2 : 0);
    return this.withHeap((put) => this.tensors(this.out((slot) => withParams(this.m, 'tfp_embeddings_params', {
      C, src: put(src), S: src.length / C, tgt: put(tgt), T: tgt ? tgt.length / C : 0, flags,
    }, (params) => this.m._tfp_model_attention_steps_embeddings(model, params, put(this.cstrBytes(set)), layer, head,
      query, slot)))));
  }

  /** Runs a generator to the end (or `limit` tokens); returns ids, probs, text, reason. */
  generate(model, prompt, { maxTokens = 20, temperature = 1, topK = 0, topP = 1, seed = 0, stop = null, limit = Infinity } = {}) {
    const p = this.put(this.ints(prompt));
    const st = stop ? this.put(this.ints(stop.length ? stop : [0])) : 0;
    let gen = 0;
    try {
      gen = this.out((s) => withParams(this.m, 'tfp_generator_params', {
        prompt: p, n: prompt.length, max_tokens: maxTokens, temperature, top_k: topK, top_p: topP, seed: seed >>> 0,
        stop_ids: st, n_stop: stop ? stop.length : -1, top_n: 5,
      }, (params) => this.m._tfp_generator_create(model, params, s)));
      const buf = this.m._tfp_alloc(12);
      const r = { ids: [], probs: [], text: '', reason: '' };
      try {
        while (r.ids.length < limit) {
          this.check(this.m._tfp_generator_next(gen, buf, buf + 4, buf + 8));
          const v = new DataView(this.m.HEAPU8.buffer);
          if (v.getInt32(buf + 8, true)) break;
          r.ids.push(v.getInt32(buf, true));
          r.probs.push(v.getFloat32(buf + 4, true));
          r.text += this.m.UTF8ToString(this.m._tfp_generator_text(gen));
        }
        r.reason = this.m.UTF8ToString(this.m._tfp_generator_stop_reason(gen));
        return r;
      } finally {
        this.m._tfp_free(buf);
      }
    } finally {
      this.m._tfp_generator_free(gen);
      this.m._tfp_free(p);
      if (st) this.m._tfp_free(st);
    }
  }

  /** tfp_model_set_head_mask for each { set, layer, scales } after a clear: the model's
   * whole mask becomes `entries` ([] = none). */
  setHeadMask(model, entries) {
    this.check(this.m._tfp_model_clear_head_mask(model));
    for (const { set, layer, scales } of entries) {
      const ps = this.cstr(set), pf = this.put(Float32Array.from(scales));
      try {
        this.check(this.m._tfp_model_set_head_mask(model, ps, layer, pf, scales.length));
      } finally {
        this.m._tfp_free(ps);
        this.m._tfp_free(pf);
      }
    }
  }

  /** tfp_model_head_mask_effect: { name: { dims, data } } (ids/before/after, argmax_* and prob_*,
   *  or mask_positions, fill_ids_* and fill_probs_*); beamSize: an encoder-decoder's decoding. */
  headMaskEffect(model, ids, topK = 8, beamSize = 1) {
    const p = this.put(this.ints(ids));
    try {
      return this.tensors(this.out((s) => this.m._tfp_model_head_mask_effect(model, p, ids.length, topK, beamSize, s)));
    } finally {
      this.m._tfp_free(p);
    }
  }

  /** tfp_model_logit_lens: { ids, probs } as { dims: [L+1, T, K], data }. */
  logitLens(model, ids, { topK = 5, tgtIds = null } = {}) {
    const p = this.put(this.ints(ids)), pt = tgtIds ? this.put(this.ints(tgtIds)) : 0;
    try {
      return this.tensors(this.out((s) => this.m._tfp_model_logit_lens(model, p, ids.length, pt, tgtIds ? tgtIds.length : 0, topK, s)));
    } finally {
      this.m._tfp_free(p);
      if (pt) this.m._tfp_free(pt);
    }
  }

  /** tfp_model_activation_patching: { metric, '<kind>.logit_diff', ... } as { dims, data }. */
  activationPatching(model, clean, corrupted, { answer, foil, kinds = 511, layer = -1 }) {
    return this.withHeap((put) => this.tensors(this.out((s) => withParams(this.m, 'tfp_patching_params', {
      clean: put(this.ints(clean)), corrupted: put(this.ints(corrupted)), n: clean.length, answer, foil, kinds, layer,
    }, (params) => this.m._tfp_model_activation_patching(model, params, s)))));
  }

  /** tfp_model_head_ablation (mode 0 zero, 1 mean): { metric, logit_diff, logprob }. */
  headAblation(model, ids, { answer, foil, mode = 0 }) {
    return this.withHeap((put) => this.tensors(this.out((s) =>
      this.m._tfp_model_head_ablation(model, put(this.ints(ids)), ids.length, answer, foil, mode, s))));
  }

  /** tfp_model_logit_attribution: { metric, embed, pos_embed?, heads, attn_bias, mlp, norm_bias, accumulated }. */
  logitAttribution(model, ids, { answer, foil }) {
    return this.withHeap((put) => this.tensors(this.out((s) =>
      this.m._tfp_model_logit_attribution(model, put(this.ints(ids)), ids.length, answer, foil, s))));
  }

  /** tfp_model_gradient_attribution (metric 0 logit difference, 1 log-probability):
   * { metric, grad_x_input, grad_norm, integrated?, completeness? }. */
  gradientAttribution(model, ids, { answer, foil, metric = 0, steps = 64, position = -1 }) {
    return this.withHeap((put) => this.tensors(this.out((s) =>
      this.m._tfp_model_gradient_attribution(model, put(this.ints(ids)), ids.length, answer, foil, metric, steps, position, s))));
  }

  translate(model, src, { beamSize = 1, maxTokens = 0, startId = -1, eosId = -1 } = {}) {
    const p = this.put(this.ints(src)), cap = 256, buf = this.m._tfp_alloc(8 + 4 * cap);
    try {
      this.check(withParams(this.m, 'tfp_translate_params', {
        src_ids: p, n: src.length, beam_size: beamSize, max_tokens: maxTokens, start_id: startId, eos_id: eosId,
      }, (params) => this.m._tfp_model_translate(model, params, buf + 8, cap, buf, buf + 4)));
      const n = this.u32(buf);
      return { ids: Array.from(new Int32Array(this.m.HEAPU8.buffer, buf + 8, n)), tensors: this.tensors(this.u32(buf + 4)) };
    } finally {
      this.m._tfp_free(p);
      this.m._tfp_free(buf);
    }
  }

  /** tfp_attention_rollout over `layers` (each { dims: [H, T, T], data }): L × T × T, as an array. */
  rollout(layers, residual, fusion) {
    const [H, T] = layers[0].dims;
    const L = layers.length;
    const all = new Float32Array(L * H * T * T);
    layers.forEach((l, i) => all.set(l.data, i * H * T * T));
    const p = this.put(all), o = this.m._tfp_alloc(L * T * T * 4);
    try {
      this.check(this.m._tfp_attention_rollout(p, L, H, T, residual, fusion, o));
      return Array.from(new Float32Array(this.m.HEAPU8.buffer, o, L * T * T));
    } finally {
      this.m._tfp_free(p);
      this.m._tfp_free(o);
    }
  }

  /** tfp_attention_head_stats of one map { dims: [H, Tq, Tk], data }: H × 4, as an array. */
  headStats(t) {
    const [H, Tq, Tk] = t.dims;
    const p = this.put(t.data), o = this.m._tfp_alloc(H * 16);
    try {
      this.check(this.m._tfp_attention_head_stats(p, H, Tq, Tk, o));
      return Array.from(new Float32Array(this.m.HEAPU8.buffer, o, H * 4));
    } finally {
      this.m._tfp_free(p);
      this.m._tfp_free(o);
    }
  }
}
