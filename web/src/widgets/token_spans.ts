// Token spans: the tokens of a text in order, each with its id and its [begin, end)
// span in the text, whitespace and byte tokens made visible (token_text.ts). Hovering or
// focusing a token reports its index (the page marks that span in the text); pressing
// it selects it. Every label is set with textContent: a token "<script>" shows as text.
import { setLabelAttr, t, type Label } from '../i18n/i18n';
import { visibleToken } from './token_text';
import { focusedIn } from './dom';

export interface TokenSpanData {
  tokens: string[];       // (T) vocabulary spellings
  ids: ArrayLike<number>; // (T)
  offsets: ArrayLike<number>; // (T, 2) [begin, end) in UTF-16 units of the text
  special?: ArrayLike<number>; // (T) 1 = special token
  byteLevel: boolean;
}

export interface TokenSpanEvents {
  onHover(index: number | null): void;
  onSelect(index: number): void;
}

export class TokenSpans {
  readonly element: HTMLElement;
  private items: HTMLButtonElement[] = [];
  private selected: number | null = null;

  constructor(label: Label, private readonly events: TokenSpanEvents) {
    this.element = document.createElement('ol');
    this.element.className = 'token-spans';
    setLabelAttr(this.element, 'aria-label', label);
  }

  get count(): number {
    return this.items.length;
  }

  update(d: TokenSpanData, selected: number | null): void {
    const active = focusedIn(this.element);
    const focused = this.items.findIndex((b) => b === active);
    this.items = d.tokens.map((tok, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'token-span';
      if (d.special?.[i]) b.classList.add('special');
      const begin = d.offsets[2 * i]!, end = d.offsets[2 * i + 1]!;
      const shown = visibleToken(tok, d.byteLevel);
      const text = document.createElement('span');
      text.className = 'tok-text';
      text.textContent = shown;
      const id = document.createElement('span');
      id.className = 'tok-id';
      id.textContent = String(d.ids[i]);
      const span = document.createElement('span');
      span.className = 'tok-span';
      span.textContent = end > begin ? `${begin}–${end}` : '—';
      b.append(text, id, span);
      b.dataset.index = String(i);
      b.setAttribute('aria-label', t('w.tokenSpan', { index: i + 1, token: shown, id: d.ids[i]!, begin, end }));
      b.addEventListener('pointerenter', () => this.events.onHover(i));
      b.addEventListener('pointerleave', () => this.events.onHover(null));
      b.addEventListener('focus', () => this.events.onHover(i));
      b.addEventListener('blur', () => this.events.onHover(null));
      b.addEventListener('click', () => this.events.onSelect(i));
      const li = document.createElement('li');
      li.append(b);
      return b;
    });
    this.element.replaceChildren(...this.items.map((b) => b.parentElement!));
    this.setSelected(selected);
    if (focused >= 0 && focused < this.items.length) this.items[focused]!.focus();
  }

  setSelected(index: number | null): void {
    this.selected = index;
    this.items.forEach((b, i) => b.setAttribute('aria-pressed', String(i === this.selected)));
  }
}

/** Fills `host` with the text, the span [begin, end) wrapped in <mark> (text nodes only). */
export function markSpan(host: HTMLElement, text: string, span: [number, number] | null): void {
  if (!span || span[1] <= span[0]) {
    host.replaceChildren(document.createTextNode(text));
    return;
  }
  const mark = document.createElement('mark');
  mark.textContent = text.slice(span[0], span[1]);
  host.replaceChildren(document.createTextNode(text.slice(0, span[0])), mark, document.createTextNode(text.slice(span[1])));
}
