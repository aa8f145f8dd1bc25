// What one drill-down row shows and goes through: its input (family, layer, head, query and
// the engine's steps) and the machinery beyond q·k/√d_k + mask (soft-cap, rotated
// dimensions, window, the positional bias), shared by the drill-down's table
// (drilldown.ts) and its SVG export (drill_svg.ts).
import type { AttentionStepsResult } from '../engine/messages';
import type { AttentionFamily } from './attention_families';

export interface DrillInput {
  family: AttentionFamily;
  layer: number;
  head: number;
  query: number;
  steps: AttentionStepsResult;
  /** A key picked in the token strip (cross-attention: a source token), marked; or null. */
  key: number | null;
}

/** What a row of the drill-down goes through, beyond q·k/√d_k + mask: read from the
 *  engine's steps (soft-cap, rotated dimensions, window) and the model's description
 *  (its own scale, how positions enter). */
export interface Machinery {
  /** The model's own scale (absent: 1/√d_k). */
  ownScale: boolean;
  softcap: number;
  /** Dimensions RoPE rotated: 0 none, D all, between: partial. */
  rotaryDims: number;
  window: number;
  /** 'alibi' | 'relative' when the bias column holds the positions, else null. */
  biasKind: 'alibi' | 'relative' | null;
  /** Some unmasked key has a non-zero bias. */
  biasShown: boolean;
}

export function machineryOf(f: AttentionFamily, r: AttentionStepsResult): Machinery {
  const kind = f.positional === 'alibi' || f.positional === 'relative' ? f.positional : null;
  const biasShown = Array.from(r.bias.data).some((b, j) => b !== 0 && r.mask.data[j] === 0);
  return { ownScale: f.attnScale !== undefined, softcap: r.softcap ?? 0, rotaryDims: r.rotaryDims ?? 0, window: r.window ?? 0,
           biasKind: kind, biasShown };
}
