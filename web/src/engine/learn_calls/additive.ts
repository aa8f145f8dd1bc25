// The Learn chapter "Additive (Bahdanau) attention" (src/api/tfp_learn_additive_api.h):
// marshalling only. Inputs are copied onto the heap, the engine computes, every
// intermediate is copied out of the returned tensor list.
//
// Legend: Tq decoder states (queries), Tk encoder states (keys = values), Cs / Ch their
// widths, A attention width.
import type { TfpModule } from '../wasm/tfp.mjs';
import { TfpError, type Calls } from '../calls';
import { withParams } from '../params.mjs';
import type { FloatTensor } from '../messages';
import type { LearnContext } from './context';

export interface AdditiveArgs {
  /** (Tq, Cs) decoder states, row i the query of output step i. */
  s: FloatTensor;
  /** (Tk, Ch) encoder states, row j source token j (keys and values). */
  h: FloatTensor;
  /** (A, Cs), as nn.Linear (out, in). */
  W: FloatTensor;
  /** (A, Ch). */
  U: FloatTensor;
  /** (A). */
  v: Float32Array;
  /** (A) or none. */
  b?: Float32Array;
}

export interface AdditiveResult {
  ws: FloatTensor;      // (Tq, A)      W s_i + b
  uh: FloatTensor;      // (Tk, A)      U h_j
  sum: FloatTensor;     // (Tq, Tk, A)  W s_i + b + U h_j
  tanh: FloatTensor;    // (Tq, Tk, A)
  scores: FloatTensor;  // (Tq, Tk)     e_ij
  weights: FloatTensor; // (Tq, Tk)     α_ij
  context: FloatTensor; // (Tq, Ch)     c_i
  entropy: FloatTensor; // (Tq)         −Σ_j α_ij ln α_ij
  bound: FloatTensor;   // (1)          ‖v‖₁: every e_ij lies in [−‖v‖₁, ‖v‖₁]
  /** Luong's "general" on the same inputs: (W s_i + b)·(U h_j), its weights, context, entropy. */
  general: DotResult;
  /** Luong's "dot" s_i·h_j (only when Cs == Ch). */
  dot: DotResult | null;
}

/** Unscaled dot-product attention on the same states (Luong et al. 2015). */
export interface DotResult {
  scores: FloatTensor;  // (Tq, Tk)
  weights: FloatTensor; // (Tq, Tk)
  context: FloatTensor; // (Tq, Ch)
  entropy: FloatTensor; // (Tq)
}

function dims2(t: FloatTensor, what: string): [number, number] {
  if (t.dims.length !== 2 || t.dims.some((d) => !Number.isInteger(d) || d < 1) || t.data.length !== t.dims[0]! * t.dims[1]!)
    throw new TfpError(1, `additive attention: ${what} must be a matrix, got dims [${t.dims.join(', ')}] with ${t.data.length} values`);
  return t.dims as [number, number];
}

/** tfp_learn_additive_attention: every intermediate of e = vᵀ tanh(W s + b + U h). */
export function additiveAttention(c: Calls, m: TfpModule, a: AdditiveArgs): AdditiveResult {
  const [Tq, Cs] = dims2(a.s, 's (Tq, Cs)'), [Tk, Ch] = dims2(a.h, 'h (Tk, Ch)'), A = a.v.length;
  const ptrs: number[] = [];
  const put = (x: Float32Array, n: number, what: string): number => {
    const p = c.putFloats(x, n, what);
    ptrs.push(p);
    return p;
  };
  try {
    const s = put(a.s.data, Tq * Cs, 's (Tq, Cs)'), h = put(a.h.data, Tk * Ch, 'h (Tk, Ch)');
    const W = put(a.W.data, A * Cs, 'W (A, Cs)'), U = put(a.U.data, A * Ch, 'U (A, Ch)');
    const v = put(a.v, A, 'v (A)'), b = a.b ? put(a.b, A, 'b (A)') : 0;
    return c.withBuffer(4, (slot) => {
      c.check(withParams(m, 'tfp_learn_additive_params', { s, Tq, Cs, h, Tk, Ch, W, b, U, v, A },
        (p) => m._tfp_learn_additive_attention(p, slot)));
      const list = c.readU32(slot);
      try {
        const t = (name: string): FloatTensor => c.tensor(list, name);
        const dotOf = (p: string): DotResult => ({ scores: t(`${p}_scores`), weights: t(`${p}_weights`), context: t(`${p}_context`), entropy: t(`${p}_entropy`) });
        return {
          ws: t('ws'), uh: t('uh'), sum: t('sum'), tanh: t('tanh'), scores: t('scores'), weights: t('weights'), context: t('context'),
          entropy: t('entropy'), bound: t('bound'), general: dotOf('general'), dot: Cs === Ch ? dotOf('dot') : null,
        };
      } finally {
        m._tfp_tensors_free(list);
      }
    });
  } finally {
    ptrs.forEach((p) => c.free(p));
  }
}

