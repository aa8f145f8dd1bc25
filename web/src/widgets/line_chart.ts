// A line chart of a few series (d3 scales and axes): timings over lengths, a variance
// over d_k, a loss over steps. Linear or log axes; each series has its own colour and
// dash (colour-blind safe: the dash and the end label tell them apart too); points are
// marked, a hover/focus readout names the nearest point. The numbers behind it belong in
// a table beside it (the page's DataTableToggle), as for every figure.
import { axisBottom, axisLeft } from 'd3-axis';
import { scaleLinear, scaleLog, type ScaleContinuousNumeric } from 'd3-scale';
import { select } from 'd3-selection';
import { label as labelText, onLocaleChange, setLabelAttr, type Label } from '../i18n/i18n';
import { HEAD_COLOURS } from './attention_lines';
import { onThemeChange } from './theme';
import { svgEl, SVG_NS } from './svg';

export interface Series {
  name: Label;
  points: [number, number][];
  dashed?: boolean;
  /** Mark (and make focusable) every point; default true. A long series (a loss over
   *  hundreds of steps) draws only its line: its numbers are in the page's table. */
  markers?: boolean;
  /** A shaded interval around the line: [x, low, high] per point (e.g. where repeats of
   *  the same experiment with other seeds fall), in the series' colour. */
  band?: [number, number, number][];
}

export interface LineChartOptions {
  label: Label;
  xLabel: Label;
  yLabel: Label;
  xLog?: boolean;
  yLog?: boolean;
  /** Axis ranges; default: the data's (0 included on a linear y axis). */
  xDomain?: [number, number];
  yDomain?: [number, number];
  /** Tick text; default d3's. */
  xFormat?: (v: number) => string;
  /** x counts something (steps): ticks only at whole numbers, however short the range. */
  xIntegers?: boolean;
  yFormat?: (v: number) => string;
  /** A vertical marker (the reader's own d_k, the current step). */
  marker?: number | null;
}

const W = 560, H = 300, M = { top: 14, right: 112, bottom: 44, left: 62 };
const DASHES = ['', '6 4', '2 3', '8 3 2 3'];

export class LineChart {
  readonly element: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly readout: HTMLElement;
  private series: Series[] = [];

  constructor(private readonly o: LineChartOptions) {
    this.element = document.createElement('div');
    this.element.className = 'line-chart';
    this.svg = document.createElementNS(SVG_NS, 'svg');
    this.svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    this.svg.setAttribute('role', 'img');
    setLabelAttr(this.svg, 'aria-label', o.label);
    this.readout = document.createElement('p');
    this.readout.className = 'chart-readout help';
    this.readout.setAttribute('aria-live', 'polite');
    this.element.append(this.svg, this.readout);
    onLocaleChange(() => this.draw());
    onThemeChange(() => this.draw());
  }

  update(series: Series[], marker?: number | null): void {
    this.series = series;
    if (marker !== undefined) this.o.marker = marker;
    this.draw();
  }

  private scale(log: boolean | undefined, domain: [number, number], range: [number, number]): ScaleContinuousNumeric<number, number> {
    return (log ? scaleLog().base(2) : scaleLinear()).domain(domain).range(range).nice() as ScaleContinuousNumeric<number, number>;
  }

  private extent(axis: 0 | 1, log: boolean | undefined, zero: boolean): [number, number] {
    const vs = this.series.flatMap((s) => [...s.points.map((p) => p[axis]), ...(s.band ?? []).flatMap((b) => (axis === 0 ? [b[0]] : [b[1], b[2]]))])
      .filter((v) => Number.isFinite(v) && (!log || v > 0));
    if (vs.length === 0) return log ? [1, 10] : [0, 1];
    let lo = Math.min(...vs), hi = Math.max(...vs);
    if (zero && !log) lo = Math.min(0, lo);
    if (lo === hi) hi = log ? lo * 2 : lo + 1;
    return [lo, hi];
  }

