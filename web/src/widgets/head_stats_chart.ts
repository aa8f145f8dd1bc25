// Head statistics chart: one point per (layer, head), x = mean attention distance
// (tokens), y = entropy (nats); the selected head is ringed. A scatter makes the usual
// kinds of head stand apart: previous-token heads (distance ≈ 1, low entropy), sink
// heads (high distance to token 0, low entropy), broad heads (high entropy). A table
// below lists every number, including the first-token and previous-token shares.
//
// Cross-attention (option cross): a query is an output step and a key a source position,
// two different sequences, so |i − j| and "the previous token" compare unrelated
// positions. There the x axis is the share on the first source token instead, and the
// table shows distance and previous-token share as not applicable, with the reason.
//
// The engine averages each statistic over the query rows that had a choice (at least two
// keys; a causal map's row 0 has one), the previous-token share over those that have a
// previous token. Where no row counts (one token) a statistic is NaN: the table says
// n/a and the chart leaves that head out (with no head left, a note replaces the chart).
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

/** Point labels: at most this many units per character and this tall (10 px text, 14 on
 *  narrow screens, playground.css); tried at these offsets. */
const LABEL_CHAR = 8.5, LABEL_H = 14;
const LABEL_SHIFTS = [0, -14, 14, -28, 28, -42, 42, -56, 56, -70, 70];

/** An axis from 0 to at least `v` in four round steps (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8
 *  × 10^k) and the decimals that print every tick exactly. */
function niceAxis(v: number): { max: number; step: number; digits: number } {
  const raw = v / 4, p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].find((f) => f * p >= raw * (1 - 1e-9)) ?? 10;
  const step = m * p;
  let digits = 0;
  while (digits < 6 && Math.abs(Math.round(step * 10 ** digits) - step * 10 ** digits) > 1e-6) digits++;
  return { max: 4 * step, step, digits };
}

export interface HeadStatsOptions {
  /** Cross-attention maps: no distance or previous-token share (see above). */
  cross?: boolean;
}

export class HeadStatsChart {
  readonly element: HTMLElement;
  readonly svg: SVGSVGElement;
  private readonly table: DataTableToggle;
  private readonly caption: HTMLElement;
  private readonly none: HTMLElement;
  private stats: HeadStat[] = [];
  private cross = false;

  constructor(private readonly title: Label, private readonly onPick: (layer: number, head: number) => void) {
    this.element = document.createElement('figure');
    this.element.className = 'head-stats';
    const cap = document.createElement('figcaption');
    setLabelText(cap, title);
    this.caption = cap;
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('role', 'img');
    bindAttr(this.svg, 'aria-label', () => t(this.cross ? 'w.statsLabelCross' : 'w.statsLabel', { title: label(title) }));
    this.table = new DataTableToggle(() => t('w.headStatistics'), (host) => this.renderTable(host, label(title)));
    this.table.element.classList.add('heatmap-table');
    this.none = document.createElement('p');
    this.none.className = 'stats-none view-note';
    this.none.hidden = true;
    setLabelText(this.none, () => t('w.statsNone'));
    this.element.append(cap, this.none, this.svg, this.table.element);
  }

