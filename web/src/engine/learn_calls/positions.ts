// The Learn chapter "Positional encoding" (src/api/tfp_learn_positions_api.h): marshalling
// only. The sinusoidal table in both channel layouts with its dot products, PE(p + k) as a
// rotation of PE(p), a loaded model's learned position table as cosine similarities, a
// relative-position bias with its buckets, RoPE's rotated q and k with their score, and
// ALiBi's slopes and biases. Every number is copied out of the engine's results.
// Legend: T positions, C channels (d_model), D head size, H heads, NB buckets.
import type { TfpModule } from '../wasm/tfp.mjs';
import type { Calls } from '../calls';
import { withParams } from '../params.mjs';
import type { FloatTensor } from '../messages';
import type { LearnContext } from './context';

/** Float32 views cut one after another out of one heap buffer, copied out. */
function floats(m: TfpModule, ptr: number, sizes: number[]): Float32Array[] {
  let at = ptr;
  return sizes.map((n) => {
    const v = new Float32Array(m.HEAPU8.buffer, at, n).slice();
    at += n * 4;
    return v;
  });
}

export interface SinusoidalArgs {
  positions: number;
  dModel: number;
  /** 'interleaved': sin in 2i, cos in 2i+1 (the paper, this engine); 'halves': the same
   *  numbers, sines then cosines; 'tensor2tensor': its timing signal, the halves order with
   *  its own frequencies 10000^(−i/(C/2−1)). */
  layout: SinusoidalLayout;
}

export type SinusoidalLayout = 'interleaved' | 'halves' | 'tensor2tensor';
const LAYOUT_CODE: Record<SinusoidalLayout, number> = { interleaved: 0, halves: 1, tensor2tensor: 2 };

export interface SinusoidalResult {
  table: FloatTensor;  // (T, C)
  dots: FloatTensor;   // (T, T) PE(p)·PE(q)
  /** (C/2) ω_i of each pair i in this layout; empty for an odd C. */
  omegas: number[];
}

/** tfp_learn_sinusoidal_table. */
export function sinusoidal(c: Calls, m: TfpModule, a: SinusoidalArgs): SinusoidalResult {
  const T = a.positions, C = a.dModel;
  const code = LAYOUT_CODE[a.layout];
  if (code === undefined) throw new Error(`sinusoidal: layout must be interleaved, halves or tensor2tensor, got ${String(a.layout)}`);
  const omegas = C % 2 === 0 ? c.withBuffer((C / 2) * 8, (out) => {
    c.check(m._tfp_learn_sinusoidal_frequencies(C, code, out));
    return Array.from(new Float64Array(m.HEAPU8.buffer, out, C / 2));
  }) : [];
  return c.withBuffer((T * C + T * T) * 4, (ptr) => {
    c.check(m._tfp_learn_sinusoidal_table(T, C, code, ptr, ptr + T * C * 4));
    const [table, dots] = floats(m, ptr, [T * C, T * T]);
    return { table: { data: table!, dims: [T, C] }, dots: { data: dots!, dims: [T, T] }, omegas };
  });
}

export interface SinusoidalShiftArgs {
  dModel: number;
  /** The channel pair i: channels 2i (sin) and 2i + 1 (cos). */
  pair: number;
  p: number;
  k: number;
}

export interface SinusoidalShiftResult {
  omega: number;
  angle: number;
  /** [[cos kω, sin kω], [−sin kω, cos kω]] row-major. */
  matrix: number[];
  /** (sin pω, cos pω) = PE[p, 2i], PE[p, 2i+1]. */
  pe: number[];
  /** M · pe: equals (PE[p+k, 2i], PE[p+k, 2i+1]). */
  rotated: number[];
}

/** tfp_learn_sinusoidal_shift. */
export function sinusoidalShift(c: Calls, m: TfpModule, a: SinusoidalShiftArgs): SinusoidalShiftResult {
  return c.withBuffer(10 * 8, (out) => {
    c.check(m._tfp_learn_sinusoidal_shift(a.dModel, a.pair, a.p, a.k, out));
    const v = Array.from(new Float64Array(m.HEAPU8.buffer, out, 10));
    return { omega: v[0]!, angle: v[1]!, matrix: v.slice(2, 6), pe: v.slice(6, 8), rotated: v.slice(8, 10) };
  });
}

