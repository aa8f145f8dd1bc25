// Activation patching (issue 33) as the page calls it: Model.activationPatching runs the
// engine's sweeps (tfp_model_activation_patching, src/api/tfp_patch_api.h) one sweep and
// one layer per worker request, so a long sweep reports progress and stops between
// requests, then joins the rows into whole tables. Every number comes from the engine;
// the conventions are TransformerLens's (patching.py).
import type { ModelInfo, NamedTensor, PatchingArgs, Reply } from './messages';

/** The one request this module sends (Model.request narrowed to it). */
type PatchingRequest = (body: { kind: 'activation-patching'; model: number; args: PatchingArgs }) => Promise<Reply>;

/** The sweeps, in the engine's order; each one's bit is 1 << its index. */
export const PATCH_SWEEPS = ['resid', 'attn_out', 'mlp_out', 'head_all', 'head_pos', 'head_q', 'head_k', 'head_v', 'head_pattern'] as const;
export type PatchSweep = (typeof PATCH_SWEEPS)[number];

export interface PatchMetric {
  /** logit(answer) − logit(foil) at the last position. */
  logitDiff: number;
  /** log softmax(logits)[answer] at the last position. */
  logprob: number;
}

/** One sweep's tables, row-major in `dims`: resid (L+1, T), attn_out and mlp_out (L, T),
 * head_all (L, H), head_pos (L, T, H); each head's queries, keys, values and pattern at every
 * position: head_q (L, H), head_k and head_v (L, Hkv) (one per key/value head), head_pattern (L, H). */
export interface PatchSweepResult {
  dims: number[];
  logitDiff: Float32Array;
  logprob: Float32Array;
  /** (patched − corrupted) / (clean − corrupted); null when clean and corrupted are equal. */
  logitDiffNorm: Float32Array | null;
  logprobNorm: Float32Array | null;
}

export interface ActivationPatchingResult {
  clean: PatchMetric;
  corrupted: PatchMetric;
  sweeps: Partial<Record<PatchSweep, PatchSweepResult>>;
  /** Forward passes the engine ran for the cells (two more per request for the baselines). */
  passes: number;
  workerMs: number;
}

export interface PatchingProgress {
  sweep: PatchSweep;
  layer: number;
  /** Cells (patched forward passes) done and in all. */
  done: number;
  total: number;
}

export interface ActivationPatchingOptions {
  /** The answer token id and the foil (the metric's second token; may equal the answer). */
  answer: number;
  foil: number;
  /** Default: every sweep. */
  sweeps?: readonly PatchSweep[];
  /** Called after each layer of each sweep. */
  onProgress?: (p: PatchingProgress) => void;
  /** Aborting stops the sweep between two layers; the promise rejects with the reason. */
  signal?: AbortSignal;
}

/** The layer rows of `sweep` (resid has one more: after the last block) and each row's cells. */
export function sweepShape(sweep: PatchSweep, L: number, T: number, H: number, Hkv = H): { rows: number; cells: number; dims: number[] } {
  switch (sweep) {
    case 'resid': return { rows: L + 1, cells: T, dims: [L + 1, T] };
    case 'attn_out':
    case 'mlp_out': return { rows: L, cells: T, dims: [L, T] };
    case 'head_all': return { rows: L, cells: H, dims: [L, H] };
    case 'head_pos': return { rows: L, cells: T * H, dims: [L, T, H] };
    case 'head_q':
    case 'head_pattern': return { rows: L, cells: H, dims: [L, H] };
    case 'head_k':
    case 'head_v': return { rows: L, cells: Hkv, dims: [L, Hkv] };
  }
}

export async function activationPatching(request: PatchingRequest, model: number, info: ModelInfo,
                                         clean: ArrayLike<number>, corrupted: ArrayLike<number>,
                                         o: ActivationPatchingOptions): Promise<ActivationPatchingResult> {
  const sweeps = o.sweeps ?? PATCH_SWEEPS;
  for (const s of sweeps)
    if (!PATCH_SWEEPS.includes(s)) throw new RangeError(`activationPatching: sweep '${String(s)}' is not one of ${PATCH_SWEEPS.join(', ')}`);
  if (sweeps.length === 0) throw new RangeError('activationPatching: no sweep asked for');
  const L = info.n_decoder_layers, T = clean.length, H = info.n_heads, Hkv = kvHeads(info);
  const total = sweeps.reduce((n, s) => { const sh = sweepShape(s, L, T, H, Hkv); return n + sh.rows * sh.cells; }, 0);
  const base = { clean: Int32Array.from(clean), corrupted: Int32Array.from(corrupted), answer: o.answer, foil: o.foil };
  let metric: Float32Array | null = null, done = 0, workerMs = 0;
  const out: Partial<Record<PatchSweep, PatchSweepResult>> = {};
  for (const sweep of sweeps) {
    const { rows, cells, dims } = sweepShape(sweep, L, T, H, Hkv);
    const tables = new Map<string, Float32Array>();
    for (let layer = 0; layer < rows; layer++) {
      o.signal?.throwIfAborted();
      const args: PatchingArgs = { ...base, kinds: 1 << PATCH_SWEEPS.indexOf(sweep), layer };
      const r = await request({ kind: 'activation-patching', model, args });
      if (!(r.ok && r.kind === 'activation-patching')) throw new Error('engine: unexpected reply to activationPatching');
      workerMs += r.result.workerMs;
      for (const t of r.result.tensors) {
        if (t.name === 'metric') { metric ??= t.data; continue; }
        const leaf = t.name.slice(sweep.length + 1);
        let whole = tables.get(leaf);
        if (!whole) tables.set(leaf, (whole = new Float32Array(rows * cells)));
        whole.set(rowOf(t, cells), layer * cells);
      }
      done += cells;
      o.onProgress?.({ sweep, layer, done, total });
    }
    out[sweep] = {
      dims, logitDiff: tables.get('logit_diff')!, logprob: tables.get('logprob')!,
      logitDiffNorm: tables.get('logit_diff_norm') ?? null, logprobNorm: tables.get('logprob_norm') ?? null,
    };
  }
  const m = metric!;
  return {
    clean: { logitDiff: m[0]!, logprob: m[2]! }, corrupted: { logitDiff: m[1]!, logprob: m[3]! },
    sweeps: out, passes: total, workerMs,
  };
}

/** Key/value heads: config.json's n_kv_heads where the model groups its queries, else one per head. */
export function kvHeads(info: ModelInfo): number {
  return Number(info.config['n_kv_heads'] ?? 0) || info.n_heads;
}

function rowOf(t: NamedTensor, cells: number): Float32Array {
  if (t.data.length !== cells) throw new Error(`activationPatching: ${t.name} has ${t.data.length} values, expected ${cells}`);
  return t.data;
}
