// The typed messages between the page (Engine) and the worker that owns the WASM
// module. Tensors cross as flat Float32Array + dims, transferred, never nested arrays.
//
// Legend: T tokens, C model width (d_model), H heads, D = C/H head size.

/** A float32 row-major tensor: data.length equals the product of dims. */
export interface FloatTensor {
  data: Float32Array;
  dims: number[];
}

export interface EngineInfo {
  version: string;
  simdArch: string;
  /** Threads the engine's kernels use: 1 = the single-threaded build (load_module.ts). */
  threads: number;
  /** Threads they use at the moment of asking: fewer than `threads` while the threaded
   *  build's pool is still loading (its first ~0.1 s), else the same. */
  threadsNow: number;
}

/** Weights in PyTorch nn.MultiheadAttention's layout (fused in_proj) or nn.Linear ones. */
export type AttentionWeights =
  | { kind: 'seeded'; seed: number }
  | { kind: 'fused'; wQkv: Float32Array; bQkv?: Float32Array; wOut: Float32Array; bOut?: Float32Array }
  | {
      kind: 'separate';
      wQ: Float32Array; bQ?: Float32Array;
      wK: Float32Array; bK?: Float32Array;
      wV: Float32Array; bV?: Float32Array;
      wOut: Float32Array; bOut?: Float32Array;
    };

/** One self-attention block run by the engine's attention lab. */
export interface AttentionRequest {
  /** Tokens; their embeddings come from the engine's seeded generator unless `x` is given. */
  tokens: string[];
  dModel: number;
  heads: number;
  /** Seeds the token embeddings (and the weights when `weights` is absent). */
  seed: number;
  /** (T, C) inputs; overrides the seeded token embeddings. */
  x?: Float32Array;
  weights?: AttentionWeights;
  causal?: boolean;
  /** Local attention: keys with |i - j| <= window; 0 or absent = all keys. */
  window?: number;
  /** (T): 1 = padding key, masked for every query. */
  padding?: Uint8Array;
}

/** Every step of the block, as the engine computed it. */
export interface AttentionResult {
  tokens: string[];
  x: FloatTensor;            // (T, C)
  q: FloatTensor;            // (H, T, D)
  k: FloatTensor;            // (H, T, D)
  v: FloatTensor;            // (H, T, D)
  scores: FloatTensor;       // (H, T, T) q·kᵀ
  scaledScores: FloatTensor; // (H, T, T) q·kᵀ/√D, before the mask
  masked: FloatTensor;       // (T, T) 1 = masked
  probs: FloatTensor;        // (H, T, T) softmax over keys
  headOut: FloatTensor;      // (H, T, D)
  out: FloatTensor;          // (T, C)
  /** Milliseconds spent inside the worker for this request. */
  workerMs: number;
}

// ---- models -----------------------------------------------------------------------

/** A tensor with its engine name ("dec.3.attn.probs"). */
export interface NamedTensor extends FloatTensor {
  name: string;
}

/**
 * A model's files, as the worker receives them. Weights are read straight into the
 * module's heap: a File or a URL is streamed chunk by chunk, an ArrayBuffer is
 * transferred to the worker (the caller's copy is detached) and copied once.
 */
export type WeightsSource = { kind: 'buffer'; data: ArrayBuffer } | { kind: 'file'; file: Blob } | { kind: 'url'; url: string }
  /** Bytes as they arrive (a Hub download, engine/hub_load.ts): `size` bytes, transferred. */
  | ({ kind: 'stream' } & SizedStream)
  /** A sharded checkpoint: model.safetensors.index.json and the files it may name (by name). */
  | { kind: 'shards'; index: TextSource; shards: ShardSource[] };
export interface SizedStream { stream: ReadableStream<Uint8Array>; size: number }
/** One shard: a file, or a stream of its bytes as they arrive. */
export type ShardSource = { name: string; file: Blob } | ({ name: string } & SizedStream);
/** `optional`: a URL answering 404 means "no such file" (a folder without tokenizer.json). */
export type TextSource =
  | { kind: 'text'; text: string }
  | { kind: 'file'; file: Blob }
  | { kind: 'url'; url: string; optional?: boolean };