  private draw(): void {
    const svg = this.svg;
    svg.replaceChildren();
    const x = this.scale(this.o.xLog, this.o.xDomain ?? this.extent(0, this.o.xLog, false), [M.left, W - M.right]);
    const y = this.scale(this.o.yLog, this.o.yDomain ?? this.extent(1, this.o.yLog, true), [H - M.bottom, M.top]);
    const gx = svgEl('g', { transform: `translate(0,${H - M.bottom})`, class: 'axis' });
    const gy = svgEl('g', { transform: `translate(${M.left},0)`, class: 'axis' });
    const ax = axisBottom(x).ticks(6, this.o.xLog ? ',' : undefined);
    if (this.o.xIntegers) ax.tickValues(x.ticks(6).filter(Number.isInteger));
    const ay = axisLeft(y).ticks(5, this.o.yLog ? ',' : undefined);
    if (this.o.xFormat) ax.tickFormat((v) => this.o.xFormat!(Number(v)));
    if (this.o.yFormat) ay.tickFormat((v) => this.o.yFormat!(Number(v)));
    select(gx).call(ax);
    select(gy).call(ay);
    const xl = svgEl('text', { x: (M.left + W - M.right) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-label' });
    xl.textContent = labelText(this.o.xLabel);
    const yl = svgEl('text', { x: -(M.top + H - M.bottom) / 2, y: 14, transform: 'rotate(-90)', 'text-anchor': 'middle', class: 'axis-label' });
    yl.textContent = labelText(this.o.yLabel);
    svg.append(gx, gy, xl, yl);
    if (this.o.marker != null && Number.isFinite(this.o.marker)) {
      const mx = x(this.o.marker);
      svg.append(svgEl('line', { x1: mx, x2: mx, y1: M.top, y2: H - M.bottom, class: 'chart-marker' }));
    }
    const ends: { y: number; s: number }[] = [];
    this.series.forEach((s, k) => {
      const colour = HEAD_COLOURS[k % HEAD_COLOURS.length]!;
      const pts = s.points.filter(([a, b]) => Number.isFinite(a) && Number.isFinite(b) && (!this.o.xLog || a > 0) && (!this.o.yLog || b > 0));
      if (pts.length === 0) return;
      const d = pts.map(([a, b], i) => `${i ? 'L' : 'M'}${x(a).toFixed(1)},${y(b).toFixed(1)}`).join('');
      const band = (s.band ?? []).filter(([a, lo, hi]) => [a, lo, hi].every(Number.isFinite) && (!this.o.xLog || a > 0) && (!this.o.yLog || lo > 0));
      if (band.length > 1) {
        const upper = band.map(([a, , hi], i) => `${i ? 'L' : 'M'}${x(a).toFixed(1)},${y(hi).toFixed(1)}`).join('');
        const lower = band.slice().reverse().map(([a, lo]) => `L${x(a).toFixed(1)},${y(lo).toFixed(1)}`).join('');
        svg.append(svgEl('path', { d: `${upper}${lower}Z`, fill: colour, 'fill-opacity': 0.18, stroke: 'none', class: 'chart-band' }));
      }
      const dash = s.dashed ? DASHES[1]! : DASHES[k % DASHES.length]!;
      svg.append(svgEl('path', { d, fill: 'none', stroke: colour, 'stroke-width': 2, 'stroke-dasharray': dash }));
      if (s.markers !== false) for (const [a, b] of pts) {
        const c = svgEl('circle', { cx: x(a), cy: y(b), r: 3.5, fill: colour, tabindex: 0, class: 'chart-point' });
        const say = `${labelText(s.name)}: ${labelText(this.o.xLabel)} ${fmt(a)}, ${labelText(this.o.yLabel)} ${fmt(b)}`;
        c.setAttribute('aria-label', say);
        const show = () => { this.readout.textContent = say; };
        c.addEventListener('pointerenter', show);
        c.addEventListener('focus', show);
        svg.append(c);
      }
      const last = pts[pts.length - 1]!;
      ends.push({ y: y(last[1]), s: k });
    });
    // End labels, pushed apart vertically so they do not overlap.
    ends.sort((a, b) => a.y - b.y);
    for (let i = 1; i < ends.length; i++) ends[i]!.y = Math.max(ends[i]!.y, ends[i - 1]!.y + 18);
    for (const e of ends) {
      const t = svgEl('text', { x: W - M.right + 6, y: e.y, 'dominant-baseline': 'middle', class: 'series-label',
                                fill: HEAD_COLOURS[e.s % HEAD_COLOURS.length]! });
      t.textContent = labelText(this.series[e.s]!.name);
      svg.append(t);
    }
  }
}

function fmt(v: number): string {
  if (v !== 0 && (Math.abs(v) >= 1e5 || Math.abs(v) < 1e-3)) return v.toExponential(2);
  return String(Number(v.toPrecision(4)));
}
