// Probability bars: labelled horizontal bars (e.g. the next token's top 10), drawn with
// plain elements so they scale, wrap and read well with a screen reader (a list with
// each label and percentage). Labels go in via textContent.
import { setLabelAttr, type Label } from '../i18n/i18n';

export interface Bar {
  label: string;
  value: number;   // 0..1
  note?: string;   // e.g. the token id
}

export class ProbBars {
  readonly element: HTMLElement;

  /** absolute: a bar's length is its value (1 = the whole track) instead of its share of the largest. */
  constructor(label: Label, private readonly o: { absolute?: boolean } = {}) {
    this.element = document.createElement('ol');
    this.element.className = 'prob-bars';
    setLabelAttr(this.element, 'aria-label', label);
  }

  update(bars: Bar[]): void {
    const max = this.o.absolute ? 1 : Math.max(1e-12, ...bars.map((b) => b.value));
    this.element.replaceChildren(...bars.map((b) => {
      const li = document.createElement('li');
      const name = document.createElement('span');
      name.className = 'bar-label';
      name.textContent = b.label;
      const track = document.createElement('span');
      track.className = 'bar-track';
      const fill = document.createElement('span');
      fill.className = 'bar-fill';
      fill.style.width = `${(100 * b.value) / max}%`;
      track.append(fill);
      const value = document.createElement('span');
      value.className = 'bar-value';
      value.textContent = `${(100 * b.value).toFixed(1)}%`;
      li.append(name, track, value);
      if (b.note) li.title = b.note;
      return li;
    }));
  }
}
