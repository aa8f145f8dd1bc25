// The Learn chapter "Multi-head attention" (src/api/tfp_learn_multihead_api.h):
// marshalling only. The engine counts the parameters and FLOPs of one multi-head
// self-attention block (nn/attention_cost.h); the values are copied out of the heap.
// Legend: T tokens, C = d_model, H heads, D = C/H.
import type { TfpModule } from '../wasm/tfp.mjs';
import type { Calls } from '../calls';

export interface MhaCostArgs {
  dModel: number;
  heads: number;
  tokens: number;
  /** Every projection has a bias (GPT-2, nn.MultiheadAttention). Default true. */
  bias?: boolean;
}

/** tfp_learn_mha_cost's values, in its order; every value an integer. */
export interface MhaCostResult {
  headDim: number;      // D = C/H
  paramsQ: number;      // C² (+ C)
  paramsK: number;
  paramsV: number;
  paramsOut: number;
  paramsTotal: number;  // 4·C² (+ 4·C): H does not appear
  flopsQkv: number;     // 3·2·T·C²
  flopsScores: number;  // H·2·T²·D = 2·T²·C
  flopsMix: number;     // H·2·T²·D = 2·T²·C
  flopsOut: number;     // 2·T·C²
  flopsTotal: number;   // 8·T·C² + 4·T²·C
  mapEntries: number;   // H·T²
}

const KEYS = ['headDim', 'paramsQ', 'paramsK', 'paramsV', 'paramsOut', 'paramsTotal',
              'flopsQkv', 'flopsScores', 'flopsMix', 'flopsOut', 'flopsTotal', 'mapEntries'] as const;

/** tfp_learn_mha_cost: the counts for one (d_model, h, T). */
export function mhaCost(c: Calls, m: TfpModule, a: MhaCostArgs): MhaCostResult {
  return c.withBuffer(KEYS.length * 8, (out) => {
    c.check(m._tfp_learn_mha_cost(a.dModel, a.heads, a.tokens, a.bias === false ? 0 : 1, out));
    const v = new Float64Array(m.HEAPU8.buffer, out, KEYS.length);
    return Object.fromEntries(KEYS.map((k, i) => [k, v[i]!])) as unknown as MhaCostResult;
  });
}
