// Small helpers for widgets that draw SVG: an element factory (attributes only — text
// goes in through textContent) and serialisation for export.
export const SVG_NS = 'http://www.w3.org/2000/svg';

export function svgEl<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** A standalone SVG document for `svg`, with the page's computed text colour and font inlined. */
export function serializeSvg(svg: SVGSVGElement, background: string, foreground: string, font: string): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute('xmlns', SVG_NS);
  const style = document.createElementNS(SVG_NS, 'style');
  style.textContent = `text { fill: ${foreground}; font: 12px ${font}; } .tok.active { font-weight: 700; }`;
  const bg = svgEl('rect', { x: 0, y: 0, width: '100%', height: '100%', fill: background });
  clone.prepend(style, bg);
  return new XMLSerializer().serializeToString(clone);
}
