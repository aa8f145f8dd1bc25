// Vector bars: one vector (a query, a key, a head's output) as a strip of cells, one per
// component, coloured on a diverging scale — orange for positive, blue for negative,
// the panel colour at 0 (colour-blind safe: the two hues differ in lightness too) — with
// each value in the cell's tooltip and the whole vector in the accessible name.
// Plain elements, so the strip stretches to its container and never scrolls the page.
import { t } from '../i18n/i18n';

export interface VectorBarsOptions {
  /** Accessible name, e.g. "q, the query vector of token 3". */
  label: string;
  /** |value| that gets the full colour; default: the vector's own max |value|. */
  scale?: number;
  /** Decimals in tooltips and the accessible name. */
  digits?: number;
  /** Compact strips (table cells) are lower. */
  compact?: boolean;
  /** Partial rotation (RoPE on the first dimensions only): cells before this index are
   *  marked as rotated (underlined), a rule separates them from the unchanged rest. */
  rotated?: number;
}

/** The largest |value| of several vectors (a shared colour scale), at least 1e-12. */
export function maxAbs(...vs: ArrayLike<number>[]): number {
  let m = 1e-12;
  for (const v of vs) for (let i = 0; i < v.length; i++) m = Math.max(m, Math.abs(v[i]!));
  return m;
}

/** A new strip for `values` (D). */
export function vectorBars(values: ArrayLike<number>, o: VectorBarsOptions): HTMLElement {
  const digits = o.digits ?? 3;
  const scale = o.scale ?? maxAbs(values);
  const strip = document.createElement('span');
  strip.className = (o.compact ? 'vector-bars compact' : 'vector-bars') + (o.rotated !== undefined ? ' partial-rotary' : '');
  strip.setAttribute('role', 'img');
  const shown = Array.from(values, (v) => v.toFixed(digits));
  strip.setAttribute('aria-label', t('w.vectorLabel', { label: o.label, count: values.length, values: shown.join(', ') }));
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const cell = document.createElement('span');
    cell.className = o.rotated === undefined ? 'vb-cell' : i < o.rotated ? 'vb-cell vb-rot' : i === o.rotated ? 'vb-cell vb-split' : 'vb-cell';
    const t = Math.min(1, Math.abs(v) / scale);
    // color-mix with the panel colour: 0 is the background in either theme.
    cell.style.background = `color-mix(in srgb, var(${v >= 0 ? '--vec-pos' : '--vec-neg'}) ${Math.round(100 * t)}%, var(--panel))`;
    cell.title = `[${i}] ${shown[i]}`;
    strip.append(cell);
  }
  return strip;
}
