// Head statistics chart: one point per (layer, head), x = mean attention distance
// (tokens), y = entropy (nats); the selected head is ringed. A scatter makes the usual
// kinds of head stand apart: previous-token heads (distance ≈ 1, low entropy), sink
// heads (high distance to token 0, low entropy), broad heads (high entropy). A table
// below lists every number, including the first-token and previous-token shares.
import { label, setLabelText, bindAttr, t, type Label } from '../i18n/i18n';
import { HEAD_COLOURS } from './attention_lines';
import { DataTableToggle } from './data_table';
import { svgEl, SVG_NS } from './svg';

export interface HeadStat {
  layer: number;
  head: number;
  entropy: number;
  distance: number;
  first: number;
  previous: number;
}

export class HeadStatsChart {
  readonly element: HTMLElement;
  readonly svg: SVGSVGElement;
  private readonly table: DataTableToggle;
  private stats: HeadStat[] = [];

  constructor(title: Label, private readonly onPick: (layer: number, head: number) => void) {
    this.element = document.createElement('figure');
    this.element.className = 'head-stats';
    const cap = document.createElement('figcaption');
    setLabelText(cap, title);
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('role', 'img');
    bindAttr(this.svg, 'aria-label', () => t('w.statsLabel', { title: label(title) }));
    this.table = new DataTableToggle(() => t('w.headStatistics'), (host) => this.renderTable(host, label(title)));
    this.table.element.classList.add('heatmap-table');
    this.element.append(cap, this.svg, this.table.element);
  }

  update(stats: HeadStat[], maxEntropy: number, maxDistance: number, selected: { layer: number; head: number }): void {
    const W = 520, H = 300, L = 46, B = 36, R = 40, T = 10;
    this.svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    this.svg.setAttribute('width', String(W));
    this.svg.setAttribute('height', String(H));
    this.svg.replaceChildren();
    this.stats = stats;
    // Axes from 0 to a little above the largest value (or the stated maxima, if smaller).
    const top = (v: number) => v * 1.15;
    const xMax = Math.max(0.5, Math.min(maxDistance, top(Math.max(...stats.map((s) => s.distance))))),
      yMax = Math.max(0.1, Math.min(maxEntropy, top(Math.max(...stats.map((s) => s.entropy)))));
    const x = (v: number) => L + ((W - L - R) * v) / xMax;
    const y = (v: number) => H - B - ((H - B - T) * v) / yMax;
    const axis = svgEl('g', { class: 'axis', stroke: 'currentColor', 'stroke-opacity': 0.5 });
    axis.append(svgEl('line', { x1: L, y1: H - B, x2: W - R, y2: H - B }), svgEl('line', { x1: L, y1: T, x2: L, y2: H - B }));
    this.svg.append(axis);
    const text = (s: string, attrs: Record<string, string | number>) => {
      const t = svgEl('text', attrs);
      t.textContent = s;
      this.svg.append(t);
    };
    for (let k = 0; k <= 4; k++) {
      text((xMax * k / 4).toFixed(1), { x: x(xMax * k / 4), y: H - B + 14, 'text-anchor': 'middle' });
      text((yMax * k / 4).toFixed(2), { x: L - 4, y: y(yMax * k / 4), 'text-anchor': 'end', 'dominant-baseline': 'middle' });
    }
    text(t('w.statsX'), { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' });
    text(t('w.statsY'), { x: 12, y: (T + H - B) / 2, transform: `rotate(-90 12 ${(T + H - B) / 2})`, 'text-anchor': 'middle' });
    stats.forEach((s) => {
      const on = s.layer === selected.layer && s.head === selected.head;
      const c = svgEl('circle', {
        cx: x(s.distance), cy: y(s.entropy), r: on ? 7 : 5,
        fill: HEAD_COLOURS[s.head % HEAD_COLOURS.length]!, 'fill-opacity': 0.85,
        stroke: on ? 'currentColor' : 'none', 'stroke-width': 2, tabindex: 0, role: 'button',
        'aria-label': t('w.statsPoint', { layer: s.layer + 1, head: s.head + 1, entropy: s.entropy.toFixed(3), distance: s.distance.toFixed(2) }),
      });
      const title = svgEl('title');
      title.textContent = t('w.statsPointTitle', { layer: s.layer + 1, head: s.head + 1, entropy: s.entropy.toFixed(3), distance: s.distance.toFixed(2) });
      c.append(title);
      const tag = svgEl('text', { x: x(s.distance) + 8, y: y(s.entropy), 'dominant-baseline': 'middle', class: 'point-label' });
      tag.textContent = `L${s.layer + 1}H${s.head + 1}`;
      this.svg.append(tag);
      const pick = () => this.onPick(s.layer, s.head);
      c.addEventListener('click', pick);
      c.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); }
      });
      this.svg.append(c);
    });
    this.table.refresh();
  }

  /** The data-table alternative: every head's numbers to 3 decimals. */
  private renderTable(host: HTMLElement, title: string): void {
    const table = document.createElement('table');
    const cap = document.createElement('caption');
    cap.textContent = title;
    table.append(cap);
    const head = table.createTHead().insertRow();
    for (const h of [t('w.colLayer'), t('w.colHead'), t('w.colEntropy'), t('w.colDistance'), t('w.colFirst'), t('w.colPrevious')]) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = h;
      head.append(th);
    }
    const body = table.createTBody();
    this.stats.forEach((s) => {
      const tr = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = String(s.layer + 1);
      tr.append(th);
      for (const v of [String(s.head + 1), s.entropy.toFixed(3), s.distance.toFixed(3), s.first.toFixed(3), s.previous.toFixed(3)])
        tr.insertCell().textContent = v;
    });
    host.replaceChildren(table);
  }
}
