// Types for the Emscripten factory built by cmake/wasm_module.cmake (tfp.mjs). Copied
// next to it as wasm/tfp.d.mts by the build. Only what the worker and tests use.
// Pointers are byte offsets into the module's heap (wasm32: numbers).

export interface TfpModule {
  /** The heap as bytes. Re-read at every use: memory growth replaces the buffer. */
  readonly HEAPU8: Uint8Array;
  UTF8ToString(ptr: number, maxBytes?: number): string;

  _tfp_last_error(): number;
  _tfp_version(): number;
  _tfp_unicode_version(): number;
  _tfp_simd_arch(): number;
  // Threads (tfp_threads_api.h): 1 in tfp.mjs; up to tfp_max_threads() in tfp_mt.mjs.
  _tfp_set_threads(n: number): number;
  _tfp_threads(): number;
  _tfp_max_threads(): number;
  /** tfp_mt.mjs only: resolves once its pool's workers have loaded; ask for more than 1
   *  thread only then (cmake/wasm_module_mt_post.js). */
  tfpPoolLoaded?(): Promise<void>;
  _tfp_alloc(bytes: number): number;
  _tfp_free(ptr: number): void;
  /** Writes 3 doubles at out: heap size, heap high-water mark, bytes malloc'd now. */
  _tfp_memory_stats(out: number): void;

  // Params structs (tfp_api.h "parameter structs"), written by params.mjs from this layout.
  _tfp_params_layout_json(): number;
  _tfp_forward_params_init(p: number): void;
  _tfp_embeddings_params_init(p: number): void;
  _tfp_fill_mask_params_init(p: number): void;
  _tfp_generator_params_init(p: number): void;
  _tfp_translate_params_init(p: number): void;

  _tfp_tensors_free(list: number): void;
  _tfp_tensors_count(list: number): number;
  _tfp_tensors_find(list: number, name: number): number;
  _tfp_tensors_name(list: number, i: number): number;
  _tfp_tensors_rank(list: number, i: number): number;
  _tfp_tensors_dims(list: number, i: number): number;
  _tfp_tensors_data(list: number, i: number): number;
  _tfp_tensors_numel(list: number, i: number): number;

  _tfp_seeded_token_embeddings(bytes: number, lengths: number, nTokens: number, C: number,
                               seed: number, out: number): number;

  _tfp_attn_lab_create(C: number, H: number, seed: number, out: number): number;
  _tfp_attn_lab_free(lab: number): void;
  _tfp_attn_lab_seed_weights(lab: number, seed: number): number;
  _tfp_attn_lab_set_weights_fused(lab: number, wQkv: number, bQkv: number, wOut: number,
                                  bOut: number): number;
  _tfp_attn_lab_weights_params_init(p: number): void;
  _tfp_attn_lab_set_weights_separate(lab: number, params: number): number;
  _tfp_attn_lab_set_mask(lab: number, causal: number, window: number): number;
  _tfp_attn_lab_set_key_padding(lab: number, padding: number, T: number): number;
  _tfp_attn_lab_run(lab: number, x: number, T: number, out: number): number;

  _tfp_model_files_create(weightsBytes: number, out: number): number;
  _tfp_model_files_free(files: number): void;
  _tfp_model_files_weights(files: number): number;
  _tfp_model_files_set_config(files: number, text: number, bytes: number): number;
  _tfp_model_files_add_shard(files: number, name: number, bytes: number, data: number): number;
  _tfp_model_files_set_index(files: number, text: number, bytes: number): number;
  _tfp_model_files_set_tokenizer(files: number, text: number, bytes: number): number;
  _tfp_model_files_set_name(files: number, name: number): number;
  _tfp_model_files_set_precision(files: number, precision: number): number;
  _tfp_model_files_stream_begin(files: number, weightsBytes: number): number;
  _tfp_model_files_stream_next(files: number, bytes: number, where: number): number;
  _tfp_model_files_stream_commit(files: number, bytes: number): number;
  _tfp_model_files_stream_shard_begin(files: number, name: number, bytes: number): number;
  _tfp_model_load(files: number, out: number): number;
  _tfp_model_load_buffers(config: number, configBytes: number, weights: number, weightsBytes: number,
                          tokenizer: number, tokenizerBytes: number, name: number, out: number): number;
  _tfp_model_create_random(config: number, configBytes: number, tokenizer: number, tokenizerBytes: number,
                           seed: number, out: number): number;
  _tfp_config_check(config: number, configBytes: number, name: number): number;
  _tfp_model_free(model: number): void;
  _tfp_model_info_json(model: number): number;

  _tfp_model_tokenize(model: number, text: number, bytes: number, addSpecial: number, out: number): number;
  _tfp_encoding_free(enc: number): void;
  _tfp_encoding_count(enc: number): number;
  _tfp_encoding_ids(enc: number): number;
  _tfp_encoding_offsets_utf16(enc: number): number;
  _tfp_encoding_offsets_bytes(enc: number): number;
  _tfp_encoding_special_mask(enc: number): number;
  _tfp_encoding_tokens_json(enc: number): number;
  _tfp_model_id_to_token(model: number, id: number): number;
  _tfp_model_decode(model: number, ids: number, n: number, skipSpecial: number): number;