export interface LoadArgs {
  name: string;
  config: TextSource;
  weights: WeightsSource;
  tokenizer?: TextSource;
  /** What the matrices are held as (tfp_model_files_set_precision); absent: as stored. */
  precision?: 'f32' | 'f16' | 'int8';
}

/** Loading stages: reading bytes (weights stream into the heap), parsing config,
 * tokenizer and safetensors and binding the weights (one engine call), bound (done). */
export interface LoadProgress {
  stage: 'reading' | 'parsing' | 'binding';
  /** Weight bytes read so far, and their total (0 when the server did not say). */
  bytes: number;
  total: number;
}

/** What the engine says about a loaded model (tfp_model_info_json). */
export interface ModelInfo {
  source: string;
  family: string;
  architecture: 'encoder_only' | 'decoder_only' | 'encoder_decoder';
  config: Record<string, unknown>;
  d_model: number;
  n_heads: number;
  n_encoder_layers: number;
  n_decoder_layers: number;
  d_ff: number;
  vocab_size: number;
  max_positions: number;
  /** A recurrent encoder–decoder's longest output (its max_positions is the source's). */
  max_target_tokens?: number;
  has_embeddings: boolean;
  parameters: number;
  eos_token_id: number;
  /** config.json's decoder_start_token_id (encoder–decoders), -1 when it has none; the
   * engine starts translate's decoder from it when no start id is given. */
  decoder_start_token_id: number;
  /** What "logits" are: next-token ("lm"), [MASK]-filling vocabulary logits per token
   * ("masked_lm", e.g. BertForMaskedLM), per-token labels, or none (hidden states). */
  head?: 'lm' | 'masked_lm' | 'token_classifier' | 'none';
  /** The tokenizer's [MASK] id, -1 when it has none. */
  mask_token_id?: number;
  /** false for a model without self-attention maps (the recurrent encoder–decoder). */
  self_attention?: boolean;
  /** Recurrent models (model_type tfp_gru_seq2seq): what the layers really are. Their
   * only attention is additive cross-attention, reported as 1 decoder layer × 1 head. */
  model_type?: string;
  recurrent?: {
    cell: 'gru'; bidirectional_encoder: boolean; embed_dim: number; encoder_hidden: number;
    decoder_hidden: number; attention: 'additive'; attention_dim: number;
  };
  /** "words" when the model reads vectors and came without tokenizer.json: tokenize then
   * splits text into words and punctuation (ids only mark equal tokens). */
  tokenizer_fallback?: 'words' | null;
  /** The matrices as held (model/precision.h) and the bytes of every weight as held. */
  precision?: 'f32' | 'f16' | 'bf16' | 'int8' | 'mixed';
  weights_bytes?: number;
  /** The checkpoint's tensors its family's modeling code ignores, which the loader skipped
   *  (causal-mask and rotary buffers, T5's unused cross-attention relative bias): the first
   *  20 names, and how many there are. Absent for the recurrent model. */
  ignored_tensors?: string[];
  ignored_tensor_count?: number;
  tokenizer: null | {
    vocab_size: number;
    special: { unk: number; pad: number; cls: number; sep: number; mask: number; bos: number; eos: number };
  };
}

export interface TokenizeResult {
  ids: Int32Array;
  tokens: string[];
  /** (T, 2) [begin, end) of each token in UTF-16 units: text.slice(begin, end). */
  offsets: Int32Array;
  /** (T) 1 = special/added token. */
  specialMask: Uint8Array;
}

