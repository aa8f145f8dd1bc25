// The Q/K view (issue 33; AttentionViz's joint query–key embedding): one head's queries
// and keys — the engine's vectors, after RoPE where the model rotates them — projected
// onto the two directions of largest variance of all of them together (PCA computed in
// this page: centred, the covariance's top two eigenvectors by power iteration), so a
// query lands near the keys it scores highest only as far as two dimensions can show.
// Queries are filled circles, keys hollow squares, each labelled by its token; the
// selected query's attention row is drawn as lines to the keys (opacity = weight).
//
// Legend: Tq queries, Tk keys, D head width.
import { t as tr } from '../../i18n/i18n';
import { svgEl } from '../../widgets/svg';
import { DataTableToggle } from '../../widgets/data_table';

export interface Pca2 {
  /** (n, 2) row-major: each row's coordinates on the two components. */
  coords: Float64Array;
  /** The share of the total variance each component carries. */
  explained: [number, number];
}

/** PCA of n rows of width D onto 2 components. Signs are fixed so that each component's
 *  largest-magnitude entry is positive (the same input gives the same picture). */
export function pca2(rows: Float32Array[], D: number): Pca2 {
  const n = rows.length;
  const mean = new Float64Array(D);
  for (const r of rows) for (let d = 0; d < D; d++) mean[d] += r[d]! / n;
  const X = rows.map((r) => Float64Array.from({ length: D }, (_, d) => r[d]! - mean[d]!));
  const C = new Float64Array(D * D);
  for (const x of X) for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) C[i * D + j] += (x[i]! * x[j]!) / n;
  let total = 0;
  for (let i = 0; i < D; i++) total += C[i * D + i]!;
  const comps: Float64Array[] = [], vals: number[] = [];
  for (let c = 0; c < 2; c++) {
    let v = Float64Array.from({ length: D }, (_, i) => 1 + i / D);
    let lambda = 0;
    for (let it = 0; it < 500; it++) {
      const w = new Float64Array(D);
      for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) w[i] += C[i * D + j]! * v[j]!;
      for (const u of comps) {  // deflation: stay orthogonal to the components found
        let dot = 0;
        for (let i = 0; i < D; i++) dot += w[i]! * u[i]!;
        for (let i = 0; i < D; i++) w[i] -= dot * u[i]!;
      }
      const norm = Math.hypot(...w);
      if (norm === 0) break;
      const next = w.map((x) => x / norm);
      const moved = next.reduce((s, x, i) => s + Math.abs(x - v[i]!), 0);
      v = next;
      lambda = norm;
      if (moved < 1e-12) break;
    }
    let big = 0;
    for (let i = 1; i < D; i++) if (Math.abs(v[i]!) > Math.abs(v[big]!)) big = i;
    if (v[big]! < 0) v = v.map((x) => -x);
    comps.push(v);
    vals.push(lambda);
  }
  const coords = new Float64Array(n * 2);
  X.forEach((x, r) => comps.forEach((u, c) => {
    let dot = 0;
    for (let i = 0; i < D; i++) dot += x[i]! * u[i]!;
    coords[r * 2 + c] = dot;
  }));
  return { coords, explained: [total > 0 ? vals[0]! / total : 0, total > 0 ? vals[1]! / total : 0] };
}

export interface QkPcaData {
  queries: string[];       // (Tq) labels
  keys: string[];          // (Tk) labels
  q: Float32Array[];       // (Tq) × D
  k: Float32Array[];       // (Tk) × D
  row: Float32Array;       // (Tk) the selected query's attention weights
  selected: number;        // the selected query
  title: string;
}

const W = 560, H = 420, PAD = 36;

export class QkPcaView {
  readonly element = document.createElement('figure');
  private readonly caption = document.createElement('figcaption');
  private readonly host = document.createElement('div');
  private readonly help = document.createElement('p');
  private readonly table: DataTableToggle;
  private data: { d: QkPcaData; p: Pca2 } | null = null;
  svg: SVGSVGElement | null = null;

