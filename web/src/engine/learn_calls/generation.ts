// The Learn chapter "Generating text" (src/api/tfp_learn_generation_api.h): marshalling
// only. The engine warps a logits row into the distribution a generator samples from,
// sizes the KV cache from the model's config, and times generation with and without the
// cache, and runs beam search with its trace. Legend: V vocabulary size, P prompt tokens.
import type { TfpModule } from '../wasm/tfp.mjs';
import { TfpError, type Calls } from '../calls';
import { withParams } from '../params.mjs';
import type { LearnContext } from './context';

export interface SamplingProbsArgs {
  /** (V) one position's next-token logits (a row of model.forward's logits). */
  logits: Float32Array;
  /** >= 0; 0 = greedy. */
  temperature: number;
  /** >= 0; 0 = all tokens. */
  topK: number;
  /** (0, 1]; 1 = all tokens. */
  topP: number;
}

export interface SamplingProbsResult {
  raw: Float32Array;     // (V) softmax(logits): the model's own distribution (temperature 1)
  warped: Float32Array;  // (V) after temperature, top-k, top-p, renormalised; 0 = removed
  kept: number;          // tokens with warped > 0
}

/** tfp_learn_sampling_probs: the raw and the warped next-token distribution. */
export function samplingProbs(c: Calls, m: TfpModule, a: SamplingProbsArgs): SamplingProbsResult {
  const V = a.logits.length;
  if (V === 0) throw new TfpError(1, 'sampling: no logits');
  const logits = c.putFloats(a.logits, V, 'sampling: logits (V)');
  try {
    return c.withBuffer(8 * V + 4, (out) => {
      const raw = out, warped = out + 4 * V, kept = out + 8 * V;
      c.check(m._tfp_learn_sampling_probs(logits, V, a.temperature, a.topK, a.topP, raw, warped, kept));
      return {
        raw: new Float32Array(m.HEAPU8.buffer, raw, V).slice(),
        warped: new Float32Array(m.HEAPU8.buffer, warped, V).slice(),
        kept: new DataView(m.HEAPU8.buffer).getInt32(kept, true),
      };
    });
  } finally {
    c.free(logits);
  }
}

export interface KvCacheSizeArgs {
  /** The page handle of a loaded decoder model (Model.id). */
  model: number;
  /** 0 .. max_positions. */
  positions: number;
}

export interface KvCacheSizeResult {
  layers: number;
  heads: number;
  headDim: number;
  kvWidth: number;    // Hkv·D (Hkv key/value heads: H without grouped-query attention)
  positions: number;
  bytes: number;      // layers × 2 × positions × Hkv·D × 4
}

/** tfp_learn_kv_cache_size: the cache's bytes for `positions`, from the model's config. */
export function kvCacheSize(c: Calls, m: TfpModule, a: KvCacheSizeArgs, ctx: LearnContext): KvCacheSizeResult {
  const model = ctx.modelPtr(a.model);
  return c.withBuffer(6 * 8, (out) => {
    c.check(m._tfp_learn_kv_cache_size(model, a.positions, out));
    const v = new Float64Array(m.HEAPU8.buffer, out, 6);
    return { layers: v[0]!, heads: v[1]!, headDim: v[2]!, kvWidth: v[3]!, positions: v[4]!, bytes: v[5]! };
  });
}

export interface KvCacheSizeConfigArgs {
  /** A config.json's text (no weights needed). */
  config: string;
  /** 0 .. the config's max_positions. */
  positions: number;
}

export interface KvCacheSizeConfigResult extends KvCacheSizeResult {
  kvHeads: number;    // Hkv: H, or fewer with grouped-query attention
}

/** tfp_learn_kv_cache_size_config: the same from a config.json alone (e.g. a published 8B model's). */
export function kvCacheSizeConfig(c: Calls, m: TfpModule, a: KvCacheSizeConfigArgs): KvCacheSizeConfigResult {
  const text = new TextEncoder().encode(a.config);
  const p = c.put(text.length > 0 ? text : new Uint8Array(1));
  try {
    return c.withBuffer(7 * 8, (out) => {
      c.check(m._tfp_learn_kv_cache_size_config(p, text.length, a.positions, out));
      const v = new Float64Array(m.HEAPU8.buffer, out, 7);
      return { layers: v[0]!, heads: v[1]!, headDim: v[2]!, kvWidth: v[3]!, positions: v[4]!, bytes: v[5]!, kvHeads: v[6]! };
    });
  } finally {
    c.free(p);
  }
}

export interface GenerationTimingArgs {
  model: number;
  /** (P) prompt ids. */
  prompt: Int32Array;
  /** New-token counts, each with P + length − 1 <= max_positions; at most 16. */
  lengths: number[];
  temperature: number;
  topK: number;
  topP: number;
  seed: number;
}

export interface GenerationTimingRow {
  length: number;
  msWith: number;     // mean ms per generation, KV cache
  msWithout: number;  // the whole sequence again at every step
  tokens: number;     // tokens generated
  same: boolean;      // both chose the same ids
}

export interface GenerationTimingResult {
  rows: GenerationTimingRow[];
  /** The longest run's ids, with and without the cache. */
  idsWith: Int32Array;
  idsWithout: Int32Array;
}

