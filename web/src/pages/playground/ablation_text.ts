// The ablated heads as the URL carries them: "set.layer.head=factor" entries, 1-based,
// sorted, comma-separated, e.g. "dec.1.2=0,enc.2.1=0.5"; factor 1 is never written.
// Parsed and written here, for the page's state (state.ts) and the controls (ablation.ts).
import type { AttnSet } from '../../widgets/attention_families';

export interface Ablated {
  set: AttnSet;
  layer: number;  // 0-based
  head: number;   // 0-based
  scale: number;  // finite, != 1
}

const ENTRY = /^(enc|dec|cross)\.(\d{1,4})\.(\d{1,4})=(-?\d+(?:\.\d+)?)$/;

export function parseAblation(text: string): Ablated[] {
  const out = new Map<string, Ablated>();
  for (const part of text.split(',')) {
    const m = ENTRY.exec(part.trim());
    if (!m) continue;
    const layer = Number(m[2]) - 1, head = Number(m[3]) - 1, scale = Number(m[4]);
    if (layer < 0 || head < 0 || !Number.isFinite(scale) || Math.abs(scale) > 100 || scale === 1) continue;
    out.set(`${m[1]}.${layer}.${head}`, { set: m[1] as AttnSet, layer, head, scale });
  }
  return [...out.values()];
}

export function formatAblation(list: Ablated[]): string {
  const order = { enc: 0, dec: 1, cross: 2 } as const;
  return list.filter((a) => a.scale !== 1)
    .sort((a, b) => order[a.set] - order[b.set] || a.layer - b.layer || a.head - b.head)
    .map((a) => `${a.set}.${a.layer + 1}.${a.head + 1}=${Number(a.scale.toFixed(3))}`).join(',');
}

/** The canonical text of whatever the URL held (unknown parts dropped). */
export function canonicalAblation(text: string): string {
  return formatAblation(parseAblation(text));
}

export function scaleOf(text: string, set: AttnSet, layer: number, head: number): number {
  return parseAblation(text).find((a) => a.set === set && a.layer === layer && a.head === head)?.scale ?? 1;
}

/** `text` with one head's factor changed (1 removes it). */
export function withScale(text: string, set: AttnSet, layer: number, head: number, scale: number): string {
  const rest = parseAblation(text).filter((a) => !(a.set === set && a.layer === layer && a.head === head));
  return formatAblation(scale === 1 ? rest : [...rest, { set, layer, head, scale }]);
}
