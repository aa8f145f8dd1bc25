// The Learn chapter "Softmax" (src/api/tfp_learn_softmax_api.h): marshalling only. The
// scores, the mask and the temperatures are copied onto the heap, the engine computes,
// the results are copied out. Legend: n keys (one query's row of scores).
import type { TfpModule } from '../wasm/tfp.mjs';
import { TfpError, type Calls } from '../calls';
import { withParams } from '../params.mjs';

export interface SoftmaxRowArgs {
  /** (n) one query's scores over n keys. */
  scores: Float32Array;
  /** τ > 0: the softmax's input is scores / τ. Default 1. */
  temperature?: number;
  /** (n) 1 = key j masked (its logit becomes -inf); none = no key masked. */
  masked?: Uint8Array;
  /** 'stable': the engine's softmax (max subtracted); 'naive': exp(z)/Σexp(z), the counter-example. */
  variant?: 'stable' | 'naive';
}

export interface SoftmaxRowResult {
  logits: Float32Array;  // (n) z_j = scores_j / τ, -inf where masked
  exps: Float32Array;    // (n) exp(z_j - shift): the terms of the sum
  probs: Float32Array;   // (n) the softmax
  shift: number;         // max_j z_j (stable; -Infinity when every key is masked) or 0 (naive)
  sumExps: number;       // Σ exps in float32
  sumProbs: number;      // Σ probs in float32 (0 for a fully masked row, NaN when probs are)
  maxProb: number;       // the largest probability (0 when none is positive)
  argmax: number;        // its index, -1 when none
}

const VARIANTS = { stable: 0, naive: 1 } as const;

function maskBytes(masked: Uint8Array | undefined, n: number): Uint8Array | undefined {
  if (masked && masked.length !== n)
    throw new TfpError(1, `softmax: the mask has ${masked.length} entries, the scores ${n}`);
  return masked;
}

/** tfp_learn_softmax_row: one row step by step. */
export function softmaxRow(c: Calls, m: TfpModule, a: SoftmaxRowArgs): SoftmaxRowResult {
  const n = a.scores.length;
  const variant = VARIANTS[a.variant ?? 'stable'];
  if (variant === undefined) throw new TfpError(1, `softmax: variant '${String(a.variant)}' is not stable or naive`);
  const masked = maskBytes(a.masked, n);
  const scores = c.putFloats(a.scores, n, 'softmax: scores (n)');
  try {
    const mask = masked ? c.put(masked) : 0;
    try {
      return c.withBuffer(Math.max(1, (3 * n + 5) * 4), (out) => {
        const logits = out, exps = out + 4 * n, probs = out + 8 * n, stats = out + 12 * n;
        c.check(withParams(m, 'tfp_learn_softmax_params', { scores, n, temperature: a.temperature ?? 1, masked: mask, variant },
          (p) => m._tfp_learn_softmax_row(p, logits, exps, probs, stats)));
        const f = (ptr: number, len: number): Float32Array => new Float32Array(m.HEAPU8.buffer, ptr, len).slice();
        const s = f(stats, 5);
        return {
          logits: f(logits, n), exps: f(exps, n), probs: f(probs, n),
          shift: s[0]!, sumExps: s[1]!, sumProbs: s[2]!, maxProb: s[3]!, argmax: s[4]!,
        };
      });
    } finally {
      if (mask) c.free(mask);
    }
  } finally {
    c.free(scores);
  }
}

export interface SoftmaxTemperaturesArgs {
  scores: Float32Array;       // (n)
  masked?: Uint8Array;        // (n) or none
  temperatures: Float32Array; // (m), each > 0
}

/** tfp_learn_softmax_temperatures: the stable softmax at m temperatures → probs (m, n). */
export function softmaxTemperatures(c: Calls, m: TfpModule, a: SoftmaxTemperaturesArgs): { probs: Float32Array; dims: [number, number] } {
  const n = a.scores.length, t = a.temperatures.length;
  const masked = maskBytes(a.masked, n);
  const scores = c.putFloats(a.scores, n, 'softmax: scores (n)');
  const temps = c.putFloats(a.temperatures, t, 'softmax: temperatures (m)');
  const mask = masked ? c.put(masked) : 0;
  try {
    return c.withBuffer(Math.max(1, t * n * 4), (out) => {
      c.check(m._tfp_learn_softmax_temperatures(scores, n, mask, temps, t, out));
      return { probs: new Float32Array(m.HEAPU8.buffer, out, t * n).slice(), dims: [t, n] };
    });
  } finally {
    if (mask) c.free(mask);
    c.free(temps);
    c.free(scores);
  }
}
