// Attention lines ("head view"): queries in a left column, keys in a right column, one
// line per (query, key) pair whose opacity is the weight, one colour per head (the
// Okabe–Ito palette, distinguishable with colour-blind vision). Selecting a token
// keeps only its lines. SVG, so the view exports as it is drawn.
//
// Legend: H heads, Tq queries, Tk keys.
import { setLabelAttr, setLabelText, t as tr, type Label } from '../i18n/i18n';
import { SVG_NS, svgEl } from './svg';

/** Okabe & Ito (2008) colours, without black (invisible on the dark theme). */
export const HEAD_COLOURS = ['#E69F00', '#56B4E9', '#009E73', '#F0E442', '#0072B2', '#D55E00', '#CC79A7', '#999999'];

export interface LinesData {
  queries: string[];             // (Tq) labels
  keys: string[];                // (Tk) labels
  probs: Float32Array;           // (H, Tq, Tk) for the heads listed in `heads`, in order
  heads: number[];               // head index (0-based) of each slice in probs
  selected: number | null;       // query index to keep, null = all
  minWeight?: number;            // lines below this are not drawn (default 0.01)
}

const ROW = 22;

export class AttentionLines {
  readonly element: HTMLElement;
  readonly svg: SVGSVGElement;
  /** Number of lines drawn by the latest update (tests read it). */
  drawn = 0;

  constructor(title: Label, private readonly onSelect: (query: number | null) => void) {
    this.element = document.createElement('figure');
    this.element.className = 'attention-lines';
    const cap = document.createElement('figcaption');
    setLabelText(cap, title);
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('role', 'img');
    setLabelAttr(this.svg, 'aria-label', title);
    this.element.append(cap, this.svg);
  }

  update(d: LinesData): void {
    const Tq = d.queries.length, Tk = d.keys.length;
    const width = 520, colW = 130, lineL = colW + 6, lineR = width - colW - 6;
    const height = Math.max(Tq, Tk) * ROW + 8;
    this.svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    this.svg.setAttribute('width', String(width));
    this.svg.setAttribute('height', String(height));
    this.svg.replaceChildren();
    const y = (i: number) => 4 + (i + 0.5) * ROW;
    const min = d.minWeight ?? 0.01;
    const lines = svgEl('g', { class: 'lines', 'stroke-linecap': 'round' });
    this.drawn = 0;
    d.heads.forEach((head, slot) => {
      const colour = HEAD_COLOURS[head % HEAD_COLOURS.length]!;
      for (let i = 0; i < Tq; i++) {
        if (d.selected !== null && d.selected !== i) continue;
        for (let j = 0; j < Tk; j++) {
          const w = d.probs[(slot * Tq + i) * Tk + j]!;
          if (!(w >= min)) continue;
          // Heads fan out by a pixel or two at each end so equal lines stay distinct.
          const fan = (slot - (d.heads.length - 1) / 2) * 1.5;
          lines.append(svgEl('line', {
            x1: lineL, y1: y(i) + fan, x2: lineR, y2: y(j) + fan, stroke: colour,
            'stroke-width': 1 + 3 * w, 'stroke-opacity': w.toFixed(3),
          }));
          this.drawn++;
        }
      }
    });
    this.svg.append(lines);
    const label = (text: string, x: number, yy: number, anchor: string, i: number | null, active: boolean) => {
      const t = svgEl('text', { x, y: yy, 'text-anchor': anchor, 'dominant-baseline': 'middle',
                                class: active ? 'tok active' : 'tok' });
      t.textContent = text.length > 14 ? text.slice(0, 13) + '…' : text;
      if (i !== null) {
        t.setAttribute('tabindex', '0');
        t.setAttribute('role', 'button');
        t.setAttribute('aria-pressed', String(active));
        t.setAttribute('aria-label', tr('w.lineQuery', { query: i + 1, text }));
        const pick = () => this.onSelect(d.selected === i ? null : i);
        t.addEventListener('click', pick);
        t.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); }
        });
      }
      this.svg.append(t);
    };
    d.queries.forEach((q, i) => label(q, colW, y(i), 'end', i, d.selected === i));
    d.keys.forEach((k, j) => label(k, width - colW, y(j), 'start', null, false));
  }
}
