// The worker's side of the C API for models that read vectors instead of token ids
// (PyTorch nn.Transformer checkpoints: tfp_model_forward_embeddings,
// tfp_model_attention_steps_embeddings in src/api/). The input rows come from the engine
// too: the seeded vector of each token's text (tfp_seeded_token_embeddings) plus, on
// request, the sinusoidal encoding of its position (tfp_sinusoidal_positions, added in
// the engine). Marshalling only; heap views are made at the moment of use.
import type { TfpModule } from './wasm/tfp.mjs';
import { readSteps } from './attention_steps';
import { TfpError, type Calls } from './calls';
import { withParams, type ParamsFields } from './params.mjs';
import type {
  AttentionStepsEmbeddingsArgs, AttentionStepsResult, EmbeddingInput, FloatTensor, ForwardEmbeddingsArgs,
  ForwardEmbeddingsResult, NamedTensor,
} from './messages';

/** tfp_embed_flags (src/api/tfp_api.h). */
const CAUSAL_SRC = 1, CAUSAL_TGT = 2;
const SETS = ['enc', 'dec', 'cross'] as const;

/** The (L, C) rows of one input: given, or made by the engine from tokens. */
export function embeddingRows(c: Calls, m: TfpModule, input: EmbeddingInput, C: number, what: string): FloatTensor {
  if (input.kind === 'vectors') {
    const [L, width] = input.dims;
    if (input.x.length !== L * width)
      throw new TfpError(1, `${what}: ${input.x.length} floats for dims [${L}, ${width}]`);
    return { data: input.x, dims: [L, width] };
  }
  const x = c.tokenEmbeddings(input.tokens, C, input.seed);
  if (input.positions && input.tokens.length > 0) {
    const p = c.putFloats(x.data, x.data.length, what);
    try {
      c.check(m._tfp_sinusoidal_positions(0, input.tokens.length, C, 1, p));
      x.data.set(new Float32Array(m.HEAPU8.buffer, p, x.data.length));
    } finally {
      c.free(p);
    }
  }
  return x;
}

interface Prepared {
  src: FloatTensor;
  tgt: FloatTensor | undefined;
  /** The fields of the C functions' tfp_embeddings_params (pointers into the heap). */
  params: ParamsFields['tfp_embeddings_params'];
  free(): void;
}

/** Puts the inputs on the heap (rows made by the engine when tokens are given). */
function prepare(c: Calls, m: TfpModule, dModel: number, a: ForwardEmbeddingsArgs, what: string): Prepared {
  const src = embeddingRows(c, m, a.src, dModel, `${what}: src`);
  const tgt = a.tgt ? embeddingRows(c, m, a.tgt, dModel, `${what}: tgt`) : undefined;
  const S = src.dims[0]!, T = tgt?.dims[0] ?? 0, C = src.dims[1]!;
  if (tgt && tgt.dims[1] !== C)
    throw new TfpError(1, `${what}: src rows have ${C} values but tgt rows ${tgt.dims[1]}`);
  for (const [name, pad, n] of [['srcPadding', a.srcPadding, S], ['tgtPadding', a.tgtPadding, T]] as const)
    if (pad && pad.length !== n) throw new TfpError(1, `${what}: ${name} has ${pad.length} values for ${n} rows`);
  const ptrs: number[] = [];
  const put = (x: Float32Array | Uint8Array | undefined): number => {
    if (!x || x.length === 0) return 0;
    const p = c.put(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
    ptrs.push(p);
    return p;
  };
  try {
    const flags = (a.causalSrc ? CAUSAL_SRC : 0) | (a.causalTgt ? CAUSAL_TGT : 0);
    return {
      src, tgt,
      params: {
        C, src: put(src.data), S, tgt: put(tgt?.data), T, src_padding: put(a.srcPadding), tgt_padding: put(a.tgtPadding),
        flags,
      },
      free: () => ptrs.forEach((p) => c.free(p)),
    };
  } catch (e) {
    ptrs.forEach((p) => c.free(p));
    throw e;
  }
}

/** tfp_model_forward_embeddings on the model at `modelPtr` (d_model `dModel`). */
export function forwardEmbeddings(c: Calls, m: TfpModule, modelPtr: number, dModel: number,
                                  a: ForwardEmbeddingsArgs): ForwardEmbeddingsResult {
  const started = performance.now();
  const p = prepare(c, m, dModel, a, 'forwardEmbeddings');
  try {
    const list = c.withBuffer(4, (slot) => {
      c.check(withParams(m, 'tfp_embeddings_params', p.params, (params) => m._tfp_model_forward_embeddings(modelPtr, params, slot)));
      return c.readU32(slot);
    });
    try {
      const names: string[] = [];
      for (let i = 0; i < m._tfp_tensors_count(list); i++) names.push(m.UTF8ToString(m._tfp_tensors_name(list, i)));
      const attention: NamedTensor[] = names.filter((n) => n.endsWith('.probs')).map((name) => ({ name, ...c.tensor(list, name) }));
      const result: ForwardEmbeddingsResult = {
        src: p.src, hidden: c.tensor(list, 'hidden'), hiddenNorm: c.tensor(list, 'hidden_norm'), attention,
        workerMs: performance.now() - started,
      };
      if (p.tgt) result.tgt = p.tgt;
      if (names.includes('memory')) result.memory = c.tensor(list, 'memory');
      return result;
    } finally {
      m._tfp_tensors_free(list);
    }
  } finally {
    p.free();
  }
}

/** tfp_model_attention_steps_embeddings: the drill-down of one row on the same inputs. */
export function attentionStepsEmbeddings(c: Calls, m: TfpModule, modelPtr: number, dModel: number,
                                         a: AttentionStepsEmbeddingsArgs): AttentionStepsResult {
  const started = performance.now();
  if (!SETS.includes(a.set)) throw new TfpError(1, `attentionSteps: set '${String(a.set)}' is not enc, dec or cross`);
  const p = prepare(c, m, dModel, a, 'attentionSteps');
  const set = c.put(new TextEncoder().encode(a.set + '\0'));
  try {
    const list = c.withBuffer(4, (slot) => {
      c.check(withParams(m, 'tfp_embeddings_params', p.params, (params) =>
        m._tfp_model_attention_steps_embeddings(modelPtr, params, set, a.layer, a.head, a.query, slot)));
      return c.readU32(slot);
    });
    return readSteps(c, m, list, started);
  } finally {
    c.free(set);
    p.free();
  }
}