export interface ForwardArgs {
  ids: Int32Array;
  /** Instead of ids: the worker tokenizes this text itself (special tokens added, as
   *  tokenize does) and runs the first maxTokens ids (result.ids says which), so a page can
   *  ask for a text's pass together with its tokens, without waiting for them. */
  fromText?: { text: string; maxTokens: number };
  attention?: boolean;
  tokenTypeIds?: Int32Array;
  /** Hugging Face convention: 1 = real token, 0 = padding. */
  attentionMask?: Int32Array;
  /** Encoder-decoder models: the decoder's input ids (teacher forcing). */
  tgtIds?: Int32Array;
  /** Masked-LM models: also the top fillers of every mask, from this pass's logits
   *  (tfp_fill_mask_logits: no second forward pass). maskId must be given. */
  fillMask?: { topK: number; maskId: number };
  /** Which rows get logits (tfp_forward_params.logits_last): 0 or absent every row, k > 0
   *  the last k, -1 none. */
  logitsLast?: number;
  /** Language models: also the next token's topN candidates, from this pass's last row of
   *  logits (tfp_top_tokens_logits: what a generator's first step reports, no second pass).
   *  The pass computes that row even when logitsLast is -1 (it is then not returned). */
  next?: { topN: number };
}

export interface ForwardResult {
  /** (T, V) when the model has a head; (k, V) for the last k rows with logitsLast = k. */
  logits?: FloatTensor;
  /** (T, C) last hidden states. */
  hidden: FloatTensor;
  /** (T) each hidden row's Euclidean length (the engine's "hidden_norm"). */
  hiddenNorm: FloatTensor;
  /** (T) with logits: each row's most probable id or label (the engine's "argmax"). */
  argmax?: FloatTensor;
  /** "enc.i.attn.probs" / "dec.i.attn.probs" (H, T, T), "dec.i.cross.probs" (H, T, S). */
  attention: NamedTensor[];
  workerMs: number;
  /** When args.fillMask was given and the model returned logits. */
  fillMask?: FillMaskResult;
  /** When args.next was given and the model has an LM head: the next token's candidates,
   *  most probable first, probabilities at temperature 1. */
  next?: TokenChoice[];
  /** With args.fromText: the ids the pass ran on. */
  ids?: Int32Array;
}

export interface GenerateArgs {
  prompt: Int32Array;
  maxTokens: number;
  temperature: number;
  topK: number;
  topP: number;
  seed: number;
  /** Stop after any of these ids; absent = the model's eos. */
  stop?: number[];
  topN: number;
}

export interface TokenChoice {
  id: number;
  prob: number;
  token: string;
}

/** One generated token, as it was produced. */
export interface GeneratedToken {
  id: number;
  /** The vocabulary's spelling ("Ġthe"). */
  token: string;
  /** What it adds to the decoded text ("" while a character is spelled by several tokens). */
  text: string;
  /** Its probability at temperature 1. */
  prob: number;
  /** The most probable tokens at this step, most probable first. */
  top: TokenChoice[];
  /** Set on the last token: why generation stopped there. */
  stopReason?: 'max_tokens' | 'eos' | 'context_full';
}

/** Masked-LM models: the most probable fillers of every mask in ids. */
export interface FillMaskArgs {
  ids: Int32Array;
  topK: number;
  /** The mask id; absent = the tokenizer's [MASK]. */
  maskId?: number;
  tokenTypeIds?: Int32Array;
  attentionMask?: Int32Array;
}

/** One mask of the input and what the engine predicts there, most probable first
 * (softmax over the vocabulary computed in the engine). */
export interface MaskFill {
  position: number;
  candidates: TokenChoice[];
}

export interface FillMaskResult {
  masks: MaskFill[];
  workerMs: number;
}

export interface TranslateArgs {
  ids: Int32Array;
  beamSize: number;
  maxTokens: number;
  startId: number;
  eosId: number;
}

export interface TranslateResult {
  /** Output ids, the end token included when the decoder produced it. */
  ids: Int32Array;
  tokens: string[];
  /** The decoded output without the end token (special tokens skipped): a model whose end
   * mark is a plain character ("." in numbers-transformer) would otherwise show it. */
  text: string;
  /** (T, S) the last decoder layer's cross-attention, mean over heads. */
  alignment: FloatTensor;
  /** "dec.i.cross.probs" (H, T, S) per layer. */
  crossAttention: NamedTensor[];
}

