// Engine calls that only the Learn chapters make (a softmax without its max subtraction,
// the random q·k experiment, timings of a GRU against attention, ...): one file per
// chapter's calls beside this one, each a function (calls, module, args) → result that
// marshals one C API call (src/api/tfp_learn_*.h) and does no maths of its own. The
// worker runs them by name (request kind 'learn'); Engine.learn(name, args) is typed
// from this table, so a chapter asks `engine.learn('softmaxRow', {...})`.
//
// Adding a call: write it in its own file here, add one line to LEARN_CALLS.
import type { TfpModule } from '../wasm/tfp.mjs';
import type { Calls } from '../calls';
import type { LearnContext } from './context';
import { timeGruAttention } from './timing';
import { gradientSteps } from './gradient';
import { additiveAttention, additiveGruSteps } from './additive';
import { softmaxRow, softmaxTemperatures } from './softmax';
import { scalingRow, scalingStats } from './scaling';
import { mhaCost } from './multihead';
import { activation, encoderDepth, layerNorm, taggerLayers } from './encoder';
import { beamSearch, generationTiming, kvCacheSize, kvCacheSizeConfig, samplingProbs } from './generation';
import { efficiencyTiming, int8Model, linearAttention, sparsePattern, sparseReach } from './efficiency';
import { alibi, positionSimilarity, relativeBias, ropeScore, sinusoidal, sinusoidalShift } from './positions';
import { trainingCreate, trainingEvaluate, trainingFree, trainingLoss, trainingSchedule, trainingStep, trainingTeacherForcing } from './training';


/** One Learn call: marshalling only, run in the worker. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LearnCall = (c: Calls, m: TfpModule, args: any, ctx: LearnContext) => unknown;

export const LEARN_CALLS = {
  mhaCost,  // multi-head: parameter and FLOP counts of one block (nn/attention_cost.h)
  timeGruAttention,  // why-attention: the GRU against a self-attention layer, timed
  gradientSteps,  // why-attention: a gradient's size passed back through T recurrent steps
  additiveAttention,  // additive-attention: every intermediate of vᵀ tanh(W s + U h)
  additiveGruSteps,   // additive-attention: numbers-gru's scores and weights per decoder step
  softmaxRow,  // softmax: one row step by step, stable or naive
  softmaxTemperatures,  // softmax: the stable softmax of one row at many temperatures
  scalingStats, scalingRow,  // scaling: the random q·k experiment, its statistics and one sample row
  layerNorm, encoderDepth, activation, taggerLayers,  // encoder-layer: LayerNorm stats, pre/post-LN depth, GELU/ReLU, brown-pos by layer
  samplingProbs, kvCacheSize, kvCacheSizeConfig, generationTiming, beamSearch,  // generation: warped distribution, KV-cache bytes (of a model, of a config.json), timing with/without the cache, beam search with its trace
  sparsePattern, sparseReach, efficiencyTiming, int8Model,  // efficiency: pattern masks and their reach over layers, full/masked/sparse/linear timing, int8 brown-gpt
  linearAttention,  // efficiency: linear attention's running state on typed q, k, v, beside softmax's
  sinusoidal, sinusoidalShift, positionSimilarity, relativeBias, ropeScore, alibi,  // positions: sin/cos tables, learned cosines, relative, RoPE, ALiBi
  trainingSchedule, trainingLoss, trainingCreate, trainingStep, trainingEvaluate, trainingTeacherForcing, trainingFree,  // training: lr schedule, loss rows, toy trainers in chunks, teacher forcing
} satisfies Record<string, LearnCall>;

export type LearnCalls = typeof LEARN_CALLS;
export type LearnName = keyof LearnCalls;
export type LearnArgs<K extends LearnName> = Parameters<LearnCalls[K]>[2];
export type LearnResult<K extends LearnName> = ReturnType<LearnCalls[K]>;

/** The ArrayBuffers under a result (typed arrays in objects and arrays, any depth),
 *  each once, so the worker can transfer them instead of copying. */
export function transferablesOf(value: unknown, out = new Set<ArrayBuffer>()): ArrayBuffer[] {
  if (ArrayBuffer.isView(value)) {
    if (value.buffer instanceof ArrayBuffer) out.add(value.buffer);
  } else if (Array.isArray(value)) {
    value.forEach((v) => transferablesOf(v, out));
  } else if (value !== null && typeof value === 'object') {
    Object.values(value).forEach((v) => transferablesOf(v, out));
  }
  return [...out];
}

/** Runs the Learn call `name` (the worker's side). */
export function runLearn(c: Calls, m: TfpModule, name: string, args: unknown, ctx: LearnContext): unknown {
  const call = (LEARN_CALLS as Record<string, LearnCall>)[name];
  if (!call) throw new Error(`unknown Learn call '${name}'`);
  return call(c, m, args, ctx);
}
