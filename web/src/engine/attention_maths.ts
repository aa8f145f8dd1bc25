// The worker's side of the inspector's maths on attention maps the caller already has
// (src/api/tfp_inspect_api.h): attention rollout (tfp_attention_rollout) and per-head
// statistics (tfp_attention_head_stats). Marshalling only: the maps are copied into the
// heap, the engine computes, the result is copied out. Stateless, so the maps may come
// from any forward pass, translation or file.
//
// Legend: L layers, H heads, T tokens, Tq queries, Tk keys.
import type { TfpModule } from './wasm/tfp.mjs';
import { TfpError, type Calls } from './calls';
import type { FloatTensor, HeadScoresOptions, HeadStatsOptions, RolloutArgs } from './messages';

const FUSIONS = { mean: 0, max: 1, min: 2 } as const;

/** dims as [a, b, c] after checking rank 3 and the data length. */
function dims3(t: FloatTensor, what: string): [number, number, number] {
  const n = t.dims.reduce((a, b) => a * b, 1);
  if (t.dims.length !== 3 || t.dims.some((d) => !Number.isInteger(d) || d < 1) || t.data.length !== n)
    throw new TfpError(1, `${what}: expected (H, Tq, Tk) maps, got dims [${t.dims.join(', ')}] with ${t.data.length} values`);
  return t.dims as [number, number, number];
}

/** layers: L × (H, T, T), in forward order → (L, T, T): slice l is the rollout after layer l. */
export function attentionRollout(c: Calls, m: TfpModule, a: RolloutArgs): FloatTensor {
  if (a.layers.length === 0) throw new TfpError(1, 'rollout: no layers');
  const [H, T, Tk] = dims3(a.layers[0]!, 'rollout: layer 1');
  if (T !== Tk) throw new TfpError(1, `rollout: layer 1 is (${H}, ${T}, ${Tk}): rollout chains square self-attention maps`);
  a.layers.forEach((l, i) => {
    const d = dims3(l, `rollout: layer ${i + 1}`);
    if (d[0] !== H || d[1] !== T || d[2] !== T)
      throw new TfpError(1, `rollout: layer ${i + 1} is (${d.join(', ')}), layer 1 (${H}, ${T}, ${T})`);
  });
  const fusion = FUSIONS[a.fusion ?? 'mean'];
  if (fusion === undefined) throw new TfpError(1, `rollout: fusion '${String(a.fusion)}' is not mean, max or min`);
  const L = a.layers.length, per = H * T * T;
  return c.withBuffer(L * per * 4, (probs) => c.withBuffer(L * T * T * 4, (out) => {
    // Each layer straight into its slice of (L, H, T, T); the heap view is taken per copy.
    a.layers.forEach((l, i) => new Float32Array(m.HEAPU8.buffer, probs + i * per * 4, per).set(l.data));
    c.check(m._tfp_attention_rollout(probs, L, H, T, a.residual ?? 0.5, fusion, out));
    return { data: new Float32Array(m.HEAPU8.buffer, out, L * T * T).slice(), dims: [L, T, T] };
  }));
}

/** Each map (H, Tq, Tk) → (H, 4): entropy (nats), mean attention distance (tokens),
 * share on the first key, share on the previous token, over the rows that had at least
 * two keys to choose from (NaN where none had: T = 1). */
export function headStats(c: Calls, m: TfpModule, maps: FloatTensor[], o: HeadStatsOptions = {}): FloatTensor[] {
  return maps.map((t, i) => {
    const [H, Tq, Tk] = dims3(t, `headStats: map ${i + 1}`);
    if (o.masked && o.masked.length !== Tq * Tk)
      throw new TfpError(1, `headStats: map ${i + 1} is (${H}, ${Tq}, ${Tk}), its mask has ${o.masked.length} values, not ${Tq}×${Tk}`);
    const maskBytes = o.masked ? Tq * Tk : 0;
    return c.withBuffer(t.data.byteLength, (probs) => c.withBuffer(H * 4 * 4, (out) => c.withBuffer(Math.max(1, maskBytes), (mask) => {
      new Float32Array(m.HEAPU8.buffer, probs, t.data.length).set(t.data);
      if (o.masked) m.HEAPU8.set(o.masked, mask);
      c.check(m._tfp_attention_head_stats_masked(probs, H, Tq, Tk, o.causal ? 1 : 0, o.masked ? mask : 0, out));
      return { data: new Float32Array(m.HEAPU8.buffer, out, H * 4).slice(), dims: [H, 4] };
    })));
  });
}

/** Each square map (H, T, T) → (H, 6), the head finders (tfp_attention_head_scores):
 * TransformerLens detect_head's "mul" previous-token, duplicate-token and induction
 * scores, then the plain definitions over the second repeat, on `o.tokens` (T). */
export function headScores(c: Calls, m: TfpModule, maps: FloatTensor[], o: HeadScoresOptions): FloatTensor[] {
  return maps.map((t, i) => {
    const [H, T, Tk] = dims3(t, `headScores: map ${i + 1}`);
    if (T !== Tk) throw new TfpError(1, `headScores: map ${i + 1} is (${H}, ${T}, ${Tk}): the head finders read square self-attention maps`);
    if (o.tokens.length !== T) throw new TfpError(1, `headScores: map ${i + 1} has ${T} positions, tokens ${o.tokens.length}`);
    const flags = (o.excludeBos ? 1 : 0) | (o.excludeCurrent ? 2 : 0);
    return c.withBuffer(t.data.byteLength, (probs) => c.withBuffer(T * 4, (tokens) => c.withBuffer(H * 6 * 4, (out) => {
      new Float32Array(m.HEAPU8.buffer, probs, t.data.length).set(t.data);
      new Int32Array(m.HEAPU8.buffer, tokens, T).set(o.tokens);
      c.check(m._tfp_attention_head_scores(probs, H, T, tokens, o.repeat, flags, out));
      return { data: new Float32Array(m.HEAPU8.buffer, out, H * 6).slice(), dims: [H, 6] };
    })));
  });
}
