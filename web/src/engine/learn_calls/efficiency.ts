// The Learn chapter "Efficiency" (src/api/tfp_learn_efficiency_api.h): marshalling only.
// The engine draws a sparse pattern's (T, T) mask, times full, dense-masked, sparse and
// linear attention over lengths, and runs brown-gpt with int8 weights.
// Legend: T tokens, d model width, H heads, D = d/H.
import type { TfpModule } from '../wasm/tfp.mjs';
import { TfpError, type Calls } from '../calls';
import type { FloatTensor } from '../messages';
import { withParams } from '../params.mjs';
import type { LearnContext } from './context';

/** 0 window, 1 dilated, 2 global (nn/sparse_attention.h SparseKind). */
export type SparseKindId = 0 | 1 | 2;

export interface SparsePatternArgs {
  kind: SparseKindId;
  T: number;         // 1..1024
  window: number;    // w >= 0
  dilation: number;  // d >= 1 (dilated)
  nGlobal: number;   // g >= 0 (global)
  causal: boolean;
}

export interface SparsePatternResult {
  mask: Uint8Array;  // (T, T) row-major, 1 = query i may see key j
  pairs: number;     // the 1s
}

/** tfp_learn_sparse_pattern: the pattern as a (T, T) matrix. */
export function sparsePattern(c: Calls, m: TfpModule, a: SparsePatternArgs): SparsePatternResult {
  const n = a.T * a.T;
  return c.withBuffer(n + 8, (out) => {
    // The pairs double sits first (8-aligned), the mask after it.
    c.check(withParams(m, 'tfp_learn_sparse_params', {
      kind: a.kind, T: a.T, window: a.window, dilation: a.dilation, n_global: a.nGlobal, causal: a.causal ? 1 : 0,
    }, (p) => m._tfp_learn_sparse_pattern(p, out + 8, out)));
    return { mask: new Uint8Array(m.HEAPU8.buffer, out + 8, n).slice(), pairs: new Float64Array(m.HEAPU8.buffer, out, 1)[0]! };
  });
}

export interface SparseReachArgs extends SparsePatternArgs {
  layers: number;  // 1..16 (T 1..256)
}

export interface SparseReachResult {
  first: Int32Array;  // (T, T): first layer after which key j can influence query i; 0 = not within `layers`
  farthest: number;   // max |i − j| reached after `layers`
}

/** tfp_learn_sparse_reach: how far stacked layers of the pattern reach. */
export function sparseReach(c: Calls, m: TfpModule, a: SparseReachArgs): SparseReachResult {
  const n = a.T * a.T;
  return c.withBuffer(4 * n + 8, (out) => {
    c.check(withParams(m, 'tfp_learn_sparse_params', {
      kind: a.kind, T: a.T, window: a.window, dilation: a.dilation, n_global: a.nGlobal, causal: a.causal ? 1 : 0,
    }, (p) => m._tfp_learn_sparse_reach(p, a.layers, out + 8, out)));
    return { first: new Int32Array(m.HEAPU8.buffer, out + 8, n).slice(), farthest: new Float64Array(m.HEAPU8.buffer, out, 1)[0]! };
  });
}

export interface EfficiencyTimingArgs {
  d: number;
  heads: number;
  lengths: number[];  // 1..16 values, each 1..2048
  kind: SparseKindId;
  window: number;
  dilation: number;
  nGlobal: number;
  repeats: number;    // 1..20
  seed: number;
}

/** One row per length, the engine's columns (TFP_EFF_*). */
export interface EfficiencyRow {
  T: number;
  fullMs: number;       // all T² pairs
  maskedMs: number;     // the pattern as a dense -inf mask: still all T² pairs
  sparseMs: number;     // only the allowed pairs
  linearMs: number;     // linear attention
  scoreBytes: number;   // H·T²·4
  sparsePairs: number;  // allowed pairs per head
  sparseBytes: number;  // H·pairs·4
  linearBytes: number;  // H·(D² + D)·4
  sparseDiff: number;   // max |sparse − masked|
  linearRelErr: number; // ‖linear − full‖ / ‖full‖
}

const COLUMNS = 10;  // TFP_EFF_COLUMNS

export function efficiencyTiming(c: Calls, m: TfpModule, a: EfficiencyTimingArgs): { rows: EfficiencyRow[] } {
  const n = a.lengths.length;
  const lengths = Int32Array.from(a.lengths);
  const lp = c.put(new Uint8Array(lengths.buffer));
  try {
    return c.withBuffer(n * COLUMNS * 8, (out) => {
      c.check(withParams(m, 'tfp_learn_efficiency_params', {
        d: a.d, heads: a.heads, lengths: lp, n_lengths: n, kind: a.kind, window: a.window, dilation: a.dilation,
        n_global: a.nGlobal, repeats: a.repeats, seed: a.seed >>> 0,
      }, (p) => m._tfp_learn_efficiency_timing(p, out)));
      const v = new Float64Array(m.HEAPU8.buffer, out, n * COLUMNS).slice();
      return {
        rows: a.lengths.map((T, i): EfficiencyRow => {
          const r = v.subarray(i * COLUMNS, (i + 1) * COLUMNS);
          return {
            T, fullMs: r[0]!, maskedMs: r[1]!, sparseMs: r[2]!, linearMs: r[3]!, scoreBytes: r[4]!, sparsePairs: r[5]!,
            sparseBytes: r[6]!, linearBytes: r[7]!, sparseDiff: r[8]!, linearRelErr: r[9]!,
          };
        }),
      };
    });
  } finally {
    c.free(lp);
  }
}

