// The masks the attention views draw hatched over a map (Tq, Tk): the causal mask (keys
// after the query) and a local layer's window. The same array is returned while the shape
// stays, so that a widget can tell nothing changed and skip repainting. Read-only. And what
// a model's config says about its maps (grouped KV heads, local layers, positions).
import type { ModelInfo } from '../engine/messages';

let lastMask: { Tq: number; Tk: number; m: Float32Array } | null = null;
/** The causal mask (Tq, Tk); the same array while the shape stays, so the widgets can
 *  tell that nothing changed and skip repainting. Read-only. */
export function causalMask(Tq: number, Tk: number): Float32Array {
  if (lastMask && lastMask.Tq === Tq && lastMask.Tk === Tk) return lastMask.m;
  const m = new Float32Array(Tq * Tk);
  const offset = Tk - Tq;
  for (let i = 0; i < Tq; i++) for (let j = 0; j < Tk; j++) m[i * Tk + j] = j > i + offset ? 1 : 0;
  lastMask = { Tq, Tk, m };
  return m;
}

const windowMasks = new Map<string, Float32Array>();
/** The causal mask of a local layer (Tq, Tk): also the keys W or more positions before
 *  the query (the engine's sliding window: key j visible iff i - j < W), drawn hatched as
 *  the future is. Cached per shape and window, read-only. */
export function localMask(Tq: number, Tk: number, W: number): Float32Array {
  const key = `${Tq}|${Tk}|${W}`;
  let m = windowMasks.get(key);
  if (m) return m;
  if (windowMasks.size > 16) windowMasks.clear();
  m = new Float32Array(Tq * Tk);
  const offset = Tk - Tq;
  for (let i = 0; i < Tq; i++) for (let j = 0; j < Tk; j++) m[i * Tk + j] = j > i + offset || i + offset - j >= W ? 1 : 0;
  windowMasks.set(key, m);
  return m;
}

const num = (c: Record<string, unknown>, k: string): number | undefined => (typeof c[k] === 'number' ? (c[k] as number) : undefined);

/** What the inspector needs to mark a model's families: KV heads, per-layer windows and
 *  how positions enter (read from the engine's config). */
export interface FamilyMachinery {
  /** Key/value heads when fewer than the query heads (grouped-query attention). */
  kvHeads?: number;
  /** Per layer of the decoder (or an encoder-only model's encoder): window in keys, 0 = global. */
  windows?: number[];
  positional: string;
  /** The config's own score scale (absent: 1/√d_k). */
  attnScale?: number;
}

export function machinery(info: ModelInfo): FamilyMachinery {
  const c = info.config ?? {};
  const kv = num(c, 'n_kv_heads');
  const windows = Array.isArray(c['layer_windows']) ? (c['layer_windows'] as unknown[]).map((w) => (typeof w === 'number' ? w : 0)) : [];
  const scale = num(c, 'attn_scale');
  return {
    ...(kv !== undefined && kv > 0 && kv < info.n_heads ? { kvHeads: kv } : {}),
    ...(windows.some((w) => w > 0) ? { windows } : {}),
    positional: typeof c['positional'] === 'string' ? (c['positional'] as string) : 'none',
    ...(scale !== undefined && scale > 0 ? { attnScale: scale } : {}),
  };
}
