// The query–key drill-down as one SVG picture, for the PNG and SVG export (the page
// itself shows it as HTML: drilldown.ts). The same numbers, all from the engine's
// attention steps: q as a strip of cells, one row per key (token, k_j strip, q·k_j,
// scaled, bias or mask, softmax weight as a bar, p_j·v_j strip) and the output strip.
// Vector cells use the page's diverging colours (--vec-pos / --vec-neg) at an opacity
// proportional to |value| over the background, as vector_bars.ts mixes them on screen.
//
// Legend: Tk keys, D = d_k head size.
import { cssColours } from './theme';
import { t as msg } from '../i18n/i18n';
import { SVG_NS, svgEl } from './svg';
import { maxAbs } from './vector_bars';
import { machineryOf, type DrillInput } from './drill_machinery';

const ROW = 18;
const STRIP_W = 150;

function text(x: number, y: number, s: string, attrs: Record<string, string | number> = {}): SVGTextElement {
  const t = svgEl('text', { x, y, 'dominant-baseline': 'middle', ...attrs });
  t.textContent = s;
  return t;
}

function fmt(v: number, digits = 3): string {
  return Number.isFinite(v) ? v.toFixed(digits) : v < 0 ? '−∞' : String(v);
}

/** Splits `s` into lines of at most `n` characters at spaces. */
function wrap(s: string, n: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of s.split(' ')) {
    if (line && line.length + 1 + word.length > n) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
}

/** One vector (D) as a strip of cells `w` wide at (x, y), `h` high. */
function strip(values: ArrayLike<number>, x: number, y: number, w: number, h: number, scale: number,
               colours: { pos: string; neg: string }, rotated = 0, accent = '#2f5bd3'): SVGGElement {
  const g = svgEl('g');
  const D = values.length, cw = w / Math.max(1, D);
  for (let i = 0; i < D; i++) {
    const v = values[i]!;
    g.append(svgEl('rect', { x: (x + i * cw).toFixed(2), y, width: cw.toFixed(2), height: h,
                             fill: v >= 0 ? colours.pos : colours.neg, 'fill-opacity': Math.min(1, Math.abs(v) / scale).toFixed(3) }));
  }
  g.append(svgEl('rect', { x, y, width: w, height: h, fill: 'none', stroke: 'currentColor', 'stroke-opacity': 0.25 }));
  // Partial rotary: the rotated cells underlined, a rule before the unchanged rest.
  if (rotated > 0 && rotated < D) {
    g.append(svgEl('rect', { x, y: y + h - 2.5, width: (rotated * cw).toFixed(2), height: 2.5, fill: accent }));
    g.append(svgEl('line', { x1: (x + rotated * cw).toFixed(2), x2: (x + rotated * cw).toFixed(2), y1: y, y2: y + h, stroke: 'currentColor', 'stroke-width': 1.5 }));
  }
  return g;
}

