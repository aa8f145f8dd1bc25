// The worker's side of tfp_model_attention_steps (src/api/tfp_inspect_api.h): the
// query–key drill-down of one attention row. Marshalling only — the engine runs the
// model, records that block's q, k, v and mask, and replays the row; every number comes
// back from it. Heap views are made at the moment of use and copied out.
import type { TfpModule } from './wasm/tfp.mjs';
import { TfpError, type Calls } from './calls';
import type { AttentionStepsArgs, AttentionStepsResult } from './messages';
import { withParams } from './params.mjs';

const SETS = ['enc', 'dec', 'cross'] as const;

/** Runs the drill-down on the model at `modelPtr` (a tfp_model*). */
export function attentionSteps(c: Calls, m: TfpModule, modelPtr: number, a: AttentionStepsArgs): AttentionStepsResult {
  const started = performance.now();
  if (!SETS.includes(a.set)) throw new TfpError(1, `attentionSteps: set '${String(a.set)}' is not enc, dec or cross`);
  const ptrs: number[] = [];
  const ints = (x: Int32Array | undefined, what: string): number => {
    if (!x) return 0;
    if (what !== 'tgtIds' && x.length !== a.ids.length)
      throw new TfpError(1, `attentionSteps: ${what} has ${x.length} values for ${a.ids.length} tokens`);
    const p = c.put(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
    ptrs.push(p);
    return p;
  };
  try {
    const ids = ints(a.ids, 'ids'), types = ints(a.tokenTypeIds, 'tokenTypeIds');
    const mask = ints(a.attentionMask, 'attentionMask'), tgt = ints(a.tgtIds, 'tgtIds');
    const set = c.put(new TextEncoder().encode(a.set + '\0'));
    ptrs.push(set);
    const list = c.withBuffer(4, (slot) => {
      c.check(withParams(m, 'tfp_forward_params', {
        ids, n: a.ids.length, token_type_ids: types, attention_mask: mask, tgt_ids: tgt, n_tgt: a.tgtIds?.length ?? 0,
      }, (p) => m._tfp_model_attention_steps(modelPtr, p, set, a.layer, a.head, a.query, slot)));
      return c.readU32(slot);
    });
    return readSteps(c, m, list, started);
  } finally {
    ptrs.forEach((p) => c.free(p));
  }
}

/** Copies a steps tensor list (either drill-down entry point's) out and frees it. */
export function readSteps(c: Calls, m: TfpModule, list: number, started: number): AttentionStepsResult {
  try {
    const t = (name: string) => c.tensor(list, name);
    // The family's machinery (soft-cap, partial rotary, local window), where the engine gives it.
    const has = (name: string) => c.withBuffer(name.length + 1, (p) => {
      m.HEAPU8.set(new TextEncoder().encode(name + '\0'), p);
      return m._tfp_tensors_find(list, p) >= 0;
    });
    const one = (name: string) => (has(name) ? { [name]: t(name).data[0]! } : {});
    const extra = { ...one('softcap'), ...one('rotary_dims'), ...one('window') };
    return {
      q: t('q'), k: t('k'), v: t('v'), scores: t('scores'), scaled: t('scaled'), bias: t('bias'), mask: t('mask'),
      logits: t('logits'), probs: t('probs'), weightedV: t('weighted_v'), out: t('out'),
      scale: t('scale').data[0]!, workerMs: performance.now() - started,
      ...(has('capped') ? { capped: t('capped') } : {}),
      ...(extra.softcap !== undefined ? { softcap: extra.softcap } : {}),
      ...(extra.rotary_dims !== undefined ? { rotaryDims: extra.rotary_dims } : {}),
      ...(extra.window !== undefined ? { window: extra.window } : {}),
    };
  } finally {
    m._tfp_tensors_free(list);
  }
}