export interface PositionSimilarityArgs {
  /** The page handle of a loaded model with learned positions (Model.id), e.g. brown-gpt. */
  model: number;
  positions: number;
  /** The model's d_model (the rows' width). */
  dModel: number;
}

export interface PositionSimilarityResult {
  cos: FloatTensor;   // (P, P)
  rows: FloatTensor;  // (P, C) the table's first P rows
}

/** tfp_learn_position_similarity. */
export function positionSimilarity(c: Calls, m: TfpModule, a: PositionSimilarityArgs, ctx: LearnContext): PositionSimilarityResult {
  const model = ctx.modelPtr(a.model);
  const P = a.positions, C = a.dModel;
  return c.withBuffer((P * P + P * C) * 4, (ptr) => {
    c.check(m._tfp_learn_position_similarity(model, P, ptr, ptr + P * P * 4));
    const [cos, rows] = floats(m, ptr, [P * P, P * C]);
    return { cos: { data: cos!, dims: [P, P] }, rows: { data: rows!, dims: [P, C] } };
  });
}

export interface RelativeBiasArgs {
  bucketing: 'clip' | 't5';
  bidirectional: boolean;
  numBuckets: number;
  maxDistance: number;
  positions: number;
  seed: number;
}

export interface RelativeBiasResult {
  table: Float32Array;    // (NB) bias per bucket
  buckets: FloatTensor;   // (T, T) bucket of j − i
  bias: FloatTensor;      // (T, T) added to the score of query i on key j
}

/** tfp_learn_relative_bias. */
export function relativeBias(c: Calls, m: TfpModule, a: RelativeBiasArgs): RelativeBiasResult {
  const T = a.positions, NB = a.numBuckets;
  return c.withBuffer((NB + 2 * T * T) * 4, (ptr) => {
    c.check(withParams(m, 'tfp_learn_relative_bias_params', {
      bucketing: a.bucketing === 'clip' ? 0 : 1, bidirectional: a.bidirectional ? 1 : 0, num_buckets: NB,
      max_distance: a.maxDistance, T, seed: a.seed >>> 0,
    }, (p) => m._tfp_learn_relative_bias(p, ptr, ptr + NB * 4, ptr + (NB + T * T) * 4)));
    const [table, buckets, bias] = floats(m, ptr, [NB, T * T, T * T]);
    return { table: table!, buckets: { data: buckets!, dims: [T, T] }, bias: { data: bias!, dims: [T, T] } };
  });
}

export interface RopeScoreArgs {
  q: Float32Array;  // (D)
  k: Float32Array;  // (D)
  pairing: 'interleaved' | 'half-split';
  /** Query position m, key position n. */
  m: number;
  n: number;
}

export interface RopeScoreResult {
  qRot: Float32Array;  // (D)
  kRot: Float32Array;  // (D)
  /** q·k before rotation, rot(q)·rot(k) after. */
  raw: number;
  score: number;
}

/** tfp_learn_rope_score. */
export function ropeScore(c: Calls, m: TfpModule, a: RopeScoreArgs): RopeScoreResult {
  const D = a.q.length;
  const q = c.putFloats(a.q, D, 'q (D)');
  try {
    const k = c.putFloats(a.k, D, 'k (D)');
    try {
      return c.withBuffer((2 * D + 2) * 4, (out) => {
        c.check(m._tfp_learn_rope_score(q, k, D, a.pairing === 'interleaved' ? 0 : 1, a.m, a.n, out));
        const [qRot, kRot, s] = floats(m, out, [D, D, 2]);
        return { qRot: qRot!, kRot: kRot!, raw: s![0]!, score: s![1]! };
      });
    } finally {
      c.free(k);
    }
  } finally {
    c.free(q);
  }
}

export interface AlibiArgs {
  heads: number;
  positions: number;
  symmetric?: boolean;
}

export interface AlibiResult {
  slopes: Float32Array;  // (H)
  bias: FloatTensor;     // (H, T, T)
}

/** tfp_learn_alibi. */
export function alibi(c: Calls, m: TfpModule, a: AlibiArgs): AlibiResult {
  const H = a.heads, T = a.positions;
  return c.withBuffer((H + H * T * T) * 4, (ptr) => {
    c.check(m._tfp_learn_alibi(H, T, a.symmetric ? 1 : 0, ptr, ptr + H * 4));
    const [slopes, bias] = floats(m, ptr, [H, H * T * T]);
    return { slopes: slopes!, bias: { data: bias!, dims: [H, T, T] } };
  });
}