export interface GruStepsArgs {
  /** The page handle of a loaded recurrent encoder–decoder (Model.id), e.g. numbers-gru. */
  model: number;
  /** Source token ids. */
  ids: Int32Array;
  /** At most this many output tokens (0: the model's limit). */
  maxTokens?: number;
}

export interface GruStepsResult {
  /** Greedy output ids, the end token included when produced. */
  ids: Int32Array;
  /** The vocabulary entry of each output id (the model's tokenizer). */
  tokens: string[];
  /** (T, S) e_tj before the softmax, row t for the step that chose output token t. */
  scores: FloatTensor;
  /** (T, S) α_tj: the alignment matrix (rows = output steps = queries, columns = source tokens). */
  weights: FloatTensor;
  /** (S, Ce) the encoder states h_j (keys and values). */
  encoder: FloatTensor;
  /** (T, D) s_{t−1}, the query of step t (row 0: s_0 from the bridge). */
  query: FloatTensor;
  /** (T, Ce) c_t = Σ_j α_tj h_j. */
  context: FloatTensor;
  /** (T, E) E[y_{t−1}], the embedding of the token read at step t (row 0: the start mark). */
  embed: FloatTensor;
  /** (T, D) s_t, the decoder GRU's new state. */
  state: FloatTensor;
  /** (T, V) p(y_t): softmax of the output layer on [s_t ; c_t]. */
  probs: FloatTensor;
  /** The vocabulary entry of every id 0 … V−1 (the columns of probs). */
  vocab: string[];
  /** (T, S) Luong's dot s_{t−1}·h_j and its softmax on the same states (D == Ce), else null. */
  dotScores: FloatTensor | null;
  dotWeights: FloatTensor | null;
}

/** tfp_learn_additive_gru_steps: the scores and weights of every greedy decoder step, and
 *  what each step read and wrote (s_{t−1}, c_t, E[y_{t−1}], s_t, p(y_t)). */
export function additiveGruSteps(c: Calls, m: TfpModule, a: GruStepsArgs, ctx: LearnContext): GruStepsResult {
  const model = ctx.modelPtr(a.model);
  if (a.ids.length === 0) throw new TfpError(1, 'additive attention steps: the source is empty');
  const cap = 256;
  const src = c.put(new Uint8Array(a.ids.buffer, a.ids.byteOffset, a.ids.byteLength));
  try {
    return c.withBuffer(cap * 4, (outIds) => c.withBuffer(8, (slots) => {
      c.check(m._tfp_learn_additive_gru_steps(model, src, a.ids.length, a.maxTokens ?? 0, outIds, cap, slots, slots + 4));
      const n = new DataView(m.HEAPU8.buffer).getInt32(slots, true), list = c.readU32(slots + 4);
      try {
        const ids = new Int32Array(m.HEAPU8.buffer, outIds, n).slice();
        const tokens = Array.from(ids, (id) => m.UTF8ToString(m._tfp_model_id_to_token(model, id)));
        const t = (name: string): FloatTensor => c.tensor(list, name);
        const query = t('query'), encoder = t('encoder'), probs = t('probs');
        const vocab = Array.from({ length: probs.dims[1]! }, (_, id) => m.UTF8ToString(m._tfp_model_id_to_token(model, id)));
        const dot = query.dims[1] === encoder.dims[1];
        return {
          ids, tokens, scores: t('scores'), weights: t('weights'), encoder, query, context: t('context'), embed: t('embed'),
          state: t('state'), probs, vocab, dotScores: dot ? t('dot_scores') : null, dotWeights: dot ? t('dot_weights') : null,
        };
      } finally {
        m._tfp_tensors_free(list);
      }
    }));
  } finally {
    c.free(src);
  }
}
