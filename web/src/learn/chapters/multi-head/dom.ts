// Chapter 6's small shared pieces: DOM helpers bound to the chapter's text, number
// formats, a table of numbers for the figures' table alternatives, and the (h, T, d_k) →
// (T, d_model) arrangement of per-head rows (data movement, no maths).
import type { Chapter, TextParams } from '../../chapter';
import { proseHtml } from '../../maths';
import { locale } from '../../../i18n/i18n';
import type { FloatTensor } from '../../../engine/engine';
import { formatNumber } from '../../../widgets/number_matrix';
import type { TEXT } from './text';

export type Key = keyof typeof TEXT.en;
export type MhChapter = Chapter<Key>;

// ---- small DOM helpers -------------------------------------------------------------

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

/** Text of `key` now and after each language switch (HTML with maths when `html`). */
export function bind(ch: MhChapter, e: HTMLElement, key: Key, params?: () => TextParams, html = false): void {
  const render = () => {
    const s = ch.t(key, params?.());
    if (html) e.innerHTML = proseHtml(s);
    else e.textContent = s;
  };
  render();
  ch.onLocale(render);
}

/** A labelled control: <div class="field"><label for=id>…</label>input</div>. */
export function field(ch: MhChapter, key: Key, input: HTMLElement, id: string): HTMLElement {
  const f = el('div', 'field');
  const l = el('label');
  l.htmlFor = id;
  input.id = id;
  bind(ch, l, key);
  f.append(l, input);
  return f;
}

/** A segmented choice (radio buttons) in a fieldset. */
export function segmented(ch: MhChapter, key: Key, name: string, values: number[], value: number, onPick: (v: number) => void): HTMLElement {
  const fs = el('fieldset', 'field');
  const legend = el('legend');
  bind(ch, legend, key);
  const seg = el('div', 'segmented');
  values.forEach((v) => {
    const r = el('input');
    r.type = 'radio';
    r.name = name;
    r.id = `${name}-${v}`;
    r.value = String(v);
    r.checked = v === value;
    r.addEventListener('change', () => { if (r.checked) onPick(v); });
    const l = el('label');
    l.htmlFor = r.id;
    l.textContent = String(v);
    seg.append(r, l);
  });
  fs.append(legend, seg);
  return fs;
}

export const nf = () => new Intl.NumberFormat(locale());
export const fmt = (v: number) => nf().format(v);
export const pct = (v: number) => (Number.isFinite(v) ? new Intl.NumberFormat(locale(), { style: 'percent', maximumFractionDigits: 1 }).format(v) : '—');
export const fixed = (v: number, d = 3) => (Number.isFinite(v) ? formatNumber(v, d) : '—');

/** An HTML table of a (rows, cols) block of numbers, for the figures' table alternatives. */
export function numberTable(caption: string, rowLabels: string[], colLabels: string[], values: ArrayLike<number>, digits = 3): HTMLTableElement {
  const table = el('table');
  table.createCaption().textContent = caption;
  const head = table.createTHead().insertRow();
  head.append(el('th'));
  colLabels.forEach((c) => { const th = el('th'); th.scope = 'col'; th.textContent = c; head.append(th); });
  const body = table.createTBody();
  rowLabels.forEach((r, i) => {
    const tr = body.insertRow();
    const th = el('th');
    th.scope = 'row';
    th.textContent = r;
    tr.append(th);
    colLabels.forEach((_, j) => { tr.insertCell().textContent = formatNumber(values[i * colLabels.length + j]!, digits); });
  });
  return table;
}

/** (H, T, D) per-head rows side by side: (T, H·D), head h in columns [h·D, (h+1)·D).
 *  Data movement only — the engine's "concatenation" before W_O. */
export function concatHeads(t: FloatTensor): Float32Array {
  const [H, T, D] = t.dims as [number, number, number];
  const out = new Float32Array(T * H * D);
  for (let h = 0; h < H; h++)
    for (let i = 0; i < T; i++) out.set(t.data.subarray((h * T + i) * D, (h * T + i + 1) * D), i * H * D + h * D);
  return out;
}