  _tfp_model_forward(model: number, params: number, out: number): number;
  _tfp_model_logits(model: number, hidden: number, n: number, vBegin: number, vEnd: number, out: number): number;

  _tfp_generator_create(model: number, params: number, out: number): number;
  _tfp_generator_free(gen: number): void;
  _tfp_generator_next(gen: number, id: number, prob: number, done: number): number;
  _tfp_generator_finished(gen: number): number;
  _tfp_generator_stop_reason(gen: number): number;
  _tfp_generator_text(gen: number): number;
  _tfp_generator_top(gen: number, ids: number, probs: number, cap: number): number;

  _tfp_model_fill_mask(model: number, params: number, positions: number, outIds: number, outProbs: number,
                       nMasked: number): number;
  _tfp_fill_mask_logits(logits: number, V: number, params: number, positions: number, outIds: number,
                        outProbs: number, nMasked: number): number;
  _tfp_top_tokens_logits(logits: number, V: number, topN: number, outIds: number, outProbs: number, nOut: number): number;

  _tfp_model_set_head_mask(model: number, set: number, layer: number, scales: number, nHeads: number): number;
  _tfp_model_clear_head_mask(model: number): number;
  _tfp_model_head_mask_effect(model: number, ids: number, n: number, topK: number, beamSize: number, out: number): number;
  _tfp_model_logit_lens(model: number, ids: number, n: number, tgtIds: number, nTgt: number, topK: number,
                        out: number): number;
  _tfp_model_attention_steps(model: number, params: number, set: number, layer: number, head: number, query: number,
                             out: number): number;

  // Models that read vectors (PyTorch nn.Transformer checkpoints): tfp_api.h / tfp_inspect_api.h.
  _tfp_model_forward_embeddings(model: number, params: number, out: number): number;
  _tfp_model_attention_steps_embeddings(model: number, params: number, set: number, layer: number, head: number,
                                        query: number, out: number): number;
  _tfp_sinusoidal_positions(pos0: number, T: number, C: number, add: number, out: number): number;

  // tfp_inspect_api.h: maths on attention maps the caller has (attention_maths.ts).
  _tfp_attention_rollout(probs: number, L: number, H: number, T: number, residual: number, fusion: number,
                         out: number): number;
  _tfp_attention_head_stats(probs: number, H: number, Tq: number, Tk: number, out: number): number;
  _tfp_learn_time_gru_attention(d: number, heads: number, lengths: number, nLengths: number, repeats: number, seed: number, out: number): number;
  // tfp_learn_gradient_api.h: a gradient passed back through T recurrent steps (learn_calls/gradient.ts).
  _tfp_learn_gradient_steps(cell: number, H: number, T: number, gain: number, updateBias: number, seed: number,
                            norms: number, gates: number): number;
  _tfp_attention_head_stats_masked(probs: number, H: number, Tq: number, Tk: number, causal: number, masked: number,
                                   out: number): number;
  _tfp_patching_params_init(p: number): void;
  _tfp_model_activation_patching(model: number, params: number, out: number): number;
  _tfp_model_head_ablation(model: number, ids: number, n: number, answer: number, foil: number, mode: number, out: number): number;
  _tfp_model_logit_attribution(model: number, ids: number, n: number, answer: number, foil: number, out: number): number;
  _tfp_model_gradient_attribution(model: number, ids: number, n: number, answer: number, foil: number, metric: number, steps: number, position: number, out: number): number;
  _tfp_model_integrated_gradients(model: number, ids: number, n: number, answer: number, foil: number, metric: number, steps: number, first: number, count: number, position: number, out: number): number;
  _tfp_attention_head_scores(probs: number, H: number, T: number, tokens: number, repeat: number, flags: number,
                             out: number): number;