export interface Int8ModelArgs {
  model: number;    // page handle of a loaded decoder model (Model.id)
  ids: Int32Array;  // 2..context token ids
}

export interface Int8ModelResult {
  maxLogitDiff: number;  // max |logit_int8 − logit_f32|
  pplF32: number;
  pplInt8: number;
  bytesF32: number;
  bytesInt8: number;
  quantised: number;     // weights stored in int8
  weights: number;       // all weights
  maxWeightErr: number;  // max |W' − W|
}

/** tfp_learn_int8_model: brown-gpt with int8 weights against float32 on the same ids. */
export function int8Model(c: Calls, m: TfpModule, a: Int8ModelArgs, ctx: LearnContext): Int8ModelResult {
  const model = ctx.modelPtr(a.model);
  const ids = c.put(new Uint8Array(a.ids.buffer, a.ids.byteOffset, a.ids.byteLength));
  try {
    return c.withBuffer(8 * 8, (out) => {
      c.check(m._tfp_learn_int8_model(model, ids, a.ids.length, out));
      const v = new Float64Array(m.HEAPU8.buffer, out, 8);
      return { maxLogitDiff: v[0]!, pplF32: v[1]!, pplInt8: v[2]!, bytesF32: v[3]!, bytesInt8: v[4]!, quantised: v[5]!,
               weights: v[6]!, maxWeightErr: v[7]! };
    });
  } finally {
    c.free(ids);
  }
}

export interface LinearAttentionArgs {
  /** (T, D) queries, (T, D) keys, (T, Dv) values of one head: T 1..32, D and Dv 1..16. */
  q: FloatTensor;
  k: FloatTensor;
  v: FloatTensor;
  /** Query i reads keys 0..i. */
  causal: boolean;
}

export interface LinearAttentionResult {
  phiQ: FloatTensor;           // (T, D)  φ(q_i) = elu(q_i) + 1
  phiK: FloatTensor;           // (T, D)
  out: FloatTensor;            // (T, Dv) φ(q_i)ᵀS / φ(q_i)ᵀz
  weights: FloatTensor;        // (T, T)  φ(q_i)·φ(k_j) over the row's sum
  state: FloatTensor;          // (T, D, Dv) S_j = Σ_{j' ≤ j} φ(k_j') v_j'ᵀ
  norm: FloatTensor;           // (T, D)  z_j = Σ_{j' ≤ j} φ(k_j')
  numerator: FloatTensor;      // (T, Dv) φ(q_i)ᵀS with the state query i reads (causal: S_i; else S_T)
  denominator: FloatTensor;    // (T)     φ(q_i)ᵀz, the same
  softmaxOut: FloatTensor;     // (T, Dv) softmax(q·kᵀ/√D) v, the same mask
  softmaxWeights: FloatTensor; // (T, T)
}

/** tfp_learn_linear_attention: linear attention's running state and outputs on typed q, k, v, beside softmax's. */
export function linearAttention(c: Calls, m: TfpModule, a: LinearAttentionArgs): LinearAttentionResult {
  const [T, D] = a.q.dims as [number, number], Dv = a.v.dims[1] ?? 0;
  const same = (t: FloatTensor, rows: number, cols: number) => t.dims.length === 2 && t.dims[0] === rows && t.dims[1] === cols && t.data.length === rows * cols;
  if (a.q.dims.length !== 2 || !same(a.q, T, D) || !same(a.k, T, D) || !same(a.v, T, Dv))
    throw new TfpError(1, `linear attention: q (T, D), k (T, D) and v (T, Dv) must agree, got [${a.q.dims}], [${a.k.dims}], [${a.v.dims}]`);
  const ptrs: number[] = [];
  try {
    const put = (x: FloatTensor, what: string): number => {
      const p = c.putFloats(x.data, x.data.length, what);
      ptrs.push(p);
      return p;
    };
    const q = put(a.q, 'q (T, D)'), k = put(a.k, 'k (T, D)'), v = put(a.v, 'v (T, Dv)');
    return c.withBuffer(4, (slot) => {
      c.check(m._tfp_learn_linear_attention(q, k, v, T, D, Dv, a.causal ? 1 : 0, slot));
      const list = c.readU32(slot);
      try {
        const t = (name: string): FloatTensor => c.tensor(list, name);
        return { phiQ: t('phi_q'), phiK: t('phi_k'), out: t('out'), weights: t('weights'), state: t('state'), norm: t('norm'), numerator: t('numerator'), denominator: t('denominator'),
                 softmaxOut: t('softmax_out'), softmaxWeights: t('softmax_weights') };
      } finally {
        m._tfp_tensors_free(list);
      }
    });
  } finally {
    for (const p of ptrs) c.free(p);
  }
}
