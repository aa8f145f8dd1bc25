// Attention matrices as SVG (for export): one <rect> per cell in the same colour map as
// the canvas heatmaps, masked cells hatched grey, token labels as <text>. Several
// matrices can share one drawing (the layer × head grid).
import { colormap, type ColormapName } from './colormap';
import { svgEl, SVG_NS } from './svg';

export interface MatrixPanel {
  title: string;
  rowLabels: string[];
  colLabels: string[];
  values: Float32Array;          // (rows, cols)
  masked?: Float32Array | null;  // (rows, cols) non-zero = masked
  domain?: [number, number];
}

function cellsGroup(p: MatrixPanel, x0: number, y0: number, cell: number, map: ColormapName): SVGGElement {
  const g = svgEl('g');
  const cm = colormap(map);
  const [lo, hi] = p.domain ?? [0, 1];
  const cols = p.colLabels.length;
  p.rowLabels.forEach((_, r) => {
    for (let c = 0; c < cols; c++) {
      const masked = p.masked && p.masked[r * cols + c] !== 0;
      g.append(svgEl('rect', {
        x: x0 + c * cell, y: y0 + r * cell, width: cell, height: cell,
        fill: masked ? 'url(#hatch)' : cm.css(p.values[r * cols + c]!, lo, hi),
      }));
    }
  });
  return g;
}

function hatchDefs(): SVGDefsElement {
  const defs = svgEl('defs');
  const pat = svgEl('pattern', { id: 'hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' });
  pat.append(svgEl('rect', { width: 6, height: 6, fill: '#e6e6ea' }), svgEl('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#8d8d97', 'stroke-width': 2 }));
  defs.append(pat);
  return defs;
}

/** Panels in a grid of `columns`, each with its title; labels only when `labels`. */
export function matricesSvg(panels: MatrixPanel[], columns: number, opts: { cell: number; labels: boolean; colormap?: ColormapName }): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.append(hatchDefs());
  const cell = opts.cell;
  // Label room from the longest label (about 7 px a character at 12 px), at most 90 px.
  const room = (ls: string[][]) => (opts.labels ? Math.min(90, 8 + 7 * Math.max(1, ...ls.flat().map((l) => l.length))) : 0);
  const labelW = room(panels.map((p) => p.rowLabels)), labelH = room(panels.map((p) => p.colLabels));
  const rows = Math.max(1, ...panels.map((p) => p.rowLabels.length));
  const cols = Math.max(1, ...panels.map((p) => p.colLabels.length));
  const panelW = labelW + cols * cell + 16, panelH = 20 + labelH + rows * cell + 16;
  panels.forEach((p, k) => {
    const px = (k % columns) * panelW, py = Math.floor(k / columns) * panelH;
    const title = svgEl('text', { x: px + 4, y: py + 14 });
    title.textContent = p.title;
    svg.append(title);
    const x0 = px + labelW, y0 = py + 20 + labelH;
    svg.append(cellsGroup(p, x0, y0, cell, opts.colormap ?? 'viridis'));
    if (opts.labels) {
      p.rowLabels.forEach((l, r) => {
        const t = svgEl('text', { x: x0 - 4, y: y0 + (r + 0.5) * cell, 'text-anchor': 'end', 'dominant-baseline': 'middle' });
        t.textContent = l;
        svg.append(t);
      });
      p.colLabels.forEach((l, c) => {
        const x = x0 + (c + 0.5) * cell, y = y0 - 4;
        const t = svgEl('text', { x, y, transform: `rotate(-90 ${x} ${y})`, 'dominant-baseline': 'middle' });
        t.textContent = l;
        svg.append(t);
      });
    }
  });
  const W = Math.min(columns, panels.length) * panelW, H = Math.ceil(panels.length / columns) * panelH;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', String(W));
  svg.setAttribute('height', String(H));
  return svg;
}
