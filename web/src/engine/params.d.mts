// Types of params.mjs: the fields each C params struct has (src/api/tfp_api.h), so that
// TypeScript checks the names the worker writes; params.mjs checks them again, at run
// time, against the module's own layout (tfp_params_layout_json).
import type { TfpModule } from './tfp_module.mjs';

/** Pointers are heap byte offsets; every field is optional (left at its C default). */
export interface ParamsFields {
  tfp_forward_params: {
    ids?: number; n?: number; token_type_ids?: number; attention_mask?: number; tgt_ids?: number; n_tgt?: number;
    want_attention?: number; logits_last?: number;
  };
  tfp_embeddings_params: {
    C?: number; src?: number; S?: number; tgt?: number; T?: number; src_padding?: number; tgt_padding?: number;
    flags?: number;
  };
  tfp_fill_mask_params: {
    ids?: number; n?: number; token_type_ids?: number; attention_mask?: number; mask_id?: number; top_k?: number;
  };
  tfp_generator_params: {
    prompt?: number; n?: number; max_tokens?: number; temperature?: number; top_k?: number; top_p?: number;
    seed?: number; stop_ids?: number; n_stop?: number; top_n?: number;
  };
  tfp_translate_params: {
    src_ids?: number; n?: number; beam_size?: number; max_tokens?: number; start_id?: number; eos_id?: number;
  };
  tfp_patching_params: {
    clean?: number; corrupted?: number; n?: number; answer?: number; foil?: number; kinds?: number; layer?: number;
  };
  tfp_attn_lab_weights_params: {
    w_q?: number; b_q?: number; w_k?: number; b_k?: number; w_v?: number; b_v?: number; w_out?: number; b_out?: number;
  };
  tfp_learn_additive_params: {
    s?: number; Tq?: number; Cs?: number; h?: number; Tk?: number; Ch?: number; W?: number; b?: number; U?: number;
    v?: number; A?: number;
  };
  tfp_learn_sparse_params: {
    kind?: number; T?: number; window?: number; dilation?: number; n_global?: number; causal?: number;
  };
  tfp_learn_encoder_depth_params: {
    C?: number; H?: number; F?: number; T?: number; L?: number; activation?: number; norm_first?: number; seed?: number;
  };
  tfp_learn_relative_bias_params: {
    bucketing?: number; bidirectional?: number; num_buckets?: number; max_distance?: number; T?: number; seed?: number;
  };
  tfp_learn_softmax_params: {
    scores?: number; n?: number; temperature?: number; masked?: number; variant?: number;
  };
  tfp_learn_efficiency_params: {
    d?: number; heads?: number; lengths?: number; n_lengths?: number; kind?: number; window?: number; dilation?: number;
    n_global?: number; repeats?: number; seed?: number;
  };
}
export type ParamsStruct = keyof ParamsFields;

export interface ParamsLayout {
  size: number;
  /** field → [byte offset, 'i32' | 'u32' | 'f32' | 'ptr'], in declaration order */
  fields: Record<string, [number, 'i32' | 'u32' | 'f32' | 'ptr']>;
}

export function paramsLayout(m: TfpModule, struct: ParamsStruct): ParamsLayout;
export function writeParams<S extends ParamsStruct>(m: TfpModule, struct: S, ptr: number, values: ParamsFields[S]): void;
export function withParams<S extends ParamsStruct, R>(m: TfpModule, struct: S, values: ParamsFields[S],
                                                      body: (ptr: number) => R): R;
