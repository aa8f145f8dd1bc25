// The worker's side of head ablation, the logit lens and activation patching
// (src/api/tfp_inspect_api.h: tfp_model_set_head_mask / clear, tfp_model_head_mask_effect,
// tfp_model_logit_lens; src/api/tfp_patch_api.h: tfp_model_activation_patching;
// src/api/tfp_attribution_api.h: tfp_model_logit_attribution, tfp_model_gradient_attribution).
// Marshalling only: the engine scales the heads, runs the model with and without them,
// and reads the residual stream through the final norm and the LM head; the numbers
// (probabilities included) come back from it. Heap views are made at the moment of use.
import type { TfpModule } from './wasm/tfp.mjs';
import { TfpError, type Calls } from './calls';
import type {
  GradientAttributionArgs, GradientAttributionResult, HeadAblationArgs, IntegratedGradientsArgs, IntegratedGradientsPart, HeadAblationResult, HeadMaskEffect, HeadMaskEntry, LogitAttributionArgs, LogitAttributionResult, LogitLensArgs, LogitLensResult, PatchingArgs, PatchingPart,
} from './messages';
import { withParams } from './params.mjs';

const SETS = ['enc', 'dec', 'cross'] as const;

function withInts<R>(c: Calls, x: Int32Array | undefined, body: (ptr: number) => R): R {
  if (!x) return body(0);
  const p = c.put(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  try {
    return body(p);
  } finally {
    c.free(p);
  }
}

function out(c: Calls, fn: (slot: number) => number): number {
  return c.withBuffer(4, (slot) => {
    c.check(fn(slot));
    return c.readU32(slot);
  });
}

/** Replaces the model's whole head mask by `entries` (none = the model as loaded). On a
 *  refused entry the mask is cleared and the engine's message thrown. */
export function setHeadMask(c: Calls, m: TfpModule, modelPtr: number, entries: HeadMaskEntry[]): void {
  c.check(m._tfp_model_clear_head_mask(modelPtr));
  try {
    for (const e of entries) {
      if (!SETS.includes(e.set)) throw new TfpError(1, `headMask: set '${String(e.set)}' is not enc, dec or cross`);
      const set = c.put(new TextEncoder().encode(e.set + '\0'));
      const scales = c.put(new Uint8Array(e.scales.buffer, e.scales.byteOffset, e.scales.byteLength));
      try {
        c.check(m._tfp_model_set_head_mask(modelPtr, set, e.layer, scales, e.scales.length));
      } finally {
        c.free(set);
        c.free(scales);
      }
    }
  } catch (err) {
    m._tfp_model_clear_head_mask(modelPtr);
    throw err;
  }
}

/** The model without and with its head mask on `ids` (tfp_model_head_mask_effect). */
export function headMaskEffect(c: Calls, m: TfpModule, modelPtr: number, ids: Int32Array, topK: number,
                               beamSize: number, token: (id: number) => string): HeadMaskEffect {
  const list = withInts(c, ids, (p) => out(c, (slot) =>
    m._tfp_model_head_mask_effect(modelPtr, p, ids.length, topK, beamSize, slot)));
  try {
    const has = (name: string) => {
      const bytes = new TextEncoder().encode(name + '\0');
      return c.withBuffer(bytes.length, (p) => {
        m.HEAPU8.set(bytes, p);
        return m._tfp_tensors_find(list, p) >= 0;
      });
    };
    const idsOf = (name: string) => Int32Array.from(c.tensor(list, name).data);
    const names = (x: Int32Array) => Array.from(x, token);
    if (has('mask_positions')) {
      const fb = c.tensor(list, 'fill_ids_before');
      const beforeIds = Int32Array.from(fb.data), afterIds = idsOf('fill_ids_after');
      return { kind: 'fill-mask', positions: idsOf('mask_positions'), k: fb.dims[1] ?? 0, beforeIds, afterIds,
               beforeTokens: names(beforeIds), afterTokens: names(afterIds),
               beforeProbs: c.tensor(list, 'fill_probs_before').data, afterProbs: c.tensor(list, 'fill_probs_after').data };
    }
    if (has('argmax_before')) {
      const before = idsOf('argmax_before'), after = idsOf('argmax_after');
      return { kind: 'per-token', before, after, beforeTokens: names(before), afterTokens: names(after),
               beforeProbs: c.tensor(list, 'prob_before').data, afterProbs: c.tensor(list, 'prob_after').data };
    }
    if (has('ids')) {
      const picked = idsOf('ids');
      return { kind: 'next-token', ids: picked, tokens: names(picked),
               before: c.tensor(list, 'before').data, after: c.tensor(list, 'after').data };
    }
    const before = idsOf('before'), after = idsOf('after');
    return { kind: 'translation', beamSize, before, after, beforeTokens: names(before), afterTokens: names(after) };
  } finally {
    m._tfp_tensors_free(list);
  }
}

/** tfp_model_logit_lens: ids/probs (L+1, T, K) and the token text of every id. */
export function logitLens(c: Calls, m: TfpModule, modelPtr: number, a: LogitLensArgs,
                          token: (id: number) => string): LogitLensResult {
  const started = performance.now();
  const list = withInts(c, a.ids, (ids) => withInts(c, a.tgtIds, (tgt) => out(c, (slot) =>
    m._tfp_model_logit_lens(modelPtr, ids, a.ids.length, tgt, a.tgtIds?.length ?? 0, a.topK, slot))));
  try {
    const ids = c.tensor(list, 'ids'), probs = c.tensor(list, 'probs');
    const known = new Map<number, string>();
    const tokens = Array.from(ids.data, (v) => {
      let s = known.get(v);
      if (s === undefined) known.set(v, (s = token(v)));
      return s;
    });
    return { ids, probs, tokens, workerMs: performance.now() - started };
  } finally {
    m._tfp_tensors_free(list);
  }
}

/** tfp_model_activation_patching: one call (some sweeps, every layer or one). */
export function activationPatching(c: Calls, m: TfpModule, modelPtr: number, a: PatchingArgs): PatchingPart {
  const started = performance.now();
  if (a.clean.length !== a.corrupted.length)
    throw new TfpError(1, `activationPatching: the clean prompt has ${a.clean.length} tokens and the corrupted one ${a.corrupted.length}; patching needs the same length`);
  const list = withInts(c, a.clean, (clean) => withInts(c, a.corrupted, (corrupted) => out(c, (slot) =>
    withParams(m, 'tfp_patching_params', {
      clean, corrupted, n: a.clean.length, answer: a.answer, foil: a.foil, kinds: a.kinds, layer: a.layer,
    }, (p) => m._tfp_model_activation_patching(modelPtr, p, slot)))));
  try {
    return { tensors: c.tensors(list), workerMs: performance.now() - started };
  } finally {
    m._tfp_tensors_free(list);
  }
}

/** tfp_model_logit_attribution: the terms of the logit difference. */
export function logitAttribution(c: Calls, m: TfpModule, modelPtr: number, a: LogitAttributionArgs): LogitAttributionResult {
  const started = performance.now();
  const list = withInts(c, a.ids, (ids) => out(c, (slot) =>
    m._tfp_model_logit_attribution(modelPtr, ids, a.ids.length, a.answer, a.foil, slot)));
  try {
    const t = new Map(c.tensors(list).map((x) => [x.name, x]));
    const one = (name: string) => t.get(name)?.data[0] ?? null;
    const metric = t.get('metric')!.data;
    return {
      metric: metric[0]!, sum: metric[1]!, residual: metric[2]!, embed: one('embed')!, posEmbed: one('pos_embed'),
      heads: { data: t.get('heads')!.data, dims: t.get('heads')!.dims }, attnBias: t.get('attn_bias')!.data,
      mlp: t.get('mlp')!.data, normBias: one('norm_bias')!, accumulated: t.get('accumulated')!.data,
      workerMs: performance.now() - started,
    };
  } finally {
    m._tfp_tensors_free(list);
  }
}

/** tfp_model_gradient_attribution: gradient × input, its norm and integrated gradients. */
export function gradientAttribution(c: Calls, m: TfpModule, modelPtr: number, a: GradientAttributionArgs): GradientAttributionResult {
  const started = performance.now();
  const list = withInts(c, a.ids, (ids) => out(c, (slot) =>
    m._tfp_model_gradient_attribution(modelPtr, ids, a.ids.length, a.answer, a.foil, a.metric === 'logprob' ? 1 : 0, a.steps,
                                      a.position ?? -1, slot)));
  try {
    const t = new Map(c.tensors(list).map((x) => [x.name, x]));
    const metric = t.get('metric')!.data, complete = t.get('completeness')?.data;
    return {
      metric: metric[0]!, baseline: metric[1]!, gradXInput: t.get('grad_x_input')!.data, gradNorm: t.get('grad_norm')!.data,
      integrated: t.get('integrated')?.data ?? null, integratedSum: complete?.[0] ?? null, completenessGap: complete?.[1] ?? null,
      steps: a.steps, workerMs: performance.now() - started,
    };
  } finally {
    m._tfp_tensors_free(list);
  }
}

/** tfp_model_integrated_gradients: one range of integrated gradients' steps. */
export function integratedGradients(c: Calls, m: TfpModule, modelPtr: number, a: IntegratedGradientsArgs): IntegratedGradientsPart {
  const started = performance.now();
  const list = withInts(c, a.ids, (ids) => out(c, (slot) =>
    m._tfp_model_integrated_gradients(modelPtr, ids, a.ids.length, a.answer, a.foil, a.metric === 'logprob' ? 1 : 0, a.steps,
                                      a.first, a.count, a.position ?? -1, slot)));
  try {
    const t = new Map(c.tensors(list).map((x) => [x.name, x]));
    return { integrated: t.get('integrated')!.data, baseline: t.get('baseline')?.data[0] ?? null, workerMs: performance.now() - started };
  } finally {
    m._tfp_tensors_free(list);
  }
}

/** tfp_model_head_ablation: the metric with each head's output zeroed or mean-ablated. */
export function headAblation(c: Calls, m: TfpModule, modelPtr: number, a: HeadAblationArgs): HeadAblationResult {
  const started = performance.now();
  const list = withInts(c, a.ids, (ids) => out(c, (slot) =>
    m._tfp_model_head_ablation(modelPtr, ids, a.ids.length, a.answer, a.foil, a.mode === 'zero' ? 0 : 1, slot)));
  try {
    const metric = c.tensor(list, 'metric').data;
    return { logitDiff: metric[0]!, logprob: metric[1]!, ablatedLogitDiff: c.tensor(list, 'logit_diff'),
             ablatedLogprob: c.tensor(list, 'logprob'), workerMs: performance.now() - started };
  } finally {
    m._tfp_tensors_free(list);
  }
}
