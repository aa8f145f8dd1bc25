// The encoder-layer chapter's small shared pieces: DOM helpers bound to the chapter's
// text, number formats, and a table of numbers for the figures' table alternatives.
import type { Chapter, TextParams } from '../../chapter';
import { proseHtml } from '../../maths';
import { locale } from '../../../i18n/i18n';
import { formatNumber } from '../../../widgets/number_matrix';
import type { Key } from './text';

export type EncChapter = Chapter<Key>;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

/** Text of `key` now and after each language switch (HTML with maths when `html`). */
export function bind(ch: EncChapter, e: HTMLElement, key: Key, params?: () => TextParams, html = false): () => void {
  const render = () => {
    const s = ch.t(key, params?.());
    if (html) e.innerHTML = proseHtml(s);
    else e.textContent = s;
  };
  render();
  ch.onLocale(render);
  return render;
}

/** A labelled control: <div class="field"><label for=id>…</label>input</div>. */
export function field(ch: EncChapter, key: Key, input: HTMLElement, id: string, params?: () => TextParams): { element: HTMLElement; relabel: () => void } {
  const f = el('div', 'field');
  const l = el('label');
  l.htmlFor = id;
  input.id = id;
  const relabel = bind(ch, l, key, params);
  f.append(l, input);
  return { element: f, relabel };
}

export const fixed = (v: number, d = 3) => (Number.isFinite(v) ? formatNumber(v, d) : '—');
export const pct = (v: number) => (Number.isFinite(v) ? new Intl.NumberFormat(locale(), { style: 'percent', maximumFractionDigits: 0 }).format(v) : '—');
export const listSep = () => (locale() === 'zh-CN' ? '；' : '; ');

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
    colLabels.forEach((_, j) => { tr.insertCell().textContent = fixed(values[i * colLabels.length + j]!, digits); });
  });
  return table;
}