/** The query–key drill-down of one attention row (tfp_model_attention_steps). The model
 * runs on the same inputs as `forward`; set/layer/head/query pick the row. */
export interface AttentionStepsArgs {
  ids: Int32Array;
  tokenTypeIds?: Int32Array;
  /** Hugging Face convention: 1 = real token, 0 = padding. */
  attentionMask?: Int32Array;
  /** Encoder-decoder models: the decoder input ids (needed for 'dec' and 'cross'). */
  tgtIds?: Int32Array;
  /** 'enc' encoder self-attention, 'dec' decoder self-attention, 'cross' cross-attention. */
  set: 'enc' | 'dec' | 'cross';
  layer: number;  // 0-based, as every index here
  head: number;
  query: number;
}

/** Every step of the row, from the engine (Tk keys, D = C/H). */
export interface AttentionStepsResult {
  q: FloatTensor;         // (D) the query vector
  k: FloatTensor;         // (Tk, D) every key
  v: FloatTensor;         // (Tk, D) every value
  scores: FloatTensor;    // (Tk) q·k_j
  scaled: FloatTensor;    // (Tk) q·k_j / √D
  bias: FloatTensor;      // (Tk) additive mask / positional bias (0 where masked)
  mask: FloatTensor;      // (Tk) 1 = key masked for this query
  logits: FloatTensor;    // (Tk) scaled + bias, -Infinity where masked
  probs: FloatTensor;     // (Tk) softmax: the forward pass's attention row
  weightedV: FloatTensor; // (Tk, D) probs_j · v_j
  out: FloatTensor;       // (D) Σ_j probs_j · v_j: the head's output for the query
  scale: number;          // the block's score scale: 1/√D, or the model's own (T5, GPT-Neo 1; Gemma query_pre_attn_scalar^-½)
  /** (Tk) softcap·tanh(scaled/softcap) (Gemma 2); = scaled when softcap is 0. */
  capped?: FloatTensor;
  /** The attention soft-cap, 0 = none. */
  softcap?: number;
  /** How many leading dimensions of q and k RoPE rotated (0: no RoPE; < D: partial rotary). */
  rotaryDims?: number;
  /** The layer's local-attention window in keys (0 = global). */
  window?: number;
  workerMs: number;
}

/** One attention block's head factors (tfp_model_set_head_mask): head h's output
 * (probs·v, before the out-projection) is multiplied by scales[h]; 0 switches it off. */
export interface HeadMaskEntry {
  set: 'enc' | 'dec' | 'cross';
  layer: number;          // 0-based
  scales: Float32Array;   // (H) one factor per head
}

/** What the head mask changes (tfp_model_head_mask_effect): the model without, then with it. */
export type HeadMaskEffect =
  /** Decoder-only: the next token after the last position; ids = either run's top k. */
  | { kind: 'next-token'; ids: Int32Array; tokens: string[]; before: Float32Array; after: Float32Array }
  /** Masked LM with [MASK]s in ids: each mask's top fillers (tfp_model_fill_mask), row m of
   *  the (M, K) arrays for the mask at positions[m], most probable first. */
  | { kind: 'fill-mask'; positions: Int32Array; k: number; beforeIds: Int32Array; afterIds: Int32Array;
      beforeTokens: string[]; afterTokens: string[]; beforeProbs: Float32Array; afterProbs: Float32Array }
  /** Encoder-only with a head (no [MASK] to fill): the most probable label/token per position. */
  | { kind: 'per-token'; before: Int32Array; after: Int32Array; beforeTokens: string[]; afterTokens: string[];
      beforeProbs: Float32Array; afterProbs: Float32Array }
  /** Encoder-decoder: translations with beam `beamSize` (1 = greedy), as tfp_model_translate. */
  | { kind: 'translation'; beamSize: number; before: Int32Array; after: Int32Array; beforeTokens: string[]; afterTokens: string[] };

/** The logit lens (tfp_model_logit_lens) of a decoder-only model, or of an encoder-decoder's
 * decoder (ids = source, tgtIds = decoder input). */
