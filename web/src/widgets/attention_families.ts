// The playground's attention maps, grouped as its views show them: a family is every map of
// one kind (encoder self-attention, decoder self-attention, cross-attention) of a forward
// pass, with its tokens and what the engine did to it (masks, grouped heads, windows).
// Data only: the inspector, the drill-down, the ablation controls and main.ts share it.

/** Which attention maps: encoder self, decoder self, decoder cross. */
export const SETS = ['enc', 'dec', 'cross'] as const;
export type AttnSet = (typeof SETS)[number];

/** One family of attention maps of a forward pass (e.g. every decoder self-attention). */
export interface AttentionFamily {
  set: AttnSet;
  label: string;
  names: string[];          // L engine names, "dec.0.attn.probs"
  layers: Float32Array[];   // L × (H, Tq, Tk)
  heads: number;
  rowTokens: string[];      // (Tq)
  colTokens: string[];      // (Tk)
  causal: boolean;          // keys after the query are masked
  /** (Tq) more about each row, shown on hover (cross-attention: the step's input token). */
  rowHints?: string[];
  /** The rows are decoder positions while the token strip shows the source (encoder–decoder
   *  'dec' and 'cross' sets): the strip picks keys there, not queries. */
  decoderRows?: boolean;
  /** The decoder rows are the tokens of a decoder input text (a model that reads vectors,
   *  vectors.ts), not the start mark and the translation so far; the strip's tokens are
   *  the encoder's input ('src') or a bare decoder's memory ('memory'). */
  decoderText?: 'src' | 'memory';
  /** The query the drill-down shows when none is picked (default: the last row; after a
   *  translation that ended, the row that produced the end token). */
  defaultRow?: number;
  /** Key/value heads shared by groups of query heads (grouped-query attention). */
  kvHeads?: number;
  /** Per layer: the local window in keys, 0 = global (local and global layers). */
  windows?: number[];
  /** How positions enter the model ("rope", "alibi", "relative", ...: the engine's config). */
  positional?: string;
  /** The model's own score scale (T5, GPT-Neo: 1; Gemma): absent = 1/√d_k. */
  attnScale?: number;
}

/** Head `head` of decoder self-attention layer `layer`: its row from the last query (Tk), or null. */
export function lastQueryRow(families: AttentionFamily[], layer: number, head: number): Float32Array | null {
  const f = families.find((x) => x.set === 'dec');
  const map = f?.layers[layer];
  if (!f || !map || head >= f.heads) return null;
  const T = f.rowTokens.length, K = f.colTokens.length;
  return map.slice((head * T + T - 1) * K, (head * T + T) * K);
}
