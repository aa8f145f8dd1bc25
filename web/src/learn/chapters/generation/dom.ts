// Small shared pieces of the chapter "Generating text": DOM helpers bound to the
// chapter's text, number formats and token spellings. No maths.
import type { Chapter, TextParams } from '../../chapter';
import { proseHtml } from '../../maths';
import { locale } from '../../../i18n/i18n';
import { visibleToken } from '../../../widgets/token_text';
import type { Key } from './text';

export type GenChapter = Chapter<Key>;
export const MODEL = 'brown-gpt';

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

/** Text of `key` now and after each language switch (HTML with maths when `html`). */
export function bind(ch: GenChapter, e: HTMLElement, key: Key, params?: () => TextParams, html = false): () => void {
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
export function field(ch: GenChapter, key: Key, input: HTMLElement, id: string, extra?: HTMLElement): HTMLElement {
  const f = el('div', 'field');
  const l = el('label');
  l.htmlFor = id;
  input.id = id;
  bind(ch, l, key);
  f.append(l, input);
  if (extra) f.append(extra);
  return f;
}

export function button(ch: GenChapter, key: Key, params?: () => TextParams): HTMLButtonElement {
  const b = el('button');
  b.type = 'button';
  bind(ch, b, key, params);
  return b;
}

/** A vocabulary spelling as the reader should see it ("Ġthe" → "·the"). */
export const tokenText = (t: string) => visibleToken(t, true);

export const pct = (v: number) => (Number.isFinite(v)
  ? new Intl.NumberFormat(locale(), { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(v) : '—');
export const num = (v: number, digits = 0) => new Intl.NumberFormat(locale(), { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(v);
/** A number for TeX: thousands separated by a thin space. */
export const texNum = (v: number) => String(v).replace(/\B(?=(\d{3})+(?!\d))/g, '\\,');

/** An HTML table: header cells, then rows of cells (strings). */
export function table(caption: string, head: string[], rows: (string | number)[][], cls = 'gen-table'): HTMLTableElement {
  const t = el('table', cls);
  t.createCaption().textContent = caption;
  const hr = t.createTHead().insertRow();
  head.forEach((h) => { const th = el('th'); th.scope = 'col'; th.textContent = h; hr.append(th); });
  const body = t.createTBody();
  rows.forEach((r) => {
    const tr = body.insertRow();
    r.forEach((c, i) => {
      if (i === 0) { const th = el('th'); th.scope = 'row'; th.textContent = String(c); tr.append(th); }
      else tr.insertCell().textContent = String(c);
    });
  });
  return t;
}
