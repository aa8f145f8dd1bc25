// The gradient panel of the patching view (issue 33): for the metric at the last position,
// one row per measure over the prompt's positions — where the inspected head looks from
// the last query (its attention row), gradient × input, the gradient's norm, integrated
// gradients — so where a head reads and what the metric depends on stand side by side.
// Each row is drawn divided by its own largest magnitude (their units differ); the raw
// numbers are in the row's hint, the CSV and the page's tests. Every number is the
// engine's (Model.gradientAttribution; the forward pass's attention maps).
import type { GradientAttributionResult } from 'transformer-playground';
import { t as tr, type MessageKey } from '../../i18n/i18n';

export interface GradientRows {
  labels: string[];
  /** (rows) what each row is, in full, with its scale (the heatmap's row hints). */
  hints: string[];
  /** (rows, T) each row as computed. */
  raw: Float32Array[];
  /** (rows · T) each row over its largest |value| (what the heatmap draws). */
  scaled: Float32Array;
  /** (rows) that largest |value|. */
  scales: number[];
}

export function gradientRows(g: GradientAttributionResult, attention: Float32Array | null, layer: number, head: number): GradientRows {
  const labels: string[] = [], long: string[] = [], raw: Float32Array[] = [];
  const at = { layer: layer + 1, head: head + 1 };
  const add = (label: MessageKey, what: MessageKey, row: Float32Array) => {
    labels.push(tr(label, at));
    long.push(tr(what, at));
    raw.push(row);
  };
  if (attention) add('play.patch.gradAttention', 'play.patch.gradAttentionLong', attention);
  add('play.patch.gradXInput', 'play.patch.gradXInputLong', g.gradXInput);
  add('play.patch.gradNorm', 'play.patch.gradNormLong', g.gradNorm);
  if (g.integrated) add('play.patch.gradIntegrated', 'play.patch.gradIntegratedLong', g.integrated);
  const T = g.gradXInput.length;
  const scaled = new Float32Array(raw.length * T), scales: number[] = [];
  raw.forEach((row, r) => {
    let m = 0;
    for (const v of row) m = Math.max(m, Math.abs(v));
    scales.push(m);
    for (let t = 0; t < T; t++) scaled[r * T + t] = m > 0 ? row[t]! / m : 0;
  });
  const hints = long.map((what, r) => tr('play.patch.gradRowHint', { what, max: scales[r]!.toPrecision(4) }));
  return { labels, hints, raw, scaled, scales };
}

/** The rows as CSV: one line per measure, one column per position. */
export function gradientCsv(rows: GradientRows, positions: string[], g: GradientAttributionResult): string {
  return [['row', ...positions.map((p) => JSON.stringify(p))].join(','),
    ...rows.labels.map((label, r) => [JSON.stringify(label), ...Array.from(rows.raw[r]!, String)].join(',')),
    `metric,${g.metric}`, `baseline,${g.baseline}`, `integrated_sum,${g.integratedSum ?? ''}`,
    `completeness_gap,${g.completenessGap ?? ''}`, `steps,${g.steps}`].join('\n');
}