  _tfp_model_translate(model: number, params: number, outIds: number, capacity: number, outLen: number,
                       alignment: number): number;
  // tfp_learn_additive_api.h: the Learn chapter on additive attention (learn_calls/additive.ts).
  _tfp_learn_additive_params_init(p: number): void;
  _tfp_learn_additive_attention(params: number, out: number): number;
  _tfp_learn_additive_gru_steps(model: number, src: number, n: number, maxTokens: number, outIds: number,
                                capacity: number, outLen: number, out: number): number;
  // tfp_learn_softmax_api.h: the Learn chapter on softmax (learn_calls/softmax.ts).
  _tfp_learn_softmax_params_init(p: number): void;
  _tfp_learn_softmax_row(params: number, logits: number, exps: number, probs: number, stats: number): number;
  _tfp_learn_softmax_temperatures(scores: number, n: number, masked: number, temperatures: number, m: number, probs: number): number;
  // tfp_learn_multihead_api.h: the Learn chapter on multi-head attention (learn_calls/multihead.ts).
  _tfp_learn_mha_cost(dModel: number, heads: number, tokens: number, bias: number, out: number): number;
  // tfp_learn_scaling_api.h: the Learn chapter on √d_k (learn_calls/scaling.ts).
  _tfp_learn_scaling_stats(dks: number, nDk: number, nKeys: number, samples: number, seed: number, out: number): number;
  _tfp_learn_scaling_row(dK: number, nKeys: number, sample: number, seed: number, scores: number, probs: number): number;
  // tfp_learn_encoder_api.h: the Learn chapter on the encoder layer (learn_calls/encoder.ts).
  _tfp_learn_layer_norm(x: number, T: number, C: number, gamma: number, beta: number, eps: number, out: number): number;
  _tfp_learn_encoder_depth_params_init(p: number): void;
  _tfp_learn_encoder_depth(params: number, out: number): number;
  _tfp_learn_activation(kind: number, x: number, n: number, y: number): number;
  _tfp_learn_tagger_layers(model: number, ids: number, n: number, out: number): number;
  // tfp_learn_generation_api.h: the Learn chapter on generation (learn_calls/generation.ts).
  _tfp_learn_sampling_probs(logits: number, V: number, temperature: number, topK: number, topP: number, raw: number, warped: number, kept: number): number;
  _tfp_learn_kv_cache_size(model: number, positions: number, out: number): number;
  _tfp_learn_kv_cache_size_config(config: number, bytes: number, positions: number, out: number): number;
  _tfp_learn_generation_timing(model: number, params: number, lengths: number, nLengths: number, out: number,
                               idsWith: number, idsWithout: number): number;
  _tfp_learn_beam_search(model: number, prompt: number, n: number, beamSize: number, maxTokens: number, lengthPenalty: number,
                         eosId: number, ids: number, result: number, trace: number): number;
  // tfp_learn_efficiency_api.h: the Learn chapter on efficiency (learn_calls/efficiency.ts).
  _tfp_learn_sparse_params_init(p: number): void;
  _tfp_learn_sparse_pattern(params: number, out: number, pairs: number): number;
  _tfp_learn_sparse_reach(params: number, layers: number, out: number, farthest: number): number;
  _tfp_learn_efficiency_params_init(p: number): void;
  _tfp_learn_efficiency_timing(params: number, out: number): number;
  _tfp_learn_int8_model(model: number, ids: number, n: number, out: number): number;
  _tfp_learn_linear_attention(q: number, k: number, v: number, T: number, D: number, Dv: number, causal: number, out: number): number;
  // tfp_learn_positions_api.h: the Learn chapter on positional encoding (learn_calls/positions.ts).
  _tfp_learn_sinusoidal_table(T: number, C: number, layout: number, out: number, dots: number): number;
  _tfp_learn_sinusoidal_frequencies(C: number, layout: number, out: number): number;
  _tfp_learn_sinusoidal_shift(C: number, pair: number, p: number, k: number, out: number): number;
  _tfp_learn_position_similarity(model: number, P: number, out: number, rows: number): number;
  _tfp_learn_relative_bias_params_init(p: number): void;
  _tfp_learn_relative_bias(params: number, table: number, buckets: number, bias: number): number;
  _tfp_learn_rope_score(q: number, k: number, D: number, pairing: number, m: number, n: number, out: number): number;
  _tfp_learn_alibi(H: number, T: number, symmetric: number, slopes: number, bias: number): number;
  // tfp_learn_training_api.h and the trainer (tfp_api.h): the Learn chapter on training (learn_calls/training.ts).
  _tfp_learn_lr_schedule(peak: number, floor: number, warmup: number, total: number, decay: number, n: number, out: number): number;
  _tfp_learn_cross_entropy(logits: number, targets: number, n: number, V: number, labelSmoothing: number, out: number): number;
  _tfp_trainer_create(task: number, options: number, bytes: number, seed: number, out: number): number;
  _tfp_trainer_free(trainer: number): void;
  _tfp_trainer_step(trainer: number, n: number, losses: number): number;
  _tfp_trainer_step_stats(trainer: number, n: number, stats: number): number;
  _tfp_trainer_set_lr(trainer: number, lr: number): number;
  _tfp_trainer_evaluate(trainer: number, seq: number, tok: number, loss: number): number;
  _tfp_trainer_info_json(trainer: number): number;
  _tfp_trainer_attention(trainer: number, prompt: number, out: number): number;
  _tfp_trainer_attention_tokens(trainer: number, source: number): number;
  _tfp_trainer_generate(trainer: number, prompt: number, answer: number): number;
  _tfp_trainer_export(trainer: number, config: number, configBytes: number, weights: number, weightsBytes: number,
                      tokenizer: number, tokenizerBytes: number): number;
}

export interface TfpModuleOptions {
  /** The .wasm bytes, for hosts where the default fetch cannot load it (Node tests). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
  /** Instantiates the .wasm itself (engine/load_module.ts: from a fetch begun early);
   *  calls done(instance, module) when ready and returns {} meanwhile. */
  instantiateWasm?: (imports: WebAssembly.Imports,
                     done: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) => object;
}

declare function createTfp(options?: TfpModuleOptions): Promise<TfpModule>;
export default createTfp;