export interface LogitLensArgs {
  ids: Int32Array;
  tgtIds?: Int32Array;
  topK: number;
}

/** Row 0 = the embeddings, row l+1 = after decoder layer l (the last = the model's output). */
export interface LogitLensResult {
  ids: FloatTensor;     // (L+1, T, K) token ids (as floats), most probable first
  probs: FloatTensor;   // (L+1, T, K)
  tokens: string[];     // (L+1)·T·K the vocabulary's spelling of each id
  workerMs: number;
}

/** One call of tfp_model_activation_patching (src/api/tfp_patch_api.h): `kinds` its bits
 * (1 resid, 2 attn_out, 4 mlp_out, 8 head_all, 16 head_pos, 32 head_q, 64 head_k, 128 head_v,
 * 256 head_pattern), `layer` -1 or one layer. */
export interface PatchingArgs {
  clean: Int32Array;
  corrupted: Int32Array;
  answer: number;
  foil: number;
  kinds: number;
  layer: number;
}

/** Its reply: "metric" (clean logit diff, corrupted logit diff, clean logprob, corrupted
 * logprob) and each sweep's "<kind>.logit_diff", ".logprob" (and "_norm" ones when defined). */
export interface PatchingPart {
  tensors: NamedTensor[];
  workerMs: number;
}

/** Zero or mean ablation of each head's output (tfp_model_head_ablation). */
export interface HeadAblationArgs {
  ids: Int32Array;
  answer: number;
  foil: number;
  mode: 'zero' | 'mean';
}

export interface HeadAblationResult {
  /** The metric without ablation. */
  logitDiff: number;
  logprob: number;
  /** (L, H) the metric with head (l, h) ablated. */
  ablatedLogitDiff: FloatTensor;
  ablatedLogprob: FloatTensor;
  workerMs: number;
}

/** Direct logit attribution (tfp_model_logit_attribution, src/api/tfp_attribution_api.h):
 * logit(answer) − logit(foil) at the last position of `ids`, split into the parts of the
 * residual stream there, each through the final norm with the run's scale frozen
 * (TransformerLens's apply_ln_to_stack) and the LM head without its bias. */
export interface LogitAttributionArgs {
  ids: Int32Array;
  answer: number;
  foil: number;
}

/** Gradient attribution on the token embeddings (tfp_model_gradient_attribution,
 * src/api/tfp_attribution_api.h; Captum's conventions: the token table's rows, positions
 * kept). The metric at `position` (absent: the last): 'logit_diff' = logit(answer) −
 * logit(foil), 'logprob' = log p(answer); BERT: its masked-LM logits there. */
export interface GradientAttributionArgs {
  ids: Int32Array;
  answer: number;
  foil: number;
  metric: 'logit_diff' | 'logprob';
  /** Integrated gradients' midpoints (0 = skip them; at most 4096). */
  steps: number;
  position?: number;
}

export interface GradientAttributionResult {
  /** The metric at the input, and with every token row 0 (the baseline). */
  metric: number;
  baseline: number;
  /** (T) Σ over the width of gradient × input; (T) the gradient's L2 norm. */
  gradXInput: Float32Array;
  gradNorm: Float32Array;
  /** (T) integrated gradients from the zero baseline; null when steps = 0. */
  integrated: Float32Array | null;
  /** Σ integrated, and its gap to metric − baseline (completeness: → 0 as steps grow). */
  integratedSum: number | null;
  completenessGap: number | null;
  steps: number;
  workerMs: number;
}

/** One range of integrated gradients' midpoints (tfp_model_integrated_gradients): steps
 * first .. first + count − 1 of `steps`. The ranges of 0..steps−1 add up to
 * GradientAttributionResult.integrated. */
export interface IntegratedGradientsArgs extends GradientAttributionArgs {
  first: number;
  count: number;
}

export interface IntegratedGradientsPart {
  /** (T) these steps' share of integrated gradients. */
  integrated: Float32Array;
  /** The metric with every token row 0; only in the range that ends at `steps`. */
  baseline: number | null;
  workerMs: number;
}

