// The Learn chapter "The encoder layer" (src/api/tfp_learn_encoder_api.h): marshalling
// only. LayerNorm on the reader's rows with each row's (and column's) statistics, the
// residual stream of a seeded deep stack (pre-LN or post-LN), the activation functions on
// a range of x, and the tagger (brown-pos) read after every layer with its feed-forward
// hidden activations. Every number is copied out of the engine's results.
// Legend: T tokens (rows), C features, F feed-forward width, L layers, R = L + 1, N labels.
import type { TfpModule } from '../wasm/tfp.mjs';
import { TfpError, type Calls } from '../calls';
import { withParams } from '../params.mjs';
import type { FloatTensor } from '../messages';
import type { LearnContext } from './context';

export interface LayerNormArgs {
  /** (T, C) the rows: one token's features per row. */
  x: FloatTensor;
  /** (C) scale; absent = ones. */
  gamma?: Float32Array;
  /** (C) shift; absent = zeros. */
  beta?: Float32Array;
  eps?: number;
}

export interface LayerNormResult {
  y: FloatTensor;       // (T, C)
  rowIn: FloatTensor;   // (T, 2) each row of x: mean, variance (÷C)
  rowOut: FloatTensor;  // (T, 2) each row of y
  colOut: FloatTensor;  // (C, 2) each column (feature) of y over the rows
}

/** tfp_learn_layer_norm. */
export function layerNorm(c: Calls, m: TfpModule, a: LayerNormArgs): LayerNormResult {
  const [T, C] = a.x.dims as [number, number];
  if (a.x.dims.length !== 2 || !(T >= 1) || !(C >= 1))
    throw new TfpError(1, `layer norm: x must be a (T, C) matrix, got dims [${a.x.dims.join(', ')}]`);
  const ptrs: number[] = [];
  const put = (v: Float32Array, n: number, what: string) => { const p = c.putFloats(v, n, what); ptrs.push(p); return p; };
  try {
    const x = put(a.x.data, T * C, 'x (T, C)');
    const g = a.gamma ? put(a.gamma, C, 'gamma (C)') : 0, b = a.beta ? put(a.beta, C, 'beta (C)') : 0;
    return c.withBuffer(4, (slot) => {
      c.check(m._tfp_learn_layer_norm(x, T, C, g, b, a.eps ?? 1e-5, slot));
      const list = c.readU32(slot);
      try {
        return { y: c.tensor(list, 'y'), rowIn: c.tensor(list, 'row_in'), rowOut: c.tensor(list, 'row_out'), colOut: c.tensor(list, 'col_out') };
      } finally {
        m._tfp_tensors_free(list);
      }
    });
  } finally {
    ptrs.forEach((p) => c.free(p));
  }
}

export interface EncoderDepthArgs {
  dModel: number;
  heads: number;
  dFF: number;
  tokens: number;
  layers: number;
  /** 0 relu, 1 gelu (erf), 2 gelu_new. */
  activation: number;
  /** true: pre-LN (x + f(LN(x))); false: post-LN (LN(x + f(x))). */
  normFirst: boolean;
  seed: number;
}

export interface EncoderDepthResult {
  /** (L + 1) rms of the residual stream: the input, then after each layer. */
  streamRms: Float64Array;
  /** (L + 1) rms of what each layer changed, h_l − h_{l−1}; 0 for the input. */
  updateRms: Float64Array;
  /** (L + 1) cosine of the stream with the input (all T·C values); 1 for the input. */
  inputCos: Float64Array;
}

/** tfp_learn_encoder_depth. */
export function encoderDepth(c: Calls, m: TfpModule, a: EncoderDepthArgs): EncoderDepthResult {
  const rows = a.layers + 1;
  return c.withBuffer(rows * 3 * 8, (out) => {
    c.check(withParams(m, 'tfp_learn_encoder_depth_params', {
      C: a.dModel, H: a.heads, F: a.dFF, T: a.tokens, L: a.layers, activation: a.activation,
      norm_first: a.normFirst ? 1 : 0, seed: a.seed >>> 0,
    }, (p) => m._tfp_learn_encoder_depth(p, out)));
    const v = new Float64Array(m.HEAPU8.buffer, out, rows * 3);
    const col = (k: number) => Float64Array.from({ length: rows }, (_, l) => v[3 * l + k]!);
    return { streamRms: col(0), updateRms: col(1), inputCos: col(2) };
  });
}

export interface ActivationArgs {
  /** 0 relu, 1 gelu (erf), 2 gelu_new (tanh). */
  kind: number;
  x: Float32Array;
}

/** tfp_learn_activation: the activation of every x. */
export function activation(c: Calls, m: TfpModule, a: ActivationArgs): Float32Array {
  const n = a.x.length;
  const x = c.putFloats(a.x, n, 'x');
  try {
    return c.withBuffer(n * 4, (y) => {
      c.check(m._tfp_learn_activation(a.kind, x, n, y));
      return new Float32Array(m.HEAPU8.buffer, y, n).slice();
    });
  } finally {
    c.free(x);
  }
}

export interface TaggerLayersArgs {
  /** The page handle of a loaded encoder-only tagger (Model.id), e.g. brown-pos. */
  model: number;
  ids: Int32Array;
}

export interface TaggerLayersResult {
  /** (R, T, N) label probabilities: row 0 the embeddings, row l + 1 after layer l (the last = the model's own). */
  probs: FloatTensor;
  /** Per layer (T, F): the feed-forward hidden activations, "enc.l.ffn.hidden". */
  hidden: FloatTensor[];
  /** (R, T, C) the residual stream: the embeddings, then each layer's output. */
  stream: FloatTensor;
  /** (L, T, C) each layer's attention and feed-forward outputs, before the residual add. */
  attnOut: FloatTensor;
  ffnOut: FloatTensor;
  /** (R, T), (L, T), (L, T): each token's rms of the three above. */
  streamRms: FloatTensor;
  attnRms: FloatTensor;
  ffnRms: FloatTensor;
}

/** tfp_learn_tagger_layers. */
export function taggerLayers(c: Calls, m: TfpModule, a: TaggerLayersArgs, ctx: LearnContext): TaggerLayersResult {
  const model = ctx.modelPtr(a.model);
  if (a.ids.length === 0) throw new TfpError(1, 'tagger layers: no tokens');
  const ids = c.put(new Uint8Array(a.ids.buffer, a.ids.byteOffset, a.ids.byteLength));
  try {
    return c.withBuffer(4, (slot) => {
      c.check(m._tfp_learn_tagger_layers(model, ids, a.ids.length, slot));
      const list = c.readU32(slot);
      try {
        const probs = c.tensor(list, 'probs');
        const L = probs.dims[0]! - 1;
        const t = (name: string) => c.tensor(list, name);
        return { probs, hidden: Array.from({ length: L }, (_, l) => t(`enc.${l}.ffn.hidden`)),
                 stream: t('stream'), attnOut: t('attn_out'), ffnOut: t('ffn_out'),
                 streamRms: t('stream_rms'), attnRms: t('attn_rms'), ffnRms: t('ffn_rms') };
      } finally {
        m._tfp_tensors_free(list);
      }
    });
  } finally {
    c.free(ids);
  }
}