  update(stats: HeadStat[], maxEntropy: number, maxDistance: number, selected: { layer: number; head: number },
         { cross = false }: HeadStatsOptions = {}): void {
    this.cross = cross;
    this.element.classList.toggle('cross', cross);
    // The title may depend on the maps (the page's label reads its state): read it again.
    this.caption.textContent = label(this.title);
    this.svg.setAttribute('aria-label', t(cross ? 'w.statsLabelCross' : 'w.statsLabel', { title: label(this.title) }));
    const W = 520, H = 300, L = 46, B = 36, R = 40, T = 10;
    this.svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    this.svg.setAttribute('width', String(W));
    this.svg.setAttribute('height', String(H));
    this.svg.replaceChildren();
    this.stats = stats;
    // Axes from 0 to a little above the largest value (or the stated maxima, if smaller),
    // rounded up so that the four tick steps are round numbers printed exactly.
    // Cross-attention: x is the share on the first source token, 0..1.
    const top = (v: number) => v * 1.15;
    const xOf = (s: HeadStat) => (cross ? s.first : s.distance);
    // Heads with no informative row (NaN) have no point.
    const drawn = stats.filter((s) => Number.isFinite(xOf(s)) && Number.isFinite(s.entropy));
    const most = (vs: number[]) => Math.max(0, ...vs);
    const xAxis = niceAxis(cross ? Math.max(0.01, Math.min(1, top(most(drawn.map(xOf)))))
      : Math.max(0.5, Math.min(maxDistance, top(most(drawn.map(xOf))))));
    const yAxis = niceAxis(Math.max(0.1, Math.min(maxEntropy, top(most(drawn.map((s) => s.entropy))))));
    const xMax = xAxis.max, yMax = yAxis.max;
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
      text((xAxis.step * k).toFixed(xAxis.digits), { x: x(xAxis.step * k), y: H - B + 14, 'text-anchor': 'middle' });
      text((yAxis.step * k).toFixed(yAxis.digits), { x: L - 4, y: y(yAxis.step * k), 'text-anchor': 'end', 'dominant-baseline': 'middle' });
    }
    text(t(cross ? 'w.statsXCross' : 'w.statsX'), { x: (L + W - R) / 2, y: H - 4, 'text-anchor': 'middle' });
    text(t('w.statsY'), { x: 12, y: (T + H - B) / 2, transform: `rotate(-90 12 ${(T + H - B) / 2})`, 'text-anchor': 'middle' });
    this.none.hidden = drawn.length > 0;
    this.svg.style.display = drawn.length > 0 ? '' : 'none';
    // Label placement avoids the labels placed so far and every other point.
    const placed: { x: number; y: number; w: number; h: number }[] = [];
    const dots = drawn.map((s) => ({ x: x(xOf(s)) - 6, y: y(s.entropy), w: 12, h: 12 }));
    drawn.forEach((s, i) => {
      const on = s.layer === selected.layer && s.head === selected.head;
      const v = { layer: s.layer + 1, head: s.head + 1, entropy: s.entropy.toFixed(3), distance: s.distance.toFixed(2), first: s.first.toFixed(3) };
      const c = svgEl('circle', {
        cx: x(xOf(s)), cy: y(s.entropy), r: on ? 7 : 5,
        fill: HEAD_COLOURS[s.head % HEAD_COLOURS.length]!, 'fill-opacity': 0.85,
        stroke: on ? 'currentColor' : 'none', 'stroke-width': 2, tabindex: 0, role: 'button',
        'aria-label': t(cross ? 'w.statsPointCross' : 'w.statsPoint', v),
      });
      const title = svgEl('title');
      title.textContent = t(cross ? 'w.statsPointTitleCross' : 'w.statsPointTitle', v);
      c.append(title);
      // The label right of its point, moved up or down (with a leader line) where it
      // would cover another label or point: close heads otherwise print on top of each
      // other. With no free place nearby it stays beside its point.
      const name = `L${s.layer + 1}H${s.head + 1}`;
      const px = x(xOf(s)), py = y(s.entropy);
      const box = { x: px + (on ? 10 : 8), y: py, w: LABEL_CHAR * name.length, h: LABEL_H };
      const hit = (b: { x: number; y: number; w: number; h: number }) =>
        Math.abs(b.y - box.y) < (b.h + box.h) / 2 && b.x < box.x + box.w && box.x < b.x + b.w;
      const free = LABEL_SHIFTS.some((dy) => {
        box.y = Math.max(T, Math.min(H - B, py + dy));
        return !placed.some(hit) && !dots.some((d, j) => j !== i && hit(d));
      });
      if (!free) box.y = py;
      placed.push({ ...box });
      if (Math.abs(box.y - py) > 3)
        this.svg.append(svgEl('line', { x1: px + 4, y1: py, x2: box.x - 1, y2: box.y, stroke: 'currentColor', 'stroke-opacity': 0.4, class: 'point-leader' }));
      const tag = svgEl('text', { x: box.x, y: box.y, 'dominant-baseline': 'middle', class: 'point-label' });
      tag.textContent = name;
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
    cap.textContent = this.cross ? `${title}. ${t('w.statsCrossNote')}` : title;
    table.append(cap);
    const head = table.createTHead().insertRow();
    for (const h of [t('w.colLayer'), t('w.colHead'), t('w.colEntropy'), t('w.colDistance'),
                     t(this.cross ? 'w.colFirstCross' : 'w.colFirst'), t('w.colPrevious')]) {
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
      tr.insertCell().textContent = String(s.head + 1);
      for (const v of [s.entropy, s.distance, s.first, s.previous]) {
        const td = tr.insertCell();
        td.textContent = Number.isNaN(v) ? t('w.notApplicable') : v.toFixed(3);
        if (Number.isNaN(v)) {  // no query row had a choice (see above)
          td.className = 'na';
          td.title = t('w.statsNoRows');
        }
      }
      if (this.cross)
        for (const k of [3, 5]) {  // cells (layer th first): distance, previous-token share
          const td = tr.cells[k]!;
          td.textContent = t('w.notApplicable');
          td.className = 'na';
          td.title = t('w.statsCrossNote');
        }
    });
    host.replaceChildren(table);
  }
}