export interface LogitAttributionResult {
  /** The forward pass's logit(answer) − logit(foil). */
  metric: number;
  /** Every term below added; `residual` = sum − metric (float rounding). */
  sum: number;
  residual: number;
  /** The token embedding (all of the embeddings when the model normalises them). */
  embed: number;
  /** The learned position embedding; null where the model has none (rotary, ALiBi). */
  posEmbed: number | null;
  /** (L, H) each head's output at the last position. */
  heads: FloatTensor;
  /** (L) each attention output projection's bias; (L) each MLP's output. */
  attnBias: Float32Array;
  mlp: Float32Array;
  /** The final norm's bias and the LM head's bias. */
  normBias: number;
  /** (L+1) the residual stream before block l (the last: after the last block), through
   *  the same frozen norm, plus normBias: its last entry is the metric. */
  accumulated: Float32Array;
  workerMs: number;
}

/** The steps' tensors, in the order the worker transfers them. */
export const ATTENTION_STEPS_TENSORS = [
  'q', 'k', 'v', 'scores', 'scaled', 'bias', 'mask', 'logits', 'probs', 'weightedV', 'out',
] as const;

// ---- models that read vectors (PyTorch nn.Transformer checkpoints) -----------------

/** One input sequence of a model that reads vectors (info.has_embeddings false): rows the
 * caller has, or tokens the engine turns into rows — its seeded vector per token text
 * (tfp_seeded_token_embeddings: same text, same vector), plus, with `positions`, the
 * sinusoidal encoding of each position (tfp_sinusoidal_positions). */
export type EmbeddingInput =
  | { kind: 'vectors'; x: Float32Array; dims: [number, number] }  // (L, C) row-major
  | { kind: 'tokens'; tokens: string[]; seed: number; positions: boolean };

/** tfp_model_forward_embeddings. src: the encoder's input (a bare nn.TransformerDecoder:
 * its memory); tgt: the decoder's input (absent for an encoder-only model). */
export interface ForwardEmbeddingsArgs {
  src: EmbeddingInput;
  tgt?: EmbeddingInput;
  /** 1 = padding key (PyTorch key_padding_mask true). */
  srcPadding?: Uint8Array;
  tgtPadding?: Uint8Array;
  /** Causal self-attention of the encoder (src) / of the decoder (tgt). */
  causalSrc?: boolean;
  causalTgt?: boolean;
}

export interface ForwardEmbeddingsResult {
  /** The vectors the model read: (S, C) and (T, C). */
  src: FloatTensor;
  tgt?: FloatTensor;
  /** The module's output (T, C), or (S, C) for an encoder; its rows' lengths (T). */
  hidden: FloatTensor;
  hiddenNorm: FloatTensor;
  /** nn.Transformer: the encoder's output (S, C). */
  memory?: FloatTensor;
  /** "enc.i.attn.probs" (H, S, S), "dec.i.attn.probs" (H, T, T), "dec.i.cross.probs" (H, T, S). */
  attention: NamedTensor[];
  workerMs: number;
}

/** The drill-down of one row of a model that reads vectors (same inputs as the forward). */
export interface AttentionStepsEmbeddingsArgs extends ForwardEmbeddingsArgs {
  set: 'enc' | 'dec' | 'cross';
  layer: number;
  head: number;
  query: number;
}

/** Attention rollout (Abnar & Zuidema) over a stack of self-attention layers. */
export interface RolloutArgs {
  /** Each layer's maps (H, T, T), in forward order. */
  layers: FloatTensor[];
  /** α in [0, 1], the weight of the residual path; default 0.5 (as the paper). */
  residual?: number;
  /** How heads combine; default 'mean'. */
  fusion?: 'mean' | 'max' | 'min';
}

/** Which keys each query of a map was allowed to see, for head statistics (the engine
 *  leaves out rows with fewer than two: they had no choice to make). */
