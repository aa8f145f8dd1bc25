// What the sections of the chapter "Additive (Bahdanau) attention" share: the chapter
// shell, its words, the engine, the hand figure's fixed sizes, and small DOM helpers. No
// maths here: every number shown comes from the engine (learn_calls/additive.ts).
import type { Engine } from 'transformer-playground';
import type { FloatTensor } from '../../../engine/messages';
import { onLocaleChange, type Label } from '../../../i18n/i18n';
import { formatNumber } from '../../../widgets/number_matrix';
import { startChapter } from '../../chapter';
import { TEXT } from './text';

export type Key = keyof typeof TEXT.en;
export const ch = startChapter('additive-attention', TEXT);
export const t = (k: Key, p?: Record<string, string | number>) => ch.t(k, p);
export const lt = (k: Key, p?: Record<string, string | number>): Label => () => t(k, p);
/** window.tfpLearn.state: each section's inputs and the engine's last results (tests read them). */
export const debug = ch.debug.state as Record<string, unknown>;

let engineP: Promise<Engine> | null = null;
export const engine = () => (engineP ??= ch.engine());

/** The hand figure: I love you → 我爱你, D-wide states, attention width A. */
export const SRC = ['I', 'love', 'you'];
export const TGT = ['我', '爱', '你'];
export const D = 2, A = 2, TK = 3, TQ = 3;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
/** Text bound to the locale (re-rendered on a switch). */
export function bound<E extends HTMLElement>(e: E, text: () => string): E {
  e.textContent = text();
  onLocaleChange(() => { e.textContent = text(); });
  return e;
}
export const fmt = (v: number, digits = 3) => formatNumber(v, digits);
/** The index of the largest of n values from `from` (a choice, not maths). */
export const argmax = (a: ArrayLike<number>, from = 0, n = a.length): number => {
  let best = 0;
  for (let j = 1; j < n; j++) if (a[from + j]! > a[from + best]!) best = j;
  return best;
};
export const mat = (data: ArrayLike<number>, rows: number, cols: number): FloatTensor => ({ data: Float32Array.from(data), dims: [rows, cols] });
export const row = (m: FloatTensor, i: number): Float32Array => {
  const n = m.dims[m.dims.length - 1]!;
  return m.data.subarray(i * n, (i + 1) * n);
};
export const charLabel = (c: string) => (c === ' ' ? '␣' : c);

/** A plain HTML table (the figures' data-table alternative). */
export function valuesTable(host: HTMLElement, caption: string, corner: string, cols: string[], rows: { label: string; values: (number | string)[] }[], digits = 4): void {
  const table = el('table');
  table.createCaption().textContent = caption;
  const head = table.createTHead().insertRow();
  for (const c of [corner, ...cols]) {
    const th = el('th', undefined, c);
    th.scope = 'col';
    head.append(th);
  }
  const body = table.createTBody();
  for (const r of rows) {
    const tr = body.insertRow();
    const th = el('th', undefined, r.label);
    th.scope = 'row';
    tr.append(th);
    for (const v of r.values) tr.insertCell().textContent = typeof v === 'number' ? fmt(v, digits) : v;
  }
  host.append(table);
}

/** A row of elements that wraps. */
export function flexRow(...els: HTMLElement[]): HTMLElement {
  const d = el('div', 'additive-row');
  d.append(...els);
  return d;
}
