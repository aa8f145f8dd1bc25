// The Learn chapter "Why divide by √d_k" (src/api/tfp_learn_scaling_api.h): marshalling
// only. The engine draws the seeded q and K, computes the scores, softmaxes and Jacobians
// and their statistics; this copies the d_k list in and the numbers out.
// Legend: n keys per sample, d_k the query/key width; scalings 0 none, 1 ÷√d_k, 2 ÷d_k.
import type { TfpModule } from '../wasm/tfp.mjs';
import { TfpError, type Calls } from '../calls';

/** The three scalings of the scores, in the engine's order. */
export const SCALINGS = ['none', 'sqrt', 'dk'] as const;
export type Scaling = (typeof SCALINGS)[number];

export interface ScalingStatsArgs {
  /** The widths to try, each 1..65536. */
  dks: number[];
  /** Keys per sample (one softmax row), 2..1024. */
  nKeys: number;
  /** Samples per d_k, 2..1000000 (the engine limits the total work). */
  samples: number;
  seed: number;
}

/** Per d_k (in the order asked) and scaling: the statistics of the scaled scores c·q·k. */
export interface ScalingStat {
  mean: number;      // mean score (theory 0)
  variance: number;  // sample variance (theory d_k, 1, 1/d_k)
  maxProb: number;   // mean over samples of the row's largest probability
  jacobian: number;  // mean over samples of ||diag(p) − p pᵀ||_F
}

export interface ScalingStatsResult {
  dks: number[];
  /** stats[i][c]: d_k = dks[i], scaling SCALINGS[c]. */
  stats: Record<Scaling, ScalingStat>[];
  /** The engine's (n_dk, 3, 4) floats as returned. */
  raw: Float32Array;
}

export interface ScalingRowArgs {
  dK: number;
  nKeys: number;
  /** 0-based sample of the experiment at this d_k (the same as in the statistics). */
  sample: number;
  seed: number;
}

export interface ScalingRowResult {
  /** (3, n): row c the scores scaled by scaling c. */
  scores: Float32Array;
  /** (3, n): their softmax. */
  probs: Float32Array;
}

/** tfp_learn_scaling_stats: the experiment over a list of d_k. */
export function scalingStats(c: Calls, m: TfpModule, a: ScalingStatsArgs): ScalingStatsResult {
  const n = a.dks.length;
  if (n === 0) throw new TfpError(1, 'scaling: no d_k to try');
  const dks = new Int32Array(a.dks);
  const dksPtr = c.put(new Uint8Array(dks.buffer));
  try {
    return c.withBuffer(n * 12 * 4, (out) => {
      c.check(m._tfp_learn_scaling_stats(dksPtr, n, a.nKeys, a.samples, a.seed >>> 0, out));
      const raw = new Float32Array(m.HEAPU8.buffer, out, n * 12).slice();
      const stats = a.dks.map((_, i) => Object.fromEntries(SCALINGS.map((s, k) => {
        const o = (i * 3 + k) * 4;
        return [s, { mean: raw[o]!, variance: raw[o + 1]!, maxProb: raw[o + 2]!, jacobian: raw[o + 3]! }];
      })) as Record<Scaling, ScalingStat>);
      return { dks: a.dks.slice(), stats, raw };
    });
  } finally {
    c.free(dksPtr);
  }
}

/** tfp_learn_scaling_row: one sample's scores and probabilities under each scaling. */
export function scalingRow(c: Calls, m: TfpModule, a: ScalingRowArgs): ScalingRowResult {
  const n = a.nKeys;
  if (!Number.isInteger(n) || n < 1) throw new TfpError(1, `scaling: n_keys must be a positive integer, got ${n}`);
  return c.withBuffer(2 * 3 * n * 4, (out) => {
    c.check(m._tfp_learn_scaling_row(a.dK, n, a.sample, a.seed >>> 0, out, out + 3 * n * 4));
    return {
      scores: new Float32Array(m.HEAPU8.buffer, out, 3 * n).slice(),
      probs: new Float32Array(m.HEAPU8.buffer, out + 3 * n * 4, 3 * n).slice(),
    };
  });
}