/** tfp_learn_generation_timing: generation timed with and without the KV cache. */
export function generationTiming(c: Calls, m: TfpModule, a: GenerationTimingArgs, ctx: LearnContext): GenerationTimingResult {
  const model = ctx.modelPtr(a.model);
  const n = a.lengths.length;
  if (n < 1) throw new TfpError(1, 'generation timing: no lengths');
  const longest = Math.max(...a.lengths);
  const prompt = c.put(new Uint8Array(a.prompt.buffer, a.prompt.byteOffset, a.prompt.byteLength));
  const lengths = c.put(new Uint8Array(Int32Array.from(a.lengths).buffer));
  try {
    return c.withBuffer(n * 32 + 8 * longest, (out) => {
      const idsWith = out + n * 32, idsWithout = idsWith + 4 * longest;
      c.check(withParams(m, 'tfp_generator_params', {
        prompt, n: a.prompt.length, temperature: a.temperature, top_k: a.topK, top_p: a.topP, seed: a.seed >>> 0,
      }, (p) => m._tfp_learn_generation_timing(model, p, lengths, n, out, idsWith, idsWithout)));
      const v = new Float64Array(m.HEAPU8.buffer, out, n * 4);
      const rows = a.lengths.map((length, i) => ({
        length, msWith: v[4 * i]!, msWithout: v[4 * i + 1]!, tokens: v[4 * i + 2]!, same: v[4 * i + 3]! === 1,
      }));
      return {
        rows,
        idsWith: new Int32Array(m.HEAPU8.buffer, idsWith, longest).slice(),
        idsWithout: new Int32Array(m.HEAPU8.buffer, idsWithout, longest).slice(),
      };
    });
  } finally {
    c.free(lengths);
    c.free(prompt);
  }
}

export interface BeamSearchArgs {
  model: number;
  /** (P) prompt ids, 1 <= P <= max_positions. */
  prompt: Int32Array;
  /** 1 .. 16; 1 = greedy. */
  beamSize: number;
  /** >= 1; cut to what fits the context (max_positions − P + 1). */
  maxTokens: number;
  /** The exponent α of score = log_prob / length^α. */
  lengthPenalty: number;
  /** −1 (default): the model's eos; −2: none; else an id. */
  eosId?: number;
}

/** Fates of a candidate: 0 dropped, 1 live (a beam of the next step), 2 ended at eos
 *  (a finished hypothesis), 3 kept as a hypothesis at the length limit (last step). */
export type BeamFate = 0 | 1 | 2 | 3;

export interface BeamCandidate {
  beam: number;          // the beam it extends: its index among the previous step's live candidates (0 at step 1)
  token: number;
  spelling: string;      // the vocabulary's spelling of token ("Ġthe")
  logProb: number;       // the beam's total plus the token's
  tokenLogProb: number;  // log p(token | prompt, the beam's tokens)
  fate: BeamFate;
}

export interface BeamSearchResult {
  ids: Int32Array;       // the chosen continuation (eos included when it ended there)
  spellings: string[];   // the vocabulary's spelling of each of ids
  logProb: number;       // the sum of log p of those tokens
  score: number;         // logProb / length^α
  eos: boolean;          // it ended at eos
  /** One entry per step the search ran: every beam's best 2·width continuations ranked
   *  together, the best 2·width of them, best first. */
  steps: BeamCandidate[][];
}

/** tfp_learn_beam_search: beam search for the continuation of a prompt, with its trace. */
export function beamSearch(c: Calls, m: TfpModule, a: BeamSearchArgs, ctx: LearnContext): BeamSearchResult {
  const model = ctx.modelPtr(a.model);
  const L = a.maxTokens, W = 2 * a.beamSize;
  if (!(L >= 1) || !(a.beamSize >= 1)) throw new TfpError(1, 'beam search: maxTokens and beamSize must be >= 1');
  const prompt = c.put(new Uint8Array(a.prompt.buffer, a.prompt.byteOffset, a.prompt.byteLength));
  try {
    return c.withBuffer(8 * 5 + 8 * L * W * 5 + 4 * L, (out) => {
      // Doubles first (8-byte aligned), the int32 ids last.
      const result = out, trace = out + 40, ids = trace + 8 * L * W * 5;
      c.check(m._tfp_learn_beam_search(model, prompt, a.prompt.length, a.beamSize, L, a.lengthPenalty, a.eosId ?? -1, ids, result, trace));
      const r = new Float64Array(m.HEAPU8.buffer, result, 5);
      const t = new Float64Array(m.HEAPU8.buffer, trace, L * W * 5);
      const spell = (id: number) => m.UTF8ToString(m._tfp_model_id_to_token(model, id));
      const steps: BeamCandidate[][] = [];
      for (let s = 0; s < r[4]!; s++) {
        const row: BeamCandidate[] = [];
        for (let k = 0; k < W; k++) {
          const o = 5 * (s * W + k);
          if (t[o]! < 0) continue;
          row.push({ beam: t[o]!, token: t[o + 1]!, spelling: spell(t[o + 1]!), logProb: t[o + 2]!, tokenLogProb: t[o + 3]!,
                     fate: t[o + 4]! as BeamFate });
        }
        steps.push(row);
      }
      const chosen = new Int32Array(m.HEAPU8.buffer, ids, r[0]!).slice();
      return { ids: chosen, spellings: Array.from(chosen, spell), logProb: r[1]!, score: r[2]!, eos: r[3]! === 1, steps };
    });
  } finally {
    c.free(prompt);
  }
}