  constructor() {
    this.element.className = 'qk-pca';
    this.help.className = 'help';
    this.table = new DataTableToggle(() => tr('play.pca.table'), (host) => this.fillTable(host));
    this.element.append(this.caption, this.help, this.host, this.table.element);
  }

  update(d: QkPcaData): Pca2 {
    const D = d.q[0]?.length ?? 0;
    const p = pca2([...d.q, ...d.k], D);
    this.data = { d, p };
    this.caption.textContent = d.title;
    this.help.textContent = tr('play.pca.help', { x: (100 * p.explained[0]).toFixed(1), y: (100 * p.explained[1]).toFixed(1) });
    this.svg = this.draw(d, p);
    this.host.replaceChildren(this.svg);
    this.table.refresh();
    return p;
  }

  private draw(d: QkPcaData, p: Pca2): SVGSVGElement {
    const n = d.q.length + d.k.length;
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let i = 0; i < n; i++) {
      x0 = Math.min(x0, p.coords[i * 2]!); x1 = Math.max(x1, p.coords[i * 2]!);
      y0 = Math.min(y0, p.coords[i * 2 + 1]!); y1 = Math.max(y1, p.coords[i * 2 + 1]!);
    }
    const sx = (v: number) => PAD + ((v - x0) / (x1 - x0 || 1)) * (W - 2 * PAD);
    const sy = (v: number) => H - PAD - ((v - y0) / (y1 - y0 || 1)) * (H - 2 * PAD);
    const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', class: 'qk-pca-plot' }) as SVGSVGElement;
    svg.setAttribute('aria-label', d.title);
    const at = (i: number) => [sx(p.coords[i * 2]!), sy(p.coords[i * 2 + 1]!)] as const;
    const Tq = d.q.length;
    const [qx, qy] = at(d.selected);
    d.keys.forEach((_, j) => {
      const w = d.row[j] ?? 0;
      if (w <= 0) return;
      const [kx, ky] = at(Tq + j);
      svg.append(svgEl('line', { x1: qx, y1: qy, x2: kx, y2: ky, class: 'qk-pca-link', 'stroke-opacity': Math.min(1, 0.1 + w) }));
    });
    const label = (x: number, y: number, text: string, cls: string) => {
      const t = svgEl('text', { x: x + 6, y: y - 4, class: cls });
      t.textContent = text;
      return t;
    };
    d.keys.forEach((name, j) => {
      const [x, y] = at(Tq + j);
      svg.append(svgEl('rect', { x: x - 4, y: y - 4, width: 8, height: 8, class: 'qk-pca-key' }), label(x, y, name, 'qk-pca-label'));
    });
    d.queries.forEach((name, i) => {
      const [x, y] = at(i);
      svg.append(svgEl('circle', { cx: x, cy: y, r: i === d.selected ? 6 : 4, class: i === d.selected ? 'qk-pca-query selected' : 'qk-pca-query' }),
                 label(x, y, name, 'qk-pca-label'));
    });
    return svg;
  }

  private fillTable(host: HTMLElement): void {
    if (!this.data) return;
    const { d, p } = this.data;
    const table = document.createElement('table');
    const head = table.createTHead().insertRow();
    for (const h of [tr('play.pca.colKind'), tr('play.pca.colToken'), 'PC1', 'PC2']) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = h;
      head.append(th);
    }
    const body = table.createTBody();
    [...d.queries.map((t) => [tr('play.pca.query'), t]), ...d.keys.map((t) => [tr('play.pca.key'), t])].forEach(([kind, t], i) => {
      const r = body.insertRow();
      for (const v of [kind!, t!, p.coords[i * 2]!.toFixed(3), p.coords[i * 2 + 1]!.toFixed(3)]) r.insertCell().textContent = v;
    });
    host.replaceChildren(table);
  }
}