export interface HeadStatsOptions {
  /** Query i saw keys j <= i + Tk − Tq only (decoder self-attention). Default false. */
  causal?: boolean;
  /** (Tq, Tk), 1 = key j was masked for query i (key padding: the padded keys in every
   *  row, the padded queries' whole rows); the same for every map. */
  masked?: Uint8Array;
}

/** The tokens a map was computed on, for the head finders (tfp_attention_head_scores):
 *  they end with `repeat` tokens given twice (TransformerLens: prefix, R random tokens,
 *  the same R again). */
export interface HeadScoresOptions {
  tokens: Int32Array;
  repeat: number;
  /** TransformerLens detect_head's flags (default false, as there): column 0 resp. the
   *  diagonal of the map left out of both sums. The plain scores ignore them. */
  excludeBos?: boolean;
  excludeCurrent?: boolean;
}

/** One self-attention layer of Model.headFinders(): per head its map on the repeated
 *  sequence and its scores. */
export interface HeadFinderLayer {
  /** "dec.i.attn.probs" / "enc.i.attn.probs". */
  name: string;
  set: 'enc' | 'dec';
  layer: number;
  /** (H, T, T) */
  probs: FloatTensor;
  /** (H, 6): TransformerLens detect_head "mul" previous, duplicate, induction, then the
   *  plain definitions over the second repeat (head_finders.mjs HEAD_SCORE_COLUMNS). */
  scores: FloatTensor;
  /** (H, 4): entropy (nats), mean distance (tokens), first-token share, previous-token
   *  share over the informative rows (Engine.headStats; HEAD_STAT_COLUMNS). */
  stats: FloatTensor;
}

export interface HeadFindersResult {
  /** The sequence the pass ran on: prefixId, R random ids, the same R again. */
  ids: Int32Array;
  seed: number;
  repeat: number;
  prefixId: number;
  layers: HeadFinderLayer[];
}

export type Request =
  | { id: number; kind: 'info' }
  | { id: number; kind: 'attention'; args: AttentionRequest }
  | { id: number; kind: 'load'; args: LoadArgs }
  | { id: number; kind: 'random-model'; config: string; tokenizer?: string; seed: number }
  /** config.json alone, checked as a load would (tfp_config_check): before weights are fetched. */
  | { id: number; kind: 'check-config'; config: string; name: string }
  | { id: number; kind: 'dispose'; model: number }
  | { id: number; kind: 'tokenize'; model: number; text: string; addSpecialTokens: boolean }
  | { id: number; kind: 'decode'; model: number; ids: Int32Array; skipSpecialTokens: boolean }
  | { id: number; kind: 'forward'; model: number; args: ForwardArgs }
  | { id: number; kind: 'generate-start'; model: number; args: GenerateArgs }
  | { id: number; kind: 'generate-next'; generator: number }
  | { id: number; kind: 'generate-stop'; generator: number }
  | { id: number; kind: 'translate'; model: number; args: TranslateArgs }
  | { id: number; kind: 'attention-steps'; model: number; args: AttentionStepsArgs }
  | { id: number; kind: 'forward-embeddings'; model: number; args: ForwardEmbeddingsArgs }
  | { id: number; kind: 'attention-steps-embeddings'; model: number; args: AttentionStepsEmbeddingsArgs }
  | { id: number; kind: 'fill-mask'; model: number; args: FillMaskArgs }
  | { id: number; kind: 'head-mask'; model: number; entries: HeadMaskEntry[] }
  | { id: number; kind: 'head-mask-effect'; model: number; ids: Int32Array; topK: number; beamSize: number }
  | { id: number; kind: 'logit-lens'; model: number; args: LogitLensArgs }
  | { id: number; kind: 'activation-patching'; model: number; args: PatchingArgs }
  | { id: number; kind: 'logit-attribution'; model: number; args: LogitAttributionArgs }
  | { id: number; kind: 'gradient-attribution'; model: number; args: GradientAttributionArgs }
  | { id: number; kind: 'integrated-gradients'; model: number; args: IntegratedGradientsArgs }
  | { id: number; kind: 'head-ablation'; model: number; args: HeadAblationArgs }
  | { id: number; kind: 'memory' }
  /** Tests only (tests/browser/worker_restart.test.mjs): the module traps, as an
   *  out-of-bounds access or an abort() would, and the worker stops (Engine restarts it). */
  | { id: number; kind: 'crash' }
  | { id: number; kind: 'learn'; name: string; args: unknown }
  | { id: number; kind: 'rollout'; args: RolloutArgs }
  | { id: number; kind: 'head-stats'; maps: FloatTensor[]; options?: HeadStatsOptions }
  | { id: number; kind: 'head-scores'; maps: FloatTensor[]; options: HeadScoresOptions };