/** The drill-down of `d` as a standalone SVG; `summary` is the sentence the page shows. */
export function drillSvg(d: DrillInput, summary: string, host: Element = document.body): SVGSVGElement {
  const { family: f, steps: r, query } = d;
  const D = r.q.dims[0]!, Tk = r.scores.dims[0]!;
  const c = cssColours(host, { '--vec-pos': '#c25400', '--vec-neg': '#2b63b8', '--accent': '#2f5bd3' });
  const colours = { pos: c['--vec-pos'], neg: c['--vec-neg'] }, accent = c['--accent'];
  const qkScale = maxAbs(r.q.data, r.k.data), vScale = maxAbs(r.weightedV.data, r.out.data);
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', summary);

  // Columns: j | key | k_j | q·k_j | ÷√d_k (or × s) | [c·tanh(·/c)] | + bias | p_j bar + value | p_j·v_j
  const m = machineryOf(f, r);
  const capped = m.softcap > 0 && r.capped ? r.capped : null;
  const shift = capped ? 70 : 0;
  const x = { j: 24, key: 32, k: 120, dot: 330, scaled: 392, cap: 462, bias: 454 + shift, bar: 466 + shift, p: 534 + shift, pv: 584 + shift };
  const rotated = m.rotaryDims > 0 && m.rotaryDims < D ? m.rotaryDims : 0;
  const W = x.pv + STRIP_W + 10;
  let y = 4;
  for (const line of wrap(summary, 110)) {
    svg.append(text(6, y + 8, line));
    y += 16;
  }
  y += 6;
  svg.append(text(6, y + 7, msg('play.qk.svgQ', { query: query + 1 })));
  svg.append(strip(r.q.data, x.k, y, STRIP_W, 14, qkScale, colours, rotated, accent));
  y += 26;
  const biasHead = msg(m.biasKind === 'alibi' ? 'play.qk.biasAlibi' : m.biasKind === 'relative' ? 'play.qk.biasRelative' : 'play.qk.bias');
  const head = ['j', msg('play.qk.key'), 'k_j', 'q·k_j', m.ownScale ? msg('play.qk.colScaledOwn') : '÷√d_k',
    ...(capped ? [msg('play.qk.colCapped')] : []), biasHead, 'softmax p_j', 'p_j·v_j'];
  const hx = [x.j, x.key, x.k, x.dot, x.scaled, ...(capped ? [x.cap] : []), x.bias, x.bar, x.pv];
  const numeric = capped ? 6 : 5;
  head.forEach((h, i) => svg.append(text(hx[i]!, y + 7, h, { 'font-weight': 700, ...(i === 0 || (i >= 3 && i <= numeric) ? { 'text-anchor': 'end' } : {}) })));
  y += ROW;
  svg.append(svgEl('line', { x1: 4, x2: W - 4, y1: y - 2, y2: y - 2, stroke: 'currentColor', 'stroke-opacity': 0.4 }));
  const maxP = Math.max(1e-12, ...r.probs.data);
  for (let j = 0; j < Tk; j++) {
    const masked = r.mask.data[j] !== 0;
    const cy = y + ROW / 2;
    if (d.key !== null && d.key === j) svg.append(svgEl('rect', { x: 2, y, width: W - 4, height: ROW, fill: accent, 'fill-opacity': 0.14 }));
    const dim: Record<string, number> = masked ? { 'fill-opacity': 0.55 } : {};
    svg.append(text(x.j, cy, String(j + 1), { 'text-anchor': 'end', ...dim }));
    const tok = f.colTokens[j] ?? `#${j + 1}`;
    svg.append(text(x.key, cy, tok.length > 12 ? tok.slice(0, 11) + '…' : tok, dim));
    svg.append(strip(r.k.data.subarray(j * D, (j + 1) * D), x.k, y + 3, STRIP_W, ROW - 6, qkScale, colours, rotated, accent));
    svg.append(text(x.dot, cy, fmt(r.scores.data[j]!), { 'text-anchor': 'end', ...dim }));
    svg.append(text(x.scaled, cy, fmt(r.scaled.data[j]!), { 'text-anchor': 'end', ...dim }));
    if (capped) svg.append(text(x.cap, cy, fmt(capped.data[j]!), { 'text-anchor': 'end', ...dim }));
    svg.append(text(x.bias, cy, masked ? msg('w.masked') : fmt(r.bias.data[j]!), { 'text-anchor': 'end', ...dim }));
    const p = r.probs.data[j]!;
    if (masked) svg.append(text(x.bar, cy, msg('play.qk.zeroMasked'), dim));
    else {
      svg.append(svgEl('rect', { x: x.bar, y: y + 4, width: 62, height: ROW - 8, fill: 'currentColor', 'fill-opacity': 0.1 }));
      svg.append(svgEl('rect', { x: x.bar, y: y + 4, width: ((62 * p) / maxP).toFixed(2), height: ROW - 8, fill: accent }));
      svg.append(text(x.p + 44, cy, p.toFixed(4), { 'text-anchor': 'end' }));
    }
    svg.append(strip(r.weightedV.data.subarray(j * D, (j + 1) * D), x.pv, y + 3, STRIP_W, ROW - 6, vScale, colours));
    y += ROW;
  }
  svg.append(svgEl('line', { x1: 4, x2: W - 4, y1: y + 1, y2: y + 1, stroke: 'currentColor', 'stroke-opacity': 0.4 }));
  y += 4;
  const sum = Array.from(r.probs.data).reduce((a, b) => a + b, 0);
  svg.append(text(x.key, y + ROW / 2, 'out = Σ_j p_j·v_j', { 'font-weight': 700 }));
  svg.append(text(x.bar, y + ROW / 2, `Σ p_j = ${sum.toFixed(4)}`, { 'font-weight': 700 }));
  svg.append(strip(r.out.data, x.pv, y + 3, STRIP_W, ROW - 6, vScale, colours));
  y += ROW + 6;
  svg.append(text(6, y + 7, msg('play.qk.svgOut', { head: d.head + 1 })));
  svg.append(strip(r.out.data, x.k, y, STRIP_W, 14, vScale, colours));
  y += 22;
  svg.setAttribute('viewBox', `0 0 ${W} ${y}`);
  svg.setAttribute('width', String(W));
  svg.setAttribute('height', String(y));
  // The strips' outlines and rules follow the text colour the export inlines.
  svg.setAttribute('color', getComputedStyle(host).color || '#1b1b1f');
  return svg;
}
