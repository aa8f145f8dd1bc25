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

export type Request =
  | { id: number; kind: 'info' }
  | { id: number; kind: 'attention'; args: AttentionRequest };

export type Reply =
  | { id: number; ok: true; kind: 'info'; result: EngineInfo }
  | { id: number; ok: true; kind: 'attention'; result: AttentionResult }
  | { id: number; ok: false; error: string }
  /** Sent once, unsolicited, when the module failed to start. */
  | { id: -1; ok: false; error: string };

/** The result's tensors, in the order the worker transfers them. */
export const ATTENTION_TENSORS = [
  'x', 'q', 'k', 'v', 'scores', 'scaledScores', 'masked', 'probs', 'headOut', 'out',
] as const;