export type Reply =
  | { id: number; ok: true; kind: 'info'; result: EngineInfo }
  | { id: number; ok: true; kind: 'attention'; result: AttentionResult }
  /** Sent during a load, before its final reply. */
  | { id: number; ok: true; kind: 'progress'; progress: LoadProgress }
  | { id: number; ok: true; kind: 'load'; result: { model: number; info: ModelInfo } }
  | { id: number; ok: true; kind: 'dispose' }
  | { id: number; ok: true; kind: 'check-config' }
  | { id: number; ok: true; kind: 'tokenize'; result: TokenizeResult }
  | { id: number; ok: true; kind: 'decode'; result: string }
  | { id: number; ok: true; kind: 'forward'; result: ForwardResult }
  | { id: number; ok: true; kind: 'generate-start'; result: { generator: number } }
  | { id: number; ok: true; kind: 'generate-next'; result: GeneratedToken | null }
  | { id: number; ok: true; kind: 'generate-stop' }
  | { id: number; ok: true; kind: 'translate'; result: TranslateResult }
  | { id: number; ok: true; kind: 'attention-steps'; result: AttentionStepsResult }
  | { id: number; ok: true; kind: 'forward-embeddings'; result: ForwardEmbeddingsResult }
  | { id: number; ok: true; kind: 'attention-steps-embeddings'; result: AttentionStepsResult }
  | { id: number; ok: true; kind: 'fill-mask'; result: FillMaskResult }
  | { id: number; ok: true; kind: 'head-mask' }
  | { id: number; ok: true; kind: 'head-mask-effect'; result: HeadMaskEffect }
  | { id: number; ok: true; kind: 'logit-lens'; result: LogitLensResult }
  | { id: number; ok: true; kind: 'activation-patching'; result: PatchingPart }
  | { id: number; ok: true; kind: 'logit-attribution'; result: LogitAttributionResult }
  | { id: number; ok: true; kind: 'gradient-attribution'; result: GradientAttributionResult }
  | { id: number; ok: true; kind: 'integrated-gradients'; result: IntegratedGradientsPart }
  | { id: number; ok: true; kind: 'head-ablation'; result: HeadAblationResult }
  /** The module's heap size in bytes (it grows, never shrinks) and live handles. */
  | { id: number; ok: true; kind: 'memory'; result: { heapBytes: number; models: number; generators: number } }
  | { id: number; ok: true; kind: 'learn'; result: unknown }
  /** (L, T, T): slice l is the rollout after layer l. */
  | { id: number; ok: true; kind: 'rollout'; result: FloatTensor }
  /** Per map, (H, 4): entropy, mean distance, first-token share, previous-token share. */
  | { id: number; ok: true; kind: 'head-stats'; result: FloatTensor[] }
  | { id: number; ok: true; kind: 'head-scores'; result: FloatTensor[] }
  | { id: number; ok: false; error: string }
  /** The module trapped or aborted (out of memory, an out-of-bounds access): its state is
   *  lost, and the worker closes after this reply. */
  | { id: number; ok: false; error: string; fatal: true }
  /** Sent once, unsolicited, when the module failed to start. */
  | { id: -1; ok: false; error: string };

/** The result's tensors, in the order the worker transfers them. */
export const ATTENTION_TENSORS = [
  'x', 'q', 'k', 'v', 'scores', 'scaledScores', 'masked', 'probs', 'headOut', 'out',
] as const;
